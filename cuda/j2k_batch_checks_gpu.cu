// j2k_batch_checks_gpu.cu - the host's checks of a JPEG 2000 GPU batch (j2k_batch_checks_gpu.h):
// every frame and code-block against the batch's lists and the CPU decoder's rules, before any of
// it reaches the device.
#include "j2k_batch_checks_gpu.h"
#include "host_threads.h"
#include "j2k_gpu.h"

extern "C" {
#include "j2k_ht_rules.h"
#include "j2k_t1_rules.h"
}

#include <algorithm>
#include <cstdio>
#include <thread>

namespace j2k_checks {

void fail(pcwt_status st, char *err, size_t es, const char *fmt, size_t a, unsigned b)
{
    std::snprintf(err, es, fmt, a, b);
    throw Failure{st};
}

// The frame's fields against the batch's lists; its output size.
uint64_t check_frame(const pcwt_j2k_batch *b, size_t i, char *err, size_t es)
{
    const pcwt_j2k_frame &f = b->frames[i];
    const size_t size = pcwt_image_size(&f.desc);
    if ((f.components != 1 && f.components != 3) || f.desc.components != f.components || !size || !f.dst ||
        f.precision < 1 || f.precision > 16 || f.desc.bits_allocated < f.precision ||
        (uint64_t)f.tc_first + f.components > b->tc_count || (uint64_t)f.cblk_first + f.cblk_count > b->cblk_count)
        fail(PCWT_ERR_INVALID_ARGUMENT, err, es, "JPEG 2000 GPU batch: frame %zu is inconsistent", i);
    for (uint32_t c = 0; c < f.components; c++) {
        const pcwt_j2k_tilecomp &t = b->tcs[f.tc_first + c];
        if (t.width != f.desc.width || t.height != f.desc.height || t.levels > 32 ||
            t.coef_offset > b->coef_count || (uint64_t)t.width * t.height > b->coef_count - t.coef_offset)
            fail(PCWT_ERR_INVALID_ARGUMENT, err, es, "JPEG 2000 GPU batch: frame %zu: tile-component %u is inconsistent", i, c);
    }
    return size;
}

// The chunk's coefficient range [lo, hi): its frames' tile-components.
void coef_range(const pcwt_j2k_batch *b, const std::vector<size_t> &frames, uint64_t &lo, uint64_t &hi)
{
    lo = UINT64_MAX;
    hi = 0;
    for (size_t i : frames) {
        const pcwt_j2k_frame &f = b->frames[i];
        for (uint32_t c = 0; c < f.components; c++) {
            const pcwt_j2k_tilecomp &t = b->tcs[f.tc_first + c];
            lo = std::min(lo, t.coef_offset);
            hi = std::max(hi, t.coef_offset + (uint64_t)t.width * t.height);
        }
    }
}

namespace {

// An HT code-block: what the CPU's decoder checks before decoding (j2k_ht_rules.h).
void check_ht(const pcwt_j2k_batch *b, const pcwt_j2k_cblk &cb, size_t i, uint64_t coefs, char *err, size_t es)
{
    int r = pcwt_j2k_ht_check(&cb, b->segs, b->seg_count, b->data_size, coefs);
    pcwt_j2k_ht_plan pl;
    if (r == PCWT_J2K_HT_OK)
        r = pcwt_j2k_ht_prepare(&cb, b->segs, b->data, &pl);
    if (r == PCWT_J2K_HT_MANY_PASSES || r == PCWT_J2K_HT_MANY_PLANES)
        fail(PCWT_ERR_UNSUPPORTED, err, es, "HTJ2K: code-block %zu: more than one HT set or Mb above 30", i);
    if (r != PCWT_J2K_HT_OK)
        fail(PCWT_ERR_CORRUPT, err, es, "corrupt HTJ2K: code-block %zu is inconsistent (check %u)", i, unsigned(r));
}

void check_cblk(const pcwt_j2k_batch *b, const pcwt_j2k_cblk &cb, size_t i, uint64_t coefs, char *err, size_t es)
{
    switch (pcwt_j2k_t1_check(&cb, b->segs, b->seg_count, b->data_size, coefs)) {
    case PCWT_J2K_T1_OK:
        return;
    case PCWT_J2K_T1_HT:
        check_ht(b, cb, i, coefs, err, es);
        return;
    case PCWT_J2K_T1_MANY_PLANES:
        fail(PCWT_ERR_UNSUPPORTED, err, es, "JPEG 2000: code-block %zu has more than %u magnitude bit-planes", i,
             PCWT_J2K_MAX_PLANES);
    default:
        fail(PCWT_ERR_CORRUPT, err, es, "corrupt JPEG 2000: code-block %zu is inconsistent (check %u)", i,
             (unsigned)pcwt_j2k_t1_check(&cb, b->segs, b->seg_count, b->data_size, coefs));
    }
}

// An HT code-block's cleanup segment's last two bytes, which pcwt_j2k_ht_prepare reads (Scup), asked
// of the cache a few code-blocks ahead: each is a miss in a group's tens of MB of code-block bytes.
// A hint only (nothing is read here); the checks come when the code-block does.
constexpr size_t kPrefetchAhead = 16;
inline void prefetch_cleanup_end(const pcwt_j2k_batch *b, size_t i)
{
    if (i >= b->cblk_count)
        return;
    const pcwt_j2k_cblk &cb = b->cblks[i];
    if (!(cb.style & PCWT_J2K_STYLE_HT) || !cb.seg_count || cb.seg_first >= b->seg_count)
        return;
    const pcwt_j2k_seg &g = b->segs[cb.seg_first];
    if (g.length >= 2 && g.offset <= b->data_size && g.length <= b->data_size - g.offset)
        __builtin_prefetch(b->data + g.offset + g.length - 2);
}

} // namespace

// The chunk's code-blocks (frame k's batch code-blocks from[k] .. into cb[at[k] ..]) rebased to the
// chunk's coefficients [lo, hi) and checked, their keys (cost, bytes), and idx: their order,
// heaviest first, ties in chunk order; on a few threads for a large chunk (the checks and the sort
// are most of a batch's host work before its upload), each a run of frames, the runs' sorted
// orders merged. A failure is the first failing code-block's, as one thread would find it.
void checked_and_sorted(const pcwt_j2k_batch *b, const std::vector<size_t> &from, const std::vector<size_t> &at,
                        uint64_t lo, uint64_t hi, std::vector<pcwt_j2k_cblk> &cb,
                        std::vector<std::pair<uint64_t, uint64_t>> &key, std::vector<size_t> &idx, char *err,
                        size_t es)
{
    const size_t n = cb.size(), frames = from.size();
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t parts = std::max<size_t>(1, std::min({n / 4096, size_t(8), std::max<size_t>(1, cores / 2), frames}));
    std::vector<size_t> first(parts + 1); // run t: frames first[t] .. first[t + 1] - 1, about n / parts code-blocks
    for (size_t t = 0, k = 0; t <= parts; t++) {
        while (k < frames && at[k] < n / parts * t)
            k++;
        first[t] = t == parts ? frames : k;
    }
    struct Failed {
        size_t at = SIZE_MAX; // the chunk's code-block index
        pcwt_status st = PCWT_OK;
        char msg[256] = "";
    };
    std::vector<Failed> failed(parts);
    auto by_key = [&](size_t x, size_t y) { return key[x] > key[y]; };
    gpu_on_threads(parts, [&](size_t t) {
        Failed &f = failed[t];
        for (size_t k = first[t]; k < first[t + 1] && f.at == SIZE_MAX; k++)
            for (size_t i = at[k]; i < at[k + 1]; i++) {
                const size_t src = from[k] + (i - at[k]);
                prefetch_cleanup_end(b, src + kPrefetchAhead);
                pcwt_j2k_cblk x = b->cblks[src];
                try {
                    if (x.out_offset < lo)
                        fail(PCWT_ERR_CORRUPT, f.msg, sizeof f.msg, "corrupt JPEG 2000: code-block %zu outside its frame",
                             src);
                    x.out_offset -= lo;
                    check_cblk(b, x, src, hi - lo, f.msg, sizeof f.msg);
                } catch (const Failure &e) {
                    f.at = i;
                    f.st = e.st;
                    break;
                }
                cb[i] = x;
                uint64_t bytes = 0;
                for (uint32_t g = 0; g < x.seg_count; g++)
                    bytes += b->segs[x.seg_first + g].length;
                key[i] = {j2k_t1_cost(x, bytes), bytes};
                idx[i] = i;
            }
        if (f.at == SIZE_MAX)
            std::stable_sort(idx.begin() + long(at[first[t]]), idx.begin() + long(at[first[t + 1]]), by_key);
    });
    for (const Failed &f : failed)
        if (f.at != SIZE_MAX) {
            std::snprintf(err, es, "%s", f.msg);
            throw Failure{f.st};
        }
    // the runs merged pairwise, the earlier run first on ties: as one stable sort of the whole
    for (size_t w = 1; w < parts; w *= 2)
        for (size_t t = 0; t + w < parts; t += 2 * w) {
            const auto a = idx.begin() + long(at[first[t]]), m = idx.begin() + long(at[first[t + w]]),
                       e = idx.begin() + long(at[first[std::min(parts, t + 2 * w)]]);
            std::inplace_merge(a, m, e, by_key);
        }
}

} // namespace j2k_checks
