// j2k_pcwt_decode.h - pcwt_decode of a JPEG 2000 codestream into planar values, for the tests
// that compare the library's JPEG 2000 / HTJ2K decoder with OpenJPEG (test_j2k_decoder.cpp,
// test_j2k_ht.cpp), and the check that its samples equal opj_decompress's.
#ifndef PCWT_TESTS_J2K_PCWT_DECODE_H
#define PCWT_TESTS_J2K_PCWT_DECODE_H

#include "j2k_opj_util.h"
#include "pcwt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace j2kt1 {

// pcwt_decode of a JPEG 2000 codestream into the layout pcwt_read_header gives: planar values
inline std::vector<int32_t> pcwtDecode(const std::vector<uint8_t> &cs, pcwt_status &st, std::string &msg,
                                pcwt_backend backend = PCWT_BACKEND_CPU)
{
    pcwt_header_info info;
    st = pcwt_read_header(cs.data(), cs.size(), &info);
    if (st != PCWT_OK)
        return {};
    const pcwt_image_desc &d = info.desc;
    std::vector<uint8_t> out(pcwt_image_size(&d));
    std::unique_ptr<pcwt_decoder, void (*)(pcwt_decoder *)> dec(pcwt_decoder_create(), pcwt_decoder_destroy);
    st = pcwt_decoder_set_backend(dec.get(), backend);
    if (st == PCWT_OK)
        st = pcwt_decode(dec.get(), cs.data(), cs.size(), out.data(), out.size());
    msg = pcwt_decoder_last_error(dec.get());
    if (st != PCWT_OK)
        return {};
    const size_t px = size_t(d.width) * d.height;
    std::vector<int32_t> v(px * d.components);
    for (size_t p = 0; p < px; ++p)
        for (uint32_t c = 0; c < d.components; ++c) {
            const size_t i = p * d.components + c;
            int32_t x;
            if (d.bits_allocated == 8)
                x = d.is_signed ? int32_t(int8_t(out[i])) : int32_t(out[i]);
            else {
                uint16_t w;
                std::memcpy(&w, &out[2 * i], 2);
                x = d.is_signed ? int32_t(int16_t(w)) : int32_t(w);
            }
            v[c * px + p] = x;
        }
    return v;
}

// The library's samples of `cs` (the CPU decoder), checked equal to opj_decompress's sample for
// sample; empty where either decode failed (the failure recorded).
inline std::vector<int32_t> decodeEqualToOpenJpeg(const std::vector<uint8_t> &cs, const Image &im)
{
    pcwt_status st;
    std::string msg;
    std::vector<int32_t> ours = pcwtDecode(cs, st, msg);
    if (st != PCWT_OK) {
        ADD_FAILURE() << "pcwt_decode: " << pcwt_status_string(st) << ": " << msg;
        return {};
    }
    const std::vector<int32_t> opj = opjDecode(cs, im);
    if (opj.size() != im.v.size()) {
        ADD_FAILURE() << "opj_decompress failed";
        return {};
    }
    size_t first = 0;
    const size_t bad = countDifferences(ours, opj, first);
    EXPECT_EQ(bad, 0u) << "first difference at " << first << ": ours " << ours[first] << " OpenJPEG " << opj[first];
    return ours;
}

} // namespace j2kt1

#endif // PCWT_TESTS_J2K_PCWT_DECODE_H
