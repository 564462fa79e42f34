#!/usr/bin/env bash
# Static SASS instructions of one range-decoder bin's fast path, for the tree at $1 (default: the
# repo root), without a GPU or a disassembler: the microkernel (bin_microkernel.cu) is compiled for
# sm_90 with its bin loop unrolled 1 and 8 times, the window's refill body emptied (it is rare at
# run time), and the .text sizes (16 bytes an instruction) give (size8 - size1) / 7 per bin.
# -DPAIRED: the models in the decoders' paired layout.
set -euo pipefail
tree=$(cd "${1:-$(dirname "$0")/../../..}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cp -r "$tree/codec" "$T/"
python3 - "$T/codec/src/word_window.h" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
i = s.index('static inline __device__ void pcwt_gpu_window_refill')
k = s.index('\n    if', s.index('{', i)); l = s.index('{', k)
depth, m = 0, l
while True:
    depth += {'{': 1, '}': -1}.get(s[m], 0)
    if depth == 0: break
    m += 1
s = s[:l + 1] + '\n        asm volatile("" : "+l"(v->win));\n    ' + s[m:]
open(p, 'w').write(s)
PY
for u in 1 8; do
  sed "s/#pragma unroll 1/#pragma unroll $u/" "$here/bin_microkernel.cu" > "$T/k$u.cu"
  nvcc ${PAIRED:+-DPAIRED} -I"$T/codec/include" -I"$T/codec/src" -O3 -arch=sm_90 -std=c++17 -cubin "$T/k$u.cu" -o "$T/k$u.cubin"
done
python3 - "$T" <<'PY'
import subprocess, sys
def sizes(f):
    r = {}
    for l in subprocess.run(['readelf', '-S', '-W', f], capture_output=True, text=True).stdout.splitlines():
        fs = l.split()
        for i, x in enumerate(fs):
            if x.startswith('.text._Z'): r[x[6:]] = int(fs[i + 4], 16) // 16
    return r
a, b = sizes(sys.argv[1] + '/k1.cubin'), sizes(sys.argv[1] + '/k8.cubin')
for k in sorted(a): print('%-24s %.1f instructions a bin' % (k, (b[k] - a[k]) / 7))
PY
