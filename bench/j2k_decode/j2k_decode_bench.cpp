// j2k_decode_bench: libpcwt's JPEG 2000 decoder against OpenJPEG, one thread, in memory. For each
// codestream named on the command line: OpenJPEG (the plugin's core, plugin/libsrc/dpj2kcore.h,
// DPJ2K_OPENJPEG: what the tools used before) and pcwt_decode on the CPU backend, alternately,
// --repeat times; every sample of the two compared once. Prints a Markdown table of the medians:
// milliseconds of the process's CPU time, MB/s of decoded samples (2 bytes a sample above 8 bits, as DICOM stores them),
// and the ratio; the last row sums the medians.
//
//   j2k_decode_bench [--repeat N] FILE.j2k...
#include "dpj2kcore.h"
#include "pcwt.h"

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// The process's CPU time: one decode runs at a time (OpenJPEG on its one worker thread, libpcwt
// on the calling thread), and on a shared machine CPU time is far less disturbed by the other
// processes than the wall clock.
double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

} // namespace

int main(int argc, char **argv)
{
    int repeat = 5;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else
            files.push_back(argv[i]);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: j2k_decode_bench [--repeat N] FILE.j2k...\n");
        return 2;
    }
    pcwt_decoder *dec = pcwt_decoder_create();
    if (!dec || pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU) != PCWT_OK)
        return 1;
    std::printf("| codestream | size | bytes in | OpenJPEG CPU ms | libpcwt CPU ms | OpenJPEG MB/s | libpcwt MB/s | libpcwt / OpenJPEG speed |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    double sum_opj = 0, sum_pcwt = 0, sum_mb = 0;
    int failed = 0;
    for (const std::string &path : files) {
        std::ifstream f(path, std::ios::binary);
        const std::vector<uint8_t> cs((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        DPJ2KInfo info;
        std::string error;
        pcwt_header_info hi;
        if (!DPJ2KReadInfo(cs.data(), cs.size(), info, error) || pcwt_read_header(cs.data(), cs.size(), &hi) != PCWT_OK) {
            std::fprintf(stderr, "%s: not decoded by both (%s)\n", path.c_str(), error.c_str());
            ++failed;
            continue;
        }
        std::vector<uint8_t> out(pcwt_image_size(&hi.desc));
        std::vector<double> t_opj, t_pcwt;
        DPJ2KImage image;
        // a first run of each, untimed (page faults of first use, caches)
        bool ok = DPJ2KDecode(cs.data(), cs.size(), info, image, error, DPJ2K_OPENJPEG) &&
                  pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size()) == PCWT_OK;
        for (int r = 0; r < repeat && ok; ++r) {
            double t0 = now_ms();
            ok = DPJ2KDecode(cs.data(), cs.size(), info, image, error, DPJ2K_OPENJPEG);
            t_opj.push_back(now_ms() - t0);
            t0 = now_ms();
            const pcwt_status st = pcwt_decode(dec, cs.data(), cs.size(), out.data(), out.size());
            t_pcwt.push_back(now_ms() - t0);
            if (st != PCWT_OK) {
                error = pcwt_decoder_last_error(dec);
                ok = false;
            }
        }
        // every sample, once: OpenJPEG's planes against libpcwt's interleaved words
        const pcwt_image_desc &d = hi.desc;
        const size_t n = size_t(d.width) * d.height;
        for (uint32_t c = 0; ok && c < d.components; ++c)
            for (size_t i = 0; ok && i < n; ++i) {
                const size_t k = i * d.components + c;
                int32_t v;
                if (d.bits_allocated == 8)
                    v = d.is_signed ? int32_t(int8_t(out[k])) : int32_t(out[k]);
                else {
                    uint16_t w;
                    std::memcpy(&w, &out[2 * k], 2);
                    v = d.is_signed ? int32_t(int16_t(w)) : int32_t(w);
                }
                if (v != image.plane(c)[i]) {
                    error = "samples differ from OpenJPEG's";
                    ok = false;
                }
            }
        if (!ok) {
            std::fprintf(stderr, "%s: %s\n", path.c_str(), error.c_str());
            ++failed;
            continue;
        }
        const double mb = double(out.size()) / 1e6, a = median(t_opj), b = median(t_pcwt);
        sum_opj += a;
        sum_pcwt += b;
        sum_mb += mb;
        const std::string name = path.substr(path.find_last_of('/') + 1);
        std::printf("| %s | %ux%ux%u, %u bits | %zu | %.2f | %.2f | %.1f | %.1f | %.2fx |\n", name.c_str(), d.width,
                    d.height, d.components, d.bits_stored, cs.size(), a, b, mb / (a / 1e3), mb / (b / 1e3), a / b);
    }
    if (sum_opj > 0)
        std::printf("| all (%zu) | %.1f MB of samples | | %.1f | %.1f | %.1f | %.1f | %.2fx |\n", files.size() - size_t(failed),
                    sum_mb, sum_opj, sum_pcwt, sum_mb / (sum_opj / 1e3), sum_mb / (sum_pcwt / 1e3), sum_opj / sum_pcwt);
    pcwt_decoder_destroy(dec);
    return failed ? 1 : 0;
}
