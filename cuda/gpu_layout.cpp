// gpu_layout.cpp - builds the batch tables (see gpu_layout.h). Sizes follow codec/src/plan.c.
#include "gpu_layout.h"

#include <algorithm>

extern "C" {
#include "container.h"
#include "offset.h"
#include "pyramid.h"
#include "samples.h"
#include "value_map.h"
}

namespace {

uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint32_t add_band(BatchLayout &L, uint32_t plane, uint32_t level, uint32_t rows, uint32_t cols,
                  uint32_t group_rows, uint32_t group_cols, uint64_t coef)
{
    GpuBand b{};
    b.coef = coef;
    b.rows = rows;
    b.cols = cols;
    b.mrows = rows / 2;
    b.mcols = cols / 2;
    b.mqd = L.i8_size;
    L.i8_size += uint64_t(b.mrows) * b.mcols;
    b.plane = plane;
    b.level = level;
    b.parent = -1;
    b.gcols = uint32_t(div_up(b.mcols, group_cols));
    b.group_count = uint32_t(div_up(b.mrows, group_rows) * b.gcols);
    L.bands.push_back(b);
    return uint32_t(L.bands.size() - 1);
}

// The lowest value plane p can hold and how many (its bitmap's span): the samples' range, the
// colour transform's differences (twice it, about 0), or the bits above bits_stored.
void value_span(const GpuPlane &p, int32_t &base, uint32_t &span)
{
    if (p.kind == 1) {
        base = 0;
        span = 1u << (p.bits_alloc - p.bits_stored);
        return;
    }
    int32_t lo, hi;
    pcwt_sample_range(p.bits_stored, p.is_signed, &lo, &hi);
    base = p.rct ? lo - hi : lo;
    span = p.rct ? 2u * uint32_t(hi - lo) + 1u : uint32_t(hi - lo) + 1u;
}

// The value map and modular offset fields of plane p (gpu_types.h), from the frame's spec.
void add_value_map(BatchLayout &L, const FrameSpec &f, GpuPlane &p)
{
    const uint64_t pixels = uint64_t(p.rows) * p.cols;
    const bool compact = f.profile == PCWT_PROFILE_COMPACT && f.value_map; // encode
    if (compact && f.offset && f.offset - 1 != PCWT_OFFSET_OFF &&
        pcwt_offset_allowed(pcwt_profile(f.profile), p.kind, p.rct))
        p.offset = f.offset;
    if (compact && (f.value_map - 1 != PCWT_VALUE_MAP_OFF || p.offset)) {
        // encode: the bitmap (the offset's estimate reads it too) and its prefix; room for r0 and
        // the coded map up to a quarter of a byte a sample beside the plane's largest (a longer
        // map sends the frame to the CPU encoder)
        uint32_t span;
        value_span(p, p.vmap_base, span);
        p.vmap = f.value_map - 1 == PCWT_VALUE_MAP_OFF ? 3 : f.value_map - 1 == PCWT_VALUE_MAP_ON ? 2 : 1;
        p.vmap_words = (span + 31) / 32;
        p.vmap_at = L.vmap_words;
        L.vmap_words += 1 + 2 * uint64_t(p.vmap_words);
        p.vmap_cap = std::min<uint64_t>(pcwt_value_map_max_bytes(std::min<uint64_t>(pixels, span)),
                                        std::max<uint64_t>(4096, pixels / 4)) +
                     (p.offset ? PCWT_OFFSET_BYTES : 0);
        p.vmap_bytes_at = L.vmap_bytes;
        L.vmap_bytes += (p.vmap_cap + 7) & ~uint64_t(7);
        L.vmap_cap_max = std::max(L.vmap_cap_max, p.vmap_cap);
        L.vmap_planes++;
    } else if (f.mapped[p.comp][p.kind]) { // decode: the map's values
        p.vmap = 1;
        p.vmap_cap = std::min<uint64_t>(pixels, PCWT_VMAP_MAX_COUNT);
        p.vmap_at = L.vmap_words;
        L.vmap_words += p.vmap_cap;
        L.vmap_planes++;
    }
    if (!compact && p.kind == 0 && f.offset_set[p.comp]) { // decode: r0, with or without a map
        p.offset = 1;
        L.offset_planes += !p.vmap;
    }
}

} // namespace

void gpu_build_layout(const std::vector<FrameSpec> &frames, BatchLayout &L)
{
    L = BatchLayout{};
    for (const FrameSpec &f : frames) {
        const pcwt_image_desc &d = f.desc;
        GpuFrame fr{};
        fr.plane_first = uint32_t(L.planes.size());
        fr.width = d.width;
        fr.height = d.height;
        fr.components = d.components;
        fr.bits_alloc = d.bits_allocated;
        fr.bits_stored = d.bits_stored;
        fr.is_signed = d.is_signed;
        fr.planar = d.components > 1 ? d.planar : 0;
        fr.levels = f.levels;
        fr.group_rows = f.group_rows;
        fr.group_cols = f.group_cols;
        fr.profile = f.profile;
        fr.rct = d.components == 3 && f.rct;
        fr.columns_first = f.columns_first;
        fr.sample_off = f.sample_off;
        fr.sample_size = pcwt_image_size(&d);
        pcwt_plan plan;
        pcwt_plan_make(&plan, d.height, d.width, f.levels);
        for (uint32_t c = 0; c < d.components; c++) {
            for (uint32_t kind = 0; kind < 2; kind++) {
                if (kind == 1 && !f.high[c])
                    continue;
                GpuPlane p{};
                const uint32_t pi = uint32_t(L.planes.size());
                p.frame = uint32_t(L.frames.size());
                p.comp = c;
                p.kind = kind;
                p.rows = d.height;
                p.cols = d.width;
                p.levels = f.levels;
                p.group_rows = f.group_rows;
                p.group_cols = f.group_cols;
                // how the groups are coded: the compact profile's are the entropy profile's
                p.profile = pcwt_profile_ranged(f.profile) ? PCWT_PROFILE_ENTROPY : PCWT_PROFILE_BASELINE;
                p.low_bits = f.low_bits;
                p.second_bit = f.second_bit;
                L.entropy_planes += pcwt_profile_ranged(f.profile);
                p.sample_off = f.sample_off;
                p.components = d.components;
                p.bits_alloc = d.bits_allocated;
                p.bits_stored = d.bits_stored;
                p.is_signed = d.is_signed;
                p.planar = fr.planar;
                p.rct = fr.rct && kind == 0;
                if (pcwt_profile_ranged(f.profile) && f.levels) // the 5/11-C filter's planes
                    p.level1 = f.level1_511[c][kind] ? uint32_t(PCWT_LEVEL1_511) : f.level1;
                L.level1_planes += p.level1 != PCWT_LEVEL1_53;
                L.level1_511_planes += p.level1 == PCWT_LEVEL1_511;
                add_value_map(L, f, p);
                p.image = L.i32_size;
                L.i32_size += uint64_t(pcwt_even_up(d.height)) * pcwt_even_up(d.width);
                // Bands in coding order: LL, then HL, LH, HH from the top level down.
                p.band_first = uint32_t(L.bands.size());
                std::vector<uint64_t> ll_off(f.levels + 1, 0);
                std::vector<uint64_t> band_off(3 * f.levels + 3, 0);
                for (uint32_t l = 1; l <= f.levels; l++) { // allocate coefficient storage
                    const pcwt_level_size &s = plan.lv[l - 1];
                    const uint64_t n = uint64_t(s.band_r) * s.band_c;
                    for (uint32_t o = 0; o < 3; o++) {
                        band_off[3 * l + o] = L.i32_size;
                        L.i32_size += n;
                    }
                    ll_off[l] = L.i32_size;
                    L.i32_size += n;
                }
                const uint64_t ll_coef = f.levels ? ll_off[f.levels] : p.image;
                add_band(L, pi, f.levels, plan.ll_r, plan.ll_c, f.group_rows, f.group_cols, ll_coef);
                for (uint32_t l = f.levels; l >= 1; l--) {
                    const pcwt_level_size &s = plan.lv[l - 1];
                    for (uint32_t o = 0; o < 3; o++) {
                        const uint32_t b = add_band(L, pi, l, s.band_r, s.band_c, f.group_rows, f.group_cols,
                                                    band_off[3 * l + o]);
                        if (l < f.levels)
                            L.bands[b].parent = int32_t(b - 3);
                    }
                }
                p.band_count = uint32_t(L.bands.size()) - p.band_first;
                if (L.levels.size() < f.levels)
                    L.levels.resize(f.levels);
                if (L.decode_steps.size() < f.levels + 1u)
                    L.decode_steps.resize(f.levels + 1u);
                L.decode_steps[0].push_back(p.band_first);
                for (uint32_t l = 1; l <= f.levels; l++) {
                    const pcwt_level_size &s = plan.lv[l - 1];
                    GpuLevel e{};
                    e.plane = pi;
                    e.r = s.level_r;
                    e.c = s.level_c;
                    e.br = s.band_r;
                    e.bc = s.band_c;
                    e.in = l == 1 ? p.image : ll_off[l - 1];
                    e.ll = ll_off[l];
                    e.b_ll = p.band_first;
                    e.b_hl = pcwt_band_index(f.levels, l, 0) + p.band_first;
                    e.b_lh = pcwt_band_index(f.levels, l, 1) + p.band_first;
                    e.b_hh = pcwt_band_index(f.levels, l, 2) + p.band_first;
                    e.child_hl = l > 1 ? int32_t(pcwt_band_index(f.levels, l - 1, 0) + p.band_first) : -1;
                    e.child_lh = l > 1 ? int32_t(pcwt_band_index(f.levels, l - 1, 1) + p.band_first) : -1;
                    e.child_hh = l > 1 ? int32_t(pcwt_band_index(f.levels, l - 1, 2) + p.band_first) : -1;
                    e.top = l == f.levels;
                    e.columns_first = f.columns_first;
                    L.levels[l - 1].push_back(e);
                    const uint32_t step = f.levels - l; // top level: step 0, with LL
                    for (uint32_t o = 0; o < 3; o++)
                        L.decode_steps[step].push_back(e.b_hl + o);
                }
                if (!f.levels)
                    L.level0_planes.push_back(pi);
                if (!exported_by_inverse(p))
                    L.export_planes.push_back(pi);
                L.planes.push_back(p);
            }
        }
        fr.plane_count = uint32_t(L.planes.size()) - fr.plane_first;
        if (fr.rct) { // each value plane finds the other two
            uint64_t img[3] = {0, 0, 0};
            for (uint32_t i = fr.plane_first; i < L.planes.size(); i++)
                if (L.planes[i].kind == 0)
                    img[L.planes[i].comp] = L.planes[i].image;
            for (uint32_t i = fr.plane_first; i < L.planes.size(); i++)
                for (uint32_t c = 0; c < 3; c++)
                    L.planes[i].rct_image[c] = img[c];
        }
        fr.header_size = uint32_t(pcwt_header_size(fr.plane_count));
        fr.hdr_prefix = (L.frames.empty() ? 0 : L.frames.back().hdr_prefix) + fr.header_size;
        if (f.levels > L.max_levels)
            L.max_levels = f.levels;
        L.frames.push_back(fr);
    }
    // Groups: flat, in codestream order (frame, plane, band, raster).
    uint64_t g = 0;
    for (GpuPlane &p : L.planes) {
        p.group_first = g;
        for (uint32_t b = p.band_first; b < p.band_first + p.band_count; b++) {
            L.bands[b].group_first = g;
            g += L.bands[b].group_count;
        }
        p.group_count = uint32_t(g - p.group_first);
    }
    L.groups = g;
    // 16-byte alignment of the arenas' ends keeps vector loads possible later.
    L.i32_size = (L.i32_size + 3) & ~uint64_t(3);
    L.i8_size = (L.i8_size + 15) & ~uint64_t(15);
}
