/*
 * dicom_scan.h - (internal) finds, in the bytes of a DICOM Part 10 file, the top-level Pixel Data
 * element and the image pixel module, and says whether PCWT codes that pixel data losslessly:
 * native (Explicit or Implicit VR Little Endian), 8 or 16 bits allocated, a module and a length
 * dicom/ accepts (pcwt_dicom_validate, pcwt_dicom_check_native_length). Everything else (other
 * transfer syntaxes, encapsulated or absent pixel data, malformed files) is "not coded", with the
 * reason. Every length read is checked against the buffer; nesting is limited.
 */
#ifndef PCWT_ORTHANC_DICOM_SCAN_H
#define PCWT_ORTHANC_DICOM_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "pcwt_dicom.h"

typedef struct pco_scan {
    pcwt_dicom_pixel_module module;
    uint64_t pixel_offset; /* first byte of the Pixel Data value in the file */
    uint64_t pixel_length; /* its value length (frames, plus a pad byte when their total is odd) */
    uint64_t frame_bytes;  /* bytes of one frame */
} pco_scan;

/* 1 when the file's pixel data is coded (scan filled), 0 when it is stored as it came (why, in
 * msg: one sentence). */
int pco_dicom_scan(const uint8_t *data, size_t size, pco_scan *scan, char *msg, size_t msg_size);

#endif
