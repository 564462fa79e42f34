"""A storage folder written by Orthanc without the plugin: read as it is by Orthanc with the
plugin, then compressed in place by pcwt-orthanc-compress: files younger than --min-age are left
alone; a run stopped by --max-files and runs killed (SIGKILL) at several moments leave every
file either as it was or replaced by a container that decodes to it; the next run goes on (and
removes left-over temporary files); a second complete run changes nothing; Orthanc with the
plugin then reads every instance back byte-identical; --decompress gives the plain folder back,
byte for byte, and Orthanc without the plugin reads it."""
import os
import subprocess
import sys
import time

import orthanc_util as ou


def snapshot(storage):
    return {p: open(p, "rb").read() for p in ou.stored_files(storage)}


def check_each_file(args, storage, plain):
    """Every attachment is its plain original or a container of it (--check decodes them)."""
    ou.check(set(ou.stored_files(storage)) == set(plain), "files appeared or vanished")
    r = ou.run_tool(args, "--check", storage)
    for p, data in plain.items():
        if not ou.is_container(p):
            ou.check(open(p, "rb").read() == data, "%s changed but is no container" % p)
    return r


# The deferred mode (the default) would code the plain folder itself at start: the tool is
# tested here, the deferred mode in test_deferred.py.
IMMEDIATE = {"Mode": "immediate"}


def main():
    args, work, files, storage = ou.storage_test("migrate")
    originals = {}
    with ou.Orthanc(work, storage, name="plain") as orthanc:  # no plugin: Orthanc's own storage
        for f in files:
            with open(f, "rb") as fh:
                data = fh.read()
            originals[orthanc.upload(data)["ID"]] = data
    plain = snapshot(storage)
    ou.check(plain and not any(ou.is_container(p) for p in plain), "Orthanc wrote no plain files")

    with ou.Orthanc(work, storage, plugin=args.plugin, asan=args.asan == "1", name="before",
                    pcwt=IMMEDIATE) as orthanc:
        for iid, data in originals.items():
            ou.check(orthanc.file(iid) == data, "plain file of %s read back different" % iid)

    r = ou.run_tool(args, storage)  # default --min-age 60: everything was just written
    ou.check("compressed 0," in r.stdout and snapshot(storage) == plain, "files younger than --min-age changed")

    r = ou.run_tool(args, "--min-age", "0", "--max-files", "3", storage)
    ou.check(r.stdout.startswith("compressed 3,"), "--max-files 3: %s" % r.stdout)
    check_each_file(args, storage, plain)

    for delay in (0.05, 0.2, 0.5):
        p = subprocess.Popen([args.tool, "--min-age", "0", storage], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.kill()
        p.wait()
        check_each_file(args, storage, plain)
    stale = os.path.join(os.path.dirname(sorted(plain)[0]), "." + os.path.basename(sorted(plain)[0]) + ".pcwt-tmp-abcdef")
    with open(stale, "wb") as fh:
        fh.write(b"left over by a killed writer")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))

    r = ou.run_tool(args, "--min-age", "0", storage)
    ou.check(not os.path.exists(stale), "a left-over temporary file was not removed")
    check_each_file(args, storage, plain)
    first = r.stdout.strip()
    r = ou.run_tool(args, "--min-age", "0", storage)
    ou.check(r.stdout.startswith("compressed 0,"), "a second run changed files: %s" % r.stdout)
    coded = [p for p in ou.stored_files(storage) if ou.is_container(p)]
    ou.check(len(coded) >= len(plain) // 2, "only %d of %d files compressed" % (len(coded), len(plain)))
    before = sum(len(d) for d in plain.values())
    after = sum(os.path.getsize(p) for p in ou.stored_files(storage))

    with ou.Orthanc(work, storage, plugin=args.plugin, asan=args.asan == "1", name="after",
                    pcwt=IMMEDIATE) as orthanc:
        for iid, data in originals.items():
            ou.check(orthanc.file(iid) == data, "instance %s read back different after compression" % iid)
            orthanc.json("/instances/%s/attachments/dicom/verify-md5" % iid, "POST", b"")

    # The way back: every container replaced by its original, byte for byte, readable by Orthanc
    # without the plugin.
    r = ou.run_tool(args, "--decompress", "--min-age", "0", storage)
    ou.check(snapshot(storage) == plain, "--decompress did not give the plain folder back")
    with ou.Orthanc(work, storage, name="plain-again") as orthanc:
        for iid, data in originals.items():
            ou.check(orthanc.file(iid) == data, "instance %s unreadable by Orthanc after --decompress" % iid)
    print("%d files, %d compressed in place (%d -> %d bytes); last run: %s; --decompress gave the plain folder back"
          % (len(plain), len(coded), before, after, first))
    ou.done(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
