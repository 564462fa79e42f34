/* ec_record.h - the records of entropy-profile groups (docs/FORMAT.md Sec. 5.1): their LEB128
 * numbers, the choice between raw and entropy mode, reading a record's header, and the scratch
 * a group's streams need while it is coded. */
#ifndef PCWT_EC_RECORD_H
#define PCWT_EC_RECORD_H

#include "ec_model.h"

/* ---- group records (Sec. 5.1) --------------------------------------------------------------- */

static inline PCWT_HD uint32_t pcwt_leb128_size(uint64_t v)
{
    uint32_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline PCWT_HD uint8_t *pcwt_leb128_put(uint8_t *d, uint64_t v)
{
    while (v >= 0x80) {
        *d++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *d++ = (uint8_t)v;
    return d;
}

/* Reads an unsigned LEB128 value below 2^32 in canonical (shortest) form; 0 on error. */
static inline PCWT_HD int pcwt_leb128_get(const uint8_t *s, size_t size, size_t *pos, uint32_t *out)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < 5; i++) {
        if (*pos >= size)
            return 0;
        const uint8_t c = s[(*pos)++];
        v |= (uint64_t)(c & 0x7F) << (7 * i);
        if (!(c & 0x80)) {
            if (i > 0 && c == 0)
                return 0; /* overlong */
            if (v > 0xFFFFFFFFu)
                return 0;
            *out = (uint32_t)v;
            return 1;
        }
    }
    return 0;
}

/* A group record's header: raw mode, the baseline bit string of `bits` bits; entropy mode, the
 * range-coder and raw streams of alen and rlen bytes. head: the bytes of its LEB128 numbers. */
typedef struct pcwt_ec_record {
    int entropy;
    uint64_t bits, alen, rlen;
    uint32_t head;
} pcwt_ec_record;

/* Bytes of the whole record. */
static inline PCWT_HD uint64_t pcwt_ec_record_bytes(const pcwt_ec_record *r)
{
    return r->head + (r->entropy ? r->alen + r->rlen : (r->bits + 7) / 8);
}

/* The record an encoder writes for a group coded into its streams: entropy mode unless the
 * range-coder stream overflowed its scratch or the entropy record would be larger than the raw
 * one (ties take entropy mode), so a plane is never larger than in the baseline profile. */
static inline PCWT_HD pcwt_ec_record pcwt_ec_record_choose(uint64_t raw_bits, uint64_t alen,
                                                           uint64_t rlen, int overflow)
{
    const uint32_t raw_head = pcwt_leb128_size(2 * raw_bits + 1);
    const uint32_t ent_head = pcwt_leb128_size(2 * alen) + pcwt_leb128_size(rlen);
    pcwt_ec_record r;
    r.bits = raw_bits;
    r.entropy = !overflow && ent_head + alen + rlen <= raw_head + (raw_bits + 7) / 8;
    r.alen = r.entropy ? alen : 0;
    r.rlen = r.entropy ? rlen : 0;
    r.head = r.entropy ? ent_head : raw_head;
    return r;
}

/* Writes the record's LEB128 numbers; returns where its payload starts. */
static inline PCWT_HD uint8_t *pcwt_ec_record_put_head(uint8_t *d, const pcwt_ec_record *r)
{
    if (!r->entropy)
        return pcwt_leb128_put(d, 2 * r->bits + 1);
    return pcwt_leb128_put(pcwt_leb128_put(d, 2 * r->alen), r->rlen);
}

enum {
    PCWT_EC_RECORD_OK = 0,
    PCWT_EC_RECORD_BAD_LENGTH,   /* the first number is missing or not canonical */
    PCWT_EC_RECORD_BITS_BEYOND,  /* a raw-mode bit string runs past the payload */
    PCWT_EC_RECORD_STREAMS_BEYOND /* entropy mode: a bad second number or streams past the payload */
};

/* Reads the header of the record at s, size bytes before the payload ends, and checks that the
 * record lies within them (Sec. 5.1); returns PCWT_EC_RECORD_OK or the error. r->head is the
 * number of bytes read, also on an error. */
static inline PCWT_HD int pcwt_ec_record_read(const uint8_t *s, size_t size, pcwt_ec_record *r)
{
    size_t at = 0;
    uint32_t h;
    const int ok = pcwt_leb128_get(s, size, &at, &h);
    r->head = (uint32_t)at;
    if (!ok)
        return PCWT_EC_RECORD_BAD_LENGTH;
    r->entropy = !(h & 1u);
    r->bits = r->entropy ? 0 : h >> 1;
    r->alen = r->entropy ? h >> 1 : 0;
    r->rlen = 0;
    if (!r->entropy)
        return (r->bits + 7) / 8 > size - at ? PCWT_EC_RECORD_BITS_BEYOND : PCWT_EC_RECORD_OK;
    uint32_t rlen;
    const int ok2 = pcwt_leb128_get(s, size, &at, &rlen);
    r->head = (uint32_t)at;
    r->rlen = rlen;
    if (!ok2 || r->alen > size - at || r->rlen > size - at - r->alen)
        return PCWT_EC_RECORD_STREAMS_BEYOND;
    return PCWT_EC_RECORD_OK;
}

/* Scratch bytes of each of a group's two streams while it is coded: a range-coder stream that
 * does not fit is longer than the raw record (which is then used), and the raw stream holds a
 * subset of the baseline bits. */
static inline PCWT_HD uint64_t pcwt_ec_scratch(uint64_t raw_bits)
{
    return (raw_bits + 7) / 8 + 16;
}

#endif /* PCWT_EC_RECORD_H */
