/*
 * make_seeds.c - writes the seed corpora of the libpcwt fuzzers.
 *
 *   pcwt_fuzz_make_seeds DECODE_SEEDS_DIR [ROUNDTRIP_SEEDS_DIR [DICOM_SEEDS_DIR]]
 *
 * DECODE_SEEDS_DIR receives small valid codestreams of synthetic images covering the header
 * variants (8 and 16 bit, signed and unsigned, bits above bits_stored set, 1 and 3 components,
 * interleaved and planar, odd and degenerate sizes, several levels / group sizes), each in the
 * baseline, the entropy profile and the compact profile with value maps forced on (so that the
 * decoder's value-map reader is reached); libFuzzer
 * mutates them, which exercises the decoder behind a valid header. ROUNDTRIP_SEEDS_DIR receives
 * inputs in fuzz_roundtrip's format. Everything is deterministic (fixed PRNG).
 */
#define _POSIX_C_SOURCE 200809L

#include <pcwt.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint32_t g_rng = 0x12345678u;

static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

typedef enum pattern { SMOOTH, NOISE, CT_LIKE, HIGH_GARBAGE, CONSTANT } pattern;

typedef struct seed_spec {
    const char *name;
    pcwt_image_desc desc;
    uint32_t levels, group_rows, group_cols, min_ll;
    pattern pat;
} seed_spec;

/* Value of sample (x, y, c) before it is fitted into a word. */
static int32_t sample_value(const seed_spec *s, uint32_t x, uint32_t y, uint32_t c)
{
    const pcwt_image_desc *d = &s->desc;
    int32_t range = (int32_t)(1u << (d->bits_stored < 31 ? d->bits_stored : 30));
    int32_t lo = d->is_signed ? -range / 2 : 0;
    switch (s->pat) {
    case SMOOTH:
        return lo + (int32_t)((x * 7u + y * 3u + c * 11u + (rnd() & 3u)) % (uint32_t)range);
    case NOISE:
        return lo + (int32_t)(rnd() % (uint32_t)range);
    case CT_LIKE: { /* air around a disc of tissue, with noise */
        int32_t dx = (int32_t)x - (int32_t)(d->width / 2), dy = (int32_t)y - (int32_t)(d->height / 2);
        int32_t r2 = (int32_t)(d->width * d->width / 9u);
        int32_t v = (dx * dx + dy * dy < r2) ? 40 + (int32_t)(rnd() % 30u) : -1000 - (int32_t)(rnd() % 24u);
        if (v < lo) {
            v = lo;
        }
        if (v > lo + range - 1) {
            v = lo + range - 1;
        }
        return v;
    }
    case HIGH_GARBAGE:
        return lo + (int32_t)((x + y * 5u + c) % (uint32_t)range);
    case CONSTANT:
    default:
        return lo + range / 3;
    }
}

static void fill(const seed_spec *s, uint8_t *buf)
{
    const pcwt_image_desc *d = &s->desc;
    uint32_t bs = d->bits_stored, ba = d->bits_allocated;
    uint32_t mask = (bs >= 32) ? 0xFFFFFFFFu : ((1u << bs) - 1u);
    uint32_t word_mask = (ba == 8) ? 0xFFu : 0xFFFFu;
    for (uint32_t y = 0; y < d->height; ++y) {
        for (uint32_t x = 0; x < d->width; ++x) {
            for (uint32_t c = 0; c < d->components; ++c) {
                uint32_t w = (uint32_t)sample_value(s, x, y, c) & mask; /* two's complement in bs bits */
                if (s->pat == HIGH_GARBAGE && bs < ba && ((x ^ y) & 3u) == 0) {
                    w |= (rnd() << bs) & word_mask; /* junk above bits_stored */
                }
                /* Index in the requested layout. */
                size_t idx;
                if (d->components == 3 && d->planar) {
                    idx = (size_t)c * d->width * d->height + (size_t)y * d->width + x;
                } else {
                    idx = ((size_t)y * d->width + x) * d->components + c;
                }
                if (ba == 8) {
                    buf[idx] = (uint8_t)w;
                } else {
                    uint16_t h = (uint16_t)w;
                    memcpy(buf + 2 * idx, &h, 2);
                }
            }
        }
    }
}

static int write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "make_seeds: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t n = fwrite(data, 1, size, f);
    int rc = fclose(f);
    if (n != size || rc != 0) {
        fprintf(stderr, "make_seeds: short write to %s\n", path);
        return -1;
    }
    return 0;
}

/* mkdir -p */
static int make_dir(const char *dir)
{
    char path[1024];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        fprintf(stderr, "make_seeds: bad directory name '%s'\n", dir);
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (path[i] == '/' || path[i] == '\0') {
            char saved = path[i];
            path[i] = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "make_seeds: cannot create %s: %s\n", path, strerror(errno));
                return -1;
            }
            path[i] = saved;
        }
    }
    return 0;
}

#define D(w, h, c, ba, bs, sg, pl) {w, h, c, ba, bs, sg, pl}

static const seed_spec k_seeds[] = {
    {"u8_17x13", D(17, 13, 1, 8, 8, 0, 0), 6, 32, 32, 2, SMOOTH},
    {"u16_12bit_33x31", D(33, 31, 1, 16, 12, 0, 0), 6, 32, 32, 2, SMOOTH},
    {"s16_ct_40x9_l3_g8", D(40, 9, 1, 16, 16, 1, 0), 3, 8, 8, 2, CT_LIKE},
    {"s16_12bit_garbage_23x29", D(23, 29, 1, 16, 12, 1, 0), 6, 32, 32, 2, HIGH_GARBAGE},
    {"u16_12bit_garbage_19x21", D(19, 21, 1, 16, 12, 0, 0), 2, 16, 4, 1, HIGH_GARBAGE},
    {"rgb8_21x19", D(21, 19, 3, 8, 8, 0, 0), 6, 32, 32, 2, SMOOTH},
    {"rgb16_10bit_planar_15x7_g4x5", D(15, 7, 3, 16, 10, 0, 1), 6, 4, 5, 2, NOISE},
    {"s8_7bit_garbage_planar_30x30", D(30, 30, 3, 8, 7, 1, 1), 4, 8, 8, 3, HIGH_GARBAGE},
    {"u8_1x1", D(1, 1, 1, 8, 8, 0, 0), 6, 32, 32, 2, SMOOTH},
    {"u16_9bit_1x37", D(1, 37, 1, 16, 9, 0, 0), 6, 32, 32, 2, SMOOTH},
    {"u16_9bit_37x1", D(37, 1, 1, 16, 9, 0, 0), 6, 32, 32, 2, SMOOTH},
    {"u8_1bit_16x16_l0", D(16, 16, 1, 8, 1, 0, 0), 0, 32, 32, 2, NOISE},
    {"u16_noise_48x40_g3x7", D(48, 40, 1, 16, 16, 0, 0), 6, 3, 7, 1, NOISE},
    {"s16_15bit_const_64x64_l10", D(64, 64, 1, 16, 15, 1, 0), 10, 256, 256, 1, CONSTANT},
    {"u16_16bit_ct_129x65_g1", D(129, 65, 1, 16, 16, 0, 0), 5, 1, 1, 2, CT_LIKE},
};

/* fuzz_roundtrip input header (see fuzz_roundtrip.c): 8 parameter bytes, then sample bytes. */
static const uint8_t k_roundtrip_seeds[][8] = {
    {0x00, 7, 16, 12, 6, 31, 31, 1},    /* 8-bit gray 17x13, 6 levels, 32x32 */
    {0x02, 11, 32, 30, 6, 31, 31, 1},   /* 16-bit 12-bit unsigned 33x31 */
    {0x06, 15, 39, 8, 3, 7, 7, 1},      /* 16-bit signed 16 */
    {0x0B, 9, 14, 6, 6, 3, 4, 1},       /* rgb 16-bit 10-bit planar */
    {0x01, 7, 20, 18, 6, 31, 31, 1},    /* rgb 8-bit interleaved */
    {0x12, 11, 32, 30, 0, 0, 0, 0},     /* JPEG-LS 16-bit 12-bit gray */
    {0x16, 15, 39, 8, 0, 0, 0, 3},      /* JPEG-LS 16-bit signed, restart every 3 lines */
    {0x31, 7, 20, 18, 0, 0, 0, 0},      /* JPEG-LS rgb 8-bit, line interleave */
    {0x5B, 9, 14, 6, 0, 0, 0, 0},       /* JPEG-LS rgb 16-bit 10-bit planar input, sample interleave */
    {0x22, 11, 32, 30, 6, 31, 31, 1},   /* entropy profile, 16-bit 12-bit unsigned 33x31 */
    {0x26, 15, 39, 8, 3, 7, 7, 1},      /* entropy profile, 16-bit signed 16 */
    {0x2B, 9, 14, 6, 6, 3, 4, 1},       /* entropy profile, rgb 16-bit 10-bit planar */
    {0x62, 11, 32, 30, 6, 31, 31, 1},   /* compact profile, value maps on, 16-bit 12-bit 33x31 */
    {0x46, 15, 39, 8, 3, 7, 7, 1},      /* compact profile, automatic, 16-bit signed 16 */
    {0x42, 11, 32, 30, 6, 31, 31, 0x11}, /* compact profile, modular offset on, 16-bit 12-bit */
    {0x44, 7, 20, 18, 6, 31, 31, 0x21}, /* compact profile, modular offset auto, signed 8-bit */
    {0x4B, 9, 14, 6, 6, 3, 4, 0x11},    /* compact profile, offset on, rgb 16-bit 10-bit planar */
};

/* Seeds of fuzz_dicom (layout in fuzz_dicom.c): valid pixel modules with the exact, padded and
 * wrong Pixel Data lengths, each followed by an offset table part. */
static int write_dicom_seeds(const char *dir)
{
    static const struct {
        uint16_t rows, cols;
        uint8_t spp, ba, bs, hb, pr, planar, flags, pi;
        uint32_t frames, length;
    } mods[] = {
        {512, 512, 1, 16, 12, 11, 0, 0, 0, 2, 1, 524288},  /* CT, exact */
        {256, 512, 1, 16, 16, 15, 1, 0, 0, 2, 1, 524288},  /* Rows halved */
        {7, 7, 1, 8, 8, 7, 0, 0, 0, 2, 3, 148},            /* odd total + pad byte */
        {16, 16, 3, 8, 8, 7, 0, 1, 1, 4, 2, 1536},         /* RGB planar */
        {40, 56, 1, 8, 1, 0, 0, 0, 0, 2, 2, 4480},         /* BitsStored 1 mask */
        {64, 64, 1, 16, 12, 15, 1, 0, 0, 1, 40000, 1000},  /* short, many frames */
    };
    if (make_dir(dir) != 0)
        return -1;
    for (size_t k = 0; k < sizeof mods / sizeof mods[0]; ++k) {
        uint8_t b[20 + 2 + 8 + 16];
        memset(b, 0, sizeof b);
        b[0] = (uint8_t)mods[k].rows;
        b[1] = (uint8_t)(mods[k].rows >> 8);
        b[2] = (uint8_t)mods[k].cols;
        b[3] = (uint8_t)(mods[k].cols >> 8);
        b[4] = mods[k].spp;
        b[5] = mods[k].ba;
        b[6] = mods[k].bs;
        b[7] = mods[k].hb;
        b[8] = mods[k].pr;
        b[9] = mods[k].planar;
        b[10] = mods[k].flags;
        b[11] = mods[k].pi;
        for (int i = 0; i < 4; ++i) {
            b[12 + i] = (uint8_t)(mods[k].frames >> (8 * i));
            b[16 + i] = (uint8_t)(mods[k].length >> (8 * i));
        }
        /* 4 frames in 4 fragments of 100, 201, 50, 7 bytes, and their table (0, 108, 318, 376) */
        static const uint8_t bot[] = {4, 4, 100, 0, 201, 0, 50, 0, 7, 0,
                                      0, 0, 0, 0, 108, 0, 0, 0, 62, 1, 0, 0, 120, 1, 0, 0};
        memcpy(b + 20, bot, sizeof bot < sizeof b - 20 ? sizeof bot : sizeof b - 20);
        char name[64];
        snprintf(name, sizeof name, "dicom_%02zu.bin", k);
        if (write_file(dir, name, b, sizeof b) != 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s DECODE_SEEDS_DIR [ROUNDTRIP_SEEDS_DIR [DICOM_SEEDS_DIR]]\n",
                argv[0]);
        return 2;
    }
    if (make_dir(argv[1]) != 0) {
        return 1;
    }
    pcwt_encoder *enc = pcwt_encoder_create();
    if (!enc) {
        fprintf(stderr, "make_seeds: pcwt_encoder_create failed\n");
        return 1;
    }
    int failures = 0;
    /* Every seed in every profile: baseline, entropy (the second mantissa bit raw: without option
     * bit 4), then compact (value maps on, the 5/11-C level-1 filter, the second mantissa bit
     * modelled), compact again with a modular offset on every plane that allows one (option bit
     * 3), and compact with the low bits modelled as well (option bits 0 and 4). */
    static const char *const suffix[] = {"", "_entropy", "_compact", "_offset", "_lowbits"};
    const size_t nseeds = sizeof k_seeds / sizeof k_seeds[0];
    for (size_t k = 0; k < 5 * nseeds; ++k) {
        const seed_spec *s = &k_seeds[k % nseeds];
        pcwt_encode_params p;
        pcwt_encode_params_default(&p);
        p.levels = s->levels;
        p.group_rows = s->group_rows;
        p.group_cols = s->group_cols;
        p.min_ll = s->min_ll;
        p.backend = PCWT_BACKEND_CPU;
        p.profile = k < nseeds ? PCWT_PROFILE_BASELINE : k < 2 * nseeds ? PCWT_PROFILE_ENTROPY : PCWT_PROFILE_COMPACT;
        if (k >= 3 * nseeds && k < 4 * nseeds)
            p.offset = PCWT_OFFSET_ON;
        if (k >= 4 * nseeds)
            p.low_bits = PCWT_LOW_BITS_ON;
        if (p.profile == PCWT_PROFILE_ENTROPY)
            p.second_bit = PCWT_SECOND_BIT_OFF;
        p.value_map = PCWT_VALUE_MAP_ON;
        if (p.profile == PCWT_PROFILE_COMPACT) /* and option bit 2: the 5/11-C filter at level 1 */
            p.level1_filter = PCWT_LEVEL1_511;
        size_t size = pcwt_image_size(&s->desc);
        size_t bound = pcwt_encode_bound(&s->desc);
        if (size == 0 || bound == 0) {
            fprintf(stderr, "make_seeds: %s: descriptor rejected\n", s->name);
            ++failures;
            continue;
        }
        uint8_t *img = malloc(size);
        uint8_t *cs = malloc(bound);
        if (!img || !cs) {
            fprintf(stderr, "make_seeds: out of memory\n");
            return 1;
        }
        fill(s, img);
        size_t written = 0;
        pcwt_status st = pcwt_encoder_set_params(enc, &p);
        if (st == PCWT_OK) {
            st = pcwt_encode(enc, &s->desc, img, size, cs, bound, &written);
        }
        if (st != PCWT_OK) {
            fprintf(stderr, "make_seeds: %s: %s (%s)\n", s->name, pcwt_status_string(st),
                    pcwt_encoder_last_error(enc));
            ++failures;
        } else {
            char name[128];
            snprintf(name, sizeof name, "%02zu_%s%s.pcwt", k, s->name, suffix[k / nseeds]);
            if (write_file(argv[1], name, cs, written) != 0) {
                ++failures;
            } else {
                printf("make_seeds: %s (%zu -> %zu bytes)\n", name, size, written);
            }
        }
        free(cs);
        free(img);
    }
    pcwt_encoder_destroy(enc);

    if (argc == 4 && write_dicom_seeds(argv[3]) != 0)
        ++failures;
    if (argc >= 3) {
        if (make_dir(argv[2]) != 0) {
            return 1;
        }
        for (size_t k = 0; k < sizeof k_roundtrip_seeds / sizeof k_roundtrip_seeds[0]; ++k) {
            uint8_t buf[8 + 512];
            memcpy(buf, k_roundtrip_seeds[k], 8);
            for (size_t i = 8; i < sizeof buf; ++i) {
                buf[i] = (uint8_t)((i * 13u) ^ (rnd() & 7u));
            }
            char name[64];
            snprintf(name, sizeof name, "rt_%02zu.bin", k);
            if (write_file(argv[2], name, buf, sizeof buf) != 0) {
                ++failures;
            }
        }
    }
    if (failures) {
        fprintf(stderr, "make_seeds: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
