// pcwt_encoder_set_device / pcwt_decoder_set_device. DeviceApi.*: what every build does (device 0
// is always accepted, negative numbers never, a device that is not present is refused with
// PCWT_ERR_BACKEND_UNAVAILABLE and a message, and a refused call changes nothing). GpuDevice.*
// (ctest label gpu): on every device present, the GPU codes the same bytes as the CPU; skipped
// without CUDA or a device.
#include <gtest/gtest.h>

#include "gpu/gpu_test_util.h"
#include "pcwt.h"

#include <cstring>
#include <string>
#include <vector>

namespace {

// how many devices set_device accepts (stops at the first refusal; 1 without CUDA)
int acceptedDevices()
{
    pcwt_encoder *e = pcwt_encoder_create();
    int n = 0;
    while (n < 64 && pcwt_encoder_set_device(e, n) == PCWT_OK)
        ++n;
    pcwt_encoder_destroy(e);
    return n;
}

std::vector<uint8_t> gradient(const pcwt_image_desc &d, uint32_t seed)
{
    std::vector<uint8_t> img(pcwt_image_size(&d));
    Rng rng(seed);
    for (size_t k = 0; k + 1 < img.size(); k += 2) {
        const uint32_t v = (uint32_t(k / 2) % d.width * 3 + uint32_t(k / 2) / d.width * 5 + (rng.next() & 15)) & 0xFFF;
        img[k] = uint8_t(v);
        img[k + 1] = uint8_t(v >> 8);
    }
    return img;
}

std::vector<uint8_t> encodeOn(pcwt_backend backend, int device, const pcwt_image_desc &d, const std::vector<uint8_t> &img)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = backend;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK) << pcwt_encoder_last_error(e);
    EXPECT_EQ(pcwt_encoder_set_device(e, device), PCWT_OK) << pcwt_encoder_last_error(e);
    std::vector<uint8_t> out(pcwt_encode_bound(&d));
    size_t n = 0;
    EXPECT_EQ(pcwt_encode(e, &d, img.data(), img.size(), out.data(), out.size(), &n), PCWT_OK)
        << pcwt_encoder_last_error(e);
    out.resize(n);
    pcwt_encoder_destroy(e);
    return out;
}

const pcwt_image_desc kDesc = {96, 80, 1, 16, 12, 0, 0};

} // namespace

TEST(DeviceApi, NullAndNegativeAreRefused)
{
    EXPECT_EQ(pcwt_encoder_set_device(nullptr, 0), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_decoder_set_device(nullptr, 0), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_decoder *d = pcwt_decoder_create();
    EXPECT_EQ(pcwt_encoder_set_device(e, -1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(pcwt_encoder_last_error(e)).find("-1"), std::string::npos) << pcwt_encoder_last_error(e);
    EXPECT_EQ(pcwt_decoder_set_device(d, -3), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(pcwt_decoder_last_error(d)).find("-3"), std::string::npos) << pcwt_decoder_last_error(d);
    pcwt_encoder_destroy(e);
    pcwt_decoder_destroy(d);
}

TEST(DeviceApi, DeviceZeroAlwaysAndAbsentDevicesRefused)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_decoder *d = pcwt_decoder_create();
    EXPECT_EQ(pcwt_encoder_set_device(e, 0), PCWT_OK) << pcwt_encoder_last_error(e);
    EXPECT_EQ(pcwt_decoder_set_device(d, 0), PCWT_OK) << pcwt_decoder_last_error(d);
    EXPECT_STREQ(pcwt_encoder_last_error(e), "");
    // no machine has 4096 GPUs
    EXPECT_EQ(pcwt_encoder_set_device(e, 4096), PCWT_ERR_BACKEND_UNAVAILABLE);
    EXPECT_NE(std::string(pcwt_encoder_last_error(e)).find("4096"), std::string::npos) << pcwt_encoder_last_error(e);
    EXPECT_EQ(pcwt_decoder_set_device(d, 4096), PCWT_ERR_BACKEND_UNAVAILABLE);
    if (!pcwt_has_cuda()) {
        // without CUDA only device 0 exists
        EXPECT_EQ(pcwt_encoder_set_device(e, 1), PCWT_ERR_BACKEND_UNAVAILABLE);
        EXPECT_NE(std::string(pcwt_encoder_last_error(e)).find("no CUDA"), std::string::npos)
            << pcwt_encoder_last_error(e);
        EXPECT_EQ(pcwt_decoder_set_device(d, 1), PCWT_ERR_BACKEND_UNAVAILABLE);
        EXPECT_EQ(acceptedDevices(), 1);
    }
    pcwt_encoder_destroy(e);
    pcwt_decoder_destroy(d);
}

TEST(DeviceApi, RefusedDeviceLeavesTheHandleWorking)
{
    // a refused set_device changes nothing: the handle still codes (on its backend) and round-trips
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_decoder *d = pcwt_decoder_create();
    ASSERT_EQ(pcwt_encoder_set_device(e, 4096), PCWT_ERR_BACKEND_UNAVAILABLE);
    ASSERT_EQ(pcwt_decoder_set_device(d, 4096), PCWT_ERR_BACKEND_UNAVAILABLE);
    const std::vector<uint8_t> img = gradient(kDesc, 1);
    std::vector<uint8_t> cs(pcwt_encode_bound(&kDesc));
    size_t n = 0;
    ASSERT_EQ(pcwt_encode(e, &kDesc, img.data(), img.size(), cs.data(), cs.size(), &n), PCWT_OK)
        << pcwt_encoder_last_error(e);
    std::vector<uint8_t> back(img.size());
    ASSERT_EQ(pcwt_decode(d, cs.data(), n, back.data(), back.size()), PCWT_OK) << pcwt_decoder_last_error(d);
    EXPECT_TRUE(back == img);
    // and the CPU codestream is the one any other handle writes
    cs.resize(n);
    EXPECT_TRUE(cs == encodeOn(PCWT_BACKEND_CPU, 0, kDesc, img));
    pcwt_encoder_destroy(e);
    pcwt_decoder_destroy(d);
}

TEST(GpuDevice, EveryDeviceCodesTheCpuBytes)
{
    SKIP_WITHOUT_GPU();
    const int n = acceptedDevices();
    ASSERT_GE(n, 1);
    const std::vector<uint8_t> img = gradient(kDesc, 7);
    const std::vector<uint8_t> ref = encodeOn(PCWT_BACKEND_CPU, 0, kDesc, img);
    for (int dev = 0; dev < n; ++dev) {
        EXPECT_TRUE(encodeOn(PCWT_BACKEND_GPU, dev, kDesc, img) == ref) << "device " << dev;
        pcwt_decoder *d = pcwt_decoder_create();
        ASSERT_EQ(pcwt_decoder_set_backend(d, PCWT_BACKEND_GPU), PCWT_OK);
        ASSERT_EQ(pcwt_decoder_set_device(d, dev), PCWT_OK) << pcwt_decoder_last_error(d);
        std::vector<uint8_t> back(img.size());
        ASSERT_EQ(pcwt_decode(d, ref.data(), ref.size(), back.data(), back.size()), PCWT_OK)
            << "device " << dev << ": " << pcwt_decoder_last_error(d);
        EXPECT_TRUE(back == img) << "device " << dev;
        pcwt_decoder_destroy(d);
    }
    // one handle moved from device to device (its context is made again on the new one)
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = PCWT_BACKEND_GPU;
    ASSERT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK);
    for (int round = 0; round < 2 * n; ++round) {
        ASSERT_EQ(pcwt_encoder_set_device(e, round % n), PCWT_OK);
        std::vector<uint8_t> out(pcwt_encode_bound(&kDesc));
        size_t w = 0;
        ASSERT_EQ(pcwt_encode(e, &kDesc, img.data(), img.size(), out.data(), out.size(), &w), PCWT_OK)
            << pcwt_encoder_last_error(e);
        out.resize(w);
        EXPECT_TRUE(out == ref) << "round " << round;
    }
    pcwt_encoder_destroy(e);
}
