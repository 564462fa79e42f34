// save_frames.cpp - see save_frames.hpp.
#include "save_frames.hpp"

#include <cstdio>
#include <filesystem>

#include "reports.hpp"
#include "sample_words.hpp"

namespace pcwtbench {

bool save_frames(const std::vector<Image> &images, const std::string &dir, std::string &why)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        why = dir + ": " + ec.message();
        return false;
    }
    for (size_t i = 0; i < images.size(); ++i) {
        const Image &img = images[i];
        std::string le(img.raw_bytes(), '\0');
        const size_t n = sample_count(img.desc);
        for (size_t k = 0; k < n; ++k) {
            const uint32_t w = load_word(img.samples.data(), img.desc.bits_allocated, k);
            if (img.desc.bits_allocated == 8) {
                le[k] = static_cast<char>(w);
            } else {
                le[2 * k] = static_cast<char>(w & 0xFF);
                le[2 * k + 1] = static_cast<char>(w >> 8);
            }
        }
        char name[32];
        std::snprintf(name, sizeof name, "/%04zu.raw", i);
        if (!write_text_file(dir + name, le, why)) {
            why = dir + name + ": " + why;
            return false;
        }
    }
    return true;
}

} // namespace pcwtbench
