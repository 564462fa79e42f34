/* dwt53.c - B-LDWT+B on the CPU: reversible integer (5,3) lifting (JPEG 2000's filter), rows then
 * columns per level (or columns then rows: header flag bit 3, FORMAT.md Sec. 3.2), with
 * whole-sample symmetric extension (x[-1] = x[1], x[n] = x[n-2]) at every edge. The GPU splits the work into blocks with halos; the result is the same as this whole-row,
 * whole-column reference, which is what makes the two bit-identical.
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

/* Vertical forward over whole rows (cache friendly): a is r x w, lo/hi are br x w. */
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
    }
    for (uint32_t i = 0; i < N; i++) {
        const int32_t *e = a + (size_t)(2 * i) * w;
        const int32_t *h0 = hi + (size_t)(i ? i - 1 : 0) * w;
        const int32_t *h1 = hi + (size_t)i * w;
        int32_t *l = lo + (size_t)i * w;
        for (uint32_t j = 0; j < w; j++)
            l[j] = pcwt_lift_low(e[j], h0[j], h1[j]);
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

/* Rows first (B-LDWT+B's order): the row halves are r x bc, their columns give LL, LH (row-low)
 * and HL, HH (row-high). Columns first (JPEG 2000's order): the column halves are br x c, their
 * rows give LL, HL (column-low) and LH, HH (column-high). Integer rounding makes the two differ. */
void pcwt_dwt53_forward(pcwt_pyramid *p, int columns_first)
{
    const uint32_t L = p->plan.levels;
    for (uint32_t l = 1; l <= L; l++) {
        const pcwt_level_size *s = &p->plan.lv[l - 1];
        const uint32_t r = s->level_r, c = s->level_c, br = s->band_r, bc = s->band_c;
        const int32_t *x = level_input(p, l);
        int32_t *ll = p->ll[l - 1], *hl = p->band[pcwt_band_index(L, l, 0)].coef;
        int32_t *lh = p->band[pcwt_band_index(L, l, 1)].coef;
        int32_t *hh = p->band[pcwt_band_index(L, l, 2)].coef;
        if (columns_first) {
            int32_t *lo = p->tmp, *hi = p->tmp + (size_t)br * c;
            forward_columns(x, r, c, lo, hi, br);
            forward_rows(lo, br, c, ll, hl, bc);
            forward_rows(hi, br, c, lh, hh, bc);
        } else {
            int32_t *lo = p->tmp, *hi = p->tmp + (size_t)r * bc;
            forward_rows(x, r, c, lo, hi, bc);
            forward_columns(lo, r, bc, ll, lh, br);
            forward_columns(hi, r, bc, hl, hh, br);
        }
    }
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
                                     int32_t *x, int32_t *tmp)
{
    const uint32_t N = r / 2, m = c / 2;
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

void pcwt_dwt53_inverse(pcwt_pyramid *p, int columns_first)
{
    const uint32_t L = p->plan.levels;
    for (uint32_t l = L; l >= 1; l--) {
        const pcwt_level_size *s = &p->plan.lv[l - 1];
        int32_t *x = (int32_t *)level_input(p, l);
        const int32_t *ll = p->ll[l - 1], *hl = p->band[pcwt_band_index(L, l, 0)].coef;
        const int32_t *lh = p->band[pcwt_band_index(L, l, 1)].coef;
        const int32_t *hh = p->band[pcwt_band_index(L, l, 2)].coef;
        if (columns_first)
            inverse_level_cols_first(ll, hl, lh, hh, s->band_c, s->level_r, s->level_c, x, p->tmp);
        else
            inverse_level_rows_first(ll, lh, hl, hh, s->band_c, s->level_r, s->level_c, x, p->tmp);
    }
}
