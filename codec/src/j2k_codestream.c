/* j2k_codestream.c - the main header and the tile-part headers of a JPEG 2000 codestream
 * (T.800 A.4-A.7), optionally inside JP2 boxes. Lengths are checked before every read; features
 * outside what this library decodes are refused by name (j2k_codestream.h). */
#include "j2k_batch.h"
#include "j2k_codestream.h"
#include "status.h"

#include <string.h>

enum {
    M_SOC = 0xFF4F, M_CAP = 0xFF50, M_SIZ = 0xFF51, M_COD = 0xFF52, M_COC = 0xFF53,
    M_TLM = 0xFF55, M_PLM = 0xFF57, M_PLT = 0xFF58, M_CPF = 0xFF59, M_QCD = 0xFF5C,
    M_QCC = 0xFF5D, M_RGN = 0xFF5E, M_POC = 0xFF5F, M_PPM = 0xFF60, M_PPT = 0xFF61,
    M_CRG = 0xFF63, M_COM = 0xFF64, M_SOT = 0xFF90, M_SOD = 0xFF93, M_EOC = 0xFFD9
};

static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t get32(const uint8_t *p) { return get16(p) << 16 | get16(p + 2); }

static const uint8_t jp2_signature[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};

int pcwt_j2k_detect(const uint8_t *src, size_t size)
{
    if (!src)
        return 0;
    if (size >= 4 && src[0] == 0xFF && src[1] == 0x4F && src[2] == 0xFF && src[3] == 0x51)
        return 1;
    return size >= 12 && memcmp(src, jp2_signature, 12) == 0;
}

/* The contiguous codestream box (jp2c) of a JP2 file, at the top level. */
static pcwt_status find_jp2c(const uint8_t *src, size_t size, size_t *start, size_t *end,
                             char *err, size_t es)
{
    size_t pos = 0;
    while (pos < size) {
        if (size - pos < 8) {
            pcwt_set_error(err, es, "JP2 box header truncated at byte %zu", pos);
            return PCWT_ERR_TRUNCATED;
        }
        uint64_t len = get32(src + pos);
        size_t head = 8;
        if (len == 1) {
            if (size - pos < 16) {
                pcwt_set_error(err, es, "JP2 box header truncated at byte %zu", pos);
                return PCWT_ERR_TRUNCATED;
            }
            len = (uint64_t)get32(src + pos + 8) << 32 | get32(src + pos + 12);
            head = 16;
        } else if (len == 0) {
            len = size - pos;
        }
        if (len < head || len > size - pos) {
            pcwt_set_error(err, es, "JP2 box at byte %zu: length %llu does not fit the file", pos,
                           (unsigned long long)len);
            return len < head ? PCWT_ERR_CORRUPT : PCWT_ERR_TRUNCATED;
        }
        if (memcmp(src + pos + 4, "jp2c", 4) == 0) {
            *start = pos + head;
            *end = pos + (size_t)len;
            return PCWT_OK;
        }
        pos += (size_t)len;
    }
    pcwt_set_error(err, es, "JP2 file without a codestream box (jp2c)");
    return PCWT_ERR_CORRUPT;
}

/* The parsing state: defaults of the main header and overrides of the tile-part header. */
typedef struct coding_state {
    pcwt_j2k_comp cod, coc[3], qcd, qcc[3];
    int has_cod, has_coc[3], has_qcd, has_qcc[3];
} coding_state;

typedef struct parser {
    const uint8_t *s;
    size_t end;
    uint32_t csiz;
    pcwt_j2k_header *h;
    coding_state main, tile;
    char *err;
    size_t es;
} parser;

/* A parser filling h, its messages into err, nothing read yet. */
static void parser_init(parser *p, pcwt_j2k_header *h, char *err, size_t err_size)
{
    memset(p, 0, sizeof *p);
    p->h = h;
    p->err = err;
    p->es = err_size;
}

static pcwt_status unsupported(parser *p, const char *what)
{
    pcwt_set_error(p->err, p->es, "JPEG 2000: %s is not decoded by this library", what);
    return PCWT_ERR_UNSUPPORTED;
}

static pcwt_status corrupt(parser *p, const char *what)
{
    pcwt_set_error(p->err, p->es, "JPEG 2000: %s", what);
    return PCWT_ERR_CORRUPT;
}

static pcwt_status read_siz(parser *p, const uint8_t *m, size_t len)
{
    pcwt_j2k_header *h = p->h;
    if (len < 38)
        return corrupt(p, "SIZ marker too short");
    const uint32_t rsiz = get16(m);
    const uint32_t xsiz = get32(m + 2), ysiz = get32(m + 6), xo = get32(m + 10), yo = get32(m + 14);
    const uint32_t xt = get32(m + 18), yt = get32(m + 22), xto = get32(m + 26), yto = get32(m + 30);
    const uint32_t csiz = get16(m + 34);
    if (csiz == 0 || csiz > 16384 || len != 36 + 3 * (size_t)csiz)
        return corrupt(p, "SIZ marker length does not match its component count");
    if (xsiz <= xo || ysiz <= yo || xt == 0 || yt == 0 || xto > xo || yto > yo ||
        (uint64_t)xto + xt <= xo || (uint64_t)yto + yt <= yo)
        return corrupt(p, "SIZ: empty image or tile grid outside the image");
    if (rsiz & 0x8000)
        return unsupported(p, "a Part 2 codestream (Rsiz)");
    if (xo || yo)
        return unsupported(p, "an image offset (XOsiz/YOsiz)");
    if ((uint64_t)xto + xt < xsiz || (uint64_t)yto + yt < ysiz)
        return unsupported(p, "a codestream of several tiles");
    if (csiz != 1 && csiz != 3)
        return unsupported(p, "a component count other than 1 or 3");
    h->width = xsiz;
    h->height = ysiz;
    h->components = csiz;
    p->csiz = csiz;
    for (uint32_t c = 0; c < csiz; c++) {
        const uint8_t *q = m + 36 + 3 * c;
        const uint32_t prec = (q[0] & 0x7Fu) + 1, sgn = q[0] >> 7;
        if (q[1] == 0 || q[2] == 0)
            return corrupt(p, "SIZ: component subsampling of 0");
        if (q[1] != 1 || q[2] != 1)
            return unsupported(p, "subsampled components");
        if (prec > 38)
            return corrupt(p, "SIZ: component precision above 38 bits");
        if (prec > 16)
            return unsupported(p, "a precision above 16 bits");
        if (c && (prec != h->precision || sgn != h->is_signed))
            return unsupported(p, "components of different precisions or signedness");
        h->precision = prec;
        h->is_signed = sgn;
    }
    return PCWT_OK;
}

/* SPcod / SPcoc (T.800 Table A.15): levels, code-block size and style, the wavelet, precincts. */
static pcwt_status read_spcod(parser *p, const uint8_t *m, size_t len, int precincts,
                              pcwt_j2k_comp *c)
{
    if (len < 5)
        return corrupt(p, "COD/COC marker too short");
    c->levels = m[0];
    if (c->levels > PCWT_J2K_MAX_LEVELS)
        return corrupt(p, "more than 32 decomposition levels");
    if (m[1] > 8 || m[2] > 8 || m[1] + m[2] > 8)
        return corrupt(p, "code-block size out of range");
    c->xcb = m[1] + 2u;
    c->ycb = m[2] + 2u;
    c->style = m[3];
    if (c->style & 0x80)
        return unsupported(p, "mixed HTJ2K and Part 1 code-blocks (code-block style bit 7)");
    if (m[4] == 0)
        return unsupported(p, "the irreversible 9/7 wavelet");
    if (m[4] != 1)
        return unsupported(p, "a Part 2 wavelet kernel");
    const size_t need = 5 + (precincts ? c->levels + 1u : 0u);
    if (len != need)
        return corrupt(p, "COD/COC marker length does not match its levels");
    for (uint32_t r = 0; r <= c->levels; r++) {
        const uint8_t v = precincts ? m[5 + r] : 0xFF;
        c->ppx[r] = v & 0x0F;
        c->ppy[r] = v >> 4;
        if (r > 0 && (c->ppx[r] == 0 || c->ppy[r] == 0))
            return corrupt(p, "precinct size of 1 above the lowest resolution");
    }
    return PCWT_OK;
}

static pcwt_status read_cod(parser *p, const uint8_t *m, size_t len, coding_state *cs)
{
    pcwt_j2k_header *h = p->h;
    if (len < 5)
        return corrupt(p, "COD marker too short");
    const uint32_t scod = m[0];
    if (scod & 0xF8)
        return unsupported(p, "COD coding style bits of Part 2");
    if (m[1] > PCWT_J2K_CPRL)
        return corrupt(p, "COD: unknown progression order");
    h->order = m[1];
    h->layers = get16(m + 2);
    if (h->layers == 0)
        return corrupt(p, "COD: zero layers");
    if (m[4] > 1)
        return unsupported(p, "a Part 2 multiple component transform");
    h->rct = m[4];
    h->sop = (scod >> 1) & 1;
    h->eph = (scod >> 2) & 1;
    cs->has_cod = 1;
    return read_spcod(p, m + 5, len - 5, (int)(scod & 1), &cs->cod);
}

/* The component index of COC/QCC/RGN: one byte below 257 components, else two. */
static pcwt_status comp_index(parser *p, const uint8_t *m, size_t len, uint32_t *c, size_t *used)
{
    *used = p->csiz < 257 ? 1 : 2;
    if (len < *used)
        return corrupt(p, "marker too short for its component index");
    *c = *used == 1 ? m[0] : get16(m);
    if (*c >= p->csiz)
        return corrupt(p, "marker names a component that does not exist");
    return PCWT_OK;
}

static pcwt_status read_coc(parser *p, const uint8_t *m, size_t len, coding_state *cs)
{
    uint32_t c;
    size_t n;
    pcwt_status st = comp_index(p, m, len, &c, &n);
    if (st != PCWT_OK)
        return st;
    if (len < n + 1)
        return corrupt(p, "COC marker too short");
    if (m[n] & 0xFE)
        return unsupported(p, "COC coding style bits of Part 2");
    cs->has_coc[c] = 1;
    return read_spcod(p, m + n + 1, len - n - 1, m[n] & 1, &cs->coc[c]);
}

/* Sqcd/SPqcd (T.800 Table A.28): only style 0, no quantisation, is decoded. */
static pcwt_status read_sqcd(parser *p, const uint8_t *m, size_t len, pcwt_j2k_comp *c)
{
    if (len < 1)
        return corrupt(p, "QCD/QCC marker too short");
    const uint32_t style = m[0] & 0x1F;
    if (style == 1 || style == 2)
        return unsupported(p, "quantisation (scalar derived or expounded)");
    if (style != 0)
        return corrupt(p, "unknown quantisation style");
    if (len - 1 > PCWT_J2K_MAX_BANDS)
        return corrupt(p, "QCD/QCC: more exponents than bands");
    c->guard = m[0] >> 5;
    c->nexp = (uint32_t)(len - 1);
    for (uint32_t b = 0; b < c->nexp; b++)
        c->expn[b] = m[1 + b] >> 3;
    return PCWT_OK;
}

static pcwt_status read_qcc(parser *p, const uint8_t *m, size_t len, coding_state *cs)
{
    uint32_t c;
    size_t n;
    const pcwt_status st = comp_index(p, m, len, &c, &n);
    if (st != PCWT_OK)
        return st;
    cs->has_qcc[c] = 1;
    return read_sqcd(p, m + n, len - n, &cs->qcc[c]);
}

/* CAP (T.814 A.2): Part 15 capabilities (Pcap bit 15 set, one Ccap word) are decoded when the
 * code-blocks say HT (COD/COC style 0x40); other parts' capabilities are not. */
static pcwt_status read_cap(parser *p, const uint8_t *m, size_t len)
{
    if (len < 4)
        return corrupt(p, "CAP marker too short");
    const uint32_t pcap = get32(m);
    uint32_t words = 0;
    for (uint32_t i = 0; i < 32; i++)
        words += (pcap >> i) & 1u;
    if (len != 4 + 2 * (size_t)words)
        return corrupt(p, "CAP marker length does not match its Pcap");
    if (pcap & ~(1u << (32 - 15)))
        return unsupported(p, "capabilities of a part other than Part 15 (CAP)");
    return PCWT_OK;
}

/* One marker segment of the main header (main 1) or of a tile-part header (main 0). */
static pcwt_status read_marker(parser *p, uint32_t marker, const uint8_t *m, size_t len, int main)
{
    coding_state *cs = main ? &p->main : &p->tile;
    switch (marker) {
    case M_COD: return read_cod(p, m, len, cs);
    case M_COC: return read_coc(p, m, len, cs);
    case M_QCD: cs->has_qcd = 1; return read_sqcd(p, m, len, &cs->qcd);
    case M_QCC: return read_qcc(p, m, len, cs);
    case M_RGN: return unsupported(p, "region of interest (RGN)");
    case M_POC: return unsupported(p, "a progression order change (POC)");
    case M_PPM: return unsupported(p, "packed packet headers (PPM)");
    case M_PPT: return unsupported(p, "packed packet headers (PPT)");
    case M_CAP: return read_cap(p, m, len);
    case M_CPF: return PCWT_OK; /* the profile (Part 15 A.3): nothing to decode by */
    case M_SIZ: return corrupt(p, "a second SIZ marker");
    default:
        if (marker >= 0xFF70 && marker <= 0xFF7F)
            return unsupported(p, "Part 2 marker segments");
        return PCWT_OK; /* TLM, PLM, PLT, CRG, COM and markers of no consequence: skipped */
    }
}

/* The coding of every component after the precedence of T.800 A.6: tile COC, tile COD, main
 * COC, main COD (and the same for QCC/QCD). */
static pcwt_status resolve(parser *p)
{
    pcwt_j2k_header *h = p->h;
    for (uint32_t c = 0; c < h->components; c++) {
        const pcwt_j2k_comp *cod = p->tile.has_coc[c] ? &p->tile.coc[c]
                                   : p->tile.has_cod ? &p->tile.cod
                                   : p->main.has_coc[c] ? &p->main.coc[c]
                                                       : &p->main.cod;
        const pcwt_j2k_comp *qcd = p->tile.has_qcc[c] ? &p->tile.qcc[c]
                                   : p->tile.has_qcd ? &p->tile.qcd
                                   : p->main.has_qcc[c] ? &p->main.qcc[c]
                                                       : &p->main.qcd;
        pcwt_j2k_comp *o = &h->comp[c];
        *o = *cod;
        o->guard = qcd->guard;
        o->nexp = qcd->nexp;
        memcpy(o->expn, qcd->expn, sizeof o->expn);
        if ((o->style & PCWT_J2K_STYLE_HT) && h->layers > 1)
            return unsupported(p, "HTJ2K code-blocks in more than one quality layer");
        if (o->nexp < 3 * o->levels + 1)
            return corrupt(p, "QCD/QCC gives fewer exponents than there are sub-bands");
        for (uint32_t b = 0; b < 3 * o->levels + 1; b++)
            if (o->guard + o->expn[b] < 1)
                return corrupt(p, "a sub-band without magnitude bit-planes");
    }
    if (h->components < 3)
        h->rct = 0; /* as OpenJPEG: an MCT flag without three components is ignored */
    return PCWT_OK;
}

/* Reads markers from *pos until SOT (main header) or SOD (tile-part header, stop_at = M_SOD);
 * *pos is left on that marker. */
static pcwt_status read_segments(parser *p, size_t *pos, uint32_t stop_at, int main)
{
    for (;;) {
        if (p->end - *pos < 2) {
            pcwt_set_error(p->err, p->es, "JPEG 2000: %s header truncated",
                           main ? "main" : "tile-part");
            return PCWT_ERR_TRUNCATED;
        }
        const uint32_t marker = get16(p->s + *pos);
        if (marker == stop_at)
            return PCWT_OK;
        if ((marker >> 8) != 0xFF || marker < 0xFF30)
            return corrupt(p, main ? "no marker where the main header continues"
                                   : "no marker where the tile-part header continues");
        if (marker == M_SOD || marker == M_SOT || marker == M_EOC)
            return corrupt(p, "marker out of place in a header");
        if (p->end - *pos < 4) {
            pcwt_set_error(p->err, p->es, "JPEG 2000: marker segment truncated");
            return PCWT_ERR_TRUNCATED;
        }
        const size_t len = get16(p->s + *pos + 2);
        if (len < 2)
            return corrupt(p, "marker segment length below 2");
        if (len > p->end - *pos - 2) {
            pcwt_set_error(p->err, p->es, "JPEG 2000: marker segment %04X truncated", marker);
            return PCWT_ERR_TRUNCATED;
        }
        const pcwt_status st = read_marker(p, marker, p->s + *pos + 4, len - 2, main);
        if (st != PCWT_OK)
            return st;
        *pos += 2 + len;
    }
}

static pcwt_status read_main(parser *p, const uint8_t *src, size_t size, size_t *pos)
{
    pcwt_j2k_header *h = p->h;
    memset(h, 0, sizeof *h);
    p->s = src;
    p->end = size;
    size_t start = 0;
    if (size >= 12 && memcmp(src, jp2_signature, 12) == 0) {
        size_t end;
        const pcwt_status st = find_jp2c(src, size, &start, &end, p->err, p->es);
        if (st != PCWT_OK)
            return st;
        p->end = end;
    }
    if (p->end - start < 4 || get16(src + start) != M_SOC || get16(src + start + 2) != M_SIZ) {
        pcwt_set_error(p->err, p->es, "not a JPEG 2000 codestream (no SOC and SIZ markers)");
        return PCWT_ERR_BAD_MAGIC;
    }
    h->start = start;
    if (p->end - start < 6 || (size_t)get16(src + start + 4) + 4 > p->end - start) {
        pcwt_set_error(p->err, p->es, "JPEG 2000: SIZ marker truncated");
        return PCWT_ERR_TRUNCATED;
    }
    const size_t lsiz = get16(src + start + 4);
    if (lsiz < 2)
        return corrupt(p, "SIZ marker too short");
    pcwt_status st = read_siz(p, src + start + 6, lsiz - 2);
    if (st != PCWT_OK)
        return st;
    *pos = start + 4 + lsiz;
    st = read_segments(p, pos, M_SOT, 1);
    if (st != PCWT_OK)
        return st;
    if (!p->main.has_cod || !p->main.has_qcd)
        return corrupt(p, "main header without COD or QCD");
    h->main_length = *pos - start;
    return resolve(p);
}

pcwt_status pcwt_j2k_read_main(const uint8_t *src, size_t size, pcwt_j2k_header *h, char *err,
                               size_t err_size)
{
    parser p;
    parser_init(&p, h, err, err_size);
    size_t pos;
    return read_main(&p, src, size, &pos);
}

pcwt_status pcwt_j2k_read_codestream(const uint8_t *src, size_t size, pcwt_j2k_header *h,
                                     char *err, size_t err_size)
{
    parser p;
    parser_init(&p, h, err, err_size);
    size_t pos;
    pcwt_status st = read_main(&p, src, size, &pos);
    if (st != PCWT_OK)
        return st;
    /* tile-parts until EOC or the end of the data */
    while (p.end - pos >= 2 && get16(src + pos) == M_SOT) {
        if (p.end - pos < 12) {
            pcwt_set_error(err, err_size, "JPEG 2000: SOT marker truncated");
            return PCWT_ERR_TRUNCATED;
        }
        const uint8_t *m = src + pos + 2;
        if (get16(m) != 10)
            return corrupt(&p, "SOT marker length is not 10");
        const uint32_t isot = get16(m + 2), tpsot = m[8];
        size_t psot = get32(m + 4);
        if (isot != 0)
            return corrupt(&p, "SOT names a tile that does not exist");
        if (tpsot != h->part_count)
            return corrupt(&p, "tile-parts out of order");
        if (h->part_count == PCWT_J2K_MAX_PARTS)
            return corrupt(&p, "more than 255 tile-parts");
        if (psot == 0) /* the last tile-part runs to EOC */
            psot = p.end - pos - ((p.end - pos >= 14 && get16(src + p.end - 2) == M_EOC) ? 2 : 0);
        if (psot < 14)
            return corrupt(&p, "SOT: tile-part length too short");
        if (psot > p.end - pos) {
            pcwt_set_error(err, err_size, "JPEG 2000: tile-part %u truncated (%zu of %zu bytes)",
                           tpsot, p.end - pos, psot);
            return PCWT_ERR_TRUNCATED;
        }
        const size_t part_end = pos + psot;
        size_t at = pos + 12;
        const parser saved = p;
        p.end = part_end;
        st = read_segments(&p, &at, M_SOD, 0);
        p.end = saved.end;
        if (st != PCWT_OK)
            return st;
        h->parts[h->part_count].offset = at + 2;
        h->parts[h->part_count].length = part_end - at - 2;
        h->part_count++;
        pos = part_end;
    }
    if (h->part_count == 0) {
        pcwt_set_error(err, err_size, "JPEG 2000: codestream without tile-parts");
        return PCWT_ERR_TRUNCATED;
    }
    if (p.end - pos >= 2 && get16(src + pos) == M_EOC)
        pos += 2;
    h->end = pos;
    return resolve(&p);
}
