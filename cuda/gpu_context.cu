// gpu_context.cu - context lifetime and the upload of a batch layout (see gpu_context.h).
#include "gpu_context.h"

#include <new>

pcwt_gpu::~pcwt_gpu()
{
    for (DevBuf *b : {&frames, &planes, &bands, &levels, &steps, &level0, &groups, &state,
                      &group_size, &i32, &i8, &samples, &stream_buf, &flags, &scan_tmp})
        b->release();
    for (PinnedBuf *b : {&h_samples, &h_stream, &h_small})
        b->release();
    if (ev_start) cudaEventDestroy(ev_start);
    if (ev_stop) cudaEventDestroy(ev_stop);
    if (stream) cudaStreamDestroy(stream);
}

extern "C" int pcwt_gpu_available(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

extern "C" pcwt_status pcwt_gpu_create(pcwt_gpu **out, char *err, size_t err_size)
{
    *out = nullptr;
    pcwt_gpu *g = new (std::nothrow) pcwt_gpu;
    if (!g)
        return PCWT_ERR_OUT_OF_MEMORY;
    try {
        if (!pcwt_gpu_available()) {
            delete g;
            std::snprintf(err, err_size, "no CUDA device available");
            return PCWT_ERR_BACKEND_UNAVAILABLE;
        }
        CUDA_CHECK(cudaGetDevice(&g->device));
        CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreate(&g->ev_start));
        CUDA_CHECK(cudaEventCreate(&g->ev_stop));
        size_t free_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &g->total_mem));
        gpu_crc_init();
    } catch (const pcwt_gpu_detail::CudaError &e) {
        std::snprintf(err, err_size, "%s", e.what.c_str());
        delete g;
        return PCWT_ERR_BACKEND_UNAVAILABLE;
    }
    *out = g;
    return PCWT_OK;
}

extern "C" void pcwt_gpu_destroy(pcwt_gpu *g) { delete g; }

template <typename T> static void upload(DevBuf &d, const std::vector<T> &v, cudaStream_t s)
{
    d.ensure(sizeof(T) * (v.size() ? v.size() : 1));
    if (!v.empty())
        CUDA_CHECK(cudaMemcpyAsync(d.p, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice, s));
}

void gpu_upload_layout(pcwt_gpu *g)
{
    const BatchLayout &L = g->layout;
    std::vector<GpuLevel> levels;
    g->level_first.clear();
    for (const auto &lv : L.levels) {
        g->level_first.push_back(uint32_t(levels.size()));
        levels.insert(levels.end(), lv.begin(), lv.end());
    }
    g->level_first.push_back(uint32_t(levels.size()));
    std::vector<uint32_t> steps;
    g->step_first.clear();
    for (const auto &st : L.decode_steps) {
        g->step_first.push_back(uint32_t(steps.size()));
        steps.insert(steps.end(), st.begin(), st.end());
    }
    g->step_first.push_back(uint32_t(steps.size()));
    cudaStream_t s = g->stream;
    // Pageable uploads of small tables: cudaMemcpyAsync stages them before returning.
    upload(g->frames, L.frames, s);
    upload(g->planes, L.planes, s);
    upload(g->bands, L.bands, s);
    upload(g->levels, levels, s);
    upload(g->steps, steps, s);
    upload(g->level0, L.level0_planes, s);
    g->groups.ensure(sizeof(GpuGroup) * (L.groups ? L.groups : 1));
    g->group_size.ensure(sizeof(uint64_t) * (L.groups ? L.groups : 1));
    g->state.ensure(sizeof(GpuPlaneState) * (L.planes.size() ? L.planes.size() : 1));
    g->i32.ensure(sizeof(int32_t) * (L.i32_size ? L.i32_size : 1));
    g->i8.ensure(L.i8_size ? L.i8_size : 1);
    // Fresh plane states: Qmax -1, no error.
    std::vector<GpuPlaneState> st(L.planes.size());
    for (auto &x : st) {
        std::memset(&x, 0, sizeof x);
        x.qmax = -1;
    }
    upload(g->state, st, s);
    CUDA_CHECK(cudaStreamSynchronize(s)); // the host vectors above die here
    DeviceBatch &d = g->dev;
    d.frames = g->frames.as<GpuFrame>();
    d.planes = g->planes.as<GpuPlane>();
    d.bands = g->bands.as<GpuBand>();
    d.levels = g->levels.as<GpuLevel>();
    d.steps = g->steps.as<uint32_t>();
    d.level0 = g->level0.as<uint32_t>();
    d.groups = g->groups.as<GpuGroup>();
    d.state = g->state.as<GpuPlaneState>();
    d.group_size = g->group_size.as<uint64_t>();
    d.i32 = g->i32.as<int32_t>();
    d.i8 = g->i8.as<int8_t>();
}

size_t gpu_batch_bytes(const BatchLayout &L, size_t sample_bytes, size_t stream_bytes)
{
    return L.i32_size * 4 + L.i8_size + L.groups * (sizeof(GpuGroup) + 8) +
           L.planes.size() * (sizeof(GpuPlane) + sizeof(GpuPlaneState)) +
           L.bands.size() * sizeof(GpuBand) + sample_bytes + stream_bytes + (1u << 20);
}

void gpu_level_max(const std::vector<GpuLevel> &lv, uint32_t &max_r, uint32_t &max_bc)
{
    max_r = max_bc = 0;
    for (const GpuLevel &e : lv) {
        if (e.r > max_r) max_r = e.r;
        if (e.bc > max_bc) max_bc = e.bc;
    }
}
