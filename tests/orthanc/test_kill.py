"""Orthanc with libpcwt_orthanc killed (SIGKILL) while several uploads are in flight, three
times (the immediate mode, then the deferred mode, whose background coders are then at work on
the files just stored, then immediate again): after each restart every instance whose upload was acknowledged reads back byte-identical
(and passes Orthanc's MD5 check), and every stored file decodes to its checksum
(pcwt-orthanc-compress --check)."""
import concurrent.futures
import sys
import threading
import time

import orthanc_util as ou


def upload_until_killed(orthanc, files, kill_after):
    acknowledged = {}
    lock = threading.Lock()

    def one(path):
        with open(path, "rb") as f:
            data = f.read()
        try:
            answer = orthanc.upload(data)
        except Exception:  # the server died under this upload: not acknowledged
            return
        with lock:
            acknowledged[answer["ID"]] = data

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(one, f) for f in files]
        deadline = time.time() + 120
        while len(acknowledged) < kill_after and time.time() < deadline:
            time.sleep(0.01)
        orthanc.kill()
        for f in futures:
            f.result()
    return acknowledged


def main():
    args, work, files, storage = ou.storage_test("kill")
    acknowledged = {}
    rounds = 0
    for rounds, kill_after in enumerate((len(files) // 4, len(files) // 2, 3 * len(files) // 4), 1):
        mode = {"Mode": "deferred" if rounds == 2 else "immediate"}
        orthanc = ou.Orthanc(work, storage, plugin=args.plugin, asan=args.asan == "1", name="orthanc%d" % rounds,
                             pcwt=mode)
        orthanc.start()
        # instances already there answer AlreadyStored, not part of this round
        known = set(orthanc.json("/instances"))
        got = upload_until_killed(orthanc, [f for f in files], kill_after)
        acknowledged.update({k: v for k, v in got.items() if k not in known})
        with ou.Orthanc(work, storage, plugin=args.plugin, asan=args.asan == "1", name="after%d" % rounds,
                        pcwt=mode) as o:
            for iid, data in acknowledged.items():
                ou.check(o.file(iid) == data, "instance %s acknowledged before the kill reads back different" % iid)
                o.json("/instances/%s/attachments/dicom/verify-md5" % iid, "POST", b"")
        r = ou.run_tool(args, "--check", storage)
        print("round %d: killed after %d acknowledged uploads; %d acknowledged so far read back byte-identical; %s"
              % (rounds, len(got), len(acknowledged), r.stdout.strip()))
    coded = [f for f in ou.stored_files(storage) if ou.is_container(f)]
    ou.check(coded, "no file was stored coded")
    ou.done(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
