/* container.c - build, check and decode the stored form (container.h). */
#include "container.h"
#include "message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the container copies DICOM little-endian samples as host words: little-endian hosts only"
#endif

enum { KIND_CODED = 1, KIND_RAW = 2 };

typedef struct header {
    uint32_t kind;
    uint64_t original_size;
    uint32_t original_crc;
    uint32_t frames;
    uint64_t prefix_length;
    uint64_t pixel_length;
    uint64_t frame_bytes;
    uint32_t prefix_crc;
    uint64_t deflated; /* length of the deflated outside bytes; 0: stored as they are */
} header;

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | ((uint64_t)get32(p + 4) << 32); }

static uint32_t crc(const uint8_t *p, uint64_t n)
{
    return (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), p, (z_size_t)n);
}

static void write_header(uint8_t *p, const header *h)
{
    memset(p, 0, PCO_HEADER_LENGTH);
    memcpy(p, PCO_MAGIC, PCO_MAGIC_LENGTH);
    put32(p + 8, PCO_HEADER_LENGTH);
    put32(p + 12, h->kind);
    put64(p + 16, h->original_size);
    put32(p + 24, h->original_crc);
    put32(p + 28, h->frames);
    put64(p + 32, h->prefix_length);
    put64(p + 40, h->pixel_length);
    put64(p + 48, h->frame_bytes);
    put32(p + 56, h->prefix_crc);
    put64(p + 60, h->deflated);
    put32(p + 68, crc(p, 68));
}

/* Parse and check the header against the container's size: every length used later is bounded. */
static int read_header(const uint8_t *c, size_t c_size, header *h, char *msg, size_t msg_size)
{
    if (!pco_is_container(c, c_size) || c_size < PCO_HEADER_LENGTH)
        return pco_fail(msg, msg_size, "not a PCWT storage container");
    if (get32(c + 8) != PCO_HEADER_LENGTH || get32(c + 68) != crc(c, 68))
        return pco_fail(msg, msg_size, "damaged container header (checksum)");
    h->kind = get32(c + 12);
    h->original_size = get64(c + 16);
    h->original_crc = get32(c + 24);
    h->frames = get32(c + 28);
    h->prefix_length = get64(c + 32);
    h->pixel_length = get64(c + 40);
    h->frame_bytes = get64(c + 48);
    h->prefix_crc = get32(c + 56);
    h->deflated = get64(c + 60);
    const uint64_t body = c_size - PCO_HEADER_LENGTH;
    if (h->kind == KIND_RAW) {
        if (h->original_size != body) return pco_fail(msg, msg_size, "truncated container");
        return 0;
    }
    if (h->kind != KIND_CODED) return pco_fail(msg, msg_size, "unknown container kind %u", h->kind);
    if (h->original_size > SIZE_MAX || h->prefix_length > h->original_size ||
        h->pixel_length > h->original_size - h->prefix_length || h->frames == 0 ||
        h->frame_bytes == 0 || h->frame_bytes > h->pixel_length / h->frames ||
        h->pixel_length - (uint64_t)h->frames * h->frame_bytes > 1 || h->prefix_length > body ||
        h->deflated > body)
        return pco_fail(msg, msg_size, "inconsistent container header");
    return 0;
}

/* Bytes of the original outside the frames: the prefix, then the pad byte and the rest. */
static uint64_t outside_length(const header *h)
{
    return h->original_size - (uint64_t)h->frames * h->frame_bytes;
}

/* The outside bytes into buf (outside_length bytes): inflated, or gathered from their places. */
static int read_outside(const uint8_t *c, size_t c_size, const header *h, const uint8_t *frames_end,
                        uint8_t *buf, char *msg, size_t msg_size)
{
    const uint64_t n = outside_length(h);
    if (h->deflated) {
        uLongf got = (uLongf)n;
        if (uncompress(buf, &got, c + PCO_HEADER_LENGTH, (uLong)h->deflated) != Z_OK || got != n)
            return pco_fail(msg, msg_size, "stored file damaged: the bytes outside Pixel Data do not inflate");
        return 0;
    }
    const uint64_t rest = n - h->prefix_length;
    if (!frames_end || (uint64_t)(c + c_size - frames_end) != rest)
        return pco_fail(msg, msg_size, "container length does not match its header");
    memcpy(buf, c + PCO_HEADER_LENGTH, h->prefix_length);
    memcpy(buf + h->prefix_length, frames_end, rest);
    return 0;
}

int pco_is_container(const uint8_t *data, size_t size)
{
    return size >= PCO_MAGIC_LENGTH && memcmp(data, PCO_MAGIC, PCO_MAGIC_LENGTH) == 0;
}

int pco_container_original_size(const uint8_t *c, size_t c_size, uint64_t *size, char *msg, size_t msg_size)
{
    header h = {0};
    if (read_header(c, c_size, &h, msg, msg_size) != 0) return -1;
    *size = h.original_size;
    return 0;
}

int pco_container_raw(const uint8_t *orig, size_t size, uint8_t **out, size_t *out_size, char *msg,
                      size_t msg_size)
{
    uint8_t *buf = malloc(size + PCO_HEADER_LENGTH);
    if (!buf) return pco_fail(msg, msg_size, "out of memory (%zu bytes)", size + PCO_HEADER_LENGTH);
    header h = {KIND_RAW, size, crc(orig, size), 0, 0, 0, 0, 0, 0};
    write_header(buf, &h);
    memcpy(buf + PCO_HEADER_LENGTH, orig, size);
    *out = buf;
    *out_size = size + PCO_HEADER_LENGTH;
    return 0;
}

/* The read path. Each frame is decoded with dec, or, with verified (the jobs of a build, whose
 * codestreams were checked to decode to their samples), must be that job's codestream, byte for
 * byte, and its samples are taken. */
static int decode_into(const uint8_t *c, size_t c_size, pcwt_decoder *dec, const pcwt_frame_job *verified,
                       uint8_t *dst, uint64_t dst_size, char *msg, size_t msg_size)
{
    header h = {0};
    if (read_header(c, c_size, &h, msg, msg_size) != 0) return -1;
    if (dst_size != h.original_size) return pco_fail(msg, msg_size, "wrong output size");
    if (h.kind == KIND_RAW) {
        memcpy(dst, c + PCO_HEADER_LENGTH, h.original_size);
    } else {
        const uint8_t *p = c + PCO_HEADER_LENGTH + (h.deflated ? h.deflated : h.prefix_length);
        const uint8_t *end = c + c_size;
        uint8_t *out = dst + h.prefix_length;
        for (uint32_t i = 0; i < h.frames; ++i) {
            if (end - p < 8) return pco_fail(msg, msg_size, "truncated container (frame %u)", i);
            uint64_t len = get64(p);
            p += 8;
            if (len > (uint64_t)(end - p)) return pco_fail(msg, msg_size, "truncated container (frame %u)", i);
            if (verified) {
                if (len != verified[i].written || memcmp(p, verified[i].dst, len) != 0 ||
                    verified[i].samples_size != h.frame_bytes)
                    return pco_fail(msg, msg_size, "verification failed: frame %u is not the codestream checked", i);
                memcpy(out, verified[i].samples, h.frame_bytes);
            } else {
                pcwt_header_info info;
                pcwt_status st = pcwt_read_header(p, len, &info);
                if (st == PCWT_OK && pcwt_image_size(&info.desc) != h.frame_bytes) st = PCWT_ERR_CORRUPT;
                if (st == PCWT_OK) st = pcwt_decode(dec, p, len, out, h.frame_bytes);
                if (st != PCWT_OK)
                    return pco_fail(msg, msg_size, "frame %u does not decode: %s", i, pcwt_status_string(st));
            }
            p += len;
            out += h.frame_bytes;
        }
        if (h.deflated && p != end) return pco_fail(msg, msg_size, "container length does not match its header");
        const uint64_t n = outside_length(&h);
        uint8_t *outside = malloc(n ? n : 1);
        if (!outside) return pco_fail(msg, msg_size, "out of memory");
        int rc = read_outside(c, c_size, &h, p, outside, msg, msg_size);
        if (rc == 0) {
            memcpy(dst, outside, h.prefix_length);
            memcpy(out, outside + h.prefix_length, n - h.prefix_length);
        }
        free(outside);
        if (rc != 0) return -1;
    }
    if (crc(dst, h.original_size) != h.original_crc)
        return pco_fail(msg, msg_size, "stored file damaged: checksum of the original does not match");
    return 0;
}

int pco_container_decode(const uint8_t *c, size_t c_size, pcwt_decoder *dec, uint8_t *dst,
                         uint64_t dst_size, char *msg, size_t msg_size)
{
    return decode_into(c, c_size, dec, NULL, dst, dst_size, msg, msg_size);
}

int pco_container_read_range(const uint8_t *c, size_t c_size, pcwt_decoder *dec, uint64_t start,
                             uint8_t *dst, uint64_t length, char *msg, size_t msg_size)
{
    header h = {0};
    if (read_header(c, c_size, &h, msg, msg_size) != 0) return -1;
    if (start > h.original_size || length > h.original_size - start)
        return pco_fail(msg, msg_size, "range beyond the end of the file");
    if (h.kind == KIND_CODED && start + length <= h.prefix_length) {
        const uint8_t *prefix = c + PCO_HEADER_LENGTH;
        uint8_t *outside = NULL;
        if (h.deflated) {
            const uint64_t n = outside_length(&h);
            if (!(outside = malloc(n ? n : 1))) return pco_fail(msg, msg_size, "out of memory");
            if (read_outside(c, c_size, &h, NULL, outside, msg, msg_size) != 0) {
                free(outside);
                return -1;
            }
            prefix = outside;
        }
        int rc = 0;
        if (crc(prefix, h.prefix_length) != h.prefix_crc)
            rc = pco_fail(msg, msg_size, "stored file damaged: checksum of the header bytes does not match");
        else
            memcpy(dst, prefix + start, length);
        free(outside);
        return rc;
    }
    uint8_t *whole = malloc(h.original_size ? h.original_size : 1);
    if (!whole) return pco_fail(msg, msg_size, "out of memory");
    int rc = pco_container_decode(c, c_size, dec, whole, h.original_size, msg, msg_size);
    if (rc == 0) memcpy(dst, whole + start, length);
    free(whole);
    return rc;
}

/* Encode and verify with one encoder and decoder (pco_code_fn). */
typedef struct coders {
    pcwt_encoder *enc;
    pcwt_decoder *dec;
} coders;

static int code_direct(void *user, pcwt_frame_job *jobs, size_t count, char *msg, size_t msg_size)
{
    const coders *c = user;
    pcwt_status st = pcwt_encode_batch(c->enc, jobs, count);
    if (st != PCWT_OK)
        return pco_fail(msg, msg_size, "encoding failed: %s (%s)", pcwt_status_string(st), pcwt_encoder_last_error(c->enc));
    pcwt_verify_job *checks = calloc(count ? count : 1, sizeof *checks);
    if (!checks) return pco_fail(msg, msg_size, "out of memory");
    for (size_t i = 0; i < count; ++i) {
        checks[i].src = jobs[i].dst;
        checks[i].src_size = jobs[i].written;
        checks[i].expected = jobs[i].samples;
        checks[i].expected_size = jobs[i].samples_size;
    }
    st = pcwt_verify_batch(c->dec, checks, count);
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; ++i)
        if (checks[i].status != PCWT_OK)
            rc = pco_fail(msg, msg_size, "verification failed: frame %zu %s", i,
                          checks[i].status == PCWT_ERR_MISMATCH ? "decodes to other samples"
                                                                : pcwt_status_string(checks[i].status));
    if (rc == 0 && st != PCWT_OK) rc = pco_fail(msg, msg_size, "verification failed: %s", pcwt_status_string(st));
    free(checks);
    return rc;
}

int pco_container_build(const uint8_t *orig, size_t size, const pco_scan *scan, pcwt_encoder *enc,
                        pcwt_decoder *dec, uint8_t **out, size_t *out_size, char *msg, size_t msg_size)
{
    coders c = {enc, dec};
    return pco_container_build_with(orig, size, scan, code_direct, &c, out, out_size, msg, msg_size);
}

int pco_container_build_with(const uint8_t *orig, size_t size, const pco_scan *scan, pco_code_fn code,
                             void *user, uint8_t **out, size_t *out_size, char *msg, size_t msg_size)
{
    pcwt_image_desc desc;
    if (pcwt_dicom_image_desc(&scan->module, &desc) != PCWT_DICOM_OK)
        return pco_fail(msg, msg_size, "pixel module not codable");
    const uint64_t frames = scan->module.number_of_frames;
    if (frames > UINT32_MAX || pcwt_image_size(&desc) != scan->frame_bytes)
        return pco_fail(msg, msg_size, "frame layout does not match the pixel module");
    const size_t bound = pcwt_encode_bound(&desc);
    if (bound == 0 || frames > SIZE_MAX / bound) return pco_fail(msg, msg_size, "frames too large to code");

    int rc = -1;
    uint8_t *coded = malloc(bound * frames);
    pcwt_frame_job *jobs = calloc(frames, sizeof *jobs);
    uint8_t *buf = NULL, *check = NULL, *zbuf = NULL;
    if (!coded || !jobs) { pco_fail(msg, msg_size, "out of memory"); goto done; }
    for (uint64_t i = 0; i < frames; ++i) {
        jobs[i].desc = desc;
        jobs[i].samples = orig + scan->pixel_offset + i * scan->frame_bytes;
        jobs[i].samples_size = scan->frame_bytes;
        jobs[i].dst = coded + i * bound;
        jobs[i].dst_capacity = bound;
    }
    if (code(user, jobs, frames, msg, msg_size) != 0) goto done;
    const uint64_t pixel_end = scan->pixel_offset + scan->pixel_length;
    const uint64_t pad = scan->pixel_length - frames * scan->frame_bytes;
    const uint64_t outside = scan->pixel_offset + pad + (size - pixel_end);
    header h = {KIND_CODED, size, crc(orig, size), (uint32_t)frames, scan->pixel_offset,
                scan->pixel_length, scan->frame_bytes, crc(orig, scan->pixel_offset), 0};

    /* The outside bytes (attributes, mostly text) deflated when that is smaller. */
    uLongf zlen = compressBound((uLong)outside);
    if (!(zbuf = malloc(outside + zlen)) ) { pco_fail(msg, msg_size, "out of memory"); goto done; }
    uint8_t *gathered = zbuf + zlen;
    memcpy(gathered, orig, scan->pixel_offset);
    memcpy(gathered + scan->pixel_offset, orig + pixel_end - pad, pad + (size - pixel_end));
    if (compress2(zbuf, &zlen, gathered, (uLong)outside, 6) == Z_OK && zlen < outside) h.deflated = zlen;

    uint64_t total = PCO_HEADER_LENGTH + (h.deflated ? h.deflated : outside);
    for (uint64_t i = 0; i < frames; ++i) total += 8 + jobs[i].written;
    if (total > SIZE_MAX || !(buf = malloc(total))) { pco_fail(msg, msg_size, "out of memory"); goto done; }
    write_header(buf, &h);
    uint8_t *p = buf + PCO_HEADER_LENGTH;
    if (h.deflated) {
        memcpy(p, zbuf, h.deflated);
        p += h.deflated;
    } else {
        memcpy(p, orig, scan->pixel_offset);
        p += scan->pixel_offset;
    }
    for (uint64_t i = 0; i < frames; ++i) {
        put64(p, jobs[i].written);
        memcpy(p + 8, jobs[i].dst, jobs[i].written);
        p += 8 + jobs[i].written;
    }
    if (!h.deflated) memcpy(p, orig + pixel_end - pad, pad + (size - pixel_end));

    /* The copy is acknowledged only after it gave every byte back through the read path: the
     * frames were decoded and compared by code(); here every frame of the container must be
     * the codestream that was checked, and all the rest is read as a read reads it. */
    if (!(check = malloc(size ? size : 1))) { pco_fail(msg, msg_size, "out of memory"); goto done; }
    if (decode_into(buf, total, NULL, jobs, check, size, msg, msg_size) != 0) goto done;
    if (memcmp(check, orig, size) != 0) { pco_fail(msg, msg_size, "verification failed: decoded bytes differ"); goto done; }
    *out = buf;
    *out_size = total;
    buf = NULL;
    rc = 0;
done:
    free(zbuf);
    free(check);
    free(buf);
    free(jobs);
    free(coded);
    return rc;
}
