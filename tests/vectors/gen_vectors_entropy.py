#!/usr/bin/python3
"""Generate the entropy-profile reference vectors (tests/vectors/entropy/*.vec) from the Python
model pcwt_ec_ref.py (written from docs/FORMAT.md Sec. 5, independently of the C code).

    /usr/bin/python3 tests/vectors/gen_vectors_entropy.py

Same cases and same file format as gen_vectors.py (see its docstring and README.md), except that
`payload` is the profile-1 plane payload (FORMAT.md Sec. 5.1: a LEB128-framed record per group),
`groups` counts those records, a `low_bits` line (before `samples`) gives the plane's option
bit 0, the encoder's decision to model the low bits (Sec. 5.3), and a `columns_first` line (after
`low_bits`, before `samples`) gives the lifting order, header flag bit 3 (Sec. 3.2: 0 each level
lifts its rows, then its columns; 1 its columns, then its rows). Besides the baseline's cases (all
rows first), two images whose coefficients lie on a lattice make the low-bit decision 1, and a few
cases are coded columns first (names ending in `_cf`): three of the baseline's images and one
lattice image whose coefficients lie on the lattice in that order. Three cases model the second
mantissa bit (names ending in `_s2`; a `second_bit 1` line after `columns_first`): two random
images and a lattice one (low bits as well, so that the bit starts at q = 4). The model must round-trip every
case, and every columns-first payload must differ from the same image's rows-first payload. The
files are committed; test_vectors_entropy (the same test_vectors.cpp built with
PCWT_VECTOR_PROFILE=1) needs no Python. Reruns are byte-identical.
"""
import os
import sys
sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_vectors  # noqa: E402  (cases and the baseline model's location)
import pcwt_ec_ref  # noqa: E402

OUT = os.path.join(HERE, 'entropy')


def count_records(payload):
    pos, n = 0, 0
    while pos < len(payload):
        h, pos = pcwt_ec_ref.read_leb128(payload, pos)
        if h & 1:
            pos += ((h >> 1) + 7) // 8
        else:
            r, pos = pcwt_ec_ref.read_leb128(payload, pos)
            pos += (h >> 1) + r
        n += 1
    assert pos == len(payload), 'payload does not end on a record boundary'
    return n


def lattice_cases(columns_first=False):
    """Images made by the inverse transform of coefficients on a lattice (0 or +-(4k + 2), as an
    image decoded from a lossy wavelet codestream has them), where the low bits are worth
    modelling. columns_first: the same coefficients through the columns-first inverse (names get
    `_cf`), so that the columns-first forward transform gives the lattice back."""
    import random
    import pcwt_ref
    rng = random.Random(20261126)
    out = []
    for (name, R, C, L, GR, GC, ba, bs, sg, dc, spread) in (
            ('u16_lattice_64x96_L3_g16x16', 64, 96, 3, 16, 16, 16, 16, 0, 30000, 60),
            ('s12_lattice_64x80_L2_g5x7', 64, 80, 2, 5, 7, 16, 12, 1, 0, 20)):
        P = pcwt_ref.plan(R, C, L)
        bands = {}
        for l in range(1, L + 1):
            br, bc = P[l - 1]['band']
            for o in ['HL', 'LH', 'HH']:
                bands[(l, o)] = [[0 if rng.random() < 0.2 else
                                  rng.choice((-1, 1)) * (4 * rng.randint(1, spread) + 2)
                                  for _ in range(bc)] for _ in range(br)]
            if l == L:
                bands[(l, 'LL')] = [[dc + rng.randint(-spread, spread) for _ in range(bc)]
                                    for _ in range(br)]
        img = pcwt_ec_ref.inv2d(P, bands, R, C, columns_first)
        check = pcwt_ec_ref.fwd2d(img, R, C, L, columns_first)[1]
        assert check == bands, name  # the transform gives the lattice back
        out.append((name + ('_cf' if columns_first else ''), R, C, L, GR, GC, ba, bs, sg, img))
    return out


def columns_first_cases():
    """Cases coded columns first: a random odd-sized image with several levels and non-square
    groups, signed 16-bit full range, a flat image whose odd sizes put a zero padding row and
    column beside it (which is where the two orders round differently), and a lattice image in
    the columns-first order (low bits 1)."""
    base = {c[0]: c for c in gen_vectors.cases()}
    out = [(name + '_cf',) + base[name][1:] for name in
           ('u8_rand_37x53_L3_g4x5', 's16_rand_29x41_L3_g8x8', 'u8_flat200_19x13_L2_g3x2')]
    out += [c for c in lattice_cases(columns_first=True)
            if c[0] == 's12_lattice_64x80_L2_g5x7_cf']
    assert len(out) == 4
    return out


def second_bit_cases():
    """Cases that model the second mantissa bit (option bit 4; names get `_s2`)."""
    base = {c[0]: c for c in gen_vectors.cases() + lattice_cases()}
    return [(name + '_s2',) + base[name][1:] for name in
            ('u8_rand_37x53_L3_g4x5', 's16_rand_29x41_L3_g8x8', 'u16_lattice_64x96_L3_g16x16')]


def main():
    os.makedirs(OUT, exist_ok=True)
    names, payloads = set(), {}
    all_cases = ([c + (False, False) for c in gen_vectors.cases() + lattice_cases()] +
                 [c + (True, False) for c in columns_first_cases()] +
                 [c + (False, True) for c in second_bit_cases()])
    for (name, R, C, L, GR, GC, ba, bs, sg, img, cf, s2) in all_cases:
        assert name not in names, name
        names.add(name)
        gen_vectors.check_range(img, bs, sg)
        payload, qmax, nraw, low = pcwt_ec_ref.encode_payload(img, R, C, L, GR, GC,
                                                              columns_first=cf, second=s2)
        assert pcwt_ec_ref.decode_payload(payload, R, C, L, GR, GC, qmax, low, cf, s2) == img, name
        if s2:  # the bit makes a difference: without it the stream is refused or decodes otherwise
            assert payload != payloads[name[:-3]], name
            try:
                assert pcwt_ec_ref.decode_payload(payload, R, C, L, GR, GC, qmax, low, cf) != img, name
            except AssertionError as e:
                assert str(e) != name, name
        if '_lattice_' in name:
            assert low, name  # what the lattice cases are for
        if cf:
            rows_first = pcwt_ec_ref.encode_payload(img, R, C, L, GR, GC)[0]
            assert payload != rows_first, name + ': the lifting order makes no difference'
            assert pcwt_ec_ref.decode_payload(payload, R, C, L, GR, GC, qmax, low) != img, name
            if '_lattice_' in name:  # the same coefficients as the rows-first lattice case
                assert payload == payloads[name[:-3]], name
        payloads[name] = payload
        groups = count_records(payload)
        assert groups == gen_vectors.expected_group_count(R, C, L, GR, GC), name
        lines = [
            '# PCWT entropy-profile reference vector, generated by tests/vectors/gen_vectors_entropy.py',
            '# from tests/vectors/pcwt_ec_ref.py. Do not edit; see tests/vectors/README.md.',
            'name %s' % name, 'rows %d' % R, 'cols %d' % C, 'levels %d' % L,
            'group_rows %d' % GR, 'group_cols %d' % GC, 'bits_allocated %d' % ba,
            'bits_stored %d' % bs, 'signed %d' % sg, 'qmax %d' % qmax, 'groups %d' % groups,
            'payload_length %d' % len(payload), 'low_bits %d' % int(low),
            'columns_first %d' % int(cf),
        ] + (['second_bit 1'] if s2 else []) + ['samples']
        lines += [' '.join(str(v) for v in row) for row in img]
        lines.append('payload')
        hx = payload.hex()
        lines += [hx[i:i + 64] for i in range(0, len(hx), 64)]
        lines.append('end')
        with open(os.path.join(OUT, name + '.vec'), 'w', newline='\n') as f:
            f.write('\n'.join(lines) + '\n')
        print('%-30s qmax %3d groups %5d (raw mode %4d) payload %6d bytes, low bits %d, '
              'columns first %d' % (name, qmax, groups, nraw, len(payload), int(low), int(cf)))
    for f in sorted(os.listdir(OUT)):
        if f.endswith('.vec') and f[:-4] not in names:
            os.remove(os.path.join(OUT, f))
            print('removed stale', f)


if __name__ == '__main__':
    main()
