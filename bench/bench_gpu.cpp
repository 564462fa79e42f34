// bench_gpu.cpp - GPU micro-benchmark of the PCWT backend against CharLS on all CPU cores, in one
// run. Not a test. It measures what pcwt-bench, which times the user's own frames, does not: batches
// built to the GPU's scale, page-locked end-to-end buffers, per-stage times (PCWT_GPU_TRACE=1). Inputs: a folder of CPU-made PCWT codestreams of the corpus
// (tests/gpu/pack_corpus.sh), decoded on the CPU here:
//   (a) 512x512 16-bit CT slices, copied to at least --ct-bytes (default 1 GiB)
//   (b) 2000x2500 12-bit radiographs, cut from the corpus's largest 10-16-bit images, --rad-frames
//   (c) one 512x512 slice alone
// The copies of a source frame in (a) and (b) are shifted (mirrored tiling from another origin), so
// that no two frames of a batch are equal: equal frames give equal groups, which the GPU decoder's
// longest-first order puts side by side in its warps, and flatter the decode
// (bench/results/gpu-h200-2026-11-29-session14-decode.md).
// --copies equal repeats the source frames unchanged instead (the batches of the results before it;
// default: --copies shifted).
// For each: device-resident encode and decode (CUDA events, median of repeats, after warm-up),
// end-to-end host-to-host (pcwt_encode_batch / pcwt_decode_batch, median), CharLS 2.4.1 with one
// thread per frame on every core (median), compression ratios, and each round trip checked.
// --profile baseline|entropy|compact|both picks the PCWT profile(s) (default: libpcwt's, compact;
// both: the compact and the baseline profile, a row of each per batch, side by side). With --codec jpegls it measures the GPU JPEG-LS encoder instead (encode
// only; every codestream compared byte for byte with CharLS's). With --codec j2k (where OpenJPEG
// 2.5 was found) it measures JPEG 2000 decoding on the GPU against OpenJPEG (bench_gpu_j2k.cpp);
// --codec htj2k the same with the frames coded as HTJ2K by ojph_compress (openjph-tools on PATH).
// --batches picks which of (a), (b), (c) run (default abc; e.g. a alone under a profiler).
// --level1-filter 53|auto|511 sets the PCWT encoder's level-1 filter, --offset auto|off|on its
// modular offset (compact profile), --second-bit on|off its modelled second mantissa bit (entropy
// and compact), --group RxC its group size in elements (default: the
// library's). --only e2e measures the end-to-end columns alone (no device-resident runs, no
// CharLS: for comparing the batch pipeline's variants quickly); --only device the device-resident
// ones (the end-to-end calls once each, untimed, for the codestreams and the round-trip check;
// no CharLS; those columns 0: for comparing kernels' variants quickly).
//   pcwt_bench_gpu CORPUS_DIR [--ct-bytes N] [--rad-frames N] [--repeats N] [--codec pcwt|jpegls|j2k|htj2k]
//                  [--profile baseline|entropy|compact|both] [--batches abc] [--level1-filter 53|auto|511]
//                  [--offset auto|off|on] [--second-bit on|off] [--group RxC] [--only e2e|device|all]
//                  [--copies shifted|equal]
#include "pcwt.h"

extern "C" {
#include "gpu_backend.h"
}
#include "bench_gpu_util.hpp"
#include "pcwt_bench/encoder_options.hpp"
#ifdef PCWT_BENCH_J2K
#include "bench_gpu_j2k.hpp"
#endif

#include <charls/charls.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Frame {
    pcwt_image_desc d;
    std::vector<uint8_t> px;
};

using benchgpu::median_ms;

[[noreturn]] void die(const std::string &m)
{
    benchgpu::die_as("pcwt_bench_gpu", m);
}

// An encoder with these options set one by one (the others the library's defaults).
pcwt_encoder *make_encoder(const pcwtbench::EncoderOptions &options)
{
    pcwt_encoder *e = pcwt_encoder_create();
    if (!e)
        die("out of memory");
    if (pcwtbench::set_encoder_options(e, options) != PCWT_OK)
        die(std::string("encoder options: ") + pcwt_encoder_last_error(e));
    return e;
}

// The encoder's options as the internal device-resident entry point takes them.
pcwt_encode_params device_params(const pcwt_encoder *e)
{
    pcwt_encode_params p;
    if (!pcwtbench::encoder_params(e, &p))
        die("pcwt_encoder_get_option refused an option");
    return p;
}

// Device-resident: inputs already on the device, only the device work timed (CUDA events): the
// encode of jobs with enc's options, and the decode of djobs when given.
void device_times(const pcwt_encoder *enc, std::vector<pcwt_frame_job> &jobs,
                  std::vector<pcwt_decode_job> *djobs, int repeats, double *enc_ms, double *dec_ms)
{
    pcwt_gpu *g = nullptr;
    char err[256];
    if (pcwt_gpu_create(&g, 0, err, sizeof err) != PCWT_OK)
        die(err);
    const pcwt_encode_params p = device_params(enc);
    if (pcwt_gpu_bench_encode(g, &p, jobs.data(), jobs.size(), repeats, enc_ms, err, sizeof err) != PCWT_OK)
        die(err);
    if (djobs && pcwt_gpu_bench_decode(g, djobs->data(), djobs->size(), repeats, dec_ms, err, sizeof err) != PCWT_OK)
        die(err);
    pcwt_gpu_destroy(g);
}

#define CL(call)                                                                                   \
    do {                                                                                           \
        if ((call) != charls_jpegls_errc{})                                                        \
            die("CharLS call failed: " #call);                                                     \
    } while (0)

// Page-locked host buffer (pcwt_host_alloc): the end-to-end numbers are for pinned buffers.
struct Pinned {
    uint8_t *p = nullptr;
    size_t n = 0;
    explicit Pinned(size_t size) : p(static_cast<uint8_t *>(pcwt_host_alloc(size))), n(size)
    {
        if (!p) die("out of host memory");
    }
    Pinned(Pinned &&o) noexcept : p(o.p), n(o.n) { o.p = nullptr; }
    Pinned(const Pinned &) = delete;
    ~Pinned() { pcwt_host_free(p); }
};

std::vector<Frame> load_corpus(const std::string &dir)
{
    std::vector<Frame> out;
    DIR *dd = opendir(dir.c_str());
    if (!dd)
        die("cannot open " + dir);
    std::vector<std::string> names;
    while (dirent *e = readdir(dd)) {
        const std::string n = e->d_name;
        if (n.size() > 5 && n.substr(n.size() - 5) == ".pcwt")
            names.push_back(n);
    }
    closedir(dd);
    std::sort(names.begin(), names.end());
    out.resize(names.size());
    // decoded on every core (a decoder each): the start of every GPU run waits for it. A file that
    // fails is reported from this thread once all are done: exit() from several workers at once
    // crashed.
    std::vector<std::string> why(names.size());
    benchgpu::parallel_for(names.size(), [&](size_t i) {
        const std::string &n = names[i];
        std::ifstream in(dir + "/" + n, std::ios::binary);
        std::vector<uint8_t> cs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        pcwt_header_info h;
        if (pcwt_read_header(cs.data(), cs.size(), &h) != PCWT_OK) {
            why[i] = "bad codestream " + n;
            return;
        }
        pcwt_decoder *dec = pcwt_decoder_create();
        if (!dec || pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU) != PCWT_OK) {
            why[i] = "CPU decoder";
            pcwt_decoder_destroy(dec);
            return;
        }
        Frame f{h.desc, std::vector<uint8_t>(pcwt_image_size(&h.desc))};
        if (pcwt_decode(dec, cs.data(), cs.size(), f.px.data(), f.px.size()) != PCWT_OK)
            why[i] = "cannot decode " + n + ": " + pcwt_decoder_last_error(dec);
        else
            out[i] = std::move(f);
        pcwt_decoder_destroy(dec);
    });
    size_t failed = 0;
    for (const std::string &w : why)
        failed += !w.empty();
    for (const std::string &w : why)
        if (!w.empty())
            die(w + (failed > 1 ? " (and " + std::to_string(failed - 1) + " more files)" : ""));
    return out;
}

// Position i of a mirrored tiling of n positions (0 .. n-1, n-1 .. 0, 0 ..).
uint32_t mirrored(uint32_t i, uint32_t n)
{
    i %= 2 * n;
    return i < n ? i : 2 * n - 1 - i;
}

// Copy c of a batch's source frame: c = 0 the frame itself, others its mirrored tiling from the
// origin (c * 37, c * 61) (16-bit single-component frames).
Frame shifted_copy(const Frame &s, uint32_t c)
{
    Frame f = s;
    const uint32_t H = s.d.height, W = s.d.width, di = c * 37, dj = c * 61;
    for (uint32_t i = 0; c && i < H; i++)
        for (uint32_t j = 0; j < W; j++)
            std::memcpy(&f.px[2 * (size_t(i) * W + j)],
                        &s.px[2 * (size_t(mirrored(i + di, H)) * W + mirrored(j + dj, W))], 2);
    return f;
}

// A 2000x2500 frame cut from a larger-or-smaller source by mirrored tiling from the origin
// (c * 97, c * 131) (copy c of the source), masked to 12 bits.
Frame radiograph_from(const Frame &s, uint32_t c)
{
    Frame f{{2000, 2500, 1, 16, 12, 0, 0}, std::vector<uint8_t>(2000 * 2500 * 2)};
    auto at = [&](uint32_t i, uint32_t j) {
        const uint32_t ii = mirrored(i + c * 97, s.d.height), jj = mirrored(j + c * 131, s.d.width);
        uint16_t w;
        std::memcpy(&w, &s.px[2 * (size_t(ii) * s.d.width + jj)], 2);
        const uint32_t v = s.d.is_signed ? uint32_t(int32_t(int16_t(w)) + 32768) : w;
        return uint16_t((v >> (s.d.bits_stored > 12 ? s.d.bits_stored - 12 : 0)) & 0xFFF);
    };
    for (uint32_t i = 0; i < 2500; i++)
        for (uint32_t j = 0; j < 2000; j++) {
            const uint16_t w = at(i, j);
            std::memcpy(&f.px[2 * (size_t(i) * 2000 + j)], &w, 2);
        }
    return f;
}

struct Result {
    std::string name;
    size_t frames = 0;
    double pixels = 0, raw_bytes = 0, coded = 0, charls_coded = 0;
    double dev_enc = 0, dev_dec = 0, e2e_enc = 0, e2e_dec = 0, cl_enc = 0, cl_dec = 0;
};

// CharLS on every core, one frame per thread; its codestreams are left in *streams when asked.
void charls_run(const std::vector<Frame> &fr, int repeats, Result &r,
                std::vector<std::vector<uint8_t>> *streams = nullptr)
{
    std::vector<std::vector<uint8_t>> enc(fr.size());
    std::vector<std::vector<uint8_t>> dec(fr.size());
    auto pool = [&](auto job) { benchgpu::parallel_for(fr.size(), job); };
    auto encode_one = [&](size_t i) {
        const Frame &f = fr[i];
        charls_jpegls_encoder *e = charls_jpegls_encoder_create();
        charls_frame_info fi{f.d.width, f.d.height, int32_t(f.d.bits_stored), int32_t(f.d.components)};
        CL(charls_jpegls_encoder_set_frame_info(e, &fi));
        size_t cap = 0;
        CL(charls_jpegls_encoder_get_estimated_destination_size(e, &cap));
        enc[i].resize(cap);
        CL(charls_jpegls_encoder_set_destination_buffer(e, enc[i].data(), cap));
        // JPEG-LS has no sign: code the stored bits_stored-bit pattern, as DICOM does.
        std::vector<uint8_t> px = f.px;
        if (f.d.bits_allocated == 16)
            for (size_t k = 0; k < px.size(); k += 2) {
                uint16_t w;
                std::memcpy(&w, &px[k], 2);
                w &= uint16_t((1u << f.d.bits_stored) - 1);
                std::memcpy(&px[k], &w, 2);
            }
        if (charls_jpegls_encoder_encode_from_buffer(e, px.data(), px.size(), 0) != charls_jpegls_errc{})
            die("CharLS encode failed");
        size_t n = 0;
        CL(charls_jpegls_encoder_get_bytes_written(e, &n));
        enc[i].resize(n);
        charls_jpegls_encoder_destroy(e);
    };
    auto decode_one = [&](size_t i) {
        charls_jpegls_decoder *d = charls_jpegls_decoder_create();
        CL(charls_jpegls_decoder_set_source_buffer(d, enc[i].data(), enc[i].size()));
        CL(charls_jpegls_decoder_read_header(d));
        dec[i].resize(fr[i].px.size());
        if (charls_jpegls_decoder_decode_to_buffer(d, dec[i].data(), dec[i].size(), 0) != charls_jpegls_errc{})
            die("CharLS decode failed");
        charls_jpegls_decoder_destroy(d);
    };
    r.cl_enc = median_ms(repeats, [&]() { pool(encode_one); });
    r.cl_dec = median_ms(repeats, [&]() { pool(decode_one); });
    for (const auto &e : enc)
        r.charls_coded += double(e.size());
    if (streams)
        *streams = std::move(enc);
}

// A batch's row before timing: its name, frames, samples and raw bytes.
Result batch_result(const std::string &name, const std::vector<Frame> &fr)
{
    Result r;
    r.name = name;
    r.frames = fr.size();
    for (const Frame &f : fr) {
        r.pixels += double(f.d.width) * f.d.height * f.d.components;
        r.raw_bytes += double(f.px.size());
    }
    return r;
}

// The frames copied into page-locked memory as encode jobs, with page-locked destinations of
// pcwt_encode_bound bytes: what a GPU pipeline is fed at its best.
struct PinnedJobs {
    std::vector<Pinned> in, out;
    std::vector<pcwt_frame_job> jobs;
    explicit PinnedJobs(const std::vector<Frame> &fr) : jobs(fr.size())
    {
        for (size_t i = 0; i < fr.size(); i++) {
            in.emplace_back(fr[i].px.size());
            std::memcpy(in[i].p, fr[i].px.data(), fr[i].px.size());
            out.emplace_back(pcwt_encode_bound(&fr[i].d));
            jobs[i] = {fr[i].d, in[i].p, in[i].n, out[i].p, out[i].n, 0, PCWT_OK};
        }
    }
};

// The GPU JPEG-LS encoder against CharLS on every core: device-resident
// and end-to-end encode, and every frame's codestream of both compared byte for byte with CharLS's.
Result run_jpegls(const std::string &name, const std::vector<Frame> &fr, int repeats)
{
    Result r = batch_result(name, fr);
    pcwt_encoder *enc = make_encoder({{PCWT_OPT_CODEC, PCWT_CODEC_JPEGLS}, {PCWT_OPT_BACKEND, PCWT_BACKEND_GPU}});
    PinnedJobs pj(fr);
    std::vector<pcwt_frame_job> &jobs = pj.jobs;
    r.e2e_enc = median_ms(repeats, [&]() {
        if (pcwt_encode_batch(enc, jobs.data(), jobs.size()) != PCWT_OK)
            die(std::string("GPU JPEG-LS encode: ") + pcwt_encoder_last_error(enc));
    });
    // the end-to-end codestreams, kept: the device-resident run writes its own into the jobs
    std::vector<std::vector<uint8_t>> e2e(fr.size());
    for (size_t i = 0; i < fr.size(); i++) {
        r.coded += double(jobs[i].written);
        e2e[i].assign(pj.out[i].p, pj.out[i].p + jobs[i].written);
    }
    device_times(enc, jobs, nullptr, repeats, &r.dev_enc, nullptr);
    pcwt_encoder_destroy(enc);
    std::vector<std::vector<uint8_t>> ref;
    charls_run(fr, repeats, r, &ref);
    for (size_t i = 0; i < fr.size(); i++) {
        if (e2e[i] != ref[i])
            die("GPU JPEG-LS end-to-end codestream differs from CharLS's in " + name + " frame " + std::to_string(i));
        if (jobs[i].written != ref[i].size() || std::memcmp(pj.out[i].p, ref[i].data(), ref[i].size()) != 0)
            die("GPU JPEG-LS device-resident codestream differs from CharLS's in " + name + " frame " +
                std::to_string(i));
    }
    return r;
}

void print_jpegls(const Result &r)
{
    auto gps = [&](double ms) { return r.pixels / (ms * 1e6); };
    std::printf("| %s | %zu | %.0f MB | %.3f | %.2f | %.2f | %.3f | %.1fx | %.1fx | identical |\n",
                r.name.c_str(), r.frames, r.raw_bytes / 1e6, r.raw_bytes / r.coded, gps(r.dev_enc),
                gps(r.e2e_enc), gps(r.cl_enc), r.cl_enc / r.dev_enc, r.cl_enc / r.e2e_enc);
    std::printf("  ms: device enc %.3f | end-to-end enc %.3f | CharLS enc %.3f\n", r.dev_enc, r.e2e_enc,
                r.cl_enc);
}

// Frames JPEG-LS can carry (no bits above BitsStored other than sign extension).
std::vector<Frame> jpegls_codable(const std::vector<Frame> &fr)
{
    pcwt_encoder *e = make_encoder({{PCWT_OPT_CODEC, PCWT_CODEC_JPEGLS}, {PCWT_OPT_BACKEND, PCWT_BACKEND_CPU}});
    std::vector<Frame> ok;
    for (const Frame &f : fr) {
        std::vector<uint8_t> o(pcwt_encode_bound(&f.d));
        size_t n = 0;
        if (pcwt_encode(e, &f.d, f.px.data(), f.px.size(), o.data(), o.size(), &n) == PCWT_OK)
            ok.push_back(f);
    }
    pcwt_encoder_destroy(e);
    return ok;
}

// The encoder options that --level1-filter, --offset, --second-bit and --group set, and their text for the
// row's name; whether --only e2e left out the device-resident and CharLS runs, --only device the
// end-to-end repeats and CharLS.
struct ExtraOptions {
    pcwtbench::EncoderOptions opts;
    std::string label;
    bool e2e_only = false, device_only = false;
};

Result run(const std::string &name, const std::vector<Frame> &fr, int repeats, pcwt_profile profile,
           const ExtraOptions &extra)
{
    Result r = batch_result(name + " [" + pcwt_profile_name(profile) + extra.label + "]", fr);
    pcwtbench::EncoderOptions opts = {{PCWT_OPT_BACKEND, PCWT_BACKEND_GPU}, {PCWT_OPT_PROFILE, profile}};
    opts.insert(opts.end(), extra.opts.begin(), extra.opts.end());
    pcwt_encoder *enc = make_encoder(opts);
    pcwt_decoder *dec = pcwt_decoder_create();
    if (!dec || pcwt_decoder_set_backend(dec, PCWT_BACKEND_GPU) != PCWT_OK)
        die("no GPU backend");
    PinnedJobs pj(fr);
    std::vector<pcwt_frame_job> &jobs = pj.jobs;
    std::vector<Pinned> back;
    for (const Frame &f : fr)
        back.emplace_back(f.px.size());
    // --only device: each end-to-end call once, not timed (its columns stay 0)
    const auto e2e = [&](auto call) { return extra.device_only ? (call(), 0.0) : median_ms(repeats, call); };
    r.e2e_enc = e2e([&]() {
        if (pcwt_encode_batch(enc, jobs.data(), jobs.size()) != PCWT_OK)
            die(std::string("GPU encode: ") + pcwt_encoder_last_error(enc));
    });
    std::vector<pcwt_decode_job> djobs(fr.size());
    for (size_t i = 0; i < fr.size(); i++) {
        r.coded += double(jobs[i].written);
        std::memset(back[i].p, 0, back[i].n);
        djobs[i] = {pj.out[i].p, jobs[i].written, back[i].p, back[i].n, PCWT_OK};
    }
    r.e2e_dec = e2e([&]() {
        if (pcwt_decode_batch(dec, djobs.data(), djobs.size()) != PCWT_OK)
            die(std::string("GPU decode: ") + pcwt_decoder_last_error(dec));
    });
    for (size_t i = 0; i < fr.size(); i++)
        if (std::memcmp(back[i].p, fr[i].px.data(), fr[i].px.size()) != 0)
            die("round trip mismatch in " + name + " frame " + std::to_string(i));
    if (!extra.e2e_only)
        device_times(enc, jobs, &djobs, repeats, &r.dev_enc, &r.dev_dec);
    pcwt_encoder_destroy(enc);
    pcwt_decoder_destroy(dec);
    if (!extra.e2e_only && !extra.device_only)
        charls_run(fr, repeats, r);
    return r;
}

void print(const Result &r)
{
    auto gps = [&](double ms) { return r.pixels / (ms * 1e6); };
    auto gbs = [&](double ms) { return r.raw_bytes / (ms * 1e6); };
    std::printf("| %s | %zu | %.0f MB | %.3f | %.3f | %.2f (%.1f GB/s) | %.2f (%.1f GB/s) | %.2f | %.2f | %.3f | %.3f | %.1fx | %.1fx |\n",
                r.name.c_str(), r.frames, r.raw_bytes / 1e6, r.raw_bytes / r.coded, r.raw_bytes / r.charls_coded,
                gps(r.dev_enc), gbs(r.dev_enc), gps(r.dev_dec), gbs(r.dev_dec), gps(r.e2e_enc), gps(r.e2e_dec),
                gps(r.cl_enc), gps(r.cl_dec), r.cl_enc / r.e2e_enc, r.cl_dec / r.e2e_dec);
    std::printf("  ms: device enc %.3f dec %.3f | end-to-end enc %.3f dec %.3f | CharLS enc %.3f dec %.3f\n",
                r.dev_enc, r.dev_dec, r.e2e_enc, r.e2e_dec, r.cl_enc, r.cl_dec);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: pcwt_bench_gpu CORPUS_DIR [--ct-bytes N] [--rad-frames N] [--repeats N] [--codec pcwt|jpegls|j2k|htj2k] "
            "[--profile baseline|entropy|compact|both] [--batches abc] [--level1-filter 53|auto|511] "
            "[--offset auto|off|on] [--second-bit on|off] [--group RxC] [--only e2e|device|all] [--copies shifted|equal]");
    double ct_bytes = double(1u << 30);
    ExtraOptions extra;
    int rad_frames = 48, repeats = 5;
    pcwt_encode_params defaults;
    pcwt_encode_params_default(&defaults);
    std::string codec = "pcwt", profile = pcwt_profile_name(defaults.profile), batches = "abc";
    bool shifted = true; // --copies
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string o = argv[i];
        if (o == "--ct-bytes") ct_bytes = std::atof(argv[i + 1]);
        else if (o == "--rad-frames") rad_frames = std::atoi(argv[i + 1]);
        else if (o == "--copies") {
            const std::string c = argv[i + 1];
            if (c != "shifted" && c != "equal")
                die("--copies takes shifted or equal");
            shifted = c == "shifted";
        }
        else if (o == "--repeats") repeats = std::atoi(argv[i + 1]);
        else if (o == "--codec") codec = argv[i + 1];
        else if (o == "--profile") profile = argv[i + 1];
        else if (o == "--batches") batches = argv[i + 1];
        else if (o == "--level1-filter") {
            int64_t level1 = 0;
            if (pcwt_option_parse(PCWT_OPT_LEVEL1_FILTER, argv[i + 1], &level1) != PCWT_OK)
                die("--level1-filter takes 53, auto or 511");
            extra.opts.push_back({PCWT_OPT_LEVEL1_FILTER, level1});
            extra.label += std::string(", level1-filter ") + pcwt_option_value_name(PCWT_OPT_LEVEL1_FILTER, level1);
        } else if (o == "--offset") {
            int64_t offset = 0;
            if (pcwt_option_parse(PCWT_OPT_OFFSET, argv[i + 1], &offset) != PCWT_OK)
                die("--offset takes auto, off or on");
            extra.opts.push_back({PCWT_OPT_OFFSET, offset});
            extra.label += std::string(", offset ") + pcwt_option_value_name(PCWT_OPT_OFFSET, offset);
        } else if (o == "--second-bit") {
            int64_t second = 0;
            if (pcwt_option_parse(PCWT_OPT_SECOND_BIT, argv[i + 1], &second) != PCWT_OK)
                die("--second-bit takes on or off");
            extra.opts.push_back({PCWT_OPT_SECOND_BIT, second});
            extra.label += std::string(", second-bit ") + pcwt_option_value_name(PCWT_OPT_SECOND_BIT, second);
        } else if (o == "--group") {
            const std::string g = argv[i + 1];
            const size_t x = g.find('x');
            int64_t gr = 0, gc = 0;
            if (x == std::string::npos || pcwt_option_parse(PCWT_OPT_GROUP_ROWS, g.substr(0, x).c_str(), &gr) != PCWT_OK ||
                pcwt_option_parse(PCWT_OPT_GROUP_COLS, g.substr(x + 1).c_str(), &gc) != PCWT_OK)
                die("--group takes ROWSxCOLS, e.g. 32x16");
            extra.opts.push_back({PCWT_OPT_GROUP_ROWS, gr});
            extra.opts.push_back({PCWT_OPT_GROUP_COLS, gc});
            extra.label += ", group " + g;
        } else if (o == "--only") {
            const std::string only = argv[i + 1];
            if (only != "e2e" && only != "device" && only != "all")
                die("--only takes e2e, device or all");
            extra.e2e_only = only == "e2e";
            extra.device_only = only == "device";
        } else die("unknown option " + o);
    }
    // libpcwt's profile names, or both
    std::vector<pcwt_profile> profiles;
    int64_t pr = 0;
    if (profile == "both")
        profiles = {PCWT_PROFILE_COMPACT, PCWT_PROFILE_BASELINE};
    else if (pcwt_option_parse(PCWT_OPT_PROFILE, profile.c_str(), &pr) == PCWT_OK)
        profiles.push_back(static_cast<pcwt_profile>(pr));
    else {
        char names[64];
        pcwt_option_choices(PCWT_OPT_PROFILE, ", ", names, sizeof names);
        die(std::string("--profile must be ") + names + " or both");
    }
    if (batches.empty() || batches.find_first_not_of("abc") != std::string::npos)
        die("--batches takes letters of a, b and c");
    const auto wanted = [&](char c) { return batches.find(c) != std::string::npos; };
    const std::vector<Frame> all = load_corpus(argv[1]);
    // JPEG-LS cannot carry bits above BitsStored: its batches use the frames it can code
    const std::vector<Frame> corpus = codec == "jpegls" ? jpegls_codable(all) : all;
    std::vector<Frame> ct, rad_src, one;
    for (const Frame &f : corpus)
        if (f.d.width == 512 && f.d.height == 512 && f.d.bits_allocated == 16 && f.d.components == 1)
            ct.push_back(f);
    for (const Frame &f : corpus)
        if (f.d.bits_allocated == 16 && f.d.components == 1 && f.d.width >= 1000 && f.d.height >= 1000)
            rad_src.push_back(f);
    if (ct.empty() || rad_src.empty())
        die("corpus lacks 512x512 CT slices or large radiographs");
    one.push_back(ct.front());
    const size_t slices = ct.size();
    size_t copies = 0; // the batch's frames after the source slices
    while (double(slices + copies) * 512 * 512 * 2 < ct_bytes)
        copies++;
    ct.resize(slices + copies);
    benchgpu::parallel_for(copies, [&](size_t k) {
        ct[slices + k] = shifted ? shifted_copy(ct[k % slices], uint32_t(k / slices + 1)) : ct[k % slices];
    });
    std::vector<Frame> rad(size_t(std::max(rad_frames, 0)));
    benchgpu::parallel_for(rad.size(), [&](size_t i) {
        rad[i] = radiograph_from(rad_src[i % rad_src.size()], shifted ? uint32_t(i / rad_src.size()) : 0u);
    });
    std::printf("pcwt_bench_gpu: %u CPU threads for CharLS; %zu CT slices copied to %zu and %zu radiograph "
                "sources to %zu, %s\n", std::max(1u, std::thread::hardware_concurrency()), slices, ct.size(),
                rad_src.size(), rad.size(),
                shifted ? "each copy shifted (no two frames equal)" : "the copies equal (--copies equal)");
    { // PCIe ceiling: pinned 1 GiB copies each way, the bound on end-to-end throughput
        const size_t n = size_t(1) << 30;
        Pinned h(n);
        void *d = nullptr;
        if (cudaMalloc(&d, n) != cudaSuccess)
            die("cudaMalloc for the PCIe test");
        std::memset(h.p, 1, n);
        const double up = median_ms(3, [&]() { if (cudaMemcpy(d, h.p, n, cudaMemcpyHostToDevice) != cudaSuccess) die("H2D"); });
        const double down = median_ms(3, [&]() { if (cudaMemcpy(h.p, d, n, cudaMemcpyDeviceToHost) != cudaSuccess) die("D2H"); });
        cudaFree(d);
        std::printf("PCIe (pinned, 1 GiB): host to device %.1f GB/s, device to host %.1f GB/s\n", n / (up * 1e6),
                    n / (down * 1e6));
    }
#ifdef PCWT_BENCH_J2K
    if (codec == "j2k" || codec == "htj2k") { // JPEG 2000 / HTJ2K decoding against OpenJPEG (bench_gpu_j2k.cpp)
        const bool ht = codec == "htj2k";
        const auto frames = [](const std::vector<Frame> &v) {
            std::vector<J2kBenchFrame> o;
            for (const Frame &f : v)
                o.push_back(J2kBenchFrame{f.d, f.px.data()});
            return o;
        };
        j2k_bench_header(ht);
        if (wanted('c'))
            j2k_bench_run("(c) one 512x512 CT slice", frames(one), std::max(repeats, 20), ht);
        if (wanted('b'))
            j2k_bench_run("(b) 2000x2500 12-bit radiographs", frames(rad), repeats, ht);
        if (wanted('a'))
            j2k_bench_run("(a) 512x512 16-bit CT slices", frames(ct), repeats, ht);
        return 0;
    }
#endif
    if (codec == "jpegls") {
        std::printf("JPEG-LS: GPU round encoder vs CharLS 2.4.1 (one frame per thread on %u threads)\n",
                    std::max(1u, std::thread::hardware_concurrency()));
        std::printf("| batch | frames | raw | ratio | GPU device enc Gpx/s | GPU e2e enc Gpx/s | CharLS enc Gpx/s | "
                    "device vs CharLS | e2e vs CharLS | bytes vs CharLS |\n|---|---|---|---|---|---|---|---|---|---|\n");
        if (wanted('c'))
            print_jpegls(run_jpegls("(c) one 512x512 CT slice", one, std::max(repeats, 20)));
        if (wanted('b'))
            print_jpegls(run_jpegls("(b) 2000x2500 12-bit radiographs", rad, repeats));
        if (wanted('a'))
            print_jpegls(run_jpegls("(a) 512x512 16-bit CT slices", ct, repeats));
        return 0;
    }
    std::printf("| batch | frames | raw | PCWT ratio | CharLS ratio | GPU device enc Gpx/s | GPU device dec Gpx/s | "
                "GPU e2e enc Gpx/s | GPU e2e dec Gpx/s | CharLS enc Gpx/s | CharLS dec Gpx/s | e2e enc vs CharLS | e2e dec vs CharLS |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (pcwt_profile pr : profiles)
        if (wanted('c'))
            print(run("(c) one 512x512 CT slice", one, std::max(repeats, 20), pr, extra));
    for (pcwt_profile pr : profiles)
        if (wanted('b'))
            print(run("(b) 2000x2500 12-bit radiographs", rad, repeats, pr, extra));
    for (pcwt_profile pr : profiles)
        if (wanted('a'))
            print(run("(a) 512x512 16-bit CT slices", ct, repeats, pr, extra));
    return 0;
}
