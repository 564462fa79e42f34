/* j2k_decoder.c - the JPEG 2000 decoder's driver: the codestream's headers, the decoder's
 * limits (samples, memory) before anything is allocated, tier-2 into a batch, then on the CPU
 * tier-1 per code-block, the inverse DWT per tile-component and the output per frame; tier-2 of a
 * batch on a few threads; on the GPU backend the batch goes to j2k_decoder_gpu.c. */
#include "decode_limits.h"
#include "j2k_codestream.h"
#include "j2k_decoder.h"
#include "j2k_stages.h"
#include "j2k_t1.h"
#include "j2k_tier2.h"
#include "planes.h"
#include "status.h"
#include "verify.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PCWT_HAVE_CUDA
#include "gpu_backend.h"
#endif

int pcwt_j2k_is_codestream(const void *src, size_t size)
{
    return pcwt_j2k_detect((const uint8_t *)src, size);
}

static void desc_of(const pcwt_j2k_header *h, pcwt_image_desc *d)
{
    d->width = h->width;
    d->height = h->height;
    d->components = h->components;
    d->bits_allocated = h->precision <= 8 ? 8 : 16;
    d->bits_stored = h->precision;
    d->is_signed = h->is_signed;
    d->planar = 0;
}

/* Where the codestream ends, from the tile-parts' lengths (Psot) as far as src shows them, EOC
 * included when it is there: so that a reader holding only the start of a file knows what to
 * read. SIZE_MAX when that is unknown (a tile-part running to EOC, Psot 0, or tile-parts beyond
 * src that TNsot does not rule out). */
static size_t codestream_end(const uint8_t *src, size_t size, const pcwt_j2k_header *h)
{
    size_t pos = h->start + h->main_length;
    for (;;) {
        if (pos == size)
            return size; /* the data ends after a whole tile-part: no EOC */
        if (size - pos < 2)
            return SIZE_MAX;
        const uint32_t marker = (uint32_t)src[pos] << 8 | src[pos + 1];
        if (marker == 0xFFD9)
            return pos + 2;
        if (marker != 0xFF90 || size - pos < 12)
            return marker == 0xFF90 ? SIZE_MAX : pos;
        const uint32_t psot = (uint32_t)src[pos + 6] << 24 | (uint32_t)src[pos + 7] << 16 |
                              (uint32_t)src[pos + 8] << 8 | src[pos + 9];
        if (psot < 14)
            return psot == 0 ? SIZE_MAX : pos;
        if (psot > SIZE_MAX - pos)
            return SIZE_MAX;
        const uint32_t tpsot = src[pos + 10], tnsot = src[pos + 11];
        pos += psot;
        if (pos > size) /* beyond src: the end when TNsot says this is the last tile-part */
            return tnsot != 0 && tpsot + 1 == tnsot ? pos : SIZE_MAX;
    }
}

pcwt_status pcwt_j2k_read_header(const uint8_t *src, size_t size, pcwt_header_info *info, char *err,
                                 size_t err_size)
{
    pcwt_j2k_header h;
    const pcwt_status st = pcwt_j2k_read_main(src, size, &h, err, err_size);
    if (st != PCWT_OK)
        return st;
    pcwt_image_desc d;
    desc_of(&h, &d);
    if (pcwt_desc_check(&d, err, err_size) != PCWT_OK) /* beyond the library's images */
        return PCWT_ERR_UNSUPPORTED;
    memset(info, 0, sizeof *info);
    info->format_version = 0;
    info->desc = d;
    info->levels = h.comp[0].levels;
    info->group_rows = 1u << h.comp[0].ycb;
    info->group_cols = 1u << h.comp[0].xcb;
    info->colour_transform = h.rct;
    info->columns_first = 1;
    info->header_length = h.main_length;
    info->codestream_length = codestream_end(src, size, &h);
    return PCWT_OK;
}

pcwt_status pcwt_j2k_prepare(const pcwt_j2k_route *r, const void *src, size_t size, size_t dst_capacity,
                             pcwt_j2k_header *h, pcwt_image_desc *desc, uint64_t *need)
{
    if (!src) {
        pcwt_set_error(r->err, r->err_size, "NULL buffer");
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    pcwt_status st = pcwt_j2k_read_codestream((const uint8_t *)src, size, h, r->err, r->err_size);
    if (st != PCWT_OK)
        return st;
    desc_of(h, desc);
    if (pcwt_desc_check(desc, r->err, r->err_size) != PCWT_OK)
        return PCWT_ERR_UNSUPPORTED;
    const uint64_t samples = (uint64_t)h->width * h->height * h->components;
    if (samples > r->max_samples || samples > PCWT_MAX_SAMPLES) {
        pcwt_set_error(r->err, r->err_size, "JPEG 2000 image of %ux%ux%u samples exceeds the limit of %llu",
                       h->width, h->height, h->components, (unsigned long long)r->max_samples);
        return PCWT_ERR_LIMIT_EXCEEDED;
    }
    const size_t out = pcwt_image_size(desc);
    if (dst_capacity < out) {
        pcwt_set_error(r->err, r->err_size, "destination of %zu bytes, the image needs %zu", dst_capacity, out);
        return PCWT_ERR_BUFFER_TOO_SMALL;
    }
    *need = pcwt_j2k_working_bytes(h, size) + out;
    char what[64];
    snprintf(what, sizeof what, "decoding a %ux%u JPEG 2000 image", h->width, h->height);
    return pcwt_memory_check(*need, r->memory_limit, what, r->err, r->err_size);
}

/* Tier-1, the inverse DWT and the output of every frame of a batch, on the CPU. */
static pcwt_status decode_batch_cpu(const pcwt_j2k_route *r, const pcwt_j2k_batch *b)
{
    int32_t *coefs = calloc(b->coef_count ? b->coef_count : 1, sizeof *coefs);
    size_t tmp_n = 1;
    for (size_t i = 0; i < b->tc_count; i++)
        if ((size_t)b->tcs[i].width * b->tcs[i].height > tmp_n)
            tmp_n = (size_t)b->tcs[i].width * b->tcs[i].height;
    int32_t *tmp = malloc(tmp_n * sizeof *tmp);
    void *scratch = malloc(PCWT_J2K_T1_SCRATCH);
    pcwt_status st = PCWT_OK;
    if (!coefs || !tmp || !scratch) {
        pcwt_set_error(r->err, r->err_size, "out of memory for a JPEG 2000 image");
        st = PCWT_ERR_OUT_OF_MEMORY;
    }
    char why[160];
    for (size_t i = 0; st == PCWT_OK && i < b->cblk_count; i++) {
        st = pcwt_j2k_t1_decode(b, i, coefs, scratch, why, sizeof why);
        if (st != PCWT_OK)
            pcwt_set_error(r->err, r->err_size, "JPEG 2000 code-block %zu: %s", i, why);
    }
    for (size_t i = 0; st == PCWT_OK && i < b->tc_count; i++)
        pcwt_j2k_idwt(&b->tcs[i], coefs, tmp);
    for (size_t i = 0; st == PCWT_OK && i < b->frame_count; i++)
        pcwt_j2k_output(b, &b->frames[i], coefs);
    free(coefs);
    free(tmp);
    free(scratch);
    return st;
}

pcwt_status pcwt_j2k_decode_one(const pcwt_j2k_route *r, const void *src, size_t size, void *dst,
                                size_t dst_capacity)
{
    pcwt_j2k_header *h = malloc(sizeof *h);
    if (!h) {
        pcwt_set_error(r->err, r->err_size, "out of memory");
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    pcwt_image_desc desc;
    uint64_t need;
    pcwt_status st = pcwt_j2k_prepare(r, src, size, dst_capacity, h, &desc, &need);
    if (st == PCWT_OK && !dst) {
        pcwt_set_error(r->err, r->err_size, "NULL buffer");
        st = PCWT_ERR_INVALID_ARGUMENT;
    }
    pcwt_j2k_builder bld;
    memset(&bld, 0, sizeof bld);
    if (st == PCWT_OK)
        st = pcwt_j2k_tier2(&bld, h, (const uint8_t *)src, &desc, dst, r->err, r->err_size);
    if (st == PCWT_OK)
        st = decode_batch_cpu(r, &bld.b);
    pcwt_j2k_builder_free(&bld);
    free(h);
    return st;
}

/* Tier-2 of a batch on a few threads: each worker parses a run of consecutive jobs into its own
 * builder, which lists the code-block bytes instead of copying them (defer), then every worker
 * copies its builder into its place in the batch (the offsets and indices moved by the runs
 * before it) and its bytes from the codestreams straight there: one copy of the bytes, not two. */
typedef struct t2_worker {
    const pcwt_j2k_route *r;
    pcwt_decode_job *jobs;
    const size_t *idx;
    size_t first, count; /* its run: idx[first .. first + count) */
    size_t failed;       /* the last job of the run that failed, SIZE_MAX: none */
    pcwt_j2k_builder *own; /* its run's frames: the pool's, or this call's */
    pcwt_j2k_builder *out;
    uint8_t *data_out; /* where the batch's code-block bytes go */
    size_t data_at, seg_at, cblk_at, tc_at, frame_at;
    uint64_t coef_at;
    char err[256];
} t2_worker;

/* One job into bld: its codestream read again (the caller checked it with prepare) and parsed. */
static pcwt_status tier2_job(const pcwt_j2k_route *r, pcwt_decode_job *j, pcwt_j2k_header *h,
                             pcwt_j2k_builder *bld)
{
    pcwt_image_desc desc;
    uint64_t need;
    pcwt_status st = pcwt_j2k_prepare(r, j->src, j->src_size, j->dst_capacity, h, &desc, &need);
    if (st == PCWT_OK)
        st = pcwt_j2k_tier2(bld, h, (const uint8_t *)j->src, &desc, j->dst, r->err, r->err_size);
    return st;
}

static void *t2_parse(void *arg)
{
    t2_worker *w = arg;
    pcwt_j2k_route r = *w->r;
    r.err = w->err;
    r.err_size = sizeof w->err;
    pcwt_j2k_header *h = malloc(sizeof *h);
    for (size_t k = w->first; k < w->first + w->count; k++) {
        pcwt_decode_job *j = &w->jobs[w->idx[k]];
        if (!h)
            pcwt_set_error(r.err, r.err_size, "out of memory");
        j->status = h ? tier2_job(&r, j, h, w->own) : PCWT_ERR_OUT_OF_MEMORY;
        if (j->status != PCWT_OK)
            w->failed = k;
    }
    free(h);
    return NULL;
}

static void *t2_place(void *arg)
{
    t2_worker *w = arg;
    const pcwt_j2k_batch *s = &w->own->b;
    pcwt_j2k_batch *B = &w->out->b;
    /* the run's code-block bytes, copied once: from the codestreams to the batch */
    for (size_t i = 0; i < w->own->copy_count; i++) {
        const pcwt_j2k_copy *c = &w->own->copies[i];
        memcpy(w->data_out + w->data_at + c->dst, c->src ? c->src : s->data + c->dst, c->len);
    }
    for (size_t i = 0; i < s->seg_count; i++) {
        B->segs[w->seg_at + i] = s->segs[i];
        B->segs[w->seg_at + i].offset += w->data_at;
    }
    for (size_t i = 0; i < s->cblk_count; i++) {
        B->cblks[w->cblk_at + i] = s->cblks[i];
        B->cblks[w->cblk_at + i].seg_first += (uint32_t)w->seg_at;
        B->cblks[w->cblk_at + i].out_offset += w->coef_at;
    }
    for (size_t i = 0; i < s->tc_count; i++) {
        B->tcs[w->tc_at + i] = s->tcs[i];
        B->tcs[w->tc_at + i].coef_offset += w->coef_at;
    }
    for (size_t i = 0; i < s->frame_count; i++) {
        B->frames[w->frame_at + i] = s->frames[i];
        B->frames[w->frame_at + i].tc_first += (uint32_t)w->tc_at;
        B->frames[w->frame_at + i].cblk_first += (uint32_t)w->cblk_at;
    }
    return NULL;
}

/* fn on every worker, the first on this thread, the others on threads of their own (on this one
 * too when a thread cannot be made). */
static void t2_each(t2_worker *w, size_t n, void *(*fn)(void *))
{
    pthread_t *th = malloc(n * sizeof *th);
    unsigned char *made = calloc(n, 1);
    for (size_t i = 1; i < n; i++)
        made[i] = th && made && pthread_create(&th[i], NULL, fn, &w[i]) == 0;
    fn(&w[0]);
    for (size_t i = 1; i < n; i++) {
        if (made && made[i])
            pthread_join(th[i], NULL);
        else
            fn(&w[i]);
    }
    free(th);
    free(made);
}

#define T2_MAX_THREADS 16

/* Workers for a batch of `bytes` codestream bytes in `n` jobs: one per 4 MB, at most
 * T2_MAX_THREADS and the cores, never more than the jobs. The device waits for a group's tier-2,
 * so more threads shorten the batch (bench/results/gpu-h200-2026-11-28-session10-j2k.md). */
static size_t t2_threads(size_t n, uint64_t bytes)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = (size_t)(bytes >> 22) + 1;
    const size_t cap = cores > 1 ? (size_t)cores : 1;
    t = t < cap ? t : cap;
    t = t < T2_MAX_THREADS ? t : T2_MAX_THREADS;
    return t < n ? t : (n ? n : 1);
}

/* A decoder's tier-2 memory, kept between its batches: the groups' batches and each worker's
 * frames. Fresh memory costs a page fault per 4 KiB at first touch, more than parsing it; kept, a batch like the last one touches only warm pages. With a
 * device, each group batch's code-block bytes are joined into page-locked memory (pinned[k], lent
 * to group[k]), which the device reads without a staging copy. */
struct pcwt_j2k_pool {
    pcwt_j2k_builder group[PCWT_J2K_POOL_GROUPS];
    pcwt_j2k_pinned pinned[PCWT_J2K_POOL_GROUPS];
    pcwt_j2k_builder own[T2_MAX_THREADS];
};

pcwt_j2k_pool *pcwt_j2k_pool_create(void)
{
    pcwt_j2k_pool *p = calloc(1, sizeof(pcwt_j2k_pool));
    for (size_t k = 0; p && k < PCWT_J2K_POOL_GROUPS; k++)
        p->group[k].pinned = &p->pinned[k];
    return p;
}

void pcwt_j2k_pool_free(pcwt_j2k_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < PCWT_J2K_POOL_GROUPS; i++) {
        pcwt_j2k_builder_free(&p->group[i]);
#ifdef PCWT_HAVE_CUDA
        pcwt_gpu_host_free(p->pinned[i].p);
#endif
    }
    for (size_t i = 0; i < T2_MAX_THREADS; i++)
        pcwt_j2k_builder_free(&p->own[i]);
    free(p);
}

pcwt_j2k_builder *pcwt_j2k_pool_batch(pcwt_j2k_pool *p) { return &p->group[0]; }

pcwt_j2k_builder *pcwt_j2k_pool_group(pcwt_j2k_pool *p, size_t k) { return &p->group[k % PCWT_J2K_POOL_GROUPS]; }

/* Page-locked room for n code-block bytes of bld, a pool's group builder, when the route has a
 * device; NULL: the builder's own memory (then staged at the upload). */
static uint8_t *pinned_data(const pcwt_j2k_route *r, const pcwt_j2k_builder *bld, size_t n)
{
#ifdef PCWT_HAVE_CUDA
    pcwt_j2k_pinned *pin = bld->pinned;
    if (!pin || !r->gpu)
        return NULL;
    if (n > pin->cap) {
        pcwt_gpu_host_free(pin->p);
        const size_t cap = n + n / 4; /* the next group a little larger: no new registration */
        pin->p = pcwt_gpu_j2k_host_alloc(r->gpu, cap);
        pin->cap = pin->p ? cap : 0;
    }
    return pin->p;
#else
    (void)r;
    (void)bld;
    (void)n;
    return NULL;
#endif
}

/* pinned_data for a batch of at most `bytes` code-block bytes (its codestreams' size), on a thread
 * of its own beside the parsing (tier2_jobs): a new room's commit took as long as the parsing. */
typedef struct room_task {
    const pcwt_j2k_route *r;
    const pcwt_j2k_builder *bld;
    size_t bytes;
} room_task;

static void *room_ahead(void *arg)
{
    const room_task *t = arg;
    (void)pinned_data(t->r, t->bld, t->bytes + 1);
    return NULL;
}

/* *p with room for n elements of elem bytes (its content not kept); 0 when out of memory. */
static int room(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap)
        return 1;
    free(*p);
    *p = malloc(n * elem);
    *cap = *p ? n : 0;
    return *p != NULL;
}

size_t pcwt_j2k_tier2_jobs(const pcwt_j2k_route *r, pcwt_decode_job *jobs, const size_t *idx, size_t n,
                           size_t threads, pcwt_j2k_builder *bld)
{
    uint64_t bytes = 0;
    for (size_t k = 0; k < n; k++)
        bytes += jobs[idx[k]].src_size;
    size_t nw = threads ? (threads < n ? threads : (n ? n : 1)) : t2_threads(n, bytes);
    nw = nw < T2_MAX_THREADS ? nw : T2_MAX_THREADS;
    t2_worker *w = nw > 1 ? calloc(nw, sizeof *w) : NULL;
    pcwt_j2k_builder *own = w && !r->pool ? calloc(nw, sizeof *own) : NULL;
    if (w && !r->pool && !own) {
        free(w);
        w = NULL;
    }
    if (!w) { /* one thread: straight into the batch */
        pcwt_j2k_header *h = malloc(sizeof *h);
        size_t added = 0;
        for (size_t k = 0; k < n; k++) {
            pcwt_decode_job *j = &jobs[idx[k]];
            if (!h)
                pcwt_set_error(r->err, r->err_size, "out of memory");
            j->status = h ? tier2_job(r, j, h, bld) : PCWT_ERR_OUT_OF_MEMORY;
            added += j->status == PCWT_OK;
        }
        free(h);
        return added;
    }
    /* runs of about equal bytes */
    uint64_t at = 0;
    size_t k = 0;
    for (size_t i = 0; i < nw; i++) {
        w[i].r = r;
        w[i].jobs = jobs;
        w[i].idx = idx;
        w[i].first = k;
        w[i].failed = SIZE_MAX;
        w[i].own = r->pool ? &r->pool->own[i] : &own[i];
        pcwt_j2k_builder_reset(w[i].own);
        w[i].own->defer = 1; /* its bytes copied by t2_place, straight to the batch */
        while (k < n && (i + 1 == nw || at < bytes / nw * (i + 1) || k == w[i].first))
            at += jobs[idx[k++]].src_size;
        w[i].count = k - w[i].first;
    }
    /* the page-locked room for the code-block bytes (no more than the codestreams' bytes) made
     * while the runs are parsed, when this batch needs a larger one than the last */
    room_task rt = {r, bld, (size_t)bytes};
    pthread_t room_th;
    const int room_made = r->gpu && bld->pinned && bld->pinned->cap < rt.bytes + 1 &&
                          pthread_create(&room_th, NULL, room_ahead, &rt) == 0;
    t2_each(w, nw, t2_parse);
    if (room_made)
        pthread_join(room_th, NULL);
    /* the batch's arrays, each run's place in them, and the message of the last failure */
    size_t data = 0, segs = 0, cblks = 0, tcs = 0, frames = 0, last = SIZE_MAX;
    uint64_t coefs = 0;
    for (size_t i = 0; i < nw; i++) {
        const pcwt_j2k_batch *s = &w[i].own->b;
        w[i].out = bld;
        w[i].data_at = data;
        w[i].seg_at = segs;
        w[i].cblk_at = cblks;
        w[i].tc_at = tcs;
        w[i].frame_at = frames;
        w[i].coef_at = coefs;
        data += s->data_size;
        segs += s->seg_count;
        cblks += s->cblk_count;
        tcs += s->tc_count;
        frames += s->frame_count;
        coefs += s->coef_count;
        if (w[i].failed != SIZE_MAX)
            last = i;
    }
    if (last != SIZE_MAX)
        pcwt_set_error(r->err, r->err_size, "%s", w[last].err);
    size_t added = 0;
    uint8_t *pinned = pinned_data(r, bld, data + 1);
    if ((pinned || room((void **)&bld->data, &bld->data_cap, data + 1, 1)) &&
        room((void **)&bld->b.segs, &bld->seg_cap, segs + 1, sizeof *bld->b.segs) &&
        room((void **)&bld->b.cblks, &bld->cblk_cap, cblks + 1, sizeof *bld->b.cblks) &&
        room((void **)&bld->b.tcs, &bld->tc_cap, tcs + 1, sizeof *bld->b.tcs) &&
        room((void **)&bld->b.frames, &bld->frame_cap, frames + 1, sizeof *bld->b.frames)) {
        bld->b.data = pinned ? pinned : bld->data;
        bld->b.data_size = data;
        for (size_t i = 0; i < nw; i++)
            w[i].data_out = pinned ? pinned : bld->data;
        bld->b.seg_count = segs;
        bld->b.cblk_count = cblks;
        bld->b.tc_count = tcs;
        bld->b.frame_count = frames;
        bld->b.coef_count = coefs;
        t2_each(w, nw, t2_place);
        added = frames;
    } else {
        pcwt_j2k_builder_free(bld);
        pcwt_set_error(r->err, r->err_size, "out of memory for a JPEG 2000 batch");
        for (size_t i = 0; i < n; i++)
            if (jobs[idx[i]].status == PCWT_OK)
                jobs[idx[i]].status = PCWT_ERR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < nw; i++) {
        if (r->pool)
            pcwt_j2k_builder_reset(w[i].own);
        else
            pcwt_j2k_builder_free(w[i].own);
    }
    free(own);
    free(w);
    return added;
}

/* The batch's memory as the PCWT path counts it (decoder.c): every decoded frame held at once,
 * the working memory of the largest; jobs whose main header does not parse count nothing (they
 * fail on their own). PCWT_ERR_LIMIT_EXCEEDED for every JPEG 2000 job when over the limit. */
static pcwt_status budget(const pcwt_j2k_route *r, pcwt_decode_job *jobs, size_t count)
{
    pcwt_j2k_header *h = malloc(sizeof *h);
    if (!h) {
        pcwt_set_error(r->err, r->err_size, "out of memory");
        for (size_t i = 0; i < count; i++)
            if (pcwt_j2k_is_codestream(jobs[i].src, jobs[i].src_size))
                jobs[i].status = PCWT_ERR_OUT_OF_MEMORY;
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    uint64_t work = 0, held = 0;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (!pcwt_j2k_is_codestream(jobs[i].src, jobs[i].src_size) ||
            pcwt_j2k_read_main((const uint8_t *)jobs[i].src, jobs[i].src_size, h, NULL, 0) != PCWT_OK)
            continue;
        pcwt_image_desc d;
        desc_of(h, &d);
        const uint64_t w = pcwt_j2k_working_bytes(h, jobs[i].src_size);
        work = w > work ? w : work;
        held += pcwt_image_size(&d);
        n++;
    }
    free(h);
    if (n < 2)
        return PCWT_OK; /* one codestream: prepare() checks it with its message */
    char what[64];
    snprintf(what, sizeof what, "a batch of %zu JPEG 2000 codestreams", n);
    const pcwt_status st = pcwt_memory_check(work + held, r->memory_limit, what, r->err, r->err_size);
    for (size_t i = 0; st != PCWT_OK && i < count; i++)
        if (pcwt_j2k_is_codestream(jobs[i].src, jobs[i].src_size))
            jobs[i].status = st;
    return st;
}

pcwt_status pcwt_j2k_decode_jobs(const pcwt_j2k_route *r, pcwt_decode_job *jobs, size_t count)
{
    const pcwt_status limit = budget(r, jobs, count);
    if (limit != PCWT_OK)
        return limit;
#ifdef PCWT_HAVE_CUDA
    if (r->gpu)
        pcwt_j2k_decode_gpu(r, jobs, count);
#endif
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count; i++) {
        pcwt_decode_job *j = &jobs[i];
        if (!pcwt_j2k_is_codestream(j->src, j->src_size))
            continue;
        if (!r->gpu)
            j->status = pcwt_j2k_decode_one(r, j->src, j->src_size, j->dst, j->dst_capacity);
        if (first == PCWT_OK)
            first = j->status;
    }
    return first;
}

pcwt_status pcwt_j2k_verify_jobs(const pcwt_j2k_route *r, pcwt_verify_job *jobs, size_t count)
{
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count; i++) {
        pcwt_verify_job *j = &jobs[i];
        if (!pcwt_j2k_is_codestream(j->src, j->src_size))
            continue;
        j->first_difference = UINT64_MAX;
        pcwt_header_info info;
        j->status = pcwt_j2k_read_header((const uint8_t *)j->src, j->src_size, &info, r->err, r->err_size);
        const size_t size = j->status == PCWT_OK ? pcwt_image_size(&info.desc) : 0;
        uint8_t *out = j->status == PCWT_OK ? malloc(size ? size : 1) : NULL;
        if (j->status == PCWT_OK && !out) {
            pcwt_set_error(r->err, r->err_size, "out of memory");
            j->status = PCWT_ERR_OUT_OF_MEMORY;
        }
        if (j->status == PCWT_OK) {
            pcwt_decode_job d = {j->src, j->src_size, out, size, PCWT_OK};
            j->status = pcwt_j2k_decode_jobs(r, &d, 1);
        }
        if (j->status == PCWT_OK)
            j->status = pcwt_verify_compare(j, out, size, r->err, r->err_size);
        free(out);
        if (first == PCWT_OK)
            first = j->status;
    }
    return first;
}
