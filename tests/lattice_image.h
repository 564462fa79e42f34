// lattice_image.h - a test image for the entropy profile's modelled low bits: the inverse
// transform of coefficients on a lattice, 0 or +-(4k + 2), as an image decoded from a lossy
// wavelet codestream has them. cols_first: the transform lifts columns first (JPEG 2000's order,
// the entropy profile's default), else rows first. 16-bit unsigned samples; needs the library's
// internal transform.
#pragma once

extern "C" {
#include "dwt53.h"
}

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

inline std::vector<uint8_t> lattice_image(const pcwt_image_desc &d, uint32_t levels, uint32_t seed,
                                          int cols_first = 1)
{
    uint32_t s = seed * 2654435761u + 1;
    auto below = [&s](uint32_t n) {
        s = s * 1664525u + 1013904223u;
        return (s >> 8) % n;
    };
    pcwt_plan plan;
    pcwt_plan_make(&plan, d.height, d.width, levels);
    pcwt_pyramid pyr;
    std::memset(&pyr, 0, sizeof pyr);
    if (pcwt_pyramid_prepare(&pyr, &plan) != PCWT_OK)
        throw std::runtime_error("lattice_image: out of memory");
    for (uint32_t b = 0; b < pyr.band_count; b++) {
        const pcwt_band &band = pyr.band[b];
        for (size_t i = 0; i < size_t(band.rows) * band.cols; i++)
            band.coef[i] = b == 0 ? 30000 + int32_t(below(200))
                           : below(5) == 0 ? 0
                                           : (below(2) ? 1 : -1) * (4 * int32_t(1 + below(40)) + 2);
    }
    pcwt_dwt53_inverse(&pyr, cols_first, 0);
    std::vector<uint8_t> buf(pcwt_image_size(&d));
    const uint32_t stride = pcwt_even_up(d.width);
    for (uint32_t y = 0; y < d.height; y++)
        for (uint32_t x = 0; x < d.width; x++) {
            const int32_t v = pyr.image[size_t(y) * stride + x];
            const uint16_t w = uint16_t(v < 0 ? 0 : v > 65535 ? 65535 : v);
            std::memcpy(&buf[2 * (size_t(y) * d.width + x)], &w, 2);
        }
    pcwt_pyramid_free(&pyr);
    return buf;
}
