// runner.hpp - the measurements.
//
// Single thread, per image and codec: `warmup` untimed runs, then `repeats` timed encodes and
// `repeats` timed decodes (median kept); the output buffer is filled with a pattern before each
// decode and every decoded frame is compared word by word with the original.
//
// Whole set ("all threads"): on the images every codec coded exactly, each CPU codec encodes all
// of them with one session per thread on a pool of `threads` workers (frames in parallel, largest
// first), then decodes them; the wall time of the whole set is timed (warm-up, median of repeats)
// and every decoded frame checked after each timed run. A batching codec (PCWT on the GPU) codes
// the whole set in one batch call instead (the GPU JPEG-LS encoder: batch encode, CharLS decodes
// on the pool).
//
// Device-resident (GPU codecs only, see device_resident.hpp): after each end-to-end measurement
// that was exact, the same frame (single thread) or the whole set is encoded and decoded again
// with the data already on the device, only the device work timed with CUDA events (one warm-up,
// median of `repeats`). Where there is no such path, or it fails, the figure is n/a with the
// reason; it never makes the run fail, but codestreams that differ from the end-to-end ones are a
// MISMATCH.
#pragma once

#include <memory>
#include <vector>

#include "codec.hpp"
#include "image.hpp"
#include "options.hpp"
#include "results.hpp"

namespace pcwtbench {

BenchResults run_benchmark(const std::vector<Image> &images, const std::vector<std::unique_ptr<Codec>> &codecs,
                           const Options &opt);

} // namespace pcwtbench
