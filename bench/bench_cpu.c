/*
 * bench_cpu.c - single-threaded CPU benchmark of libpcwt against CharLS (JPEG-LS), lossless.
 *
 * For every input image: encode and decode with libpcwt (CPU backend, default parameters unless
 * told otherwise) and with CharLS (near_lossless 0, default coding parameters), check both round
 * trips sample-exact (a mismatch is a loud error and a non-zero exit), and print one markdown
 * table row: compression ratio and encode / decode throughput in MB/s of raw input bytes
 * (1 MB = 1e6 bytes). Timing: one warm-up run, then the median of N timed runs (CLOCK_MONOTONIC),
 * the two codecs' runs alternating.
 *
 * Inputs (any mix, files or directories):
 *   *.jls / *.JLS   JPEG-LS codestreams, decoded with CharLS to get the raw samples. If a native
 *                   DICOM copy ../dicom_unc/<NAME>_UNC.dcm exists beside the jls/ folder, its
 *                   PixelRepresentation gives the signedness (JPEG-LS has none) and its pixels are
 *                   checked identical to the JPEG-LS decode.
 *   *.dcm           native (uncompressed) DICOM, Explicit or Implicit VR Little Endian, first frame.
 *   --raw PATH,W,H,C,BITS_ALLOCATED,BITS_STORED,SIGNED[,PLANAR]   headerless little-endian samples.
 * With no inputs: every JPEG-LS file of <shared>/testdata/wg04/jls plus
 * <shared>/testdata/wg04/dicom_unc/MR1_UNC.dcm (the WG04 set: MR1 has no JPEG-LS copy).
 *
 * Usage: pcwt_bench_cpu [-n REPEATS] [--levels L] [--group G] [--profile baseline|entropy] [inputs...]
 */
#define _POSIX_C_SOURCE 200809L

#include <charls/charls.h>
#include <pcwt.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef PCWT_SHARED_DIR
#define PCWT_SHARED_DIR "../shared"
#endif

#define MAX_IMAGES 256
#define MAX_REPEATS 1000

/* ---------------------------------------------------------------------------------------------
 * Small utilities
 * ------------------------------------------------------------------------------------------- */

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("\n*** pcwt_bench_cpu: ERROR: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" ***\n", stderr);
    va_end(ap);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        die("out of memory (%zu bytes)", n);
    }
    return p;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return -1;
    }
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return -1;
    }
    uint8_t *buf = xmalloc((size_t)n);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    *data = buf;
    *size = (size_t)n;
    return 0;
}

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    if (lx > ls) {
        return 0;
    }
    for (size_t i = 0; i < lx; ++i) {
        char a = s[ls - lx + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') {
            a = (char)(a - 'A' + 'a');
        }
        if (b >= 'A' && b <= 'Z') {
            b = (char)(b - 'A' + 'a');
        }
        if (a != b) {
            return 0;
        }
    }
    return 1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* File name without directory and extension, into out (for the table and the DICOM lookup). */
static void stem_of(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) {
        n = (size_t)(dot - base);
    }
    if (n >= cap) {
        n = cap - 1;
    }
    memcpy(out, base, n);
    out[n] = '\0';
}

/* ---------------------------------------------------------------------------------------------
 * Images
 * ------------------------------------------------------------------------------------------- */

typedef struct bench_image {
    char name[64];
    char path[1024];
    char note[160];
    pcwt_image_desc desc;
    uint8_t *samples; /* pcwt layout (host order words) */
    size_t size;
} bench_image;

static bench_image g_images[MAX_IMAGES];
static int g_image_count;

static bench_image *new_image(const char *path)
{
    if (g_image_count >= MAX_IMAGES) {
        die("too many inputs (max %d)", MAX_IMAGES);
    }
    bench_image *img = &g_images[g_image_count++];
    memset(img, 0, sizeof *img);
    snprintf(img->path, sizeof img->path, "%s", path);
    stem_of(path, img->name, sizeof img->name);
    return img;
}

/* ---------------------------------------------------------------------------------------------
 * Minimal native-DICOM reader (Little Endian, explicit or implicit VR): enough to find the
 * image pixel module and the pixel data of the first frame. Not a general DICOM parser.
 * ------------------------------------------------------------------------------------------- */

typedef struct dcm_info {
    uint32_t rows, cols, spp, bits_allocated, bits_stored, high_bit, pixel_rep, planar, frames;
    const uint8_t *pixels;
    uint64_t pixels_len;
} dcm_info;

typedef struct dcm_reader {
    const uint8_t *p;
    size_t n, pos;
    int explicit_vr;
} dcm_reader;

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int vr_has_long_length(const uint8_t *vr)
{
    static const char *const longs[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ",
                                        "SV", "UC", "UN", "UR", "UT", "UV"};
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; ++i) {
        if (vr[0] == (uint8_t)longs[i][0] && vr[1] == (uint8_t)longs[i][1]) {
            return 1;
        }
    }
    return 0;
}

/* Read one element header. Returns 0 on success. */
static int dcm_next(dcm_reader *r, int explicit_vr, uint16_t *group, uint16_t *elem, uint32_t *len)
{
    if (r->n - r->pos < 8) {
        return -1;
    }
    const uint8_t *q = r->p + r->pos;
    *group = rd16(q);
    *elem = rd16(q + 2);
    if (*group == 0xFFFE) { /* item / delimiters never carry a VR */
        *len = rd32(q + 4);
        r->pos += 8;
        return 0;
    }
    if (explicit_vr) {
        if (vr_has_long_length(q + 4)) {
            if (r->n - r->pos < 12) {
                return -1;
            }
            *len = rd32(q + 8);
            r->pos += 12;
        } else {
            *len = rd16(q + 6);
            r->pos += 8;
        }
    } else {
        *len = rd32(q + 4);
        r->pos += 8;
    }
    return 0;
}

static int dcm_skip_undefined(dcm_reader *r, int depth);

/* Skip elements until an item delimiter (FFFE,E00D) or sequence delimiter, recursing into
 * undefined-length values. */
static int dcm_skip_until(dcm_reader *r, uint16_t stop_elem, int depth)
{
    if (depth > 32) {
        return -1;
    }
    for (;;) {
        uint16_t g, e;
        uint32_t len;
        if (dcm_next(r, r->explicit_vr, &g, &e, &len) != 0) {
            return -1;
        }
        if (g == 0xFFFE && e == stop_elem) {
            return 0;
        }
        if (len == 0xFFFFFFFFu) {
            if (g == 0xFFFE && e == 0xE000) {
                if (dcm_skip_until(r, 0xE00D, depth + 1) != 0) {
                    return -1;
                }
            } else if (dcm_skip_undefined(r, depth + 1) != 0) {
                return -1;
            }
        } else {
            if (len > r->n - r->pos) {
                return -1;
            }
            r->pos += len;
        }
    }
}

static int dcm_skip_undefined(dcm_reader *r, int depth)
{
    return dcm_skip_until(r, 0xE0DD, depth);
}

static uint32_t dcm_us(const uint8_t *v, uint32_t len)
{
    return len >= 2 ? rd16(v) : 0;
}

static uint32_t dcm_is(const uint8_t *v, uint32_t len)
{
    char buf[32];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return (uint32_t)strtoul(buf, NULL, 10);
}

static int dcm_parse(const uint8_t *p, size_t n, dcm_info *info, char *err, size_t errcap)
{
    memset(info, 0, sizeof *info);
    info->spp = 1;
    info->frames = 1;
    if (n < 132 || memcmp(p + 128, "DICM", 4) != 0) {
        snprintf(err, errcap, "no DICM preamble");
        return -1;
    }
    dcm_reader r = {p, n, 132, 1};
    char ts[80] = "";
    /* File meta information: always explicit VR little endian, group 0002. */
    while (r.n - r.pos >= 8 && rd16(p + r.pos) == 0x0002) {
        uint16_t g, e;
        uint32_t len;
        if (dcm_next(&r, 1, &g, &e, &len) != 0 || len == 0xFFFFFFFFu || len > r.n - r.pos) {
            snprintf(err, errcap, "bad file meta information");
            return -1;
        }
        if (e == 0x0010) {
            size_t m = len < sizeof ts - 1 ? len : sizeof ts - 1;
            memcpy(ts, p + r.pos, m);
            ts[m] = '\0';
            while (m > 0 && (ts[m - 1] == '\0' || ts[m - 1] == ' ')) {
                ts[--m] = '\0';
            }
        }
        r.pos += len;
    }
    if (strcmp(ts, "1.2.840.10008.1.2.1") == 0) {
        r.explicit_vr = 1;
    } else if (strcmp(ts, "1.2.840.10008.1.2") == 0) {
        r.explicit_vr = 0;
    } else {
        snprintf(err, errcap, "transfer syntax '%s' is not native little endian", ts);
        return -1;
    }
    while (r.n - r.pos >= 8) {
        uint16_t g, e;
        uint32_t len;
        if (dcm_next(&r, r.explicit_vr, &g, &e, &len) != 0) {
            break;
        }
        if (len == 0xFFFFFFFFu) {
            if (g == 0x7FE0 && e == 0x0010) {
                snprintf(err, errcap, "encapsulated pixel data");
                return -1;
            }
            if (dcm_skip_undefined(&r, 0) != 0) {
                snprintf(err, errcap, "bad sequence");
                return -1;
            }
            continue;
        }
        if (len > r.n - r.pos) {
            snprintf(err, errcap, "element (%04X,%04X) runs past the end", g, e);
            return -1;
        }
        const uint8_t *v = p + r.pos;
        if (g == 0x0028) {
            switch (e) {
            case 0x0002: info->spp = dcm_us(v, len); break;
            case 0x0006: info->planar = dcm_us(v, len); break;
            case 0x0008: info->frames = dcm_is(v, len); break;
            case 0x0010: info->rows = dcm_us(v, len); break;
            case 0x0011: info->cols = dcm_us(v, len); break;
            case 0x0100: info->bits_allocated = dcm_us(v, len); break;
            case 0x0101: info->bits_stored = dcm_us(v, len); break;
            case 0x0102: info->high_bit = dcm_us(v, len); break;
            case 0x0103: info->pixel_rep = dcm_us(v, len); break;
            default: break;
            }
        } else if (g == 0x7FE0 && e == 0x0010) {
            info->pixels = v;
            info->pixels_len = len;
            break;
        }
        r.pos += len;
    }
    if (!info->pixels || !info->rows || !info->cols) {
        snprintf(err, errcap, "no pixel data / image pixel module");
        return -1;
    }
    if (info->bits_allocated != 8 && info->bits_allocated != 16) {
        snprintf(err, errcap, "bits allocated %u not supported", info->bits_allocated);
        return -1;
    }
    if (info->spp != 1 && info->spp != 3) {
        snprintf(err, errcap, "samples per pixel %u not supported", info->spp);
        return -1;
    }
    uint64_t frame = (uint64_t)info->rows * info->cols * info->spp * (info->bits_allocated / 8);
    if (info->pixels_len < frame) {
        snprintf(err, errcap, "pixel data shorter than one frame");
        return -1;
    }
    return 0;
}

/* Copy the first frame's little-endian pixel data into host-order words. */
static void copy_le_samples(uint8_t *dst, const uint8_t *src, size_t size, uint32_t bits_allocated)
{
    if (bits_allocated == 8) {
        memcpy(dst, src, size);
        return;
    }
    for (size_t i = 0; i + 1 < size; i += 2) {
        uint16_t w = rd16(src + i);
        memcpy(dst + i, &w, 2);
    }
}

static void load_dicom(const char *path)
{
    uint8_t *data;
    size_t n;
    if (read_file(path, &data, &n) != 0) {
        die("cannot read %s: %s", path, strerror(errno));
    }
    dcm_info di;
    char err[160];
    if (dcm_parse(data, n, &di, err, sizeof err) != 0) {
        fprintf(stderr, "pcwt_bench_cpu: skipping %s: %s\n", path, err);
        free(data);
        return;
    }
    bench_image *img = new_image(path);
    char *u = strstr(img->name, "_UNC");
    if (u) {
        *u = '\0';
    }
    img->desc.width = di.cols;
    img->desc.height = di.rows;
    img->desc.components = di.spp;
    img->desc.bits_allocated = di.bits_allocated;
    img->desc.bits_stored = di.bits_stored ? di.bits_stored : di.bits_allocated;
    img->desc.is_signed = di.pixel_rep ? 1u : 0u;
    img->desc.planar = di.spp == 3 ? (di.planar ? 1u : 0u) : 0u;
    img->size = pcwt_image_size(&img->desc);
    if (img->size == 0) {
        die("%s: descriptor not accepted by pcwt_image_size", path);
    }
    img->samples = xmalloc(img->size);
    copy_le_samples(img->samples, di.pixels, img->size, di.bits_allocated);
    snprintf(img->note, sizeof img->note, "DICOM %u/%u/%u PR=%u%s", di.bits_allocated,
             img->desc.bits_stored, di.high_bit, di.pixel_rep, di.frames > 1 ? ", frame 1" : "");
    free(data);
}

/* ---------------------------------------------------------------------------------------------
 * JPEG-LS inputs (decoded with CharLS)
 * ------------------------------------------------------------------------------------------- */

static void load_jls(const char *path)
{
    uint8_t *data;
    size_t n;
    if (read_file(path, &data, &n) != 0) {
        die("cannot read %s: %s", path, strerror(errno));
    }
    charls_jpegls_decoder *dec = charls_jpegls_decoder_create();
    if (!dec) {
        die("charls_jpegls_decoder_create failed");
    }
    charls_frame_info fi;
    charls_interleave_mode im = CHARLS_INTERLEAVE_MODE_NONE;
    size_t dsize = 0;
    charls_jpegls_errc ec = charls_jpegls_decoder_set_source_buffer(dec, data, n);
    if (ec == CHARLS_JPEGLS_ERRC_SUCCESS) {
        ec = charls_jpegls_decoder_read_header(dec);
    }
    if (ec == CHARLS_JPEGLS_ERRC_SUCCESS) {
        ec = charls_jpegls_decoder_get_frame_info(dec, &fi);
    }
    if (ec == CHARLS_JPEGLS_ERRC_SUCCESS) {
        ec = charls_jpegls_decoder_get_interleave_mode(dec, &im);
    }
    if (ec == CHARLS_JPEGLS_ERRC_SUCCESS) {
        ec = charls_jpegls_decoder_get_destination_size(dec, 0, &dsize);
    }
    if (ec != CHARLS_JPEGLS_ERRC_SUCCESS) {
        die("%s: CharLS cannot read the header: %s", path, charls_get_error_message(ec));
    }
    if ((fi.component_count != 1 && fi.component_count != 3) || fi.bits_per_sample < 2 ||
        fi.bits_per_sample > 16) {
        fprintf(stderr, "pcwt_bench_cpu: skipping %s: %d components of %d bits\n", path,
                fi.component_count, fi.bits_per_sample);
        charls_jpegls_decoder_destroy(dec);
        free(data);
        return;
    }
    bench_image *img = new_image(path);
    img->desc.width = fi.width;
    img->desc.height = fi.height;
    img->desc.components = (uint32_t)fi.component_count;
    img->desc.bits_allocated = fi.bits_per_sample <= 8 ? 8u : 16u;
    img->desc.bits_stored = (uint32_t)fi.bits_per_sample;
    img->desc.is_signed = 0;
    /* CharLS returns planes for interleave mode none, pixel-interleaved otherwise. */
    img->desc.planar = (fi.component_count == 3 && im == CHARLS_INTERLEAVE_MODE_NONE) ? 1u : 0u;
    img->size = pcwt_image_size(&img->desc);
    if (img->size == 0 || img->size != dsize) {
        die("%s: size mismatch (pcwt %zu, CharLS %zu)", path, img->size, dsize);
    }
    img->samples = xmalloc(img->size);
    ec = charls_jpegls_decoder_decode_to_buffer(dec, img->samples, img->size, 0);
    if (ec != CHARLS_JPEGLS_ERRC_SUCCESS) {
        die("%s: CharLS decode failed: %s", path, charls_get_error_message(ec));
    }
    charls_jpegls_decoder_destroy(dec);
    free(data);
    snprintf(img->note, sizeof img->note, "JPEG-LS %d-bit, unsigned (no DICOM copy)",
             fi.bits_per_sample);

    /* Signedness from the native DICOM original beside the jls/ folder, if there is one. */
    char dir[1024], dcm[1200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    snprintf(dcm, sizeof dcm, "%s/../dicom_unc/%s_UNC.dcm", dir, img->name);
    if (!file_exists(dcm)) {
        return;
    }
    uint8_t *ddata;
    size_t dn;
    dcm_info di;
    char err[160];
    if (read_file(dcm, &ddata, &dn) != 0 || dcm_parse(ddata, dn, &di, err, sizeof err) != 0) {
        die("%s: companion DICOM %s unreadable", path, dcm);
    }
    if (di.cols != img->desc.width || di.rows != img->desc.height ||
        di.spp != img->desc.components || di.bits_allocated != img->desc.bits_allocated) {
        die("%s: companion DICOM %s has a different geometry", path, dcm);
    }
    uint8_t *tmp = xmalloc(img->size);
    copy_le_samples(tmp, di.pixels, img->size, di.bits_allocated);
    int same = memcmp(tmp, img->samples, img->size) == 0;
    free(tmp);
    if (!same) {
        die("%s: JPEG-LS decode differs from the pixels of %s", path, dcm);
    }
    img->desc.is_signed = di.pixel_rep ? 1u : 0u;
    snprintf(img->note, sizeof img->note,
             "JPEG-LS %d-bit; DICOM %u/%u/%u PR=%u (pixels identical)", fi.bits_per_sample,
             di.bits_allocated, di.bits_stored, di.high_bit, di.pixel_rep);
    free(ddata);
}

/* --raw PATH,W,H,C,BA,BS,SIGNED[,PLANAR] */
static void load_raw(const char *spec)
{
    char path[1024];
    const char *comma = strchr(spec, ',');
    if (!comma || (size_t)(comma - spec) >= sizeof path) {
        die("bad --raw spec '%s'", spec);
    }
    memcpy(path, spec, (size_t)(comma - spec));
    path[comma - spec] = '\0';
    unsigned w, h, c, ba, bs, sg, pl = 0;
    int k = sscanf(comma + 1, "%u,%u,%u,%u,%u,%u,%u", &w, &h, &c, &ba, &bs, &sg, &pl);
    if (k < 6) {
        die("bad --raw spec '%s' (PATH,W,H,C,BITS_ALLOCATED,BITS_STORED,SIGNED[,PLANAR])", spec);
    }
    uint8_t *data;
    size_t n;
    if (read_file(path, &data, &n) != 0) {
        die("cannot read %s: %s", path, strerror(errno));
    }
    bench_image *img = new_image(path);
    img->desc = (pcwt_image_desc){w, h, c, ba, bs, sg, pl};
    img->size = pcwt_image_size(&img->desc);
    if (img->size == 0 || n < img->size) {
        die("%s: %zu bytes, descriptor needs %zu", path, n, img->size);
    }
    img->samples = xmalloc(img->size);
    copy_le_samples(img->samples, data, img->size, ba);
    snprintf(img->note, sizeof img->note, "raw");
    free(data);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_path(const char *path);

static void load_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        die("cannot open directory %s", dir);
    }
    char *names[MAX_IMAGES];
    size_t count = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && count < MAX_IMAGES) {
        if (ends_with_ci(de->d_name, ".jls") || ends_with_ci(de->d_name, ".dcm")) {
            size_t len = strlen(dir) + strlen(de->d_name) + 2;
            names[count] = xmalloc(len);
            snprintf(names[count], len, "%s/%s", dir, de->d_name);
            ++count;
        }
    }
    closedir(d);
    qsort(names, count, sizeof names[0], cmp_str);
    for (size_t i = 0; i < count; ++i) {
        load_path(names[i]);
        free(names[i]);
    }
}

static void load_path(const char *path)
{
    if (is_dir(path)) {
        load_dir(path);
    } else if (ends_with_ci(path, ".jls")) {
        load_jls(path);
    } else if (ends_with_ci(path, ".dcm")) {
        load_dicom(path);
    } else {
        die("%s: unknown input type (expected .jls, .dcm, a directory, or --raw)", path);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Codecs
 * ------------------------------------------------------------------------------------------- */

typedef struct result {
    size_t raw, pcwt_bytes, charls_bytes;
    double pcwt_enc_s, pcwt_dec_s, charls_enc_s, charls_dec_s;
    int charls_bits;
} result;

static int g_repeats = 5;
static pcwt_encode_params g_params;

static void check_same(const char *what, const bench_image *img, const uint8_t *got)
{
    if (memcmp(got, img->samples, img->size) == 0) {
        return;
    }
    size_t first = 0;
    while (first < img->size && got[first] == img->samples[first]) {
        ++first;
    }
    fprintf(stderr,
            "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
            "!!! %s ROUND TRIP MISMATCH on %s (%s): first differing byte %zu of %zu\n"
            "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
            what, img->name, img->path, first, img->size);
    exit(1);
}

/* One codec's state for an image: its handles and buffers, and what its last run wrote. */
typedef struct pcwt_side {
    pcwt_encoder *enc;
    pcwt_decoder *dec;
    uint8_t *coded, *out;
    size_t bound, written;
} pcwt_side;

typedef struct charls_side {
    charls_jpegls_encoder *enc;
    uint8_t *coded, *out;
    size_t cap, written;
} charls_side;

static void pcwt_side_open(const bench_image *img, pcwt_side *p)
{
    p->enc = pcwt_encoder_create();
    p->dec = pcwt_decoder_create();
    if (!p->enc || !p->dec) {
        die("pcwt handle creation failed");
    }
    pcwt_status st = pcwt_encoder_set_params(p->enc, &g_params);
    if (st != PCWT_OK) {
        die("pcwt_encoder_set_params: %s (%s)", pcwt_status_string(st),
            pcwt_encoder_last_error(p->enc));
    }
    st = pcwt_decoder_set_backend(p->dec, PCWT_BACKEND_CPU);
    if (st != PCWT_OK) {
        die("pcwt_decoder_set_backend: %s", pcwt_status_string(st));
    }
    p->bound = pcwt_encode_bound(&img->desc);
    if (p->bound == 0) {
        die("%s: pcwt_encode_bound rejected the descriptor", img->name);
    }
    p->coded = xmalloc(p->bound);
    p->out = xmalloc(img->size);
    p->written = 0;
}

static double pcwt_side_encode(const bench_image *img, pcwt_side *p)
{
    double t0 = now_s();
    pcwt_status st = pcwt_encode(p->enc, &img->desc, img->samples, img->size, p->coded, p->bound,
                                 &p->written);
    double t1 = now_s();
    if (st != PCWT_OK) {
        die("%s: pcwt_encode: %s (%s)", img->name, pcwt_status_string(st),
            pcwt_encoder_last_error(p->enc));
    }
    return t1 - t0;
}

static double pcwt_side_decode(const bench_image *img, pcwt_side *p)
{
    memset(p->out, 0xA5, img->size);
    double t0 = now_s();
    pcwt_status st = pcwt_decode(p->dec, p->coded, p->written, p->out, img->size);
    double t1 = now_s();
    if (st != PCWT_OK) {
        die("%s: pcwt_decode: %s (%s)", img->name, pcwt_status_string(st),
            pcwt_decoder_last_error(p->dec));
    }
    check_same("PCWT", img, p->out);
    return t1 - t0;
}

static void pcwt_side_close(pcwt_side *p)
{
    free(p->out);
    free(p->coded);
    pcwt_decoder_destroy(p->dec);
    pcwt_encoder_destroy(p->enc);
}

static void charls_check(charls_jpegls_errc ec, const char *what, const bench_image *img)
{
    if (ec != CHARLS_JPEGLS_ERRC_SUCCESS) {
        die("%s: CharLS %s: %s", img->name, what, charls_get_error_message(ec));
    }
}

/* JPEG-LS has no sign and codes bits_per_sample bits: give CharLS the stored words as unsigned,
 * with bits_per_sample = bits_stored unless some word uses more bits (then bits_allocated). */
static int charls_bits_for(const bench_image *img)
{
    uint32_t bs = img->desc.bits_stored, ba = img->desc.bits_allocated;
    if (bs >= ba) {
        return (int)ba;
    }
    size_t count = img->size / (ba / 8);
    uint32_t limit = (1u << bs) - 1u;
    for (size_t i = 0; i < count; ++i) {
        uint32_t v;
        if (ba == 8) {
            v = img->samples[i];
        } else {
            uint16_t w;
            memcpy(&w, img->samples + 2 * i, 2);
            v = w;
        }
        if (v > limit) {
            return (int)ba;
        }
    }
    return (int)bs;
}

static void charls_side_open(const bench_image *img, charls_side *c, int bits)
{
    charls_frame_info fi = {img->desc.width, img->desc.height, bits, (int32_t)img->desc.components};
    charls_interleave_mode im = CHARLS_INTERLEAVE_MODE_NONE;
    if (img->desc.components == 3 && !img->desc.planar) {
        im = CHARLS_INTERLEAVE_MODE_SAMPLE;
    }
    c->enc = charls_jpegls_encoder_create();
    if (!c->enc) {
        die("charls_jpegls_encoder_create failed");
    }
    charls_check(charls_jpegls_encoder_set_frame_info(c->enc, &fi), "set_frame_info", img);
    charls_check(charls_jpegls_encoder_set_near_lossless(c->enc, 0), "set_near_lossless", img);
    charls_check(charls_jpegls_encoder_set_interleave_mode(c->enc, im), "set_interleave_mode",
                 img);
    c->cap = 0;
    charls_check(charls_jpegls_encoder_get_estimated_destination_size(c->enc, &c->cap), "estimate",
                 img);
    c->coded = xmalloc(c->cap);
    c->out = xmalloc(img->size);
    c->written = 0;
    charls_check(charls_jpegls_encoder_set_destination_buffer(c->enc, c->coded, c->cap), "set_dest",
                 img);
}

static double charls_side_encode(const bench_image *img, charls_side *c)
{
    double t0 = now_s();
    charls_jpegls_errc ec = charls_jpegls_encoder_rewind(c->enc);
    if (ec == CHARLS_JPEGLS_ERRC_SUCCESS) {
        ec = charls_jpegls_encoder_encode_from_buffer(c->enc, img->samples, img->size, 0);
    }
    double t1 = now_s();
    charls_check(ec, "encode", img);
    charls_check(charls_jpegls_encoder_get_bytes_written(c->enc, &c->written), "bytes_written",
                 img);
    return t1 - t0;
}

static double charls_side_decode(const bench_image *img, charls_side *c)
{
    memset(c->out, 0xA5, img->size);
    double t0 = now_s();
    /* A CharLS decoder decodes one codestream: creating it is part of decoding one image. */
    charls_jpegls_decoder *dec = charls_jpegls_decoder_create();
    if (!dec) {
        die("charls_jpegls_decoder_create failed");
    }
    charls_jpegls_errc ec = charls_jpegls_decoder_set_source_buffer(dec, c->coded, c->written);
    if (ec == CHARLS_JPEGLS_ERRC_SUCCESS) {
        ec = charls_jpegls_decoder_read_header(dec);
    }
    if (ec == CHARLS_JPEGLS_ERRC_SUCCESS) {
        ec = charls_jpegls_decoder_decode_to_buffer(dec, c->out, img->size, 0);
    }
    charls_jpegls_decoder_destroy(dec);
    double t1 = now_s();
    charls_check(ec, "decode", img);
    check_same("CharLS", img, c->out);
    return t1 - t0;
}

static void charls_side_close(charls_side *c)
{
    charls_jpegls_encoder_destroy(c->enc);
    free(c->out);
    free(c->coded);
}

/* Both codecs on one image. Their runs alternate (PCWT, CharLS, PCWT, ...), so that a machine
 * whose speed drifts, as a shared virtual machine's does, slows both alike: timing one codec's
 * runs and then the other's gave ratios 5% apart from one run of the benchmark to the next. */
static void bench_image_pair(const bench_image *img, result *res)
{
    pcwt_side p;
    charls_side c;
    res->charls_bits = charls_bits_for(img);
    pcwt_side_open(img, &p);
    charls_side_open(img, &c, res->charls_bits);
    double tp[MAX_REPEATS], tc[MAX_REPEATS];
    for (int i = -1; i < g_repeats; ++i) { /* i == -1: warm-up */
        const double a = pcwt_side_encode(img, &p), b = charls_side_encode(img, &c);
        if (i >= 0) {
            tp[i] = a;
            tc[i] = b;
        }
    }
    res->pcwt_enc_s = median(tp, g_repeats);
    res->charls_enc_s = median(tc, g_repeats);
    for (int i = -1; i < g_repeats; ++i) {
        const double a = pcwt_side_decode(img, &p), b = charls_side_decode(img, &c);
        if (i >= 0) {
            tp[i] = a;
            tc[i] = b;
        }
    }
    res->pcwt_dec_s = median(tp, g_repeats);
    res->charls_dec_s = median(tc, g_repeats);
    res->pcwt_bytes = p.written;
    res->charls_bytes = c.written;
    charls_side_close(&c);
    pcwt_side_close(&p);
}

/* ---------------------------------------------------------------------------------------------
 * Main
 * ------------------------------------------------------------------------------------------- */

static double mbps(size_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes / seconds / 1e6 : 0.0;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: pcwt_bench_cpu [-n REPEATS] [--levels L] [--group G] [--profile baseline|entropy]\n"
            "                      [--lifting rows|columns] [inputs...]\n"
            "  --group G: GxG groups (default, or 0: the profile's size); --lifting: the order of\n"
            "  the lifting passes (default: the profile's)\n"
            "  inputs: .jls/.JLS (decoded with CharLS), native .dcm, directories of those,\n"
            "          or --raw PATH,W,H,C,BITS_ALLOCATED,BITS_STORED,SIGNED[,PLANAR]\n"
            "  default: %s/testdata/wg04/jls and %s/testdata/wg04/dicom_unc/MR1_UNC.dcm\n",
            PCWT_SHARED_DIR, PCWT_SHARED_DIR);
}

static uint32_t parse_u32(const char *s, const char *opt)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v > 0xFFFFFFFFul) {
        usage();
        die("bad value '%s' for %s", s, opt);
    }
    return (uint32_t)v;
}

int main(int argc, char **argv)
{
    pcwt_encode_params_default(&g_params);
    g_params.backend = PCWT_BACKEND_CPU;
    int inputs = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        } else if ((strcmp(a, "-n") == 0 || strcmp(a, "--repeats") == 0) && i + 1 < argc) {
            uint32_t n = parse_u32(argv[++i], a);
            if (n < 1 || n > MAX_REPEATS) {
                die("repeats must be 1..%d", MAX_REPEATS);
            }
            g_repeats = (int)n;
        } else if (strcmp(a, "--levels") == 0 && i + 1 < argc) {
            g_params.levels = parse_u32(argv[++i], a);
        } else if (strcmp(a, "--group") == 0 && i + 1 < argc) {
            g_params.group_rows = g_params.group_cols = parse_u32(argv[++i], a);
        } else if (strcmp(a, "--profile") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "baseline") == 0) {
                g_params.profile = PCWT_PROFILE_BASELINE;
            } else if (strcmp(v, "entropy") == 0) {
                g_params.profile = PCWT_PROFILE_ENTROPY;
            } else {
                usage();
                die("bad value '%s' for --profile", v);
            }
        } else if (strcmp(a, "--lifting") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "rows") == 0) {
                g_params.lifting_order = PCWT_LIFTING_ROWS_FIRST;
            } else if (strcmp(v, "columns") == 0) {
                g_params.lifting_order = PCWT_LIFTING_COLUMNS_FIRST;
            } else {
                usage();
                die("bad value '%s' for --lifting", v);
            }
        } else if (strcmp(a, "--raw") == 0 && i + 1 < argc) {
            load_raw(argv[++i]);
            ++inputs;
        } else if (a[0] == '-') {
            usage();
            die("unknown option %s", a);
        } else {
            load_path(a);
            ++inputs;
        }
    }
    if (inputs == 0) {
        load_path(PCWT_SHARED_DIR "/testdata/wg04/jls");
        const char *mr1 = PCWT_SHARED_DIR "/testdata/wg04/dicom_unc/MR1_UNC.dcm";
        if (file_exists(mr1)) {
            load_path(mr1);
        } else {
            fprintf(stderr, "pcwt_bench_cpu: %s not found, MR1 skipped\n", mr1);
        }
    }
    if (g_image_count == 0) {
        die("no images");
    }

    const int entropy = g_params.profile == PCWT_PROFILE_ENTROPY; /* 0x0 groups: the profile's */
    const unsigned gr = g_params.group_rows ? g_params.group_rows
                        : entropy          ? PCWT_ENTROPY_GROUP_ROWS
                                           : PCWT_DEFAULT_GROUP;
    const unsigned gc = g_params.group_cols ? g_params.group_cols
                        : entropy          ? PCWT_ENTROPY_GROUP_COLS
                                           : PCWT_DEFAULT_GROUP;
    const int cols_first = g_params.lifting_order == PCWT_LIFTING_AUTO
                               ? entropy
                               : g_params.lifting_order == PCWT_LIFTING_COLUMNS_FIRST;
    printf("libpcwt %s (CPU backend, %s profile, %u levels, %ux%u groups, %s lifted first, min_ll "
           "%u) vs CharLS %s (near_lossless 0, default parameters)\n",
           pcwt_version_string(), entropy ? "entropy" : "baseline", g_params.levels, gr, gc,
           cols_first ? "columns" : "rows", g_params.min_ll, charls_get_version_string());
    printf("Single-threaded; 1 warm-up + median of %d runs, PCWT's and CharLS's alternating; "
           "MB/s = raw input bytes / 1e6 / s; ratio = raw bytes / coded bytes. Every round trip "
           "checked sample-exact.\n\n",
           g_repeats);
    printf("| image | size (WxHxC, bits stored, sign) | raw bytes | PCWT ratio | PCWT enc MB/s | "
           "PCWT dec MB/s | CharLS ratio | CharLS enc MB/s | CharLS dec MB/s |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    fflush(stdout);

    static result results[MAX_IMAGES];
    result tot = {0};
    for (int k = 0; k < g_image_count; ++k) {
        const bench_image *img = &g_images[k];
        result r = {0};
        r.raw = img->size;
        bench_image_pair(img, &r);
        printf("| %s | %ux%ux%u, %u bit, %s | %zu | %.3f | %.1f | %.1f | %.3f | %.1f | %.1f |\n",
               img->name, img->desc.width, img->desc.height, img->desc.components,
               img->desc.bits_stored, img->desc.is_signed ? "signed" : "unsigned", r.raw,
               (double)r.raw / (double)r.pcwt_bytes, mbps(r.raw, r.pcwt_enc_s),
               mbps(r.raw, r.pcwt_dec_s), (double)r.raw / (double)r.charls_bytes,
               mbps(r.raw, r.charls_enc_s), mbps(r.raw, r.charls_dec_s));
        fflush(stdout);
        results[k] = r;
        tot.raw += r.raw;
        tot.pcwt_bytes += r.pcwt_bytes;
        tot.charls_bytes += r.charls_bytes;
        tot.pcwt_enc_s += r.pcwt_enc_s;
        tot.pcwt_dec_s += r.pcwt_dec_s;
        tot.charls_enc_s += r.charls_enc_s;
        tot.charls_dec_s += r.charls_dec_s;
    }
    printf("| **all %d** | | %zu | %.3f | %.1f | %.1f | %.3f | %.1f | %.1f |\n", g_image_count,
           tot.raw, (double)tot.raw / (double)tot.pcwt_bytes, mbps(tot.raw, tot.pcwt_enc_s),
           mbps(tot.raw, tot.pcwt_dec_s), (double)tot.raw / (double)tot.charls_bytes,
           mbps(tot.raw, tot.charls_enc_s), mbps(tot.raw, tot.charls_dec_s));
    printf("\nCoded bytes: PCWT %zu, CharLS %zu (raw %zu).\n\nInputs:\n", tot.pcwt_bytes,
           tot.charls_bytes, tot.raw);
    for (int k = 0; k < g_image_count; ++k) {
        const bench_image *img = &g_images[k];
        printf("- %s: %s (%s)", img->name, img->path, img->note);
        if ((uint32_t)results[k].charls_bits != img->desc.bits_stored) {
            printf(" [CharLS coded %d-bit words: some samples use bits above bits stored]",
                   results[k].charls_bits);
        }
        printf("\n");
    }
    for (int k = 0; k < g_image_count; ++k) {
        free(g_images[k].samples);
    }
    return 0;
}
