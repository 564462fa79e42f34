// pcwt_encoder_set_device / pcwt_decoder_set_device. DeviceApi.*: what every build does (device 0
// is always accepted, negative numbers never, a device that is not present is refused with
// PCWT_ERR_BACKEND_UNAVAILABLE and a message, and a refused call changes nothing; handles that do
// no work start no CUDA). GpuDevice.* (ctest label gpu): on every device present, the GPU codes the
// same bytes as the CPU; the AUTO backend asks CUDA on the first call that codes; skipped without
// CUDA or a device.
#include <gtest/gtest.h>

#include "gpu/gpu_test_util.h"
#include "pcwt.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

// Whether this process has loaded the CUDA driver (libcuda), which the CUDA runtime does on its
// first call.
bool cudaDriverLoaded()
{
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line))
        if (line.find("libcuda.so") != std::string::npos)
            return true;
    return false;
}

// Handles on the AUTO backend made, set up (options, device 0) and freed without work, as a tool
// that only parses its arguments does.
void handlesWithoutWork()
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_decoder *d = pcwt_decoder_create();
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_BACKEND, PCWT_BACKEND_AUTO), PCWT_OK);
    EXPECT_EQ(pcwt_encoder_set_option_name(e, "levels", "5"), PCWT_OK);
    EXPECT_EQ(pcwt_encoder_set_device(e, 0), PCWT_OK);
    EXPECT_EQ(pcwt_decoder_set_backend(d, PCWT_BACKEND_AUTO), PCWT_OK);
    EXPECT_EQ(pcwt_decoder_set_device(d, 0), PCWT_OK);
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK);
    pcwt_encoder_destroy(e);
    pcwt_decoder_destroy(d);
}

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

// e codes a frame that d decodes back, on their backends, and the codestream is the CPU's.
void expectRoundTripOfTheCpuBytes(pcwt_encoder *e, pcwt_decoder *d, uint32_t seed)
{
    const std::vector<uint8_t> img = gradient(kDesc, seed);
    std::vector<uint8_t> cs(pcwt_encode_bound(&kDesc));
    size_t n = 0;
    ASSERT_EQ(pcwt_encode(e, &kDesc, img.data(), img.size(), cs.data(), cs.size(), &n), PCWT_OK)
        << pcwt_encoder_last_error(e);
    std::vector<uint8_t> back(img.size());
    ASSERT_EQ(pcwt_decode(d, cs.data(), n, back.data(), back.size()), PCWT_OK) << pcwt_decoder_last_error(d);
    EXPECT_TRUE(back == img);
    cs.resize(n);
    EXPECT_TRUE(cs == encodeOn(PCWT_BACKEND_CPU, 0, kDesc, img));
}

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
    expectRoundTripOfTheCpuBytes(e, d, 1);
    pcwt_encoder_destroy(e);
    pcwt_decoder_destroy(d);
}

// No CUDA for handles that do no work (with the CUDA driver present it would be loaded by the
// first CUDA call: GpuDevice.AutoAsksCudaOnTheFirstCall shows that this check sees it); then the
// AUTO handles code and decode on whatever backend they resolve to.
TEST(DeviceApi, HandlesWithoutWorkStartNoCuda)
{
    if (cudaDriverLoaded())
        GTEST_SKIP() << "the CUDA driver was loaded before the test";
    handlesWithoutWork();
    EXPECT_FALSE(cudaDriverLoaded()) << "a handle that did no work started CUDA";
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_decoder *d = pcwt_decoder_create();
    expectRoundTripOfTheCpuBytes(e, d, 3);
    const pcwt_backend b = pcwt_encoder_backend(e);
    EXPECT_TRUE(b == PCWT_BACKEND_CPU || b == PCWT_BACKEND_GPU);
    EXPECT_EQ(pcwt_decoder_backend(d), b);
    pcwt_encoder_destroy(e);
    pcwt_decoder_destroy(d);
}

// With a device: the handles that do no work leave the driver unloaded, and the AUTO backend
// resolves to the GPU (loading it) on the first call that needs it.
TEST(GpuDevice, AutoAsksCudaOnTheFirstCall)
{
    if (!pcwt_has_cuda())
        GTEST_SKIP() << "GPU test skipped: this build has no CUDA backend";
    if (std::getenv("PCWT_BACKEND"))
        GTEST_SKIP() << "PCWT_BACKEND is set";
    if (cudaDriverLoaded())
        GTEST_SKIP() << "GPU test skipped: the CUDA driver was loaded before the test";
    handlesWithoutWork();
    ASSERT_FALSE(cudaDriverLoaded()) << "a handle that did no work started CUDA";
    pcwt_encoder *e = pcwt_encoder_create();
    const pcwt_backend b = pcwt_encoder_backend(e); // needs the answer: asks CUDA
    pcwt_encoder_destroy(e);
    if (b != PCWT_BACKEND_GPU)
        GTEST_SKIP() << "GPU test skipped: no usable CUDA device";
    EXPECT_TRUE(cudaDriverLoaded()) << "the GPU backend was chosen without the CUDA driver";
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
