#!/usr/bin/env bash
# j2kf (issue 34), run 2: branch j2kf14-ab2 (096f16b) = the landing candidate j2kf14-cand (three commits) +
# one A/B commit (switches that turn each change off). cwd = source root, $B build dir, $O output, $J2K the
# run-j2k-bench.sh --pack set. About 60 s (the bench 52 s at most, then one trace, then two timed runs).
set -u
mkdir -p "$O"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
git log --oneline -1 > "$O/commit.txt" 2>&1
W=/dev/shm/j2kf-bench
# 1. the folder, 4 rows in turn, each 4x (CPU path once): the candidate (default) against
#    noprio  its handles' streams at main's default priority
#    nomine  its J2K buffers by cudaMalloc/cudaFree and the tier-2 room after the parsing (main's), priority kept
#    main    all three off (main's way)
#    thp     the candidate with glibc's heap in transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1):
#            run 1's runs had 1.3 GB of heap in 4 KB pages, ~350k minor faults, 2 s system time, and
#            0.15-0.21 s outside the timeline (the exit)
timeout 52 bench/recompress/run-j2k-bench.sh "$O/rj" --src "$J2K" --threads 16 --repeat 4 --baseline-repeat 1 \
  --size-mb 600 --gpu-decode --build "$B" --work "$W" --pcwt-args "--stats" \
  --variant "noprio:PCWT_AB_NO_PRIO=1" --variant "nomine:PCWT_AB_NO_POOL=1 PCWT_AB_NO_ROOM=1" \
  --variant "main:PCWT_AB_NO_PRIO=1 PCWT_AB_NO_POOL=1 PCWT_AB_NO_ROOM=1" \
  --variant "thp:GLIBC_TUNABLES=glibc.malloc.hugetlb=1" \
  > "$O/run-j2k-bench.txt" 2>&1
tail -30 "$O/run-j2k-bench.txt"
cp "$W"/recompress-*.log "$O/" 2>/dev/null
# 2. (~2 s) the candidate's trace
IN=$(ls -d "$W"/in-* | head -1)
rm -rf "$W/out-t"
timeout 10 env PCWT_GPU_TRACE=1 "$B/archive/pcwt-recompress" --threads 16 --output "$W/out-t" --stats "$IN" \
  > "$O/trace-cand.txt" 2>&1
grep -E "^timeline|handles freed|j2k tier-2" "$O/trace-cand.txt"
rm -rf "$W/out-t"
gzip -f "$O"/trace-*.txt
# 3. (~3 s) the process's own counts (/usr/bin/time -v): the candidate, and with the heap in huge pages
for v in cand "thp:GLIBC_TUNABLES=glibc.malloc.hugetlb=1"; do
  n=${v%%:*}; e=""; [[ $v == *:* ]] && e=${v#*:}
  rm -rf "$W/out-t"
  timeout 10 env $e /usr/bin/time -v "$B/archive/pcwt-recompress" --threads 16 --output "$W/out-t" --stats "$IN" \
    > "$O/time-$n.txt" 2>&1
  grep -E "^timeline|^memory|Elapsed|Maximum resident|Minor|System time|User time|context switches" "$O/time-$n.txt"
done
rm -rf "$W/out-t"
