// bench_gpu_j2k.cpp - the JPEG 2000 rows of pcwt_bench_gpu (--codec j2k): the batches' frames coded
// lossless by OpenJPEG as DICOM archives hold them (reversible 5/3, 64x64 code-blocks, 5 levels,
// one tile, LRCP, one layer), then decoded
//   - on the device alone (pcwt_gpu_j2k_bench: the batch from the CPU's tier-2 uploaded once;
//     tier-1, inverse DWT and output repeated, CUDA events, median),
//   - end to end through the library (pcwt_decode_batch on the GPU backend: tier-2 on the host,
//     upload, device, download into page-locked buffers; median),
//   - by OpenJPEG on every core, one frame per thread (median),
// every frame of the GPU's output compared with OpenJPEG's (measuring variants of the end to end
// decode: e2e_variants). With --codec htj2k the frames are coded
// as HTJ2K by OpenJPH's ojph_compress (on PATH; reversible, 64x64 code-blocks, 5 levels, RPCL as
// the HTJ2K Lossless RPCL transfer syntax has it), decoded the same ways (OpenJPEG decodes HTJ2K). OpenJPEG is called directly (its memory
// stream below) because pcwt_bench_gpu is built without DCMTK, whose plugin pcwt-bench's OpenJPEG
// adapter decodes through.
#include "bench_gpu_j2k.hpp"
#include "bench_gpu_util.hpp"

extern "C" {
#include "gpu_backend.h"
#include "j2k_codestream.h"
#include "j2k_decoder.h"
#include "j2k_t1_gpu.h"
#include "j2k_tier2.h"
}

#include <openjpeg.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

using benchgpu::median_ms;
using benchgpu::parallel_for;

[[noreturn]] void die(const std::string &m)
{
    benchgpu::die_as("pcwt_bench_gpu (j2k)", m);
}

// OpenJPEG's in-memory stream: reading a codestream or growing an output vector.
struct Mem {
    const uint8_t *in = nullptr;
    std::vector<uint8_t> *out = nullptr;
    size_t size = 0, pos = 0;
};

opj_stream_t *mem_stream(Mem *m, bool input)
{
    opj_stream_t *s = opj_stream_create(1 << 20, input ? OPJ_TRUE : OPJ_FALSE);
    opj_stream_set_user_data(s, m, nullptr);
    opj_stream_set_user_data_length(s, m->size);
    opj_stream_set_read_function(s, [](void *buf, OPJ_SIZE_T n, void *u) -> OPJ_SIZE_T {
        Mem *mm = static_cast<Mem *>(u);
        const size_t k = std::min<size_t>(n, mm->size - mm->pos);
        if (!k)
            return (OPJ_SIZE_T)-1;
        std::memcpy(buf, mm->in + mm->pos, k);
        mm->pos += k;
        return k;
    });
    opj_stream_set_write_function(s, [](void *buf, OPJ_SIZE_T n, void *u) -> OPJ_SIZE_T {
        Mem *mm = static_cast<Mem *>(u);
        if (mm->out->size() < mm->pos + n)
            mm->out->resize(mm->pos + n);
        std::memcpy(mm->out->data() + mm->pos, buf, n);
        mm->pos += n;
        mm->size = std::max(mm->size, mm->pos);
        return n;
    });
    opj_stream_set_skip_function(s, [](OPJ_OFF_T n, void *u) -> OPJ_OFF_T {
        Mem *mm = static_cast<Mem *>(u);
        mm->pos = size_t(std::max<OPJ_OFF_T>(0, OPJ_OFF_T(mm->pos) + n));
        return n;
    });
    opj_stream_set_seek_function(s, [](OPJ_OFF_T n, void *u) -> OPJ_BOOL {
        static_cast<Mem *>(u)->pos = size_t(n);
        return OPJ_TRUE;
    });
    return s;
}

int32_t sample_value(const J2kBenchFrame &f, size_t i)
{
    const pcwt_image_desc &d = f.d;
    uint32_t w = d.bits_allocated > 8 ? uint32_t(f.px[2 * i] | f.px[2 * i + 1] << 8) : f.px[i];
    w &= (1u << d.bits_stored) - 1;
    return d.is_signed && (w >> (d.bits_stored - 1)) ? int32_t(w) - int32_t(1u << d.bits_stored) : int32_t(w);
}

// Lossless JPEG 2000 as DICOM archives hold it (interleaved samples of 1 or 3 components).
// (On failure: empty, why said.)
std::vector<uint8_t> openjpeg_encode(const J2kBenchFrame &f, std::string &why)
{
    const pcwt_image_desc &d = f.d;
    std::vector<opj_image_cmptparm_t> cp(d.components);
    for (auto &c : cp) {
        std::memset(&c, 0, sizeof c);
        c.dx = c.dy = 1;
        c.w = d.width;
        c.h = d.height;
        c.prec = d.bits_stored;
        c.sgnd = d.is_signed;
    }
    opj_image_t *im = opj_image_create(d.components, cp.data(), d.components == 3 ? OPJ_CLRSPC_SRGB : OPJ_CLRSPC_GRAY);
    im->x1 = d.width;
    im->y1 = d.height;
    const size_t px = size_t(d.width) * d.height;
    for (uint32_t c = 0; c < d.components; c++)
        for (size_t k = 0; k < px; k++)
            im->comps[c].data[k] = sample_value(f, d.planar ? c * px + k : k * d.components + c);
    opj_cparameters_t p;
    opj_set_default_encoder_parameters(&p);
    p.tcp_numlayers = 1;
    p.tcp_rates[0] = 0;
    p.cp_disto_alloc = 1;
    p.numresolution = 6; // 5 levels
    p.cblockw_init = p.cblockh_init = 64;
    p.prog_order = OPJ_LRCP;
    p.tcp_mct = d.components == 3;
    opj_codec_t *codec = opj_create_compress(OPJ_CODEC_J2K);
    std::vector<uint8_t> out;
    Mem m;
    m.out = &out;
    opj_stream_t *s = mem_stream(&m, false);
    const bool ok = opj_setup_encoder(codec, &p, im) && opj_start_compress(codec, im, s) && opj_encode(codec, s) &&
                    opj_end_compress(codec, s);
    opj_stream_destroy(s);
    opj_destroy_codec(codec);
    opj_image_destroy(im);
    if (!ok) {
        why = "OpenJPEG could not encode a frame";
        return {};
    }
    out.resize(m.size);
    return out;
}

// HTJ2K as ojph_compress writes it for DICOM, of a one-component frame. Signed frames: ojph_compress
// 0.9 zero-extends signed raw words, so it gets the values offset to unsigned (its DC level shift
// takes the offset off) and SIZ is then marked signed: the stream of the signed samples.
std::vector<uint8_t> openjph_encode(const J2kBenchFrame &f, size_t index, std::string &why)
{
    const pcwt_image_desc &d = f.d;
    if (d.components != 1) {
        why = "--codec htj2k: only one-component frames";
        return {};
    }
    const size_t px = size_t(d.width) * d.height, bps = d.bits_stored > 8 ? 2 : 1;
    std::vector<uint8_t> raw(px * bps);
    for (size_t k = 0; k < px; k++) {
        const uint32_t v = uint32_t(sample_value(f, k) + (d.is_signed ? int32_t(1u << (d.bits_stored - 1)) : 0));
        raw[k * bps] = uint8_t(v);
        if (bps == 2)
            raw[k * bps + 1] = uint8_t(v >> 8);
    }
    const char *tmp = std::getenv("TMPDIR");
    const std::string base = std::string(tmp && *tmp ? tmp : "/tmp") + "/pcwt_bench_ht_" + std::to_string(getpid()) +
                             "_" + std::to_string(index);
    std::ofstream(base + ".raw", std::ios::binary).write(reinterpret_cast<const char *>(raw.data()),
                                                         std::streamsize(raw.size()));
    const std::string cmd = "ojph_compress -i '" + base + ".raw' -o '" + base + ".j2c' -reversible true -dims '{" +
                            std::to_string(d.width) + "," + std::to_string(d.height) +
                            "}' -num_comps 1 -signed false -bit_depth " + std::to_string(d.bits_stored) +
                            " -downsamp '{1,1}' -num_decomps 5 -block_size '{64,64}' -prog_order RPCL >/dev/null 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(base + ".j2c", std::ios::binary);
    std::vector<uint8_t> out((std::istreambuf_iterator<char>(in)), {});
    std::remove((base + ".raw").c_str());
    std::remove((base + ".j2c").c_str());
    if (rc != 0 || out.size() < 43) {
        why = "ojph_compress could not encode a frame (openjph-tools on PATH?)";
        return {};
    }
    if (d.is_signed)
        out[42] |= 0x80; // SOC, SIZ: the component's Ssiz
    return out;
}

// OpenJPEG's decode of one codestream into the library's layout (interleaved words), one thread.
bool openjpeg_decode(const std::vector<uint8_t> &cs, const pcwt_image_desc &d, uint8_t *dst)
{
    Mem m;
    m.in = cs.data();
    m.size = cs.size();
    opj_stream_t *s = mem_stream(&m, true);
    opj_codec_t *codec = opj_create_decompress(OPJ_CODEC_J2K);
    opj_dparameters_t p;
    opj_set_default_decoder_parameters(&p);
    opj_image_t *im = nullptr;
    bool ok = opj_setup_decoder(codec, &p) && opj_codec_set_threads(codec, 1) && opj_read_header(s, codec, &im) &&
              opj_decode(codec, s, im) && opj_end_decompress(codec, s) && im->numcomps == d.components;
    if (ok) {
        const size_t px = size_t(d.width) * d.height;
        for (uint32_t c = 0; c < d.components; c++)
            for (size_t k = 0; k < px; k++) {
                const uint32_t w = uint32_t(im->comps[c].data[k]);
                const size_t at = k * d.components + c;
                if (d.bits_allocated > 8) {
                    dst[2 * at] = uint8_t(w);
                    dst[2 * at + 1] = uint8_t(w >> 8);
                } else {
                    dst[at] = uint8_t(w);
                }
            }
    }
    opj_image_destroy(im);
    opj_destroy_codec(codec);
    opj_stream_destroy(s);
    return ok;
}

struct Pinned {
    uint8_t *p;
    explicit Pinned(size_t n) : p(static_cast<uint8_t *>(pcwt_host_alloc(n ? n : 1)))
    {
        if (!p)
            die("out of page-locked memory");
    }
    Pinned(const Pinned &) = delete;
    ~Pinned() { pcwt_host_free(p); }
};

// The numbers of a variable's list ("0 16 64"), or {fallback} when it is not set.
std::vector<uint64_t> env_list(const char *name, uint64_t fallback)
{
    const char *v = std::getenv(name);
    std::vector<uint64_t> out;
    for (const char *p = v; p && *p;) {
        char *end = nullptr;
        const unsigned long long x = std::strtoull(p, &end, 10);
        if (end == p)
            break;
        out.push_back(x);
        p = end;
    }
    if (out.empty())
        out.push_back(fallback);
    return out;
}

// Measuring variants of the end-to-end decode (the library's driver, pcwt_j2k_decode_jobs, on a
// handle of its own): PCWT_BENCH_J2K_GROUP_MB (codestream MB a group; 0: the default choice;
// 100000: one group), PCWT_BENCH_J2K_T2_THREADS (tier-2 threads a group, 0: the default choice)
// PCWT_BENCH_J2K_T1_LANES (code-blocks a tier-1 warp, 0: packed by cost) and PCWT_BENCH_J2K_HT_LANES
// (HT code-blocks a warp, 0: the default), each a list; one line per combination, after the
// batch's row. Nothing runs when none is set.
void e2e_variants(std::vector<pcwt_decode_job> &jobs, double gp, uint8_t *out, const uint8_t *want, size_t size,
                  int repeats)
{
    if (!std::getenv("PCWT_BENCH_J2K_GROUP_MB") && !std::getenv("PCWT_BENCH_J2K_T2_THREADS") &&
        !std::getenv("PCWT_BENCH_J2K_T1_LANES") && !std::getenv("PCWT_BENCH_J2K_HT_LANES"))
        return;
    for (uint64_t ht : env_list("PCWT_BENCH_J2K_HT_LANES", 0))
    for (uint64_t lanes : env_list("PCWT_BENCH_J2K_T1_LANES", 0))
        for (uint64_t t2 : env_list("PCWT_BENCH_J2K_T2_THREADS", 0))
            for (uint64_t mb : env_list("PCWT_BENCH_J2K_GROUP_MB", 0)) {
                pcwt_gpu *g = nullptr;
                char err[256] = "";
                if (pcwt_gpu_create(&g, 0, err, sizeof err) != PCWT_OK ||
                    pcwt_gpu_j2k_set_t1_lanes(g, uint32_t(lanes), err, sizeof err) != PCWT_OK ||
                    pcwt_gpu_j2k_set_ht_lanes(g, uint32_t(ht), err, sizeof err) != PCWT_OK)
                    die(std::string("GPU: ") + err);
                pcwt_j2k_pool *pool = pcwt_j2k_pool_create();
                const pcwt_j2k_route r = {UINT64_MAX, uint64_t(1) << 40, g,      err, sizeof err, pool,
                                          mb >= 100000 ? UINT64_MAX : mb << 20, size_t(t2)};
                std::memset(out, 0, size);
                const double ms = median_ms(repeats, [&]() {
                    if (pcwt_j2k_decode_jobs(&r, jobs.data(), jobs.size()) != PCWT_OK)
                        die(std::string("pcwt_j2k_decode_jobs: ") + err);
                });
                const bool same = std::memcmp(out, want, size) == 0;
                pcwt_j2k_pool_free(pool);
                pcwt_gpu_destroy(g);
                std::printf("  e2e, groups %s, tier-2 threads %s, tier-1 lanes %s, HT lanes %s: %.2f Gpx/s (%.1f ms), %s\n",
                            mb >= 100000 ? "one" : mb ? (std::to_string(mb) + " MB").c_str() : "default",
                            t2 ? std::to_string(t2).c_str() : "default",
                            lanes ? std::to_string(lanes).c_str() : "by cost",
                            ht ? std::to_string(ht).c_str() : "default", gp / (ms / 1e3), ms,
                            same ? "equal to OpenJPEG's" : "DIFFER from OpenJPEG's");
            }
}

} // namespace

void j2k_bench_header(bool ht)
{
    if (ht)
        std::printf("HTJ2K lossless (ojph_compress: 5/3, 64x64 code-blocks, 5 levels, one tile, RPCL) decoding: "
                    "GPU vs OpenJPEG %s, one frame per thread on %u threads\n",
                    opj_version(), std::max(1u, std::thread::hardware_concurrency()));
    else
        std::printf("JPEG 2000 lossless (OpenJPEG %s: 5/3, 64x64 code-blocks, 5 levels, one tile, LRCP) decoding: "
                    "GPU vs OpenJPEG, one frame per thread on %u threads\n",
                    opj_version(), std::max(1u, std::thread::hardware_concurrency()));
    std::printf("| batch | frames | raw MB | J2K ratio | GPU device dec Gpx/s | GPU e2e dec Gpx/s | "
                "OpenJPEG dec Gpx/s | device vs OpenJPEG | e2e vs OpenJPEG | samples |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n");
}

void j2k_bench_run(const char *name, const std::vector<J2kBenchFrame> &frames, int repeats, bool ht)
{
    // code each distinct frame once (the batches replicate frames)
    std::map<const uint8_t *, size_t> distinct;
    std::vector<const J2kBenchFrame *> src;
    for (const auto &f : frames)
        if (distinct.emplace(f.px, src.size()).second)
            src.push_back(&f);
    std::vector<std::vector<uint8_t>> coded(src.size());
    std::vector<std::string> why(src.size());
    parallel_for(src.size(), [&](size_t i) {
        coded[i] = ht ? openjph_encode(*src[i], i, why[i]) : openjpeg_encode(*src[i], why[i]);
    });
    for (size_t i = 0; i < src.size(); i++) // here, not on the coding threads: exit() from several
        if (coded[i].empty())                // threads at once crashed
            die(why[i]);
    std::vector<const std::vector<uint8_t> *> cs(frames.size());
    std::vector<pcwt_image_desc> desc(frames.size());
    std::vector<size_t> off(frames.size() + 1, 0);
    double pixels = 0, raw = 0, bytes = 0;
    for (size_t i = 0; i < frames.size(); i++) {
        cs[i] = &coded[distinct[frames[i].px]];
        pcwt_header_info h{};
        char err[256] = "";
        if (pcwt_j2k_read_header(cs[i]->data(), cs[i]->size(), &h, err, sizeof err) != PCWT_OK)
            die(std::string("own header reader: ") + err);
        desc[i] = h.desc;
        off[i + 1] = off[i] + pcwt_image_size(&h.desc);
        pixels += double(h.desc.width) * h.desc.height * h.desc.components;
        raw += double(pcwt_image_size(&frames[i].d));
        bytes += double(cs[i]->size());
    }
    Pinned gpu_out(off.back()), opj_out(off.back());

    // device-resident: the CPU's tier-2 builds the batch once
    pcwt_gpu *g = nullptr;
    char err[256] = "";
    if (pcwt_gpu_create(&g, 0, err, sizeof err) != PCWT_OK)
        die(std::string("GPU: ") + err);
    pcwt_j2k_builder bld{};
    auto h = std::make_unique<pcwt_j2k_header>();
    for (size_t i = 0; i < frames.size(); i++)
        if (pcwt_j2k_read_codestream(cs[i]->data(), cs[i]->size(), h.get(), err, sizeof err) != PCWT_OK ||
            pcwt_j2k_tier2(&bld, h.get(), cs[i]->data(), &desc[i], gpu_out.p + off[i], err, sizeof err) != PCWT_OK)
            die(std::string("tier-2: ") + err);
    double dev_ms = 0;
    if (pcwt_gpu_j2k_bench(g, &bld.b, repeats, &dev_ms, err, sizeof err) != PCWT_OK)
        die(std::string("device-resident decode: ") + err);
    std::vector<std::pair<uint64_t, double>> dev_ht; // device-resident, each HT lanes variant
    if (std::getenv("PCWT_BENCH_J2K_HT_LANES"))
        for (uint64_t ht : env_list("PCWT_BENCH_J2K_HT_LANES", 0)) {
            double ms = 0;
            if (pcwt_gpu_j2k_set_ht_lanes(g, uint32_t(ht), err, sizeof err) != PCWT_OK ||
                pcwt_gpu_j2k_bench(g, &bld.b, repeats, &ms, err, sizeof err) != PCWT_OK)
                die(std::string("device-resident decode: ") + err);
            dev_ht.emplace_back(ht, ms);
        }
    if (pcwt_gpu_j2k_set_ht_lanes(g, 0, err, sizeof err) != PCWT_OK)
        die(std::string("GPU: ") + err);
    if (pcwt_gpu_j2k_decode_batch(g, &bld.b, err, sizeof err) != PCWT_OK) // its samples, checked below
        die(std::string("GPU decode: ") + err);
    pcwt_j2k_builder_free(&bld);
    pcwt_gpu_destroy(g);

    // OpenJPEG on every core, and the check of every frame against it
    const double opj_ms = median_ms(repeats, [&]() {
        std::atomic<bool> failed{false};
        parallel_for(frames.size(), [&](size_t i) {
            if (!openjpeg_decode(*cs[i], desc[i], opj_out.p + off[i]))
                failed = true;
        });
        if (failed) // reported here, not on the decoding threads (see the coding loop above)
            die("OpenJPEG could not decode a frame");
    });
    const bool same = std::memcmp(gpu_out.p, opj_out.p, off.back()) == 0;

    // end to end through the library on the GPU backend
    pcwt_decoder *dec = pcwt_decoder_create();
    if (pcwt_decoder_set_backend(dec, PCWT_BACKEND_GPU) != PCWT_OK)
        die(std::string("GPU backend: ") + pcwt_decoder_last_error(dec));
    if (pcwt_decoder_set_memory_limit(dec, uint64_t(1) << 40) != PCWT_OK)
        die("memory limit");
    std::vector<pcwt_decode_job> jobs(frames.size());
    for (size_t i = 0; i < frames.size(); i++)
        jobs[i] = pcwt_decode_job{cs[i]->data(), cs[i]->size(), gpu_out.p + off[i], off[i + 1] - off[i], PCWT_OK};
    std::memset(gpu_out.p, 0, off.back());
    const double e2e_ms = median_ms(repeats, [&]() {
        if (pcwt_decode_batch(dec, jobs.data(), jobs.size()) != PCWT_OK)
            die(std::string("pcwt_decode_batch: ") + pcwt_decoder_last_error(dec));
    });
    pcwt_decoder_destroy(dec);
    const bool same_e2e = std::memcmp(gpu_out.p, opj_out.p, off.back()) == 0;

    const double gp = pixels / 1e9;
    std::printf("| %s | %zu | %.0f | %.2f | %.2f | %.2f | %.3f | %.1fx | %.1fx | %s |\n", name, frames.size(),
                raw / 1e6, raw / bytes, gp / (dev_ms / 1e3), gp / (e2e_ms / 1e3),
                gp / (opj_ms / 1e3), opj_ms / dev_ms, opj_ms / e2e_ms,
                same && same_e2e ? "equal to OpenJPEG's" : "DIFFER from OpenJPEG's");
    for (const auto &[ht, ms] : dev_ht)
        std::printf("  device, HT lanes %s: %.2f Gpx/s (%.1f ms)\n", ht ? std::to_string(ht).c_str() : "default",
                    gp / (ms / 1e3), ms);
    e2e_variants(jobs, gp, gpu_out.p, opj_out.p, off.back(), repeats);
    std::fflush(stdout);
}
