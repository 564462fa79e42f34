#!/bin/bash
# Lead's device call: unpack .devx/src.tar.xz into .devsrc (kept on a warm machine), build, optionally
# run ctest -L gpu, then each request script named in REQS (.devx/req-NAME.sh, with timeout TO_NAME).
# Results collect in $RES and are archived into $OUT/all.tgz after every step, so a call cut by its
# limit still brings back what finished. DEADLINE (s from start): a request that would end after it is skipped.
set -uo pipefail
start=$(date +%s)
root=$PWD
RES=/tmp/res-$start; mkdir -p "$RES/lead"
pack() { tar -czf "$OUT/all.tgz.tmp" -C "$RES" . && mv "$OUT/all.tgz.tmp" "$OUT/all.tgz"; }
export PCWT_GPU_CORPUS=$root/.gpucorpus
[[ -d .devj ]] && export PCWT_GPU_J2K_CORPUS=$root/.devj
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source .devdeps/env.sh
export CPATH="$DEVDEPS_PREFIX/include/openjpeg-2.5:$CPATH"
[[ -d .devtools ]] && export PATH="$root/.devtools/bin:$PATH" LD_LIBRARY_PATH="$root/.devtools/lib:$LD_LIBRARY_PATH"
want=$(cat .devx/commit)
SRC=/tmp/devsrc
if [[ ! -f $SRC/commit || $(cat $SRC/commit) != "$want" ]]; then
  rm -rf $SRC; mkdir -p $SRC; tar -C $SRC -xJf .devx/src.tar.xz; echo "$want" > $SRC/commit
fi
if [[ -f .devt/testdata.tar.xz && ! -d /tmp/shared/testdata ]]; then
  mkdir -p /tmp/shared; tar -C /tmp/shared -xJf .devt/testdata.tar.xz
fi
ln -sfn /tmp/shared "$root/shared" 2>/dev/null
if [[ -f .devr/rcdata.tar.xz && ! -d /tmp/rc/rcdata ]]; then mkdir -p /tmp/rc; tar -C /tmp/rc -xJf .devr/rcdata.tar.xz; fi
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nproc; ls -d "$root"/.dev* "$root"/.gpucorpus "$root"/.j2kdata 2>&1; } > "$RES/lead/gpu.txt" 2>&1
cd $SRC
t0=$(date +%s)
if [[ ! -f build/build.ok ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPCWT_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > "$RES/lead/cmake.log" 2>&1 &&
  cmake --build build -j"$(nproc)" > "$RES/lead/build.log" 2>&1 && touch build/build.ok
fi
echo "build rc: $([[ -f build/build.ok ]] && echo ok || echo FAIL) $(( $(date +%s) - t0 )) s commit $want"
pack
[[ -f build/build.ok ]] || { tail -40 "$RES/lead/build.log"; exit 1; }
if [[ ${GPUTESTS:-0} == 1 ]]; then
  t0=$(date +%s)
  ctest --test-dir build -L gpu -j4 --output-on-failure --timeout "${CT_TIMEOUT:-120}" > "$RES/lead/tests-gpu.txt" 2>&1
  echo "ctest -L gpu rc $? $(( $(date +%s) - t0 )) s: $(grep -E 'tests passed|tests failed' "$RES/lead/tests-gpu.txt")"
  grep -E "^\s+[0-9]+ - .*(Failed|Timeout|Exception)" "$RES/lead/tests-gpu.txt" | head -20
  pack
fi
for n in ${REQS:-}; do
  to=TO_$n
  if [[ -n ${DEADLINE:-} ]] && (( $(date +%s) - start + ${!to:-180} > DEADLINE )); then echo "req $n SKIPPED (deadline)"; continue; fi
  mkdir -p "$RES/$n"
  t0=$(date +%s)
  ( export B=$PWD/build O=$RES/$n GC=$root/.gpucorpus TD=/tmp/shared/testdata J2K=$root/.j2kdata RC=/tmp/rc/rcdata
    timeout "${!to:-180}" bash "$root/.devx/req-$n.sh" ) > "$RES/$n/log.txt" 2>&1
  echo "req $n rc $? $(( $(date +%s) - t0 )) s"
  pack
done
ls -la "$OUT"
