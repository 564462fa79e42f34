/* jpegls_context.c - coding parameters, the gradient quantisation table and context
 * initialisation for JPEG-LS lossless coding (T.87, A.2 and C.2.4.1.1). */
#include "jpegls_context.h"

#include <stdlib.h>

/* CLAMP(i, j) of C.2.4.1.1.1: j when i is above MAXVAL or below j, else i. */
static int32_t clamp_threshold(int32_t i, int32_t j, int32_t maxval)
{
    return (i > maxval || i < j) ? j : i;
}

void jls_default_thresholds(int32_t maxval, int32_t *t1, int32_t *t2, int32_t *t3)
{
    /* Basic thresholds for 8-bit samples: T1 = 3, T2 = 7, T3 = 21. */
    if (maxval >= 128) {
        const int32_t factor = ((maxval < 4095 ? maxval : 4095) + 128) / 256;
        *t1 = clamp_threshold(factor * (3 - 2) + 2, 1, maxval);
        *t2 = clamp_threshold(factor * (7 - 3) + 3, *t1, maxval);
        *t3 = clamp_threshold(factor * (21 - 4) + 4, *t2, maxval);
    } else {
        const int32_t factor = 256 / (maxval + 1);
        const int32_t a = 3 / factor, b = 7 / factor, c = 21 / factor;
        *t1 = clamp_threshold(a > 2 ? a : 2, 1, maxval);
        *t2 = clamp_threshold(b > 3 ? b : 3, *t1, maxval);
        *t3 = clamp_threshold(c > 4 ? c : 4, *t2, maxval);
    }
}

size_t jls_qlut_size(int32_t bits) { return 2u * ((size_t)1 << bits) - 1u; }

/* Quantisation of one gradient (A.3.3, code segment A.4, NEAR = 0). */
static int8_t quantize(int32_t d, int32_t t1, int32_t t2, int32_t t3)
{
    if (d <= -t3)
        return -4;
    if (d <= -t2)
        return -3;
    if (d <= -t1)
        return -2;
    if (d < 0)
        return -1;
    if (d == 0)
        return 0;
    if (d < t1)
        return 1;
    if (d < t2)
        return 2;
    if (d < t3)
        return 3;
    return 4;
}

void jls_params_init(jls_params *p, int32_t bits, int8_t *lut_storage)
{
    p->bits = bits;
    p->maxval = (int32_t)((1u << bits) - 1u);
    p->range = p->maxval + 1;
    p->qbpp = (uint32_t)bits;
    const uint32_t bpp = bits < 2 ? 2u : (uint32_t)bits;
    p->limit = 2u * (bpp + (bpp > 8u ? bpp : 8u));
    jls_default_thresholds(p->maxval, &p->t1, &p->t2, &p->t3);
    p->reset = JLS_DEFAULT_RESET;
    p->a_init = (p->range + 32) / 64 > 2 ? (p->range + 32) / 64 : 2;
    p->qlut = NULL;
    if (!lut_storage)
        return;
    /* Gradients lie in -(RANGE - 1) .. RANGE - 1: centre the table on entry RANGE - 1. */
    int8_t *centre = lut_storage + (p->range - 1);
    for (int32_t d = -(p->range - 1); d <= p->range - 1; d++)
        centre[d] = quantize(d, p->t1, p->t2, p->t3);
    p->qlut = centre;
}

int jls_params_init_cached(jls_params *p, int32_t bits, jls_qlut_cache *cache)
{
    if (cache->bits == bits && cache->storage) {
        jls_params_init(p, bits, NULL);
        p->qlut = cache->storage + (p->range - 1);
        return 1;
    }
    int8_t *storage = (int8_t *)realloc(cache->storage, jls_qlut_size(bits));
    if (!storage)
        return 0;
    cache->storage = storage;
    jls_params_init(p, bits, storage);
    cache->bits = bits;
    return 1;
}

void jls_qlut_cache_free(jls_qlut_cache *cache)
{
    free(cache->storage);
    cache->storage = NULL;
    cache->bits = 0;
}

void jls_contexts_reset(jls_contexts *cx, const jls_params *p)
{
    for (int i = 0; i < JLS_REGULAR_CONTEXTS; i++) {
        cx->reg[i].a = p->a_init;
        cx->reg[i].b = 0;
        cx->reg[i].c = 0;
        cx->reg[i].n = 1;
    }
    for (int i = 0; i < 2; i++) {
        cx->run[i].a = p->a_init;
        cx->run[i].n = 1;
        cx->run[i].nn = 0;
    }
}
