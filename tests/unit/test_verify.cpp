// pcwt_verify_batch on the CPU: a codestream is checked against the samples it must decode to,
// every byte; a difference anywhere (first, middle, last byte), a size that differs and a
// codestream that does not decode are each reported on their own job.
#include <gtest/gtest.h>

#include "test_util.h"

#include <cstdint>
#include <vector>

namespace {

std::vector<uint8_t> noise_image(const pcwt_image_desc &d, Rng &rng)
{
    std::vector<uint8_t> img(pcwt_image_size(&d));
    for (size_t k = 0; k + 1 < img.size(); k += 2) {
        const uint16_t v = uint16_t(rng.next() & ((1u << d.bits_stored) - 1));
        std::memcpy(&img[k], &v, 2);
    }
    return img;
}

pcwt_verify_job job(const std::vector<uint8_t> &cs, const std::vector<uint8_t> &want)
{
    pcwt_verify_job j;
    std::memset(&j, 0, sizeof j);
    j.src = cs.data();
    j.src_size = cs.size();
    j.expected = want.data();
    j.expected_size = want.size();
    j.status = PCWT_ERR_INVALID_ARGUMENT;
    return j;
}

TEST(Verify, EveryByteCounts)
{
    Rng rng(21);
    const pcwt_image_desc d = make_desc(131, 67, 1, 16, 12, false);
    const std::vector<uint8_t> img = noise_image(d, rng);
    const std::vector<uint8_t> cs = encode(d, img);
    ASSERT_FALSE(cs.empty());
    auto first = img, middle = img, last = img, shorter = img;
    first[0] ^= 1;
    middle[img.size() / 2 + 3] ^= 0x80;
    last[img.size() - 1] ^= 0x10;
    shorter.pop_back();
    shorter[5] ^= 1; // the sizes differ: that is the difference reported, at the shorter size
    auto corrupt = cs;
    corrupt[cs.size() - 9] ^= 0x20; // in the last payload: its checksum fails
    std::vector<pcwt_verify_job> jobs = {job(cs, img),    job(cs, first),   job(cs, middle),
                                         job(cs, last),   job(cs, shorter), job(corrupt, img)};
    pcwt_decoder *dec = pcwt_decoder_create();
    ASSERT_EQ(pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU), PCWT_OK);
    EXPECT_EQ(pcwt_verify_batch(dec, jobs.data(), jobs.size()), PCWT_ERR_MISMATCH);
    EXPECT_STRNE(pcwt_decoder_last_error(dec), "");
    EXPECT_EQ(jobs[0].status, PCWT_OK);
    EXPECT_EQ(jobs[0].first_difference, UINT64_MAX);
    EXPECT_EQ(jobs[1].status, PCWT_ERR_MISMATCH);
    EXPECT_EQ(jobs[1].first_difference, 0u);
    EXPECT_EQ(jobs[2].status, PCWT_ERR_MISMATCH);
    EXPECT_EQ(jobs[2].first_difference, img.size() / 2 + 3);
    EXPECT_EQ(jobs[3].status, PCWT_ERR_MISMATCH);
    EXPECT_EQ(jobs[3].first_difference, img.size() - 1);
    EXPECT_EQ(jobs[4].status, PCWT_ERR_MISMATCH);
    EXPECT_EQ(jobs[4].first_difference, img.size() - 1);
    EXPECT_EQ(jobs[5].status, PCWT_ERR_CRC_MISMATCH);
    EXPECT_EQ(jobs[5].first_difference, UINT64_MAX);
    // the matching job alone passes
    EXPECT_EQ(pcwt_verify_batch(dec, jobs.data(), 1), PCWT_OK);
    // NULL buffers are refused before anything is decoded
    jobs[0].expected = nullptr;
    EXPECT_EQ(pcwt_verify_batch(dec, jobs.data(), 1), PCWT_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(pcwt_verify_batch(nullptr, jobs.data(), 1), PCWT_ERR_INVALID_ARGUMENT);
    pcwt_decoder_destroy(dec);
}

} // namespace
