#!/usr/bin/python3
"""Generate the PCWT reference test vectors (tests/vectors/*.vec) from the Python model.

The model is shared/reference/pcwt_ref.py, found at <repo>/../shared/reference relative to this
script. Run it once with Debian's interpreter (it needs nothing beyond the standard library):

    /usr/bin/python3 tests/vectors/gen_vectors.py

The generated files are committed; the C++ test (test_vectors.cpp) needs no Python. Rerunning
the generator must reproduce them byte for byte (fixed seeds, deterministic model).

Vector file format (.vec), plain ASCII, whitespace-separated tokens. A line whose first
non-blank character is '#' is a comment. The file is a sequence of "key value" pairs, in this
order:

    name            <identifier>      the case name (equal to the file name without .vec)
    rows            R                 image height, >= 1
    cols            C                 image width, >= 1
    levels          L                 wavelet levels, >= 1 (the model applies exactly L)
    group_rows      GR                elements per group vertically
    group_cols      GC                elements per group horizontally
    bits_allocated  8 | 16
    bits_stored     1 .. bits_allocated
    signed          0 | 1             1: samples are two's complement in bits_stored bits
    qmax            Q                 first int32 of the model's 36-byte header (-1 for an all-zero transform)
    groups          N                 number of group records in the payload
    payload_length  P                 bytes in the payload
    samples         R*C decimal integers, the sample values (already sign-extended when
                    signed), row by row; the file puts one image row per line
    payload         hex digits (two per byte, lower case, any number per line) of the expected
                    payload: pcwt_ref.encode(img, R, C, L, GR, GC)[36:], i.e. the model's output
                    without its 36-byte header. It is, for every group in bitstream order,
                    a little-endian uint32 bit length followed by ceil(bits/8) bytes, MSB first.
    end             (no value) marks the end of the file

The generator asserts that pcwt_ref.decode() round-trips every case, that the payload parses
into exactly `groups` records, and that every sample fits its declared bit depth.
"""
import os
import sys
sys.dont_write_bytecode = True  # the model lives in a read-only tree
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
REF_DIR = os.path.normpath(os.path.join(REPO, '..', 'shared', 'reference'))
sys.path.insert(0, REF_DIR)
import pcwt_ref  # noqa: E402


def rand_img(rng, R, C, lo, hi):
    return [[rng.randint(lo, hi) for _ in range(C)] for _ in range(R)]


def pattern_img(rng, R, C):
    # the mixing used by pcwt_ref.py's own self-test: random where (i*j)%7 != 0, else a ramp
    return [[rng.randint(0, 255) if (i * j) % 7 else (i + j) % 256 for j in range(C)]
            for i in range(R)]


def smooth_img(R, C):
    # the smooth image of pcwt_ref.py's self-test
    return [[(i * 2 + j + (i * j) % 5) % 256 for j in range(C)] for i in range(R)]


def flat_img(R, C, v):
    return [[v] * C for _ in range(R)]


def checker_img(R, C, a, b):
    return [[a if (i + j) % 2 else b for j in range(C)] for i in range(R)]


def gradient16_img(R, C):
    # slow 12-bit ramp with a little texture
    return [[(i * 97 + j * 31 + ((i * j) % 3)) % 4096 for j in range(C)] for i in range(R)]


def cases():
    """(name, R, C, levels, GR, GC, bits_allocated, bits_stored, signed, image)"""
    rng = random.Random(20240601)
    out = []

    def add(name, R, C, L, GR, GC, ba, bs, sg, img):
        out.append((name, R, C, L, GR, GC, ba, bs, sg, img))

    u8 = lambda R, C: rand_img(rng, R, C, 0, 255)  # noqa: E731
    add('u8_rand_37x53_L3_g4x5', 37, 53, 3, 4, 5, 8, 8, 0, u8(37, 53))
    add('u8_rand_33x17_L2_g3x2', 33, 17, 2, 3, 2, 8, 8, 0, u8(33, 17))
    add('u8_rand_1x1_L1_g1x1', 1, 1, 1, 1, 1, 8, 8, 0, u8(1, 1))
    add('u8_rand_1x1_L3_g8x8', 1, 1, 3, 8, 8, 8, 8, 0, u8(1, 1))
    add('u8_rand_1x7_L2_g1x1', 1, 7, 2, 1, 1, 8, 8, 0, u8(1, 7))
    add('u8_rand_7x1_L3_g3x2', 7, 1, 3, 3, 2, 8, 8, 0, u8(7, 1))
    add('u8_rand_2x2_L1_g1x1', 2, 2, 1, 1, 1, 8, 8, 0, u8(2, 2))
    add('u8_rand_3x5_L4_g4x5', 3, 5, 4, 4, 5, 8, 8, 0, u8(3, 5))
    add('u8_rand_64x64_L4_g8x8', 64, 64, 4, 8, 8, 8, 8, 0, u8(64, 64))
    add('u8_rand_40x24_L2_g1x1', 40, 24, 2, 1, 1, 8, 8, 0, u8(40, 24))
    add('u8_rand_45x31_L1_g2x7', 45, 31, 1, 2, 7, 8, 8, 0, u8(45, 31))
    add('u8_rand_11x13_L6_g2x2', 11, 13, 6, 2, 2, 8, 8, 0, u8(11, 13))
    add('u8_rand_5x6_L10_g1x3', 5, 6, 10, 1, 3, 8, 8, 0, u8(5, 6))
    add('u8_pattern_37x53_L3_g4x5', 37, 53, 3, 4, 5, 8, 8, 0, pattern_img(rng, 37, 53))
    add('u8_pattern_50x70_L3_g32x32', 50, 70, 3, 32, 32, 8, 8, 0, pattern_img(rng, 50, 70))
    add('u8_smooth_48x60_L3_g16x16', 48, 60, 3, 16, 16, 8, 8, 0, smooth_img(48, 60))
    add('u8_checker_24x18_L3_g5x3', 24, 18, 3, 5, 3, 8, 8, 0, checker_img(24, 18, 0, 255))
    add('u8_flat0_16x16_L3_g4x4', 16, 16, 3, 4, 4, 8, 8, 0, flat_img(16, 16, 0))
    add('u8_flat200_19x13_L2_g3x2', 19, 13, 2, 3, 2, 8, 8, 0, flat_img(19, 13, 200))
    add('s8_rand_17x19_L2_g2x3', 17, 19, 2, 2, 3, 8, 8, 1, rand_img(rng, 17, 19, -128, 127))
    add('s16_rand_29x41_L3_g8x8', 29, 41, 3, 8, 8, 16, 16, 1, rand_img(rng, 29, 41, -32768, 32767))
    add('s16_checker_16x10_L2_g3x2', 16, 10, 2, 3, 2, 16, 16, 1, checker_img(16, 10, -32768, 32767))
    add('s16_flatneg_9x11_L2_g4x5', 9, 11, 2, 4, 5, 16, 16, 1, flat_img(9, 11, -1000))
    add('u16_rand_13x11_L2_g32x32', 13, 11, 2, 32, 32, 16, 16, 0, rand_img(rng, 13, 11, 0, 65535))
    add('u12_rand_31x23_L4_g4x5', 31, 23, 4, 4, 5, 16, 12, 0, rand_img(rng, 31, 23, 0, 4095))
    add('u12_ramp_36x28_L2_g8x8', 36, 28, 2, 8, 8, 16, 12, 0, gradient16_img(36, 28))
    add('s12_rand_21x27_L3_g5x3', 21, 27, 3, 5, 3, 16, 12, 1, rand_img(rng, 21, 27, -2048, 2047))
    return out


def parse_groups(payload):
    """Count group records; assert the payload is exactly a sequence of them."""
    pos, n = 0, 0
    while pos < len(payload):
        assert pos + 4 <= len(payload), 'truncated group length'
        (nbits,) = struct.unpack_from('<I', payload, pos)
        pos += 4 + (nbits + 7) // 8
        n += 1
    assert pos == len(payload), 'payload does not end on a group boundary'
    return n


def expected_group_count(R, C, L, GR, GC):
    P = pcwt_ref.plan(R, C, L)
    total = 0
    for (l, o) in pcwt_ref.band_list(L):
        mr, mc = P[l - 1]['mqd']
        total += -(-mr // GR) * -(-mc // GC)
    return total


def check_range(img, bs, sg):
    lo, hi = (-(1 << (bs - 1)), (1 << (bs - 1)) - 1) if sg else (0, (1 << bs) - 1)
    for row in img:
        for v in row:
            assert lo <= v <= hi, (v, lo, hi)


def write_vec(path, name, R, C, L, GR, GC, ba, bs, sg, img):
    buf = pcwt_ref.encode(img, R, C, L, GR, GC)
    hdr = struct.unpack_from('<9i', buf, 0)
    qmax, qmin, L2, GR2, GC2, _ch, R2, C2, _ = hdr
    assert (qmin, L2, GR2, GC2, R2, C2) == (0, L, GR, GC, R, C), hdr
    rec = pcwt_ref.decode(buf)
    assert rec == img, name + ': reference decode does not round-trip'
    payload = buf[36:]
    groups = parse_groups(payload)
    assert groups == expected_group_count(R, C, L, GR, GC), name
    lines = [
        '# PCWT reference vector, generated by tests/vectors/gen_vectors.py from',
        '# shared/reference/pcwt_ref.py. Do not edit; see tests/vectors/README.md.',
        'name %s' % name,
        'rows %d' % R,
        'cols %d' % C,
        'levels %d' % L,
        'group_rows %d' % GR,
        'group_cols %d' % GC,
        'bits_allocated %d' % ba,
        'bits_stored %d' % bs,
        'signed %d' % sg,
        'qmax %d' % qmax,
        'groups %d' % groups,
        'payload_length %d' % len(payload),
        'samples',
    ]
    lines += [' '.join(str(v) for v in row) for row in img]
    lines.append('payload')
    hx = payload.hex()
    lines += [hx[i:i + 64] for i in range(0, len(hx), 64)]
    lines.append('end')
    text = '\n'.join(lines) + '\n'
    with open(path, 'w', newline='\n') as f:
        f.write(text)
    return qmax, groups, len(payload), len(text)


def main():
    names = set()
    for (name, R, C, L, GR, GC, ba, bs, sg, img) in cases():
        assert name not in names
        names.add(name)
        assert L >= 1 and len(img) == R and all(len(r) == C for r in img)
        check_range(img, bs, sg)
        qmax, groups, plen, size = write_vec(os.path.join(HERE, name + '.vec'),
                                             name, R, C, L, GR, GC, ba, bs, sg, img)
        assert size < 40 * 1024, (name, size)
        print('%-30s qmax %3d groups %5d payload %6d bytes  file %6d bytes'
              % (name, qmax, groups, plen, size))
    # remove stale vectors from earlier runs
    for f in sorted(os.listdir(HERE)):
        if f.endswith('.vec') and f[:-4] not in names:
            os.remove(os.path.join(HERE, f))
            print('removed stale', f)


if __name__ == '__main__':
    main()
