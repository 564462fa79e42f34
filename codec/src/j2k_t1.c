/* j2k_t1.c - the CPU tier-1 decoder of JPEG 2000 Part 1 code-blocks: the checks and messages
 * around the shared decoder of j2k_t1_rules.h (the GPU runs the same one). */
#include "j2k_t1.h"

#include "j2k_ht.h"
#include "j2k_t1_rules.h"
#include "status.h"

static const uint32_t mq_table[PCWT_J2K_MQ_STATES] = PCWT_J2K_MQ_TABLE_INIT;

pcwt_status pcwt_j2k_t1_decode(const pcwt_j2k_batch *b, size_t index, int32_t *coefs,
                               void *scratch, char *err, size_t err_size)
{
    if (!b || !coefs || !scratch || index >= b->cblk_count) {
        pcwt_set_error(err, err_size, "JPEG 2000 tier-1: no code-block %zu", index);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    const pcwt_j2k_cblk *cb = &b->cblks[index];
    const int r = pcwt_j2k_t1_check(cb, b->segs, b->seg_count, b->data_size, b->coef_count);
    switch (r) {
    case PCWT_J2K_T1_OK:
        break;
    case PCWT_J2K_T1_HT:
        return pcwt_j2k_ht_decode(b, index, coefs, scratch, err, err_size);
    case PCWT_J2K_T1_MANY_PLANES:
        pcwt_set_error(err, err_size, "JPEG 2000: code-block %zu has %d magnitude bit-planes (at most %u supported)",
                       index, (int)cb->mb - (int)cb->zero_msbs, PCWT_J2K_MAX_PLANES);
        return PCWT_ERR_UNSUPPORTED;
    case PCWT_J2K_T1_BAD_RECT:
        pcwt_set_error(err, err_size, "corrupt JPEG 2000: code-block %zu (%ux%u) lies outside its tile-component",
                       index, (unsigned)cb->width, (unsigned)cb->height);
        return PCWT_ERR_CORRUPT;
    case PCWT_J2K_T1_BAD_SEGS:
        pcwt_set_error(err, err_size, "corrupt JPEG 2000: code-block %zu: codeword segments inconsistent", index);
        return PCWT_ERR_CORRUPT;
    case PCWT_J2K_T1_BAD_ORIENT:
        pcwt_set_error(err, err_size, "corrupt JPEG 2000: code-block %zu: sub-band %u", index,
                       (unsigned)cb->orientation);
        return PCWT_ERR_CORRUPT;
    default:
        pcwt_set_error(err, err_size,
                       "corrupt JPEG 2000: code-block %zu: %u coding passes for Mb %u with %u missing bit-planes",
                       index, cb->passes, (unsigned)cb->mb, (unsigned)cb->zero_msbs);
        return PCWT_ERR_CORRUPT;
    }
    /* the tables this code-block reads (the zero coding ones of its orientation alone) */
    pcwt_j2k_t1_luts luts;
    for (uint32_t i = 0; i < 2 * PCWT_J2K_MQ_STATES; ++i)
        luts.mq[i] = pcwt_j2k_mq_lut(mq_table, i);
    for (uint32_t i = 0; i < 256; ++i) {
        luts.zc[cb->orientation][i] = (uint8_t)pcwt_j2k_zc_ctx(i, cb->orientation);
        luts.sc[i] = pcwt_j2k_sc_lut(i);
    }
    uint8_t cx[PCWT_J2K_CONTEXTS];
    /* the state words (at most 4 * 1024 + 3 * 1024 of them) at the start of the scratch */
    pcwt_j2k_t1_block(cb, b->segs, b->data, coefs, (uint16_t *)scratch, &luts, cx);
    return PCWT_OK;
}
