"""The deferred mode (the plugin's default) in a real Orthanc: uploads are stored as they came and
answered at once; the background coders then replace the files by containers. Every instance
reads back byte-identical at every moment (right after its upload, while the coders work, after
they are done); instances deleted while the coders work leave no file; Orthanc killed (SIGKILL)
while the coders work loses nothing, and the next start codes what was left; a clean stop leaves
the marker that spares the next start its walk of the folder."""
import concurrent.futures
import os
import re
import sys
import time

import orthanc_util as ou

IDLE = re.compile(r"background coding idle: (\d+) queued files done, (\d+) coded")


def wait_idle(orthanc, queued, timeout=300):
    """The log's last idle line once at least `queued` files went through the queue."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        hits = IDLE.findall(orthanc.log_text())
        if hits and int(hits[-1][0]) >= queued:
            return hits[-1]
        time.sleep(0.2)
    raise AssertionError("the background coders were not idle after %d s:\n%s" % (timeout, orthanc.log_text()[-2000:]))


def attachment_path(orthanc, storage, iid):
    uuid = orthanc.json("/instances/%s/attachments/dicom/info" % iid)["Uuid"]
    return os.path.join(storage, uuid[0:2], uuid[2:4], uuid)


def main():
    args, work, files, storage = ou.storage_test("deferred")
    datas = [open(f, "rb").read() for f in files]
    asan = args.asan == "1"

    with ou.Orthanc(work, storage, plugin=args.plugin, asan=asan, verbose=True, name="first") as orthanc:
        ou.check("(Mode deferred)" in orthanc.log_text(), "the deferred mode is not the default")

        def upload_and_read(data):
            iid = orthanc.upload(data)["ID"]
            ou.check(orthanc.file(iid) == data, "read back different right after the upload")
            return iid

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            ids = list(pool.map(upload_and_read, datas))
        # deleted while the coders may still be at them
        deleted = {iid: attachment_path(orthanc, storage, iid) for iid in ids[::3]}
        for iid in deleted:
            orthanc.request("DELETE", "/instances/%s" % iid)
        for iid, data in zip(ids, datas):
            if iid not in deleted:
                ou.check(orthanc.file(iid) == data, "read back different while the coders work")
        done = wait_idle(orthanc, len(datas))
        for iid, data in zip(ids, datas):
            if iid not in deleted:
                ou.check(orthanc.file(iid) == data, "read back different after coding")
                orthanc.json("/instances/%s/attachments/dicom/verify-md5" % iid, "POST", b"")
        left = [p for p in deleted.values() if os.path.exists(p)]
        ou.check(not left, "deleted instances left files: %s" % left)
        coded = [p for p in ou.stored_files(storage) if ou.is_container(p)]
        ou.check(coded, "the background coders coded nothing")
        ou.check(not [n for _, _, ns in os.walk(storage) for n in ns if ".pcwt-tmp-" in n], "temporary files left")
        print("%d uploads answered as they came; coders idle: %s queued files done, %s coded; %d deleted meanwhile "
              "left no file; %d containers" % (len(datas), done[0], done[1], len(deleted), len(coded)))
    ou.check(os.path.exists(os.path.join(storage, ".pcwt-deferred-clean")), "a clean stop left no marker")

    # Killed while the coders work: the deleted instances are uploaded again, Orthanc killed as
    # soon as they are answered; the next start walks the folder and codes what is left.
    orthanc = ou.Orthanc(work, storage, plugin=args.plugin, asan=asan, verbose=True, name="killed")
    orthanc.start()
    ou.check(not os.path.exists(os.path.join(storage, ".pcwt-deferred-clean")), "the marker stayed at start")
    again = {orthanc.upload(datas[i])["ID"]: datas[i] for i in range(0, len(datas), 3)}
    orthanc.kill()
    plain_dicom = [p for p in ou.stored_files(storage) if not ou.is_container(p)]
    with ou.Orthanc(work, storage, plugin=args.plugin, asan=asan, verbose=True, name="restarted") as o:
        for iid, data in again.items():  # acknowledged before the kill
            ou.check(o.file(iid) == data, "instance %s acknowledged before the kill reads back different" % iid)
        deadline = time.time() + 300
        while IDLE.search(o.log_text()) is None and time.time() < deadline:
            time.sleep(0.2)
        ou.check(IDLE.search(o.log_text()) is not None, "the start after the kill did not finish its walk")
        ids = o.json("/instances")
        for iid in ids:
            o.json("/instances/%s/attachments/dicom/verify-md5" % iid, "POST", b"")
    r = ou.run_tool(args, "--check", storage)
    coded_now = sum(1 for p in ou.stored_files(storage) if ou.is_container(p))
    # what the walk left plain, the tool would not code either
    r2 = ou.run_tool(args, "--min-age", "0", storage)
    ou.check(r2.stdout.startswith("compressed 0,"), "files left uncoded after the walk: %s" % r2.stdout)
    print("killed with %d plain files in the folder; after the restart's walk %d containers, every instance "
          "verified; %s" % (len(plain_dicom), coded_now, r.stdout.strip()))
    ou.done(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
