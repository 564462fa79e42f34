// bench_gpu_j2k.hpp - the JPEG 2000 decode rows of pcwt_bench_gpu (--codec j2k, bench_gpu_j2k.cpp).
#pragma once

#include "pcwt.h"

#include <cstdint>
#include <vector>

// One frame of a batch: samples in the library's layout (frames may share them).
struct J2kBenchFrame {
    pcwt_image_desc d;
    const uint8_t *px;
};

// ht: the frames coded as HTJ2K by OpenJPH's ojph_compress (--codec htj2k) instead of OpenJPEG.
void j2k_bench_header(bool ht = false);
// Codes the frames with OpenJPEG (or ojph_compress), then times and checks the decoders (one row).
void j2k_bench_run(const char *name, const std::vector<J2kBenchFrame> &frames, int repeats, bool ht = false);
