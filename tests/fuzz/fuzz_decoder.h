/*
 * fuzz_decoder.h - the decoder the codestream fuzz targets decode with: the CPU backend, at most
 * max_samples samples and, where memory_limit is not 0, at most memory_limit bytes, so that the
 * fuzzer does not spend its time on large images. Include fuzz_check.h first.
 */
#ifndef PCWT_FUZZ_DECODER_H
#define PCWT_FUZZ_DECODER_H

#include <pcwt.h>

#include <stdint.h>

static inline pcwt_decoder *fuzz_make_decoder(uint64_t max_samples, uint64_t memory_limit)
{
    pcwt_decoder *dec = pcwt_decoder_create();
    FUZZ_CHECK(dec != NULL);
    FUZZ_CHECK(pcwt_decoder_set_max_samples(dec, max_samples) == PCWT_OK);
    if (memory_limit != 0)
        FUZZ_CHECK(pcwt_decoder_set_memory_limit(dec, memory_limit) == PCWT_OK);
    FUZZ_CHECK(pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU) == PCWT_OK);
    return dec;
}

#endif
