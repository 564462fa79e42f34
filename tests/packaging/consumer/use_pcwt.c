/* use_pcwt.c - the C API of an installed libpcwt: encode a 12-bit signed test image on the CPU,
 * decode it, and check every sample. Exit 0 when bit-exact; prints the version and sizes. */
#include <pcwt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    const pcwt_image_desc desc = {.width = 300, .height = 200, .components = 1,
                                  .bits_allocated = 16, .bits_stored = 12, .is_signed = 1};
    const size_t size = pcwt_image_size(&desc);
    int16_t *samples = malloc(size), *decoded = malloc(size);
    const size_t cap = pcwt_encode_bound(&desc);
    unsigned char *code = malloc(cap);
    if (!samples || !decoded || !code || size != 300u * 200u * 2u) {
        fprintf(stderr, "use_pcwt: setup failed\n");
        return 1;
    }
    uint32_t state = 12345u;
    for (uint32_t y = 0; y < desc.height; y++)
        for (uint32_t x = 0; x < desc.width; x++) {
            state = state * 1103515245u + 12345u;
            int v = (int)((x * 7 + y * 3) % 1500) - 700 + (int)((state >> 16) % 64);
            samples[y * desc.width + x] = (int16_t)v;
        }

    pcwt_encode_params params;
    pcwt_encode_params_default(&params);
    params.backend = PCWT_BACKEND_CPU;
    pcwt_encoder *enc = pcwt_encoder_create();
    pcwt_decoder *dec = pcwt_decoder_create();
    size_t written = 0;
    pcwt_status st = enc && dec ? pcwt_encoder_set_params(enc, &params) : PCWT_ERR_OUT_OF_MEMORY;
    if (st == PCWT_OK)
        st = pcwt_encode(enc, &desc, samples, size, code, cap, &written);
    if (st == PCWT_OK)
        st = pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU);
    if (st == PCWT_OK)
        st = pcwt_decode(dec, code, written, decoded, size);
    if (st != PCWT_OK) {
        fprintf(stderr, "use_pcwt: %s\n", pcwt_status_string(st));
        return 1;
    }
    if (memcmp(samples, decoded, size) != 0) {
        fprintf(stderr, "use_pcwt: decoded samples differ\n");
        return 1;
    }
    printf("use_pcwt: libpcwt %s (header %s, CUDA %d): %zu -> %zu bytes, bit-exact\n",
           pcwt_version_string(), PCWT_VERSION_STRING, pcwt_has_cuda(), size, written);
    pcwt_encoder_destroy(enc);
    pcwt_decoder_destroy(dec);
    free(samples);
    free(decoded);
    free(code);
    return 0;
}
