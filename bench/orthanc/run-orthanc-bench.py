#!/usr/bin/python3
"""Storage folder bytes and ingest throughput of Orthanc (Debian's /usr/sbin/Orthanc) with
libpcwt_orthanc, against Orthanc's own storage (plain, and "StorageCompression": true, zlib) and
against JPEG-LS copies of the same files (dcmcjpls). The images: the Explicit VR Little Endian
copies (shared/testdata/make-native.sh) of the corpus's CT, MR, CR, DX, XA and NM images, one per
SOP Instance UID. Each configuration ingests them into a fresh storage folder by REST
(POST /instances) from CLIENTS threads, REPEAT times; storage bytes are those of the attachment
files (the SQLite index apart). The plugin runs in both modes: immediate (each file coded and
verified before its upload is answered) and deferred (stored as it came, coded in the
background); for the deferred mode the table also gives the seconds from the first upload until
the folder held as many containers as the immediate mode's (every codable file coded).

usage: run-orthanc-bench.py --plugin libpcwt_orthanc.so --shared ../shared [--repeat 3]
                            [--clients 4] [--profile compact] [--backend auto|cpu|gpu]
                            [--out results.md]
Writes a Markdown table (stdout, and --out)."""
import argparse
import concurrent.futures
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "orthanc"))
import orthanc_util as ou  # noqa: E402

MODALITIES = ("CT", "MR", "CR", "DX", "XA", "NM")


def images(shared, work):
    import pydicom
    natives = ou.native_copies(shared, os.path.join(work, "native"))
    if not natives:
        sys.exit("gdcmconv is needed for the native copies (libgdcm-tools)")
    seen, out = set(), []
    for f in natives:
        ds = pydicom.dcmread(f, stop_before_pixels=True)
        uid = str(ds.SOPInstanceUID)
        if ds.get("Modality") in MODALITIES and uid not in seen:
            seen.add(uid)
            out.append((f, ds.Modality))
    return out


def containers(storage):
    return sum(1 for p in ou.stored_files(storage) if ou.is_container(p))


def ingest(work, name, files, clients, plugin=None, pcwt=None, extra=None, expect_coded=None):
    """Seconds of the uploads, seconds until expect_coded files were containers (or None), bytes."""
    storage = os.path.join(work, "storage-" + name)
    shutil.rmtree(storage, ignore_errors=True)
    datas = [open(f, "rb").read() for f, _ in files]
    with ou.Orthanc(work, storage, plugin=plugin, pcwt=pcwt, extra=extra, name=name) as orthanc:
        t0 = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(clients) as pool:
            answers = list(pool.map(orthanc.upload, datas))
        seconds = time.perf_counter() - t0
        coded_after = None
        if expect_coded:
            deadline = time.time() + 600
            while containers(storage) < expect_coded and time.time() < deadline:
                time.sleep(0.05)
            coded_after = time.perf_counter() - t0
            ou.check(containers(storage) >= expect_coded, "%s: the folder was not coded within 600 s" % name)
        ou.check(all(a["Status"] == "Success" for a in answers), "an upload was not stored")
        for a, d in zip(answers, datas):  # what was measured must also read back
            ou.check(orthanc.file(a["ID"]) == d, "%s: read back different" % name)
    stored = ou.stored_files(storage)
    if plugin:
        ou.check(any(ou.is_container(p) for p in stored), "%s: the plugin coded nothing" % name)
        ingest.containers = containers(storage)
    size = sum(os.path.getsize(p) for p in stored)
    shutil.rmtree(storage, ignore_errors=True)
    return seconds, coded_after, size


def jpegls_bytes(work, files):
    total = 0
    out = os.path.join(work, "jls.dcm")
    for f, _ in files:
        r = subprocess.run(["dcmcjpls", f, out], capture_output=True)
        total += os.path.getsize(out) if r.returncode == 0 else os.path.getsize(f)  # kept as it is
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--plugin", required=True)
    p.add_argument("--shared", required=True)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--profile", default="compact")  # the plugin's default
    p.add_argument("--backend", default="auto", help="the plugin's backend: auto, cpu or gpu")
    p.add_argument("--out")
    a = p.parse_args()
    a.plugin = os.path.abspath(a.plugin)  # Orthanc takes a relative path from its configuration's folder
    work = tempfile.mkdtemp(prefix="pcwt-orthanc-bench-")
    files = images(a.shared, work)
    original = sum(os.path.getsize(f) for f, _ in files)
    counts = {m: sum(1 for _, x in files if x == m) for m in MODALITIES}
    configs = [
        ("orthanc", None, None, {"StorageCompression": False}),
        ("orthanc-zlib", None, None, {"StorageCompression": True}),
        ("pcwt-plugin immediate", a.plugin, {"Profile": a.profile, "Backend": a.backend, "Mode": "immediate"}, None),
        ("pcwt-plugin deferred", a.plugin, {"Profile": a.profile, "Backend": a.backend, "Mode": "deferred"}, None),
    ]
    rows, coded = {}, {}
    expect = None
    for _ in range(a.repeat):  # interleaved, so that load on the shared machine hits all alike
        for name, plugin, pcwt, extra in configs:
            deferred = pcwt and pcwt["Mode"] == "deferred"
            seconds, coded_after, size = ingest(work, name, files, a.clients, plugin, pcwt, extra,
                                                expect if deferred else None)
            rows.setdefault(name, []).append((seconds, size))
            if coded_after is not None:
                coded.setdefault(name, []).append(coded_after)
            if plugin and not deferred:
                expect = ingest.containers
    jls = jpegls_bytes(work, files)
    shutil.rmtree(work, ignore_errors=True)

    n = len(files)
    base_rate = n / min(s for s, _ in rows["orthanc"])
    lines = ["| storage | stored bytes | ratio to original | instances/s (best of %d) | median | vs plain Orthanc (best) "
             "| folder coded after, s (median) |" % a.repeat,
             "|---|---|---|---|---|---|---|"]
    for name, _, _, _ in configs:
        size = rows[name][0][1]
        secs = sorted(s for s, _ in rows[name])
        best, median = n / secs[0], n / secs[len(secs) // 2]
        after = sorted(coded.get(name, []))
        lines.append("| %s | %d | %.3f | %.1f | %.1f | %.2fx | %s |" % (
            name, size, original / size, best, median, best / base_rate,
            "%.2f" % after[len(after) // 2] if after else "-"))
    lines.append("| JPEG-LS copies (dcmcjpls) | %d | %.3f | - | - | - | - |" % (jls, original / jls))
    plugin, zlib = rows["pcwt-plugin immediate"][0][1], rows["orthanc-zlib"][0][1]
    summary = ("%d images (%s), %d bytes as files. The plugin's folder is %.1f%% smaller than with "
               "StorageCompression and %.1f%% %s than the JPEG-LS copies." %
               (n, ", ".join("%s %d" % (m, c) for m, c in counts.items() if c), original,
                100.0 * (1 - plugin / zlib), abs(100.0 * (1 - plugin / jls)), "smaller" if plugin <= jls else "larger"))
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print("machine: %s, %d CPUs" % (platform.node(), os.cpu_count()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
