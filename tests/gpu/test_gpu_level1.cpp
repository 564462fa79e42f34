// The 5/11-C level-1 filter (docs/FORMAT.md Sec. 3.4) on the GPU, whose encoder decides it per
// plane on the device (dwt53_gpu.cu) and whose decoder inverts it: with level1-filter 53, auto
// and 511 the GPU encoder writes the CPU's bytes (in one batch, and again in a second run of the
// same handle) for planes of many sizes (1x1, one row, one column, odd), depths, signed and
// unsigned, smooth (auto takes 5/11-C) and noisy (auto keeps 5/3), colour and high-bit planes,
// value maps, both lifting orders and the low bits modelled or not; the GPU decoder and
// pcwt_verify_batch give back every sample of the CPU's codestreams, also in one batch mixing
// filters and lifting orders; every corpus image of PCWT_GPU_CORPUS likewise. Label gpu; skipped
// without CUDA or a device.
#include "gpu_test_util.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {

pcwt_encoder *encoder(pcwt_backend b, pcwt_profile profile, pcwt_level1_filter f,
                      pcwt_lifting_order order = PCWT_LIFTING_AUTO, pcwt_low_bits low = PCWT_LOW_BITS_AUTO)
{
    pcwt_encoder *e = test_encoder(b, profile);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_LEVEL1_FILTER, f), PCWT_OK) << pcwt_encoder_last_error(e);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_LIFTING_ORDER, order), PCWT_OK) << pcwt_encoder_last_error(e);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_LOW_BITS, low), PCWT_OK) << pcwt_encoder_last_error(e);
    return e;
}

std::string name(const pcwt_image_desc &d, int pattern)
{
    return std::to_string(d.width) + "x" + std::to_string(d.height) + "x" + std::to_string(d.components) +
           " " + std::to_string(d.bits_allocated) + "/" + std::to_string(d.bits_stored) +
           (d.is_signed ? "s" : "u") + (d.planar ? " planar" : "") + " pattern " + std::to_string(pattern);
}

// Grey planes of many sizes, depths and patterns (smooth ones take 5/11-C with auto), colour
// frames with and without the colour transform's planes interleaved, and high-bit planes.
std::vector<GpuCase> synthetic_cases()
{
    Rng rng(53);
    std::vector<GpuCase> cases;
    const uint32_t sizes[][2] = {{1, 1},    {2, 1},    {1, 2},    {3, 3},     {1, 257},   {257, 1},  {5, 7},
                                 {2, 64},   {64, 2},   {31, 29},  {66, 130},  {127, 131}, {257, 263}, {1021, 769}};
    int n = 0;
    for (const auto &s : sizes)
        for (uint32_t alloc : {8u, 16u})
            for (uint32_t sgn : {0u, 1u}) {
                const int pattern = n % 3 == 2 ? n / 3 % 4 : 4; // two thirds smooth
                n++;
                const pcwt_image_desc d{s[0], s[1], 1, alloc, alloc == 16 ? (sgn ? 16u : 12u) : (sgn ? 8u : 6u), sgn, 0};
                cases.push_back({name(d, pattern), d, random_image(d, rng, pattern)});
            }
    for (uint32_t alloc : {8u, 16u})
        for (uint32_t planar : {0u, 1u})
            for (int pattern : {4, 1}) {
                const pcwt_image_desc d{75, 61, 3, alloc, alloc, 0, planar};
                cases.push_back({name(d, pattern), d, random_image(d, rng, pattern)});
            }
    for (uint32_t sgn : {0u, 1u}) { // noise with bits above bits_stored: high-bit planes
        const pcwt_image_desc d{97, 83, 1, 16, 12, sgn, 0};
        cases.push_back({name(d, 0), d, random_image(d, rng, 0)});
    }
    const pcwt_image_desc sparse{200, 150, 1, 16, 16, 1, 0}; // a value map in the compact profile
    cases.push_back({name(sparse, 3), sparse, random_image(sparse, rng, 3)});
    return cases;
}

// The planes of the codestreams that lift level 1 with 5/11-C, and those that have a level 1.
void count_511(const std::vector<std::vector<uint8_t>> &streams, size_t &f511, size_t &planes)
{
    for (const auto &cs : streams) {
        pcwt_header_info h;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &h), PCWT_OK);
        for (uint32_t p = 0; p < h.plane_count; p++) {
            f511 += h.planes[p].level1_511;
            planes += h.levels > 0;
        }
    }
}

// A second run of the same GPU handle writes the same bytes (the device state of the first run,
// its estimates and decisions, does not leak into the second).
void check_second_run(pcwt_encoder *egpu, const std::vector<GpuCase> &cases,
                      const std::vector<std::vector<uint8_t>> &cpu, const std::string &label)
{
    std::vector<std::vector<uint8_t>> gpu(cases.size());
    std::vector<pcwt_frame_job> jobs(cases.size());
    for (size_t k = 0; k < cases.size(); k++) {
        gpu[k].resize(pcwt_encode_bound(&cases[k].d));
        jobs[k] = {cases[k].d, cases[k].samples.data(), cases[k].samples.size(), gpu[k].data(), gpu[k].size(),
                   0, PCWT_OK};
    }
    ASSERT_EQ(pcwt_encode_batch(egpu, jobs.data(), jobs.size()), PCWT_OK) << label << ": " << pcwt_encoder_last_error(egpu);
    for (size_t k = 0; k < cases.size(); k++) {
        gpu[k].resize(jobs[k].written);
        EXPECT_TRUE(same_codestream(cpu[k], gpu[k])) << cases[k].what << ", " << label << ", second run";
    }
}

} // namespace

TEST(GpuLevel1, SyntheticPlanesMatchCpu)
{
    SKIP_WITHOUT_GPU();
    const std::vector<GpuCase> cases = synthetic_cases();
    std::vector<GpuCase> mixed; // every codestream of the CPU, for one decode batch
    std::vector<std::vector<uint8_t>> mixed_cs;
    for (pcwt_profile prof : {PCWT_PROFILE_ENTROPY, PCWT_PROFILE_COMPACT})
        for (pcwt_lifting_order order : {PCWT_LIFTING_ROWS_FIRST, PCWT_LIFTING_COLUMNS_FIRST})
            for (pcwt_low_bits low : {PCWT_LOW_BITS_AUTO, PCWT_LOW_BITS_ON})
                for (pcwt_level1_filter f : {PCWT_LEVEL1_53, PCWT_LEVEL1_AUTO, PCWT_LEVEL1_511}) {
                    if (low == PCWT_LOW_BITS_ON && (prof == PCWT_PROFILE_COMPACT || f == PCWT_LEVEL1_53))
                        continue;
                    const std::string label = "profile " + std::to_string(prof) + ", " +
                                              (order == PCWT_LIFTING_ROWS_FIRST ? "rows" : "columns") +
                                              " first, low bits " + std::to_string(low) + ", level1-filter " +
                                              std::to_string(f);
                    pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, prof, f, order, low);
                    pcwt_encoder *egpu = encoder(PCWT_BACKEND_GPU, prof, f, order, low);
                    const std::vector<std::vector<uint8_t>> cpu = check_gpu_batch(ecpu, egpu, cases, label);
                    check_second_run(egpu, cases, cpu, label);
                    size_t f511 = 0, planes = 0;
                    count_511(cpu, f511, planes);
                    if (f == PCWT_LEVEL1_53)
                        EXPECT_EQ(f511, 0u) << label;
                    else if (f == PCWT_LEVEL1_511)
                        EXPECT_EQ(f511, planes) << label;
                    else if (low == PCWT_LOW_BITS_AUTO) // smooth planes take it, noisy ones not
                        EXPECT_TRUE(f511 > 0 && f511 < planes) << label << ": " << f511 << " of " << planes;
                    else
                        EXPECT_EQ(f511, 0u) << label << ": auto keeps 5/3 where the low bits are modelled";
                    if (f != PCWT_LEVEL1_53 && low == PCWT_LOW_BITS_AUTO)
                        for (size_t k = 0; k < cases.size(); k += 3) {
                            mixed.push_back({cases[k].what + ", " + label, cases[k].d, cases[k].samples});
                            mixed_cs.push_back(cpu[k]);
                        }
                    pcwt_encoder_destroy(ecpu);
                    pcwt_encoder_destroy(egpu);
                }
    // one GPU decode batch of CPU codestreams with both filters and both lifting orders
    pcwt_decoder *dgpu = test_decoder(PCWT_BACKEND_GPU);
    std::vector<std::vector<uint8_t>> out(mixed.size());
    std::vector<pcwt_decode_job> jobs(mixed.size());
    for (size_t k = 0; k < mixed.size(); k++) {
        out[k].assign(mixed[k].samples.size(), 0xA5);
        jobs[k] = {mixed_cs[k].data(), mixed_cs[k].size(), out[k].data(), out[k].size(), PCWT_OK};
    }
    ASSERT_EQ(pcwt_decode_batch(dgpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
    for (size_t k = 0; k < mixed.size(); k++)
        EXPECT_TRUE(out[k] == mixed[k].samples) << mixed[k].what << ": mixed GPU decode batch";
    pcwt_decoder_destroy(dgpu);
}

// A damaged sample of a 5/11-C plane's expected samples is a mismatch where it lies, and one
// frame through pcwt_encode / pcwt_decode takes the same path.
TEST(GpuLevel1, OneFrameAndVerification)
{
    SKIP_WITHOUT_GPU();
    Rng rng(54);
    const pcwt_image_desc d{131, 97, 1, 16, 16, 1, 0};
    const std::vector<uint8_t> img = random_image(d, rng, 4);
    pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, PCWT_PROFILE_COMPACT, PCWT_LEVEL1_AUTO);
    pcwt_encoder *egpu = encoder(PCWT_BACKEND_GPU, PCWT_PROFILE_COMPACT, PCWT_LEVEL1_AUTO);
    const std::vector<uint8_t> cs = encode_with(ecpu, d, img);
    EXPECT_TRUE(same_codestream(cs, encode_with(egpu, d, img)));
    pcwt_header_info h;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &h), PCWT_OK);
    ASSERT_EQ(h.planes[0].level1_511, 1u) << "the smooth frame takes 5/11-C";
    pcwt_decoder *dgpu = test_decoder(PCWT_BACKEND_GPU);
    std::vector<uint8_t> back(img.size(), 0x5a);
    ASSERT_EQ(pcwt_decode(dgpu, cs.data(), cs.size(), back.data(), back.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
    EXPECT_TRUE(back == img);
    std::vector<uint8_t> changed = img;
    changed[2 * 500] ^= 1;
    pcwt_verify_job v = {cs.data(), cs.size(), changed.data(), changed.size(), 0, PCWT_OK};
    EXPECT_NE(pcwt_verify_batch(dgpu, &v, 1), PCWT_OK);
    EXPECT_EQ(v.first_difference, 1000u); // the first byte that differs
    pcwt_decoder_destroy(dgpu);
    pcwt_encoder_destroy(ecpu);
    pcwt_encoder_destroy(egpu);
}

// Every corpus image (PCWT_GPU_CORPUS, tests/gpu/pack_corpus.sh): the GPU encoder's bytes with
// level1-filter auto and 511 are the CPU's, and the GPU decodes them to the image.
TEST(GpuLevel1, CorpusMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    GPU_CORPUS_OR_SKIP(files);
    pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU), *dgpu = test_decoder(PCWT_BACKEND_GPU);
    size_t taken = 0;
    for (pcwt_level1_filter f : {PCWT_LEVEL1_AUTO, PCWT_LEVEL1_511}) {
        pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, PCWT_PROFILE_COMPACT, f);
        pcwt_encoder *egpu = encoder(PCWT_BACKEND_GPU, PCWT_PROFILE_COMPACT, f);
        for (const std::string &file : files) {
            std::vector<uint8_t> cs, img;
            pcwt_header_info h;
            ASSERT_TRUE(corpus_image(dcpu, file, cs, h, img));
            std::vector<uint8_t> g(img.size(), 0x33);
            const std::vector<uint8_t> want = encode_with(ecpu, h.desc, img);
            const std::vector<uint8_t> got = encode_with(egpu, h.desc, img);
            ASSERT_TRUE(same_codestream(want, got)) << file << ": GPU codestream differs from the CPU's";
            ASSERT_EQ(pcwt_decode(dgpu, got.data(), got.size(), g.data(), g.size()), PCWT_OK)
                << file << ": " << pcwt_decoder_last_error(dgpu);
            ASSERT_TRUE(g == img) << file << ": GPU decode differs";
            size_t planes = 0;
            count_511({want}, taken, planes);
        }
        pcwt_encoder_destroy(ecpu);
        pcwt_encoder_destroy(egpu);
    }
    EXPECT_GT(taken, 0u);
    pcwt_decoder_destroy(dcpu);
    pcwt_decoder_destroy(dgpu);
    std::printf("GPU corpus, level-1 filter auto and 511: %zu codestreams identical on CPU and GPU, "
                "%zu planes with 5/11-C\n", 2 * files.size(), taken);
}
