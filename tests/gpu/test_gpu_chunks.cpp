// test_gpu_chunks.cpp - a batch cut into chunks that overlap on the device (the slots' own compute
// streams, encoder_gpu.cu / decoder_gpu.cu) codes exactly what the CPU codes. The handles'
// gpu-chunks option forces the cut small batches would not get: chunks of uneven sizes, more
// chunks than slots, a frame larger than a chunk, frames that fail among frames that do not.
#include "gpu_test_util.h"

#include <string>
#include <vector>

namespace {

// A GPU encoder of the profile whose batches are cut into `chunks` chunks.
pcwt_encoder *chunked_encoder(pcwt_profile profile, int chunks)
{
    pcwt_encoder *e = test_encoder(PCWT_BACKEND_GPU, profile);
    EXPECT_EQ(pcwt_encoder_set_option(e, PCWT_OPT_GPU_CHUNKS, chunks), PCWT_OK) << pcwt_encoder_last_error(e);
    return e;
}

// Frames of mixed sizes and kinds, a 2000x2500 radiograph among them (larger than most chunks).
std::vector<GpuCase> mixed_frames()
{
    Rng rng(32);
    std::vector<GpuCase> c;
    auto add = [&](const std::string &what, pcwt_image_desc d, int pattern) {
        c.push_back({what, d, random_image(d, rng, pattern)});
    };
    for (int i = 0; i < 3; i++) {
        const pcwt_image_desc d{512, 512, 1, 16, 12, 1, 0};
        c.push_back({"CT slice " + std::to_string(i), d, ct_like(d, rng, 40)});
    }
    add("radiograph 2000x2500 12-bit", {2000, 2500, 1, 16, 12, 0, 0}, 1);
    add("tiny 8-bit 64x48", {64, 48, 1, 8, 8, 0, 0}, 1);
    add("colour 301x207", {301, 207, 3, 8, 8, 0, 0}, 4);
    add("noise 1000x700 16-bit", {1000, 700, 1, 16, 16, 0, 0}, 0);
    add("one row 33x1", {33, 1, 1, 16, 10, 0, 0}, 3);
    for (int i = 3; i < 7; i++) {
        const pcwt_image_desc d{512, 512, 1, 16, 12, 1, 0};
        c.push_back({"CT slice " + std::to_string(i), d, ct_like(d, rng, 200)});
    }
    add("waves 700x900 16/14", {700, 900, 1, 16, 14, 0, 0}, 4);
    return c;
}

class GpuChunks : public ::testing::TestWithParam<pcwt_profile> {};

// The same batch cut into 2, 5 and 11 chunks (the last takes every slot several times): each
// frame the CPU's bytes; decoded and verified in batches cut alike, each frame its samples.
TEST_P(GpuChunks, MixedBatchCutUnevenlyMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    const std::vector<GpuCase> cases = mixed_frames();
    pcwt_encoder *ecpu = test_encoder(PCWT_BACKEND_CPU, GetParam());
    for (int chunks : {2, 5, 11}) {
        pcwt_encoder *egpu = chunked_encoder(GetParam(), chunks);
        check_gpu_batch(ecpu, egpu, cases, std::to_string(chunks) + " chunks");
        pcwt_encoder_destroy(egpu);
    }
    pcwt_encoder_destroy(ecpu);
}

// A chunk a frame, many more chunks than slots, with sizes that grow and shrink along the batch (a
// slot's buffers grow while the other slots' chunks are in flight), twice on the same handles:
// every slot is reused several times through the pipeline's lead, lag and compute window.
TEST_P(GpuChunks, ChunkPerFrameReusesEverySlot)
{
    SKIP_WITHOUT_GPU();
    Rng rng(77);
    std::vector<GpuCase> cases;
    const uint32_t sides[] = {128, 512, 96, 384, 200};
    for (int i = 0; i < 40; i++) {
        const uint32_t w = sides[i % 5], h = sides[(i + 2) % 5];
        const pcwt_image_desc d{w, h, 1, 16, 12, 1, 0};
        cases.push_back({"slice " + std::to_string(i) + " " + std::to_string(w) + "x" + std::to_string(h), d,
                         ct_like(d, rng, 40 + 10 * (i % 7))});
    }
    pcwt_encoder *ecpu = test_encoder(PCWT_BACKEND_CPU, GetParam());
    pcwt_encoder *egpu = chunked_encoder(GetParam(), int(cases.size()));
    for (int round = 0; round < 2; round++)
        check_gpu_batch(ecpu, egpu, cases, "a chunk a frame, round " + std::to_string(round));
    pcwt_encoder_destroy(egpu);
    pcwt_encoder_destroy(ecpu);
}

// Frames that fail among frames that do not, in every chunk: each job gets the CPU batch's status
// (and, where it succeeds, its bytes or samples); the failures are seen as failures.
TEST_P(GpuChunks, FailingFramesKeepTheirStatusPerChunk)
{
    SKIP_WITHOUT_GPU();
    const std::vector<GpuCase> cases = mixed_frames();
    const size_t n = cases.size();
    pcwt_encoder *ecpu = test_encoder(PCWT_BACKEND_CPU, GetParam());
    pcwt_encoder *egpu = chunked_encoder(GetParam(), 6);
    // every third frame gets a destination too small for its codestream
    auto encode_all = [&](pcwt_encoder *e, std::vector<std::vector<uint8_t>> &out, std::vector<pcwt_frame_job> &jobs) {
        out.assign(n, {});
        jobs.resize(n);
        for (size_t k = 0; k < n; k++) {
            out[k].assign(k % 3 == 1 ? 8 : pcwt_encode_bound(&cases[k].d), 0);
            jobs[k] = {cases[k].d, cases[k].samples.data(), cases[k].samples.size(), out[k].data(), out[k].size(),
                       0, PCWT_OK};
        }
        return pcwt_encode_batch(e, jobs.data(), n);
    };
    std::vector<std::vector<uint8_t>> cpu, gpu;
    std::vector<pcwt_frame_job> jc, jg;
    const pcwt_status sc = encode_all(ecpu, cpu, jc), sg = encode_all(egpu, gpu, jg);
    EXPECT_NE(sc, PCWT_OK);
    EXPECT_EQ(sg, sc) << pcwt_encoder_last_error(egpu);
    size_t failed = 0;
    for (size_t k = 0; k < n; k++) {
        EXPECT_EQ(jg[k].status, jc[k].status) << cases[k].what;
        failed += jc[k].status != PCWT_OK;
        if (jc[k].status != PCWT_OK || jg[k].status != PCWT_OK)
            continue;
        cpu[k].resize(jc[k].written);
        gpu[k].resize(jg[k].written);
        EXPECT_TRUE(same_codestream(cpu[k], gpu[k])) << cases[k].what;
    }
    EXPECT_EQ(failed, (n + 1) / 3) << "the too small destinations should fail";

    // Decode: the good codestreams, one cut short, one with a payload byte changed (its CRC
    // fails on the device), one into a destination too small. Each job the CPU's status (the
    // changed byte: a checksum mismatch or, where a range decoder meets it first, a corrupt
    // codestream, as the one-frame path says), the samples of the others the CPU's.
    std::vector<std::vector<uint8_t>> streams;
    for (size_t k = 0; k < n; k++)
        if (jc[k].status == PCWT_OK) {
            std::vector<uint8_t> s = cpu[k];
            s.resize(jc[k].written);
            streams.push_back(s);
        }
    ASSERT_GE(streams.size(), 5u);
    streams[1].resize(streams[1].size() / 2);
    streams[3][streams[3].size() / 2] ^= 0x20;
    auto decode_all = [&](pcwt_decoder *d, std::vector<std::vector<uint8_t>> &out, std::vector<pcwt_decode_job> &dj) {
        out.assign(streams.size(), {});
        dj.resize(streams.size());
        for (size_t k = 0; k < streams.size(); k++) {
            pcwt_header_info h;
            EXPECT_EQ(pcwt_read_header(streams[k].data(), streams[k].size(), &h), PCWT_OK);
            out[k].assign(pcwt_image_size(&h.desc) - (k == 4 ? 2 : 0), 0x5A);
            dj[k] = {streams[k].data(), streams[k].size(), out[k].data(), out[k].size(), PCWT_OK};
        }
        return pcwt_decode_batch(d, dj.data(), dj.size());
    };
    pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU), *dgpu = test_decoder(PCWT_BACKEND_GPU);
    ASSERT_EQ(pcwt_decoder_set_option(dgpu, PCWT_OPT_GPU_CHUNKS, 6), PCWT_OK);
    std::vector<std::vector<uint8_t>> bc, bg;
    std::vector<pcwt_decode_job> dc, dg;
    const pcwt_status tc = decode_all(dcpu, bc, dc), tg = decode_all(dgpu, bg, dg);
    EXPECT_NE(tc, PCWT_OK);
    EXPECT_NE(tg, PCWT_OK);
    for (size_t k = 0; k < streams.size(); k++) {
        EXPECT_EQ(dc[k].status == PCWT_OK, k != 1 && k != 3 && k != 4) << "codestream " << k;
        if (k == 3)
            EXPECT_TRUE(dg[k].status == PCWT_ERR_CRC_MISMATCH || dg[k].status == PCWT_ERR_CORRUPT)
                << "codestream 3: " << pcwt_status_string(dg[k].status);
        else
            EXPECT_EQ(dg[k].status, dc[k].status) << "codestream " << k;
        if (dc[k].status == PCWT_OK && dg[k].status == PCWT_OK)
            EXPECT_TRUE(bg[k] == bc[k]) << "codestream " << k << ": GPU samples differ";
    }
    pcwt_decoder_destroy(dgpu);
    pcwt_decoder_destroy(dcpu);
    pcwt_encoder_destroy(egpu);
    pcwt_encoder_destroy(ecpu);
}

// The packed corpus (PCWT_GPU_CORPUS) as one batch cut into seven chunks, with the library's
// default options: every frame the CPU's bytes, decoded and verified alike.
TEST(GpuChunksCorpus, CorpusAsOneBatchInSevenChunks)
{
    SKIP_WITHOUT_GPU();
    GPU_CORPUS_OR_SKIP(files);
    pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU);
    std::vector<GpuCase> cases;
    for (const std::string &f : files) {
        std::vector<uint8_t> cs, img;
        pcwt_header_info h;
        ASSERT_TRUE(corpus_image(dcpu, f, cs, h, img));
        cases.push_back({f, h.desc, img});
    }
    pcwt_decoder_destroy(dcpu);
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    pcwt_encoder *ecpu = test_encoder(PCWT_BACKEND_CPU, p.profile), *egpu = chunked_encoder(p.profile, 7);
    check_gpu_batch(ecpu, egpu, cases, "corpus in 7 chunks");
    std::printf("GPU corpus batch: %zu frames in 7 chunks identical to the CPU's\n", cases.size());
    pcwt_encoder_destroy(egpu);
    pcwt_encoder_destroy(ecpu);
}

PCWT_INSTANTIATE_PROFILES(GpuChunks);

} // namespace
