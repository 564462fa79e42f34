/* decode_limits.c - what a header must satisfy before a decoder allocates anything, and the
 * decoder's memory budget: what a codestream will need, known from its header, and the default
 * budget derived from the machine and the process's resource limits, so that a small codestream
 * declaring a huge image (a decompression bomb) is refused with a message instead of exhausting
 * memory. */
#include "container.h"
#include "decode_limits.h"
#include "planes.h"
#include "pyramid.h"
#include "status.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Fixed host memory of the GPU path beside its per-byte staging (layout tables, plane states). */
#define GPU_HOST_FIXED ((uint64_t)1 << 20)
#define MIB ((uint64_t)1 << 20)

uint64_t pcwt_decode_working_bytes(const pcwt_header_info *info, int gpu)
{
    const pcwt_image_desc *d = &info->desc;
    pcwt_plan plan;
    pcwt_plan_make(&plan, d->height, d->width, info->levels);
    uint64_t cpu = pcwt_pyramid_decode_bytes(&plan);
    if (info->colour_transform) /* the three value planes, held until the inverse RCT */
        cpu += 3 * (uint64_t)pcwt_even_up(d->width) * pcwt_even_up(d->height) * sizeof(int32_t);
    if (!gpu)
        return cpu;
    /* Pinned staging of the codestream and of the samples (download, or verify's expected). They
     * stay in the handle's GPU context while the CPU path decodes what the device had no memory
     * for, so both count. */
    return cpu + pcwt_decode_gpu_staging_bytes(info);
}

uint64_t pcwt_decode_gpu_staging_bytes(const pcwt_header_info *info)
{
    return (uint64_t)info->codestream_length + 256 + pcwt_image_size(&info->desc) + GPU_HOST_FIXED;
}

uint64_t pcwt_decode_memory_bound(const pcwt_header_info *info)
{
    if (!info || pcwt_desc_check(&info->desc, NULL, 0) != PCWT_OK)
        return UINT64_MAX;
    return pcwt_decode_working_bytes(info, pcwt_has_cuda()) + pcwt_image_size(&info->desc);
}

pcwt_status pcwt_memory_check(uint64_t need, uint64_t limit, const char *what, char *err,
                              size_t err_size)
{
    if (need <= limit)
        return PCWT_OK;
    pcwt_set_error(err, err_size, "%s needs %llu MiB, limit %llu MiB (memory limit)", what,
                   (unsigned long long)((need + MIB - 1) / MIB),
                   (unsigned long long)(limit / MIB));
    return PCWT_ERR_LIMIT_EXCEEDED;
}

/* Bytes of address space (field 0) and of data (field 5) this process maps now, from
 * /proc/self/statm; 0 where it cannot be read. */
static void current_usage(uint64_t *vm, uint64_t *data)
{
    *vm = *data = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return;
    unsigned long long v[7] = {0};
    if (fscanf(f, "%llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6) {
        const long page = sysconf(_SC_PAGESIZE);
        *vm = v[0] * (uint64_t)(page > 0 ? page : 4096);
        *data = v[5] * (uint64_t)(page > 0 ? page : 4096);
    }
    fclose(f);
}

/* What a soft resource limit leaves beyond `used`, 7/8 of it (stdio, stacks and the caller's own
 * allocations need some); UINT64_MAX when unlimited. */
static uint64_t rlimit_room(int resource, uint64_t used)
{
    struct rlimit r;
    if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    const uint64_t cur = (uint64_t)r.rlim_cur;
    return cur > used ? (cur - used) / 8 * 7 : 0;
}

uint64_t pcwt_default_memory_limit(void)
{
    uint64_t limit = UINT64_MAX;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        limit = (uint64_t)pages * (uint64_t)page / 4 * 3;
    uint64_t vm, data;
    current_usage(&vm, &data);
    const uint64_t as = rlimit_room(RLIMIT_AS, vm), ds = rlimit_room(RLIMIT_DATA, data);
    if (as < limit)
        limit = as;
    if (ds < limit)
        limit = ds;
    if (limit == UINT64_MAX) /* nothing known: a budget that refuses only absurd requests */
        limit = (uint64_t)1 << 40;
    return limit < 64 * MIB ? 64 * MIB : limit;
}

pcwt_status pcwt_decode_check(const pcwt_header_info *info, size_t src_size, size_t dst_capacity,
                              uint64_t max_samples, char *err, size_t err_size)
{
    const pcwt_image_desc *d = &info->desc;
    const uint64_t samples = (uint64_t)d->width * d->height * d->components;
    /* the format's limit too: pcwt_image_size is 0 beyond it, which no size check could catch */
    if (max_samples > PCWT_MAX_SAMPLES)
        max_samples = PCWT_MAX_SAMPLES;
    if (samples > max_samples) {
        pcwt_set_error(err, err_size, "image of %llu samples exceeds the limit of %llu",
                       (unsigned long long)samples, (unsigned long long)max_samples);
        return PCWT_ERR_LIMIT_EXCEEDED;
    }
    if (src_size < info->codestream_length) {
        pcwt_set_error(err, err_size, "codestream truncated: %zu of %zu bytes", src_size,
                       info->codestream_length);
        return PCWT_ERR_TRUNCATED;
    }
    if (dst_capacity < pcwt_image_size(d)) {
        pcwt_set_error(err, err_size, "destination buffer of %zu bytes too small, %zu needed",
                       dst_capacity, pcwt_image_size(d));
        return PCWT_ERR_BUFFER_TOO_SMALL;
    }
    return PCWT_OK;
}
