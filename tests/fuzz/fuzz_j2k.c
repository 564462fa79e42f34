/*
 * fuzz_j2k.c - libFuzzer target for the library's JPEG 2000 decoder (codec/src/j2k_*.c): the
 * marker parser, and above all tier-2 (packet headers, tag trees, code-block lengths, the
 * progression orders and precincts) and what tier-1 makes of the bytes it gathers.
 *
 * Every input is an untrusted JPEG 2000 codestream (seeds: streams of opj_compress over the
 * features tier-2 reads, and a hand-made minimal one; make_j2k_seeds.sh). Invariants (a violation
 * aborts):
 *  - pcwt_read_header succeeds for every input pcwt_decode decodes, with a valid descriptor;
 *  - pcwt_decode into a buffer of exactly pcwt_image_size bytes (ASan sees any write past it),
 *    and into one byte less, refused;
 *  - decoding twice (pcwt_decode, then pcwt_decode_batch with a fresh handle, buffers pre-filled
 *    differently) gives the same samples: every sample is written, nothing depends on state.
 * The decoder is limited to 2^20 samples and 256 MiB, so that the fuzzer does not spend its time
 * on large images (the smoke test's -malloc_limit_mb reports a larger allocation).
 */
#include <pcwt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NAME "fuzz_j2k"
#include "fuzz_check.h"
#include "fuzz_decoder.h"

static pcwt_decoder *make_decoder(void)
{
    return fuzz_make_decoder((uint64_t)1 << 20, (uint64_t)256 << 20);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exactly sized copy: a read past the codestream is caught by ASan */
    uint8_t *src = malloc(size ? size : 1);
    FUZZ_CHECK(src != NULL);
    if (size)
        memcpy(src, data, size);
    pcwt_header_info info;
    const pcwt_status hs = pcwt_read_header(src, size, &info);
    size_t out_size = 4096;
    if (hs == PCWT_OK) {
        out_size = pcwt_image_size(&info.desc);
        FUZZ_CHECK(out_size != 0);
        if ((uint64_t)info.desc.width * info.desc.height * info.desc.components > ((uint64_t)1 << 20))
            out_size = 4096; /* refused by the limit: a small buffer is enough */
    }
    uint8_t *a = malloc(out_size), *b = malloc(out_size);
    FUZZ_CHECK(a != NULL && b != NULL);
    memset(a, 0x55, out_size);
    memset(b, 0xAA, out_size);
    pcwt_decoder *d1 = make_decoder();
    const pcwt_status st = pcwt_decode(d1, src, size, a, out_size);
    if (st == PCWT_OK) {
        FUZZ_CHECK(hs == PCWT_OK);
        FUZZ_CHECK(pcwt_decode(d1, src, size, a, out_size - 1) != PCWT_OK);
        pcwt_decoder *d2 = make_decoder();
        pcwt_decode_job job = {src, size, b, out_size, PCWT_OK};
        FUZZ_CHECK(pcwt_decode_batch(d2, &job, 1) == PCWT_OK && job.status == PCWT_OK);
        FUZZ_CHECK(memcmp(a, b, out_size) == 0);
        pcwt_decoder_destroy(d2);
    } else {
        FUZZ_CHECK(pcwt_decoder_last_error(d1)[0] != 0);
    }
    pcwt_decoder_destroy(d1);
    free(a);
    free(b);
    free(src);
    return 0;
}
