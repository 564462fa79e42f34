"""Damaged stored files are read errors, never other bytes: in each coded file of a running
Orthanc (storage cache off) one byte is changed in turn in the container header, in the bytes
before Pixel Data, in a PCWT frame and at the end, or the file is cut short; every read of the
instance (GET /instances/{id}/file, and the range read behind its tags) must then fail, and
pcwt-orthanc-compress --check must report the file. Put back, the file reads correctly again."""
import os
import sys

import orthanc_util as ou


def expect_error(orthanc, iid, what, ranges=True):
    """The whole file must fail; so must the range read of the tags when the damage lies in what
    it reads (a range of intact, checksummed prefix bytes is the right bytes and may be served)."""
    for path in ["/instances/%s/file" % iid] + (["/instances/%s/tags" % iid] if ranges else []):
        try:
            orthanc.get(path)
        except ou.HttpError:
            continue
        raise AssertionError("%s: GET %s answered 200 from a damaged stored file" % (what, path))


def main():
    args = ou.parse_args()
    work = ou.workdir(args, "damaged")
    files = [f for f in ou.corpus(args.shared) if "dicom_unc" in f][:3]
    ou.check(files, "no WG04 native images in the corpus")
    storage = os.path.join(work, "storage")
    with ou.Orthanc(work, storage, plugin=args.plugin, asan=args.asan == "1", pcwt={"Mode": "immediate"}) as orthanc:
        cases = 0
        for f in files:
            with open(f, "rb") as fh:
                data = fh.read()
            iid = orthanc.upload(data)["ID"]
            stored = [p for p in ou.stored_files(storage) if ou.is_container(p) and p not in
                      getattr(main, "seen", set())]
            ou.check(len(stored) == 1, "%s was not stored coded" % f)
            path = stored[0]
            main.seen = getattr(main, "seen", set()) | {path}
            with open(path, "rb") as fh:
                good = fh.read()
            # the bytes before Pixel Data follow the 72-byte header, deflated (their length at
            # offset 60) or as they are (up to Pixel Data's value)
            deflated = int.from_bytes(good[60:68], "little")
            prefix = 72 + (deflated // 2 if deflated else data.find(b"\xe0\x7f\x10\x00") - 40)
            for what, offset in (("header", 20), ("prefix", prefix), ("frame", len(good) // 2),
                                 ("last byte", len(good) - 1)):
                bad = bytearray(good)
                bad[offset] ^= 0x5A
                with open(path, "wb") as fh:
                    fh.write(bad)
                expect_error(orthanc, iid, "%s, %s byte %d" % (f, what, offset), what in ("header", "prefix"))
                r = ou.run_tool(args, "--check", storage, check_rc=False)
                ou.check(r.returncode == 1 and "damaged" in r.stdout, "--check missed the %s damage" % what)
                cases += 1
            with open(path, "wb") as fh:
                fh.write(good[: len(good) - 1000])
            expect_error(orthanc, iid, "%s cut short" % f, ranges=False)
            cases += 1
            with open(path, "wb") as fh:
                fh.write(good)
            ou.check(orthanc.file(iid) == data, "%s restored does not read back" % f)
        print("%d damaged stored files, every whole-file read refused (and the range reads over damaged bytes); restored files read back byte-identical" % cases)
        ou.check("stored file damaged" in orthanc.log_text(), "the plugin logged no damage")
    ou.done(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
