/* j2k_tier2.c - JPEG 2000 packets (T.800 Annex B) into a batch. A frame is laid out first
 * (precincts, their code-blocks and tag trees, from the header and bounded by the tile's bytes:
 * every packet takes at least one), then every packet is read in the progression order, and the
 * code-block contributions it carries are gathered, segment by segment, into the batch's data.
 * The packet header reading follows OpenJPEG's (bit stuffing, alignment, segment limits of the
 * BYPASS and TERMALL styles), so that both decode the same code-blocks. */
#include "j2k_idwt.h"
#include "j2k_tier2.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#define TAG_INIT 999 /* OpenJPEG's initial tag tree value */
#define MAX_CBLK_PASSES 164

typedef struct cb_state {
    uint32_t passes;
    uint16_t numsegs;
    uint8_t seg_passes; /* passes in the last segment */
    uint8_t seg_max;    /* the most passes that segment may hold */
    uint8_t lblock;
    uint8_t included;
    uint8_t zero_msbs;
    uint8_t mb;
} cb_state;

typedef struct tag_node {
    uint32_t parent; /* UINT32_MAX at the root */
    int32_t value, low;
} tag_node;

typedef struct band_prec {
    uint32_t cblk_first; /* the frame's code-blocks */
    uint32_t ncx, ncy;
    uint32_t incl, imsb; /* first leaf of each tag tree in the node pool */
} band_prec;

typedef struct precinct {
    uint32_t bp_first;
    uint32_t nbp;
    uint32_t comp, res;
    uint64_t key_x, key_y; /* the precinct's position on the image grid */
} precinct;

typedef struct chunk {
    uint64_t offset; /* in the tile's bytes */
    uint32_t cblk;
    uint16_t segno;
    uint16_t passes;
    uint32_t length;
} chunk;

typedef struct t2 {
    const pcwt_j2k_header *h;
    const uint8_t *data; /* the tile's packet bytes */
    size_t size, pos;
    cb_state *cb;
    tag_node *nodes;
    band_prec *bp;
    precinct *prec;
    uint32_t prec_base[3][PCWT_J2K_MAX_LEVELS + 1], prec_n[3][PCWT_J2K_MAX_LEVELS + 1];
    chunk *chunks;
    size_t nchunks, chunk_cap;
    int joined; /* data is a copy of several tile-parts, freed with the frame */
    char *err;
    size_t es;
} t2;

typedef struct bits {
    const uint8_t *p, *end;
    uint32_t buf, ct;
    int over;
} bits;

static void bytein(bits *b)
{
    b->buf = (b->buf << 8) & 0xFFFF;
    b->ct = b->buf == 0xFF00 ? 7 : 8;
    if (b->p < b->end)
        b->buf |= *b->p++;
    else
        b->over = 1;
}

static uint32_t bit(bits *b)
{
    if (b->ct == 0)
        bytein(b);
    b->ct--;
    return (b->buf >> b->ct) & 1;
}

static uint32_t getbits(bits *b, uint32_t n)
{
    uint32_t v = 0;
    for (uint32_t i = 0; i < n; i++)
        v = v << 1 | bit(b);
    return v;
}

static int tag_decode(bits *b, tag_node *nodes, uint32_t leaf, int32_t threshold)
{
    uint32_t stack[32];
    uint32_t depth = 0, n = leaf;
    while (nodes[n].parent != UINT32_MAX && depth < 32) {
        stack[depth++] = n;
        n = nodes[n].parent;
    }
    int32_t low = 0;
    for (;;) {
        tag_node *t = &nodes[n];
        if (low > t->low)
            t->low = low;
        else
            low = t->low;
        while (low < threshold && low < t->value && !b->over) {
            if (bit(b))
                t->value = low;
            else
                low++;
        }
        t->low = low;
        if (depth == 0)
            break;
        n = stack[--depth];
    }
    return nodes[n].value < threshold;
}

/* Lays a tag tree of w x h leaves out at nodes[*at...]; returns its first leaf. */
static uint32_t tag_build(tag_node *nodes, uint32_t *at, uint32_t w, uint32_t h)
{
    const uint32_t first = *at;
    uint32_t base = first;
    for (;;) {
        const uint32_t pw = (w + 1) / 2, ph = (h + 1) / 2, up = base + w * h;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                tag_node *t = &nodes[base + y * w + x];
                t->value = TAG_INIT;
                t->low = 0;
                t->parent = (w * h == 1) ? UINT32_MAX : up + (y / 2) * pw + x / 2;
            }
        base = up;
        if (w * h == 1)
            break;
        w = pw;
        h = ph;
    }
    *at = base;
    return first;
}

static uint64_t tag_size(uint32_t w, uint32_t h)
{
    uint64_t n = 0;
    for (;;) {
        n += (uint64_t)w * h;
        if ((uint64_t)w * h <= 1)
            return n;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
}

/* The precinct grid of component c, resolution r: precinct size exponents (in the resolution),
 * count across and down; and of a band of it, the code-block size exponents. */
static void prec_grid(const pcwt_j2k_header *h, uint32_t c, uint32_t r, uint32_t *npx, uint32_t *npy)
{
    const pcwt_j2k_comp *k = &h->comp[c];
    const uint32_t rw = pcwt_j2k_res_size(h->width, k->levels - r);
    const uint32_t rh = pcwt_j2k_res_size(h->height, k->levels - r);
    *npx = pcwt_j2k_res_size(rw, k->ppx[r]);
    *npy = pcwt_j2k_res_size(rh, k->ppy[r]);
}

/* The code-blocks (x range gx0..gx1) of precinct index p along one axis of a band of size n:
 * precinct exponent pe in band coordinates, code-block exponent ce. */
static void cb_range(uint32_t p, uint32_t pe, uint32_t ce, uint32_t n, uint32_t *g0, uint32_t *g1)
{
    const uint64_t a = (uint64_t)p << pe, b = ((uint64_t)p + 1) << pe;
    if (a >= n) {
        *g0 = *g1 = 0;
        return;
    }
    const uint64_t e = b < n ? b : n;
    *g0 = (uint32_t)(a >> ce);
    *g1 = (uint32_t)((e + ((uint64_t)1 << ce) - 1) >> ce);
}

typedef struct band_geom {
    uint32_t x0, y0, bw, bh; /* in the Mallat layout */
    uint32_t pex, pey;       /* precinct exponents in band coordinates */
    uint32_t cex, cey;       /* code-block exponents */
    uint32_t band, index;    /* orientation, exponent index (QCD order) */
} band_geom;

static uint32_t bands_of(const pcwt_j2k_header *h, uint32_t c, uint32_t r, band_geom g[3])
{
    const pcwt_j2k_comp *k = &h->comp[c];
    const uint32_t nb = r == 0 ? 1 : 3;
    for (uint32_t i = 0; i < nb; i++) {
        band_geom *x = &g[i];
        x->band = r == 0 ? PCWT_J2K_LL : i + 1;
        x->index = r == 0 ? 0 : 3 * (r - 1) + i + 1;
        pcwt_j2k_band_rect(h->width, h->height, k->levels, r, x->band, &x->x0, &x->y0, &x->bw, &x->bh);
        x->pex = r == 0 ? k->ppx[r] : k->ppx[r] - 1u;
        x->pey = r == 0 ? k->ppy[r] : k->ppy[r] - 1u;
        x->cex = k->xcb < x->pex ? k->xcb : x->pex;
        x->cey = k->ycb < x->pey ? k->ycb : x->pey;
    }
    return nb;
}

uint64_t pcwt_j2k_cblk_count(const pcwt_j2k_header *h)
{
    uint64_t n = 0;
    for (uint32_t c = 0; c < h->components; c++)
        for (uint32_t r = 0; r <= h->comp[c].levels; r++) {
            band_geom g[3];
            const uint32_t nb = bands_of(h, c, r, g);
            for (uint32_t i = 0; i < nb; i++)
                n += (uint64_t)pcwt_j2k_res_size(g[i].bw, g[i].cex) * pcwt_j2k_res_size(g[i].bh, g[i].cey);
        }
    return n;
}

uint64_t pcwt_j2k_working_bytes(const pcwt_j2k_header *h, size_t src_size)
{
    const uint64_t samples = (uint64_t)h->width * h->height * h->components;
    const uint64_t plane = (uint64_t)h->width * h->height;
    /* coefficients, the inverse DWT's line or plane of scratch, code-block states and entries,
     * tag trees, and per input byte the gathered data and its chunks and precincts */
    return samples * 4 + plane * 4 + pcwt_j2k_cblk_count(h) * (sizeof(cb_state) + sizeof(pcwt_j2k_cblk) + 64) +
           (uint64_t)src_size * (2 + sizeof(chunk) / 2 + sizeof(precinct) + sizeof(band_prec)) + (1u << 20);
}

static pcwt_status fail(t2 *t, pcwt_status st, const char *what)
{
    pcwt_set_error(t->err, t->es, "JPEG 2000: %s", what);
    return st;
}

/* Counts precincts and code-blocks, refuses more packets than bytes, allocates and lays out. */
static pcwt_status layout(t2 *t, uint64_t *nprec_out, uint64_t *ncblk_out)
{
    const pcwt_j2k_header *h = t->h;
    uint64_t nprec = 0, nbp = 0, ncblk = 0, nnodes = 0;
    for (uint32_t c = 0; c < h->components; c++)
        for (uint32_t r = 0; r <= h->comp[c].levels; r++) {
            uint32_t npx, npy;
            prec_grid(h, c, r, &npx, &npy);
            nprec += (uint64_t)npx * npy;
            if (nprec > t->size / h->layers)
                return fail(t, PCWT_ERR_TRUNCATED, "more packets than the tile has bytes");
        }
    t->prec = calloc(nprec ? nprec : 1, sizeof *t->prec);
    t->bp = calloc(nprec * 3 + 1, sizeof *t->bp);
    if (!t->prec || !t->bp)
        return fail(t, PCWT_ERR_OUT_OF_MEMORY, "out of memory for the precincts");
    /* first pass: the precincts and their band rectangles */
    uint64_t pi = 0;
    for (uint32_t c = 0; c < h->components; c++) {
        const pcwt_j2k_comp *k = &h->comp[c];
        for (uint32_t r = 0; r <= k->levels; r++) {
            uint32_t npx, npy;
            prec_grid(h, c, r, &npx, &npy);
            band_geom g[3];
            const uint32_t nb = bands_of(h, c, r, g);
            t->prec_base[c][r] = (uint32_t)pi;
            t->prec_n[c][r] = npx * npy;
            for (uint32_t py = 0; py < npy; py++)
                for (uint32_t px = 0; px < npx; px++, pi++) {
                    precinct *p = &t->prec[pi];
                    p->comp = c;
                    p->res = r;
                    p->key_x = (uint64_t)px << (k->ppx[r] + k->levels - r);
                    p->key_y = (uint64_t)py << (k->ppy[r] + k->levels - r);
                    p->bp_first = (uint32_t)nbp;
                    p->nbp = nb;
                    for (uint32_t i = 0; i < nb; i++, nbp++) {
                        uint32_t gx0, gx1, gy0, gy1;
                        cb_range(px, g[i].pex, g[i].cex, g[i].bw, &gx0, &gx1);
                        cb_range(py, g[i].pey, g[i].cey, g[i].bh, &gy0, &gy1);
                        band_prec *b = &t->bp[nbp];
                        b->cblk_first = (uint32_t)ncblk;
                        b->ncx = gx1 - gx0;
                        b->ncy = gy1 - gy0;
                        if (b->ncx && b->ncy) {
                            ncblk += (uint64_t)b->ncx * b->ncy;
                            nnodes += 2 * tag_size(b->ncx, b->ncy);
                        } else {
                            b->ncx = b->ncy = 0;
                        }
                    }
                }
        }
    }
    if (ncblk > UINT32_MAX / 2 || nnodes > UINT32_MAX / 2)
        return fail(t, PCWT_ERR_LIMIT_EXCEEDED, "too many code-blocks");
    t->cb = calloc(ncblk ? ncblk : 1, sizeof *t->cb);
    t->nodes = malloc((nnodes ? nnodes : 1) * sizeof *t->nodes);
    if (!t->cb || !t->nodes)
        return fail(t, PCWT_ERR_OUT_OF_MEMORY, "out of memory for the code-blocks");
    uint32_t at = 0;
    for (uint64_t i = 0; i < nbp; i++) {
        band_prec *b = &t->bp[i];
        if (!b->ncx)
            continue;
        b->incl = tag_build(t->nodes, &at, b->ncx, b->ncy);
        b->imsb = tag_build(t->nodes, &at, b->ncx, b->ncy);
        for (uint32_t k = 0; k < b->ncx * b->ncy; k++)
            t->cb[b->cblk_first + k].lblock = 3;
    }
    *nprec_out = nprec;
    *ncblk_out = ncblk;
    return PCWT_OK;
}

static uint32_t floorlog2(uint32_t v) { return v ? (uint32_t)PCWT_LOG2(v) : 0; }

static uint32_t num_passes(bits *b)
{
    if (!bit(b))
        return 1;
    if (!bit(b))
        return 2;
    uint32_t n = getbits(b, 2);
    if (n != 3)
        return 3 + n;
    n = getbits(b, 5);
    if (n != 31)
        return 6 + n;
    return 37 + getbits(b, 7);
}

static uint8_t seg_max(uint32_t style, uint32_t first, uint8_t prev)
{
    if (style & PCWT_J2K_STYLE_TERMALL)
        return 1;
    if (style & PCWT_J2K_STYLE_BYPASS)
        return first ? 10 : (prev == 1 || prev == 10) ? 2 : 1;
    return 109;
}

static pcwt_status add_chunk(t2 *t, uint32_t cblk, uint32_t segno, uint32_t passes, uint32_t length)
{
    if (t->nchunks == t->chunk_cap) {
        const size_t cap = t->chunk_cap ? 2 * t->chunk_cap : 1024;
        chunk *c = realloc(t->chunks, cap * sizeof *c);
        if (!c)
            return fail(t, PCWT_ERR_OUT_OF_MEMORY, "out of memory for the packets");
        t->chunks = c;
        t->chunk_cap = cap;
    }
    t->chunks[t->nchunks++] = (chunk){0, cblk, (uint16_t)segno, (uint16_t)passes, length};
    return PCWT_OK;
}

/* The new passes of an HT code-block (T.814 B.3, as OpenJPEG reads one layer): the cleanup
 * pass alone in the first segment, the refinement passes after it in the second. */
static pcwt_status ht_passes(t2 *t, bits *b, uint32_t ci, uint32_t n)
{
    cb_state *cb = &t->cb[ci];
    if (cb->numsegs > 1 || (cb->numsegs == 1 && n > 2))
        return fail(t, PCWT_ERR_UNSUPPORTED, "an HTJ2K code-block with more than one HT set");
    while (n) {
        const uint32_t take = cb->numsegs == 0 ? 1 : n;
        const uint32_t nbits = cb->lblock + floorlog2(take);
        if (nbits > 32)
            return fail(t, PCWT_ERR_CORRUPT, "code-block length of more than 32 bits");
        const pcwt_status st = add_chunk(t, ci, cb->numsegs, take, getbits(b, nbits));
        if (st != PCWT_OK)
            return st;
        cb->numsegs++;
        n -= take;
    }
    return PCWT_OK;
}

/* The new passes of a code-block in this packet, split into segments (OpenJPEG's
 * opj_t2_read_packet_header), their lengths read and recorded as chunks. */
static pcwt_status cblk_passes(t2 *t, bits *b, uint32_t ci, uint32_t style)
{
    cb_state *cb = &t->cb[ci];
    uint32_t n = num_passes(b);
    uint32_t inc = 0;
    while (bit(b) && !b->over)
        inc++;
    if (cb->lblock + inc > 64)
        return fail(t, PCWT_ERR_CORRUPT, "code-block length indicator out of range");
    cb->lblock = (uint8_t)(cb->lblock + inc);
    if (cb->passes + n > MAX_CBLK_PASSES)
        return fail(t, PCWT_ERR_CORRUPT, "more coding passes than bit-planes");
    cb->passes += n;
    if (style & PCWT_J2K_STYLE_HT)
        return ht_passes(t, b, ci, n);
    if (cb->numsegs == 0 || cb->seg_passes == cb->seg_max) {
        cb->seg_max = seg_max(style, cb->numsegs == 0, cb->seg_max);
        cb->seg_passes = 0;
        cb->numsegs++;
    }
    for (;;) {
        const uint32_t room = (uint32_t)cb->seg_max - cb->seg_passes;
        const uint32_t take = n < room ? n : room;
        const uint32_t nbits = cb->lblock + floorlog2(take);
        if (nbits > 32)
            return fail(t, PCWT_ERR_CORRUPT, "code-block length of more than 32 bits");
        const uint32_t len = getbits(b, nbits);
        cb->seg_passes = (uint8_t)(cb->seg_passes + take);
        const pcwt_status st = add_chunk(t, ci, cb->numsegs - 1u, take, len);
        if (st != PCWT_OK)
            return st;
        n -= take;
        if (n == 0)
            return PCWT_OK;
        cb->seg_max = seg_max(style, 0, cb->seg_max);
        cb->seg_passes = 0;
        cb->numsegs++;
    }
}

static pcwt_status packet(t2 *t, const precinct *p, uint32_t layer)
{
    const pcwt_j2k_header *h = t->h;
    const pcwt_j2k_comp *k = &h->comp[p->comp];
    if (h->sop && t->size - t->pos >= 6 && t->data[t->pos] == 0xFF && t->data[t->pos + 1] == 0x91)
        t->pos += 6;
    bits b = {t->data + t->pos, t->data + t->size, 0, 0, 0};
    const size_t first_chunk = t->nchunks;
    if (t->pos >= t->size)
        return fail(t, PCWT_ERR_TRUNCATED, "tile data ends before its last packet");
    if (bit(&b)) {
        for (uint32_t i = 0; i < p->nbp; i++) {
            const band_prec *bp = &t->bp[p->bp_first + i];
            const uint32_t n = bp->ncx * bp->ncy;
            for (uint32_t j = 0; j < n && !b.over; j++) {
                const uint32_t ci = bp->cblk_first + j;
                cb_state *cb = &t->cb[ci];
                const int inc = cb->included ? (int)bit(&b)
                                             : tag_decode(&b, t->nodes, bp->incl + j, (int32_t)layer + 1);
                if (!inc)
                    continue;
                if (!cb->included) {
                    const uint32_t mb = k->guard + k->expn[p->res == 0 ? 0 : 3 * (p->res - 1) + i + 1] - 1u;
                    /* one walk up to mb + 1 reads the bits OpenJPEG's calls at thresholds 1, 2, ...
                     * read (a node reads none before its parent's value is known) */
                    if (!tag_decode(&b, t->nodes, bp->imsb + j, (int32_t)mb + 1))
                        return fail(t, PCWT_ERR_CORRUPT, "more missing bit-planes than the band has");
                    cb->zero_msbs = (uint8_t)t->nodes[bp->imsb + j].value;
                    cb->mb = (uint8_t)mb;
                    cb->included = 1;
                }
                const pcwt_status st = cblk_passes(t, &b, ci, k->style);
                if (st != PCWT_OK)
                    return st;
            }
        }
    }
    if ((b.buf & 0xFF) == 0xFF)
        bytein(&b);
    if (b.over)
        return fail(t, PCWT_ERR_TRUNCATED, "packet header runs past the tile data");
    t->pos = (size_t)(b.p - t->data);
    if (h->eph && t->size - t->pos >= 2 && t->data[t->pos] == 0xFF && t->data[t->pos + 1] == 0x92)
        t->pos += 2;
    for (size_t i = first_chunk; i < t->nchunks; i++) {
        chunk *c = &t->chunks[i];
        if (c->length > t->size - t->pos)
            return fail(t, PCWT_ERR_TRUNCATED, "code-block data runs past the tile data");
        c->offset = t->pos;
        t->pos += c->length;
    }
    return PCWT_OK;
}

static int key_cmp(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The sort key of a precinct in a position order: RPCL (r, y, x, c), PCRL (y, x, c, r),
 * CPRL (c, y, x, r). */
static void prec_key(uint32_t order, const precinct *p, uint64_t key[4])
{
    if (order == PCWT_J2K_RPCL) {
        key[0] = p->res; key[1] = p->key_y; key[2] = p->key_x; key[3] = p->comp;
    } else if (order == PCWT_J2K_PCRL) {
        key[0] = p->key_y; key[1] = p->key_x; key[2] = p->comp; key[3] = p->res;
    } else {
        key[0] = p->comp; key[1] = p->key_y; key[2] = p->key_x; key[3] = p->res;
    }
}

typedef struct keyed {
    uint64_t key[4];
    uint32_t index;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    return key_cmp(((const keyed *)a)->key, ((const keyed *)b)->key);
}

static pcwt_status packets(t2 *t, uint64_t nprec)
{
    const pcwt_j2k_header *h = t->h;
    uint32_t maxres = 0;
    for (uint32_t c = 0; c < h->components; c++)
        maxres = h->comp[c].levels > maxres ? h->comp[c].levels : maxres;
    pcwt_status st = PCWT_OK;
    if (h->order == PCWT_J2K_LRCP || h->order == PCWT_J2K_RLCP) {
        const int lrcp = h->order == PCWT_J2K_LRCP;
        const uint32_t n0 = lrcp ? h->layers : maxres + 1, n1 = lrcp ? maxres + 1 : h->layers;
        for (uint32_t a = 0; a < n0; a++)
            for (uint32_t b = 0; b < n1; b++) {
                const uint32_t l = lrcp ? a : b, r = lrcp ? b : a;
                for (uint32_t c = 0; c < h->components; c++) {
                    if (r > h->comp[c].levels)
                        continue;
                    for (uint32_t p = 0; p < t->prec_n[c][r]; p++)
                        if ((st = packet(t, &t->prec[t->prec_base[c][r] + p], l)) != PCWT_OK)
                            return st;
                }
            }
        return PCWT_OK;
    }
    keyed *ks = malloc((nprec ? nprec : 1) * sizeof *ks);
    if (!ks)
        return fail(t, PCWT_ERR_OUT_OF_MEMORY, "out of memory for the progression");
    for (uint64_t i = 0; i < nprec; i++) {
        prec_key(h->order, &t->prec[i], ks[i].key);
        ks[i].index = (uint32_t)i;
    }
    qsort(ks, nprec, sizeof *ks, keyed_cmp);
    for (uint64_t i = 0; i < nprec && st == PCWT_OK; i++)
        for (uint32_t l = 0; l < h->layers && st == PCWT_OK; l++)
            st = packet(t, &t->prec[ks[i].index], l);
    free(ks);
    return st;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

void pcwt_j2k_builder_reset(pcwt_j2k_builder *bld)
{
    bld->b.data_size = bld->b.seg_count = bld->b.cblk_count = bld->b.tc_count = bld->b.frame_count = 0;
    bld->b.coef_count = 0;
    bld->copy_count = 0;
}

void pcwt_j2k_builder_free(pcwt_j2k_builder *bld)
{
    free(bld->data);
    free(bld->copies);
    free(bld->b.segs);
    free(bld->b.cblks);
    free(bld->b.tcs);
    free(bld->b.frames);
    pcwt_j2k_pinned *pinned = bld->pinned;
    memset(bld, 0, sizeof *bld);
    bld->pinned = pinned;
}

/* The code-blocks' places and sizes, their segments and bytes, appended to the batch. */
static pcwt_status emit(t2 *t, pcwt_j2k_builder *bld, uint64_t ncblk, const pcwt_image_desc *desc,
                        void *dst)
{
    const pcwt_j2k_header *h = t->h;
    pcwt_j2k_batch *B = &bld->b;
    uint64_t nseg = 0, bytes = 0;
    for (uint64_t i = 0; i < ncblk; i++)
        nseg += t->cb[i].numsegs;
    for (size_t i = 0; i < t->nchunks; i++)
        bytes += t->chunks[i].length;
    /* deferred bytes are listed, not copied: those of a joined frame's copy, freed with it, are */
    const int listed = bld->defer && !t->joined;
    if ((bld->defer && !grow((void **)&bld->copies, &bld->copy_cap, bld->copy_count + t->nchunks + 1,
                             sizeof *bld->copies)) ||
        (!listed && !grow((void **)&bld->data, &bld->data_cap, B->data_size + bytes + 1, 1)) ||
        !grow((void **)&B->segs, &bld->seg_cap, B->seg_count + nseg + 1, sizeof *B->segs) ||
        !grow((void **)&B->cblks, &bld->cblk_cap, B->cblk_count + ncblk + 1, sizeof *B->cblks) ||
        !grow((void **)&B->tcs, &bld->tc_cap, B->tc_count + h->components, sizeof *B->tcs) ||
        !grow((void **)&B->frames, &bld->frame_cap, B->frame_count + 1, sizeof *B->frames))
        return fail(t, PCWT_ERR_OUT_OF_MEMORY, "out of memory for the batch");
    B->data = bld->data;
    const uint64_t plane = (uint64_t)h->width * h->height;
    pcwt_j2k_frame *f = &B->frames[B->frame_count];
    memset(f, 0, sizeof *f);
    f->tc_first = (uint32_t)B->tc_count;
    f->components = h->components;
    f->rct = h->rct;
    f->precision = h->precision;
    f->is_signed = h->is_signed;
    f->desc = *desc;
    f->dst = dst;
    f->cblk_first = (uint32_t)B->cblk_count;
    f->cblk_count = (uint32_t)ncblk;
    for (uint32_t c = 0; c < h->components; c++) {
        pcwt_j2k_tilecomp *tc = &B->tcs[B->tc_count + c];
        tc->coef_offset = B->coef_count + c * plane;
        tc->width = h->width;
        tc->height = h->height;
        tc->levels = h->comp[c].levels;
    }
    /* code-blocks in the frame's order: component, resolution, precinct, band, raster */
    uint64_t seg_at = B->seg_count;
    for (uint32_t c = 0; c < h->components; c++) {
        const pcwt_j2k_comp *k = &h->comp[c];
        const uint64_t base = B->coef_count + c * plane;
        for (uint32_t r = 0; r <= k->levels; r++) {
            uint32_t npx, npy;
            prec_grid(h, c, r, &npx, &npy);
            band_geom g[3];
            bands_of(h, c, r, g);
            for (uint32_t p = 0; p < t->prec_n[c][r]; p++) {
                const precinct *pr = &t->prec[t->prec_base[c][r] + p];
                const uint32_t px = p % npx, py = p / npx;
                for (uint32_t i = 0; i < pr->nbp; i++) {
                    const band_prec *bp = &t->bp[pr->bp_first + i];
                    uint32_t gx0, gx1, gy0, gy1;
                    cb_range(px, g[i].pex, g[i].cex, g[i].bw, &gx0, &gx1);
                    cb_range(py, g[i].pey, g[i].cey, g[i].bh, &gy0, &gy1);
                    for (uint32_t j = 0; j < bp->ncx * bp->ncy; j++) {
                        const uint32_t ci = bp->cblk_first + j;
                        const cb_state *s = &t->cb[ci];
                        const uint32_t x0 = (gx0 + j % bp->ncx) << g[i].cex, y0 = (gy0 + j / bp->ncx) << g[i].cey;
                        const uint32_t x1 = x0 + (1u << g[i].cex), y1 = y0 + (1u << g[i].cey);
                        pcwt_j2k_cblk *o = &B->cblks[B->cblk_count + ci];
                        o->out_offset = base + (uint64_t)(g[i].y0 + y0) * h->width + g[i].x0 + x0;
                        o->out_stride = h->width;
                        o->seg_first = (uint32_t)seg_at;
                        o->seg_count = s->numsegs;
                        o->width = (uint16_t)((x1 < g[i].bw ? x1 : g[i].bw) - x0);
                        o->height = (uint16_t)((y1 < g[i].bh ? y1 : g[i].bh) - y0);
                        o->orientation = (uint8_t)g[i].band;
                        o->mb = (uint8_t)(k->guard + k->expn[g[i].index] - 1u);
                        o->zero_msbs = s->zero_msbs;
                        o->style = (uint8_t)k->style;
                        o->passes = s->passes;
                        for (uint32_t q = 0; q < s->numsegs; q++)
                            B->segs[seg_at + q] = (pcwt_j2k_seg){0, 0, 0};
                        seg_at += s->numsegs;
                    }
                }
            }
        }
    }
    /* segment lengths and passes, their places in the data, then the bytes */
    for (size_t i = 0; i < t->nchunks; i++) {
        const chunk *ch = &t->chunks[i];
        pcwt_j2k_seg *s = &B->segs[B->cblks[B->cblk_count + ch->cblk].seg_first + ch->segno];
        if (ch->length > UINT32_MAX - s->length)
            return fail(t, PCWT_ERR_LIMIT_EXCEEDED, "a code-block segment of 4 GiB or more");
        s->length += ch->length;
        s->passes += ch->passes;
    }
    uint64_t at = B->data_size;
    for (uint64_t i = B->seg_count; i < seg_at; i++) {
        B->segs[i].offset = at;
        at += B->segs[i].length;
        B->segs[i].length = 0;
    }
    for (size_t i = 0; i < t->nchunks; i++) {
        const chunk *ch = &t->chunks[i];
        pcwt_j2k_seg *s = &B->segs[B->cblks[B->cblk_count + ch->cblk].seg_first + ch->segno];
        const uint64_t to = s->offset + s->length;
        if (!listed)
            memcpy(bld->data + to, t->data + ch->offset, ch->length);
        if (bld->defer && ch->length) {
            /* one run for bytes that follow each other in both places (a packet's code-blocks) */
            const uint8_t *from = listed ? t->data + ch->offset : NULL;
            pcwt_j2k_copy *last = bld->copy_count ? &bld->copies[bld->copy_count - 1] : NULL;
            if (last && last->dst + last->len == to && (from ? last->src && last->src + last->len == from : !last->src))
                last->len += ch->length;
            else
                bld->copies[bld->copy_count++] = (pcwt_j2k_copy){from, to, ch->length};
        }
        s->length += ch->length;
    }
    B->data_size = (size_t)at;
    B->seg_count = (size_t)seg_at;
    B->cblk_count += (size_t)ncblk;
    B->tc_count += h->components;
    B->frame_count++;
    B->coef_count += plane * h->components;
    return PCWT_OK;
}

pcwt_status pcwt_j2k_tier2(pcwt_j2k_builder *bld, const pcwt_j2k_header *h, const uint8_t *src,
                           const pcwt_image_desc *desc, void *dst, char *err, size_t err_size)
{
    t2 t;
    memset(&t, 0, sizeof t);
    t.h = h;
    t.err = err;
    t.es = err_size;
    uint8_t *joined = NULL;
    if (h->part_count == 1) {
        t.data = src + h->parts[0].offset;
        t.size = h->parts[0].length;
    } else {
        for (uint32_t i = 0; i < h->part_count; i++)
            t.size += h->parts[i].length;
        joined = malloc(t.size ? t.size : 1);
        if (!joined)
            return fail(&t, PCWT_ERR_OUT_OF_MEMORY, "out of memory for the tile-parts");
        size_t at = 0;
        for (uint32_t i = 0; i < h->part_count; i++) {
            memcpy(joined + at, src + h->parts[i].offset, h->parts[i].length);
            at += h->parts[i].length;
        }
        t.data = joined;
        t.joined = 1;
    }
    uint64_t nprec = 0, ncblk = 0;
    pcwt_status st = layout(&t, &nprec, &ncblk);
    if (st == PCWT_OK)
        st = packets(&t, nprec);
    if (st == PCWT_OK)
        st = emit(&t, bld, ncblk, desc, dst);
    free(joined);
    free(t.cb);
    free(t.nodes);
    free(t.bp);
    free(t.prec);
    free(t.chunks);
    return st;
}
