/* j2k_codestream.h - the markers of a JPEG 2000 Part 1 codestream (ITU-T T.800 Annex A), read
 * into what the tier-2 parser needs (j2k_codestream.c). Every length and count is checked
 * against the input. What this library decodes (docs/jpeg2000.md): the reversible 5/3 path
 * without quantisation, one tile at the origin, 1 or 3 components of one precision (1..16 bits)
 * without subsampling; anything else is PCWT_ERR_UNSUPPORTED with a message naming the feature,
 * so that callers fall back to another decoder. */
#ifndef PCWT_J2K_CODESTREAM_H
#define PCWT_J2K_CODESTREAM_H

#include "pcwt.h"

#include <stddef.h>
#include <stdint.h>

#define PCWT_J2K_MAX_LEVELS 32
#define PCWT_J2K_MAX_BANDS (3 * PCWT_J2K_MAX_LEVELS + 1)
#define PCWT_J2K_MAX_PARTS 256

enum { PCWT_J2K_LRCP = 0, PCWT_J2K_RLCP = 1, PCWT_J2K_RPCL = 2, PCWT_J2K_PCRL = 3, PCWT_J2K_CPRL = 4 };

/* One component's coding (COD/COC and QCD/QCC after their precedence, T.800 A.6). */
typedef struct pcwt_j2k_comp {
    uint32_t levels;                          /* decomposition levels */
    uint32_t xcb, ycb;                        /* code-block size exponents (2..10, sum <= 12) */
    uint32_t style;                           /* PCWT_J2K_STYLE_* */
    uint8_t ppx[PCWT_J2K_MAX_LEVELS + 1];     /* precinct exponents per resolution (15: none) */
    uint8_t ppy[PCWT_J2K_MAX_LEVELS + 1];
    uint32_t guard;                           /* guard bits */
    uint32_t nexp;                            /* exponents given (QCD/QCC style 0) */
    uint8_t expn[PCWT_J2K_MAX_BANDS];         /* per band: LL, then HL, LH, HH per resolution */
} pcwt_j2k_comp;

/* One tile-part's packet bytes in the input. */
typedef struct pcwt_j2k_part {
    size_t offset;
    size_t length;
} pcwt_j2k_part;

typedef struct pcwt_j2k_header {
    uint32_t width, height;     /* the image, which is the one tile */
    uint32_t components;        /* 1 or 3 */
    uint32_t precision;         /* bits, 1..16 */
    uint32_t is_signed;
    uint32_t order;             /* PCWT_J2K_LRCP .. PCWT_J2K_CPRL */
    uint32_t layers;            /* 1..65535 */
    uint32_t rct;               /* 1: the inverse RCT applies (MCT with 3 components) */
    uint32_t sop, eph;          /* packets may start with SOP / headers end with EPH */
    pcwt_j2k_comp comp[3];
    size_t start;               /* the codestream's first byte in the input (after JP2 boxes) */
    size_t main_length;         /* SOC to the first SOT */
    size_t end;                 /* one past the codestream's last byte read (EOC included) */
    uint32_t part_count;
    pcwt_j2k_part parts[PCWT_J2K_MAX_PARTS];
} pcwt_j2k_header;

/* 1 when src starts with a JPEG 2000 codestream (FF 4F FF 51) or a JP2 signature box. */
int pcwt_j2k_detect(const uint8_t *src, size_t size);

/* Reads the main header only (dimensions, precision, coding), for pcwt_read_header: no tile-part
 * is looked at. */
pcwt_status pcwt_j2k_read_main(const uint8_t *src, size_t size, pcwt_j2k_header *h, char *err,
                               size_t err_size);

/* Reads the main header and every tile-part header, recording where each tile-part's packets
 * are. */
pcwt_status pcwt_j2k_read_codestream(const uint8_t *src, size_t size, pcwt_j2k_header *h,
                                     char *err, size_t err_size);

#endif /* PCWT_J2K_CODESTREAM_H */
