// bench_transcode: JPEG 2000 codestreams recompressed as PCWT on one GPU, in batches, by three
// paths in turn in one run (issue 34):
//   via host    pcwt_decode_batch into page-locked host memory, pcwt_encode_batch from it,
//               pcwt_verify_batch against it (today's pcwt-recompress: samples down, up twice);
//   transcode   pcwt_transcode_batch, the samples handed over on the device;
//   +samples    pcwt_transcode_batch with the samples also asked back (page-locked host memory).
// Every path's codestreams are compared byte for byte with the first's. Prints a Markdown table:
// median seconds over the repeats, MB/s of decoded samples, and the ratio to "via host".
//
//   bench_transcode DIR [--mb M] [--batch-mb B] [--repeat R] [--device D]
//     DIR: *.j2k codestreams, searched recursively (run-j2k-bench.sh --pack's .j2kdata/streams);
//     copies of them up to M MB of samples (default 600), batches of B MB (default 256)
#include "pcwt.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Stream {
    std::vector<uint8_t> cs;
    pcwt_image_desc desc;
    size_t size; // samples
};

struct Batch {
    std::vector<const Stream *> frames;
    size_t samples = 0, bound = 0;
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

int fail(const char *what, const char *msg)
{
    std::fprintf(stderr, "bench_transcode: %s: %s\n", what, msg);
    return 1;
}

size_t align64(size_t n) { return (n + 63) & ~size_t(63); }

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2)
        return fail("usage", "bench_transcode DIR [--mb M] [--batch-mb B] [--repeat R] [--device D]");
    const std::string dir = argv[1];
    double mb = 600, batchMb = 256;
    int repeat = 3, device = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--mb") mb = std::atof(argv[i + 1]);
        else if (a == "--batch-mb") batchMb = std::atof(argv[i + 1]);
        else if (a == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
        else if (a == "--device") device = std::atoi(argv[i + 1]);
        else return fail("option", a.c_str());
    }
    std::vector<Stream> set;
    std::error_code ec;
    for (const auto &e : std::filesystem::recursive_directory_iterator(dir, ec)) {
        if (e.path().extension() != ".j2k")
            continue;
        std::ifstream f(e.path(), std::ios::binary);
        Stream s{std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {}), {}, 0};
        pcwt_header_info info;
        if (pcwt_read_header(s.cs.data(), s.cs.size(), &info) != PCWT_OK)
            continue;
        s.desc = info.desc;
        s.size = pcwt_image_size(&info.desc);
        set.push_back(std::move(s));
    }
    if (set.empty())
        return fail(dir.c_str(), "no JPEG 2000 codestream the library reads");
    // copies up to M MB, cut into batches of B MB
    std::vector<Batch> batches(1);
    size_t total = 0, frames = 0, maxSamples = 0, maxBound = 0;
    for (size_t k = 0; total < size_t(mb * 1048576); k = (k + 1) % set.size()) {
        const Stream &s = set[k];
        if (batches.back().samples && batches.back().samples + s.size > size_t(batchMb * 1048576))
            batches.emplace_back();
        Batch &b = batches.back();
        b.frames.push_back(&s);
        b.samples += align64(s.size);
        b.bound += align64(pcwt_encode_bound(&s.desc));
        maxSamples = std::max(maxSamples, b.samples);
        maxBound = std::max(maxBound, b.bound);
        total += s.size;
        frames++;
    }
    pcwt_decoder *dec = pcwt_decoder_create();
    pcwt_encoder *enc = pcwt_encoder_create();
    if (!dec || !enc || pcwt_decoder_set_backend(dec, PCWT_BACKEND_GPU) != PCWT_OK ||
        pcwt_decoder_set_device(dec, device) != PCWT_OK ||
        pcwt_encoder_set_option(enc, PCWT_OPT_BACKEND, PCWT_BACKEND_GPU) != PCWT_OK ||
        pcwt_encoder_set_device(enc, device) != PCWT_OK)
        return fail("GPU handles", dec ? pcwt_decoder_last_error(dec) : "out of memory");
    pcwt_transcoder *xc = pcwt_transcoder_create(dec, enc);
    uint8_t *host = static_cast<uint8_t *>(pcwt_host_alloc(maxSamples));
    std::vector<std::vector<uint8_t>> out(3, std::vector<uint8_t>(maxBound * batches.size()));
    if (!xc || !host)
        return fail("memory", "out of memory");

    // the "via host" path's seconds in each call kind (decode, encode, verify) of the last run
    double stage[3] = {0, 0, 0};
    auto timed = [&stage](int k, auto call) {
        const auto t0 = std::chrono::steady_clock::now();
        const bool ok = call();
        stage[k] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return ok;
    };
    // one path over every batch; its codestreams into out[path]; false on a failed job
    auto run = [&](int path) -> bool {
        if (path == 0)
            stage[0] = stage[1] = stage[2] = 0;
        size_t outAt = 0;
        for (const Batch &b : batches) {
            const size_t n = b.frames.size();
            std::vector<size_t> so(n), co(n);
            for (size_t k = 0, s = 0, c = 0; k < n; k++) {
                so[k] = s;
                co[k] = outAt + c;
                s += align64(b.frames[k]->size);
                c += align64(pcwt_encode_bound(&b.frames[k]->desc));
            }
            outAt += maxBound;
            if (path == 0) {
                std::vector<pcwt_decode_job> d(n);
                std::vector<pcwt_frame_job> e(n);
                std::vector<pcwt_verify_job> v(n);
                for (size_t k = 0; k < n; k++)
                    d[k] = {b.frames[k]->cs.data(), b.frames[k]->cs.size(), host + so[k], b.frames[k]->size, PCWT_OK};
                if (!timed(0, [&] { return pcwt_decode_batch(dec, d.data(), n) == PCWT_OK; }))
                    return fail("pcwt_decode_batch", pcwt_decoder_last_error(dec)) == 0;
                for (size_t k = 0; k < n; k++)
                    e[k] = {b.frames[k]->desc, host + so[k], b.frames[k]->size, out[0].data() + co[k],
                            pcwt_encode_bound(&b.frames[k]->desc), 0, PCWT_OK};
                if (!timed(1, [&] { return pcwt_encode_batch(enc, e.data(), n) == PCWT_OK; }))
                    return fail("pcwt_encode_batch", pcwt_encoder_last_error(enc)) == 0;
                for (size_t k = 0; k < n; k++)
                    v[k] = {e[k].dst, e[k].written, host + so[k], b.frames[k]->size, UINT64_MAX, PCWT_OK};
                if (!timed(2, [&] { return pcwt_verify_batch(dec, v.data(), n) == PCWT_OK; }))
                    return fail("pcwt_verify_batch", pcwt_decoder_last_error(dec)) == 0;
                continue;
            }
            std::vector<pcwt_transcode_job> j(n);
            for (size_t k = 0; k < n; k++) {
                std::memset(&j[k], 0, sizeof j[k]);
                j[k].src = b.frames[k]->cs.data();
                j[k].src_size = b.frames[k]->cs.size();
                j[k].dst = out[size_t(path)].data() + co[k];
                j[k].dst_capacity = pcwt_encode_bound(&b.frames[k]->desc);
                if (path == 2) {
                    j[k].samples = host + so[k];
                    j[k].samples_capacity = b.frames[k]->size;
                }
            }
            if (pcwt_transcode_batch(xc, j.data(), n) != PCWT_OK)
                return fail("pcwt_transcode_batch", pcwt_transcoder_last_error(xc)) == 0;
        }
        return true;
    };
    const char *names[3] = {"via host (decode, encode, verify batches)", "transcode (samples on the device)",
                            "transcode, samples also to the host"};
    std::vector<std::vector<double>> secs(3), stages(3);
    for (int r = -1; r < repeat; r++) // r = -1: warm-up (device buffers made)
        for (int p = 0; p < 3; p++) {
            const auto t0 = std::chrono::steady_clock::now();
            if (!run(p))
                return 1;
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (r >= 0)
                secs[size_t(p)].push_back(s);
            if (r >= 0 && p == 0)
                for (size_t k = 0; k < 3; k++)
                    stages[k].push_back(stage[k]);
        }
    const bool same = out[0] == out[1] && out[0] == out[2];
    std::printf("input: %zu frames (%zu distinct codestreams from %s), %.1f MB of samples, %zu batches of at most "
                "%.0f MB; device %d; %d repeats (medians)\n\n",
                frames, set.size(), dir.c_str(), double(total) / 1048576, batches.size(), batchMb, device, repeat);
    std::printf("| path | seconds | MB/s of samples | / via host |\n|---|---:|---:|---:|\n");
    const double base = median(secs[0]);
    for (int p = 0; p < 3; p++) {
        const double m = median(secs[size_t(p)]);
        std::printf("| %s | %.4f | %.0f | %.2fx |\n", names[p], m, double(total) / 1048576 / m, base / m);
    }
    std::printf("\nvia host, each call kind's seconds (medians): pcwt_decode_batch %.4f, pcwt_encode_batch %.4f, "
                "pcwt_verify_batch %.4f\n",
                median(stages[0]), median(stages[1]), median(stages[2]));
    std::printf("\nEvery path's codestreams %s the first's, byte for byte.\n", same ? "equal" : "DIFFER FROM");
    pcwt_host_free(host);
    pcwt_transcoder_destroy(xc);
    pcwt_encoder_destroy(enc);
    pcwt_decoder_destroy(dec);
    return same ? 0 : 1;
}
