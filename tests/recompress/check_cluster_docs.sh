#!/bin/bash
# The Slurm job array and the Kubernetes indexed Job of docs/recompress.md, run as they are written
# for every index they produce, on copies of corpus files: every file is in exactly one shard's
# report, each image recompressed once, and a second pass over all shards finds nothing left to do.
# The indexes run two at a time, as the tasks of an array do side by side.
#   check_cluster_docs.sh PCWT_RECOMPRESS DOC TESTDATA WORKDIR     exit 77 (skip) without the corpus
set -euo pipefail
tool=$1 doc=$2 testdata=$3 work=$4
if [ ! -f "$testdata/dcm_qa_ct/GE_CT_series/01.dcm" ] || [ ! -f "$testdata/pydicom-data/emri_small.dcm" ]; then
  echo "no corpus under $testdata: skipped"
  exit 77
fi
py=/usr/bin/python3
if ! "$py" -c 'import yaml' 2>/dev/null; then
  echo "python3-yaml is not installed: skipped (the Kubernetes Job is YAML)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/bin"
# the tools' name as the docs spell it
ln -s "$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")" "$work/bin/pcwt-recompress"
export PATH="$work/bin:$PATH"

# the blocks of the Sharding section: the bash script, the YAML Job
"$py" - "$doc" "$work" <<'EOF'
import re, sys, yaml
doc, work = sys.argv[1], sys.argv[2]
text = open(doc).read()
section = text[text.index("## Sharding: Slurm job arrays and Kubernetes indexed Jobs"):]
section = section[:section.index("\n## ", 3)]
slurm = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
job = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))
lo, hi = map(int, re.search(r"#SBATCH --array=(\d+)-(\d+)", slurm).group(1, 2))
shards = int(re.search(r"^SHARDS=(\d+)", slurm, re.M).group(1))
assert lo == 0 and hi + 1 == shards, "the array's range and SHARDS differ"
spec = job["spec"]
assert job["kind"] == "Job" and spec["completionMode"] == "Indexed"
c = spec["template"]["spec"]["containers"][0]["command"]
assert c[:2] == ["sh", "-c"], c
m = re.search(r"--shard \$JOB_COMPLETION_INDEX/(\d+) ", c[2])
assert m and int(m.group(1)) == spec["completions"], "the Job's completions and --shard's N differ"
open(work + "/slurm.sh", "w").write(slurm)
open(work + "/job.sh", "w").write(c[2])
open(work + "/shards", "w").write(str(shards))
EOF
shards=$(cat "$work/shards")

# a build without GPU takes --gpus 1 as the CPU; a CUDA build on a machine without one refuses it
mkdir -p "$work/empty"
gpus=
if ! pcwt-recompress --gpus 1 --no-progress "$work/empty" >/dev/null 2>&1; then gpus=0; fi

# the corpus copy, the folder the docs name (/shared) moved below the work folder
setup() {
  rm -rf "$work/shared"
  mkdir -p "$work/shared/archive/ct" "$work/shared/archive/mr"
  cp "$testdata"/dcm_qa_ct/GE_CT_series/*.dcm "$work/shared/archive/ct/"
  cp "$testdata"/debian-python3-pydicom/{CT_small,MR_small_bigendian}.dcm "$work/shared/archive/mr/"
  cp "$testdata/pydicom-data/emri_small.dcm" "$work/shared/archive/mr/emri_10frames.dcm"
  echo "not DICOM" > "$work/shared/archive/README.txt"
  chmod -R u+w "$work/shared"
}
localise() {
  sed -e "s|/shared|$work/shared|g" ${gpus:+-e "s|--gpus 1|--gpus $gpus|"} "$1"
}

localise "$work/slurm.sh" > "$work/slurm.local.sh"
localise "$work/job.sh" > "$work/job.local.sh"

# one index of one of them
index() {
  if [ "$1" = slurm ]; then
    SLURM_ARRAY_TASK_ID=$2 SLURM_CPUS_PER_TASK=2 bash "$work/slurm.local.sh"
  else
    JOB_COMPLETION_INDEX=$2 sh -c "$(cat "$work/job.local.sh")"
  fi
}

# run every index of one of them, two at a time as an array's tasks run side by side (Slurm
# twice: the second pass finds everything done)
check() {
  local name=$1 passes=$2
  setup
  local files
  files=$(cd "$work/shared/archive" && find . -type f ! -name '.pcwt-recompress.lock' | sed 's|^\./||' | sort)
  for ((pass = 1; pass <= passes; pass++)); do
    rm -rf "$work/shared/pcwt-reports"
    for ((i = 0; i < shards; i += 2)); do
      index "$name" "$i" > "$work/$name.$i.log" 2>&1 & a=$!
      index "$name" "$((i + 1))" > "$work/$name.$((i + 1)).log" 2>&1 & b=$!
      for j in 0 1; do
        pid=$a; [ "$j" = 1 ] && pid=$b
        wait "$pid" || { echo "$name index $((i + j)): exit status $?"; cat "$work/$name.$((i + j)).log"; exit 1; }
      done
    done
    "$py" - "$work/shared/pcwt-reports" "$shards" "$work/shared/archive" "$pass" "$files" <<'EOF'
import json, os, sys
reports, shards, root, second = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "2"
expected = sys.argv[5].split("\n")
seen = {}
for i in range(shards):
    r = json.load(open(os.path.join(reports, "shard-%d.json" % i)))
    for f in r["files"]:
        rel = os.path.relpath(f["path"], root)
        assert rel not in seen, "%s in shards %d and %d" % (rel, seen[rel][0], i)
        seen[rel] = (i, f["status"])
assert sorted(seen) == sorted(expected), "files missing or extra: %s" % sorted(set(seen) ^ set(expected))
statuses = [s for _, s in seen.values()]
if second:
    assert "recompressed" not in statuses and "failed" not in statuses, statuses
else:
    assert statuses.count("recompressed") == len(expected) - 1, statuses  # all but README.txt
    assert statuses.count("skipped-not-dicom") == 1, statuses
print("%d files in %d shards (%d shards with files), pass %s: %s" % (len(seen), shards,
      len({s for s, _ in seen.values()}), "2" if second else "1", sorted(set(statuses))))
EOF
  done
}
check slurm 2
check kubernetes 1
echo "ok"
