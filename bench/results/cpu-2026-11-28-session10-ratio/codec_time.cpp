// codec_time: one CPU thread, what the modelled second mantissa bit costs the CPU codec. Reads
// lines "FILE WIDTH HEIGHT COMPONENTS BITS_ALLOCATED BITS_STORED SIGNED" (raw little-endian words,
// as pcwt-bench --save-frames writes them) on stdin; encodes each frame REPS times with second-bit
// off and on, alternating, and decodes each of the two codestreams REPS times likewise; prints per
// frame and in total the median thread CPU time of each and the coded sizes (defaults otherwise:
// the compact profile). Build: g++ -O3 codec_time.cpp OBJECTS -lz (the codec's C sources, -O3, no CUDA).
#include "pcwt.h"
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>
static double cpu_ms()
{
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
int main(int argc, char **argv)
{
    const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
    pcwt_encoder *e[2];
    for (int k = 0; k < 2; k++) {
        e[k] = pcwt_encoder_create();
        pcwt_encode_params p;
        pcwt_encode_params_default(&p);
        p.backend = PCWT_BACKEND_CPU;
        p.second_bit = k ? PCWT_SECOND_BIT_ON : PCWT_SECOND_BIT_OFF;
        if (pcwt_encoder_set_params(e[k], &p) != PCWT_OK)
            return 3;
    }
    pcwt_decoder *dec = pcwt_decoder_create();
    if (pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU) != PCWT_OK)
        return 3;
    std::string file;
    pcwt_image_desc d{};
    double enc[2] = {0, 0}, decs[2] = {0, 0};
    size_t bytes[2] = {0, 0};
    std::printf("frame enc_off_ms enc_on_ms dec_off_ms dec_on_ms bytes_off bytes_on\n");
    while (std::cin >> file >> d.width >> d.height >> d.components >> d.bits_allocated >> d.bits_stored >> d.is_signed) {
        FILE *f = std::fopen(file.c_str(), "rb");
        if (!f)
            return 4;
        std::vector<uint8_t> s(pcwt_image_size(&d)), back(s.size());
        if (std::fread(s.data(), 1, s.size(), f) != s.size())
            return 5;
        std::fclose(f);
        std::vector<uint8_t> cs[2];
        std::vector<double> te[2], td[2];
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < 2; k++) {
                cs[k].assign(pcwt_encode_bound(&d), 0);
                size_t n = 0;
                const double t0 = cpu_ms();
                if (pcwt_encode(e[k], &d, s.data(), s.size(), cs[k].data(), cs[k].size(), &n) != PCWT_OK)
                    return 6;
                te[k].push_back(cpu_ms() - t0);
                cs[k].resize(n);
            }
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < 2; k++) {
                const double t0 = cpu_ms();
                if (pcwt_decode(dec, cs[k].data(), cs[k].size(), back.data(), back.size()) != PCWT_OK)
                    return 7;
                td[k].push_back(cpu_ms() - t0);
                if (back != s)
                    return 8;
            }
        double me[2], md[2];
        for (int k = 0; k < 2; k++) {
            me[k] = median(te[k]);
            md[k] = median(td[k]);
            enc[k] += me[k];
            decs[k] += md[k];
            bytes[k] += cs[k].size();
        }
        std::printf("%s %.2f %.2f %.2f %.2f %zu %zu\n", file.c_str(), me[0], me[1], md[0], md[1], cs[0].size(),
                    cs[1].size());
    }
    std::printf("total encode off %.1f ms on %.1f ms (%+.1f%%), decode off %.1f ms on %.1f ms (%+.1f%%), "
                "bytes off %zu on %zu\n",
                enc[0], enc[1], (enc[1] / enc[0] - 1) * 100, decs[0], decs[1], (decs[1] / decs[0] - 1) * 100,
                bytes[0], bytes[1]);
    return 0;
}
