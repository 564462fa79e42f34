// Unit tests of dicom/ (pcwt_dicom.h): the UID, pixel-module validation and its refusal messages,
// frame layout helpers and the Basic Offset Table. No DICOM toolkit involved.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "pcwt_dicom.h"

namespace {

pcwt_dicom_pixel_module mono16(uint32_t bs = 16, uint32_t pr = 0)
{
    pcwt_dicom_pixel_module m;
    std::memset(&m, 0, sizeof m);
    m.rows = 512;
    m.columns = 512;
    m.samples_per_pixel = 1;
    m.bits_allocated = 16;
    m.bits_stored = bs;
    m.high_bit = bs - 1;
    m.pixel_representation = pr;
    m.photometric = PCWT_PI_MONOCHROME2;
    m.number_of_frames = 1;
    return m;
}

pcwt_dicom_pixel_module rgb8(uint32_t planar)
{
    pcwt_dicom_pixel_module m = mono16();
    m.samples_per_pixel = 3;
    m.bits_allocated = 8;
    m.bits_stored = 8;
    m.high_bit = 7;
    m.photometric = PCWT_PI_RGB;
    m.has_planar_configuration = 1;
    m.planar_configuration = planar;
    return m;
}

std::string validate(const pcwt_dicom_pixel_module &m, pcwt_dicom_target t, pcwt_dicom_status *st)
{
    char msg[512];
    *st = pcwt_dicom_validate(&m, t, msg, sizeof msg);
    return msg;
}

} // namespace

TEST(DicomUid, IsAValidUuidDerivedUid)
{
    const std::string uid = PCWT_DICOM_TS_UID;
    ASSERT_EQ(uid.rfind("2.25.", 0), 0u);
    EXPECT_LE(uid.size(), 64u);
    // 2.25.<decimal of a 128-bit integer>: digits only, no leading zero, at most 39 digits
    const std::string dec = uid.substr(5);
    ASSERT_FALSE(dec.empty());
    EXPECT_NE(dec[0], '0');
    EXPECT_LE(dec.size(), 39u);
    for (char c : dec)
        EXPECT_TRUE(c >= '0' && c <= '9') << uid;
    // fixed forever: a change here breaks every file written so far
    EXPECT_EQ(uid, "2.25.225299300768051036748914159895949168641");
}

TEST(DicomPhotometric, ParsesDefinedTerms)
{
    EXPECT_EQ(pcwt_dicom_photometric_from_string("MONOCHROME2"), PCWT_PI_MONOCHROME2);
    EXPECT_EQ(pcwt_dicom_photometric_from_string("MONOCHROME1 "), PCWT_PI_MONOCHROME1);
    EXPECT_EQ(pcwt_dicom_photometric_from_string(" PALETTE COLOR"), PCWT_PI_PALETTE_COLOR);
    EXPECT_EQ(pcwt_dicom_photometric_from_string("YBR_FULL_422"), PCWT_PI_YBR_FULL_422);
    EXPECT_EQ(pcwt_dicom_photometric_from_string("YBR_FULL"), PCWT_PI_YBR_FULL);
    EXPECT_EQ(pcwt_dicom_photometric_from_string("RGBX"), PCWT_PI_UNKNOWN);
    EXPECT_EQ(pcwt_dicom_photometric_from_string(""), PCWT_PI_UNKNOWN);
    EXPECT_EQ(pcwt_dicom_photometric_from_string(nullptr), PCWT_PI_UNKNOWN);
    EXPECT_STREQ(pcwt_dicom_photometric_name(PCWT_PI_PALETTE_COLOR), "PALETTE COLOR");
}

TEST(DicomValidate, AcceptsTheSupportedModules)
{
    pcwt_dicom_status st;
    struct Case {
        pcwt_dicom_pixel_module m;
        const char *what;
    };
    std::vector<Case> ok;
    ok.push_back({mono16(), "16/16 unsigned"});
    ok.push_back({mono16(12, 1), "16/12 signed"});
    ok.push_back({mono16(1), "16/1"});
    pcwt_dicom_pixel_module m = mono16();
    m.bits_allocated = 8;
    m.bits_stored = 8;
    m.high_bit = 7;
    m.photometric = PCWT_PI_MONOCHROME1;
    ok.push_back({m, "8-bit MONOCHROME1"});
    m.photometric = PCWT_PI_PALETTE_COLOR;
    ok.push_back({m, "PALETTE COLOR"});
    ok.push_back({rgb8(0), "RGB planar 0"});
    ok.push_back({rgb8(1), "RGB planar 1"});
    m = rgb8(1);
    m.photometric = PCWT_PI_YBR_FULL;
    ok.push_back({m, "YBR_FULL"});
    m = rgb8(0);
    m.has_planar_configuration = 0;
    ok.push_back({m, "RGB without PlanarConfiguration"});
    m = mono16(12);
    m.high_bit = 15; // data in the upper bits: coded as raw words
    ok.push_back({m, "HighBit 15 with BitsStored 12"});
    m = mono16();
    m.number_of_frames = 1000;
    m.rows = m.columns = 64;
    ok.push_back({m, "1000 frames"});
    for (const Case &c : ok) {
        const std::string msg = validate(c.m, PCWT_DICOM_TARGET_PCWT, &st);
        EXPECT_EQ(st, PCWT_DICOM_OK) << c.what << ": " << msg;
    }
}

TEST(DicomValidate, RefusesWithMessagesNamingTheAttribute)
{
    struct Case {
        pcwt_dicom_pixel_module m;
        pcwt_dicom_status want;
        const char *needle;
    };
    std::vector<Case> bad;
    pcwt_dicom_pixel_module m = mono16();
    m.bits_allocated = 32;
    m.bits_stored = 32;
    m.high_bit = 31;
    bad.push_back({m, PCWT_DICOM_UNSUPPORTED, "BitsAllocated 32"});
    m.bits_allocated = 1;
    m.bits_stored = 1;
    m.high_bit = 0;
    bad.push_back({m, PCWT_DICOM_UNSUPPORTED, "BitsAllocated 1"});
    m = mono16();
    m.bits_allocated = 12;
    bad.push_back({m, PCWT_DICOM_INVALID, "BitsAllocated 12"}); // not 1 or a multiple of 8
    m = mono16();
    m.bits_allocated = 0;
    bad.push_back({m, PCWT_DICOM_INVALID, "BitsAllocated 0"});
    m = mono16();
    m.bits_allocated = 24;
    m.bits_stored = 24;
    m.high_bit = 23;
    bad.push_back({m, PCWT_DICOM_UNSUPPORTED, "BitsAllocated 24"});
    for (uint32_t spp : {0u, 2u}) {
        m = mono16();
        m.samples_per_pixel = spp;
        bad.push_back({m, PCWT_DICOM_INVALID, spp ? "SamplesPerPixel 2" : "SamplesPerPixel 0"});
    }
    m = mono16();
    m.bits_stored = 17;
    bad.push_back({m, PCWT_DICOM_INVALID, "BitsStored 17"});
    m = mono16(12);
    m.high_bit = 10;
    bad.push_back({m, PCWT_DICOM_INVALID, "HighBit 10"});
    m = mono16();
    m.pixel_representation = 2;
    bad.push_back({m, PCWT_DICOM_INVALID, "PixelRepresentation 2"});
    m = rgb8(0);
    m.photometric = PCWT_PI_YBR_FULL_422;
    bad.push_back({m, PCWT_DICOM_UNSUPPORTED, "YBR_FULL_422"});
    m.photometric = PCWT_PI_YBR_RCT;
    bad.push_back({m, PCWT_DICOM_UNSUPPORTED, "YBR_RCT"});
    m.photometric = PCWT_PI_MONOCHROME2;
    bad.push_back({m, PCWT_DICOM_UNSUPPORTED, "MONOCHROME2"});
    m = rgb8(2);
    bad.push_back({m, PCWT_DICOM_INVALID, "PlanarConfiguration 2"});
    m = mono16();
    m.photometric = PCWT_PI_RGB;
    bad.push_back({m, PCWT_DICOM_INVALID, "RGB does not fit SamplesPerPixel 1"});
    m = mono16();
    m.samples_per_pixel = 4;
    m.photometric = PCWT_PI_ARGB;
    bad.push_back({m, PCWT_DICOM_UNSUPPORTED, "SamplesPerPixel 4"});
    m = mono16();
    m.rows = 0;
    bad.push_back({m, PCWT_DICOM_INVALID, "Rows (0)"});
    m = mono16();
    m.number_of_frames = 0;
    bad.push_back({m, PCWT_DICOM_INVALID, "NumberOfFrames"});
    m = mono16();
    m.photometric = PCWT_PI_UNKNOWN;
    bad.push_back({m, PCWT_DICOM_INVALID, "PhotometricInterpretation"});
    // 46341 x 46341 x 2 bytes > 2^32: beyond the 32-bit length of Pixel Data
    m = mono16();
    m.rows = m.columns = 46341;
    bad.push_back({m, PCWT_DICOM_TOO_LARGE, "4 GiB"});
    m = mono16();
    m.rows = 65535;
    m.columns = 32767; // 2^31 - 2^16 bytes: fits the element, but not libpcwt's 2^30 samples
    bad.push_back({m, PCWT_DICOM_TOO_LARGE, "2^30"});
    m = mono16();
    m.number_of_frames = 0x7FFFFFFF;
    bad.push_back({m, PCWT_DICOM_TOO_LARGE, "4 GiB"});
    for (const Case &c : bad) {
        pcwt_dicom_status st;
        const std::string msg = validate(c.m, PCWT_DICOM_TARGET_PCWT, &st);
        EXPECT_EQ(st, c.want) << msg;
        EXPECT_NE(msg.find(c.needle), std::string::npos) << "message: " << msg << " / expected: " << c.needle;
    }
}

TEST(DicomValidate, JpeglsNeedsHighBit)
{
    pcwt_dicom_status st;
    pcwt_dicom_pixel_module m = mono16(12);
    EXPECT_EQ(pcwt_dicom_validate(&m, PCWT_DICOM_TARGET_JPEGLS, nullptr, 0), PCWT_DICOM_OK);
    m.high_bit = 15;
    std::string msg = validate(m, PCWT_DICOM_TARGET_JPEGLS, &st);
    EXPECT_EQ(st, PCWT_DICOM_UNSUPPORTED);
    EXPECT_NE(msg.find("HighBit"), std::string::npos) << msg;
    EXPECT_EQ(pcwt_dicom_validate(&m, PCWT_DICOM_TARGET_PCWT, nullptr, 0), PCWT_DICOM_OK);
    // BitsStored 1 (segmentation masks): coded as sample precision 2, as dcmcjpls does
    m = mono16(1);
    m.bits_allocated = 8;
    EXPECT_EQ(pcwt_dicom_validate(&m, PCWT_DICOM_TARGET_JPEGLS, nullptr, 0), PCWT_DICOM_OK);
    m.bits_allocated = 32;
    msg = validate(m, PCWT_DICOM_TARGET_JPEGLS, &st);
    EXPECT_NE(msg.find("JPEG-LS"), std::string::npos) << msg; // the refusal names the target
}

TEST(DicomLayout, FrameSizesAndDescriptor)
{
    pcwt_dicom_pixel_module m = rgb8(1);
    m.rows = 5;
    m.columns = 7;
    m.number_of_frames = 3;
    EXPECT_EQ(pcwt_dicom_frame_bytes(&m), 105u);
    EXPECT_EQ(pcwt_dicom_pixel_bytes(&m), 315u);
    pcwt_image_desc d;
    ASSERT_EQ(pcwt_dicom_image_desc(&m, &d), PCWT_DICOM_OK);
    EXPECT_EQ(d.width, 7u);
    EXPECT_EQ(d.height, 5u);
    EXPECT_EQ(d.components, 3u);
    EXPECT_EQ(d.planar, 1u);
    EXPECT_EQ(pcwt_image_size(&d), 105u);

    m = mono16(12, 1);
    ASSERT_EQ(pcwt_dicom_image_desc(&m, &d), PCWT_DICOM_OK);
    EXPECT_EQ(d.bits_stored, 12u);
    EXPECT_EQ(d.is_signed, 1u);
    m.high_bit = 15; // not in the low bits: raw words
    ASSERT_EQ(pcwt_dicom_image_desc(&m, &d), PCWT_DICOM_OK);
    EXPECT_EQ(d.bits_stored, 16u);
    EXPECT_EQ(d.is_signed, 0u);

    m.bits_allocated = 32;
    EXPECT_EQ(pcwt_dicom_frame_bytes(&m), 0u);
    EXPECT_NE(pcwt_dicom_image_desc(&m, &d), PCWT_DICOM_OK);
}

TEST(DicomLayout, PlanarInterleavedRoundTrip)
{
    const size_t pixels = 6;
    std::vector<uint8_t> planar8 = {1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16, 21, 22, 23, 24, 25, 26};
    std::vector<uint8_t> inter8(18), back8(18);
    pcwt_dicom_planar_to_interleaved(planar8.data(), inter8.data(), pixels, 1);
    EXPECT_EQ(inter8[0], 1);
    EXPECT_EQ(inter8[1], 11);
    EXPECT_EQ(inter8[2], 21);
    EXPECT_EQ(inter8[17], 26);
    pcwt_dicom_interleaved_to_planar(inter8.data(), back8.data(), pixels, 1);
    EXPECT_EQ(back8, planar8);

    std::vector<uint16_t> planar16(18), inter16(18), back16(18);
    for (size_t i = 0; i < 18; ++i)
        planar16[i] = static_cast<uint16_t>(1000 * i + 7);
    pcwt_dicom_planar_to_interleaved(planar16.data(), inter16.data(), pixels, 2);
    EXPECT_EQ(inter16[1], planar16[6]);
    pcwt_dicom_interleaved_to_planar(inter16.data(), back16.data(), pixels, 2);
    EXPECT_EQ(back16, planar16);
}

TEST(DicomLayout, HighBitsCleanAndMask)
{
    pcwt_image_desc d;
    std::memset(&d, 0, sizeof d);
    d.width = 4;
    d.height = 1;
    d.components = 1;
    d.bits_allocated = 16;
    d.bits_stored = 12;
    std::vector<uint16_t> w = {0x0000, 0x0FFF, 0x0800, 0x0123};
    size_t bad = 99;
    EXPECT_EQ(pcwt_dicom_high_bits_clean(&d, w.data(), &bad), 1);
    w[2] = 0xF800; // sign extension, but the image is unsigned
    EXPECT_EQ(pcwt_dicom_high_bits_clean(&d, w.data(), &bad), 0);
    EXPECT_EQ(bad, 2u);
    d.is_signed = 1; // now it is the sign extension of -2048
    EXPECT_EQ(pcwt_dicom_high_bits_clean(&d, w.data(), &bad), 1);
    w[3] = 0xF123; // ones above a positive value: not a sign extension
    EXPECT_EQ(pcwt_dicom_high_bits_clean(&d, w.data(), &bad), 0);
    EXPECT_EQ(bad, 3u);
    w[3] = 0x1123; // the 12bitSigned_0x0F0F pattern
    EXPECT_EQ(pcwt_dicom_high_bits_clean(&d, w.data(), &bad), 0);
    std::vector<uint16_t> masked(4);
    pcwt_dicom_mask_to_bits_stored(&d, w.data(), masked.data());
    EXPECT_EQ(masked[2], 0x0800);
    EXPECT_EQ(masked[3], 0x0123);

    d.bits_allocated = 8;
    d.bits_stored = 7;
    d.is_signed = 0;
    std::vector<uint8_t> b = {0x7F, 0x80};
    d.width = 2;
    EXPECT_EQ(pcwt_dicom_high_bits_clean(&d, b.data(), &bad), 0);
    EXPECT_EQ(bad, 1u);
    d.bits_stored = 8;
    EXPECT_EQ(pcwt_dicom_high_bits_clean(&d, b.data(), &bad), 1); // nothing above 8 of 8
}

TEST(DicomOffsetTable, OffsetsCountItemHeadersAndPadding)
{
    const std::vector<uint64_t> lengths = {100, 51, 8, 0};
    std::vector<uint32_t> offsets(lengths.size());
    ASSERT_EQ(pcwt_dicom_bot_offsets(lengths.data(), lengths.size(), offsets.data()), PCWT_DICOM_OK);
    EXPECT_EQ(offsets, (std::vector<uint32_t>{0, 108, 168, 184}));
    std::vector<uint8_t> bytes(16);
    pcwt_dicom_bot_encode(offsets.data(), offsets.size(), bytes.data());
    EXPECT_EQ(bytes[4], 108);
    EXPECT_EQ(bytes[5], 0);
    std::vector<uint32_t> back(4);
    int present = 0;
    ASSERT_EQ(pcwt_dicom_bot_decode(bytes.data(), bytes.size(), 4, back.data(), &present), PCWT_DICOM_OK);
    EXPECT_EQ(present, 1);
    EXPECT_EQ(back, offsets);
    // empty table
    ASSERT_EQ(pcwt_dicom_bot_decode(nullptr, 0, 4, back.data(), &present), PCWT_DICOM_OK);
    EXPECT_EQ(present, 0);
}

TEST(DicomOffsetTable, RejectsCorruptTables)
{
    int present = 0;
    std::vector<uint32_t> out(3);
    const uint8_t wrongCount[8] = {0, 0, 0, 0, 8, 0, 0, 0};
    EXPECT_EQ(pcwt_dicom_bot_decode(wrongCount, 8, 3, out.data(), &present), PCWT_DICOM_CORRUPT);
    const uint8_t notZero[12] = {4, 0, 0, 0, 8, 0, 0, 0, 16, 0, 0, 0};
    EXPECT_EQ(pcwt_dicom_bot_decode(notZero, 12, 3, out.data(), &present), PCWT_DICOM_CORRUPT);
    const uint8_t decreasing[12] = {0, 0, 0, 0, 80, 0, 0, 0, 16, 0, 0, 0};
    EXPECT_EQ(pcwt_dicom_bot_decode(decreasing, 12, 3, out.data(), &present), PCWT_DICOM_CORRUPT);
    const uint8_t odd[7] = {0};
    EXPECT_EQ(pcwt_dicom_bot_decode(odd, 7, 2, out.data(), &present), PCWT_DICOM_CORRUPT);
    // an offset past 32 bits
    const std::vector<uint64_t> huge = {0xFFFFFFF0u, 0xFFFFFFF0u, 16};
    EXPECT_EQ(pcwt_dicom_bot_offsets(huge.data(), huge.size(), out.data()), PCWT_DICOM_TOO_LARGE);
}

TEST(DicomOffsetTable, FragmentsOfAFrame)
{
    size_t first = 0, count = 0;
    // one fragment per frame: the table is not needed
    const std::vector<uint64_t> one = {10, 20, 30};
    ASSERT_EQ(pcwt_dicom_frame_fragments(nullptr, 3, one.data(), 3, 2, &first, &count), PCWT_DICOM_OK);
    EXPECT_EQ(first, 2u);
    EXPECT_EQ(count, 1u);
    // 2 frames in 5 fragments: frame 0 = fragments 0-2, frame 1 = 3-4
    const std::vector<uint64_t> lens = {10, 20, 30, 40, 50};
    const uint32_t offsets[2] = {0, 18 + 28 + 38};
    ASSERT_EQ(pcwt_dicom_frame_fragments(offsets, 2, lens.data(), 5, 0, &first, &count), PCWT_DICOM_OK);
    EXPECT_EQ(first, 0u);
    EXPECT_EQ(count, 3u);
    ASSERT_EQ(pcwt_dicom_frame_fragments(offsets, 2, lens.data(), 5, 1, &first, &count), PCWT_DICOM_OK);
    EXPECT_EQ(first, 3u);
    EXPECT_EQ(count, 2u);
    // an offset that is not a fragment start
    const uint32_t badOffsets[2] = {0, 50};
    EXPECT_EQ(pcwt_dicom_frame_fragments(badOffsets, 2, lens.data(), 5, 0, &first, &count), PCWT_DICOM_CORRUPT);
    // a single frame in several fragments without a table
    ASSERT_EQ(pcwt_dicom_frame_fragments(nullptr, 1, lens.data(), 5, 0, &first, &count), PCWT_DICOM_OK);
    EXPECT_EQ(count, 5u);
    // several frames, fragments != frames, no table: cannot be told apart
    EXPECT_EQ(pcwt_dicom_frame_fragments(nullptr, 2, lens.data(), 5, 0, &first, &count), PCWT_DICOM_CORRUPT);
    // more frames than fragments, frame beyond the end, no fragments
    EXPECT_EQ(pcwt_dicom_frame_fragments(nullptr, 4, one.data(), 3, 0, &first, &count), PCWT_DICOM_CORRUPT);
    EXPECT_EQ(pcwt_dicom_frame_fragments(nullptr, 3, one.data(), 3, 3, &first, &count), PCWT_DICOM_CORRUPT);
    EXPECT_EQ(pcwt_dicom_frame_fragments(nullptr, 1, one.data(), 0, 0, &first, &count), PCWT_DICOM_CORRUPT);
}

// One rule for native Pixel Data lengths: exactly frames x frame bytes, or that plus the one pad
// byte of an odd total; shorter and longer are both refused (longer data would be dropped).
TEST(DicomLength, ExactLengthOrOnePadByte)
{
    char msg[256];
    pcwt_dicom_pixel_module m = mono16();
    m.rows = 64;
    m.columns = 32;
    m.number_of_frames = 3;
    const uint64_t total = 64u * 32u * 2u * 3u;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, total, msg, sizeof msg), PCWT_DICOM_OK) << msg;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, total + 1, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    EXPECT_NE(std::string(msg).find("extra bytes"), std::string::npos) << msg;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, total + 1000, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, total - 1, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    EXPECT_NE(std::string(msg).find("too short"), std::string::npos) << msg;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, total / 2, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, 0, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    // Rows halved in the header of a full image: twice the declared length
    m.rows = 32;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, total, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    // odd total (8 bits, 3 x 3): the pad byte is allowed, a second byte is not
    m = mono16(8);
    m.bits_allocated = 8;
    m.rows = m.columns = 3;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, 9, msg, sizeof msg), PCWT_DICOM_OK) << msg;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, 10, msg, sizeof msg), PCWT_DICOM_OK) << msg;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, 11, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, 8, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    // an invalid module gives the module's status, not a length verdict
    m.samples_per_pixel = 2;
    EXPECT_EQ(pcwt_dicom_check_native_length(&m, 18, msg, sizeof msg), PCWT_DICOM_INVALID);
    EXPECT_EQ(pcwt_dicom_check_native_length(nullptr, 18, msg, sizeof msg), PCWT_DICOM_INVALID);
}

// The length rule for any pixel module, which pcwt-storescp applies to what it stores as received
// (bit-packed, 32-bit, YBR_FULL_422): the same rule as the codec's, beyond what PCWT codes.
TEST(PcwtDicomLength, AnyPixelModule)
{
    char msg[256];
    pcwt_dicom_pixel_module m = mono16(16);
    m.rows = 64;
    m.columns = 32;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 64u * 32u * 2u, msg, sizeof msg), PCWT_DICOM_OK) << msg;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 64u * 32u * 2u + 2, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    // Bits Allocated 1: frames packed back to back, rounded up once: 3 x 5 x 5 bits = 75 -> 10 bytes
    m = mono16(1);
    m.bits_allocated = 1;
    m.rows = m.columns = 5;
    m.number_of_frames = 3;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 10, msg, sizeof msg), PCWT_DICOM_OK) << msg;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 12, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 9, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    EXPECT_NE(std::string(msg).find("Pixel Data holds 9 bytes"), std::string::npos) << msg;
    // 32 bits; YBR_FULL_422 stores two samples per pixel
    m = mono16(16);
    m.bits_allocated = 32;
    m.rows = m.columns = 4;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 64, msg, sizeof msg), PCWT_DICOM_OK) << msg;
    m.bits_allocated = 8;
    m.samples_per_pixel = 3;
    m.photometric = PCWT_PI_YBR_FULL_422;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 32, msg, sizeof msg), PCWT_DICOM_OK) << msg;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 48, msg, sizeof msg), PCWT_DICOM_MISMATCH);
    // sizes beyond a 32-bit value length, and modules without a size
    m = mono16(16);
    m.rows = m.columns = 65535;
    m.number_of_frames = 1000;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 0xFFFFFFFEu, msg, sizeof msg), PCWT_DICOM_TOO_LARGE);
    m.number_of_frames = 0;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 0, msg, sizeof msg), PCWT_DICOM_INVALID);
    m.number_of_frames = 1;
    m.bits_allocated = 0;
    EXPECT_EQ(pcwt_dicom_check_pixel_length(&m, 0, msg, sizeof msg), PCWT_DICOM_INVALID);
    EXPECT_EQ(pcwt_dicom_check_pixel_length(nullptr, 0, msg, sizeof msg), PCWT_DICOM_INVALID);
}
