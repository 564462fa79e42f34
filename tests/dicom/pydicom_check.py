#!/usr/bin/python3
"""Read a file of the PCWT private transfer syntax with pydicom, up to and including the raw
pixel data (pydicom cannot decode it): checks the transfer syntax UID, that the pixel data is
encapsulated with one PCWT codestream per frame, and that the Basic Offset Table points at each
frame. Usage: pydicom_check.py FILE UID [PROFILE]; with PROFILE (0 baseline, 1 entropy) every
frame's codestream must declare that profile (header byte 5, docs/FORMAT.md Sec. 1.1). Exit 0 when
all holds, 1 otherwise, 77 without pydicom."""
import struct
import sys

try:
    import pydicom
    from pydicom.encaps import generate_pixel_data_frame, get_frame_offsets
    from pydicom.filebase import DicomBytesIO
except ImportError:
    print("pydicom not available")
    sys.exit(77)


def fail(msg):
    print("pydicom_check: " + msg)
    sys.exit(1)


def main():
    path, uid = sys.argv[1], sys.argv[2]
    profile = int(sys.argv[3]) if len(sys.argv) > 3 else None
    # up to the pixel data: the header alone
    head = pydicom.dcmread(path, stop_before_pixels=True)
    if str(head.file_meta.TransferSyntaxUID) != uid:
        fail("TransferSyntaxUID is %s" % head.file_meta.TransferSyntaxUID)
    if "PixelData" in head:
        fail("stop_before_pixels still read Pixel Data")
    # the whole file, pixel data as bytes
    ds = pydicom.dcmread(path)
    data = ds.PixelData
    frames = int(ds.get("NumberOfFrames", 1) or 1)
    fp = DicomBytesIO(data)
    fp.is_little_endian = True
    tag = struct.unpack("<HH", data[:4])
    if tag != (0xFFFE, 0xE000):
        fail("Pixel Data is not encapsulated (first item tag %r)" % (tag,))
    has_value, offsets = get_frame_offsets(fp)  # (the table has a value, offsets)
    if not has_value or len(offsets) != frames:
        fail("Basic Offset Table has %d entries for %d frames" % (len(offsets) if has_value else 0, frames))
    got = list(generate_pixel_data_frame(data, frames))
    if len(got) != frames:
        fail("%d frames found, %d declared" % (len(got), frames))
    for i, frame in enumerate(got):
        if frame[:4] != b"PCWT":
            fail("frame %d does not start with a PCWT codestream" % (i + 1))
        if profile is not None and (len(frame) < 28 or frame[5] != profile):
            fail("frame %d declares profile %s, expected %d" % (i + 1, frame[5] if len(frame) > 5 else None, profile))
    # the offsets point at the item tag of each frame's fragment
    items = data[8 + len(offsets) * 4:]
    for i, off in enumerate(offsets):
        if items[off:off + 4] != b"\xfe\xff\x00\xe0" or items[off + 8:off + 12] != b"PCWT":
            fail("offset of frame %d (%d) does not point at its fragment" % (i + 1, off))
    print("ok: %d frame(s), %s, %dx%d%s" % (frames, ds.PhotometricInterpretation, ds.Columns, ds.Rows,
                                          "" if profile is None else ", profile %d" % profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())
