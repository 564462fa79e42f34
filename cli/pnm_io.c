/* pnm_io.c - binary PGM/PPM parsing and writing. */
#include "pnm_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_report.h"
#include "file_io.h"
#include "raw_io.h"

/* Largest width or height accepted in a header; the frame size check does the rest. */
#define PNM_MAX_DIM 0x7FFFFFFFu

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix), k;
    if (n < m)
        return 0;
    for (k = 0; k < m; k++)
        if (lower((unsigned char)s[n - m + k]) != suffix[k])
            return 0;
    return 1;
}

pnm_name_kind pnm_name_kind_of(const char *path)
{
    if (ends_with_ci(path, ".pgm"))
        return PNM_NAME_PGM;
    if (ends_with_ci(path, ".ppm"))
        return PNM_NAME_PPM;
    if (ends_with_ci(path, ".pnm"))
        return PNM_NAME_ANY;
    return PNM_NAME_NONE;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int pnm_has_magic(const unsigned char *data, size_t size)
{
    return size >= 3 && data[0] == 'P' && (data[1] == '5' || data[1] == '6') && is_space(data[2]);
}

/* Skip whitespace and '#' comments (to the end of the line). */
static size_t skip_space(const unsigned char *data, size_t size, size_t pos)
{
    while (pos < size) {
        if (data[pos] == '#') {
            while (pos < size && data[pos] != '\n' && data[pos] != '\r')
                pos++;
        } else if (is_space(data[pos])) {
            pos++;
        } else {
            break;
        }
    }
    return pos;
}

/* Read one header number in 1..max at *pos, which must be followed by whitespace or '#'. */
static int read_field(const unsigned char *data, size_t size, size_t *pos, uint32_t max,
                      const char *what, const char *path, uint32_t *out)
{
    size_t p = skip_space(data, size, *pos);
    uint64_t v = 0;
    size_t start = p;
    if (p >= size) {
        cli_error("'%s': PNM header ends before its %s", path, what);
        return -1;
    }
    while (p < size && data[p] >= '0' && data[p] <= '9') {
        v = v * 10u + (uint64_t)(data[p] - '0');
        if (v > max) {
            cli_error("'%s': PNM %s is larger than %lu", path, what, (unsigned long)max);
            return -1;
        }
        p++;
    }
    if (p == start) {
        cli_error("'%s': PNM header has no valid %s", path, what);
        return -1;
    }
    if (p >= size) {
        cli_error("'%s': PNM header ends after its %s", path, what);
        return -1;
    }
    if (!is_space(data[p]) && data[p] != '#') {
        cli_error("'%s': PNM %s is followed by an invalid character", path, what);
        return -1;
    }
    if (v == 0) {
        cli_error("'%s': PNM %s is 0", path, what);
        return -1;
    }
    *pos = p;
    *out = (uint32_t)v;
    return 0;
}

static uint32_t bit_length(uint32_t v)
{
    uint32_t n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

int pnm_parse(const unsigned char *data, size_t size, const char *path, pnm_header *out)
{
    size_t pos = 2;
    uint32_t width, height, maxval;
    uint64_t need, have;
    if (!pnm_has_magic(data, size)) {
        cli_error("'%s' is not a binary PGM or PPM file (no P5/P6 magic)", path);
        return -1;
    }
    if (read_field(data, size, &pos, PNM_MAX_DIM, "width", path, &width) != 0 ||
        read_field(data, size, &pos, PNM_MAX_DIM, "height", path, &height) != 0 ||
        read_field(data, size, &pos, 65535u, "maxval", path, &maxval) != 0)
        return -1;
    if (data[pos] == '#') { /* a comment here would eat the sample bytes */
        cli_error("'%s': PNM maxval must be followed by a single whitespace", path);
        return -1;
    }
    pos++; /* the single whitespace before the samples */

    memset(out, 0, sizeof *out);
    out->desc.width = width;
    out->desc.height = height;
    out->desc.components = data[1] == '5' ? 1 : 3;
    out->desc.bits_allocated = maxval < 256 ? 8 : 16;
    out->desc.bits_stored = bit_length(maxval);
    out->desc.is_signed = 0;
    out->desc.planar = 0;
    out->maxval = maxval;
    out->data_offset = pos;

    need = cli_frame_bytes(&out->desc);
    have = (uint64_t)(size - pos);
    if (need == 0) {
        cli_error("'%s': PNM image of %ux%u is too large", path, (unsigned)width, (unsigned)height);
        return -1;
    }
    if (have < need) {
        cli_error("'%s': PNM data truncated: %ux%u %s needs %llu bytes of samples, the file "
                  "has %llu",
                  path, (unsigned)width, (unsigned)height,
                  out->desc.components == 1 ? "PGM" : "PPM", (unsigned long long)need,
                  (unsigned long long)have);
        return -1;
    }
    if (have > need) {
        cli_error("'%s': %llu byte(s) after the PNM image (multi-image files are not supported)",
                  path, (unsigned long long)(have - need));
        return -1;
    }
    return 0;
}

size_t pnm_frame_from_file(const pnm_header *hdr, unsigned char *data)
{
    size_t bytes = (size_t)cli_frame_bytes(&hdr->desc);
    memmove(data, data + hdr->data_offset, bytes);
    if (hdr->desc.bits_allocated == 16)
        cli_u16_be_to_host(data, bytes / 2);
    return bytes;
}

/* Sample i (in the decoded layout) of an 8- or 16-bit host-order frame. */
static uint32_t sample_at(const pcwt_image_desc *desc, const unsigned char *samples, size_t i)
{
    uint16_t v;
    if (desc->bits_allocated == 8)
        return samples[i];
    memcpy(&v, samples + 2 * i, 2);
    return v;
}

int pnm_check_writable(const char *path, const pcwt_image_desc *desc)
{
    pnm_name_kind kind = pnm_name_kind_of(path);
    uint32_t comps = desc->components;
    if (desc->is_signed) {
        cli_error("'%s': PGM/PPM cannot hold signed samples; decode to a raw file instead", path);
        return -1;
    }
    if ((kind == PNM_NAME_PGM && comps != 1) || (kind == PNM_NAME_PPM && comps != 3) ||
        (comps != 1 && comps != 3)) {
        cli_error("'%s': the image has %u component(s); use .pgm for 1, .ppm for 3", path,
                  (unsigned)comps);
        return -1;
    }
    if (desc->bits_stored < 1 || desc->bits_stored > 16) {
        cli_error("'%s': PGM/PPM cannot hold %u-bit samples", path, (unsigned)desc->bits_stored);
        return -1;
    }
    return 0;
}

int pnm_write(const char *path, const pcwt_image_desc *desc, const unsigned char *samples)
{
    uint32_t maxval, comps = desc->components;
    size_t pixels, out_bps, p, c, o = 0;
    unsigned char *out;
    char header[64];
    int hlen, rc;
    cli_chunk chunks[2];

    if (pnm_check_writable(path, desc) != 0)
        return -1;
    maxval = (1u << desc->bits_stored) - 1u;
    out_bps = maxval < 256 ? 1 : 2;
    pixels = (size_t)desc->width * desc->height;
    out = malloc(pixels * comps * out_bps > 0 ? pixels * comps * out_bps : 1);
    if (!out) {
        cli_error("out of memory writing '%s'", path);
        return -1;
    }
    /* PNM is pixel-interleaved and big-endian; planar frames are interleaved on the way. */
    for (p = 0; p < pixels; p++) {
        for (c = 0; c < comps; c++) {
            size_t i = desc->planar ? c * pixels + p : p * comps + c;
            uint32_t v = sample_at(desc, samples, i);
            if (v > maxval) {
                cli_error("'%s': sample value %lu exceeds the PNM maxval %lu (bits set above "
                          "bits stored); decode to a raw file instead",
                          path, (unsigned long)v, (unsigned long)maxval);
                free(out);
                return -1;
            }
            if (out_bps == 2)
                out[o++] = (unsigned char)(v >> 8);
            out[o++] = (unsigned char)(v & 0xFFu);
        }
    }
    hlen = snprintf(header, sizeof header, "P%c\n%lu %lu\n%lu\n", comps == 1 ? '5' : '6',
                    (unsigned long)desc->width, (unsigned long)desc->height, (unsigned long)maxval);
    chunks[0].data = header;
    chunks[0].size = (size_t)hlen;
    chunks[1].data = out;
    chunks[1].size = o;
    rc = cli_write_file_atomic(path, chunks, 2);
    free(out);
    return rc;
}
