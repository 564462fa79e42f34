// device_resident.hpp - device-resident timing of libpcwt's GPU codecs, through the internal
// benchmark entry points of codec/src/gpu_backend.h (pcwt_gpu_bench_encode / pcwt_gpu_bench_decode,
// compiled in when pcwt-bench is built with CUDA: PCWT_BENCH_DEVICE_RESIDENT). The frames
// (encode) or codestreams (decode) are uploaded once, then only the device work is repeated and
// timed with CUDA events, after one warm-up run; the median is returned. Without CUDA every call
// throws CodecError saying so.
#pragma once

#include <pcwt.h>

#include <cstddef>
#include <string>

#include "codec.hpp"

namespace pcwtbench {

// Empty when this pcwt-bench has the device-resident entry points, else why not.
std::string device_resident_unavailable();

// One CUDA context of libpcwt's GPU backend (device 0), reused across calls; one per codec.
class DeviceBench {
public:
    DeviceBench() = default;
    ~DeviceBench();
    DeviceBench(const DeviceBench &) = delete;
    DeviceBench &operator=(const DeviceBench &) = delete;

    // Median seconds of `repeats` device encodes of jobs[0..count) with the options of enc (PCWT,
    // or JPEG-LS when its codec is PCWT_CODEC_JPEGLS; then the jobs' dst buffers get the last
    // run's codestreams and their `written`). Throws CodecError with libpcwt's message.
    double encode(const pcwt_encoder *enc, pcwt_frame_job *jobs, size_t count, unsigned repeats);
    // Median seconds of `repeats` device decodes of jobs[0..count). Throws CodecError.
    double decode(pcwt_decode_job *jobs, size_t count, unsigned repeats);

private:
    void open(); // creates the context on first use (throws CodecError)
    void *gpu_ = nullptr; // pcwt_gpu *
};

} // namespace pcwtbench
