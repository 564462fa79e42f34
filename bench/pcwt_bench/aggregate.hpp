// aggregate.hpp - totals over a set of images: ratio = total raw bytes / total coded bytes;
// single-thread MB/s = total raw bytes / sum of the per-image median times; outcome counts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "image.hpp"
#include "results.hpp"

namespace pcwtbench {

struct Aggregate {
    size_t images = 0;
    double raw = 0.0, coded = 0.0, enc_s = 0.0, dec_s = 0.0;
    double ratio() const { return coded > 0.0 ? raw / coded : 0.0; }
    double enc_mbps() const { return enc_s > 0.0 ? raw / enc_s / 1e6 : 0.0; }
    double dec_mbps() const { return dec_s > 0.0 ? raw / dec_s / 1e6 : 0.0; }
    // Device-resident, one frame at a time (GPU codecs): over the frames that have the figure.
    size_t dev_enc_images = 0, dev_dec_images = 0;
    double dev_enc_raw = 0.0, dev_enc_s = 0.0, dev_dec_raw = 0.0, dev_dec_s = 0.0;
    double dev_enc_mbps() const { return dev_enc_s > 0.0 ? dev_enc_raw / dev_enc_s / 1e6 : 0.0; }
    double dev_dec_mbps() const { return dev_dec_s > 0.0 ? dev_dec_raw / dev_dec_s / 1e6 : 0.0; }
};

// Codec c over the images in set (those it coded exactly).
Aggregate aggregate_codec(const std::vector<Image> &images, const BenchResults &res, size_t c,
                          const std::vector<size_t> &set);

// The images of set grouped by modality, modalities in alphabetical order.
std::vector<std::pair<std::string, std::vector<size_t>>> by_modality(const std::vector<Image> &images,
                                                                     const std::vector<size_t> &set);

// Codec c's frames by outcome as the reports count them: failures and mismatches include its
// whole-set run (one more when that run failed or mismatched).
struct OutcomeCounts {
    size_t ok = 0, not_applicable = 0, failed = 0, mismatch = 0;
};
OutcomeCounts outcome_counts(const std::vector<Image> &images, const BenchResults &res, size_t c);

// The (image, codec) pairs not coded exactly (n/a, failed or mismatched; not those not run),
// image by image.
std::vector<std::pair<size_t, size_t>> not_exact(const std::vector<Image> &images, const BenchResults &res);

} // namespace pcwtbench
