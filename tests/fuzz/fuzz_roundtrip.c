/*
 * fuzz_roundtrip.c - libFuzzer target: arbitrary image + parameters -> pcwt_encode ->
 * pcwt_read_header -> pcwt_decode, which must give back every bit of every input word.
 *
 * Input layout (all values reduced into range, so every input is a valid request):
 *   byte 0  flags: bit0 3 components, bit1 16-bit words, bit2 signed, bit3 planar,
 *           bit4 codec JPEG-LS (PCWT_CODEC_JPEGLS) instead of PCWT, bits5-6 JPEG-LS interleave;
 *           PCWT: bit5 the entropy profile (PCWT_PROFILE_ENTROPY) instead of the baseline; bit6
 *           the compact profile (value maps automatic, or forced on with bit5); bit7 with
 *           either, the level-1 filter automatic (5/3 or 5/11-C per plane)
 *   byte 1  bits_stored - 1 (mod bits_allocated)
 *   byte 2  width - 1  (mod 96)      byte 3  height - 1 (mod 96)
 *   byte 4  levels (mod PCWT_MAX_LEVELS + 1)
 *   byte 5  group_rows - 1           byte 6  group_cols - 1   (1..256)
 *   byte 7  min_ll - 1 (mod 8); compact profile: bit4 the modular offset on, else bit5 automatic
 *           (else off); entropy and compact profiles: bit6 the second mantissa bit off, bit7 the
 *           low bits modelled on; JPEG-LS: restart interval in lines (0..255)
 *   rest    sample bytes, in host order, repeated cyclically when shorter than the image
 *           (all zero when empty). Bits above bits_stored are kept: the codec must preserve them.
 *
 * JPEG-LS mode (the fallback encoder behind pcwt_encode): JPEG-LS cannot carry bits above
 * bits_stored, so the words are first made canonical (zero / sign extension) and bits_stored is
 * at least 2; the encode must then succeed within pcwt_encode_bound. With CharLS available
 * (PCWT_FUZZ_HAVE_CHARLS) the codestream is decoded by CharLS and compared sample by sample, and
 * without restart markers it must be byte-identical to CharLS's own encoding (libpcwt's claim).
 */
#include <pcwt.h>

#ifdef PCWT_FUZZ_HAVE_CHARLS
#include <charls/charls.h>
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RT_FAIL(...)                                                                            \
    do {                                                                                        \
        fprintf(stderr, "fuzz_roundtrip: " __VA_ARGS__);                                        \
        fprintf(stderr, "\n  desc %ux%ux%u ba %u bs %u signed %u planar %u; codec %s, levels %u " \
                        "group %ux%u min_ll %u, interleave %u restart %u\n",                    \
                d.width, d.height, d.components, d.bits_allocated, d.bits_stored, d.is_signed,  \
                d.planar, p.codec == PCWT_CODEC_JPEGLS ? "JPEG-LS" : "PCWT", p.levels,          \
                p.group_rows, p.group_cols, p.min_ll, p.jpegls_interleave,                      \
                p.jpegls_restart_interval);                                                     \
        abort();                                                                                \
    } while (0)

static uint32_t word_at(const uint8_t *buf, uint32_t bits_allocated, size_t index)
{
    if (bits_allocated == 8) {
        return buf[index];
    }
    uint16_t w;
    memcpy(&w, buf + 2 * index, 2);
    return w;
}

static void set_word(uint8_t *buf, uint32_t bits_allocated, size_t index, uint32_t w)
{
    if (bits_allocated == 8) {
        buf[index] = (uint8_t)w;
    } else {
        uint16_t h = (uint16_t)w;
        memcpy(buf + 2 * index, &h, 2);
    }
}

/* Index of sample (c, y, x) in a buffer of the given layout. */
static size_t sample_index(const pcwt_image_desc *d, int planar, uint32_t c, uint32_t y, uint32_t x)
{
    if (planar) {
        return ((size_t)c * d->height + y) * d->width + x;
    }
    return ((size_t)y * d->width + x) * d->components + c;
}

/* Zero- or sign-extend every word from bits_stored to bits_allocated (what JPEG-LS can carry). */
static void canonicalise(const pcwt_image_desc *d, uint8_t *img, size_t count)
{
    const uint32_t bs = d->bits_stored;
    const uint32_t low = (1u << bs) - 1u;
    const uint32_t word = d->bits_allocated == 8 ? 0xFFu : 0xFFFFu;
    for (size_t i = 0; i < count; ++i) {
        uint32_t v = word_at(img, d->bits_allocated, i) & low;
        if (d->is_signed && (v >> (bs - 1u))) {
            v |= word & ~low;
        }
        set_word(img, d->bits_allocated, i, v);
    }
}

/* JPEG-LS output of pcwt_encode: structure, and with CharLS decode + byte identity. */
static void check_jpegls(const pcwt_image_desc *dp, const pcwt_encode_params *pp,
                         const uint8_t *img, const uint8_t *cs, size_t written)
{
    const pcwt_image_desc d = *dp;
    const pcwt_encode_params p = *pp;
    if (written < 4 || cs[0] != 0xFF || cs[1] != 0xD8 || cs[written - 2] != 0xFF ||
        cs[written - 1] != 0xD9) {
        RT_FAIL("JPEG-LS codestream lacks SOI/EOI (%zu bytes)", written);
    }
#ifdef PCWT_FUZZ_HAVE_CHARLS
    const uint32_t interleave = d.components == 1 ? 0u : p.jpegls_interleave;
    charls_jpegls_decoder *cd = charls_jpegls_decoder_create();
    if (!cd) {
        abort();
    }
    charls_frame_info fi;
    charls_interleave_mode im = CHARLS_INTERLEAVE_MODE_NONE;
    int32_t near_lossless = -1;
    size_t need = 0;
    charls_jpegls_errc ec = charls_jpegls_decoder_set_source_buffer(cd, cs, written);
    if (!ec) ec = charls_jpegls_decoder_read_header(cd);
    if (!ec) ec = charls_jpegls_decoder_get_frame_info(cd, &fi);
    if (!ec) ec = charls_jpegls_decoder_get_interleave_mode(cd, &im);
    if (!ec) ec = charls_jpegls_decoder_get_near_lossless(cd, 0, &near_lossless);
    if (!ec) ec = charls_jpegls_decoder_get_destination_size(cd, 0, &need);
    if (ec) {
        RT_FAIL("CharLS cannot read the JPEG-LS header: %s", charls_get_error_message(ec));
    }
    if (fi.width != d.width || fi.height != d.height || fi.bits_per_sample != (int32_t)d.bits_stored ||
        fi.component_count != (int32_t)d.components || (uint32_t)im != interleave ||
        near_lossless != 0) {
        RT_FAIL("JPEG-LS header says %ux%u, %d bits, %d components, interleave %d, near %d",
                fi.width, fi.height, fi.bits_per_sample, fi.component_count, (int)im,
                near_lossless);
    }
    uint8_t *dec = malloc(need ? need : 1);
    if (!dec) {
        abort();
    }
    ec = charls_jpegls_decoder_decode_to_buffer(cd, dec, need, 0);
    charls_jpegls_decoder_destroy(cd);
    if (ec) {
        RT_FAIL("CharLS cannot decode the JPEG-LS codestream: %s", charls_get_error_message(ec));
    }
    const uint32_t low = (1u << d.bits_stored) - 1u;
    const int out_planar = interleave == 0 && d.components == 3;
    for (uint32_t c = 0; c < d.components; ++c) {
        for (uint32_t y = 0; y < d.height; ++y) {
            for (uint32_t x = 0; x < d.width; ++x) {
                uint32_t want = word_at(img, d.bits_allocated, sample_index(&d, (int)d.planar, c, y, x)) & low;
                /* CharLS: one byte per sample up to 8 bits per sample, else 16-bit words. */
                uint32_t got = word_at(dec, d.bits_stored <= 8 ? 8u : 16u,
                                       sample_index(&d, out_planar, c, y, x));
                if (want != got) {
                    RT_FAIL("JPEG-LS round trip (CharLS decode) mismatch at c%u y%u x%u: %u != %u",
                            c, y, x, want, got);
                }
            }
        }
    }
    if (p.jpegls_restart_interval == 0) {
        /* CharLS's encoder on the same samples (bits_stored-bit patterns, CharLS's layout). */
        charls_jpegls_encoder *ce = charls_jpegls_encoder_create();
        if (!ce) {
            abort();
        }
        size_t cap = 0;
        charls_frame_info efi = {d.width, d.height, (int32_t)d.bits_stored, (int32_t)d.components};
        ec = charls_jpegls_encoder_set_frame_info(ce, &efi);
        if (!ec) ec = charls_jpegls_encoder_set_interleave_mode(ce, (charls_interleave_mode)interleave);
        if (!ec) ec = charls_jpegls_encoder_get_estimated_destination_size(ce, &cap);
        /* CharLS's estimate can be too small for incompressible 16-bit data: leave room for at
         * least what libpcwt wrote. */
        cap += written + 1024;
        uint8_t *ref = malloc(cap);
        if (!ref) {
            abort();
        }
        size_t ref_size = 0;
        if (!ec) ec = charls_jpegls_encoder_set_destination_buffer(ce, ref, cap);
        if (!ec) ec = charls_jpegls_encoder_encode_from_buffer(ce, dec, need, 0);
        if (!ec) ec = charls_jpegls_encoder_get_bytes_written(ce, &ref_size);
        charls_jpegls_encoder_destroy(ce);
        if (ec) {
            RT_FAIL("CharLS cannot encode the same samples: %s", charls_get_error_message(ec));
        }
        if (ref_size != written || memcmp(ref, cs, written) != 0) {
            size_t first = 0;
            while (first < written && first < ref_size && ref[first] == cs[first]) {
                ++first;
            }
            RT_FAIL("JPEG-LS codestream differs from CharLS's: %zu vs %zu bytes, first "
                    "difference at byte %zu", written, ref_size, first);
        }
        free(ref);
    }
    free(dec);
#else
    (void)img;
    (void)p;
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8) {
        return 0;
    }
    pcwt_image_desc d;
    d.components = (data[0] & 1u) ? 3u : 1u;
    d.bits_allocated = (data[0] & 2u) ? 16u : 8u;
    d.is_signed = (data[0] & 4u) ? 1u : 0u;
    d.planar = (d.components == 3 && (data[0] & 8u)) ? 1u : 0u;
    d.bits_stored = 1u + data[1] % d.bits_allocated;
    d.width = 1u + data[2] % 96u;
    d.height = 1u + data[3] % 96u;
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.levels = data[4] % (PCWT_MAX_LEVELS + 1u);
    p.group_rows = 1u + data[5];
    p.group_cols = 1u + data[6];
    p.min_ll = 1u + data[7] % 8u;
    p.backend = PCWT_BACKEND_CPU;
    const int jpegls = (data[0] & 0x10u) != 0;
    p.profile = PCWT_PROFILE_BASELINE;
    if (!jpegls && (data[0] & 0x20u)) {
        p.profile = PCWT_PROFILE_ENTROPY;
    }
    if (!jpegls && (data[0] & 0x40u)) {
        p.profile = PCWT_PROFILE_COMPACT;
        p.value_map = (data[0] & 0x20u) ? PCWT_VALUE_MAP_ON : PCWT_VALUE_MAP_AUTO;
        /* the modular offset (option bit 3): bits 4-5 of byte 7, which min_ll leaves */
        p.offset = (data[7] & 0x10u) ? PCWT_OFFSET_ON : (data[7] & 0x20u) ? PCWT_OFFSET_AUTO : PCWT_OFFSET_OFF;
    }
    if (!jpegls && (data[0] & 0x80u))
        p.level1_filter = PCWT_LEVEL1_AUTO;
    if (!jpegls && p.profile != PCWT_PROFILE_BASELINE) { /* plane option bits 4 and 0 */
        p.second_bit = (data[7] & 0x40u) ? PCWT_SECOND_BIT_OFF : PCWT_SECOND_BIT_ON;
        if (data[7] & 0x80u)
            p.low_bits = PCWT_LOW_BITS_ON;
    }
    if (jpegls) {
        p.codec = PCWT_CODEC_JPEGLS;
        p.jpegls_interleave = ((data[0] >> 5) & 3u) == 3u ? 2u : (data[0] >> 5) & 3u;
        p.jpegls_restart_interval = data[7];
        if (d.bits_stored < 2) {
            d.bits_stored = 2;
        }
    }
    const uint8_t *body = data + 8;
    size_t body_size = size - 8;

    size_t image_size = pcwt_image_size(&d);
    size_t bound = pcwt_encode_bound(&d);
    if (image_size == 0 || bound == 0) {
        RT_FAIL("valid descriptor rejected (image_size %zu, bound %zu)", image_size, bound);
    }
    uint8_t *img = malloc(image_size);
    uint8_t *cs = malloc(bound);
    uint8_t *out = malloc(image_size);
    if (!img || !cs || !out) {
        abort();
    }
    for (size_t i = 0; i < image_size; ++i) {
        img[i] = body_size ? body[i % body_size] : 0;
    }
    const size_t count = image_size / (d.bits_allocated / 8u);
    if (jpegls) {
        canonicalise(&d, img, count);
    }

    pcwt_encoder *enc = pcwt_encoder_create();
    pcwt_decoder *dec = pcwt_decoder_create();
    if (!enc || !dec) {
        abort();
    }
    pcwt_status st = pcwt_encoder_set_params(enc, &p);
    if (st != PCWT_OK) {
        RT_FAIL("pcwt_encoder_set_params: %s (%s)", pcwt_status_string(st),
                pcwt_encoder_last_error(enc));
    }
    size_t written = 0;
    st = pcwt_encode(enc, &d, img, image_size, cs, bound, &written);
    if (st != PCWT_OK) {
        RT_FAIL("pcwt_encode: %s (%s)", pcwt_status_string(st), pcwt_encoder_last_error(enc));
    }
    if (written == 0 || written > bound) {
        RT_FAIL("pcwt_encode wrote %zu bytes, bound %zu", written, bound);
    }
    if (jpegls) {
        check_jpegls(&d, &p, img, cs, written);
        pcwt_decoder_destroy(dec);
        pcwt_encoder_destroy(enc);
        free(out);
        free(cs);
        free(img);
        return 0;
    }
    /* Shrink the codestream to an exactly sized block so that over-reads are caught. */
    uint8_t *exact = malloc(written);
    if (!exact) {
        abort();
    }
    memcpy(exact, cs, written);

    pcwt_header_info info;
    st = pcwt_read_header(exact, written, &info);
    if (st != PCWT_OK) {
        RT_FAIL("pcwt_read_header: %s", pcwt_status_string(st));
    }
    if (memcmp(&info.desc, &d, sizeof d) != 0 || info.codestream_length != written ||
        info.group_rows != p.group_rows || info.group_cols != p.group_cols ||
        info.levels > p.levels) {
        RT_FAIL("header does not describe the encoded image (length %zu of %zu, levels %u, "
                "group %ux%u, desc %ux%ux%u bs %u)",
                info.codestream_length, written, info.levels, info.group_rows, info.group_cols,
                info.desc.width, info.desc.height, info.desc.components, info.desc.bits_stored);
    }
    memset(out, 0xA5, image_size);
    st = pcwt_decode(dec, exact, written, out, image_size);
    if (st != PCWT_OK) {
        RT_FAIL("pcwt_decode: %s (%s)", pcwt_status_string(st), pcwt_decoder_last_error(dec));
    }
    if (memcmp(out, img, image_size) != 0) {
        size_t first = 0;
        while (out[first] == img[first]) {
            ++first;
        }
        RT_FAIL("round trip mismatch at byte %zu of %zu (in 0x%02x, out 0x%02x)", first,
                image_size, img[first], out[first]);
    }
    /* A truncated codestream must be refused. */
    if (written > 1 && pcwt_decode(dec, exact, written - 1, out, image_size) == PCWT_OK) {
        RT_FAIL("truncated codestream (%zu of %zu bytes) decoded OK", written - 1, written);
    }
    free(exact);
    pcwt_decoder_destroy(dec);
    pcwt_encoder_destroy(enc);
    free(out);
    free(cs);
    free(img);
    return 0;
}
