// The compact profile (value maps, docs/FORMAT.md Sec. 5.5) with the GPU backend, which builds the
// maps on the device: the same bytes as the CPU encoder for frames with and without maps in one
// batch, and for synthetic planes with 1, 2, sparse, dense and 65536 distinct values, signed and
// unsigned, 8 and 16 bits, RGB and high-bit planes, in every value-map mode; the GPU decoder and
// pcwt_verify_batch give back every sample of the CPU's codestreams; damaged maps (their CRCs made
// good again) get the CPU decoder's verdict. Label gpu; skipped without CUDA or a device.
#include "gpu_test_util.h"
#include "recrc.h"

#include <string>
#include <vector>

namespace {

pcwt_encoder *encoder(pcwt_backend b, pcwt_value_map_mode mode)
{
    return test_encoder(b, PCWT_PROFILE_COMPACT, &mode);
}

// 16-bit words of a frame: a smooth ramp over `step`-spaced values (sparse when step > 1), signed.
std::vector<uint8_t> frame(const pcwt_image_desc &d, int step, Rng &rng)
{
    std::vector<uint8_t> out(size_t(d.width) * d.height * 2);
    for (uint32_t y = 0; y < d.height; y++)
        for (uint32_t x = 0; x < d.width; x++) {
            const int v = ((int(x) * 3 + int(y) * 2 + int(rng.next() % 5)) % 900 - 450) * step;
            const size_t i = size_t(y) * d.width + x;
            out[2 * i] = uint8_t(v);
            out[2 * i + 1] = uint8_t(v >> 8);
        }
    return out;
}

} // namespace

TEST(GpuCompact, SameBytesAsTheCpuAndDecodedOnEitherBackend)
{
    SKIP_WITHOUT_GPU();
    Rng rng(41);
    const pcwt_image_desc d{96, 80, 1, 16, 16, 1, 0};
    std::vector<std::vector<uint8_t>> frames;
    for (int step : {1, 4, 1, 9}) // dense (no map) and sparse (mapped) frames alternating
        frames.push_back(frame(d, step, rng));
    for (pcwt_value_map_mode mode : {PCWT_VALUE_MAP_AUTO, PCWT_VALUE_MAP_OFF, PCWT_VALUE_MAP_ON}) {
        pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, mode), *egpu = encoder(PCWT_BACKEND_GPU, mode);
        std::vector<std::vector<uint8_t>> cpu, gpu(frames.size());
        for (const auto &f : frames)
            cpu.push_back(encode_with(ecpu, d, f));
        std::vector<pcwt_frame_job> jobs(frames.size());
        for (size_t k = 0; k < frames.size(); k++) {
            gpu[k].resize(pcwt_encode_bound(&d));
            jobs[k] = {d, frames[k].data(), frames[k].size(), gpu[k].data(), gpu[k].size(), 0, PCWT_OK};
        }
        ASSERT_EQ(pcwt_encode_batch(egpu, jobs.data(), jobs.size()), PCWT_OK) << pcwt_encoder_last_error(egpu);
        size_t mapped = 0;
        for (size_t k = 0; k < frames.size(); k++) {
            gpu[k].resize(jobs[k].written);
            EXPECT_TRUE(same_codestream(cpu[k], gpu[k])) << "mode " << mode << " frame " << k;
            pcwt_header_info info;
            ASSERT_EQ(pcwt_read_header(cpu[k].data(), cpu[k].size(), &info), PCWT_OK);
            mapped += info.planes[0].value_map;
        }
        EXPECT_EQ(mapped, mode == PCWT_VALUE_MAP_OFF ? 0u : mode == PCWT_VALUE_MAP_ON ? 4u : 2u);
        // every frame coded on the device: no notice of a CPU detour
        EXPECT_EQ(std::string(pcwt_encoder_last_error(egpu)).find("CPU"), std::string::npos)
            << pcwt_encoder_last_error(egpu);
        // Decoded in one batch by the GPU backend, and verified against the originals.
        pcwt_decoder *dgpu = test_decoder(PCWT_BACKEND_GPU);
        std::vector<std::vector<uint8_t>> out(frames.size(), std::vector<uint8_t>(frames[0].size()));
        std::vector<pcwt_decode_job> dj(frames.size());
        std::vector<pcwt_verify_job> vj(frames.size());
        for (size_t k = 0; k < frames.size(); k++) {
            dj[k] = {cpu[k].data(), cpu[k].size(), out[k].data(), out[k].size(), PCWT_OK};
            vj[k] = {cpu[k].data(), cpu[k].size(), frames[k].data(), frames[k].size(), 0, PCWT_OK};
        }
        ASSERT_EQ(pcwt_decode_batch(dgpu, dj.data(), dj.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
        for (size_t k = 0; k < frames.size(); k++)
            EXPECT_TRUE(out[k] == frames[k]) << "mode " << mode << " frame " << k;
        EXPECT_EQ(pcwt_verify_batch(dgpu, vj.data(), vj.size()), PCWT_OK) << pcwt_decoder_last_error(dgpu);
        // A sample changed in the expected frame of a mapped codestream is a mismatch.
        if (mapped) {
            std::vector<uint8_t> changed = frames[1];
            changed[100] ^= 1;
            pcwt_verify_job one = {cpu[1].data(), cpu[1].size(), changed.data(), changed.size(), 0, PCWT_OK};
            EXPECT_EQ(pcwt_verify_batch(dgpu, &one, 1), PCWT_ERR_MISMATCH);
            EXPECT_EQ(one.first_difference, 100u);
        }
        pcwt_decoder_destroy(dgpu);
        pcwt_encoder_destroy(ecpu);
        pcwt_encoder_destroy(egpu);
    }
}

TEST(GpuCompact, DamagedMapRefusedByTheGpuBackend)
{
    SKIP_WITHOUT_GPU();
    Rng rng(42);
    const pcwt_image_desc d{64, 48, 1, 16, 16, 1, 0};
    const std::vector<uint8_t> f = frame(d, 5, rng);
    pcwt_encoder *e = encoder(PCWT_BACKEND_CPU, PCWT_VALUE_MAP_ON);
    std::vector<uint8_t> cs = encode_with(e, d, f);
    pcwt_encoder_destroy(e);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(cs.data(), cs.size(), &info), PCWT_OK);
    ASSERT_EQ(info.planes[0].value_map, 1u);
    cs[info.header_length] = 0; // a map of 0 values (the payload CRC then differs as well)
    pcwt_decoder *dgpu = test_decoder(PCWT_BACKEND_GPU);
    std::vector<uint8_t> out(f.size());
    EXPECT_NE(pcwt_decode(dgpu, cs.data(), cs.size(), out.data(), out.size()), PCWT_OK);
    EXPECT_FALSE(std::string(pcwt_decoder_last_error(dgpu)).empty());
    pcwt_decoder_destroy(dgpu);
}

namespace {

// Words of a frame whose values come from `values` (each at least once, then a ramp over the list
// with noise, so that neighbours tend to have neighbouring ranks), masked to the words' size.
std::vector<uint8_t> frame_of(const pcwt_image_desc &d, const std::vector<int32_t> &values, Rng &rng)
{
    const size_t n = size_t(d.width) * d.height * d.components;
    std::vector<uint8_t> out(n * (d.bits_allocated / 8));
    for (size_t i = 0; i < n; i++) {
        const size_t px = i / d.components, x = px % d.width, y = px / d.width;
        const size_t k = i < values.size() ? i : (x * 7 + y * 3 + rng.next() % 5) % values.size();
        const uint32_t w = uint32_t(values[k]);
        if (d.bits_allocated == 16) {
            out[2 * i] = uint8_t(w);
            out[2 * i + 1] = uint8_t(w >> 8);
        } else {
            out[i] = uint8_t(w);
        }
    }
    return out;
}

std::vector<int32_t> range_values(int32_t lo, int32_t hi, int32_t step)
{
    std::vector<int32_t> v;
    for (int64_t x = lo; x <= hi; x += step)
        v.push_back(int32_t(x));
    return v;
}

// Every case in one GPU batch per mode, held to the CPU's bytes and samples (check_gpu_batch).
// Returns how many planes of the cases the CPU mapped in automatic mode.
size_t check_cases(const std::vector<GpuCase> &cases)
{
    size_t auto_mapped = 0;
    for (pcwt_value_map_mode mode : {PCWT_VALUE_MAP_AUTO, PCWT_VALUE_MAP_ON, PCWT_VALUE_MAP_OFF}) {
        pcwt_encoder *ecpu = encoder(PCWT_BACKEND_CPU, mode), *egpu = encoder(PCWT_BACKEND_GPU, mode);
        const std::vector<std::vector<uint8_t>> cpu =
            check_gpu_batch(ecpu, egpu, cases, "mode " + std::to_string(mode));
        for (size_t k = 0; k < cases.size(); k++) {
            pcwt_header_info info;
            EXPECT_EQ(pcwt_read_header(cpu[k].data(), cpu[k].size(), &info), PCWT_OK) << cases[k].what;
            for (uint32_t i = 0; i < info.plane_count; i++) {
                if (mode == PCWT_VALUE_MAP_AUTO)
                    auto_mapped += info.planes[i].value_map;
                if (mode != PCWT_VALUE_MAP_AUTO)
                    EXPECT_EQ(info.planes[i].value_map, mode == PCWT_VALUE_MAP_ON ? 1u : 0u) << cases[k].what;
            }
        }
        pcwt_encoder_destroy(ecpu);
        pcwt_encoder_destroy(egpu);
    }
    return auto_mapped;
}

} // namespace

TEST(GpuCompact, SyntheticSetsMatchCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(43);
    std::vector<GpuCase> cases;
    for (uint32_t bits : {2u, 8u, 12u, 16u})
        for (uint32_t sgn : {0u, 1u}) {
            const uint32_t alloc = bits <= 8 ? 8 : 16;
            const pcwt_image_desc d{45, 37, 1, alloc, bits, sgn, 0};
            const int32_t lo = sgn ? -(1 << (bits - 1)) : 0, hi = sgn ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
            // one value, two (the extremes), sparse (every 3rd), dense (the whole range), and a
            // padding value far below a dense run (CT)
            std::vector<int32_t> padded = range_values(lo + (hi - lo) / 2, hi, 1);
            padded.insert(padded.begin(), lo);
            const std::vector<std::vector<int32_t>> sets = {
                {lo + (hi - lo) / 3}, {lo, hi}, range_values(lo, hi, 3), range_values(lo, hi, 1), padded};
            for (size_t k = 0; k < sets.size(); k++)
                cases.push_back({std::to_string(bits) + (sgn ? "s" : "u") + " set " + std::to_string(k), d,
                                 frame_of(d, sets[k], rng)});
        }
    EXPECT_GT(check_cases(cases), 8u) << "the constant and sparse planes are mapped";
}

TEST(GpuCompact, SixtyFiveThousandValuesMatchCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(44);
    std::vector<GpuCase> cases;
    for (uint32_t sgn : {0u, 1u}) {
        const pcwt_image_desc d{300, 256, 1, 16, 16, sgn, 0};
        const int32_t lo = sgn ? -32768 : 0;
        cases.push_back({std::string("65536 values ") + (sgn ? "s" : "u"), d,
                         frame_of(d, range_values(lo, lo + 65535, 1), rng)});
        cases.push_back({std::string("32768 even values ") + (sgn ? "s" : "u"), d,
                         frame_of(d, range_values(lo, lo + 65534, 2), rng)});
    }
    // a larger frame with a sparse set, so that a map runs to many range-coder bytes
    const pcwt_image_desc big{1024, 768, 1, 16, 16, 0, 0};
    cases.push_back({"1024x768 every 7th value", big, frame_of(big, range_values(3, 65535, 7), rng)});
    EXPECT_GE(check_cases(cases), 3u);
}

TEST(GpuCompact, ColourAndHighBitPlanesMatchCpu)
{
    SKIP_WITHOUT_GPU();
    Rng rng(45);
    std::vector<GpuCase> cases;
    for (uint32_t alloc : {8u, 16u})
        for (uint32_t planar : {0u, 1u}) {
            // RGB with the colour transform: the maps are the transformed planes'
            const pcwt_image_desc d{40, 30, 3, alloc, alloc, 0, planar};
            const int32_t top = alloc == 8 ? 255 : 65535;
            cases.push_back({"rgb sparse " + std::to_string(alloc) + "/" + std::to_string(planar), d,
                             frame_of(d, range_values(0, top, 5), rng)});
            cases.push_back({"rgb dense " + std::to_string(alloc) + "/" + std::to_string(planar), d,
                             frame_of(d, range_values(10, 200, 1), rng)});
        }
    // 12 bits stored in 16 with other bits above: a high-bit plane beside the value plane, signed
    // and unsigned
    for (uint32_t sgn : {0u, 1u}) {
        const pcwt_image_desc d{33, 20, 1, 16, 12, sgn, 0};
        std::vector<uint8_t> s = frame_of(d, range_values(sgn ? -2048 : 0, sgn ? 2047 : 4095, 4), rng);
        for (size_t i = 1; i < s.size(); i += 2)
            s[i] = uint8_t((s[i] & 0x0F) | ((i % 3) << 4)); // the words' top nibble: 0, 1 or 2
        cases.push_back({std::string("high bits ") + (sgn ? "s" : "u"), d, s});
    }
    const pcwt_image_desc d8{50, 40, 1, 8, 6, 0, 0};
    std::vector<uint8_t> s8 = frame_of(d8, range_values(0, 63, 2), rng);
    for (size_t i = 0; i < s8.size(); i += 5)
        s8[i] = uint8_t(s8[i] | 0x80);
    cases.push_back({"8-bit high bits", d8, s8});
    EXPECT_GE(check_cases(cases), 4u);
}

TEST(GpuCompact, DamagedMapsGetTheCpuVerdict)
{
    SKIP_WITHOUT_GPU();
    Rng rng(46);
    const pcwt_image_desc d{64, 48, 1, 16, 12, 1, 0};
    std::vector<int32_t> vals = range_values(-2000, 2000, 5);
    vals.insert(vals.begin(), -2048);
    const std::vector<uint8_t> f = frame_of(d, vals, rng);
    pcwt_encoder *e = encoder(PCWT_BACKEND_CPU, PCWT_VALUE_MAP_ON);
    const std::vector<uint8_t> good = encode_with(e, d, f);
    pcwt_encoder_destroy(e);
    pcwt_header_info info;
    ASSERT_EQ(pcwt_read_header(good.data(), good.size(), &info), PCWT_OK);
    ASSERT_EQ(info.planes[0].value_map, 1u);
    const size_t at = info.header_length; // the map starts the payload
    std::vector<std::vector<uint8_t>> bad;
    // each of the map's first bytes damaged in turn (header and stream), CRCs made good
    for (size_t i = at; i < at + 24 && i < good.size(); i++)
        for (uint8_t x : {uint8_t(0x24), uint8_t(0x81)}) {
            std::vector<uint8_t> cs = good;
            cs[i] ^= x;
            fix_crcs(cs, info);
            bad.push_back(cs);
        }
    {   // a count larger than the plane's samples (3072)
        ASSERT_GE(good[at], 0x80);
        ASSERT_LT(good[at + 1], 0x80);
        std::vector<uint8_t> big(good.begin(), good.begin() + std::ptrdiff_t(at));
        const uint8_t count[] = {0x80, 0x80, 0x01}; // 16384 values
        big.insert(big.end(), count, count + 3);
        big.insert(big.end(), good.begin() + std::ptrdiff_t(at) + 2, good.end());
        pcwt_header_info bi = info;
        bi.planes[0].payload_length += 1;
        pcwt_header_write(&bi, big.data());
        fix_crcs(big, bi);
        bad.push_back(big);
    }
    {   // a map of one value: the decoded ranks fall outside it
        std::vector<uint8_t> one(good.begin(), good.begin() + std::ptrdiff_t(at));
        size_t pos = at;
        auto leb = [&](size_t &p) {
            uint32_t v = 0;
            for (int sh = 0;; sh += 7) {
                const uint8_t b = good[p++];
                v |= uint32_t(b & 0x7F) << sh;
                if (!(b & 0x80))
                    return v;
            }
        };
        leb(pos);
        const size_t zpos = pos;
        leb(pos);
        const size_t apos = pos;
        const uint32_t alen = leb(pos);
        one.push_back(1);
        one.insert(one.end(), good.begin() + std::ptrdiff_t(zpos), good.begin() + std::ptrdiff_t(apos));
        one.push_back(0);
        one.insert(one.end(), good.begin() + std::ptrdiff_t(pos + alen), good.end());
        pcwt_header_info oi = info;
        oi.planes[0].payload_length -= (pos + alen - at) - (1 + (apos - zpos) + 1);
        pcwt_header_write(&oi, one.data());
        fix_crcs(one, oi);
        bad.push_back(one);
    }
    pcwt_decoder *dcpu = test_decoder(PCWT_BACKEND_CPU), *dgpu = test_decoder(PCWT_BACKEND_GPU);
    int refused = 0;
    for (size_t k = 0; k < bad.size(); k++) {
        std::vector<uint8_t> a(f.size()), b(f.size());
        const pcwt_status sc = pcwt_decode(dcpu, bad[k].data(), bad[k].size(), a.data(), a.size());
        const pcwt_status sg = pcwt_decode(dgpu, bad[k].data(), bad[k].size(), b.data(), b.size());
        EXPECT_EQ(sg, sc) << "case " << k << ": GPU " << pcwt_decoder_last_error(dgpu) << "; CPU "
                          << pcwt_decoder_last_error(dcpu);
        if (sc == PCWT_OK) {
            EXPECT_TRUE(a == b) << "case " << k;
            continue;
        }
        refused++;
        EXPECT_EQ(sg, PCWT_ERR_CORRUPT) << "case " << k;
        EXPECT_FALSE(std::string(pcwt_decoder_last_error(dgpu)).empty());
        // the verify path (the archive tools') refuses it too
        pcwt_verify_job v = {bad[k].data(), bad[k].size(), f.data(), f.size(), 0, PCWT_OK};
        EXPECT_EQ(pcwt_verify_batch(dgpu, &v, 1), PCWT_ERR_CORRUPT) << "case " << k;
    }
    EXPECT_GE(refused, 3);
    {   // a damaged map whose CRC is left as it was: the checksum is the verdict on both backends
        std::vector<uint8_t> cs = good, a(f.size()), b(f.size());
        cs[at + 1] ^= 0x40;
        EXPECT_EQ(pcwt_decode(dcpu, cs.data(), cs.size(), a.data(), a.size()), PCWT_ERR_CRC_MISMATCH);
        EXPECT_EQ(pcwt_decode(dgpu, cs.data(), cs.size(), b.data(), b.size()), PCWT_ERR_CRC_MISMATCH)
            << pcwt_decoder_last_error(dgpu);
    }
    // refused in a batch beside good codestreams, which still decode
    std::vector<std::vector<uint8_t>> outs(3, std::vector<uint8_t>(f.size()));
    std::vector<pcwt_decode_job> jobs = {{good.data(), good.size(), outs[0].data(), f.size(), PCWT_OK},
                                         {bad.back().data(), bad.back().size(), outs[1].data(), f.size(), PCWT_OK},
                                         {good.data(), good.size(), outs[2].data(), f.size(), PCWT_OK}};
    EXPECT_EQ(pcwt_decode_batch(dgpu, jobs.data(), jobs.size()), PCWT_ERR_CORRUPT);
    EXPECT_EQ(jobs[0].status, PCWT_OK);
    EXPECT_EQ(jobs[1].status, PCWT_ERR_CORRUPT);
    EXPECT_EQ(jobs[2].status, PCWT_OK);
    EXPECT_TRUE(outs[0] == f && outs[2] == f);
    pcwt_decoder_destroy(dcpu);
    pcwt_decoder_destroy(dgpu);
}
