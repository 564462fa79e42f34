// The GPU decoders' path through the shared headers, compiled for the host: rangecoder.h,
// word_window.h and ec_group_coder.h as the device compiles them (__CUDA_ARCH__ defined, the paired
// model layout of cuda/group_coder_ec_decode_gpu.cu, the few CUDA intrinsics they use written out
// below), against the CPU's encoder and decoder on random bands, intact and damaged: the same
// verdict, coefficients and MQDs. The gpu-labelled tests check the device itself; this checks the
// device-only lines of the shared headers in every build, without a GPU.
#include <gtest/gtest.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern "C" {
#include "ec_group_coder.h"
}
#include "random_band.h"
#include "test_util.h"

#include <algorithm>
#include <vector>

namespace dev {

// What the device path uses of CUDA, for the host.
struct int2 {
    int x, y;
};
struct int4 {
    int x, y, z, w;
};
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline unsigned int __ldg(const unsigned int *p)
{
    unsigned int v;
    memcpy(&v, p, 4);
    return v;
}
inline unsigned int __ldca(const unsigned int *p) { return __ldg(p); }
inline int __clz(int x) { return x ? __builtin_clz(static_cast<unsigned int>(x)) : 32; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s)
{
    const uint64_t v = uint64_t(y) << 32 | x;
    unsigned int r = 0;
    for (unsigned int i = 0; i < 4; i++)
        r |= static_cast<unsigned int>((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
    return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int sh)
{
    sh &= 31u;
    return sh ? (hi << sh) | (lo >> (32u - sh)) : hi;
}

#define __CUDA_ARCH__ 900
#define __device__
#define PCWT_RC_GPU_PAIRED_MODELS 1
#undef PCWT_RANGECODER_H
#undef PCWT_WORD_WINDOW_H
#undef PCWT_EC_MODEL_H
#undef PCWT_EC_RECORD_H
#undef PCWT_EC_GROUP_ENCODE_H
#undef PCWT_EC_GROUP_CODER_H
#include "ec_group_coder.h"
#undef PCWT_RC_GPU_PAIRED_MODELS
#undef __device__
#undef __CUDA_ARCH__

} // namespace dev

namespace {

// A decoder's output arrays: the band's coefficients and MQDs (slack after the MQDs: the device
// reads them in aligned words).
struct Out {
    std::vector<int32_t> coef;
    std::vector<int8_t> mqd;
    Out(size_t nc, size_t nm) : coef(nc, 0x5A5A5A5A), mqd(nm + 16, 0x55) {}
};

// One group's two streams in one buffer, aligned as the device needs: bytes before them and slack
// after, in the words it reads.
struct Streams {
    std::vector<uint8_t> buf;
    size_t at, alen, rlen;
    const uint8_t *a() const { return buf.data() + at; }
    const uint8_t *r() const { return buf.data() + at + alen; }
};

Streams encode_group(const RandomBand &rb, const pcwt_ec_span &g, Rng &rng)
{
    const size_t cap = 4096 + 40 * size_t(g.xe - g.gx) * (g.ye - g.gy);
    std::vector<uint8_t> a(cap), r(cap);
    std::vector<pcwt_bit_model> m(PCWT_EC_ALL);
    pcwt_rc_enc e;
    pcwt_bitwriter w;
    pcwt_rc_enc_init(&e, a.data(), cap);
    pcwt_bw_init(&w, r.data());
    pcwt_ec_encode_group(&rb.b, &g, pcwt_ec_init_p[rb.b.cls], m.data(), 1, &e, &w);
    Streams s;
    s.alen = pcwt_rc_enc_finish(&e, a.data());
    s.rlen = size_t(pcwt_bw_flush(&w) - r.data());
    s.at = 4 + rng.below(4); // any byte of a word
    s.buf.assign(s.at + s.alen + s.rlen + 16, 0);
    std::copy(a.begin(), a.begin() + std::ptrdiff_t(s.alen), s.buf.begin() + std::ptrdiff_t(s.at));
    std::copy(r.begin(), r.begin() + std::ptrdiff_t(s.rlen),
              s.buf.begin() + std::ptrdiff_t(s.at + s.alen));
    return s;
}

int decode_cpu(const RandomBand &rb, const pcwt_ec_span &g, const Streams &s, Out &o)
{
    pcwt_ec_band b = rb.b;
    b.coef = o.coef.data();
    b.mqd = o.mqd.data();
    std::vector<pcwt_bit_model> m(PCWT_EC_ALL);
    return pcwt_ec_decode_group(&b, &g, pcwt_ec_init_p[b.cls], m.data(), 1, s.a(), s.alen, s.r(),
                                s.rlen);
}

// As ec_decode does: the models of one of a block's threads, interleaved with the others'.
int decode_device(const RandomBand &rb, const pcwt_ec_span &g, const Streams &s,
                  const std::vector<int8_t> &parent, Out &o, uint32_t lane)
{
    dev::pcwt_ec_band b;
    b.coef = o.coef.data();
    b.mqd = o.mqd.data();
    b.parent = rb.b.parent ? parent.data() : nullptr;
    b.cols = rb.b.cols;
    b.mcols = rb.b.mcols;
    b.pcols = rb.b.pcols;
    b.qmax = rb.b.qmax;
    b.cls = rb.b.cls;
    b.exact = rb.b.exact;
    b.low = rb.b.low;
    const dev::pcwt_ec_span dg{g.gx, g.gy, g.xe, g.ye};
    std::vector<dev::pcwt_bit_model> m(2 * PCWT_RC_GPU_PAIRED_MODELS_AT);
    return dev::pcwt_ec_decode_group(&b, &dg, pcwt_ec_init_p[b.cls], m.data() + lane,
                                     PCWT_RC_GPU_LANES, s.a(), s.alen, s.r(), s.rlen);
}

} // namespace

TEST(EcDevicePath, GroupsDecodeAsOnTheCpuIntactAndDamaged)
{
    Rng rng(31);
    uint64_t groups = 0, damaged_rejected = 0;
    for (int round = 0; round < 150; round++) {
        const RandomBand rb(rng);
        const uint32_t gr = 1 + rng.below(32), gc = 1 + rng.below(32);
        // the parent MQDs with slack (read in aligned words)
        std::vector<int8_t> parent(rb.parent);
        parent.resize(parent.size() + 16, 0);
        for (uint32_t gx = 0; gx < rb.mr; gx += gr)
            for (uint32_t gy = 0; gy < rb.mc; gy += gc) {
                const pcwt_ec_span g{gx, gy, std::min(rb.mr, gx + gr), std::min(rb.mc, gy + gc)};
                Streams s = encode_group(rb, g, rng);
                for (int damage = 0; damage < 3; damage++) {
                    if (damage == 1 && s.alen + s.rlen) { // a flipped bit in either stream
                        const size_t k = rng.below(uint32_t(s.alen + s.rlen));
                        s.buf[s.at + k] ^= uint8_t(1u << rng.below(8));
                    } else if (damage == 2 && s.alen) { // the range-coder stream cut short
                        const size_t cut = 1 + rng.below(uint32_t(s.alen));
                        s.buf.erase(s.buf.begin() + std::ptrdiff_t(s.at + s.alen - cut),
                                    s.buf.begin() + std::ptrdiff_t(s.at + s.alen));
                        s.alen -= cut;
                        s.buf.resize(s.at + s.alen + s.rlen + 16, 0);
                    } else if (damage) {
                        continue;
                    }
                    Out c(rb.coef.size(), rb.mqd.size()), d(rb.coef.size(), rb.mqd.size());
                    const int okc = decode_cpu(rb, g, s, c);
                    const int okd = decode_device(rb, g, s, parent, d, rng.below(PCWT_RC_GPU_LANES));
                    ASSERT_EQ(okc, okd) << "round " << round << " group " << gx << "," << gy
                                        << " damage " << damage;
                    ASSERT_TRUE(c.coef == d.coef) << "round " << round << " damage " << damage;
                    ASSERT_TRUE(c.mqd == d.mqd) << "round " << round << " damage " << damage;
                    if (!damage) {
                        ASSERT_TRUE(okc) << "round " << round;
                        for (uint32_t x = g.gx; x < g.xe; x++)
                            for (uint32_t y = g.gy; y < g.ye; y++) {
                                ASSERT_EQ(d.mqd[size_t(x) * rb.mc + y], rb.mqd[size_t(x) * rb.mc + y]);
                                for (uint32_t k = 0; k < 4; k++) {
                                    const size_t at = size_t(2 * x + k / 2) * rb.b.cols + 2 * y + k % 2;
                                    ASSERT_EQ(d.coef[at], rb.coef[at]);
                                }
                            }
                        groups++;
                    } else {
                        damaged_rejected += !okc;
                    }
                }
            }
    }
    EXPECT_GT(groups, 1000u);
    EXPECT_GT(damaged_rejected, 100u) << "damage reaches the checks";
}
