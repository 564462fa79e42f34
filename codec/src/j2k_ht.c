/* j2k_ht.c - the CPU HTJ2K block decoder: the checks and messages around j2k_ht_rules.h. */
#include "j2k_ht.h"

#include "j2k_ht_rules.h"
#include "j2k_ht_vlc.h"
#include "status.h"

static const uint16_t vlc_lut[2048] = PCWT_J2K_HT_VLC_LUT_INIT;

pcwt_status pcwt_j2k_ht_decode(const pcwt_j2k_batch *b, size_t index, int32_t *coefs, void *scratch,
                               char *err, size_t err_size)
{
    if (!b || !coefs || !scratch || index >= b->cblk_count) {
        pcwt_set_error(err, err_size, "HTJ2K: no code-block %zu", index);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    const pcwt_j2k_cblk *cb = &b->cblks[index];
    int r = pcwt_j2k_ht_check(cb, b->segs, b->seg_count, b->data_size, b->coef_count);
    if (r == PCWT_J2K_HT_OK)
        r = pcwt_j2k_ht_block(cb, b->segs, b->data, coefs, (uint8_t *)scratch, vlc_lut);
    switch (r) {
    case PCWT_J2K_HT_OK:
        return PCWT_OK;
    case PCWT_J2K_HT_MANY_PASSES:
        pcwt_set_error(err, err_size, "HTJ2K: code-block %zu has %u coding passes (more than one HT set is not supported)",
                       index, cb->passes);
        return PCWT_ERR_UNSUPPORTED;
    case PCWT_J2K_HT_MANY_PLANES:
        pcwt_set_error(err, err_size, "HTJ2K: code-block %zu has Mb %u (at most 30 supported)", index, (unsigned)cb->mb);
        return PCWT_ERR_UNSUPPORTED;
    case PCWT_J2K_HT_BAD_RECT:
        pcwt_set_error(err, err_size, "corrupt HTJ2K: code-block %zu (%ux%u) lies outside its tile-component", index,
                       (unsigned)cb->width, (unsigned)cb->height);
        return PCWT_ERR_CORRUPT;
    case PCWT_J2K_HT_BAD_SEGS:
        pcwt_set_error(err, err_size, "corrupt HTJ2K: code-block %zu: codeword segments inconsistent", index);
        return PCWT_ERR_CORRUPT;
    case PCWT_J2K_HT_BAD_PLANES:
        pcwt_set_error(err, err_size, "corrupt HTJ2K: code-block %zu: %u missing bit-planes for Mb %u", index,
                       (unsigned)cb->zero_msbs, (unsigned)cb->mb);
        return PCWT_ERR_CORRUPT;
    case PCWT_J2K_HT_BAD_LENGTHS:
        pcwt_set_error(err, err_size, "corrupt HTJ2K: code-block %zu: cleanup segment shorter than 2 bytes", index);
        return PCWT_ERR_CORRUPT;
    case PCWT_J2K_HT_BAD_SCUP:
        pcwt_set_error(err, err_size, "corrupt HTJ2K: code-block %zu: Scup outside 2..min(Lcup, 4079)", index);
        return PCWT_ERR_CORRUPT;
    case PCWT_J2K_HT_BAD_U:
        pcwt_set_error(err, err_size, "corrupt HTJ2K: code-block %zu: an exponent bound above its bit-planes", index);
        return PCWT_ERR_CORRUPT;
    default:
        pcwt_set_error(err, err_size, "corrupt HTJ2K: code-block %zu: a significant sample outside the code-block", index);
        return PCWT_ERR_CORRUPT;
    }
}
