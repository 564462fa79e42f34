/*
 * pcwt_testgen.c - makes inputs for the pcwt command-line tests, and damages files on purpose.
 *
 *   pcwt_testgen raw OUT W H C BITS STORED SIGNED SEED [garbage]
 *       one frame of little-endian samples (1 byte each for BITS 8, 2 for 16): a gradient with
 *       noise, the extreme values of STORED bits, and (garbage) random bits above STORED in one
 *       sample of five. Signed samples are sign-extended to BITS.
 *   pcwt_testgen pnm OUT W H C MAXVAL SEED [RAW_OUT [PLANAR_RAW_OUT]]
 *       a P5 (C 1) or P6 (C 3) image, big-endian when MAXVAL > 255; RAW_OUT gets the same
 *       samples as a raw little-endian file (8 or 16 bits allocated after MAXVAL), and
 *       PLANAR_RAW_OUT the same again with the components as whole planes.
 *   pcwt_testgen flip FILE OFFSET       XOR 0xFF into the byte at OFFSET ("mid": the middle)
 *   pcwt_testgen truncate IN OUT KEEP   copy the first KEEP bytes ("half": half of them)
 *   pcwt_testgen bomb OUT W H LEVELS    a valid codestream of an all-zero 8-bit W x H image
 *
 * Exit status 0, or 1 with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint32_t rng(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "pcwt_testgen: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    exit(1);
}

static unsigned long number(const char *s)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0')
        die("not a number:", s);
    return v;
}

/* Sample i of n, in [lo, hi]: gradient plus noise, extremes at the ends, random spikes. */
static long sample_value(size_t i, size_t n, uint32_t width, long lo, long hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    size_t x = i % width, y = i / width;
    long v;
    if (i == 0)
        return lo;
    if (i + 1 == n)
        return hi;
    if (i % 11 == 3)
        return lo + (long)(rng() % span);
    v = lo + (long)((x * 3 + y * 5) % span) + (long)(rng() % 33) - 16;
    return v < lo ? lo : v > hi ? hi : v;
}

static FILE *open_out(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create", path);
    return f;
}

static void close_out(FILE *f, const char *path)
{
    if (ferror(f) || fclose(f) != 0)
        die("cannot write", path);
}

static int cmd_raw(int argc, char **argv)
{
    uint32_t w, h, c, bits, stored, is_signed, garbage;
    size_t n, i;
    long lo, hi;
    FILE *f;
    if (argc != 10 && argc != 11)
        die("raw needs OUT W H C BITS STORED SIGNED SEED [garbage]", NULL);
    w = (uint32_t)number(argv[3]);
    h = (uint32_t)number(argv[4]);
    c = (uint32_t)number(argv[5]);
    bits = (uint32_t)number(argv[6]);
    stored = (uint32_t)number(argv[7]);
    is_signed = (uint32_t)number(argv[8]);
    rng_state = number(argv[9]) * 2654435761u + 1;
    garbage = argc == 11 && strcmp(argv[10], "garbage") == 0;
    if ((bits != 8 && bits != 16) || stored < 1 || stored > bits)
        die("bad BITS/STORED", NULL);
    lo = is_signed ? -(1L << (stored - 1)) : 0;
    hi = is_signed ? (1L << (stored - 1)) - 1 : (1L << stored) - 1;
    n = (size_t)w * h * c;
    f = open_out(argv[2]);
    for (i = 0; i < n; i++) {
        uint32_t word = (uint32_t)sample_value(i, n, w, lo, hi) & ((1u << bits) - 1u);
        if (garbage && stored < bits && i % 5 == 2) {
            uint32_t high = ((1u << bits) - 1u) & ~((1u << stored) - 1u);
            word = (word & ~high) | (rng() & high) | (1u << (bits - 1)); /* top bit always set */
        }
        fputc((int)(word & 0xFFu), f);
        if (bits == 16)
            fputc((int)(word >> 8), f);
    }
    close_out(f, argv[2]);
    return 0;
}

static int cmd_pnm(int argc, char **argv)
{
    uint32_t w, h, c, maxval;
    size_t n, i, bps;
    FILE *f, *raw = NULL, *planar = NULL;
    unsigned char *planes;
    if (argc < 8 || argc > 10)
        die("pnm needs OUT W H C MAXVAL SEED [RAW_OUT [PLANAR_RAW_OUT]]", NULL);
    w = (uint32_t)number(argv[3]);
    h = (uint32_t)number(argv[4]);
    c = (uint32_t)number(argv[5]);
    maxval = (uint32_t)number(argv[6]);
    rng_state = number(argv[7]) * 2654435761u + 1;
    if ((c != 1 && c != 3) || maxval < 1 || maxval > 65535)
        die("bad C/MAXVAL", NULL);
    n = (size_t)w * h * c;
    bps = maxval > 255 ? 2 : 1;
    planes = malloc(n * bps + 1);
    if (!planes)
        die("out of memory", NULL);
    f = open_out(argv[2]);
    if (argc >= 9)
        raw = open_out(argv[8]);
    if (argc == 10)
        planar = open_out(argv[9]);
    fprintf(f, "P%c\n%lu %lu\n%lu\n", c == 1 ? '5' : '6', (unsigned long)w, (unsigned long)h,
            (unsigned long)maxval);
    for (i = 0; i < n; i++) {
        uint32_t v = (uint32_t)sample_value(i, n, w, 0, (long)maxval);
        if (maxval > 255) {
            fputc((int)(v >> 8), f);
            fputc((int)(v & 0xFFu), f);
        } else {
            fputc((int)v, f);
        }
        if (raw) {
            fputc((int)(v & 0xFFu), raw);
            if (maxval > 255)
                fputc((int)(v >> 8), raw);
        }
        {
            size_t at = ((i % c) * (n / c) + i / c) * bps; /* component plane, then pixel */
            planes[at] = (unsigned char)(v & 0xFFu);
            if (bps == 2)
                planes[at + 1] = (unsigned char)(v >> 8);
        }
    }
    if (planar) {
        fwrite(planes, 1, n * bps, planar);
        close_out(planar, argv[9]);
    }
    free(planes);
    close_out(f, argv[2]);
    if (raw)
        close_out(raw, argv[8]);
    return 0;
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    size_t cap = 0;
    if (!f)
        die("cannot open", path);
    *size = 0;
    for (;;) {
        size_t got;
        if (*size == cap) {
            cap = cap ? cap * 2 : 65536;
            data = realloc(data, cap);
            if (!data)
                die("out of memory", NULL);
        }
        got = fread(data + *size, 1, cap - *size, f);
        *size += got;
        if (got == 0)
            break;
    }
    fclose(f);
    return data;
}

static int cmd_flip(int argc, char **argv)
{
    size_t size, at;
    unsigned char *data;
    FILE *f;
    if (argc != 4)
        die("flip needs FILE OFFSET", NULL);
    data = slurp(argv[2], &size);
    at = strcmp(argv[3], "mid") == 0 ? size / 2 : (size_t)number(argv[3]);
    if (at >= size)
        die("offset past the end of", argv[2]);
    data[at] ^= 0xFFu;
    f = open_out(argv[2]);
    fwrite(data, 1, size, f);
    close_out(f, argv[2]);
    free(data);
    return 0;
}

static int cmd_truncate(int argc, char **argv)
{
    size_t size, keep;
    unsigned char *data;
    FILE *f;
    if (argc != 5)
        die("truncate needs IN OUT KEEP", NULL);
    data = slurp(argv[2], &size);
    keep = strcmp(argv[4], "half") == 0 ? size / 2 : (size_t)number(argv[4]);
    if (keep > size)
        die("KEEP is larger than", argv[2]);
    f = open_out(argv[3]);
    fwrite(data, 1, keep, f);
    close_out(f, argv[3]);
    free(data);
    return 0;
}

static uint32_t crc32_of(const unsigned char *p, size_t n, uint32_t crc)
{
    crc = ~crc;
    while (n--) {
        int k;
        crc ^= *p++;
        for (k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put_le(unsigned char *d, uint64_t v, int bytes)
{
    int i;
    for (i = 0; i < bytes; i++)
        d[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t even_up(uint32_t n) { return n + (n & 1u); }

static uint64_t groups_of(uint32_t band_r, uint32_t band_c, uint32_t g)
{
    const uint64_t mr = band_r / 2, mc = band_c / 2;
    return ((mr + g - 1) / g) * ((mc + g - 1) / g);
}

/* A valid baseline codestream of an all-zero 8-bit grey W x H image with L levels and 256 x 256
 * groups (docs/FORMAT.md Sec. 1, 3, 4): Qmax -1, so every element codes in 0 bits and the payload
 * is one zero u32 per group. A few KB declare up to 65535 x 65535 samples: a decompression bomb
 * for the decoders' memory limits. */
static int cmd_bomb(int argc, char **argv)
{
    unsigned char h[48];
    uint32_t w, ht, levels, r, c, l, crc = 0;
    uint64_t groups, len, i;
    const uint32_t g = 256;
    static const unsigned char zeros[4096];
    FILE *f;
    if (argc != 6)
        die("bomb needs OUT W H LEVELS", NULL);
    w = (uint32_t)number(argv[3]);
    ht = (uint32_t)number(argv[4]);
    levels = (uint32_t)number(argv[5]);
    r = even_up(ht);
    c = even_up(w);
    groups = 0;
    for (l = 0; l < levels; l++) { /* HL, LH and HH of each level */
        r = even_up(r / 2);
        c = even_up(c / 2);
        groups += 3 * groups_of(r, c, g);
    }
    groups += groups_of(r, c, g); /* the top LL band */
    len = 4 * groups;
    memset(h, 0, sizeof h);
    memcpy(h, "PCWT", 4);
    h[4] = 1;
    put_le(h + 6, sizeof h, 2);
    put_le(h + 8, w, 4);
    put_le(h + 12, ht, 4);
    h[16] = 1;
    h[17] = 8;
    h[18] = 8;
    h[20] = (unsigned char)levels;
    h[21] = 1;
    put_le(h + 22, g, 2);
    put_le(h + 24, g, 2);
    h[28 + 2] = 0xFF; /* Qmax -1 */
    put_le(h + 28 + 4, len, 8);
    for (i = 0; i < len; i += sizeof zeros)
        crc = crc32_of(zeros, len - i < sizeof zeros ? (size_t)(len - i) : sizeof zeros, crc);
    put_le(h + 28 + 12, crc, 4);
    put_le(h + 44, crc32_of(h, 44, 0), 4);
    f = open_out(argv[2]);
    fwrite(h, 1, sizeof h, f);
    for (i = 0; i < len; i += sizeof zeros)
        fwrite(zeros, 1, len - i < sizeof zeros ? (size_t)(len - i) : sizeof zeros, f);
    close_out(f, argv[2]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "bomb") == 0)
        return cmd_bomb(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "raw") == 0)
        return cmd_raw(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "pnm") == 0)
        return cmd_pnm(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "flip") == 0)
        return cmd_flip(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "truncate") == 0)
        return cmd_truncate(argc, argv);
    die("usage: pcwt_testgen raw|pnm|flip|truncate|bomb ... (see the source)", NULL);
    return 1;
}
