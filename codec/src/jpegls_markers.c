/* jpegls_markers.c - JPEG-LS marker segments, byte for byte as CharLS 2.4.1 writes them. */
#include "jpegls_markers.h"

static void put8(uint8_t *dst, size_t *pos, uint32_t v) { dst[(*pos)++] = (uint8_t)v; }

static void put16(uint8_t *dst, size_t *pos, uint32_t v)
{
    put8(dst, pos, (v >> 8) & 0xFFu);
    put8(dst, pos, v & 0xFFu);
}

/* Checks the room for a segment of size bytes and writes its marker and, when it has one, its
 * length field (size - 2). */
static int begin_segment(uint8_t *dst, size_t cap, size_t *pos, uint32_t marker, size_t size)
{
    if (*pos > cap || cap - *pos < size)
        return 0;
    put8(dst, pos, 0xFFu);
    put8(dst, pos, marker);
    if (size > 2u)
        put16(dst, pos, (uint32_t)(size - 2u));
    return 1;
}

int jls_write_marker(uint8_t *dst, size_t cap, size_t *pos, uint32_t marker)
{
    return begin_segment(dst, cap, pos, marker, 2u);
}

int jls_write_sof(uint8_t *dst, size_t cap, size_t *pos, uint32_t bits, uint32_t width,
                  uint32_t height, uint32_t components)
{
    if (!begin_segment(dst, cap, pos, JLS_MARKER_SOF55, jls_sof_size(components)))
        return 0;
    put8(dst, pos, bits);
    put16(dst, pos, height);
    put16(dst, pos, width);
    put8(dst, pos, components);
    for (uint32_t c = 1; c <= components; c++) {
        put8(dst, pos, c);    /* component identifier */
        put8(dst, pos, 0x11); /* H = V = 1 */
        put8(dst, pos, 0);    /* Tq (0 in JPEG-LS) */
    }
    return 1;
}

int jls_write_lse_preset(uint8_t *dst, size_t cap, size_t *pos, const jls_params *p)
{
    if (!begin_segment(dst, cap, pos, JLS_MARKER_LSE, JLS_LSE_PRESET_SIZE))
        return 0;
    put8(dst, pos, 1); /* ID 1: preset coding parameters */
    put16(dst, pos, (uint32_t)p->maxval);
    put16(dst, pos, (uint32_t)p->t1);
    put16(dst, pos, (uint32_t)p->t2);
    put16(dst, pos, (uint32_t)p->t3);
    put16(dst, pos, (uint32_t)p->reset);
    return 1;
}

int jls_write_dri(uint8_t *dst, size_t cap, size_t *pos, uint32_t interval)
{
    if (!begin_segment(dst, cap, pos, JLS_MARKER_DRI, JLS_DRI_SIZE))
        return 0;
    put16(dst, pos, interval);
    return 1;
}

int jls_write_sos(uint8_t *dst, size_t cap, size_t *pos, uint32_t first_id, uint32_t count,
                  uint32_t interleave)
{
    if (!begin_segment(dst, cap, pos, JLS_MARKER_SOS, jls_sos_size(count)))
        return 0;
    put8(dst, pos, count);
    for (uint32_t c = 0; c < count; c++) {
        put8(dst, pos, first_id + c);
        put8(dst, pos, 0); /* mapping table: none */
    }
    put8(dst, pos, 0);          /* NEAR */
    put8(dst, pos, interleave); /* ILV */
    put8(dst, pos, 0);          /* point transform */
    return 1;
}

int jls_write_frame_header(uint8_t *dst, size_t cap, size_t *pos, uint32_t bits, uint32_t width,
                           uint32_t height, uint32_t components, uint32_t restart)
{
    if (!jls_write_marker(dst, cap, pos, JLS_MARKER_SOI) ||
        !jls_write_sof(dst, cap, pos, bits, width, height, components))
        return 0;
    if (bits > 12) {
        jls_params p;
        p.maxval = (int32_t)((1u << bits) - 1u);
        p.reset = JLS_DEFAULT_RESET;
        jls_default_thresholds(p.maxval, &p.t1, &p.t2, &p.t3);
        if (!jls_write_lse_preset(dst, cap, pos, &p))
            return 0;
    }
    return !restart || jls_write_dri(dst, cap, pos, restart);
}
