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

/* The costs of the candidates r[0..n-1] over the plane's pairs of left and upper neighbours. */
static void costs(const int32_t *plane, size_t stride, uint32_t rows, uint32_t cols, uint32_t m,
                  const uint32_t *r, uint32_t n, uint64_t *c)
{
    const uint32_t mask = m - 1u;
    for (uint32_t k = 0; k < n; k++)
        c[k] = 0;
    for (uint32_t y = 0; y < rows; y++) {
        const int32_t *row = plane + (size_t)y * stride;
        const int32_t *up = y ? row - stride : NULL;
        for (uint32_t x = 0; x < cols; x++) {
            const uint32_t a = (uint32_t)row[x] & mask;
            for (uint32_t k = 0; k < n; k++) {
                if (x)
                    c[k] += pcwt_offset_pair_cost(a, (uint32_t)row[x - 1] & mask, r[k], m);
                if (up)
                    c[k] += pcwt_offset_pair_cost(a, (uint32_t)up[x] & mask, r[k], m);
            }
        }
    }
}

int pcwt_offset_choose(pcwt_offset_mode mode, const int32_t *plane, size_t stride, uint32_t rows,
                       uint32_t cols, uint32_t bits, int is_signed, uint32_t *r0, pcwt_status *st)
{
    *st = PCWT_OK;
    *r0 = 0;
    if (mode == PCWT_OFFSET_OFF || rows == 0 || cols == 0)
        return 0;
    const uint32_t m = 1u << bits, mask = m - 1u;
    uint8_t *used = calloc(m, 1);
    if (!used) {
        *st = PCWT_ERR_OUT_OF_MEMORY;
        return 0;
    }
    for (uint32_t y = 0; y < rows; y++) {
        const int32_t *row = plane + (size_t)y * stride;
        for (uint32_t x = 0; x < cols; x++)
            used[(uint32_t)row[x] & mask] = 1;
    }
    const uint32_t t = pcwt_offset_today(bits, is_signed), f = pcwt_offset_flip(bits, is_signed);
    const uint32_t g = pcwt_offset_gap(used, m);
    /* Only the candidates that split other pairs than T need the pass over the plane (most planes:
     * none); the others cost exactly what T costs. */
    const uint32_t ct = split_class(used, m, t), cf = split_class(used, m, f), cg = split_class(used, m, g);
    free(used);
    uint32_t r[3] = {t, 0, 0}, n = 1;
    if (cf != ct)
        r[n++] = f;
    if (cg != ct && cg != cf)
        r[n++] = g;
    uint64_t c[3] = {0, 0, 0};
    if (n > 1)
        costs(plane, stride, rows, cols, m, r, n, c);
    const uint64_t cost_f = cf == ct ? c[0] : c[1];
    const uint64_t cost_g = cg == ct ? c[0] : cg == cf ? cost_f : c[n - 1];
    return pcwt_offset_decide(mode, t, f, g, c[0], cost_f, cost_g, r0);
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
