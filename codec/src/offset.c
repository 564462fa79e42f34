/* offset.c - the per-plane modular offset (offset.h; docs/FORMAT.md Sec. 5.6). */
#include "offset.h"

#include <stdlib.h>

uint32_t pcwt_offset_gap(const uint8_t *used, uint32_t m)
{
    uint32_t first = 0;
    while (first < m && !used[first])
        first++;
    if (first == m)
        return 0;
    /* Walk the values that occur in order; the stretch after the last wraps round to the first. */
    uint32_t best_len = 0, best_next = first, prev = first;
    int have = 0;
    for (uint32_t u = first + 1; u <= m; u++) {
        const int last = u == m;
        if (!last && !used[u])
            continue;
        const uint32_t next = last ? first : u;
        const uint32_t len = last ? first + m - prev - 1u : u - prev - 1u;
        if (!have || len > best_len) {
            best_len = len;
            best_next = next;
            have = 1;
        }
        prev = u;
    }
    return best_next;
}

/* The smallest value that occurs at or above r, else the smallest of all: two candidates with the
 * same one split the same neighbour pairs (a pair lo < hi is split by r when lo < r <= hi), so
 * their costs are equal. */
static uint32_t split_class(const uint8_t *used, uint32_t m, uint32_t r)
{
    for (uint32_t u = r; u < m; u++)
        if (used[u])
            return u;
    uint32_t u = 0;
    while (!used[u])
        u++;
    return u;
}

/* What the pairs (a[i], b[i]) of n stored values add to sums[0], their differences hi - lo, and to
 * sums[1 + j], j < k, the sums of m - 2 (hi - lo) over the pairs that r[j] splits (lo < r[j] <=
 * hi): pcwt_offset_pair_cost summed for r[j] is sums[0] + sums[1 + j]. One loop without branches
 * so that the compiler vectorises it; inlined where k is a constant. */
static inline __attribute__((always_inline)) void pairs_sums(const int32_t *a, const int32_t *b,
                                                             uint32_t n, const int32_t *r, int k,
                                                             int32_t m, int64_t *sums)
{
    /* values below 2^16: signed 32-bit lanes; 32-bit sums over at most 2^14 pairs of terms of at
     * most 2^16 in magnitude */
    const int32_t r0 = r[0], r1 = k > 1 ? r[1] : 0, r2 = k > 2 ? r[2] : 0;
    for (uint32_t i0 = 0; i0 < n; i0 += 16384u) {
        const uint32_t end = n - i0 < 16384u ? n : i0 + 16384u;
        int32_t sd = 0, s0 = 0, s1 = 0, s2 = 0;
        for (uint32_t i = i0; i < end; i++) {
            const int32_t lo = a[i] < b[i] ? a[i] : b[i], hi = a[i] < b[i] ? b[i] : a[i];
            const int32_t d = hi - lo, e = m - 2 * d;
            sd += d;
            s0 += ((lo < r0) & (r0 <= hi)) ? e : 0;
            if (k > 1)
                s1 += ((lo < r1) & (r1 <= hi)) ? e : 0;
            if (k > 2)
                s2 += ((lo < r2) & (r2 <= hi)) ? e : 0;
        }
        sums[0] += sd;
        sums[1] += s0;
        if (k > 1)
            sums[2] += s1;
        if (k > 2)
            sums[3] += s2;
    }
}

/* pairs_sums of a row's left neighbours and, below the first row, of its upper ones. */
static inline __attribute__((always_inline)) void row_sums(const int32_t *cur, const int32_t *prev,
                                                           uint32_t cols, const int32_t *r, int k,
                                                           int32_t m, int64_t *sums)
{
    pairs_sums(cur + 1, cur, cols - 1u, r, k, m, sums);
    if (prev)
        pairs_sums(cur, prev, cols, r, k, m, sums);
}

/* The costs c[0..2] of the candidates of split classes cls[0..2] (split_class) over the plane's
 * pairs of left and upper neighbours, row by row on the stored values (two rows of scratch). The
 * class of the smallest value, lo, splits no pair; the others are summed once each.
 * PCWT_ERR_OUT_OF_MEMORY possible. */
static pcwt_status costs(const int32_t *plane, size_t stride, uint32_t rows, uint32_t cols, uint32_t m,
                         const uint32_t *cls, uint32_t lo, uint64_t *c)
{
    int32_t r[3] = {(int32_t)lo, 0, 0};
    int at[3], k = 0;
    for (int i = 0; i < 3; i++) {
        at[i] = -1;
        for (int j = 0; j < k && cls[i] != lo; j++)
            if ((uint32_t)r[j] == cls[i])
                at[i] = j;
        if (at[i] < 0 && cls[i] != lo) {
            r[k] = (int32_t)cls[i];
            at[i] = k++;
        }
    }
    const int n = k ? k : 1; /* r[0] = lo when none: sums[0] alone */
    int32_t *buf = malloc(sizeof *buf * 2u * cols);
    if (!buf)
        return PCWT_ERR_OUT_OF_MEMORY;
    int32_t *cur = buf, *prev = buf + cols;
    int64_t sums[4] = {0, 0, 0, 0};
    for (uint32_t y = 0; y < rows; y++) {
        const int32_t *row = plane + (size_t)y * stride;
        for (uint32_t x = 0; x < cols; x++)
            cur[x] = (int32_t)((uint32_t)row[x] & (m - 1u));
        const int32_t *up = y ? prev : NULL;
        if (n == 1)
            row_sums(cur, up, cols, r, 1, (int32_t)m, sums);
        else if (n == 2)
            row_sums(cur, up, cols, r, 2, (int32_t)m, sums);
        else
            row_sums(cur, up, cols, r, 3, (int32_t)m, sums);
        int32_t *t = cur;
        cur = prev;
        prev = t;
    }
    free(buf);
    for (int i = 0; i < 3; i++)
        c[i] = (uint64_t)(sums[0] + (at[i] >= 0 ? sums[1 + at[i]] : 0));
    return PCWT_OK;
}

void pcwt_offset_mark_used(const int32_t *plane, size_t stride, uint32_t rows, uint32_t cols,
                           uint32_t bits, uint8_t *used)
{
    const uint32_t mask = (1u << bits) - 1u;
    for (uint32_t y = 0; y < rows; y++) {
        const int32_t *row = plane + (size_t)y * stride;
        for (uint32_t x = 0; x < cols; x++)
            used[(uint32_t)row[x] & mask] = 1;
    }
}

int pcwt_offset_choose(pcwt_offset_mode mode, const int32_t *plane, size_t stride, uint32_t rows,
                       uint32_t cols, uint32_t bits, int is_signed, const uint8_t *used, uint32_t *r0,
                       pcwt_status *st)
{
    *st = PCWT_OK;
    *r0 = 0;
    if (mode == PCWT_OFFSET_OFF || rows == 0 || cols == 0)
        return 0;
    const uint32_t m = 1u << bits;
    const uint32_t t = pcwt_offset_today(bits, is_signed), f = pcwt_offset_flip(bits, is_signed);
    const uint32_t g = pcwt_offset_gap(used, m);
    /* When F and G split the same pairs as T, all three cost the same (T is chosen) and the pass
     * over the plane is not needed: so for every plane whose values do not wrap round. */
    const uint32_t cls[3] = {split_class(used, m, t), split_class(used, m, f), split_class(used, m, g)};
    const int pass = cls[1] != cls[0] || cls[2] != cls[0];
    uint64_t c[3] = {0, 0, 0};
    if (pass && (*st = costs(plane, stride, rows, cols, m, cls, split_class(used, m, 0), c)) != PCWT_OK)
        return 0;
    return pcwt_offset_decide(mode, t, f, g, c[0], c[1], c[2], r0);
}

void pcwt_offset_apply(int32_t *plane, size_t stride, uint32_t rows, uint32_t cols, uint32_t bits, uint32_t r0)
{
    const uint32_t mask = (1u << bits) - 1u;
    for (uint32_t y = 0; y < rows; y++) {
        int32_t *row = plane + (size_t)y * stride;
        for (uint32_t x = 0; x < cols; x++)
            row[x] = (int32_t)(((uint32_t)row[x] - r0) & mask);
    }
}

int pcwt_offset_undo(int32_t *plane, size_t stride, uint32_t rows, uint32_t cols, uint32_t bits, int is_signed,
                     uint32_t r0)
{
    const int32_t m = (int32_t)(1u << bits);
    for (uint32_t y = 0; y < rows; y++) {
        int32_t *row = plane + (size_t)y * stride;
        for (uint32_t x = 0; x < cols; x++) {
            if (row[x] < 0 || row[x] >= m)
                return 0;
            row[x] = pcwt_offset_value((uint32_t)row[x], r0, bits, is_signed);
        }
    }
    return 1;
}
