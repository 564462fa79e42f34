// encode_time: one CPU thread, the encoder's cost of the modular offset's estimate. Reads lines
// "FILE WIDTH HEIGHT COMPONENTS BITS_ALLOCATED BITS_STORED SIGNED" (raw little-endian words, as
// pcwt-bench --save-frames writes them) on stdin; encodes each frame REPS times with the offset off
// and auto, alternating, and prints per frame and in total the median thread CPU time of each and
// the coded sizes (defaults otherwise: the compact profile).
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
int main(int argc, char **argv)
{
    const int reps = argc > 1 ? std::atoi(argv[1]) : 9;
    pcwt_encoder *e[2];
    for (int k = 0; k < 2; k++) {
        e[k] = pcwt_encoder_create();
        pcwt_encode_params p;
        pcwt_encode_params_default(&p);
        p.backend = PCWT_BACKEND_CPU;
        p.offset = k ? PCWT_OFFSET_AUTO : PCWT_OFFSET_OFF;
        if (pcwt_encoder_set_params(e[k], &p) != PCWT_OK)
            return 3;
    }
    std::string file;
    pcwt_image_desc d{};
    double total[2] = {0, 0};
    size_t bytes[2] = {0, 0};
    while (std::cin >> file >> d.width >> d.height >> d.components >> d.bits_allocated >> d.bits_stored >> d.is_signed) {
        FILE *f = std::fopen(file.c_str(), "rb");
        if (!f)
            return 4;
        std::vector<uint8_t> s(pcwt_image_size(&d));
        if (std::fread(s.data(), 1, s.size(), f) != s.size())
            return 5;
        std::fclose(f);
        std::vector<uint8_t> out(pcwt_encode_bound(&d));
        std::vector<double> t[2];
        size_t n[2] = {0, 0};
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < 2; k++) {
                const double a = cpu_ms();
                if (pcwt_encode(e[k], &d, s.data(), s.size(), out.data(), out.size(), &n[k]) != PCWT_OK)
                    return 6;
                t[k].push_back(cpu_ms() - a);
            }
        double med[2];
        for (int k = 0; k < 2; k++) {
            std::sort(t[k].begin(), t[k].end());
            med[k] = t[k][t[k].size() / 2];
            total[k] += med[k];
            bytes[k] += n[k];
        }
        std::printf("%s %.2f %.2f ms %+.1f%% %zu %zu bytes\n", file.c_str(), med[0], med[1],
                    100.0 * (med[1] / med[0] - 1), n[0], n[1]);
    }
    std::printf("TOTAL off %.1f ms auto %.1f ms (%+.2f%%) bytes %zu %zu\n", total[0], total[1],
                100.0 * (total[1] / total[0] - 1), bytes[0], bytes[1]);
}
