#!/bin/bash
# The storage plugin's own write speed without Orthanc: orthanc_harness (tests/orthanc) loads
# libpcwt_orthanc.so and writes the images of INPUTS from THREADS threads, as Orthanc's HTTP and
# DICOM threads would, in each configuration below (REPEAT times, interleaved; best and median
# kept); every file is then read back and compared, and removed. "plain" ("CompressDicom": false)
# stores the files as they come, through the same atomic, synced writes: the plugin's floor,
# where Orthanc's own work is absent. For the GPU machine, which has no Orthanc: the GPU
# configurations run where the harness finds a device (else they are left out).
#
# usage: run-harness-bench.sh HARNESS PLUGIN INPUTS [THREADS=8] [REPEAT=3] [PROFILE=compact, the default]
#   INPUTS: a folder of DICOM files (bench/orthanc/pack-harness-inputs.py makes the corpus's)
# Prints a Markdown table: instances/s and MB/s of the writes, and for the deferred mode the
# seconds until the background coders were done (from the first write).
set -u
harness=$1 plugin=$2 inputs=$3 threads=${4:-8} repeat=${5:-3} profile=${6:-compact}
work=$(mktemp -d /tmp/pcwt-harness-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT

configs=(
  "plain|\"CompressDicom\": false, \"Mode\": \"immediate\", \"Backend\": \"cpu\""
  "cpu immediate|\"Mode\": \"immediate\", \"Backend\": \"cpu\""
  "cpu deferred|\"Mode\": \"deferred\", \"Backend\": \"cpu\""
)
if "$harness" --plugin "$plugin" --storage "$work/probe" --skip-without-gpu --pcwt '"Backend": "gpu", "Mode": "immediate"' \
     "$inputs" > "$work/probe.txt" 2>&1; then
  configs+=(
    "gpu immediate, one write per call (BatchWindowMs 0)|\"Mode\": \"immediate\", \"Backend\": \"gpu\", \"BatchWindowMs\": 0"
    "gpu immediate, writes batched (2 ms window)|\"Mode\": \"immediate\", \"Backend\": \"gpu\""
    "gpu deferred, batched|\"Mode\": \"deferred\", \"Backend\": \"gpu\""
  )
else
  echo "GPU configurations left out: $(tail -1 "$work/probe.txt")" >&2
fi

declare -A rates mbs coded stored
for ((r = 0; r < repeat; r++)); do
  for c in "${configs[@]}"; do
    name=${c%%|*} members="${c#*|}, \"Profile\": \"$profile\""
    rm -rf "$work/storage"
    line=$("$harness" --plugin "$plugin" --storage "$work/storage" --threads "$threads" --wait-coded \
           --pcwt "$members" "$inputs" 2>"$work/err.txt" | tail -1)
    if ! grep -q "failures 0" <<<"$line"; then
      echo "$name: harness failed: $line" >&2
      cat "$work/err.txt" >&2
      exit 1
    fi
    rates[$name]+="$(sed -E 's/.*\(([0-9.]+) files\/s.*/\1/' <<<"$line") "
    mbs[$name]+="$(sed -E 's/.*files\/s, ([0-9.]+) MB\/s.*/\1/' <<<"$line") "
    coded[$name]+="$(sed -E 's/.*coded after ([-0-9.]+) s.*/\1/' <<<"$line") "
    stored[$name]=$(sed -E 's/.*stored ([0-9]+) .*/\1/' <<<"$line")
    files=$(sed -E 's/^files ([0-9]+), bytes ([0-9]+).*/\1 \2/' <<<"$line")
  done
done

stat_of() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk -v w="$2" '{v[NR]=$1} END {print (w=="max") ? v[NR] : (w=="min") ? v[1] : v[int((NR+1)/2)]}'; }
plain_best=$(stat_of "${rates[plain]}" max)
echo "Inputs: $files (files, bytes); $threads writing threads; profile $profile; best and median of $repeat"
echo
echo "| configuration | stored bytes | writes: instances/s (best) | median | MB/s (best) | vs plain (best) | folder coded after, s (median) |"
echo "|---|---|---|---|---|---|---|"
for c in "${configs[@]}"; do
  name=${c%%|*}
  best=$(stat_of "${rates[$name]}" max)
  printf '| %s | %s | %s | %s | %s | %.2fx | %s |\n' "$name" "${stored[$name]}" "$best" "$(stat_of "${rates[$name]}" median)" \
    "$(stat_of "${mbs[$name]}" max)" "$(awk -v a="$best" -v b="$plain_best" 'BEGIN {print a / b}')" "$(stat_of "${coded[$name]}" median)"
done
