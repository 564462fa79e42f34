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

void j2k_bench_header();
// Codes the frames with OpenJPEG, then times and checks the decoders (one table row).
void j2k_bench_run(const char *name, const std::vector<J2kBenchFrame> &frames, int repeats);
