#!/usr/bin/python3
"""Pure-Python model of the PCWT entropy profile (profile 1), written from docs/FORMAT.md Sec. 5
alone, independently of the C code. It reuses the transform and MQDs of the baseline model
shared/reference/pcwt_ref.py, which profile 1 keeps unchanged, and reads the initial probabilities
from codec/src/ec_tables.h (normative, FORMAT.md Sec. 5.4).

    payload, qmax, raw_groups, low = encode_payload(img, R, C, L, GR, GC)   # plane payload
    img = decode_payload(payload, R, C, L, GR, GC, qmax, low)   # low: plane option bit 0

second=True (both calls; plane option bit 4, Sec. 5.3) codes the second mantissa bit with its
models instead of raw.

columns_first=True (both calls; header flag bit 3, FORMAT.md Sec. 3.2) lifts each level's columns
before its rows, JPEG 2000's order, instead of the baseline model's rows first. fwd2d/inv2d below
get it from the rows-first model by transposition (exact, padding included): the columns-first
transform of X is the rows-first transform of X^T with every band transposed back and HL and LH
swapped.

gen_vectors_entropy.py uses it to write tests/vectors/entropy/*.vec, which the C library must
match byte for byte (test_vectors_entropy). Standard library only; run with /usr/bin/python3.
"""
import os
import re
import sys
sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.normpath(os.path.join(REPO, '..', 'shared', 'reference')))
import pcwt_ref  # noqa: E402

NCTX = 106
ZERO, MQD, MAG, MANT, SIGN = 0, 6, 26, 90, 97
LOW1, LOW0 = 27, 28   # modelled low bits: MAG[0][0][1..3], which no element codes
MANT2 = 35            # modelled second mantissa bit (option bit 4): MAG[0][1][1..6], likewise


def load_tables():
    text = open(os.path.join(REPO, 'codec', 'src', 'ec_tables.h')).read()
    body = text[text.index('= {') + 3:text.rindex('};')]
    body = re.sub(r'/\*.*?\*/', '', body, flags=re.S)
    nums = [int(v) for v in re.findall(r'\d+', body)]
    assert len(nums) == 4 * NCTX, len(nums)
    return [nums[c * NCTX:(c + 1) * NCTX] for c in range(4)]


TABLES = load_tables()


class Model:
    __slots__ = ('p', 'n')

    def __init__(self, p):
        self.p, self.n = p, 2

    def update(self, bit):
        s = min(self.n + 1, 6)
        if bit:
            self.p += (32736 - self.p) >> s
        else:
            self.p -= (self.p - 32) >> s
        self.n += 1


class RangeEncoder:
    def __init__(self):
        self.low, self.range, self.cache, self.cache_size = 0, 0xFFFFFFFF, 0, 1
        self.first, self.out = True, bytearray()

    def emit(self, b):
        if self.first:
            self.first = False
        else:
            self.out.append(b)

    def shift_low(self):
        if (self.low & 0xFFFFFFFF) < 0xFF000000 or self.low >= 1 << 32:
            carry = self.low >> 32
            self.emit((self.cache + carry) & 0xFF)
            for _ in range(self.cache_size - 1):
                self.emit((0xFF + carry) & 0xFF)
            self.cache = (self.low >> 24) & 0xFF
            self.cache_size = 0
        self.cache_size += 1
        self.low = (self.low & 0xFFFFFF) << 8

    def encode(self, bit, m):
        bound = (self.range >> 15) * m.p
        if bit:
            self.range = bound
        else:
            self.low += bound
            self.range -= bound
        m.update(bit)
        while self.range < 1 << 24:
            self.range = (self.range << 8) & 0xFFFFFFFF
            self.shift_low()

    def finish(self):
        hi = self.low + self.range - 1
        v = hi
        for s in range(32, 0, -1):
            c = (hi >> s) << s
            if c >= self.low:
                v = c
                break
        self.low = v
        for _ in range(5):
            self.shift_low()
        out = bytes(self.out)
        return out.rstrip(b'\0')


class RangeDecoder:
    def __init__(self, data):
        self.data, self.pos = data, 0
        self.range, self.code = 0xFFFFFFFF, 0
        for _ in range(4):
            self.code = (self.code << 8) | self.next()

    def next(self):
        b = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return b

    def decode(self, m):
        bound = (self.range >> 15) * m.p
        if self.code < bound:
            bit, self.range = 1, bound
        else:
            bit = 0
            self.code -= bound
            self.range -= bound
        m.update(bit)
        while self.range < 1 << 24:
            self.range = (self.range << 8) & 0xFFFFFFFF
            self.code = ((self.code << 8) | self.next()) & 0xFFFFFFFF
        return bit


def leb128(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def read_leb128(buf, pos):
    v, shift = 0, 0
    for i in range(5):
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            assert not (i > 0 and b == 0), 'overlong LEB128'
            return v, pos
    raise ValueError('LEB128 longer than 5 bytes')


def pack_bits(bits):
    bits = bits + [0] * (-len(bits) % 8)
    return bytes(int(''.join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))


def sign(v):
    return (v > 0) - (v < 0)


def contexts(M, x, y, gx, gy, ye, r):
    """(e, z) of FORMAT.md Sec. 5.3 step 1."""
    nb = []
    if y > gy:
        nb.append(M[x][y - 1])
    if x > gx:
        nb.append(M[x - 1][y])
        if y > gy:
            nb.append(M[x - 1][y - 1])
        if y + 1 < ye:
            nb.append(M[x - 1][y + 1])
    if not nb:
        return 4, 5
    pm = max(nb)
    nz = sum(1 for v in nb if v < 0)
    e = min(max(r - pm, 0), 3)
    z = 0 if nz == 0 else 4 if nz == len(nb) else 1 + (3 * nz) // len(nb)
    return e, z


def band_class(l, o):
    return 0 if o == 'LL' else min(l, 3)


def low_worth(n, ones):
    """FORMAT.md Sec. 5.3: whether a plane models its low bits (integer rule)."""
    total, bits = 0, 0
    for k in range(3):
        if n[k]:
            d = abs(2 * ones[k] - n[k])
            f = (d << 16) // n[k]
            total += n[k] * ((f * f) >> 16)
            bits += n[k]
    return bits >= 1024 and total * 8000 >= bits * 1386 * 65536


def low_wanted(bands):
    """Counts over the coefficients of every fourth element row (coefficient rows 8k, 8k + 1) of
    every band of the plane, padding included."""
    n, ones = [0, 0, 0], [0, 0, 0]
    for B in bands.values():
        for r, row in enumerate(B):
            if (r // 2) % 4:
                continue
            for c in row:
                a = abs(c)
                if a >= 4:
                    b1 = (a >> 1) & 1
                    if a >= 8:
                        n[0] += 1
                        ones[0] += b1
                    n[1 + b1] += 1
                    ones[1 + b1] += a & 1
    return low_worth(n, ones)


def code_group(coder, raw, models, B, M, l, o, L, mqd, qmax, gx, gy, xe, ye, decoding, low=False,
               second=False):
    """Encodes (decoding=False) or decodes (True) one group; coder is a RangeEncoder or
    RangeDecoder, raw a list of bits (encoder) or a [bits, position] pair (decoder); low: the
    plane models the two low bits of magnitudes; second: the second mantissa bit (option bit 4)."""
    exact = o == 'LL' or l == 1

    def bit(model_index, value=None):
        if decoding:
            return coder.decode(models[model_index])
        coder.encode(value, models[model_index])
        return value

    def raw_bits(value, n):
        if decoding:
            bits, pos = raw
            v = 0
            for _ in range(n):
                v = (v << 1) | (bits[pos[0]] if pos[0] < len(bits) else 0)
                pos[0] += 1
            return v
        raw.extend((value >> (n - 1 - i)) & 1 for i in range(n))
        return value

    for x in range(gx, xe):
        for y in range(gy, ye):
            r = qmax if l == L else mqd[(l + 1, o)][x // 2][y // 2]
            if r < 0:
                if decoding:
                    M[x][y] = -1
                continue
            e, z = contexts(M, x, y, gx, gy, ye, r)
            m = None if decoding else M[x][y]
            if bit(ZERO + z, None if decoding else int(m < 0)):
                m = -1
            else:
                d_true = None if decoding else r - m
                d = 0
                while d < r:
                    if not bit(MQD + 4 * e + min(d, 3), None if decoding else int(d_true > d)):
                        break
                    d += 1
                m = r - d
            if decoding:
                M[x][y] = m
            if m < 0:
                continue
            found = 0
            for i, (dx, dy) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
                cx, cy = 2 * x + dx, 2 * y + dy
                c = None if decoding else B[cx][cy]
                q = None if decoding else pcwt_ref.ql(c)
                if exact and i == 3 and not found:
                    q = m
                else:
                    t_true = None if decoding else m - q
                    t = 0
                    while t <= m:
                        if not bit(MAG + 16 * min(m, 3) + 8 * found + min(t, 7),
                                   None if decoding else int(t_true > t)):
                            break
                        t += 1
                    q = m - t
                if q == m:
                    found = 1
                if q < 0:
                    if decoding:
                        B[cx][cy] = 0
                    continue
                a = None if decoding else abs(c)
                mag = 1
                if q >= 1:
                    mag = (mag << 1) | bit(MANT + min(q, 7) - 1, None if decoding else (a >> (q - 1)) & 1)
                    s2 = int(second and q >= (4 if low else 2))  # bit q-2 where it would be raw
                    if s2:
                        mag = (mag << 1) | bit(MANT2 + min(q, 7) - 2, None if decoding else (a >> (q - 2)) & 1)
                    n = q - 1 - s2  # the bits below, raw (with low: down to bit 2)
                    if q >= 2 and low:
                        if q >= 3:
                            mag = (mag << (n - 2)) | raw_bits(None if decoding else (a >> 2) & ((1 << (n - 2)) - 1), n - 2)
                            mag = (mag << 1) | bit(LOW1, None if decoding else (a >> 1) & 1)
                        mag = (mag << 1) | bit(LOW0 + (mag & 1), None if decoding else a & 1)
                    elif q >= 2:
                        mag = (mag << n) | raw_bits(None if decoding else a & ((1 << n) - 1), n)
                sl = sign(B[cx][cy - 1]) if cy - 1 >= 2 * gy else 0
                sa = sign(B[cx - 1][cy]) if cx - 1 >= 2 * gx else 0
                neg = bit(SIGN + 3 * (sl + 1) + sa + 1, None if decoding else int(c < 0))
                if decoding:
                    B[cx][cy] = -mag if neg else mag


def transpose(M):
    return [list(col) for col in zip(*M)]


SWAP = {'LL': 'LL', 'HL': 'LH', 'LH': 'HL', 'HH': 'HH'}   # the band names under transposition


def fwd2d(img, R, C, L, columns_first=False):
    """(plan, bands) of the forward transform; columns_first: each level lifts its columns, then
    its rows. Band meanings stay: HL is high-pass horizontally, LH vertically."""
    if not columns_first:
        return pcwt_ref.fwd2d(img, R, C, L)
    _, bt = pcwt_ref.fwd2d(transpose(img), C, R, L)
    return pcwt_ref.plan(R, C, L), {(l, SWAP[o]): transpose(B) for (l, o), B in bt.items()}


def inv2d(P, bands, R, C, columns_first=False):
    """The inverse of fwd2d (P: pcwt_ref.plan(R, C, L))."""
    if not columns_first:
        return pcwt_ref.inv2d(P, bands, R, C)
    bt = {(l, SWAP[o]): transpose(B) for (l, o), B in bands.items()}
    return transpose(pcwt_ref.inv2d(pcwt_ref.plan(C, R, len(P)), bt, C, R))


def encode_payload(img, R, C, L, GR, GC, low=None, columns_first=False, second=False):
    """low: None decides as an encoder does (Sec. 5.3), else forced. columns_first: the lifting
    order (header flag bit 3). second: the second mantissa bit modelled (option bit 4)."""
    P, bands = fwd2d(img, R, C, L, columns_first)
    mqd = pcwt_ref.compute_mqd(P, bands)
    if low is None:
        low = low_wanted(bands)
    qmax = max(max(max(row) for row in mqd[(L, o)]) for o in ('LL', 'HL', 'LH', 'HH'))
    out = bytearray()
    raw_groups = 0
    for (l, o) in pcwt_ref.band_list(L):
        M, B = mqd[(l, o)], bands[(l, o)]
        mr, mc = len(M), len(M[0])
        for gx in range(0, mr, GR):
            for gy in range(0, mc, GC):
                xe, ye = min(gx + GR, mr), min(gy + GC, mc)
                # the raw record: the baseline bit string
                bits = []
                for x in range(gx, xe):
                    for y in range(gy, ye):
                        ref = qmax if l == L else mqd[(l + 1, o)][x // 2][y // 2]
                        pcwt_ref.enc_element(bits, ref, M[x][y], (B[2 * x][2 * y], B[2 * x][2 * y + 1],
                                                                   B[2 * x + 1][2 * y], B[2 * x + 1][2 * y + 1]))
                raw_record = leb128(2 * len(bits) + 1) + pack_bits(bits)
                # the entropy record
                models = [Model(p) for p in TABLES[band_class(l, o)]]
                enc, raw = RangeEncoder(), []
                code_group(enc, raw, models, B, M, l, o, L, mqd, qmax, gx, gy, xe, ye, False, low, second)
                a, rb = enc.finish(), pack_bits(raw)
                ent_record = leb128(2 * len(a)) + leb128(len(rb)) + a + rb
                if len(ent_record) <= len(raw_record):
                    out += ent_record
                else:
                    out += raw_record
                    raw_groups += 1
    return bytes(out), qmax, raw_groups, low


def decode_payload(buf, R, C, L, GR, GC, qmax, low=False, columns_first=False, second=False):
    P = pcwt_ref.plan(R, C, L)
    bands, mqd = {}, {}
    for l in range(1, L + 1):
        br, bc = P[l - 1]['band']
        mr, mc = P[l - 1]['mqd']
        for o in ['HL', 'LH', 'HH'] + (['LL'] if l == L else []):
            bands[(l, o)] = [[0] * bc for _ in range(br)]
            mqd[(l, o)] = [[-1] * mc for _ in range(mr)]
    pos = 0
    for (l, o) in pcwt_ref.band_list(L):
        M, B = mqd[(l, o)], bands[(l, o)]
        mr, mc = len(M), len(M[0])
        for gx in range(0, mr, GR):
            for gy in range(0, mc, GC):
                xe, ye = min(gx + GR, mr), min(gy + GC, mc)
                h, pos = read_leb128(buf, pos)
                if h & 1:
                    nbits = h >> 1
                    chunk = buf[pos:pos + (nbits + 7) // 8]
                    pos += (nbits + 7) // 8
                    bits = [(chunk[k >> 3] >> (7 - (k & 7))) & 1 for k in range(nbits)]
                    k = 0
                    for x in range(gx, xe):
                        for y in range(gy, ye):
                            ref = qmax if l == L else mqd[(l + 1, o)][x // 2][y // 2]
                            m = -1
                            for p in range(ref, -1, -1):
                                k += 1
                                if bits[k - 1]:
                                    m = p
                                    break
                            M[x][y] = m
                            if m >= 0:
                                for (dx, dy) in ((0, 0), (0, 1), (1, 0), (1, 1)):
                                    a = 0
                                    for _ in range(m + 1):
                                        a = (a << 1) | bits[k]
                                        k += 1
                                    s = bits[k]
                                    k += 1
                                    B[2 * x + dx][2 * y + dy] = a if s else -a
                    assert k == nbits
                else:
                    alen = h >> 1
                    rlen, pos = read_leb128(buf, pos)
                    a = buf[pos:pos + alen]
                    rb = buf[pos + alen:pos + alen + rlen]
                    pos += alen + rlen
                    models = [Model(p) for p in TABLES[band_class(l, o)]]
                    dec = RangeDecoder(a)
                    bits = [(rb[k >> 3] >> (7 - (k & 7))) & 1 for k in range(8 * len(rb))]
                    raw = (bits, [0])
                    code_group(dec, raw, models, B, M, l, o, L, mqd, qmax, gx, gy, xe, ye, True, low, second)
                    assert dec.code < dec.range and dec.pos >= alen
                    assert (raw[1][0] + 7) // 8 == rlen and not any(bits[raw[1][0]:])
    assert pos == len(buf)
    return inv2d(P, bands, R, C, columns_first)


if __name__ == '__main__':
    import random
    rng = random.Random(7)
    for (R, C, L, GR, GC) in [(37, 53, 3, 4, 5), (64, 64, 4, 8, 8), (33, 17, 2, 3, 2), (1, 1, 1, 1, 1)]:
        img = [[(i * 3 + j * 5) % 200 + rng.randint(0, 9) for j in range(C)] for i in range(R)]
        for cf in (False, True):
            P, bands = fwd2d(img, R, C, L, cf)
            assert inv2d(P, bands, R, C, cf) == img
            for low in (False, True):
                payload, qmax, nraw, low = encode_payload(img, R, C, L, GR, GC, low, cf)
                assert decode_payload(payload, R, C, L, GR, GC, qmax, low, cf) == img
                print(R, C, L, GR, GC, 'columns first', int(cf), 'low bits', int(low),
                      'lossless, payload', len(payload), 'bytes, raw-mode groups', nraw)
