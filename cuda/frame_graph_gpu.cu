// frame_graph_gpu.cu - the one-frame path's device work as one CUDA graph launch (see
// gpu_context.h, FrameGraph): a frame of the same shape as the call before replays the captured
// sequence instead of launching its kernels one by one.
#include "gpu_context.h"

#include <type_traits>

static_assert(std::has_unique_object_representations_v<FrameSpec>, "FrameSpec keys by its bytes");
static_assert(std::has_unique_object_representations_v<DeviceBatch>, "DeviceBatch keys by its bytes");

namespace {

template <typename T> void put(std::vector<uint8_t> &k, const T *p, size_t n)
{
    const uint8_t *b = reinterpret_cast<const uint8_t *>(p);
    k.insert(k.end(), b, b + sizeof(T) * n);
}

} // namespace

void FrameGraph::release()
{
    if (exec)
        cudaGraphExecDestroy(exec);
    exec = nullptr;
    key.clear();
}

std::vector<uint8_t> gpu_frame_graph_key(const Slot &sl, uint8_t what)
{
    std::vector<uint8_t> k(1, what);
    put(k, sl.specs.data(), sl.specs.size());
    put(k, &sl.dev, 1);
    const void *ptrs[2] = {sl.scan_tmp.p, sl.ec_order.p};
    const uint64_t sizes[2] = {sl.scan_tmp.cap, sl.crc_blocks};
    put(k, ptrs, 2);
    put(k, sizes, 2);
    return k;
}

void gpu_run_frame_graph(pcwt_gpu *g, Slot &sl, std::vector<uint8_t> key, const std::function<void()> &run)
{
    FrameGraph &fg = sl.graph;
    if (!g->graphs || g->recording || g->trace) { // stage marks time each launch
        run();
        return;
    }
    if (key != fg.key) { // a new shape: launched one by one; the next call of it captures
        fg.release();
        fg.key = std::move(key);
        run();
        return;
    }
    if (!fg.exec) {
        cudaGraph_t graph = nullptr;
        bool captured = cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
        if (captured) {
            try {
                run();
            } catch (const pcwt_gpu_detail::CudaError &) {
                captured = false;
            }
            if (cudaStreamEndCapture(g->stream, &graph) != cudaSuccess)
                captured = false;
        }
        if (captured && graph && cudaGraphInstantiate(&fg.exec, graph, 0) != cudaSuccess)
            fg.exec = nullptr;
        if (graph)
            cudaGraphDestroy(graph);
        if (!fg.exec) {
            // not capturable here: the launches are issued as they are, and this context does
            // not try again
            cudaGetLastError();
            g->graphs = false;
            run();
            return;
        }
    }
    CUDA_CHECK(cudaGraphLaunch(fg.exec, g->stream));
}
