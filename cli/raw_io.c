/* raw_io.c - raw little-endian sample files and 16-bit byte-order conversions. */
#include "raw_io.h"

#include <string.h>

#include "cli_report.h"

uint64_t cli_frame_bytes(const pcwt_image_desc *desc)
{
    uint64_t bytes = desc->bits_allocated == 8 ? 1 : desc->bits_allocated == 16 ? 2 : 0;
    uint64_t pixels = (uint64_t)desc->width * desc->height; /* < 2^64: both are 32-bit */
    uint64_t per_pixel = bytes * desc->components;          /* < 2^34 */
    if (per_pixel == 0 || pixels > UINT64_MAX / per_pixel)
        return 0;
    return pixels * per_pixel;
}

void cli_u16_le_to_host(unsigned char *data, size_t samples)
{
    size_t i;
    for (i = 0; i < samples; i++) {
        uint16_t v = (uint16_t)(data[2 * i] | (data[2 * i + 1] << 8));
        memcpy(data + 2 * i, &v, 2);
    }
}

void cli_u16_host_to_le(unsigned char *data, size_t samples)
{
    size_t i;
    for (i = 0; i < samples; i++) {
        uint16_t v;
        memcpy(&v, data + 2 * i, 2);
        data[2 * i] = (unsigned char)(v & 0xFFu);
        data[2 * i + 1] = (unsigned char)(v >> 8);
    }
}

void cli_u16_be_to_host(unsigned char *data, size_t samples)
{
    size_t i;
    for (i = 0; i < samples; i++) {
        uint16_t v = (uint16_t)((data[2 * i] << 8) | data[2 * i + 1]);
        memcpy(data + 2 * i, &v, 2);
    }
}

void cli_u16_host_to_be(unsigned char *data, size_t samples)
{
    size_t i;
    for (i = 0; i < samples; i++) {
        uint16_t v;
        memcpy(&v, data + 2 * i, 2);
        data[2 * i] = (unsigned char)(v >> 8);
        data[2 * i + 1] = (unsigned char)(v & 0xFFu);
    }
}

int raw_frame_from_file(const pcwt_image_desc *desc, unsigned char *data, size_t size,
                        const char *path)
{
    uint64_t expected = cli_frame_bytes(desc);
    if (expected == 0 || (uint64_t)size != expected) {
        cli_error("'%s' is %llu bytes, but %ux%u x %u component(s) x %u bits needs %llu bytes",
                  path, (unsigned long long)size, (unsigned)desc->width, (unsigned)desc->height,
                  (unsigned)desc->components, (unsigned)desc->bits_allocated,
                  (unsigned long long)expected);
        return -1;
    }
    if (desc->bits_allocated == 16)
        cli_u16_le_to_host(data, size / 2);
    return 0;
}

void raw_frame_to_file(const pcwt_image_desc *desc, unsigned char *data, size_t size)
{
    if (desc->bits_allocated == 16)
        cli_u16_host_to_le(data, size / 2);
}
