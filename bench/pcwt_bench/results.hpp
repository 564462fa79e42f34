// results.hpp - what a run measured: one CodecResult per image and codec, one ParallelResult per
// codec (the whole set on all threads, or in one GPU batch), and the run's circumstances. GPU
// codecs also have device-resident figures (DeviceTime), per frame and for the whole set.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "codec.hpp"

namespace pcwtbench {

enum class Status {
    NotRun,        // not measured (e.g. the parallel phase was skipped)
    Ok,            // coded and decoded, every word identical
    NotApplicable, // the codec cannot code this image (the message says why)
    Failed,        // a library call failed
    Mismatch       // decoded words differ from the original: not lossless
};

const char *status_word(Status s); // "ok", "n/a", "FAIL", "MISMATCH", "-"

// A device-resident measurement of a GPU codec (frames or codestreams already on the device, only
// the device work timed with CUDA events; median of the repeats). NotRun for CPU codecs (shown as
// n/a); NotApplicable with the reason when a GPU codec has no such figure (no device-resident
// entry point for this direction or frame, or it returned an error); Mismatch when the
// codestreams it gave back differ from the end-to-end ones.
struct DeviceTime {
    Status status = Status::NotRun;
    std::string message;
    size_t images = 0;      // frames measured
    double raw_bytes = 0.0; // their raw bytes
    double s = 0.0;         // median device time
    double mbps() const { return status == Status::Ok && s > 0.0 ? raw_bytes / s / 1e6 : 0.0; }
};

struct CodecResult {
    Status status = Status::NotRun;
    std::string message;
    size_t coded_bytes = 0;
    double enc_s = 0.0; // median single-thread encode time
    double dec_s = 0.0; // median single-thread decode time
    DeviceTime dev_enc, dev_dec; // this frame alone, device-resident (GPU codecs)
};

struct ParallelResult {
    Status status = Status::NotRun;
    std::string message;
    std::string mode; // "N threads" or "GPU batch"
    size_t images = 0;
    double raw_bytes = 0.0;
    double enc_s = 0.0; // median wall time to encode the whole set
    double dec_s = 0.0;
    DeviceTime dev_enc, dev_dec; // the whole set in one device-resident batch (GPU codecs)
};

struct RunInfo {
    std::string title;
    std::string date_utc;
    std::string host;
    std::string cpu_model;
    unsigned hardware_threads = 0;
    unsigned threads = 0;
    unsigned repeats = 0;
    unsigned warmup = 0;
    std::string gpu_status;
    std::vector<std::pair<std::string, std::string>> skipped_codecs; // id, why it is not in the run
    std::string pcwt_version;
    std::string command_line;
    size_t ignored_files = 0;
};

struct BenchResults {
    std::vector<CodecInfo> codecs;
    std::vector<std::vector<CodecResult>> per_image; // [image][codec]
    std::vector<ParallelResult> parallel;            // [codec]
    std::vector<size_t> common;                      // images every codec coded exactly
    size_t mismatches = 0;
    size_t failures = 0;
};

} // namespace pcwtbench
