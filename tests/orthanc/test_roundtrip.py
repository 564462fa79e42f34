"""Every image of shared/testdata through Orthanc with libpcwt_orthanc: uploaded by REST (the
originals, then their Explicit VR Little Endian copies) and by stock storescu on eight
associations at once, read back through GET /instances/{id}/file, Orthanc's MD5 check, WADO-RS
(orthanc-dicomweb, where installed) and C-GET (stock getscu); range reads (the tags of each
instance, read by Orthanc up to its Pixel Data); deletes remove the stored files."""
import concurrent.futures
import os
import subprocess
import sys

import orthanc_util as ou


def upload_all(orthanc, files):
    def one(path):
        with open(path, "rb") as f:
            data = f.read()
        answer = orthanc.upload(data)
        return path, data, answer["ID"], answer["Status"]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, files))
    # Files sharing a SOP Instance UID (the corpus has a few) are one instance: Orthanc keeps the
    # first it received and answers AlreadyStored to the others.
    kept = [(p, d, i) for p, d, i, status in results if status == "Success"]
    ou.check(len(kept) == len({i for _, _, i, _ in results}), "uploads: not one stored file per instance")
    return kept


def check_files(orthanc, uploaded, what):
    for path, data, iid in uploaded:
        back = orthanc.file(iid)
        ou.check(back == data, "%s: %s came back different (%d bytes, sent %d)" % (what, path, len(back), len(data)))
        orthanc.json("/instances/%s/attachments/dicom/verify-md5" % iid, "POST", b"")


def multipart_parts(body, content_type):
    boundary = content_type.split("boundary=")[1].split(";")[0].strip('"').encode()
    parts = []
    for chunk in body.split(b"--" + boundary)[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, payload = chunk.partition(b"\r\n\r\n")
        parts.append(payload[:-2] if payload.endswith(b"\r\n") else payload)
    return parts


def check_wado(orthanc, uploaded):
    accept = 'multipart/related; type="application/dicom"; transfer-syntax=*'
    for path, data, iid in uploaded:
        tags = orthanc.json("/instances/%s/simplified-tags" % iid)
        url = "/dicom-web/studies/%s/series/%s/instances/%s" % (
            tags["StudyInstanceUID"], tags["SeriesInstanceUID"], tags["SOPInstanceUID"])
        body, headers = orthanc.request("GET", url, headers={"Accept": accept})
        parts = multipart_parts(body, headers.get("Content-Type", ""))
        ou.check(len(parts) == 1 and parts[0] == data, "WADO-RS: %s came back different" % path)


def check_tags(orthanc, uploaded):
    import pydicom
    for path, data, iid in uploaded:
        ds = pydicom.dcmread(path, stop_before_pixels=True)
        tags = orthanc.json("/instances/%s/simplified-tags" % iid)
        ou.check(tags.get("SOPInstanceUID") == str(ds.SOPInstanceUID), "tags of %s" % path)


def pixel_bytes(path_or_bytes):
    import io
    import pydicom
    src = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes
    ds = pydicom.dcmread(src)
    return ds.PixelData if "PixelData" in ds else None


def delete_all(orthanc, storage):
    for iid in orthanc.json("/instances"):
        orthanc.request("DELETE", "/instances/" + iid)
    left = ou.stored_files(storage)
    ou.check(not left, "files left after deleting every instance: %s" % left[:3])


def storescu_parallel(orthanc, files, associations=8):
    """Native files by eight storescu processes at once (-R: the contexts the files need);
    compressed ones by dcmsend beside them (storescu proposes only uncompressed syntaxes, and
    cannot decompress JPEG 2000), so that every file travels in its own transfer syntax."""
    native = [f for f in files if is_native(f)]
    groups = [native[i::associations] for i in range(associations)]
    procs = [subprocess.Popen(["storescu", "-R", "-aet", "STORESCU%d" % i, "-aec", orthanc.aet, "127.0.0.1",
                               str(orthanc.dicom_port)] + g, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for i, g in enumerate(groups) if g]
    compressed = [f for f in files if not is_native(f)]
    if compressed:
        procs.append(subprocess.Popen(["dcmsend", "-aet", "DCMSEND", "-aec", orthanc.aet, "127.0.0.1",
                                       str(orthanc.dicom_port)] + compressed,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    for p in procs:
        out = p.communicate(timeout=600)[0]
        ou.check(p.returncode == 0, "storescu failed: %s" % out.decode(errors="replace")[-2000:])


def is_native(path):
    import pydicom
    return pydicom.dcmread(path, stop_before_pixels=True).file_meta.TransferSyntaxUID in (
        "1.2.840.10008.1.2.1", "1.2.840.10008.1.2")


def check_cget(orthanc, work, files):
    import pydicom
    out = os.path.join(work, "cget")
    os.makedirs(out)
    native = [f for f in files if is_native(f)]
    uids = [ou.sop_uid(f) for f in files]
    for n, f in enumerate(native):
        ds = pydicom.dcmread(f, stop_before_pixels=True)
        target = os.path.join(out, str(n))
        os.makedirs(target)
        r = subprocess.run(["getscu", "-aet", "GETSCU", "-aec", orthanc.aet, "127.0.0.1", str(orthanc.dicom_port),
                            "-k", "QueryRetrieveLevel=IMAGE", "-k", "StudyInstanceUID=%s" % ds.StudyInstanceUID,
                            "-k", "SeriesInstanceUID=%s" % ds.SeriesInstanceUID,
                            "-k", "SOPInstanceUID=%s" % ds.SOPInstanceUID, "-od", target],
                           capture_output=True, text=True, timeout=300)
        got = os.listdir(target)
        ou.check(r.returncode == 0 and len(got) == 1, "getscu %s: %s" % (f, r.stderr[-1500:]))
        stored = orthanc.file(orthanc.lookup(str(ds.SOPInstanceUID)))
        # getscu writes what it received in the syntax it negotiated: the pixels must be the stored ones
        received = os.path.join(target, got[0])
        ou.check(ou.sop_uid(received) == str(ds.SOPInstanceUID) and pixel_bytes(received) == pixel_bytes(stored),
                 "C-GET of %s: other pixel data than the stored file" % f)
        if uids.count(str(ds.SOPInstanceUID)) == 1:  # else another file of that UID may have been kept
            # the receiver writes its own file (meta header, group lengths): the pixels are the sender's
            ou.check(pixel_bytes(f) == pixel_bytes(stored), "C-STORE of %s: other pixel data stored" % f)
    return len(native)


def main():
    args = ou.parse_args()
    work = ou.workdir(args, "roundtrip")
    originals = ou.corpus(args.shared)
    natives = ou.native_copies(args.shared, os.path.join(work, "native"))
    storage = os.path.join(work, "storage")
    dicomweb = os.path.exists(ou.DICOMWEB)
    # immediate: each file is coded when its upload is answered (the deferred mode: test_deferred.py)
    with ou.Orthanc(work, storage, plugin=args.plugin, asan=args.asan == "1", dicomweb=dicomweb,
                    verbose=True, pcwt={"Mode": "immediate"}) as orthanc:
        uploaded = upload_all(orthanc, originals)
        check_files(orthanc, uploaded, "REST")
        coded = [f for f in ou.stored_files(storage) if ou.is_container(f)]
        ou.check(len(coded) >= 10, "only %d of %d files coded" % (len(coded), len(uploaded)))
        check_tags(orthanc, uploaded)
        ou.check("PCWT storage: range" in orthanc.log_text(), "Orthanc made no range read")
        if dicomweb:
            check_wado(orthanc, uploaded)
        print("originals by REST: %d instances, %d stored coded, byte-identical%s" %
              (len(uploaded), len(coded), ", WADO-RS too" if dicomweb else " (no orthanc-dicomweb: WADO-RS not checked)"))
        delete_all(orthanc, storage)

        if natives:
            uploaded = upload_all(orthanc, natives)
            check_files(orthanc, uploaded, "REST (native copies)")
            coded = [f for f in ou.stored_files(storage) if ou.is_container(f)]
            print("native copies by REST: %d instances, %d stored coded, byte-identical" % (len(uploaded), len(coded)))
            delete_all(orthanc, storage)
        else:
            print("gdcmconv missing: native copies not checked")

        storescu_parallel(orthanc, originals)
        ids = orthanc.json("/instances")
        unique = len({ou.sop_uid(f) for f in originals})
        ou.check(len(ids) == unique, "storescu: %d instances stored of %d" % (len(ids), unique))
        for iid in ids:
            orthanc.json("/instances/%s/attachments/dicom/verify-md5" % iid, "POST", b"")
        n = check_cget(orthanc, work, originals)
        print("storescu (8 associations): %d instances, MD5 verified; C-GET of %d native ones: the stored pixel data" % (len(ids), n))
    ou.done(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
