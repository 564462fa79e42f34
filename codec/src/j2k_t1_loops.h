/* j2k_t1_loops.h - the three coding passes of j2k_t1_rules.h written as symbol loops: each turn
 * finds the next symbol to decode (in scan order, skipping what the pass does not code), decodes it
 * at the one call of the MQ decoder, and applies it. The symbols, their contexts and their order
 * are the straight passes' (the same coefficients come out); what differs is the shape. On the GPU
 * a warp's threads (each its own code-block) then meet at that one decode every turn, instead of
 * waiting for one another column by column at several decode sites. Included by j2k_t1_rules.h
 * before pcwt_j2k_t1_block. */
#ifndef PCWT_J2K_T1_LOOPS_H
#define PCWT_J2K_T1_LOOPS_H

/* Count of trailing zeros of x != 0. */
static inline PCWT_HD uint32_t pcwt_j2k_ctz(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__ffs((int)x) - 1u;
#else
    return (uint32_t)__builtin_ctz(x);
#endif
}

/* Bit 0 of each 16-bit lane to bits 0-3. */
static inline PCWT_HD uint32_t pcwt_j2k_lanes(uint64_t t)
{
    return (uint32_t)((t | t >> 15 | t >> 30 | t >> 45) & 0xFu);
}

#define PCWT_J2K_LANES 0x0001000100010001ull

/* Advances (x, y0, k) to the next stripe column from (x, y0) at row k = 0; 0 past the last. */
static inline PCWT_HD int pcwt_j2k_next_col(const pcwt_j2k_t1_state *s, uint32_t *x, uint32_t *y0, uint32_t *k)
{
    *k = 0;
    if (++*x == s->w) {
        *x = 0;
        *y0 += 4;
    }
    return *y0 < s->h;
}

/* The significance pass's next candidate (insignificant, not visited, a significant neighbour) at
 * or after (x, y0 + k); 0 when none is left. */
static inline PCWT_HD int pcwt_j2k_sig_next(const pcwt_j2k_t1_state *s, uint32_t *x, uint32_t *y0, uint32_t *k)
{
    while (*y0 < s->h) {
        const uint64_t w = pcwt_j2k_load4(pcwt_j2k_sw(s, *x, *y0));
        const uint64_t nb = ((w & (PCWT_J2K_NB_SIG * PCWT_J2K_LANES)) + 0xFFu * PCWT_J2K_LANES) >> 8;
        const uint64_t done = (w >> 12) | (w >> 14); /* SIG or PI */
        const uint32_t m = pcwt_j2k_lanes(nb & ~done & PCWT_J2K_LANES) >> *k;
        if (m) {
            *k += pcwt_j2k_ctz(m);
            return 1;
        }
        if (!pcwt_j2k_next_col(s, x, y0, k))
            return 0;
    }
    return 0;
}

/* Significance propagation pass (D.3.1) at plane bp: a candidate's zero coding symbol, then, when
 * it becomes significant, its sign, each a turn. */
static inline PCWT_HD void pcwt_j2k_sig_loop(pcwt_j2k_t1_state *sp, uint32_t bp, int raw)
{
    pcwt_j2k_t1_state st = *sp; /* a local copy: the MQ registers stay in registers */
    pcwt_j2k_t1_state *s = &st;
    uint32_t x = 0, y0 = 0, k = 0, sign = 0, n = 0;
    while (sign || pcwt_j2k_sig_next(s, &x, &y0, &k)) {
        uint16_t *f = pcwt_j2k_sw(s, x, y0) + k;
        uint32_t sc = 0, bit;
        if (!sign)
            n = *f;
        else if (!raw)
            sc = s->sc[pcwt_j2k_sc_index(n)];
        if (raw)
            bit = pcwt_j2k_raw_bit(&s->mq);
        else
            bit = pcwt_j2k_mq_decode(&s->mq, &s->cx[sign ? sc & 31u : s->zc[n & PCWT_J2K_NB_SIG]], s->mqt);
        if (sign) {
            s->c[(size_t)(y0 + k) * s->stride + x] = 3u << (bp - 1);
            pcwt_j2k_push(s, x, y0 + k, bit ^ (sc >> 5), PCWT_J2K_F_PI);
            sign = 0;
            ++k;
        } else if (bit) {
            sign = 1;
        } else {
            *f = (uint16_t)(n | PCWT_J2K_F_PI);
            ++k;
        }
    }
    *sp = st;
}

/* The refinement pass's next coefficient (significant, not coded in this plane) at or after
 * (x, y0 + k); 0 when none is left. */
static inline PCWT_HD int pcwt_j2k_ref_next(const pcwt_j2k_t1_state *s, uint32_t *x, uint32_t *y0, uint32_t *k)
{
    while (*y0 < s->h) {
        const uint64_t w = pcwt_j2k_load4(pcwt_j2k_sw(s, *x, *y0));
        const uint32_t m = pcwt_j2k_lanes((w >> 12) & ~(w >> 14) & PCWT_J2K_LANES) >> *k;
        if (m) {
            *k += pcwt_j2k_ctz(m);
            return 1;
        }
        if (!pcwt_j2k_next_col(s, x, y0, k))
            return 0;
    }
    return 0;
}

/* Magnitude refinement pass (D.3.3): a symbol a turn. */
static inline PCWT_HD void pcwt_j2k_ref_loop(pcwt_j2k_t1_state *sp, uint32_t bp, int raw)
{
    pcwt_j2k_t1_state st = *sp;
    pcwt_j2k_t1_state *s = &st;
    const uint32_t half = (1u << bp) >> 1;
    uint32_t x = 0, y0 = 0, k = 0;
    while (pcwt_j2k_ref_next(s, &x, &y0, &k)) {
        uint16_t *f = pcwt_j2k_sw(s, x, y0) + k;
        const uint32_t n = *f;
        uint32_t bit;
        if (raw) {
            bit = pcwt_j2k_raw_bit(&s->mq);
        } else {
            const uint32_t cx = (n & PCWT_J2K_F_MU) ? 2u : (n & PCWT_J2K_NB_SIG) ? 1u : 0u;
            bit = pcwt_j2k_mq_decode(&s->mq, &s->cx[PCWT_J2K_CX_MR + cx], s->mqt);
        }
        uint32_t *c = s->c + (size_t)(y0 + k) * s->stride + x;
        *c = bit ? *c + half : *c - half;
        *f = (uint16_t)(n | PCWT_J2K_F_MU);
        ++k;
    }
    *sp = st;
}

/* What the cleanup loop decodes next. */
enum { PCWT_J2K_CU_ZC, PCWT_J2K_CU_SC, PCWT_J2K_CU_RL, PCWT_J2K_CU_UNI0, PCWT_J2K_CU_UNI1 };

/* The cleanup pass's next symbol at or after (x, y0 + k): the run-length symbol of a full stripe
 * column met at its top with nothing significant, visited or with a significant neighbour, else
 * the zero coding symbol of the next row neither significant nor visited (clearing the visited
 * marks on the way); 0 when none is left. */
static inline PCWT_HD int pcwt_j2k_cleanup_next(const pcwt_j2k_t1_state *s, uint32_t *x, uint32_t *y0, uint32_t *k,
                                                uint32_t *what)
{
    const uint64_t pi = PCWT_J2K_F_PI * PCWT_J2K_LANES;
    while (*y0 < s->h) {
        uint16_t *col = pcwt_j2k_sw(s, *x, *y0);
        const uint64_t w = pcwt_j2k_load4(col);
        const uint32_t rows = s->h - *y0 < 4 ? s->h - *y0 : 4;
        if (*k == 0 && rows == 4 &&
            !(w & ((PCWT_J2K_F_SIG | PCWT_J2K_F_PI | PCWT_J2K_NB_SIG) * PCWT_J2K_LANES))) {
            *what = PCWT_J2K_CU_RL;
            return 1;
        }
        /* rows from k on, inside the code-block: to code (neither mark) and visited */
        const uint32_t live = (0xFu >> (4 - rows)) & (0xFu << *k);
        const uint32_t code = pcwt_j2k_lanes(~((w >> 12) | (w >> 14)) & PCWT_J2K_LANES) & live;
        const uint32_t end = code ? pcwt_j2k_ctz(code) : 4u;
        const uint32_t vis = pcwt_j2k_lanes(w >> 14 & PCWT_J2K_LANES) & live & ((1u << end) - 1u);
        if (vis) { /* the visited marks of the rows passed over */
            uint64_t clear = 0;
            for (uint32_t r = 0; r < 4; ++r)
                if (vis >> r & 1u)
                    clear |= pi & (0xFFFFull << (16 * r));
            pcwt_j2k_store4(col, w & ~clear);
        }
        if (code) {
            *k = end;
            *what = PCWT_J2K_CU_ZC;
            return 1;
        }
        if (!pcwt_j2k_next_col(s, x, y0, k))
            return 0;
    }
    return 0;
}

/* Cleanup pass (D.3.4): a symbol a turn (run-length, the two uniform bits of the first
 * significant row, zero coding, signs), then the segmentation symbol when the style asks. */
static inline PCWT_HD void pcwt_j2k_cleanup_loop(pcwt_j2k_t1_state *sp, uint32_t bp, int segsym)
{
    pcwt_j2k_t1_state st = *sp;
    pcwt_j2k_t1_state *s = &st;
    uint32_t x = 0, y0 = 0, k = 0, n = 0, what = PCWT_J2K_CU_ZC, sc = 0, pending = 0;
    while (pending || pcwt_j2k_cleanup_next(s, &x, &y0, &k, &what)) {
        uint16_t *f = pcwt_j2k_sw(s, x, y0) + k;
        uint32_t cx;
        if (what == PCWT_J2K_CU_ZC) {
            n = *f;
            cx = s->zc[n & PCWT_J2K_NB_SIG];
        } else if (what == PCWT_J2K_CU_SC) {
            sc = s->sc[pcwt_j2k_sc_index(n)];
            cx = sc & 31u;
        } else {
            cx = what == PCWT_J2K_CU_RL ? (uint32_t)PCWT_J2K_CX_RL : (uint32_t)PCWT_J2K_CX_UNI;
        }
        const uint32_t bit = pcwt_j2k_mq_decode(&s->mq, &s->cx[cx], s->mqt);
        pending = 1;
        switch (what) {
        case PCWT_J2K_CU_ZC:
            if (bit)
                what = PCWT_J2K_CU_SC;
            else
                pending = 0, ++k;
            break;
        case PCWT_J2K_CU_SC:
            s->c[(size_t)(y0 + k) * s->stride + x] = 3u << (bp - 1);
            pcwt_j2k_push(s, x, y0 + k, bit ^ (sc >> 5), 0);
            pending = 0;
            ++k;
            break;
        case PCWT_J2K_CU_RL:
            if (bit)
                what = PCWT_J2K_CU_UNI0;
            else
                pending = 0, k = 4; /* the four stay insignificant */
            break;
        case PCWT_J2K_CU_UNI0:
            k = bit << 1;
            what = PCWT_J2K_CU_UNI1;
            break;
        default: /* the second uniform bit: the row whose sign comes next */
            k |= bit;
            n = pcwt_j2k_sw(s, x, y0)[k];
            what = PCWT_J2K_CU_SC;
            break;
        }
    }
    if (segsym)
        for (int i = 0; i < 4; ++i)
            (void)pcwt_j2k_mq_decode(&s->mq, &s->cx[PCWT_J2K_CX_UNI], s->mqt);
    *sp = st;
}

/* Every pass of a code-block in one symbol loop: a turn finds the next symbol of the pass under
 * way (moving on to the next pass, and segment, when it has none), decodes it at the block's one
 * MQ call, applies it. On the GPU a warp's code-blocks then meet at that decode even when one of
 * them has finished a pass that another is still in. The passes, segments and symbols are
 * pcwt_j2k_t1_block's. */
static inline PCWT_HD void pcwt_j2k_t1_merged(pcwt_j2k_t1_state *sp, const pcwt_j2k_cblk *cb,
                                              const pcwt_j2k_seg *segs, const uint8_t *data)
{
    pcwt_j2k_t1_state st = *sp;
    pcwt_j2k_t1_state *s = &st;
    const int planes = (int)cb->mb - (int)cb->zero_msbs;
    const int bypass = (cb->style & PCWT_J2K_STYLE_BYPASS) != 0, reset = (cb->style & PCWT_J2K_STYLE_RESET) != 0;
    const int segsym = (cb->style & PCWT_J2K_STYLE_SEGSYM) != 0;
    int bp = planes, raw = 0;
    uint32_t type = 2, g = 0, left = 0, open = 1; /* cleanup first; passes left in the segment */
    uint32_t x = 0, y0 = 0, k = 0, n = 0, sc = 0, what = PCWT_J2K_CU_ZC, pending = 0;
    for (;;) {
        if (open) { /* a pass starts, in the next segment when this one has no pass left */
            if (!left) {
                while (g < cb->seg_count && segs[cb->seg_first + g].passes == 0)
                    ++g;
                if (g == cb->seg_count)
                    break;
                const pcwt_j2k_seg *seg = &segs[cb->seg_first + g++];
                left = seg->passes;
                raw = bypass && bp <= planes - 4 && type < 2;
                if (raw)
                    pcwt_j2k_raw_init(&s->mq, data + seg->offset, seg->length);
                else
                    pcwt_j2k_mq_init(&s->mq, data + seg->offset, seg->length);
            }
            if (bp < 1)
                break;
            x = y0 = k = 0;
            pending = 0;
            open = 0;
        }
        const int found = pending || (type == 0   ? pcwt_j2k_sig_next(s, &x, &y0, &k)
                                      : type == 1 ? pcwt_j2k_ref_next(s, &x, &y0, &k)
                                                  : pcwt_j2k_cleanup_next(s, &x, &y0, &k, &what));
        if (!found) { /* the pass is over */
            if (type == 2 && segsym)
                for (int i = 0; i < 4; ++i)
                    (void)pcwt_j2k_mq_decode(&s->mq, &s->cx[PCWT_J2K_CX_UNI], s->mqt);
            if (reset && !raw)
                pcwt_j2k_reset_contexts(s->cx);
            if (++type == 3) {
                type = 0;
                --bp;
            }
            --left;
            open = 1;
            continue;
        }
        uint16_t *f = pcwt_j2k_sw(s, x, y0) + k;
        uint32_t cx;
        if (type == 1) {
            n = *f;
            cx = PCWT_J2K_CX_MR + ((n & PCWT_J2K_F_MU) ? 2u : (n & PCWT_J2K_NB_SIG) ? 1u : 0u);
        } else if (type == 0 ? pending : what == PCWT_J2K_CU_SC) {
            sc = raw ? 0u : s->sc[pcwt_j2k_sc_index(n)];
            cx = sc & 31u;
        } else if (type == 0 || what == PCWT_J2K_CU_ZC) {
            n = *f;
            cx = s->zc[n & PCWT_J2K_NB_SIG];
        } else {
            cx = what == PCWT_J2K_CU_RL ? (uint32_t)PCWT_J2K_CX_RL : (uint32_t)PCWT_J2K_CX_UNI;
        }
        const uint32_t bit = raw ? pcwt_j2k_raw_bit(&s->mq) : pcwt_j2k_mq_decode(&s->mq, &s->cx[cx], s->mqt);
        if (type == 1) {
            const uint32_t half = (1u << bp) >> 1;
            uint32_t *c = s->c + (size_t)(y0 + k) * s->stride + x;
            *c = bit ? *c + half : *c - half;
            *f = (uint16_t)(n | PCWT_J2K_F_MU);
            ++k;
        } else if (type == 0 ? pending : what == PCWT_J2K_CU_SC) { /* a sign: significant */
            s->c[(size_t)(y0 + k) * s->stride + x] = 3u << (bp - 1);
            pcwt_j2k_push(s, x, y0 + k, bit ^ (sc >> 5), type == 0 ? PCWT_J2K_F_PI : 0u);
            pending = 0;
            ++k;
        } else if (type == 0) {
            if (bit)
                pending = 1;
            else
                *f = (uint16_t)(n | PCWT_J2K_F_PI), ++k;
        } else {
            pending = 1;
            switch (what) {
            case PCWT_J2K_CU_ZC:
                if (bit)
                    what = PCWT_J2K_CU_SC;
                else
                    pending = 0, ++k;
                break;
            case PCWT_J2K_CU_RL:
                if (bit)
                    what = PCWT_J2K_CU_UNI0;
                else
                    pending = 0, k = 4;
                break;
            case PCWT_J2K_CU_UNI0:
                k = bit << 1;
                what = PCWT_J2K_CU_UNI1;
                break;
            default:
                k |= bit;
                n = pcwt_j2k_sw(s, x, y0)[k];
                what = PCWT_J2K_CU_SC;
                break;
            }
        }
    }
    *sp = st;
}

#endif /* PCWT_J2K_T1_LOOPS_H */
