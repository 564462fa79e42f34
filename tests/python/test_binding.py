"""pcwt's binding of libpcwt on generated images: every dtype, layout and option round trip bit
for bit; options by the library's names with its messages; decode_batch as decode; buffer sizes
refused by the binding before the library is called."""
import numpy as np
import pytest

import pcwt
import pcwt._codec as codec


def image(shape, dtype, bits=None, seed=0):
    """A smooth ramp with noise in bits of dtype (bits above `bits` random when bits is given,
    so that those must survive too)."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    ramp = np.add.outer(np.arange(shape[0]), np.arange(shape[1])) * 7
    ramp = ramp.reshape(ramp.shape + (1,) * (len(shape) - 2)) + np.zeros(shape, np.int64)
    noise = rng.integers(0, 64, shape)
    vals = (ramp + noise) % (int(info.max) - int(info.min) + 1) + int(info.min)
    return vals.astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16])
@pytest.mark.parametrize("profile", ["baseline", "entropy"])
def test_round_trip_grey(dtype, profile):
    a = image((97, 131), dtype, seed=1)
    cs = pcwt.encode(a, profile=profile)
    h = pcwt.read_header(cs)
    assert (h["width"], h["height"], h["components"], h["profile"]) == (131, 97, 1, profile)
    b = pcwt.decode(cs)
    assert b.dtype == a.dtype and b.shape == a.shape and np.array_equal(a, b)


def test_bits_above_bits_stored_survive():
    # 12 bits stored, the upper 4 bits carrying other data (overlays): every word comes back
    a = image((64, 80), np.uint16, seed=2)
    cs = pcwt.encode(a, bits_stored=12, profile="entropy")
    assert pcwt.read_header(cs)["bits_stored"] == 12
    assert np.array_equal(pcwt.decode(cs), a)


@pytest.mark.parametrize("planar", [False, True])
@pytest.mark.parametrize("profile", ["baseline", "entropy"])
def test_round_trip_colour(planar, profile):
    a = image((3, 50, 70) if planar else (50, 70, 3), np.uint8, seed=3)
    cs = pcwt.encode(a, planar=planar, profile=profile)
    h = pcwt.read_header(cs)
    assert h["components"] == 3 and h["planar"] == planar and h["colour_transform"] == (profile == "entropy")
    b = pcwt.decode(cs)
    assert b.shape == a.shape and np.array_equal(a, b)


def test_options_by_name_reach_the_library():
    a = image((256, 256), np.int16, seed=4)
    cs = pcwt.encode(a, profile="entropy", levels=3, group=(32, 16), low_bits="on", lifting="rows")
    h = pcwt.read_header(cs)
    assert (h["levels"], h["group_rows"], h["group_cols"], h["columns_first"]) == (3, 32, 16, False)
    assert pcwt.read_header(pcwt.encode(a, group_rows=8, group_cols=64, min_ll=4))["group_cols"] == 64
    assert pcwt.read_header(pcwt.encode(a, **{"group": "16x16"}))["group_rows"] == 16
    assert pcwt.read_header(pcwt.encode(a, profile="baseline", colour_transform="none", backend="cpu"))["profile"] == "baseline"
    assert np.array_equal(pcwt.decode(cs, backend="cpu", max_samples=256 * 256), a)


def test_bad_options_carry_the_library_message():
    a = image((16, 16), np.uint8)
    with pytest.raises(pcwt.Error, match="profile .fast.: expected baseline, entropy") as e:
        pcwt.encode(a, profile="fast")
    assert e.value.status == "PCWT_ERR_INVALID_ARGUMENT"
    with pytest.raises(pcwt.Error, match="levels"):
        pcwt.encode(a, levels=99)
    with pytest.raises(pcwt.Error, match="no-such-option"):
        pcwt.encode(a, no_such_option=1)
    # a decoder limit below the image: refused by the library with its message
    cs = pcwt.encode(a)
    with pytest.raises(pcwt.Error) as e:
        pcwt.decode(cs, max_samples=100)
    assert e.value.status == "PCWT_ERR_LIMIT_EXCEEDED" and str(e.value)


def test_jpegls_round_trip():
    if not pcwt.jpegls.available():
        pytest.skip("CharLS (libcharls.so.2) is not installed")
    for a, bits in [(image((60, 90), np.uint16, seed=5) & 0x0FFF, 12), (image((40, 30), np.uint8, seed=6), 8),
                    (image((40, 30, 3), np.uint8, seed=7), 8)]:
        for il in (["none", "line", "sample"] if a.ndim == 3 else ["none"]):
            cs = pcwt.jpegls.encode(a, bits_stored=bits, jpegls_interleave=il)
            assert cs[:2] == b"\xff\xd8"
            b = pcwt.jpegls.decode(cs)
            assert b.shape == a.shape and np.array_equal(a, b), il


def test_decode_batch_equals_decode():
    streams = [pcwt.encode(image((32 + 8 * i, 48), np.uint16, seed=i), profile=("baseline", "entropy")[i % 2])
               for i in range(9)]
    got = pcwt.decode_batch(streams)
    assert len(got) == 9
    for cs, arr in zip(streams, got):
        assert np.array_equal(arr, pcwt.decode(cs))
    assert pcwt.decode_batch([]) == []


def test_decode_batch_names_the_failing_frame():
    good = pcwt.encode(image((32, 32), np.uint8))
    bad = bytearray(good)
    bad[-3] ^= 0x40
    with pytest.raises(pcwt.Error, match="frame 2"):
        pcwt.decode_batch([good, good, bytes(bad)])


def test_decode_into_out():
    a = image((40, 50), np.int16)
    cs = pcwt.encode(a)
    out = np.zeros(40 * 50 + 7, np.int16)
    view = pcwt.decode(cs, out=out)
    assert np.array_equal(view, a) and np.shares_memory(view, out)


class _Spy:
    """Stands in for the cffi library object in pcwt._codec and counts calls of one function."""

    def __init__(self, real, name):
        self._real, self._name, self.calls = real, name, 0

    def __getattr__(self, attr):
        fn = getattr(self._real, attr)
        if attr != self._name:
            return fn

        def counted(*args):
            self.calls += 1
            return fn(*args)
        return counted


def test_undersized_buffers_refused_before_the_library(monkeypatch):
    a = image((40, 50), np.uint16)
    cs = pcwt.encode(a)
    spy = _Spy(codec.lib, "pcwt_decode")
    monkeypatch.setattr(codec, "lib", spy)
    for out in (np.zeros(40 * 50 - 1, np.uint16), np.zeros(40 * 50, np.uint8), np.zeros(0, np.uint16)):
        with pytest.raises(pcwt.Error, match="the image needs 4000") as e:
            pcwt.decode(cs, out=out)
        assert e.value.status is None
        assert not out.any()
    with pytest.raises(pcwt.Error, match="writable"):
        ro = np.zeros(4000, np.uint8)
        ro.flags.writeable = False
        pcwt.decode(cs, out=ro)
    with pytest.raises(pcwt.Error, match="C-contiguous"):
        pcwt.decode(cs, out=np.zeros((100, 100), np.uint8)[:, ::2])
    assert spy.calls == 0
    pcwt.decode(cs, out=np.zeros(4000, np.uint8))
    assert spy.calls == 1


def test_encode_refuses_what_it_cannot_describe(monkeypatch):
    spy = _Spy(codec.lib, "pcwt_encode")
    monkeypatch.setattr(codec, "lib", spy)
    with pytest.raises(pcwt.Error, match="expected uint8"):
        pcwt.encode(np.zeros((8, 8), np.float32))
    with pytest.raises(pcwt.Error, match="expected 1 or 3"):
        pcwt.encode(np.zeros((8, 8, 4), np.uint8))
    with pytest.raises(pcwt.Error, match="invalid image"):
        pcwt.encode(np.zeros((8, 8), np.uint8), bits_stored=9)
    with pytest.raises(pcwt.Error, match="shape"):
        pcwt.encode(np.zeros(8, np.uint8))
    assert spy.calls == 0


def test_not_a_codestream():
    for junk in (b"", b"PCWT", b"\x00" * 100, b"hello world" * 10):
        with pytest.raises(pcwt.Error) as e:
            pcwt.decode(junk)
        assert str(e.value) and e.value.status
    with pytest.raises(pcwt.Error, match="bytes-like"):
        pcwt.decode(12345)


def test_library_facts():
    assert pcwt.library_version() == "%d.%d.%d" % tuple(int(x) for x in pcwt.__version__.split("."))
    assert isinstance(pcwt.has_cuda(), bool)
    assert pcwt.Decoder(backend="cpu").backend == "cpu"


def test_threads_each_use_their_own_handle():
    from concurrent.futures import ThreadPoolExecutor
    frames = [image((64, 64 + i), np.int16, seed=i) for i in range(8)]
    streams = [pcwt.encode(f, profile="entropy") for f in frames]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            got = list(pool.map(pcwt.decode, streams * 4))
            assert all(np.array_equal(g, frames[i % 8]) for i, g in enumerate(got))


def test_decoder_limits_checked_before_allocating(monkeypatch):
    cs = pcwt.encode(image((64, 64), np.uint16))
    spy = _Spy(codec.lib, "pcwt_decode")
    monkeypatch.setattr(codec, "lib", spy)
    for opts in (dict(max_samples=64 * 64 - 1), dict(memory_limit=1000)):
        with pytest.raises(pcwt.Error, match="limit") as e:
            pcwt.Decoder(**opts).decode(cs)
        assert e.value.status == "PCWT_ERR_LIMIT_EXCEEDED"
        with pytest.raises(pcwt.Error, match="limit"):
            pcwt.Decoder(**opts).decode_batch([cs])
    assert spy.calls == 0
    assert pcwt.Decoder(max_samples=64 * 64).decode(cs).shape == (64, 64)
