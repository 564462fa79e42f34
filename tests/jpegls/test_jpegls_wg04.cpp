// WG04 reference JPEG-LS codestreams (shared/testdata/wg04/jls/*.JLS): each is decoded with CharLS,
// re-encoded with libpcwt in the file's own interleave mode, and must equal CharLS's re-encode byte
// for byte. Whether the re-encode also reproduces the original file is printed (the original
// encoders need not have written the same headers), as a list for the lead's notes.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "jpegls_test_util.hpp"

namespace {

std::string wg04_dir()
{
    const char *env = std::getenv("PCWT_WG04_JLS_DIR");
    return (env && env[0]) ? std::string(env) : std::string(PCWT_SHARED_DIR "/testdata/wg04/jls");
}

std::vector<std::string> jls_files(const std::string &dir)
{
    std::vector<std::string> out;
    if (DIR *d = opendir(dir.c_str())) {
        while (const dirent *e = readdir(d)) {
            const std::string name = e->d_name;
            if (name.size() > 4) {
                std::string ext = name.substr(name.size() - 4);
                std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
                if (ext == ".jls")
                    out.push_back(name);
            }
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// The codestream without LSE preset-parameter segments (id 1) and without bytes after EOI; *lse and
// *trailing say what was dropped. Used to explain a difference from the original file.
std::vector<uint8_t> normalised(const std::vector<uint8_t> &b, size_t *lse, size_t *trailing)
{
    *lse = *trailing = 0;
    std::vector<uint8_t> out(b.begin(), b.begin() + std::min<size_t>(2, b.size()));
    size_t i = 2;
    while (i + 4 <= b.size() && b[i] == 0xFF && b[i + 1] != 0xDA) {
        const size_t len = static_cast<size_t>(b[i + 2] << 8 | b[i + 3]);
        if (b[i + 1] == 0xF8 && i + 4 < b.size() && b[i + 4] == 1)
            ++*lse;
        else
            out.insert(out.end(), b.begin() + static_cast<long>(i),
                       b.begin() + static_cast<long>(std::min(b.size(), i + 2 + len)));
        i += 2 + len;
    }
    size_t end = b.size();
    while (end >= 2 && !(b[end - 2] == 0xFF && b[end - 1] == 0xD9))
        --end;
    if (end >= 2 && end > i) {
        *trailing = b.size() - end;
        out.insert(out.end(), b.begin() + static_cast<long>(i), b.begin() + static_cast<long>(end));
    }
    return out;
}

TEST(jpegls, Wg04ReencodeMatchesCharLS)
{
    const std::string dir = wg04_dir();
    struct stat st;
    if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        GTEST_SKIP() << dir << " not found: WG04 re-encode test skipped";
    const std::vector<std::string> files = jls_files(dir);
    ASSERT_FALSE(files.empty()) << "no .JLS file in " << dir;

    std::ostringstream report;
    size_t identical = 0, checked = 0;
    for (const std::string &name : files) {
        SCOPED_TRACE(name);
        std::ifstream in(dir + "/" + name, std::ios::binary);
        ASSERT_TRUE(in) << "cannot read " << name;
        const std::vector<uint8_t> original((std::istreambuf_iterator<char>(in)),
                                            std::istreambuf_iterator<char>());
        const jls_test::Decoded dec = jls_test::charls_decode(original);
        ASSERT_EQ(dec.error, "") << name;
        const charls_frame_info &fi = dec.info;
        ASSERT_TRUE(fi.component_count == 1 || fi.component_count == 3) << name;

        jls_test::Image img;
        img.desc.width = fi.width;
        img.desc.height = fi.height;
        img.desc.components = static_cast<uint32_t>(fi.component_count);
        img.desc.bits_stored = static_cast<uint32_t>(fi.bits_per_sample);
        img.desc.bits_allocated = fi.bits_per_sample > 8 ? 16 : 8;
        img.desc.planar = (fi.component_count == 3 && dec.ilv == 0) ? 1 : 0;
        img.bytes = dec.pixels; // CharLS's layout is libpcwt's layout for this descriptor
        ASSERT_EQ(img.bytes.size(), pcwt_image_size(&img.desc));

        const jls_test::Ours ours = jls_test::pcwt_jls_encode(img, dec.ilv);
        ASSERT_EQ(ours.status, PCWT_OK) << ours.message;
        const jls_test::Coded ref = jls_test::charls_encode(img, dec.ilv);
        ASSERT_EQ(ref.error, "");
        const long diff = jls_test::first_difference(ours.bytes, ref.bytes);
        EXPECT_EQ(diff, -1) << name << ": ours differs from CharLS's re-encode at byte " << diff;
        EXPECT_EQ(jls_test::compare_decoded(jls_test::charls_decode(ours.bytes), img), "") << name;
        ++checked;

        const long orig_diff = jls_test::first_difference(ours.bytes, original);
        report << "  " << name << " (" << fi.width << "x" << fi.height << " P" << fi.bits_per_sample
               << " c" << fi.component_count << " ilv" << dec.ilv << "): ";
        if (orig_diff < 0) {
            ++identical;
            report << "byte-identical to the original file (" << original.size() << " bytes)\n";
        } else {
            report << "differs from the original at byte " << orig_diff << " (ours "
                   << ours.bytes.size() << " bytes, original " << original.size() << ")";
            size_t lse_o, trail_o, lse_n, trail_n;
            const std::vector<uint8_t> no = normalised(original, &lse_o, &trail_o);
            const std::vector<uint8_t> nn = normalised(ours.bytes, &lse_n, &trail_n);
            if (no == nn) {
                report << ": same scan data; the original has";
                if (lse_o > lse_n)
                    report << " an LSE preset-parameters segment (CharLS writes none for P <= 12)";
                if (lse_o > lse_n && trail_o > trail_n)
                    report << " and";
                if (trail_o > trail_n)
                    report << " " << trail_o << " byte(s) after EOI";
            } else {
                report << ": scan data differ";
            }
            report << "\n";
        }
    }
    std::cout << "[WG04] libpcwt re-encodes of " << dir << " (all equal to CharLS 2.4.1's):\n"
              << report.str() << "[WG04] " << identical << " of " << checked
              << " byte-identical to the original file\n";
    EXPECT_EQ(checked, files.size());
}

} // namespace
