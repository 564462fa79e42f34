/* j2k_decoder_gpu.c - the JPEG 2000 decoder's GPU driver: a batch's frames checked, then sent to
 * the device in groups of consecutive jobs, three stages in flight: the device decodes groups
 * k - 3 to k - 1 side by side while the caller's thread lays out and submits group k
 * (pcwt_gpu_j2k_submit) and a helper thread runs tier-2 of group k + 1 (itself on a few threads). The frames of a group the device fails,
 * and those beyond the memory limit, are decoded on the CPU, whose status is then the job's. */
#include "j2k_codestream.h"
#include "j2k_decoder.h"
#include "j2k_tier2.h"
#include "status.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PCWT_HAVE_CUDA
#include "gpu_backend.h"

/* One group of jobs: its jobs in[first .. first + count), the codestream bytes of the jobs before
 * it and its own, its batch builder, and for PCWT_GPU_TRACE when its tier-2 ran and when its
 * device decode was submitted and finished. */
typedef struct gpu_group {
    size_t index, first, count, frames;
    uint64_t before, bytes;
    pcwt_j2k_builder *bld;
    double mb, t2[2], dev[2];
} gpu_group;

static double now_ms(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

#define GPU_GROUP_BYTES ((uint64_t)40 << 20)
#define GPU_GROUPS_MAX 8
#define GPU_PART1_GROUP_BYTES ((uint64_t)160 << 20)

/* Codestream bytes per group (the batch is then cut in that many groups of about equal bytes):
 * the route's, else about 40 MB a group (at most 8) for a batch of HTJ2K frames: against 64 MB
 * (at most 6) the better on radiographs and CT slices once tier-2 and the downloads got shorter
 * (bench/results/gpu-h200-2026-11-29-session12-j2k.md; before: session8-j2k-e2e.md,
 * session10-j2k.md). A batch with Part 1 frames in at most two groups, up to 160 MB one: their
 * tier-1 decodes a small group far below a batch's speed, but two groups run side by side on the
 * device: the best of 48, 60, 96, 160 MB and one group on the CT slices and radiographs of
 * bench/results/gpu-h200-2026-11-28-session9-j2k.md and session10-j2k.md. */
static uint64_t group_bytes(const pcwt_j2k_route *r, uint64_t total, int part1)
{
    if (r->group_bytes)
        return r->group_bytes;
    if (part1)
        return total > 2 * GPU_PART1_GROUP_BYTES ? total / 2 + 1 : GPU_PART1_GROUP_BYTES;
    uint64_t groups = (total + GPU_GROUP_BYTES - 1) / GPU_GROUP_BYTES;
    groups = groups < GPU_GROUPS_MAX ? groups : GPU_GROUPS_MAX;
    return groups > 1 ? total / groups + 1 : UINT64_MAX;
}

/* The groups of a batch in flight. failed[k] is set for the jobs in[k] of a group the device
 * failed (to be decoded on the CPU); last_err holds the last device failure's message. */
typedef struct group_queue {
    const pcwt_j2k_route *r;
    pcwt_decode_job *jobs;
    const size_t *in;
    size_t n;
    uint64_t total, groups; /* the jobs' codestream bytes, in that many groups */
    unsigned char *failed;
    gpu_group q[PCWT_GPU_J2K_SLOTS]; /* submitted, oldest first from head */
    size_t head, len, finished;
    int trace;
    char err[256], last_err[256];
    double start;
} group_queue;

static void finish_oldest(group_queue *Q)
{
    gpu_group *p = &Q->q[Q->head];
    const pcwt_status st = pcwt_gpu_j2k_finish(Q->r->gpu, Q->err, sizeof Q->err);
    p->dev[1] = now_ms();
    if (Q->trace)
        fprintf(stderr,
                "pcwt j2k group %zu: %zu jobs, %zu frames, %.1f MB; tier-2 %.1f-%.1f; submitted %.1f, finished %.1f ms\n",
                Q->finished, p->count, p->frames, p->mb, p->t2[0] - Q->start, p->t2[1] - Q->start,
                p->dev[0] - Q->start, p->dev[1] - Q->start);
    Q->finished++;
    if (st != PCWT_OK) {
        memset(Q->failed + p->first, 1, p->count);
        snprintf(Q->last_err, sizeof Q->last_err, "%s", Q->err);
    }
    Q->head = (Q->head + 1) % PCWT_GPU_J2K_SLOTS;
    Q->len--;
}

/* The group after prev (NULL: the first), into bld: its jobs up to where about (index + 1) /
 * Q->groups of the batch's codestream bytes end (each job with its larger half on its side), at
 * least one; the last group takes the rest, so that the batch is in Q->groups groups, none a
 * small remainder. */
static gpu_group next_group(const group_queue *Q, const gpu_group *prev, pcwt_j2k_builder *bld)
{
    gpu_group g;
    memset(&g, 0, sizeof g);
    if (prev) {
        g.index = prev->index + 1;
        g.first = prev->first + prev->count;
        g.before = prev->before + prev->bytes;
    }
    g.bld = bld;
    const uint64_t end = g.index + 1 >= Q->groups ? UINT64_MAX
                                                   : (uint64_t)((double)Q->total * (double)(g.index + 1) / (double)Q->groups);
    size_t k = g.first;
    while (k < Q->n) {
        const uint64_t size = Q->jobs[Q->in[k]].src_size;
        if (k > g.first && g.before + g.bytes + size / 2 > end)
            break;
        g.bytes += size;
        k++;
    }
    g.count = k - g.first;
    return g;
}

typedef struct tier2_task {
    const group_queue *Q;
    gpu_group *g;
} tier2_task;

/* Tier-2 of a group into its builder; writes the route's message and the group's jobs' statuses
 * only. */
static void *tier2_group(void *arg)
{
    const tier2_task *t = arg;
    gpu_group *g = t->g;
    g->t2[0] = now_ms();
    pcwt_j2k_builder_reset(g->bld);
    pcwt_j2k_tier2_jobs(t->Q->r, t->Q->jobs, t->Q->in + g->first, g->count, t->Q->r->tier2_threads, g->bld);
    g->t2[1] = now_ms();
    g->frames = g->bld->b.frame_count;
    g->mb = (double)g->bld->b.data_size / 1e6;
    return NULL;
}

/* Group g to the device (or its jobs marked failed); its builder is held until it is finished. */
static void submit(group_queue *Q, gpu_group *g)
{
    if (!g->frames)
        return;
    g->dev[0] = now_ms();
    const pcwt_status st = pcwt_gpu_j2k_submit(Q->r->gpu, &g->bld->b, Q->err, sizeof Q->err);
    if (st != PCWT_OK) {
        memset(Q->failed + g->first, 1, g->count);
        snprintf(Q->last_err, sizeof Q->last_err, "%s", Q->err);
        return;
    }
    Q->q[(Q->head + Q->len) % PCWT_GPU_J2K_SLOTS] = *g;
    Q->len++;
}

/* The jobs in[0 .. n) in groups, tier-2 of group k + 1 on a helper thread while this thread
 * submits group k and the device decodes groups k - 3 .. k - 1 (four builders: bld[k % 4]). Each
 * job's status is tier-2's; r->err as one batch would leave it (the last failing job's message,
 * then the last device failure's). */
static void decode_groups(group_queue *Q, pcwt_j2k_builder *bld[PCWT_J2K_POOL_GROUPS])
{
    gpu_group cur = next_group(Q, NULL, bld[0]);
    tier2_task t = {Q, &cur};
    tier2_group(&t);
    for (size_t k = 1;; k++) {
        /* its builder was group k - 4's, finished before group k - 1 was submitted */
        gpu_group nxt = next_group(Q, &cur, bld[k % PCWT_J2K_POOL_GROUPS]);
        tier2_task tn = {Q, &nxt};
        pthread_t th;
        const int helper = nxt.count && pthread_create(&th, NULL, tier2_group, &tn) == 0;
        submit(Q, &cur);
        if (helper)
            pthread_join(th, NULL);
        else if (nxt.count)
            tier2_group(&tn);
        if (!nxt.count)
            break;
        while (Q->len == PCWT_GPU_J2K_SLOTS) /* the groups the device holds at most */
            finish_oldest(Q);
        cur = nxt;
    }
    while (Q->len)
        finish_oldest(Q);
}

void pcwt_j2k_decode_gpu(const pcwt_j2k_route *r, pcwt_decode_job *jobs, size_t count)
{
    const double start = now_ms(); /* PCWT_GPU_TRACE's times are from here: the checks come first */
    pcwt_j2k_builder mine[PCWT_J2K_POOL_GROUPS];
    memset(mine, 0, sizeof mine);
    pcwt_j2k_builder *bld[PCWT_J2K_POOL_GROUPS];
    for (size_t k = 0; k < PCWT_J2K_POOL_GROUPS; k++)
        bld[k] = r->pool ? pcwt_j2k_pool_group(r->pool, k) : &mine[k];
    pcwt_j2k_header *h = malloc(sizeof *h);
    size_t *in = malloc((count ? count : 1) * sizeof *in);
    unsigned char *failed = calloc(count ? count : 1, 1); /* by position in in[] (decode_groups) */
    unsigned char *cpu = calloc(count ? count : 1, 1);    /* by job: decoded on the CPU below */
    size_t n = 0, refused = SIZE_MAX; /* the last job refused here, with a message */
    uint64_t total = 0, bytes = 0;
    int part1 = 0; /* a Part 1 frame among them */
    const int ok = h && in && failed && cpu;
    for (size_t i = 0; ok && i < count; i++) {
        pcwt_decode_job *j = &jobs[i];
        if (!pcwt_j2k_is_codestream(j->src, j->src_size))
            continue;
        pcwt_image_desc desc;
        uint64_t need;
        j->status = pcwt_j2k_prepare(r, j->src, j->src_size, j->dst_capacity, h, &desc, &need);
        if (j->status == PCWT_OK && !j->dst) {
            pcwt_set_error(r->err, r->err_size, "NULL buffer");
            j->status = PCWT_ERR_INVALID_ARGUMENT;
        }
        if (j->status != PCWT_OK)
            refused = i;
        if (j->status == PCWT_OK && total + need > r->memory_limit) {
            cpu[i] = 1; /* beyond the batch's memory: on its own on the CPU */
            continue;
        }
        if (j->status == PCWT_OK) {
            total += need;
            bytes += j->src_size;
            in[n++] = i;
            for (uint32_t c = 0; c < h->components; c++)
                part1 |= !(h->comp[c].style & PCWT_J2K_STYLE_HT);
        }
    }
    free(h);
    if (ok && n) {
        /* the message stays the last failing job's, as when tier-2 ran in the loop above */
        char *kept = refused != SIZE_MAX && r->err_size ? malloc(r->err_size) : NULL;
        if (kept)
            memcpy(kept, r->err, r->err_size);
        group_queue Q;
        memset(&Q, 0, sizeof Q);
        Q.r = r;
        Q.jobs = jobs;
        Q.in = in;
        Q.n = n;
        Q.total = bytes;
        const uint64_t per = group_bytes(r, bytes, part1);
        Q.groups = per >= bytes ? 1 : bytes / per + (bytes % per != 0);
        Q.failed = failed;
        Q.trace = pcwt_gpu_j2k_traced(r->gpu);
        Q.start = start;
        decode_groups(&Q, bld);
        size_t last = SIZE_MAX;
        for (size_t k = 0; k < n; k++) {
            pcwt_decode_job *j = &jobs[in[k]];
            if (j->status != PCWT_OK)
                last = in[k];
            /* a group the device failed, and the jobs a batch had no host memory for (tier-2's
             * out of memory), again alone on the CPU */
            cpu[in[k]] = (failed[k] && j->status == PCWT_OK) || j->status == PCWT_ERR_OUT_OF_MEMORY;
        }
        if (Q.last_err[0])
            pcwt_set_error(r->err, r->err_size, "%s", Q.last_err);
        else if (kept && (last == SIZE_MAX || last < refused))
            memcpy(r->err, kept, r->err_size);
        free(kept);
    }
    for (size_t k = 0; k < PCWT_J2K_POOL_GROUPS; k++) {
        if (r->pool)
            pcwt_j2k_builder_reset(bld[k]);
        else
            pcwt_j2k_builder_free(bld[k]);
    }
    for (size_t i = 0; i < count; i++) {
        pcwt_decode_job *j = &jobs[i];
        if (pcwt_j2k_is_codestream(j->src, j->src_size) && (!ok || cpu[i]))
            j->status = pcwt_j2k_decode_one(r, j->src, j->src_size, j->dst, j->dst_capacity);
    }
    free(in);
    free(failed);
    free(cpu);
}
#endif
