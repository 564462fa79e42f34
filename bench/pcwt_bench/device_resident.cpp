// device_resident.cpp - see device_resident.hpp.
#include "device_resident.hpp"

#ifdef PCWT_BENCH_DEVICE_RESIDENT
#include "encoder_options.hpp"
#include "gpu_backend.h" // codec/src: internal to libpcwt, C linkage
#endif

namespace pcwtbench {

#ifdef PCWT_BENCH_DEVICE_RESIDENT

std::string device_resident_unavailable()
{
    return "";
}

namespace {

pcwt_gpu *ctx(void *p)
{
    return static_cast<pcwt_gpu *>(p);
}

[[noreturn]] void bench_failed(const char *call, pcwt_status st, const char *err)
{
    throw CodecError(std::string(call) + ": " + pcwt_status_string(st) + (err[0] ? std::string(" (") + err + ")" : ""));
}

} // namespace

DeviceBench::~DeviceBench()
{
    if (gpu_)
        pcwt_gpu_destroy(ctx(gpu_));
}

void DeviceBench::open()
{
    if (gpu_)
        return;
    if (!pcwt_gpu_available())
        throw CodecError("no usable CUDA device");
    char err[256] = "";
    pcwt_gpu *g = nullptr;
    const pcwt_status st = pcwt_gpu_create(&g, 0, err, sizeof err);
    if (st != PCWT_OK)
        bench_failed("pcwt_gpu_create", st, err);
    gpu_ = g;
}

double DeviceBench::encode(const pcwt_encoder *enc, pcwt_frame_job *jobs, size_t count, unsigned repeats)
{
    pcwt_encode_params p;
    if (!encoder_params(enc, &p))
        throw CodecError("pcwt_encoder_get_option: the encoder refused an option");
    open();
    char err[256] = "";
    double ms = 0.0;
    const pcwt_status st =
        pcwt_gpu_bench_encode(ctx(gpu_), &p, jobs, count, static_cast<int>(repeats), &ms, err, sizeof err);
    if (st != PCWT_OK)
        bench_failed("pcwt_gpu_bench_encode", st, err);
    if (!(ms > 0.0))
        throw CodecError("pcwt_gpu_bench_encode: no time measured");
    return ms / 1e3;
}

double DeviceBench::decode(pcwt_decode_job *jobs, size_t count, unsigned repeats)
{
    open();
    char err[256] = "";
    double ms = 0.0;
    const pcwt_status st =
        pcwt_gpu_bench_decode(ctx(gpu_), jobs, count, static_cast<int>(repeats), &ms, err, sizeof err);
    if (st != PCWT_OK)
        bench_failed("pcwt_gpu_bench_decode", st, err);
    if (!(ms > 0.0))
        throw CodecError("pcwt_gpu_bench_decode: no time measured");
    return ms / 1e3;
}

#else // built without CUDA

namespace {
const char *const kNoCuda = "pcwt-bench was built without CUDA (no device-resident entry points)";
}

std::string device_resident_unavailable()
{
    return kNoCuda;
}

DeviceBench::~DeviceBench() = default;

void DeviceBench::open()
{
    throw CodecError(kNoCuda);
}

double DeviceBench::encode(const pcwt_encoder *, pcwt_frame_job *, size_t, unsigned)
{
    open();
    return 0.0;
}

double DeviceBench::decode(pcwt_decode_job *, size_t, unsigned)
{
    open();
    return 0.0;
}

#endif

} // namespace pcwtbench
