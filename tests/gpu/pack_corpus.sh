#!/usr/bin/env bash
# Packs every corpus frame as a CPU-made PCWT codestream, for the GPU tests and benchmark on the
# device machine, where shared/testdata is not available:
#   tests/gpu/pack_corpus.sh BUILD_DIR OUT_DIR
# BUILD_DIR must hold a build whose ctest fixture exported the corpus (BUILD_DIR/corpus/manifest.tsv).
set -euo pipefail
build=${1:?usage: pack_corpus.sh BUILD_DIR OUT_DIR}
out=${2:?usage: pack_corpus.sh BUILD_DIR OUT_DIR}
man=$build/corpus/manifest.tsv
[[ -f $man ]] || { echo "pack_corpus: $man not found (run ctest -R corpus_export in $build)" >&2; exit 1; }
mkdir -p "$out"
n=0
while IFS=$'\t' read -r raw source w h comps alloc stored sgn planar frame frames rest; do
  [[ $raw == \#* ]] && continue
  args=(--width "$w" --height "$h" --bits "$alloc" --bits-stored "$stored" --components "$comps" --backend cpu)
  [[ $sgn == 1 ]] && args+=(--signed)
  [[ $planar == 1 ]] && args+=(--planar)
  name=$(echo "${source}_f${frame}" | tr '/ ' '__')
  "$build/cli/pcwt" encode "${args[@]}" "$(dirname "$man")/$raw" "$out/$name.pcwt"
  n=$((n + 1))
done < "$man"
echo "pack_corpus: $n codestreams in $out ($(du -sh "$out" | cut -f1))"
