// The compact profile's modular offset (docs/FORMAT.md Sec. 5.6) with the GPU backend, which
// estimates it on the device: the same bytes as the CPU encoder, offset auto and on, for synthetic
// planes that take it (two's complement under the other signedness, palette-like values, a ramp
// round the wrap whose gap candidate lies away from 0 and 2^(bits-1)) and planes that do not,
// signed and unsigned, 2 to 16 bits, one and three components, beside high-bit planes, with and
// without value maps; the GPU decoder gives back every sample of the CPU's codestreams; damaged
// r0 (its CRC made good) gets the CPU decoder's verdict; every corpus frame (PCWT_GPU_CORPUS)
// likewise. Label gpu; skipped without CUDA or a device.
#include "gpu_test_util.h"
#include "recrc.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {

pcwt_encoder *offset_encoder(pcwt_backend b, pcwt_offset_mode offset, pcwt_value_map_mode map,
                             pcwt_colour_transform ct = PCWT_COLOUR_AUTO)
{
    pcwt_encoder *e = pcwt_encoder_create();
    pcwt_encode_params p;
    pcwt_encode_params_default(&p);
    p.backend = b;
    p.profile = PCWT_PROFILE_COMPACT;
    p.offset = offset;
    p.value_map = map;
    p.colour_transform = ct;
    EXPECT_EQ(pcwt_encoder_set_params(e, &p), PCWT_OK) << pcwt_encoder_last_error(e);
    return e;
}

// Stored values u (0 .. 2^bits - 1) of a frame of d, from f(component, row, column), as words.
template <typename F> std::vector<uint8_t> frame_from(const pcwt_image_desc &d, F f)
{
    std::vector<uint8_t> img(pcwt_image_size(&d));
    const size_t pixels = size_t(d.width) * d.height;
    for (uint32_t c = 0; c < d.components; c++)
        for (uint32_t i = 0; i < d.height; i++)
            for (uint32_t j = 0; j < d.width; j++) {
                const size_t px = size_t(i) * d.width + j;
                const size_t k = d.planar ? c * pixels + px : px * d.components + c;
                store_sample(img, d, k, sample_word(d, f(c, i, j)));
            }
    return img;
}

// The kinds of plane: 0 smooth values about the cut of the header's signedness (two's complement
// read as unsigned, or the other way round: the flip candidate), 1 three palette indices in
// blobs, two low and one high (the gap candidate, where the cut at 2^(bits-1) splits the same
// pairs), 2 a ramp from 3/8 of the range round the wrap to 1/8 (the gap candidate alone: its own
// cost pass), 3 smooth values in the middle of the range (no offset), 4 one value, 5 noise.
std::vector<uint8_t> offset_frame(const pcwt_image_desc &d, int kind, Rng &rng)
{
    const uint32_t bits = d.bits_stored, m = 1u << bits, half = m / 2;
    const uint32_t today = d.is_signed ? half : 0u;
    const uint32_t a = m >= 16 ? m / 8 : 1u;
    return frame_from(d, [&](uint32_t c, uint32_t i, uint32_t j) -> uint32_t {
        switch (kind) {
        case 0: { // a triangle wave of +-a about today's cut
            const uint32_t t = (i + 2 * j + 3 * c) % (4 * a);
            return (today + (t < 2 * a ? t : 4 * a - t) - a) & (m - 1);
        }
        case 1: {
            const uint32_t hi = m >= 32 ? m - 12 : m - 1, which = (i / 5 + j / 7 + c) % 3;
            return which == 0 ? 0u : which == 1 ? 1u : hi;
        }
        case 2: {
            const uint64_t lo = 3 * uint64_t(m) / 8 + 2, span = 6 * uint64_t(m) / 8 - 4;
            return uint32_t((lo + span * j / (d.width > 1 ? d.width - 1 : 1) + (rng.next() & 1)) & (m - 1));
        }
        case 3: return (half / 2 + (i * 3 + j * 5 + c) % (half / 2 + 1) / 2 + (rng.next() & 1)) & (m - 1);
        case 4: return (m / 3 + c) & (m - 1);
        default: return rng.next() & (m - 1);
        }
    });
}

// r0 of plane `plane` of a codestream whose plane has option bit 3.
uint32_t offset_r0(const std::vector<uint8_t> &cs, const pcwt_header_info &h, uint32_t plane)
{
    size_t at = h.header_length;
    for (uint32_t i = 0; i < plane; i++)
        at += size_t(h.planes[i].payload_length);
    return uint32_t(cs[at]) | uint32_t(cs[at + 1]) << 8;
}

struct Taken {
    size_t planes = 0, offsets = 0, gap_only = 0; // gap_only: r0 neither 0 nor 2^(bits-1)
};

// Every case in one GPU batch per value-map mode, held to the CPU's bytes and samples
// (check_gpu_batch); with offset on, every plane that may take it does.
Taken check_offset_cases(const std::vector<GpuCase> &cases, pcwt_offset_mode offset,
                         pcwt_colour_transform ct = PCWT_COLOUR_AUTO)
{
    Taken t;
    for (pcwt_value_map_mode map : {PCWT_VALUE_MAP_AUTO, PCWT_VALUE_MAP_OFF, PCWT_VALUE_MAP_ON}) {
        pcwt_encoder *ecpu = offset_encoder(PCWT_BACKEND_CPU, offset, map, ct);
        pcwt_encoder *egpu = offset_encoder(PCWT_BACKEND_GPU, offset, map, ct);
        const std::string label = std::string("offset ") + (offset == PCWT_OFFSET_ON ? "on" : "auto") +
                                  ", value map " + std::to_string(map);
        const std::vector<std::vector<uint8_t>> cpu = check_gpu_batch(ecpu, egpu, cases, label);
        // without value maps every frame is coded on the device (no notice of a CPU detour; a
        // forced map that may not fit its plane's bound would send its frame to the CPU)
        if (map == PCWT_VALUE_MAP_OFF)
            EXPECT_EQ(std::string(pcwt_encoder_last_error(egpu)).find("CPU"), std::string::npos)
                << label << ": " << pcwt_encoder_last_error(egpu);
        for (size_t k = 0; k < cases.size(); k++) {
            pcwt_header_info h;
            if (cpu[k].empty() || pcwt_read_header(cpu[k].data(), cpu[k].size(), &h) != PCWT_OK) {
                ADD_FAILURE() << cases[k].what << ", " << label << ": no CPU codestream";
                continue;
            }
            for (uint32_t i = 0; i < h.plane_count; i++) {
                const bool allowed = h.planes[i].kind == 0 && !h.colour_transform;
                EXPECT_TRUE(allowed || !h.planes[i].offset) << cases[k].what << ", " << label;
                if (offset == PCWT_OFFSET_ON)
                    EXPECT_EQ(h.planes[i].offset, allowed ? 1u : 0u) << cases[k].what << ", " << label;
                t.planes += allowed;
                if (!h.planes[i].offset)
                    continue;
                t.offsets++;
                const uint32_t r0 = offset_r0(cpu[k], h, i);
                t.gap_only += r0 != 0 && r0 != 1u << (h.desc.bits_stored - 1);
            }
        }
        pcwt_encoder_destroy(ecpu);
        pcwt_encoder_destroy(egpu);
    }
    return t;
}

} // namespace

TEST(GpuOffset, SyntheticPlanesMatchCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(61);
    std::vector<GpuCase> cases;
    for (uint32_t bits : {2u, 5u, 6u, 8u, 12u, 16u})
        for (uint32_t sgn : {0u, 1u}) {
            const uint32_t alloc = bits <= 8 ? 8 : 16;
            const pcwt_image_desc d{45, 37, 1, alloc, bits, sgn, 0};
            for (int kind = 0; kind < 6; kind++)
                cases.push_back({std::to_string(bits) + (sgn ? "s" : "u") + " kind " + std::to_string(kind), d,
                                 offset_frame(d, kind, rng)});
        }
    // thin and tiny planes (the pairs at the edges), larger ones (many blocks a plane)
    for (auto wh : {std::pair<uint32_t, uint32_t>{1, 17}, {17, 1}, {33, 2}, {1, 1}, {300, 257}, {64, 700}})
        for (int kind : {0, 1, 2}) {
            const pcwt_image_desc d{wh.first, wh.second, 1, 16, 16, uint32_t(kind == 1), 0};
            cases.push_back({std::to_string(wh.first) + "x" + std::to_string(wh.second) + " kind " +
                                 std::to_string(kind), d, offset_frame(d, kind, rng)});
        }
    // 12 bits stored in 16 with other bits above: a high-bit plane beside the value plane
    for (uint32_t sgn : {0u, 1u}) {
        const pcwt_image_desc d{40, 30, 1, 16, 12, sgn, 0};
        std::vector<uint8_t> s = offset_frame(d, 0, rng);
        for (size_t i = 1; i < s.size(); i += 2)
            s[i] = uint8_t((s[i] & 0x0F) | ((i % 3) << 4));
        cases.push_back({std::string("high bits ") + (sgn ? "s" : "u"), d, s});
    }
    const Taken automatic = check_offset_cases(cases, PCWT_OFFSET_AUTO);
    const Taken on = check_offset_cases(cases, PCWT_OFFSET_ON);
    EXPECT_GT(automatic.offsets, 30u) << "the flip and gap planes take the offset";
    EXPECT_LT(automatic.offsets, automatic.planes) << "the smooth and constant planes do not";
    EXPECT_GT(automatic.gap_only, 5u) << "the ramps round the wrap take the gap candidate";
    EXPECT_EQ(on.offsets, on.planes);
    std::printf("offset auto: %zu of %zu planes (%zu with r0 neither 0 nor half the range); on: %zu\n",
                automatic.offsets, automatic.planes, automatic.gap_only, on.offsets);
}

TEST(GpuOffset, ThreeComponentsMatchCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(62);
    std::vector<GpuCase> cases;
    for (uint32_t alloc : {8u, 16u})
        for (uint32_t planar : {0u, 1u})
            for (int kind : {0, 1, 2, 3}) {
                const pcwt_image_desc d{40, 30, 3, alloc, alloc, 0, planar};
                cases.push_back({"rgb " + std::to_string(alloc) + "/" + std::to_string(planar) + " kind " +
                                     std::to_string(kind), d, offset_frame(d, kind, rng)});
            }
    // without the colour transform each component's plane may take an offset; with it none
    const Taken none = check_offset_cases(cases, PCWT_OFFSET_AUTO, PCWT_COLOUR_NONE);
    EXPECT_GT(none.offsets, 12u);
    check_offset_cases(cases, PCWT_OFFSET_ON, PCWT_COLOUR_NONE);
    check_offset_cases(cases, PCWT_OFFSET_AUTO, PCWT_COLOUR_RCT);
}

TEST(GpuOffset, DamagedOffsetsGetTheCpuVerdict)
{
    SKIP_WITHOUT_GPU();
    Rng rng(63);
    const pcwt_image_desc d{64, 48, 1, 16, 12, 0, 0};
    const std::vector<uint8_t> f = offset_frame(d, 0, rng);
    std::vector<std::vector<uint8_t>> streams;
    for (pcwt_value_map_mode map : {PCWT_VALUE_MAP_OFF, PCWT_VALUE_MAP_ON}) {
        pcwt_encoder *e = offset_encoder(PCWT_BACKEND_CPU, PCWT_OFFSET_ON, map);
        streams.push_back(encode_with(e, d, f));
        pcwt_encoder_destroy(e);
    }
    pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU), *dgpu = test_decoder(PCWT_BACKEND_GPU);
    int refused = 0, decoded = 0;
    for (const std::vector<uint8_t> &good : streams) {
        pcwt_header_info info;
        ASSERT_EQ(pcwt_read_header(good.data(), good.size(), &info), PCWT_OK);
        ASSERT_EQ(info.planes[0].offset, 1u);
        const size_t at = info.header_length; // r0 starts the payload
        std::vector<std::vector<uint8_t>> bad;
        // r0 changed (another valid r0: other samples, the same on both backends), r0 = 2^12 and
        // above (refused), CRCs made good
        for (uint32_t r0 : {1u, 2047u, 4095u, 4096u, 40000u, 65535u}) {
            std::vector<uint8_t> cs = good;
            cs[at] = uint8_t(r0);
            cs[at + 1] = uint8_t(r0 >> 8);
            fix_crcs(cs, info);
            bad.push_back(cs);
        }
        {   // a payload of one byte: r0 truncated
            std::vector<uint8_t> cs(good.begin(), good.begin() + std::ptrdiff_t(at) + 1);
            pcwt_header_info ti = info;
            ti.planes[0].payload_length = 1;
            pcwt_header_write(&ti, cs.data());
            fix_crcs(cs, ti);
            bad.push_back(cs);
        }
        for (size_t k = 0; k < bad.size(); k++) {
            std::vector<uint8_t> a(f.size(), 1), b(f.size(), 2);
            const pcwt_status sc = pcwt_decode(dcpu, bad[k].data(), bad[k].size(), a.data(), a.size());
            const pcwt_status sg = pcwt_decode(dgpu, bad[k].data(), bad[k].size(), b.data(), b.size());
            EXPECT_EQ(sg, sc) << "case " << k << ": GPU " << pcwt_decoder_last_error(dgpu) << "; CPU "
                              << pcwt_decoder_last_error(dcpu);
            if (sc == PCWT_OK) {
                decoded++;
                EXPECT_TRUE(a == b) << "case " << k;
                continue;
            }
            refused++;
            EXPECT_EQ(sg, PCWT_ERR_CORRUPT) << "case " << k;
            EXPECT_FALSE(std::string(pcwt_decoder_last_error(dgpu)).empty());
            pcwt_verify_job v = {bad[k].data(), bad[k].size(), f.data(), f.size(), 0, PCWT_OK};
            EXPECT_EQ(pcwt_verify_batch(dgpu, &v, 1), PCWT_ERR_CORRUPT) << "case " << k;
        }
        {   // refused in a batch beside good codestreams, which still decode
            std::vector<std::vector<uint8_t>> outs(3, std::vector<uint8_t>(f.size()));
            std::vector<pcwt_decode_job> jobs = {
                {good.data(), good.size(), outs[0].data(), f.size(), PCWT_OK},
                {bad[3].data(), bad[3].size(), outs[1].data(), f.size(), PCWT_OK},
                {good.data(), good.size(), outs[2].data(), f.size(), PCWT_OK}};
            EXPECT_EQ(pcwt_decode_batch(dgpu, jobs.data(), jobs.size()), PCWT_ERR_CORRUPT);
            EXPECT_EQ(jobs[0].status, PCWT_OK);
            EXPECT_EQ(jobs[1].status, PCWT_ERR_CORRUPT);
            EXPECT_EQ(jobs[2].status, PCWT_OK);
            EXPECT_TRUE(outs[0] == f && outs[2] == f);
        }
    }
    EXPECT_GE(refused, 8);
    EXPECT_GE(decoded, 4);
    pcwt_decoder_destroy(dcpu);
    pcwt_decoder_destroy(dgpu);
}

// The GPU decoder reads r0 of a plane with the offset alone (no value map) without any of the
// maps' work: one batch of such planes beside mapped planes with and without an offset, planes
// without either and a damaged r0, every sample the CPU's, the damaged frame alone refused.
TEST(GpuOffset, OffsetOnlyPlanesBesideMappedOnesDecodeAsOnTheCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(64);
    struct Coded {
        pcwt_offset_mode offset;
        pcwt_value_map_mode map;
    };
    const Coded codings[] = {{PCWT_OFFSET_ON, PCWT_VALUE_MAP_OFF}, {PCWT_OFFSET_ON, PCWT_VALUE_MAP_ON},
                             {PCWT_OFFSET_OFF, PCWT_VALUE_MAP_ON}, {PCWT_OFFSET_OFF, PCWT_VALUE_MAP_OFF}};
    std::vector<std::vector<uint8_t>> imgs, streams;
    std::vector<pcwt_image_desc> descs;
    size_t offset_only = 0;
    for (int round = 0; round < 2; round++)
        for (const Coded &c : codings)
            for (int kind : {0, 1, 2}) {
                const pcwt_image_desc d{uint32_t(40 + 13 * kind), uint32_t(30 + 7 * round), 1, 16,
                                        uint32_t(kind == 1 ? 10 : 16), uint32_t(round), 0};
                pcwt_encoder *e = offset_encoder(PCWT_BACKEND_CPU, c.offset, c.map);
                imgs.push_back(offset_frame(d, kind, rng));
                streams.push_back(encode_with(e, d, imgs.back()));
                descs.push_back(d);
                pcwt_encoder_destroy(e);
                pcwt_header_info h;
                ASSERT_EQ(pcwt_read_header(streams.back().data(), streams.back().size(), &h), PCWT_OK);
                EXPECT_EQ(h.planes[0].offset, c.offset == PCWT_OFFSET_ON ? 1u : 0u);
                offset_only += h.planes[0].offset && !h.planes[0].value_map;
            }
    EXPECT_GE(offset_only, 6u);
    // the first offset-only codestream again with r0 = 2^16 - 1 (not below 2^16 for 10 bits: the
    // kind-1 frame), its CRCs made good
    const size_t damaged = 1;
    {
        std::vector<uint8_t> cs = streams[damaged];
        pcwt_header_info h;
        ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &h), PCWT_OK);
        ASSERT_EQ(h.desc.bits_stored, 10u);
        ASSERT_TRUE(h.planes[0].offset && !h.planes[0].value_map);
        cs[h.header_length] = cs[h.header_length + 1] = 0xFF;
        fix_crcs(cs, h);
        streams.push_back(cs);
        descs.push_back(descs[damaged]);
        imgs.push_back(imgs[damaged]);
    }
    pcwt_decoder *dgpu = test_decoder(PCWT_BACKEND_GPU);
    std::vector<std::vector<uint8_t>> outs;
    std::vector<pcwt_decode_job> jobs;
    for (size_t k = 0; k < streams.size(); k++)
        outs.emplace_back(imgs[k].size(), 0x5A);
    for (size_t k = 0; k < streams.size(); k++)
        jobs.push_back({streams[k].data(), streams[k].size(), outs[k].data(), outs[k].size(), PCWT_OK});
    EXPECT_EQ(pcwt_decode_batch(dgpu, jobs.data(), jobs.size()), PCWT_ERR_CORRUPT);
    for (size_t k = 0; k + 1 < streams.size(); k++) {
        EXPECT_EQ(jobs[k].status, PCWT_OK) << "frame " << k;
        EXPECT_TRUE(outs[k] == imgs[k]) << "frame " << k << ": GPU decode differs";
    }
    EXPECT_EQ(jobs.back().status, PCWT_ERR_CORRUPT);
    pcwt_decoder_destroy(dgpu);
}

// Every corpus frame (PCWT_GPU_CORPUS, tests/gpu/pack_corpus.sh): the GPU encoder's bytes with the
// offset auto (a frame a call) and on (the whole corpus in one batch) are the CPU's, and the GPU
// decodes them to the frame; auto takes the offset in some frames (the two's-complement CT labelled
// unsigned, the palette ultrasound).
TEST(GpuOffset, CorpusMatchesCpu)
{
    SKIP_WITHOUT_GPU();
    GPU_CORPUS_OR_SKIP(files);
    pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU), *dgpu = test_decoder(PCWT_BACKEND_GPU);
    std::vector<std::vector<uint8_t>> imgs;
    std::vector<pcwt_image_desc> descs;
    for (const std::string &file : files) {
        std::vector<uint8_t> cs, img;
        pcwt_header_info h;
        ASSERT_TRUE(corpus_image(dcpu, file, cs, h, img));
        imgs.push_back(img);
        descs.push_back(h.desc);
    }
    size_t taken = 0;
    {
        pcwt_encoder *ecpu = offset_encoder(PCWT_BACKEND_CPU, PCWT_OFFSET_AUTO, PCWT_VALUE_MAP_AUTO);
        pcwt_encoder *egpu = offset_encoder(PCWT_BACKEND_GPU, PCWT_OFFSET_AUTO, PCWT_VALUE_MAP_AUTO);
        for (size_t k = 0; k < files.size(); k++) {
            const std::vector<uint8_t> want = encode_with(ecpu, descs[k], imgs[k]);
            const std::vector<uint8_t> got = encode_with(egpu, descs[k], imgs[k]);
            EXPECT_TRUE(same_codestream(want, got)) << files[k] << ": GPU codestream differs from the CPU's";
            std::vector<uint8_t> g(imgs[k].size(), 0x33);
            EXPECT_EQ(pcwt_decode(dgpu, want.data(), want.size(), g.data(), g.size()), PCWT_OK)
                << files[k] << ": " << pcwt_decoder_last_error(dgpu);
            EXPECT_TRUE(g == imgs[k]) << files[k] << ": GPU decode differs";
            pcwt_header_info h;
            if (pcwt_read_header(want.data(), want.size(), &h) != PCWT_OK)
                continue;
            bool any = false;
            for (uint32_t i = 0; i < h.plane_count; i++)
                any |= h.planes[i].offset != 0;
            if (any)
                std::printf("offset auto takes %s\n", files[k].c_str());
            taken += any;
        }
        pcwt_encoder_destroy(ecpu);
        pcwt_encoder_destroy(egpu);
    }
    EXPECT_GE(taken, 1u);
    {
        std::vector<GpuCase> cases;
        for (size_t k = 0; k < files.size(); k++)
            cases.push_back({files[k], descs[k], imgs[k]});
        pcwt_encoder *ecpu = offset_encoder(PCWT_BACKEND_CPU, PCWT_OFFSET_ON, PCWT_VALUE_MAP_AUTO);
        pcwt_encoder *egpu = offset_encoder(PCWT_BACKEND_GPU, PCWT_OFFSET_ON, PCWT_VALUE_MAP_AUTO);
        check_gpu_batch(ecpu, egpu, cases, "corpus, offset on");
        pcwt_encoder_destroy(ecpu);
        pcwt_encoder_destroy(egpu);
    }
    pcwt_decoder_destroy(dcpu);
    pcwt_decoder_destroy(dgpu);
    std::printf("GPU corpus, offset auto (%zu frames take it) and on: %zu codestreams identical on CPU and GPU\n",
                taken, 2 * files.size());
}
