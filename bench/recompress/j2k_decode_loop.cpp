// j2k_decode_loop: OpenJPEG decoding alone, the baseline of run-j2k-bench.sh. Reads every
// codestream named on stdin (one path a line) into memory, then decodes them on N threads (each
// takes the next file; OpenJPEG on one thread per decode, as pcwt-recompress's workers call it),
// through the plugin's OpenJPEG core (plugin/libsrc/dpj2kcore.h): the same calls the JPEG 2000
// decoder makes, without DICOM, coding or files. Prints the seconds and the decoded bytes (16-bit
// samples for precisions above 8 bits, else 8-bit, as DICOM stores them).
//
//   find DIR -name '*.j2k' | j2k_decode_loop N
#include "dpj2kcore.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char **argv)
{
    const unsigned threads = argc > 1 ? unsigned(std::stoul(argv[1])) : 1u;
    std::vector<std::vector<uint8_t>> streams;
    for (std::string path; std::getline(std::cin, path);) {
        std::ifstream f(path, std::ios::binary);
        streams.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    std::atomic<size_t> next(0), failed(0);
    std::atomic<uint64_t> bytes(0);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (size_t i; (i = next++) < streams.size();) {
                DPJ2KInfo info;
                DPJ2KImage image;
                std::string error;
                if (!DPJ2KReadInfo(streams[i].data(), streams[i].size(), info, error) ||
                    !DPJ2KDecode(streams[i].data(), streams[i].size(), info, image, error, DPJ2K_OPENJPEG)) {
                    std::fprintf(stderr, "codestream %zu: %s\n", i, error.c_str());
                    ++failed;
                    continue;
                }
                uint64_t n = 0;
                for (uint32_t c = 0; c < image.components(); ++c)
                    n += uint64_t(image.width()) * image.height() * (image.precision(c) > 8 ? 2 : 1);
                bytes += n;
            }
        });
    for (std::thread &t : pool)
        t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.3f %llu %zu\n", s, static_cast<unsigned long long>(bytes.load()), streams.size());
    return failed ? 1 : 0;
}
