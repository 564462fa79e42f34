/* jpegls_encoder.c - JPEG-LS lossless encoder (ITU-T T.87). Placeholder until it lands. */
#include "internal.h"

pcwt_status pcwt_jpegls_encode_frame(const pcwt_encode_params *params, const pcwt_image_desc *d,
                                     const void *samples, void *dst, size_t cap, size_t *written,
                                     char *err, size_t err_size)
{
    (void)params; (void)d; (void)samples; (void)dst; (void)cap; (void)written;
    pcwt_set_error(err, err_size, "JPEG-LS encoder not implemented yet");
    return PCWT_ERR_UNSUPPORTED;
}
