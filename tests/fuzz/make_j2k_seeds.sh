#!/bin/sh
# make_j2k_seeds.sh DIR - the seeds of fuzz_j2k: a hand-made minimal JPEG 2000 codestream (4x4,
# 8 bits, no levels, one empty packet), and with opj_compress (libopenjp2-tools) streams over what
# tier-2 reads: levels, code-block sizes, layers, the five progression orders, precincts, SOP/EPH,
# BYPASS/TERMALL, RGB with the RCT, 16-bit signed, tile-parts; with ojph_compress (openjph-tools)
# HTJ2K streams (HT code-blocks, CAP, the HT block decoder's streams).
set -eu
dir=$1
mkdir -p "$dir"
# SOC, SIZ (4x4, 1 component, 8 bits), COD (LRCP, 1 layer, 0 levels, 64x64), QCD (no
# quantisation, 2 guard bits), SOT (Psot 15), SOD, an empty packet, EOC
printf '\377\117\377\121\000\051\000\000\000\000\000\004\000\000\000\004\000\000\000\000\000\000\000\000\000\000\000\004\000\000\000\004\000\000\000\000\000\000\000\000\000\001\007\001\001\377\122\000\014\000\000\000\001\000\000\004\004\000\001\377\134\000\004\100\100\377\220\000\012\000\000\000\000\000\017\000\001\377\223\000\377\331' > "$dir/minimal.j2k"
if ! command -v opj_compress >/dev/null 2>&1; then
    echo "make_j2k_seeds.sh: opj_compress not installed: the minimal seed only" >&2
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a 40x30 ramp with noise (PGM, 8 bits), and a 16-bit one
awk 'BEGIN { printf "P2\n40 30\n255\n"; s = 7; for (y = 0; y < 30; y++) for (x = 0; x < 40; x++) { s = (s * 1103515245 + 12345) % 2147483648; printf "%d\n", (x * 5 + y * 3 + s % 23) % 256 } }' > "$tmp/a.pgm"
awk 'BEGIN { printf "P3\n24 20\n255\n"; s = 3; for (i = 0; i < 480; i++) { s = (s * 1103515245 + 12345) % 2147483648; printf "%d %d %d\n", i % 256, (i * 3) % 256, s % 256 } }' > "$tmp/c.ppm"
n=0
for args in "-n 1" "-n 3" "-n 2 -b 8,8" "-n 3 -r 10,4,1" "-n 3 -p RLCP -r 5,1" "-n 3 -p RPCL -c [16,16],[8,8] -b 4,4" \
            "-n 3 -p PCRL -c [32,32],[16,16] -b 8,8" "-n 2 -p CPRL -r 5,1" "-n 3 -SOP -EPH -r 6,1" "-n 2 -M 1 -r 8,1" \
            "-n 2 -M 4" "-n 2 -M 63" "-n 3 -TP R"; do
    n=$((n + 1))
    opj_compress -i "$tmp/a.pgm" -o "$dir/grey$n.j2k" $args >/dev/null 2>&1 || rm -f "$dir/grey$n.j2k"
    opj_compress -i "$tmp/c.ppm" -o "$dir/rgb$n.j2k" $args >/dev/null 2>&1 || rm -f "$dir/rgb$n.j2k"
done
# ojph_compress reads binary PGM/PPM only: OpenJPEG's decode of the first streams writes them
if command -v ojph_compress >/dev/null 2>&1 && opj_decompress -i "$dir/grey1.j2k" -o "$tmp/b.pgm" >/dev/null 2>&1 &&
   opj_decompress -i "$dir/rgb1.j2k" -o "$tmp/d.ppm" >/dev/null 2>&1; then
    n=0
    for args in "-num_decomps 0" "-num_decomps 2 -block_size {8,8}" "-num_decomps 3 -prog_order LRCP" \
                "-num_decomps 3 -precincts {16,16},{8,8} -block_size {4,4}"; do
        n=$((n + 1))
        ojph_compress -i "$tmp/b.pgm" -o "$dir/ht_grey$n.j2c" -reversible true $args >/dev/null 2>&1 || rm -f "$dir/ht_grey$n.j2c"
    done
    ojph_compress -i "$tmp/d.ppm" -o "$dir/ht_rgb.j2c" -reversible true -num_decomps 2 >/dev/null 2>&1 || rm -f "$dir/ht_rgb.j2c"
fi
ls "$dir" | wc -l | sed 's/^/make_j2k_seeds.sh: seeds: /'
