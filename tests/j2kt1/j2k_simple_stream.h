// A minimal tier-2 reader for the tier-1 tests (see j2k_opj_util.h for what it accepts) and the
// reference reconstruction after tier-1: inverse 5/3 DWT (T.800 F.3, rows then columns), inverse
// RCT (G.2), DC level shift and OpenJPEG's clamp to the precision's range.
#ifndef PCWT_TESTS_J2K_SIMPLE_STREAM_H
#define PCWT_TESTS_J2K_SIMPLE_STREAM_H

#include "j2k_batch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace j2kt1 {

// One or more frames as a batch: the vectors own what the batch points to.
struct Batch {
    std::vector<uint8_t> data;
    std::vector<pcwt_j2k_seg> segs;
    std::vector<pcwt_j2k_cblk> cblks;
    std::vector<pcwt_j2k_tilecomp> tcs;
    std::vector<pcwt_j2k_frame> frames;
    uint64_t coefs = 0;
    pcwt_j2k_batch view()
    {
        return pcwt_j2k_batch{data.data(), data.size(), segs.data(), segs.size(), cblks.data(),
                              cblks.size(), tcs.data(), tcs.size(), frames.data(), frames.size(), coefs};
    }
};

// Packet-header bits (B.10.1): after a 0xFF byte only 7 bits.
struct HeaderBits {
    const std::vector<uint8_t> &d;
    size_t pos;
    uint32_t buf = 0, ct = 0;
    bool over = false;
    uint32_t bit()
    {
        if (ct == 0) {
            buf = (buf << 8) & 0xFFFF;
            ct = buf == 0xFF00 ? 7 : 8;
            if (pos < d.size())
                buf |= d[pos++];
            else
                over = true;
        }
        --ct;
        return (buf >> ct) & 1;
    }
    uint32_t bits(uint32_t n)
    {
        uint32_t v = 0;
        while (n--)
            v = (v << 1) | bit();
        return v;
    }
    void align()
    {
        if ((buf & 0xFF) == 0xFF)
            pos++;
        ct = 0;
    }
};

inline uint32_t floorLog2(uint32_t v)
{
    uint32_t l = 0;
    while (v >>= 1)
        ++l;
    return l;
}

// Appends one frame of `cs` to b; "" or why it cannot.
inline std::string addFrame(Batch &b, const std::vector<uint8_t> &cs)
{
    auto u16 = [&](size_t p) { return uint32_t(cs[p] << 8 | cs[p + 1]); };
    auto u32 = [&](size_t p) { return u16(p) << 16 | u16(p + 2); };
    if (cs.size() < 4 || u16(0) != 0xFF4F)
        return "no SOC";
    uint32_t W = 0, H = 0, C = 0, prec = 0, sgn = 0, levels = 0, cbw = 0, cbh = 0, style = 0, mct = 0, guard = 0;
    std::vector<uint32_t> expn;
    size_t p = 2;
    while (p + 4 <= cs.size() && u16(p) != 0xFF90) {
        const uint32_t m = u16(p), len = u16(p + 2);
        const size_t q = p + 4;
        if (m == 0xFF51) {
            W = u32(q + 2);
            H = u32(q + 6);
            C = u16(q + 34);
            prec = (cs[q + 36] & 0x7F) + 1u;
            sgn = cs[q + 36] >> 7;
        } else if (m == 0xFF52) {
            if (cs[q] != 0 || cs[q + 1] != 0 || u16(q + 2) != 1)
                return "only LRCP, one layer, no SOP/EPH";
            mct = cs[q + 4];
            levels = cs[q + 5];
            cbw = 1u << (cs[q + 6] + 2);
            cbh = 1u << (cs[q + 7] + 2);
            style = cs[q + 8];
            if (cs[q + 9] != 1)
                return "not reversible";
        } else if (m == 0xFF5C) {
            guard = cs[q] >> 5;
            for (size_t i = q + 1; i < p + 2 + len; ++i)
                expn.push_back(cs[i] >> 3);
        } else if (m == 0xFF53 || m == 0xFF5D) {
            return "COC/QCC";
        }
        p += 2 + len;
    }
    if (p + 12 > cs.size() || expn.size() != 3 * levels + 1)
        return "header";
    p += 12; // SOT
    while (p + 2 <= cs.size() && u16(p) != 0xFF93)
        p += 2 + u16(p + 2);
    p += 2; // SOD
    pcwt_j2k_frame f{};
    f.tc_first = uint32_t(b.tcs.size());
    f.components = C;
    f.rct = mct;
    f.precision = prec;
    f.is_signed = sgn;
    f.cblk_first = uint32_t(b.cblks.size());
    for (uint32_t c = 0; c < C; ++c) {
        b.tcs.push_back(pcwt_j2k_tilecomp{b.coefs, W, H, levels});
        b.coefs += uint64_t(W) * H;
    }
    for (uint32_t r = 0; r <= levels; ++r) {
        for (uint32_t c = 0; c < C; ++c) {
            const pcwt_j2k_tilecomp &tc = b.tcs[f.tc_first + c];
            HeaderBits hb{cs, p};
            const uint32_t nonempty = hb.bit();
            const uint32_t d = r == 0 ? levels : levels - r + 1; // level of this resolution's bands
            const uint32_t lw = (W + (1u << d) - 1) >> d, lh = (H + (1u << d) - 1) >> d;
            const uint32_t pw = (W + (1u << (d - (r ? 1 : 0))) - 1) >> (d - (r ? 1 : 0));
            const uint32_t ph = (H + (1u << (d - (r ? 1 : 0))) - 1) >> (d - (r ? 1 : 0));
            std::vector<size_t> mine;
            for (uint32_t band = r ? 1 : 0; band <= (r ? 3u : 0u); ++band) {
                pcwt_j2k_cblk cb{};
                const uint32_t x0 = (band & 1) ? lw : 0, y0 = (band & 2) ? lh : 0;
                const uint32_t bw = (band & 1) ? pw - lw : lw, bh = (band & 2) ? ph - lh : lh;
                if (bw == 0 || bh == 0)
                    continue;
                if (bw > cbw || bh > cbh)
                    return "a sub-band of more than one code-block";
                cb.out_offset = tc.coef_offset + uint64_t(y0) * W + x0;
                cb.out_stride = W;
                cb.width = uint16_t(bw);
                cb.height = uint16_t(bh);
                cb.orientation = uint8_t(band);
                cb.mb = uint8_t(guard + expn[r == 0 ? 0 : 3 * (r - 1) + band] - 1);
                cb.style = uint8_t(style);
                cb.seg_first = uint32_t(b.segs.size());
                if (nonempty && hb.bit()) {
                    uint32_t zb = 0;
                    while (!hb.bit())
                        ++zb;
                    cb.zero_msbs = uint8_t(zb);
                    uint32_t n;
                    if (!hb.bit())
                        n = 1;
                    else if (!hb.bit())
                        n = 2;
                    else if ((n = hb.bits(2)) != 3)
                        n += 3;
                    else if ((n = hb.bits(5)) != 31)
                        n += 6;
                    else
                        n = 37 + hb.bits(7);
                    cb.passes = n;
                    uint32_t lblock = 3;
                    while (hb.bit())
                        ++lblock;
                    // segments as OpenJPEG splits them (t2.c opj_t2_init_seg)
                    uint32_t left = n, maxp = 0;
                    bool first = true;
                    while (left) {
                        if (style & PCWT_J2K_STYLE_TERMALL)
                            maxp = 1;
                        else if (style & PCWT_J2K_STYLE_BYPASS)
                            maxp = first ? 10 : (maxp == 1 || maxp == 10) ? 2 : 1;
                        else
                            maxp = 109;
                        first = false;
                        const uint32_t sp = left < maxp ? left : maxp;
                        pcwt_j2k_seg s{0, hb.bits(lblock + floorLog2(sp)), sp};
                        b.segs.push_back(s);
                        ++cb.seg_count;
                        left -= sp;
                    }
                }
                mine.push_back(b.cblks.size());
                b.cblks.push_back(cb);
            }
            if (hb.over)
                return "packet header past the end";
            hb.align();
            p = hb.pos;
            for (size_t k : mine) {
                pcwt_j2k_cblk &cb = b.cblks[k];
                for (uint32_t s = 0; s < cb.seg_count; ++s) {
                    pcwt_j2k_seg &sg = b.segs[cb.seg_first + s];
                    if (p + sg.length > cs.size())
                        return "code-block data past the end";
                    sg.offset = b.data.size();
                    b.data.insert(b.data.end(), cs.begin() + long(p), cs.begin() + long(p + sg.length));
                    p += sg.length;
                }
            }
        }
    }
    f.cblk_count = uint32_t(b.cblks.size()) - f.cblk_first;
    f.desc = pcwt_image_desc{W, H, C, prec > 8 ? 16u : 8u, prec, sgn, 1};
    b.frames.push_back(f);
    return "";
}

// Inverse 5/3 of one line of n values at stride s, even first sample (F.3.8, symmetric ends).
inline void idwt53Line(int32_t *x, uint32_t n, size_t s)
{
    if (n < 2)
        return;
    std::vector<int32_t> y(n);
    const uint32_t nl = (n + 1) / 2;
    for (uint32_t i = 0; i < n; ++i) // deinterleaved L..., H... -> interleaved
        y[i] = (i & 1) ? x[(nl + i / 2) * s] : x[(i / 2) * s];
    auto at = [&](int64_t i) { return y[size_t(i < 0 ? -i : i >= int64_t(n) ? 2 * (int64_t(n) - 1) - i : i)]; };
    for (int64_t i = 0; i < int64_t(n); i += 2)
        y[size_t(i)] -= (at(i - 1) + at(i + 1) + 2) >> 2;
    for (int64_t i = 1; i < int64_t(n); i += 2)
        y[size_t(i)] += (at(i - 1) + at(i + 1)) >> 1;
    for (uint32_t i = 0; i < n; ++i)
        x[i * s] = y[i];
}

// Tier-1's coefficients of frame f to planar samples (the values OpenJPEG writes).
inline std::vector<int32_t> reconstruct(const Batch &b, const pcwt_j2k_frame &f, std::vector<int32_t> coefs)
{
    for (uint32_t c = 0; c < f.components; ++c) {
        const pcwt_j2k_tilecomp &tc = b.tcs[f.tc_first + c];
        int32_t *t = coefs.data() + tc.coef_offset;
        for (uint32_t d = tc.levels; d >= 1; --d) {
            const uint32_t w = (tc.width + (1u << (d - 1)) - 1) >> (d - 1);
            const uint32_t h = (tc.height + (1u << (d - 1)) - 1) >> (d - 1);
            for (uint32_t y = 0; y < h; ++y)
                idwt53Line(t + size_t(y) * tc.width, w, 1);
            for (uint32_t x = 0; x < w; ++x)
                idwt53Line(t + x, h, tc.width);
        }
    }
    const size_t px = size_t(f.desc.width) * f.desc.height;
    std::vector<int32_t> out(px * f.components);
    for (size_t k = 0; k < px; ++k) {
        int32_t v[3] = {0, 0, 0};
        for (uint32_t c = 0; c < f.components; ++c)
            v[c] = coefs[b.tcs[f.tc_first + c].coef_offset + k];
        if (f.rct && f.components == 3) {
            const int32_t g = v[0] - ((v[1] + v[2]) >> 2);
            const int32_t r = v[2] + g, bl = v[1] + g;
            v[0] = r;
            v[1] = g;
            v[2] = bl;
        }
        for (uint32_t c = 0; c < f.components; ++c) {
            const int32_t lo = f.is_signed ? -(1 << (f.precision - 1)) : 0;
            const int32_t hi = f.is_signed ? (1 << (f.precision - 1)) - 1 : (1 << f.precision) - 1;
            int32_t s = v[c] + (f.is_signed ? 0 : 1 << (f.precision - 1));
            out[c * px + k] = s < lo ? lo : s > hi ? hi : s;
        }
    }
    return out;
}

} // namespace j2kt1

#endif // PCWT_TESTS_J2K_SIMPLE_STREAM_H
