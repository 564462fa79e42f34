/* jpegls_encoder.c - JPEG-LS lossless encoder (ITU-T T.87): checks the request, then writes the
 * frame: the frame header (jls_write_frame_header: SOI, SOF55, LSE for P > 12, DRI), one scan per
 * component (interleave none) or a single scan of all components (line or sample), and EOI.
 * For default parameters the output is byte-identical to CharLS 2.4.1's encoder.
 *
 * JPEG-LS has no sign: signed samples are coded as their bits_stored-bit two's-complement pattern,
 * as DICOM requires. Bits above bits_stored cannot be carried, so a frame where they are anything
 * but the plain zero or sign extension is refused. */
#include "jpegls_encoder.h"

#include <stdlib.h>

#include "jpegls_context.h"
#include "jpegls_markers.h"
#include "jpegls_scan.h"
#include "planes.h"
#include "status.h"

static uint32_t effective_interleave(const pcwt_image_desc *d, uint32_t interleave)
{
    return d->components == 1 ? 0u : interleave;
}

size_t pcwt_jpegls_encode_bound(const pcwt_image_desc *d, uint32_t interleave,
                                uint32_t restart_interval)
{
    if (pcwt_desc_check(d, NULL, 0) != PCWT_OK || interleave > 2)
        return 0;
    const uint64_t bits = d->bits_stored;
    const uint64_t limit = 2u * (bits + (bits > 8u ? bits : 8u));
    const uint64_t samples = (uint64_t)d->width * d->height * d->components;
    const uint64_t scans = effective_interleave(d, interleave) == 0 ? d->components : 1u;
    const uint64_t intervals =
        restart_interval ? (d->height + (uint64_t)restart_interval - 1u) / restart_interval : 1u;
    const uint64_t headers = JLS_SOI_SIZE + jls_sof_size(3) + JLS_LSE_PRESET_SIZE + JLS_DRI_SIZE +
                             3u * jls_sos_size(1) + JLS_EOI_SIZE;
    const uint64_t total = headers + (limit * samples + 6u) / 7u + 4u * scans * intervals;
    return total > SIZE_MAX ? 0 : (size_t)total;
}

pcwt_status pcwt_jpegls_encode_frame(const pcwt_encode_params *params, const pcwt_image_desc *d,
                                     const void *samples, void *dst, size_t cap, size_t *written,
                                     jls_qlut_cache *lut_cache, char *err, size_t err_size)
{
    *written = 0;
    if (d->bits_stored < JLS_MIN_BITS) {
        pcwt_set_error(err, err_size,
                       "JPEG-LS needs at least 2 bits per sample; bits_stored is %u (CharLS also "
                       "refuses 1-bit images)",
                       d->bits_stored);
        return PCWT_ERR_UNSUPPORTED;
    }
    if (params->jpegls_interleave > 2) {
        pcwt_set_error(err, err_size, "JPEG-LS interleave mode %u invalid (0 none, 1 line, 2 sample)",
                       params->jpegls_interleave);
        return PCWT_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t c = 0; c < d->components; c++) {
        if (pcwt_plane_has_high_bits(d, samples, c)) {
            pcwt_set_error(err, err_size,
                           "bits above BitsStored are set; JPEG-LS cannot preserve them "
                           "(component %u, bits_stored %u of %u)",
                           c, d->bits_stored, d->bits_allocated);
            return PCWT_ERR_UNSUPPORTED;
        }
    }
    const uint32_t interleave = effective_interleave(d, params->jpegls_interleave);
    /* Heights are at most 65535, so a clamped interval always fits DRI's 2-byte field. */
    uint32_t restart = params->jpegls_restart_interval;
    if (restart > d->height)
        restart = d->height;
    const uint32_t scan_comps = interleave == 0 ? 1u : d->components;

    jls_params p;
    const size_t line_values = jls_scan_line_values(scan_comps, d->width);
    /* one block: contexts, then the line buffers */
    const size_t mem_size = sizeof(jls_contexts) + line_values * sizeof(int32_t);
    void *mem = malloc(mem_size);
    if (!mem || !jls_params_init_cached(&p, (int32_t)d->bits_stored, lut_cache)) {
        free(mem);
        pcwt_set_error(err, err_size, "out of memory for the JPEG-LS encoder (%zu bytes)",
                       mem_size + jls_qlut_size((int32_t)d->bits_stored));
        return PCWT_ERR_OUT_OF_MEMORY;
    }
    jls_contexts *cx = (jls_contexts *)mem;
    int32_t *lines = (int32_t *)(void *)((uint8_t *)mem + sizeof(jls_contexts));

    jls_source src;
    jls_source_init(&src, d, samples);
    uint8_t *out = (uint8_t *)dst;
    size_t pos = 0;
    int ok = jls_write_frame_header(out, cap, &pos, d->bits_stored, d->width, d->height,
                                    d->components, restart);
    const uint32_t scans = interleave == 0 ? d->components : 1u;
    for (uint32_t s = 0; ok && s < scans; s++) {
        jls_scan_job job;
        job.p = &p;
        job.src = &src;
        job.first_comp = interleave == 0 ? s : 0u;
        job.comps = scan_comps;
        job.interleave = interleave;
        job.restart = restart;
        ok = jls_write_sos(out, cap, &pos, job.first_comp + 1u, scan_comps, interleave) &&
             jls_encode_scan(&job, cx, lines, out, cap, &pos);
    }
    if (ok)
        ok = jls_write_marker(out, cap, &pos, JLS_MARKER_EOI);
    free(mem);
    if (!ok) {
        pcwt_set_error(err, err_size,
                       "destination buffer of %zu bytes too small for the JPEG-LS codestream "
                       "(%zu bytes always suffice, see pcwt_jpegls_encode_bound)",
                       cap, pcwt_jpegls_encode_bound(d, interleave, restart));
        return PCWT_ERR_BUFFER_TOO_SMALL;
    }
    *written = pos;
    return PCWT_OK;
}
