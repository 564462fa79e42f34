/* jpegls_run.c - JPEG-LS run mode: run lengths and run-interruption samples (T.87, A.7). */
#include "jpegls_run.h"

const uint8_t jls_run_j[32] = {0, 0, 0, 0, 1, 1, 1,  1,  2,  2,  2,  2,  3,  3,  3,  3,
                               4, 4, 5, 5, 6, 6, 7, 7, 8, 9, 10, 11, 12, 13, 14, 15};

void jls_run_length(jls_bitwriter *bw, int32_t *run_index, uint32_t len, int eol)
{
    int32_t ri = *run_index;
    while (len >= (1u << jls_run_j[ri])) {
        jls_bw_put(bw, 1u, 1u);
        len -= 1u << jls_run_j[ri];
        if (ri < 31)
            ri++;
    }
    if (eol) {
        if (len != 0)
            jls_bw_put(bw, 1u, 1u);
    } else {
        /* a 0 bit, then the remainder in J[RUNindex] bits */
        jls_bw_put(bw, len, jls_run_j[ri] + 1u);
    }
    *run_index = ri;
}

/* Codes Errval e of an interruption sample in run context ri_type (A.7.2.2 - A.7.2.4) and
 * updates that context (code segment A.23). */
static void code_interruption_error(const jls_params *p, jls_bitwriter *bw, jls_run_ctx *c,
                                    int32_t ri_type, int32_t e, uint32_t glimit)
{
    const int32_t temp = c->a + (ri_type ? c->n >> 1 : 0);
    uint32_t k = 0;
    while ((c->n << k) < temp)
        k++;
    /* map (code segment A.21) */
    int32_t map;
    if (e < 0)
        map = (k != 0 || 2 * c->nn >= c->n) ? 1 : 0;
    else
        map = (k == 0 && e > 0 && 2 * c->nn < c->n) ? 1 : 0;
    const int32_t abs_e = e < 0 ? -e : e;
    const int32_t em = 2 * abs_e - ri_type - map; /* EMErrval >= 0: e != 0 when RItype is 1 */
    jls_golomb_put(bw, (uint32_t)em, k, glimit, p->qbpp);
    if (e < 0)
        c->nn++;
    c->a += (em + 1 - ri_type) >> 1;
    if (c->n == p->reset) {
        c->a >>= 1;
        c->n >>= 1;
        c->nn >>= 1;
    }
    c->n++;
}

void jls_run_interruption(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw,
                          int32_t run_index, int32_t x, int32_t ra, int32_t rb)
{
    const uint32_t glimit = p->limit - jls_run_j[run_index] - 1u;
    if (ra == rb) {
        code_interruption_error(p, bw, &cx->run[1], 1, jls_mod_range(p, x - ra), glimit);
    } else {
        const int32_t e = rb > ra ? x - rb : rb - x;
        code_interruption_error(p, bw, &cx->run[0], 0, jls_mod_range(p, e), glimit);
    }
}

int32_t jls_run_mode(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw, const int32_t *prev,
                     const int32_t *cur, int32_t i, int32_t width, int32_t *run_index)
{
    const int32_t ra = cur[i - 1];
    int32_t len = 0;
    while (i + len < width && cur[i + len] == ra)
        len++;
    if (i + len == width) {
        jls_run_length(bw, run_index, (uint32_t)len, 1);
        return len;
    }
    jls_run_length(bw, run_index, (uint32_t)len, 0);
    jls_run_interruption(p, cx, bw, *run_index, cur[i + len], ra, prev[i + len]);
    if (*run_index > 0)
        (*run_index)--;
    return len + 1;
}

int32_t jls_run_mode_triplet(const jls_params *p, jls_contexts *cx, jls_bitwriter *bw,
                             const int32_t *const prev[3], const int32_t *const cur[3], int32_t i,
                             int32_t width, int32_t *run_index)
{
    const int32_t ra0 = cur[0][i - 1], ra1 = cur[1][i - 1], ra2 = cur[2][i - 1];
    int32_t len = 0;
    while (i + len < width && cur[0][i + len] == ra0 && cur[1][i + len] == ra1 &&
           cur[2][i + len] == ra2)
        len++;
    if (i + len == width) {
        jls_run_length(bw, run_index, (uint32_t)len, 1);
        return len;
    }
    jls_run_length(bw, run_index, (uint32_t)len, 0);
    const uint32_t glimit = p->limit - jls_run_j[*run_index] - 1u;
    const int32_t j = i + len;
    for (int c = 0; c < 3; c++) {
        const int32_t ra = cur[c][i - 1], rb = prev[c][j], x = cur[c][j];
        const int32_t e = rb >= ra ? x - rb : rb - x;
        code_interruption_error(p, bw, &cx->run[0], 0, jls_mod_range(p, e), glimit);
    }
    if (*run_index > 0)
        (*run_index)--;
    return len + 1;
}
