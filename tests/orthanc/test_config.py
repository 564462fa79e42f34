"""The plugin's "PCWT" section in a real Orthanc: a bad value stops Orthanc at start with a
message naming the setting; installed but not enabled, the plugin leaves Orthanc's own storage
alone (files stored plain); "CompressDicom": false stores DICOM files as they come."""
import os
import sys

import orthanc_util as ou


def refused_at_start(args, work, name, setting, value, expected):
    """Orthanc with PCWT.<setting> = value exits at start, its log saying "PCWT.<setting>
    'value': <expected>"."""
    bad = ou.Orthanc(work, os.path.join(work, name), plugin=args.plugin, asan=args.asan == "1", name=name,
                     pcwt={setting: value})
    try:
        bad.start()
        bad.stop()
        raise AssertionError("Orthanc started with PCWT.%s '%s'" % (setting, value))
    except AssertionError as e:
        ou.check("exited" in str(e), str(e))
    ou.check("PCWT.%s '%s': %s" % (setting, value, expected) in bad.log_text(), "no message naming PCWT." + setting)


def main():
    args = ou.parse_args()
    work = ou.workdir(args, "config")
    asan = args.asan == "1"
    f = [p for p in ou.corpus(args.shared) if p.endswith("CT1_UNC.dcm")]
    ou.check(f, "no wg04/dicom_unc/CT1_UNC.dcm in the corpus")
    with open(f[0], "rb") as fh:
        data = fh.read()

    refused_at_start(args, work, "bad", "Profile", "fast", "expected baseline, entropy")
    refused_at_start(args, work, "bad-mode", "Mode", "later", "expected deferred or immediate")

    for name, pcwt in (("disabled", {"Enable": False}), ("plain", {"CompressDicom": False})):
        storage = os.path.join(work, name)
        with ou.Orthanc(work, storage, plugin=args.plugin, asan=asan, name=name, pcwt=pcwt) as orthanc:
            iid = orthanc.upload(data)["ID"]
            ou.check(orthanc.file(iid) == data, "%s: read back different" % name)
        stored = ou.stored_files(storage)
        ou.check(len(stored) == 1 and open(stored[0], "rb").read() == data, "%s: not stored as it came" % name)
    print("a bad setting stops Orthanc with its name; Enable false and CompressDicom false store files as they come")
    ou.done(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
