/*
 * fuzz_decode.c - libFuzzer target for the libpcwt decoder.
 *
 * Every input is treated as an untrusted codestream: pcwt_read_header, then pcwt_decode into a
 * buffer of exactly pcwt_image_size(&info.desc) bytes (so AddressSanitizer sees any write past
 * the declared image), and into one byte less (must be refused). The decoder is limited to
 * FUZZ_MAX_SAMPLES samples so the fuzzer does not spend its time on huge images; the smoke test
 * also runs with -malloc_limit_mb so that a codestream making the library allocate far more than
 * the declared image is reported.
 *
 * Mutations of valid codestreams: the seed corpus (make_seeds) holds small valid codestreams;
 * libFuzzer's default mutators then corrupt them. The fuzz build compiles the library with
 * PCWT_FUZZING_SKIP_CRC so that mutated payloads get past the CRC-32 checks.
 *
 * Invariants checked (a violation aborts, i.e. is reported as a crash):
 *  - a header that parses describes a valid image (pcwt_image_size != 0) with at most 6 planes,
 *    header_length <= codestream_length;
 *  - pcwt_decode never succeeds where pcwt_read_header failed;
 *  - pcwt_decode refuses a destination one byte too small and writes nothing past it;
 *  - decoding the same codestream twice (pcwt_decode, then pcwt_decode_batch with a fresh handle,
 *    into buffers pre-filled differently) gives the same samples: every byte is written and
 *    nothing depends on stale state or uninitialised memory.
 */
#include <pcwt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_SAMPLES ((uint64_t)1 << 22)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NAME "fuzz_decode"
#include "fuzz_check.h"
#include "fuzz_decoder.h"

static pcwt_decoder *make_decoder(void)
{
    return fuzz_make_decoder(FUZZ_MAX_SAMPLES, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Copy into an exactly sized heap block: any read past the codestream is caught by ASan. */
    uint8_t *src = malloc(size ? size : 1);
    FUZZ_CHECK(src != NULL);
    if (size) {
        memcpy(src, data, size);
    }

    pcwt_header_info info;
    memset(&info, 0, sizeof info);
    pcwt_status hs = pcwt_read_header(src, size, &info);
    pcwt_decoder *dec = make_decoder();

    if (hs != PCWT_OK) {
        /* The decoder must reject it too, whatever destination it is given. */
        uint8_t small[64];
        pcwt_status ds = pcwt_decode(dec, src, size, small, sizeof small);
        FUZZ_CHECK(ds != PCWT_OK);
        (void)pcwt_status_string(ds);
        (void)pcwt_decoder_last_error(dec);
        pcwt_decoder_destroy(dec);
        free(src);
        return 0;
    }

    const pcwt_image_desc *d = &info.desc;
    size_t image_size = pcwt_image_size(d);
    FUZZ_CHECK(image_size != 0);
    FUZZ_CHECK(d->components == 1 || d->components == 3);
    /* format_version 0: a JPEG 2000 codestream, which has no planes (pcwt.h) */
    FUZZ_CHECK(info.format_version == 0 ? info.plane_count == 0
                                        : info.plane_count >= 1 && info.plane_count <= 6);
    FUZZ_CHECK(info.header_length <= info.codestream_length);

    uint64_t samples = (uint64_t)d->width * d->height * d->components;
    if (samples > FUZZ_MAX_SAMPLES) {
        /* Declared image too large: must be refused before any allocation of that size. */
        uint8_t small[64];
        FUZZ_CHECK(pcwt_decode(dec, src, size, small, sizeof small) != PCWT_OK);
        pcwt_decoder_destroy(dec);
        free(src);
        return 0;
    }

    /* A destination one byte short must be refused (and ASan checks nothing is written past it). */
    if (image_size > 1) {
        uint8_t *tight = malloc(image_size - 1);
        FUZZ_CHECK(tight != NULL);
        FUZZ_CHECK(pcwt_decode(dec, src, size, tight, image_size - 1) != PCWT_OK);
        free(tight);
    }

    uint8_t *out = malloc(image_size);
    FUZZ_CHECK(out != NULL);
    memset(out, 0xA5, image_size);
    pcwt_status ds = pcwt_decode(dec, src, size, out, image_size);
    if (ds == PCWT_OK) {
        /* Decode again, with a fresh handle, into a buffer pre-filled differently: every byte
         * of the image must be written, and written the same way. */
        uint8_t *again = malloc(image_size);
        FUZZ_CHECK(again != NULL);
        memset(again, 0x5A, image_size);
        pcwt_decoder *dec2 = make_decoder();
        pcwt_decode_job job = {src, size, again, image_size, PCWT_ERR_CORRUPT};
        FUZZ_CHECK(pcwt_decode_batch(dec2, &job, 1) == PCWT_OK && job.status == PCWT_OK);
        FUZZ_CHECK(memcmp(out, again, image_size) == 0);
        pcwt_decoder_destroy(dec2);
        free(again);
    } else {
        (void)pcwt_decoder_last_error(dec);
    }
    free(out);
    pcwt_decoder_destroy(dec);
    free(src);
    return 0;
}
