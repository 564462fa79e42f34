/* j2k_decoder.c - the JPEG 2000 decoder's driver: the codestream's headers, the decoder's
 * limits (samples, memory) before anything is allocated, tier-2 into a batch, then on the CPU
 * tier-1 per code-block, the inverse DWT per tile-component and the output per frame; on the GPU
 * backend the whole batch at once, with the CPU decoding every frame again when the device
 * fails (out of memory, or a frame it refuses: the CPU's status is then the job's). */
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
#include <time.h>
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

/* The codestream read and checked against the job and the limits: desc filled. */
static pcwt_status prepare(const pcwt_j2k_route *r, const void *src, size_t size, size_t dst_capacity,
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

/* One codestream on the CPU. */
static pcwt_status decode_one(const pcwt_j2k_route *r, const void *src, size_t size, void *dst,
                              size_t dst_capacity)
{
    pcwt_j2k_header *h = malloc(sizeof *h);
    if (!h) {
        pcwt_set_error(r->err, r->err_size, "out of memory");
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    pcwt_image_desc desc;
    uint64_t need;
    pcwt_status st = prepare(r, src, size, dst_capacity, h, &desc, &need);
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
 * builder, then every worker copies its builder into its place in the batch (the offsets and
 * indices moved by the runs before it). */
typedef struct t2_worker {
    const pcwt_j2k_route *r;
    pcwt_decode_job *jobs;
    const size_t *idx;
    size_t first, count; /* its run: idx[first .. first + count) */
    size_t failed;       /* the last job of the run that failed, SIZE_MAX: none */
    pcwt_j2k_builder *own; /* its run's frames: the pool's, or this call's */
    pcwt_j2k_builder *out;
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
    pcwt_status st = prepare(r, j->src, j->src_size, j->dst_capacity, h, &desc, &need);
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
    if (s->data_size)
        memcpy(w->out->data + w->data_at, s->data, s->data_size);
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

#define T2_MAX_THREADS 8

/* Workers for a batch of `bytes` codestream bytes in `n` jobs: one per 4 MB, at most
 * T2_MAX_THREADS and half the cores (the caller's other threads keep theirs), never more than the
 * jobs. */
static size_t t2_threads(size_t n, uint64_t bytes)
{
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = (size_t)(bytes >> 22) + 1;
    const size_t cap = cores > 3 ? (size_t)cores / 2 : 1;
    t = t < cap ? t : cap;
    t = t < T2_MAX_THREADS ? t : T2_MAX_THREADS;
    return t < n ? t : (n ? n : 1);
}

/* A decoder's tier-2 memory, kept between its batches: the batch and each worker's frames. Fresh
 * memory costs a page fault per 4 KiB at first touch (about 60 ms a 100 MB on the VMs measured),
 * more than parsing it; kept, a batch like the last one touches only warm pages. */
struct pcwt_j2k_pool {
    pcwt_j2k_builder batch, next; /* a group's batch and the next group's (decode_groups) */
    pcwt_j2k_builder own[T2_MAX_THREADS];
};

pcwt_j2k_pool *pcwt_j2k_pool_create(void) { return calloc(1, sizeof(pcwt_j2k_pool)); }

void pcwt_j2k_pool_free(pcwt_j2k_pool *p)
{
    if (!p)
        return;
    pcwt_j2k_builder_free(&p->batch);
    pcwt_j2k_builder_free(&p->next);
    for (size_t i = 0; i < T2_MAX_THREADS; i++)
        pcwt_j2k_builder_free(&p->own[i]);
    free(p);
}

pcwt_j2k_builder *pcwt_j2k_pool_batch(pcwt_j2k_pool *p) { return &p->batch; }

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
        while (k < n && (i + 1 == nw || at < bytes / nw * (i + 1) || k == w[i].first))
            at += jobs[idx[k++]].src_size;
        w[i].count = k - w[i].first;
    }
    t2_each(w, nw, t2_parse);
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
    if (room((void **)&bld->data, &bld->data_cap, data + 1, 1) &&
        room((void **)&bld->b.segs, &bld->seg_cap, segs + 1, sizeof *bld->b.segs) &&
        room((void **)&bld->b.cblks, &bld->cblk_cap, cblks + 1, sizeof *bld->b.cblks) &&
        room((void **)&bld->b.tcs, &bld->tc_cap, tcs + 1, sizeof *bld->b.tcs) &&
        room((void **)&bld->b.frames, &bld->frame_cap, frames + 1, sizeof *bld->b.frames)) {
        bld->b.data = bld->data;
        bld->b.data_size = data;
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

#ifdef PCWT_HAVE_CUDA
/* One group of jobs: its jobs in[first .. first + count), its batch builder, and for
 * PCWT_GPU_TRACE when its tier-2 ran and when its device decode was submitted and finished. */
typedef struct gpu_group {
    size_t first, count, builder, frames;
    double mb, t2[2], dev[2];
} gpu_group;

static double now_ms(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* PCWT_GPU_TRACE's line for a group, times from the decode call's start. */
static void trace_group(const gpu_group *g, size_t k, double start)
{
    const char *tr = getenv("PCWT_GPU_TRACE");
    if (!tr || !*tr || *tr == '0')
        return;
    fprintf(stderr, "pcwt j2k group %zu: %zu jobs, %zu frames, %.1f MB; tier-2 %.1f-%.1f; submitted %.1f, finished %.1f ms\n",
            k, g->count, g->frames, g->mb, g->t2[0] - start, g->t2[1] - start, g->dev[0] - start, g->dev[1] - start);
}

#define GPU_GROUP_BYTES ((uint64_t)64 << 20)
#define GPU_GROUPS_MAX 6

/* Codestream bytes per group: the route's, else about 64 MB a group (at most 6) for a batch of
 * HTJ2K frames, whose host work (tier-2, staging, layout) is longer than the device's: the best
 * of 16, 32, 64 MB and one group on two H200s (bench/results/gpu-h200-2026-11-28-session8-j2k-e2e.md);
 * one group for a batch with Part 1 frames: their tier-1 decodes a group of a sixth of a batch at
 * a third of the batch's speed, which costs more than the overlap saves. */
static uint64_t group_bytes(const pcwt_j2k_route *r, uint64_t total, int part1)
{
    if (r->group_bytes)
        return r->group_bytes;
    if (part1)
        return UINT64_MAX;
    uint64_t groups = (total + GPU_GROUP_BYTES - 1) / GPU_GROUP_BYTES;
    groups = groups < GPU_GROUPS_MAX ? groups : GPU_GROUPS_MAX;
    return groups > 1 ? total / groups + 1 : UINT64_MAX;
}

/* The jobs in[0 .. n) in groups of about `per` codestream bytes: tier-2 of group k + 1 on the
 * host threads while the device decodes group k (pcwt_gpu_j2k_submit / _finish; two batch
 * builders, the pool's when there is one, each held until its group is finished). Each job's
 * status is tier-2's; failed[k] is set for the jobs in[k] of a group the device failed (to be
 * decoded on the CPU); r->err as one batch would leave it (the last failing job's message, then
 * the last device failure's). */
typedef struct group_queue {
    const pcwt_j2k_route *r;
    unsigned char *failed;
    gpu_group q[2]; /* submitted, oldest first from head */
    size_t head, len, finished;
    int busy[2]; /* builder held by a submitted group */
    char err[256], last_err[256];
    double start;
} group_queue;

static void finish_oldest(group_queue *Q)
{
    gpu_group *p = &Q->q[Q->head];
    const pcwt_status st = pcwt_gpu_j2k_finish(Q->r->gpu, Q->err, sizeof Q->err);
    p->dev[1] = now_ms();
    trace_group(p, Q->finished++, Q->start);
    if (st != PCWT_OK) {
        memset(Q->failed + p->first, 1, p->count);
        snprintf(Q->last_err, sizeof Q->last_err, "%s", Q->err);
    }
    Q->busy[p->builder] = 0;
    Q->head ^= 1;
    Q->len--;
}

static void decode_groups(const pcwt_j2k_route *r, pcwt_decode_job *jobs, const size_t *in, size_t n, uint64_t per,
                          pcwt_j2k_builder *bld[2], unsigned char *failed, double start)
{
    group_queue Q;
    memset(&Q, 0, sizeof Q);
    Q.r = r;
    Q.failed = failed;
    Q.start = start;
    for (size_t first = 0, k = 0; first < n; k++) {
        gpu_group g;
        memset(&g, 0, sizeof g);
        g.builder = k & 1;
        while (Q.busy[g.builder])
            finish_oldest(&Q);
        uint64_t bytes = 0;
        g.first = first;
        while (first < n && (first == g.first || bytes + jobs[in[first]].src_size <= per))
            bytes += jobs[in[first++]].src_size;
        g.count = first - g.first;
        g.t2[0] = now_ms();
        pcwt_j2k_builder *b = bld[g.builder];
        pcwt_j2k_builder_reset(b);
        pcwt_j2k_tier2_jobs(r, jobs, in + g.first, g.count, 0, b);
        g.t2[1] = g.dev[0] = now_ms();
        g.frames = b->b.frame_count;
        g.mb = (double)b->b.data_size / 1e6;
        if (!g.frames)
            continue;
        const pcwt_status st = pcwt_gpu_j2k_submit(r->gpu, &b->b, Q.err, sizeof Q.err);
        if (st != PCWT_OK) {
            memset(failed + g.first, 1, g.count);
            snprintf(Q.last_err, sizeof Q.last_err, "%s", Q.err);
            continue;
        }
        Q.q[(Q.head + Q.len) & 1] = g;
        Q.len++;
        Q.busy[g.builder] = 1;
    }
    while (Q.len)
        finish_oldest(&Q);
    if (Q.last_err[0])
        pcwt_set_error(r->err, r->err_size, "%s", Q.last_err);
}

/* Every JPEG 2000 job's frame into batches for the device; a job that fails its checks or
 * tier-2 keeps that status. Jobs the device does not decode go to the CPU. */
static void decode_gpu(const pcwt_j2k_route *r, pcwt_decode_job *jobs, size_t count)
{
    const double start = now_ms(); /* PCWT_GPU_TRACE's times are from here: the checks come first */
    pcwt_j2k_builder mine[2];
    memset(mine, 0, sizeof mine);
    pcwt_j2k_builder *bld[2] = {r->pool ? &r->pool->batch : &mine[0], r->pool ? &r->pool->next : &mine[1]};
    pcwt_j2k_header *h = malloc(sizeof *h);
    size_t *in = malloc((count ? count : 1) * sizeof *in);
    unsigned char *failed = calloc(count ? count : 1, 1); /* by position in in[] (decode_groups) */
    size_t n = 0, refused = SIZE_MAX; /* the last job refused here, with a message */
    uint64_t total = 0, bytes = 0;
    int part1 = 0; /* a Part 1 frame among them */
    for (size_t i = 0; h && in && failed && i < count; i++) {
        pcwt_decode_job *j = &jobs[i];
        if (!pcwt_j2k_is_codestream(j->src, j->src_size))
            continue;
        pcwt_image_desc desc;
        uint64_t need;
        j->status = prepare(r, j->src, j->src_size, j->dst_capacity, h, &desc, &need);
        if (j->status == PCWT_OK && !j->dst) {
            pcwt_set_error(r->err, r->err_size, "NULL buffer");
            j->status = PCWT_ERR_INVALID_ARGUMENT;
        }
        if (j->status != PCWT_OK)
            refused = i;
        if (j->status == PCWT_OK && total + need > r->memory_limit)
            j->status = PCWT_ERR_OUT_OF_MEMORY; /* decoded on the CPU below, on its own */
        if (j->status == PCWT_OK) {
            total += need;
            bytes += j->src_size;
            in[n++] = i;
            for (uint32_t c = 0; c < h->components; c++)
                part1 |= !(h->comp[c].style & PCWT_J2K_STYLE_HT);
        }
    }
    const int ok = h && in && failed;
    if (ok && n) {
        /* the message stays the last failing job's, as when tier-2 ran in the loop above */
        char *kept = refused != SIZE_MAX && r->err_size ? malloc(r->err_size) : NULL;
        if (kept)
            memcpy(kept, r->err, r->err_size);
        decode_groups(r, jobs, in, n, group_bytes(r, bytes, part1), bld, failed, start);
        size_t last = SIZE_MAX;
        for (size_t k = 0; k < n; k++)
            if (jobs[in[k]].status != PCWT_OK)
                last = in[k];
        int device_failed = 0;
        for (size_t k = 0; k < n; k++)
            device_failed |= failed[k];
        if (kept && !device_failed && (last == SIZE_MAX || last < refused))
            memcpy(r->err, kept, r->err_size);
        free(kept);
    }
    for (int k = 0; k < 2; k++) {
        if (r->pool)
            pcwt_j2k_builder_reset(bld[k]);
        else
            pcwt_j2k_builder_free(bld[k]);
    }
    free(h);
    /* the jobs of a group the device failed, and those it had no memory for, on the CPU */
    for (size_t k = 0; ok && k < n; k++)
        if (failed[k] && jobs[in[k]].status == PCWT_OK)
            jobs[in[k]].status = PCWT_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i < count; i++) {
        pcwt_decode_job *j = &jobs[i];
        if (!pcwt_j2k_is_codestream(j->src, j->src_size))
            continue;
        if (!ok || j->status == PCWT_ERR_OUT_OF_MEMORY)
            j->status = decode_one(r, j->src, j->src_size, j->dst, j->dst_capacity);
    }
    free(in);
    free(failed);
}
#endif

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
        decode_gpu(r, jobs, count);
#endif
    pcwt_status first = PCWT_OK;
    for (size_t i = 0; i < count; i++) {
        pcwt_decode_job *j = &jobs[i];
        if (!pcwt_j2k_is_codestream(j->src, j->src_size))
            continue;
        if (!r->gpu)
            j->status = decode_one(r, j->src, j->src_size, j->dst, j->dst_capacity);
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
