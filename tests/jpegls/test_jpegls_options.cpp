// JPEG-LS encoder: refusals (1-bit samples, bits above BitsStored, bad interleave), destination
// buffers that are too small (nothing may be written past the end: exact-size heap buffers for
// ASan plus a canary check), the worst-case bound, and restart intervals (DRI/RSTm), which CharLS
// 2.4.1 must decode back to the input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "jpegls_test_util.hpp"

namespace {

using jls_test::Image;

uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

Image noise_image(uint32_t w, uint32_t h, uint32_t comps, uint32_t bits, uint32_t seed,
                  uint32_t planar = 0)
{
    Image img(w, h, comps, bits, 0, planar);
    uint32_t s = seed;
    for (uint32_t c = 0; c < comps; ++c)
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x)
                img.set(c, y, x, lcg(&s));
    return img;
}

// Smooth areas with runs and some noise: a realistic mix of regular and run mode.
Image mixed_image(uint32_t w, uint32_t h, uint32_t comps, uint32_t bits, uint32_t seed,
                  uint32_t planar = 0)
{
    Image img(w, h, comps, bits, 0, planar);
    uint32_t s = seed;
    for (uint32_t c = 0; c < comps; ++c)
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x) {
                uint32_t v;
                if ((x / 8 + y / 8) % 3 == 0)
                    v = 5 + c;
                else if ((x / 8 + y / 8) % 3 == 1)
                    v = (x * 2 + y + (lcg(&s) & 3)) & img.mask();
                else
                    v = lcg(&s);
                img.set(c, y, x, v);
            }
    return img;
}

pcwt_status encode_into(const Image &img, uint32_t ilv, uint32_t restart, uint8_t *dst, size_t cap,
                        size_t *written, std::string *message)
{
    std::unique_ptr<pcwt_encoder, void (*)(pcwt_encoder *)> enc(pcwt_encoder_create(),
                                                                pcwt_encoder_destroy);
    pcwt_encode_params params;
    pcwt_encode_params_default(&params);
    params.codec = PCWT_CODEC_JPEGLS;
    params.jpegls_interleave = ilv;
    params.jpegls_restart_interval = restart;
    pcwt_status st = pcwt_encoder_set_params(enc.get(), &params);
    if (st == PCWT_OK)
        st = pcwt_encode(enc.get(), &img.desc, img.bytes.data(), img.bytes.size(), dst, cap, written);
    *message = pcwt_encoder_last_error(enc.get());
    return st;
}

TEST(jpegls, RefusesOneBitSamples)
{
    for (uint32_t comps : {1u, 3u}) {
        Image img(7, 5, comps, 1);
        img.set(0, 1, 1, 1);
        const jls_test::Ours r = jls_test::pcwt_jls_encode(img, 0, 0, 4096);
        EXPECT_EQ(r.status, PCWT_ERR_UNSUPPORTED) << "components " << comps;
        EXPECT_NE(r.message.find("at least 2 bits"), std::string::npos) << r.message;
        EXPECT_TRUE(r.bytes.empty());
    }
    // CharLS refuses 1-bit frames too, which is why we do.
    Image img(7, 5, 1, 1);
    EXPECT_FALSE(jls_test::charls_encode(img, 0).error.empty());
}

TEST(jpegls, RefusesBitsAboveBitsStored)
{
    const std::string expected = "bits above BitsStored are set; JPEG-LS cannot preserve them";
    struct Case {
        const char *what;
        uint32_t comps, bits, allocated, is_signed, planar, comp;
        uint32_t word; // stored word planted at (comp, 2, 3)
        bool refused;
    };
    const Case cases[] = {
        {"unsigned 12/16, bit 12 set", 1, 12, 16, 0, 0, 0, 0x1000 | 0x123, true},
        {"unsigned 12/16, bit 15 set", 1, 12, 16, 0, 0, 0, 0x8000, true},
        {"signed 12/16, full sign extension", 1, 12, 16, 1, 0, 0, 0xF800, false},
        {"signed 12/16, negative without extension", 1, 12, 16, 1, 0, 0, 0x0800, true},
        {"signed 12/16, partial extension", 1, 12, 16, 1, 0, 0, 0x1800, true},
        {"signed 12/16, positive with high bits", 1, 12, 16, 1, 0, 0, 0xF123, true},
        {"unsigned 6/8, bit 7 set", 1, 6, 8, 0, 0, 0, 0x80, true},
        {"signed 6/8, sign extension", 1, 6, 8, 1, 0, 0, 0xE0, false},
        {"unsigned 8/16, bit 8 set", 1, 8, 16, 0, 0, 0, 0x100, true},
        {"RGB planar 10/16, garbage in component 2", 3, 10, 16, 0, 1, 2, 0x400, true},
        {"RGB interleaved 10/16, garbage in component 1", 3, 10, 16, 0, 0, 1, 0x4001, true},
        {"RGB 10/16, clean", 3, 10, 16, 0, 0, 1, 0x3FF, false},
    };
    for (const Case &k : cases) {
        Image img(9, 6, k.comps, k.bits, k.allocated, k.planar, k.is_signed);
        for (uint32_t c = 0; c < k.comps; ++c)
            for (uint32_t y = 0; y < 6; ++y)
                for (uint32_t x = 0; x < 9; ++x)
                    img.set(c, y, x, x + y + c);
        img.set_word(img.index(k.comp, 2, 3), k.word);
        std::vector<uint8_t> dst(8192, 0xA5);
        size_t written = 77;
        std::string message;
        const pcwt_status st = encode_into(img, 0, 0, dst.data(), dst.size(), &written, &message);
        if (k.refused) {
            EXPECT_EQ(st, PCWT_ERR_UNSUPPORTED) << k.what;
            EXPECT_NE(message.find(expected), std::string::npos) << k.what << ": " << message;
            EXPECT_EQ(written, 0u) << k.what;
            EXPECT_EQ(dst[0], 0xA5) << k.what << ": nothing may be written";
        } else {
            ASSERT_EQ(st, PCWT_OK) << k.what << ": " << message;
            dst.resize(written);
            EXPECT_EQ(jls_test::compare_decoded(jls_test::charls_decode(dst), img), "") << k.what;
            EXPECT_EQ(dst, jls_test::charls_encode(img, 0).bytes) << k.what;
        }
    }
}

TEST(jpegls, RejectsInvalidInterleave)
{
    const Image rgb = mixed_image(8, 8, 3, 8, 1);
    const jls_test::Ours r = jls_test::pcwt_jls_encode(rgb, 3, 0, 65536);
    EXPECT_EQ(r.status, PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(r.message.find("interleave"), std::string::npos) << r.message;
    // One component: the interleave mode does not apply (the scan is always ILV 0).
    const Image grey = mixed_image(8, 8, 1, 8, 1);
    const jls_test::Ours g = jls_test::pcwt_jls_encode(grey, 2);
    ASSERT_EQ(g.status, PCWT_OK) << g.message;
    EXPECT_EQ(g.bytes, jls_test::charls_encode(grey, 0).bytes);
}

// Every capacity below the exact size fails with BUFFER_TOO_SMALL and writes nothing past the end.
void check_small_buffers(const Image &img, uint32_t ilv, uint32_t restart)
{
    SCOPED_TRACE(jls_test::describe(img.desc) + " interleave " + std::to_string(ilv) + " restart " +
                 std::to_string(restart));
    const jls_test::Ours full = jls_test::pcwt_jls_encode(img, ilv, restart);
    ASSERT_EQ(full.status, PCWT_OK) << full.message;
    const size_t exact = full.bytes.size();
    ASSERT_GT(exact, 20u);

    std::vector<size_t> caps = {0, 1, 2, 3, 4, 5, 10, 20, 21, 30, 40, exact / 3, exact / 2};
    for (size_t c = exact > 80 ? exact - 80 : 0; c < exact; ++c)
        caps.push_back(c);
    for (const size_t cap : caps) {
        if (cap >= exact)
            continue;
        // exact-size heap buffer: ASan reports any store past it
        std::unique_ptr<uint8_t[]> dst(new uint8_t[cap]);
        size_t written = 99;
        std::string message;
        const pcwt_status st = encode_into(img, ilv, restart, dst.get(), cap, &written, &message);
        EXPECT_EQ(st, PCWT_ERR_BUFFER_TOO_SMALL) << "capacity " << cap << " of " << exact;
        EXPECT_EQ(written, 0u);
        EXPECT_NE(message.find("too small"), std::string::npos) << message;
        // canary check, without ASan
        std::vector<uint8_t> guarded(cap + 64, 0x5A);
        encode_into(img, ilv, restart, guarded.data(), cap, &written, &message);
        for (size_t i = cap; i < guarded.size(); ++i)
            ASSERT_EQ(guarded[i], 0x5A) << "byte " << i << " written with capacity " << cap;
    }
    std::unique_ptr<uint8_t[]> dst(new uint8_t[exact]);
    size_t written = 0;
    std::string message;
    ASSERT_EQ(encode_into(img, ilv, restart, dst.get(), exact, &written, &message), PCWT_OK) << message;
    EXPECT_EQ(written, exact);
    EXPECT_EQ(std::memcmp(dst.get(), full.bytes.data(), exact), 0);
}

TEST(jpegls, BufferTooSmallNeverWritesPastTheEnd)
{
    check_small_buffers(mixed_image(37, 23, 1, 8, 3), 0, 0);
    check_small_buffers(noise_image(19, 11, 1, 16, 4), 0, 0); // LSE segment, escape codes
    check_small_buffers(mixed_image(21, 13, 3, 12, 5, 1), 0, 0); // three scans
    check_small_buffers(mixed_image(21, 13, 3, 8, 6), 1, 0);
    check_small_buffers(mixed_image(21, 13, 3, 8, 7), 2, 4);  // restart markers
    check_small_buffers(mixed_image(30, 40, 1, 10, 8), 0, 3);
    Image flat(64, 64, 1, 8); // a few bytes of scan data only
    check_small_buffers(flat, 0, 0);
}

// The bound holds on noise (the largest realistic output) and on images built to make long
// codewords (large errors after long flat stretches, where k is small).
TEST(jpegls, BoundHolds)
{
    for (uint32_t bits = 2; bits <= 16; ++bits)
        for (uint32_t comps : {1u, 3u})
            for (uint32_t ilv : {0u, 2u}) {
                const Image imgs[] = {noise_image(33, 29, comps, bits, bits), [&] {
                                          Image img(64, 48, comps, bits);
                                          uint32_t s = bits * 7;
                                          for (uint32_t c = 0; c < comps; ++c)
                                              for (uint32_t y = 0; y < 48; ++y)
                                                  for (uint32_t x = 0; x < 64; ++x)
                                                      img.set(c, y, x,
                                                              (lcg(&s) % 5 == 0) ? img.maxval() * ((x + y) & 1) : 0);
                                          return img;
                                      }()};
                for (const Image &img : imgs)
                    for (uint32_t restart : {0u, 1u}) {
                        const size_t bound = pcwt_jpegls_encode_bound(&img.desc, ilv, restart);
                        const jls_test::Ours r = jls_test::pcwt_jls_encode(img, ilv, restart);
                        ASSERT_EQ(r.status, PCWT_OK) << r.message;
                        EXPECT_LE(r.bytes.size(), bound) << jls_test::describe(img.desc);
                    }
            }
}

// Restart markers RSTm (FF D0..D7) in order, one before every interval but the first of a scan.
std::vector<int> restart_markers(const std::vector<uint8_t> &b)
{
    std::vector<int> m;
    for (size_t i = 0; i + 1 < b.size(); ++i)
        if (b[i] == 0xFF && b[i + 1] >= 0xD0 && b[i + 1] <= 0xD7)
            m.push_back(b[i + 1] - 0xD0);
    return m;
}

TEST(jpegls, RestartIntervalsDecodeWithCharLS)
{
    struct Case {
        uint32_t comps, bits, ilv, planar;
    };
    const Case cases[] = {{1, 8, 0, 0}, {1, 2, 0, 0}, {1, 12, 0, 0}, {1, 16, 0, 0},
                          {3, 8, 0, 1}, {3, 8, 1, 0}, {3, 8, 2, 0}, {3, 16, 2, 1}};
    const uint32_t h = 29;
    for (const Case &k : cases)
        for (uint32_t restart : {1u, 2u, 5u, 7u, 28u, 29u, 40u}) {
            const Image img = mixed_image(23, h, k.comps, k.bits, restart + k.bits, k.planar);
            SCOPED_TRACE(jls_test::describe(img.desc) + " interleave " + std::to_string(k.ilv) +
                         " restart " + std::to_string(restart));
            const jls_test::Ours r = jls_test::pcwt_jls_encode(img, k.ilv, restart);
            ASSERT_EQ(r.status, PCWT_OK) << r.message;
            EXPECT_EQ(jls_test::compare_decoded(jls_test::charls_decode(r.bytes), img), "");
            // DRI right before the first SOS, with the interval clamped to the height
            const uint32_t ri = restart < h ? restart : h;
            const std::vector<uint8_t> &b = r.bytes;
            size_t sos = 0;
            for (size_t i = 2; i + 1 < b.size(); ++i)
                if (b[i] == 0xFF && b[i + 1] == 0xDA) {
                    sos = i;
                    break;
                }
            ASSERT_GE(sos, 6u);
            EXPECT_EQ(b[sos - 6], 0xFF);
            EXPECT_EQ(b[sos - 5], 0xDD);
            EXPECT_EQ(b[sos - 4] << 8 | b[sos - 3], 4);
            EXPECT_EQ(static_cast<uint32_t>(b[sos - 2] << 8 | b[sos - 1]), ri);
            const uint32_t scans = k.ilv == 0 ? k.comps : 1;
            const uint32_t per_scan = (h + ri - 1) / ri - 1;
            const std::vector<int> m = restart_markers(b);
            ASSERT_EQ(m.size(), static_cast<size_t>(scans * per_scan));
            for (size_t i = 0; i < m.size(); ++i)
                EXPECT_EQ(m[i], static_cast<int>((i % per_scan) % 8)) << "marker " << i;
            if (per_scan == 0) { // a single interval: CharLS's bytes plus the DRI segment
                std::vector<uint8_t> without_dri(b);
                without_dri.erase(without_dri.begin() + static_cast<long>(sos - 6),
                                  without_dri.begin() + static_cast<long>(sos));
                EXPECT_EQ(without_dri, jls_test::charls_encode(img, k.ilv).bytes);
            }
        }
}

// Restart intervals with the largest codewords (noise, 16 bits) and with RUNindex driven high just
// before a restart (long flat lines).
TEST(jpegls, RestartIntervalsResetRunIndexAndContexts)
{
    Image img(3000, 12, 1, 16);
    uint32_t s = 5;
    for (uint32_t y = 0; y < 12; ++y)
        for (uint32_t x = 0; x < 3000; ++x)
            img.set(0, y, x, (y % 3 == 2) ? lcg(&s) : 1234);
    for (uint32_t restart : {1u, 2u, 3u, 4u}) {
        const jls_test::Ours r = jls_test::pcwt_jls_encode(img, 0, restart);
        ASSERT_EQ(r.status, PCWT_OK) << r.message;
        EXPECT_EQ(jls_test::compare_decoded(jls_test::charls_decode(r.bytes), img), "")
            << "restart " << restart;
    }
}

} // namespace
