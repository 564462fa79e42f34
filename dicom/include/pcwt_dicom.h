/*
 * pcwt_dicom.h - the DICOM-level rules of PCWT, in C17 and without any DICOM toolkit:
 *
 *   - the private transfer syntax UID (fixed forever, see docs/CONFORMANCE.md);
 *   - the image pixel module: which attribute combinations are coded, and why others are refused;
 *   - frame layout: frame sizes, the mapping to a pcwt_image_desc, planar <-> interleaved copies,
 *     the "bits above BitsStored" check that decides whether JPEG-LS can carry an image;
 *   - the Basic Offset Table of encapsulated pixel data: building it, parsing it, and finding the
 *     fragments of one frame.
 *
 * The DCMTK plugin (plugin/) is a thin C++ shim over these functions and libpcwt. Every value read
 * from a file is untrusted: all size arithmetic is done in 64 bits and checked against limits.
 */
#ifndef PCWT_DICOM_H
#define PCWT_DICOM_H

#include <stddef.h>
#include <stdint.h>

#include "pcwt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Transfer syntax
 * --------------------------------------------------------------------------------------------- */

/* The private transfer syntax: Explicit VR Little Endian, encapsulated pixel data, one fragment
 * per frame, each fragment one PCWT codestream (docs/FORMAT.md), with a Basic Offset Table.
 * A UUID-derived UID (ISO/IEC 9834-8, DICOM PS3.5 B.2), generated once; it identifies codestream
 * format version 1 and must never change. A format that old decoders cannot read gets a new UID. */
#define PCWT_DICOM_TS_UID "2.25.225299300768051036748914159895949168641"
#define PCWT_DICOM_TS_NAME "PCWT Lossless (private)"

/* The standard fallback written by the same tools. */
#define PCWT_DICOM_JPEGLS_LOSSLESS_UID "1.2.840.10008.1.2.4.80"

/* Largest value length of the Pixel Data element: 32-bit lengths, 0xFFFFFFFF means undefined. */
#define PCWT_DICOM_MAX_VALUE_LENGTH 0xFFFFFFFEu

/* ---------------------------------------------------------------------------------------------
 * Image pixel module
 * --------------------------------------------------------------------------------------------- */

typedef enum pcwt_dicom_photometric {
    PCWT_PI_UNKNOWN = 0, /* absent, empty or not a defined term */
    PCWT_PI_MONOCHROME1,
    PCWT_PI_MONOCHROME2,
    PCWT_PI_PALETTE_COLOR,
    PCWT_PI_RGB,
    PCWT_PI_YBR_FULL,
    PCWT_PI_YBR_FULL_422,
    PCWT_PI_YBR_PARTIAL_422,
    PCWT_PI_YBR_PARTIAL_420,
    PCWT_PI_YBR_ICT,
    PCWT_PI_YBR_RCT,
    PCWT_PI_HSV,
    PCWT_PI_ARGB,
    PCWT_PI_CMYK
} pcwt_dicom_photometric;

/* Parse a Photometric Interpretation value (leading/trailing spaces ignored). */
pcwt_dicom_photometric pcwt_dicom_photometric_from_string(const char *value);
/* The defined term ("MONOCHROME2", ...); "" for PCWT_PI_UNKNOWN. */
const char *pcwt_dicom_photometric_name(pcwt_dicom_photometric pi);

/* The attributes of the image pixel module that decide how pixel data is laid out. Fill it from
 * the data set; `present` flags say which optional attributes were found. */
typedef struct pcwt_dicom_pixel_module {
    uint32_t rows;                 /* (0028,0010) */
    uint32_t columns;              /* (0028,0011) */
    uint32_t samples_per_pixel;    /* (0028,0002) */
    uint32_t bits_allocated;       /* (0028,0100) */
    uint32_t bits_stored;          /* (0028,0101) */
    uint32_t high_bit;             /* (0028,0102) */
    uint32_t pixel_representation; /* (0028,0103): 0 unsigned, 1 two's complement */
    uint32_t planar_configuration; /* (0028,0006): 0 interleaved, 1 planar (3 samples only) */
    int has_planar_configuration;  /* 0 when (0028,0006) is absent */
    pcwt_dicom_photometric photometric; /* (0028,0004) */
    uint64_t number_of_frames;     /* (0028,0008); 1 when absent */
} pcwt_dicom_pixel_module;

/* What the pixel data is to be coded as. */
typedef enum pcwt_dicom_target {
    PCWT_DICOM_TARGET_PCWT = 0,  /* the private transfer syntax */
    PCWT_DICOM_TARGET_JPEGLS = 1 /* JPEG-LS Lossless Image Compression, 1.2.840.10008.1.2.4.80 */
} pcwt_dicom_target;

typedef enum pcwt_dicom_status {
    PCWT_DICOM_OK = 0,
    PCWT_DICOM_INVALID = 1,     /* the attributes contradict each other or the standard */
    PCWT_DICOM_UNSUPPORTED = 2, /* valid DICOM that this target cannot code losslessly */
    PCWT_DICOM_TOO_LARGE = 3,   /* sizes beyond DICOM's 32-bit lengths or the given limits */
    PCWT_DICOM_CORRUPT = 4,     /* encapsulated pixel data whose structure is inconsistent */
    PCWT_DICOM_MISMATCH = 5     /* pixel data that does not match the pixel module */
} pcwt_dicom_status;

const char *pcwt_dicom_status_string(pcwt_dicom_status status);

/* Check that the module can be coded losslessly for the target. On failure, msg (if not NULL)
 * receives one sentence naming the attribute and what is accepted.
 *
 * Accepted for both targets: Rows, Columns >= 1; SamplesPerPixel 1 (MONOCHROME1, MONOCHROME2,
 * PALETTE COLOR) or 3 (RGB, YBR_FULL) with PlanarConfiguration 0 or 1 (absent counts as 0);
 * BitsAllocated 8 or 16; 1 <= BitsStored <= BitsAllocated; BitsStored - 1 <= HighBit <
 * BitsAllocated; PixelRepresentation 0 or 1; NumberOfFrames >= 1; all frames together at most
 * PCWT_DICOM_MAX_VALUE_LENGTH bytes.
 * JPEG-LS in addition: HighBit = BitsStored - 1 (BitsStored below 8 in 8-bit words, masks of
 * BitsStored 1 included, is coded with sample precision 8, as dcmcjpls does).
 * PCWT_DICOM_INVALID (not UNSUPPORTED) for values DICOM itself forbids: BitsAllocated 0 or not 1
 * or a multiple of 8, SamplesPerPixel 0 or 2; tools report those as failures, not as images left
 * uncoded. */
pcwt_dicom_status pcwt_dicom_validate(const pcwt_dicom_pixel_module *m, pcwt_dicom_target target,
                                      char *msg, size_t msg_size);

/* The one rule for the length of native (uncompressed) Pixel Data: the element must hold exactly
 * frames * frame bytes, plus the single pad byte DICOM requires to make an odd total even (a value
 * length of total + 1 is accepted only when total is odd). Shorter data cannot be coded; longer
 * data would be dropped silently, so both are refused: a lossless tool must never shed bytes.
 * Returns PCWT_DICOM_OK, PCWT_DICOM_MISMATCH (msg names both lengths), or the status of
 * pcwt_dicom_validate(PCWT) when the module itself does not validate. */
pcwt_dicom_status pcwt_dicom_check_native_length(const pcwt_dicom_pixel_module *m,
                                                 uint64_t value_length, char *msg, size_t msg_size);
/* The same length rule for any image pixel module the standard allows, coded by PCWT or not
 * (Bits Allocated 1 to 64, YBR_FULL_422's two samples per pixel): frames x rows x columns x
 * samples x Bits Allocated bits rounded up to whole bytes, or one pad byte more when that is odd.
 * Only the sizes are checked (non-zero, within DICOM's 32-bit value length): PCWT_DICOM_OK,
 * PCWT_DICOM_INVALID, PCWT_DICOM_TOO_LARGE or PCWT_DICOM_MISMATCH, msg naming both lengths. */
pcwt_dicom_status pcwt_dicom_check_pixel_length(const pcwt_dicom_pixel_module *m,
                                                uint64_t value_length, char *msg, size_t msg_size);

/* ---------------------------------------------------------------------------------------------
 * Frame layout
 * --------------------------------------------------------------------------------------------- */

/* Bytes of one uncompressed frame: rows * columns * samples * bitsAllocated/8 (0 if the module
 * does not validate for PCWT). */
uint64_t pcwt_dicom_frame_bytes(const pcwt_dicom_pixel_module *m);
/* Bytes of all frames, without the pad byte an odd total gets in the Pixel Data element. */
uint64_t pcwt_dicom_pixel_bytes(const pcwt_dicom_pixel_module *m);

/* The libpcwt descriptor of one frame. HighBit = BitsStored - 1 maps directly; any other HighBit
 * (data not in the low bits) is coded as raw words: bits_stored = BitsAllocated, unsigned, which
 * is still lossless. Returns PCWT_DICOM_OK or the status of pcwt_dicom_validate(PCWT). */
pcwt_dicom_status pcwt_dicom_image_desc(const pcwt_dicom_pixel_module *m, pcwt_image_desc *desc);

/* Copy a 3-component frame from planar (RRR..GGG..BBB..) to interleaved (RGBRGB..) or back.
 * bytes_per_sample 1 or 2; src and dst must not overlap. */
void pcwt_dicom_planar_to_interleaved(const void *src, void *dst, size_t pixels,
                                      unsigned bytes_per_sample);
void pcwt_dicom_interleaved_to_planar(const void *src, void *dst, size_t pixels,
                                      unsigned bytes_per_sample);

/* Does every word of the frame hold only its value: bits above BitsStored zero, or (signed) the
 * sign extension of the value? That is what JPEG-LS can carry (it codes BitsStored-bit samples).
 * samples in host order, as described by desc (desc->bits_stored < bits_allocated to matter).
 * Returns 1 when clean; 0 otherwise with *first_bad (if not NULL) = index of the first bad word. */
int pcwt_dicom_high_bits_clean(const pcwt_image_desc *desc, const void *samples, size_t *first_bad);

/* Copy the frame keeping only the low bits_stored bits of every word (what a JPEG-LS decoder
 * gives back), host order. */
void pcwt_dicom_mask_to_bits_stored(const pcwt_image_desc *desc, const void *src, void *dst);

/* ---------------------------------------------------------------------------------------------
 * Basic Offset Table (PS3.5 A.4)
 * --------------------------------------------------------------------------------------------- */

/* Offsets of frames stored one fragment each, from the fragment lengths (the pad byte of an odd
 * length is counted): offsets[0] = 0, offsets[i] = offsets[i-1] + 8 + even(len[i-1]).
 * PCWT_DICOM_TOO_LARGE when an offset does not fit 32 bits. */
pcwt_dicom_status pcwt_dicom_bot_offsets(const uint64_t *fragment_lengths, size_t count,
                                         uint32_t *offsets);
/* The Basic Offset Table item value: count little-endian 32-bit offsets (4 * count bytes). */
void pcwt_dicom_bot_encode(const uint32_t *offsets, size_t count, uint8_t *out);
/* Parse an item value of `length` bytes holding frames offsets. Returns PCWT_DICOM_OK (length 0
 * gives *present = 0), or PCWT_DICOM_CORRUPT when the length is not 4 * frames, the first offset
 * is not 0, or the offsets decrease. */
pcwt_dicom_status pcwt_dicom_bot_decode(const uint8_t *value, uint64_t length, uint64_t frames,
                                        uint32_t *offsets, int *present);

/* Which fragments (0-based, the offset table item not counted) hold frame `frame`:
 *   fragments == frames: fragment `frame` alone (one fragment per frame, what PCWT writes);
 *   else a Basic Offset Table (offsets, NULL when empty): the fragments from the one starting at
 *     offsets[frame] to the one before offsets[frame + 1] (offsets must land on fragment starts);
 *   else a single frame: all fragments.
 * PCWT_DICOM_CORRUPT when none of these apply or the table does not match the fragments. */
pcwt_dicom_status pcwt_dicom_frame_fragments(const uint32_t *offsets, uint64_t frames,
                                             const uint64_t *fragment_lengths, size_t fragments,
                                             uint64_t frame, size_t *first, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* PCWT_DICOM_H */
