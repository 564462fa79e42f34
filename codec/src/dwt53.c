/* dwt53.c - B-LDWT+B on the CPU: reversible integer (5,3) lifting (JPEG 2000's filter), rows then
 * columns per level (or columns then rows: header flag bit 3, FORMAT.md Sec. 3.2), with
 * whole-sample symmetric extension (x[-1] = x[1], x[n] = x[n-2]) at every edge. The GPU splits the work into blocks with halos; the result is the same as this whole-row,
 * whole-column reference, which is what makes the two bit-identical. A plane may lift its
 * finest level with 5/11-C instead (5/3 and a third step on the high half, FORMAT.md Sec. 3.4).
 * The lifting steps themselves are dwt53.h's, shared with the GPU. */
#include "dwt53.h"

#include <string.h>

/* Boundary iterations peeled (H[-1] = H[0]; x[n] = x[n-2] when n is even) so that the loops
 * over the interior have no conditions and vectorise. */
void pcwt_dwt53_forward_1d(const int32_t *x, uint32_t n, int32_t *low, int32_t *high)
{
    const uint32_t N = n / 2;
    if (N == 0)
        return;
    for (uint32_t i = 0; i + 1 < N; i++)
        high[i] = pcwt_lift_high(x[2 * i], x[2 * i + 1], x[2 * i + 2]);
    {
        const uint32_t i = N - 1;
        const int32_t right = (2 * i + 2 < n) ? x[2 * i + 2] : x[2 * i];
        high[i] = pcwt_lift_high(x[2 * i], x[2 * i + 1], right);
    }
    low[0] = pcwt_lift_low(x[0], high[0], high[0]);
    for (uint32_t i = 1; i < N; i++)
        low[i] = pcwt_lift_low(x[2 * i], high[i - 1], high[i]);
}

/* One loop that writes each output pair: the even sample of the next pair is computed twice,
 * which costs less than two stride-2 passes that do not vectorise (a small part of a decode). */
void pcwt_dwt53_inverse_1d(const int32_t *low, const int32_t *high, uint32_t n, int32_t *x)
{
    const uint32_t N = n / 2;
    if (N == 0)
        return;
    int32_t e = pcwt_unlift_even(low[0], high[0], high[0]); /* x[2i] of the pair i */
    if (N > 1) {
        const int32_t e1 = pcwt_unlift_even(low[1], high[0], high[1]);
        x[0] = e;
        x[1] = pcwt_unlift_odd(high[0], e, e1);
        for (uint32_t i = 1; i + 1 < N; i++) {
            const int32_t a = pcwt_unlift_even(low[i], high[i - 1], high[i]);
            const int32_t b = pcwt_unlift_even(low[i + 1], high[i], high[i + 1]);
            x[2 * i] = a;
            x[2 * i + 1] = pcwt_unlift_odd(high[i], a, b);
        }
        e = pcwt_unlift_even(low[N - 1], high[N - 2], high[N - 1]);
    }
    {
        const uint32_t i = N - 1;
        x[2 * i] = e;
        const int32_t right = (2 * i + 2 < n) ? x[2 * i + 2] : e;
        x[2 * i + 1] = pcwt_unlift_odd(high[i], e, right);
    }
}

/* Vertical forward over whole rows (cache friendly): a is r x w, lo/hi are br x w. Row i of the
 * low half right after row i of the high half, while the rows it reads are in the cache. */
static void forward_columns(const int32_t *a, uint32_t r, uint32_t w, int32_t *lo, int32_t *hi,
                            uint32_t br)
{
    const uint32_t N = r / 2;
    for (uint32_t i = 0; i < N; i++) {
        const int32_t *e = a + (size_t)(2 * i) * w;
        const int32_t *o = e + w;
        const int32_t *e2 = (2 * i + 2 < r) ? o + w : e;
        int32_t *h = hi + (size_t)i * w;
        for (uint32_t j = 0; j < w; j++)
            h[j] = pcwt_lift_high(e[j], o[j], e2[j]);
        const int32_t *h0 = hi + (size_t)(i ? i - 1 : 0) * w;
        int32_t *l = lo + (size_t)i * w;
        for (uint32_t j = 0; j < w; j++)
            l[j] = pcwt_lift_low(e[j], h0[j], h[j]);
    }
    if (br > N) { /* lazy even padding: one zero row */
        memset(lo + (size_t)N * w, 0, sizeof(int32_t) * w);
        memset(hi + (size_t)N * w, 0, sizeof(int32_t) * w);
    }
}

/* Horizontal forward of r rows of c samples into r rows of bc (low, high), zero padding column. */
static void forward_rows(const int32_t *a, uint32_t r, uint32_t c, int32_t *lo, int32_t *hi,
                         uint32_t bc)
{
    for (uint32_t i = 0; i < r; i++) {
        int32_t *lrow = lo + (size_t)i * bc, *hrow = hi + (size_t)i * bc;
        pcwt_dwt53_forward_1d(a + (size_t)i * c, c, lrow, hrow);
        if (bc > c / 2)
            lrow[c / 2] = hrow[c / 2] = 0;
    }
}

static const int32_t *level_input(const pcwt_pyramid *p, uint32_t l)
{
    return l == 1 ? p->image : p->ll[l - 2];
}

/* 5/11-C's third step on one line: the high half h of N from the low half l (inverse: undone). */
static void step511_line(const int32_t *l, int32_t *h, uint32_t N, int inverse)
{
    uint32_t k = 0;
    while (k < N) {
        if (k == 1 && N > 3) { /* the interior, without reflection */
            if (inverse)
                for (; k + 2 < N; k++)
                    h[k] = pcwt_wsub(h[k], pcwt_c511(l[k - 1], l[k], l[k + 1], l[k + 2]));
            else
                for (; k + 2 < N; k++)
                    h[k] = pcwt_wadd(h[k], pcwt_c511(l[k - 1], l[k], l[k + 1], l[k + 2]));
            continue;
        }
        const int32_t c = pcwt_c511(l[pcwt_refl511((int64_t)k - 1, N)], l[k],
                                    l[pcwt_refl511((int64_t)k + 1, N)],
                                    l[pcwt_refl511((int64_t)k + 2, N)]);
        h[k] = inverse ? pcwt_wsub(h[k], c) : pcwt_wadd(h[k], c);
        k++;
    }
}

/* The same step down the columns: rows k of the high half (N rows of m, at a stride) from rows
 * k-1 .. k+2 of the low half. */
static void step511_columns(const int32_t *l, int32_t *h, uint32_t N, uint32_t m, size_t stride,
                            int inverse)
{
    for (uint32_t k = 0; k < N; k++) {
        const int32_t *a = l + pcwt_refl511((int64_t)k - 1, N) * stride, *b = l + (size_t)k * stride;
        const int32_t *c = l + pcwt_refl511((int64_t)k + 1, N) * stride;
        const int32_t *e = l + pcwt_refl511((int64_t)k + 2, N) * stride;
        int32_t *o = h + (size_t)k * stride;
        if (inverse)
            for (uint32_t j = 0; j < m; j++)
                o[j] = pcwt_wsub(o[j], pcwt_c511(a[j], b[j], c[j], e[j]));
        else
            for (uint32_t j = 0; j < m; j++)
                o[j] = pcwt_wadd(o[j], pcwt_c511(a[j], b[j], c[j], e[j]));
    }
}

/* The step on each of n rows of two arrays (low and high halves of a row pass, at a stride). */
static void step511_rows(const int32_t *l, int32_t *h, uint32_t n, uint32_t N, size_t stride,
                         int inverse)
{
    for (uint32_t i = 0; i < n; i++)
        step511_line(l + (size_t)i * stride, h + (size_t)i * stride, N, inverse);
}

/* Rows first (B-LDWT+B's order): the row halves are r x bc, their columns give LL, LH (row-low)
 * and HL, HH (row-high). Columns first (JPEG 2000's order): the column halves are br x c, their
 * rows give LL, HL (column-low) and LH, HH (column-high). Integer rounding makes the two differ. */
static void forward_level(pcwt_pyramid *p, uint32_t l, int columns_first, int f511)
{
    const uint32_t L = p->plan.levels;
    {
        const pcwt_level_size *s = &p->plan.lv[l - 1];
        const uint32_t r = s->level_r, c = s->level_c, br = s->band_r, bc = s->band_c;
        const int32_t *x = level_input(p, l);
        int32_t *ll = p->ll[l - 1], *hl = p->band[pcwt_band_index(L, l, 0)].coef;
        int32_t *lh = p->band[pcwt_band_index(L, l, 1)].coef;
        int32_t *hh = p->band[pcwt_band_index(L, l, 2)].coef;
        if (columns_first) {
            int32_t *lo = p->tmp, *hi = p->tmp + (size_t)br * c;
            forward_columns(x, r, c, lo, hi, br);
            if (f511)
                step511_columns(lo, hi, r / 2, c, c, 0);
            forward_rows(lo, br, c, ll, hl, bc);
            forward_rows(hi, br, c, lh, hh, bc);
            if (f511) {
                step511_rows(ll, hl, r / 2, c / 2, bc, 0);
                step511_rows(lh, hh, r / 2, c / 2, bc, 0);
            }
        } else {
            int32_t *lo = p->tmp, *hi = p->tmp + (size_t)r * bc;
            forward_rows(x, r, c, lo, hi, bc);
            if (f511)
                step511_rows(lo, hi, r, c / 2, bc, 0);
            forward_columns(lo, r, bc, ll, lh, br);
            forward_columns(hi, r, bc, hl, hh, br);
            if (f511) {
                step511_columns(ll, lh, r / 2, c / 2, bc, 0);
                step511_columns(hl, hh, r / 2, c / 2, bc, 0);
            }
        }
    }
}

void pcwt_dwt53_forward(pcwt_pyramid *p, int columns_first, int level1_511)
{
    for (uint32_t l = 1; l <= p->plan.levels; l++)
        forward_level(p, l, columns_first, l == 1 && level1_511);
}

void pcwt_dwt53_forward_level1(pcwt_pyramid *p, int columns_first, int level1_511)
{
    if (p->plan.levels)
        forward_level(p, 1, columns_first, level1_511);
}

void pcwt_dwt53_forward_above(pcwt_pyramid *p, int columns_first)
{
    for (uint32_t l = 2; l <= p->plan.levels; l++)
        forward_level(p, l, columns_first, 0);
}

uint64_t pcwt_bit_cost_sum(const int32_t *c, size_t n)
{
    /* floor(log2 a) summed over a | 1 (0 for a = 0), and 2 for each a != 0 */
    uint64_t logs = 0, nonzero = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t a = pcwt_magnitude(c[i]);
        logs += 31u ^ (uint32_t)__builtin_clz(a | 1u); /* floor(log2), bsr on x86 */
        nonzero += a != 0;
    }
    return logs + 2u * nonzero;
}

/* HL' is HL with the rows' step from LL; LH' and HH' are the rows of the column-high half with
 * the columns' step from the column-low half, lifted with 5/3 and the rows' step (forward_level
 * with f511, a row at a time). The bands' padding is 0 either way. */
uint64_t pcwt_dwt511_level1_cost(const pcwt_pyramid *p, int32_t *row)
{
    const pcwt_level_size *s = &p->plan.lv[0];
    const uint32_t c = s->level_c, bc = s->band_c, N = s->level_r / 2, m = c / 2;
    const int32_t *ll = p->ll[0], *hl = p->band[pcwt_band_index(p->plan.levels, 1, 0)].coef;
    const int32_t *lo = p->tmp, *hi = p->tmp + (size_t)s->band_r * c;
    int32_t *h = row, *lh = row + c, *hh = row + c + m;
    uint64_t n = 0;
    for (uint32_t i = 0; i < N; i++) {
        memcpy(h, hl + (size_t)i * bc, sizeof(int32_t) * m);
        step511_line(ll + (size_t)i * bc, h, m, 0);
        n += pcwt_bit_cost_sum(h, m);
        const int32_t *a = lo + pcwt_refl511((int64_t)i - 1, N) * c, *b = lo + (size_t)i * c;
        const int32_t *d = lo + pcwt_refl511((int64_t)i + 1, N) * c;
        const int32_t *e = lo + pcwt_refl511((int64_t)i + 2, N) * c, *x = hi + (size_t)i * c;
        for (uint32_t j = 0; j < c; j++)
            h[j] = pcwt_wadd(x[j], pcwt_c511(a[j], b[j], d[j], e[j]));
        pcwt_dwt53_forward_1d(h, c, lh, hh);
        step511_line(lh, hh, m, 0);
        n += pcwt_bit_cost_sum(lh, 2 * (size_t)m); /* lh and hh, m each */
    }
    return n;
}

/* The inverse's vertical steps on one row: the even row e_i = l_i - floor((h_{i-1} + h_i + 2) / 4)
 * and the odd row o_i = h_i + floor((e_i + e_{i+1}) / 2), m columns. */
static void inverse_even_row(const int32_t *l, const int32_t *h0, const int32_t *h1, uint32_t m,
                             int32_t *e)
{
    for (uint32_t j = 0; j < m; j++)
        e[j] = pcwt_unlift_even(l[j], h0[j], h1[j]);
}

static void inverse_odd_row(const int32_t *h, const int32_t *e, const int32_t *e2, uint32_t m,
                            int32_t *o)
{
    for (uint32_t j = 0; j < m; j++)
        o[j] = pcwt_unlift_odd(h[j], e[j], e2[j]);
}

/* Rows first: the column-inverse halves (from LL, LH and from HL, HH) a row pair at a time, each
 * row then inverted horizontally into x; the scratch holds e_i, e_{i+1} and o_i of each half
 * (6 rows of c/2), so the halves never exist as whole planes. */
static void inverse_level_rows_first(const int32_t *ll, const int32_t *lh, const int32_t *hl,
                                     const int32_t *hh, uint32_t bc, uint32_t r, uint32_t c,
                                     int32_t *x, int32_t *tmp, int f511)
{
    const uint32_t N = r / 2, m = c / 2;
    int32_t *fix = tmp + 6 * (size_t)m; /* 5/11-C: a row-high row with its third step undone */
    int32_t *le[2] = {tmp, tmp + m}, *lo = tmp + 2 * (size_t)m;
    int32_t *he[2] = {tmp + 3 * (size_t)m, tmp + 4 * (size_t)m}, *ho = tmp + 5 * (size_t)m;
    inverse_even_row(ll, lh, lh, m, le[0]);
    inverse_even_row(hl, hh, hh, m, he[0]);
    for (uint32_t i = 0; i < N; i++) {
        const int32_t *lei = le[i & 1], *hei = he[i & 1], *len = lei, *hen = hei;
        const size_t at = (size_t)i * bc;
        if (i + 1 < N) {
            inverse_even_row(ll + at + bc, lh + at, lh + at + bc, m, le[(i + 1) & 1]);
            inverse_even_row(hl + at + bc, hh + at, hh + at + bc, m, he[(i + 1) & 1]);
            len = le[(i + 1) & 1];
            hen = he[(i + 1) & 1];
        }
        inverse_odd_row(lh + at, lei, len, m, lo);
        inverse_odd_row(hh + at, hei, hen, m, ho);
        if (f511) {
            memcpy(fix, hei, sizeof(int32_t) * m);
            step511_line(lei, fix, m, 1);
            hei = fix;
            step511_line(lo, ho, m, 1); /* ho is not read again */
        }
        pcwt_dwt53_inverse_1d(lei, hei, c, x + (size_t)(2 * i) * c);
        pcwt_dwt53_inverse_1d(lo, ho, c, x + (size_t)(2 * i + 1) * c);
    }
}

/* Columns first: the row-inverse halves (from LL, HL and from LH, HH; only the first r/2 rows of
 * the bands are not padding) a row at a time, their column inverse written straight into x, the
 * even row 2i+2 before the odd row 2i+1 that needs it; the scratch holds two high rows and a low
 * one (3 rows of c). */
static void inverse_level_cols_first(const int32_t *ll, const int32_t *hl, const int32_t *lh,
                                     const int32_t *hh, uint32_t bc, uint32_t r, uint32_t c,
                                     int32_t *x, int32_t *tmp)
{
    const uint32_t N = r / 2;
    int32_t *h[2] = {tmp, tmp + c}, *l = tmp + 2 * (size_t)c;
    pcwt_dwt53_inverse_1d(lh, hh, c, h[0]);
    pcwt_dwt53_inverse_1d(ll, hl, c, l);
    inverse_even_row(l, h[0], h[0], c, x);
    for (uint32_t i = 0; i < N; i++) {
        const int32_t *hi = h[i & 1];
        int32_t *e = x + (size_t)(2 * i) * c, *o = e + c;
        const int32_t *e2 = e;
        if (i + 1 < N) {
            const size_t at = (size_t)(i + 1) * bc;
            pcwt_dwt53_inverse_1d(lh + at, hh + at, c, h[(i + 1) & 1]);
            pcwt_dwt53_inverse_1d(ll + at, hl + at, c, l);
            inverse_even_row(l, hi, h[(i + 1) & 1], c, o + c);
            e2 = o + c;
        }
        inverse_odd_row(hi, e, e2, c, o);
    }
}

/* Columns first with 5/11-C: the row inverses of the low half (from LL, HL) run up to two rows
 * ahead of the high half's (from LH, HH), whose column step needs low rows t-1 .. t+2; the
 * scratch holds four low rows (lo[k & 3]) and two high ones (6 rows of c). The rows' own third
 * step was undone in the bands beforehand. */
typedef struct cols511 {
    const int32_t *ll, *hl, *lh, *hh;
    uint32_t bc, N, c, made; /* made: low rows 0 .. made-1 done */
    int32_t *h[2], *lo[4];
} cols511;

/* High row t (into h[t & 1]), the low rows it needs made first. */
static void high_row_511(cols511 *s, uint32_t t)
{
    const uint32_t want = t + 3 < s->N ? t + 3 : s->N, c = s->c;
    for (; s->made < want; s->made++)
        pcwt_dwt53_inverse_1d(s->ll + (size_t)s->made * s->bc, s->hl + (size_t)s->made * s->bc, c,
                              s->lo[s->made & 3]);
    int32_t *ht = s->h[t & 1];
    pcwt_dwt53_inverse_1d(s->lh + (size_t)t * s->bc, s->hh + (size_t)t * s->bc, c, ht);
    const int32_t *a = s->lo[pcwt_refl511((int64_t)t - 1, s->N) & 3], *b = s->lo[t & 3];
    const int32_t *d = s->lo[pcwt_refl511((int64_t)t + 1, s->N) & 3];
    const int32_t *e = s->lo[pcwt_refl511((int64_t)t + 2, s->N) & 3];
    for (uint32_t k = 0; k < c; k++)
        ht[k] = pcwt_wsub(ht[k], pcwt_c511(a[k], b[k], d[k], e[k]));
}

static void inverse_level_cols_first_511(const int32_t *ll, const int32_t *hl, const int32_t *lh,
                                         const int32_t *hh, uint32_t bc, uint32_t r, uint32_t c,
                                         int32_t *x, int32_t *tmp)
{
    cols511 s = {ll, hl, lh, hh, bc, r / 2, c, 0, {tmp, tmp + c},
                 {tmp + 2 * (size_t)c, tmp + 3 * (size_t)c, tmp + 4 * (size_t)c, tmp + 5 * (size_t)c}};
    const uint32_t N = r / 2;
    high_row_511(&s, 0);
    inverse_even_row(s.lo[0], s.h[0], s.h[0], c, x);
    for (uint32_t i = 0; i < N; i++) {
        const int32_t *hi = s.h[i & 1];
        int32_t *e = x + (size_t)(2 * i) * c, *o = e + c;
        const int32_t *e2 = e;
        if (i + 1 < N) {
            high_row_511(&s, i + 1);
            inverse_even_row(s.lo[(i + 1) & 3], hi, s.h[(i + 1) & 1], c, o + c);
            e2 = o + c;
        }
        inverse_odd_row(hi, e, e2, c, o);
    }
}

void pcwt_dwt53_inverse(pcwt_pyramid *p, int columns_first, int level1_511)
{
    const uint32_t L = p->plan.levels;
    for (uint32_t l = L; l >= 1; l--) {
        const pcwt_level_size *s = &p->plan.lv[l - 1];
        int32_t *x = (int32_t *)level_input(p, l);
        const int32_t *ll = p->ll[l - 1], *hl = p->band[pcwt_band_index(L, l, 0)].coef;
        const int32_t *lh = p->band[pcwt_band_index(L, l, 1)].coef;
        const int32_t *hh = p->band[pcwt_band_index(L, l, 2)].coef;
        const int f511 = l == 1 && level1_511;
        const uint32_t N = s->level_r / 2, m = s->level_c / 2, bc = s->band_c;
        /* 5/11-C: the third step of the last pass of the forward is undone in the bands */
        if (f511 && columns_first) {
            step511_rows(ll, (int32_t *)hl, N, m, bc, 1);
            step511_rows(lh, (int32_t *)hh, N, m, bc, 1);
            inverse_level_cols_first_511(ll, hl, lh, hh, bc, s->level_r, s->level_c, x, p->tmp);
        } else if (columns_first) {
            inverse_level_cols_first(ll, hl, lh, hh, bc, s->level_r, s->level_c, x, p->tmp);
        } else {
            if (f511) {
                step511_columns(ll, (int32_t *)lh, N, m, bc, 1);
                step511_columns(hl, (int32_t *)hh, N, m, bc, 1);
            }
            inverse_level_rows_first(ll, lh, hl, hh, bc, s->level_r, s->level_c, x, p->tmp, f511);
        }
    }
}
