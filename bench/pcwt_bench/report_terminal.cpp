// report_terminal.cpp - the tables printed on stdout: one row per frame (ratio of each codec, or
// its status), then per codec the aggregate ratio and throughput, then the ratio by modality.
#include <algorithm>
#include <tuple>

#include "aggregate.hpp"
#include "reports.hpp"
#include "text_format.hpp"

namespace pcwtbench {

namespace {

std::string clip_left(const std::string &s, size_t width)
{
    return s.size() <= width ? s : "..." + s.substr(s.size() - (width - 3));
}

std::string geometry(const Image &img)
{
    const pcwt_image_desc &d = img.desc;
    return std::to_string(d.width) + "x" + std::to_string(d.height) + "x" + std::to_string(d.components) + " " +
           std::to_string(d.bits_stored) + (d.is_signed ? "s" : "u");
}

// A device-resident figure in MB/s, or n/a (no figure: CPU codec, no device path, an error).
std::string device_cell(const DeviceTime &t)
{
    if (t.status == Status::Ok)
        return fixed(t.mbps(), 1);
    return t.status == Status::Mismatch ? "MISMATCH" : "n/a";
}

std::string cell(const Image &img, const CodecResult &r)
{
    if (r.status == Status::Ok)
        return fixed(static_cast<double>(img.raw_bytes()) / static_cast<double>(r.coded_bytes), 3);
    return status_word(r.status);
}

} // namespace

void print_terminal_report(std::FILE *out, const ReportInput &in)
{
    const BenchResults &res = in.res;
    const size_t nc = res.codecs.size();
    size_t longest = 5;
    for (const Image &img : in.images)
        longest = std::max(longest, img.name.size());
    for (const InputProblem &pr : in.problems)
        longest = std::max(longest, pr.name.size());
    const int namew = static_cast<int>(std::min<size_t>(longest, 60));
    int colw = 11; // a codec's column
    for (const CodecInfo &ci : res.codecs)
        colw = std::max(colw, static_cast<int>(ci.id.size()));
    std::fprintf(out, "%s\n", in.run.title.c_str());
    std::fprintf(out, "%s; %s (%u hardware threads); libpcwt %s; GPU: %s\n", in.run.date_utc.c_str(),
                 in.run.cpu_model.c_str(), in.run.hardware_threads, in.run.pcwt_version.c_str(),
                 in.run.gpu_status.c_str());
    for (const auto &sk : in.run.skipped_codecs)
        std::fprintf(out, "codec %s not run: %s\n", sk.first.c_str(), sk.second.c_str());
    std::fprintf(out, "%zu frames, %zu inputs not read, %zu files ignored; %u warm-up + median of %u runs\n\n",
                 in.images.size(), in.problems.size(), in.run.ignored_files, in.run.warmup, in.run.repeats);

    // Per frame.
    std::fprintf(out, "Compression ratio per frame (raw bytes / coded bytes); every round trip checked word by word\n");
    std::fprintf(out, "%-*s %-4s %-17s %8s", namew, "image", "mod", "geometry", "raw MB");
    for (size_t c = 0; c < nc; ++c)
        std::fprintf(out, " %*s", colw, res.codecs[c].id.c_str());
    std::fprintf(out, "  status\n");
    for (size_t i = 0; i < in.images.size(); ++i) {
        const Image &img = in.images[i];
        std::string status = "ok";
        for (size_t c = 0; c < nc; ++c) {
            const CodecResult &r = res.per_image[i][c];
            if (r.status == Status::Mismatch || r.status == Status::Failed)
                status = std::string(status_word(r.status)) + " (" + res.codecs[c].id + ")";
            else if (r.dev_enc.status == Status::Mismatch)
                status = "MISMATCH (" + res.codecs[c].id + " device-resident)";
        }
        std::fprintf(out, "%-*s %-4s %-17s %8.3f", namew, clip_left(img.name, static_cast<size_t>(namew)).c_str(),
                     img.modality.substr(0, 4).c_str(), geometry(img).c_str(),
                     static_cast<double>(img.raw_bytes()) / 1e6);
        for (size_t c = 0; c < nc; ++c)
            std::fprintf(out, " %*s", colw, cell(img, res.per_image[i][c]).c_str());
        std::fprintf(out, "  %s\n", status.c_str());
    }
    for (const InputProblem &p : in.problems) {
        std::fprintf(out, "%-*s %-4s %-17s %8s", namew, clip_left(p.name, static_cast<size_t>(namew)).c_str(), "-", "-", "-");
        for (size_t c = 0; c < nc; ++c)
            std::fprintf(out, " %*s", colw, "-");
        std::fprintf(out, "  %s\n", p.status.c_str());
    }

    // Per codec.
    std::fprintf(out,
                 "\nAggregate over the %zu frames every codec coded exactly (ratio = total raw / total coded;\n"
                 "MB/s of raw samples, 1 MB = 1e6 bytes; 1 thread = total raw / sum of per-frame medians;\n"
                 "whole set = total raw / median wall time of all frames at once, end to end: host memory in\n"
                 "and out; dev = GPU codecs, the whole set device-resident: data already on the GPU, only the\n"
                 "device work timed with CUDA events)\n",
                 res.common.size());
    int modew = 9;
    for (const ParallelResult &p : res.parallel)
        modew = std::max(modew, static_cast<int>(p.mode.size()));
    std::fprintf(out, "%-15s %-42s %7s %9s %9s %-*s %9s %9s %9s %9s %4s %4s %4s %4s\n", "codec", "library", "ratio",
                 "enc 1T", "dec 1T", modew, "whole set", "enc all", "dec all", "dev enc", "dev dec", "ok", "n/a",
                 "FAIL", "MISM");
    for (size_t c = 0; c < nc; ++c) {
        const Aggregate a = aggregate_codec(in.images, res, c, res.common);
        const OutcomeCounts n = outcome_counts(in.images, res, c);
        const ParallelResult &p = res.parallel[c];
        std::string penc = "-", pdec = "-";
        if (p.status == Status::Ok) {
            penc = fixed(p.raw_bytes / p.enc_s / 1e6, 1);
            pdec = fixed(p.raw_bytes / p.dec_s / 1e6, 1);
        } else if (p.status != Status::NotRun) {
            penc = pdec = status_word(p.status);
        }
        std::fprintf(out, "%-15s %-42s %7.3f %9.1f %9.1f %-*s %9s %9s %9s %9s %4zu %4zu %4zu %4zu\n",
                     res.codecs[c].id.c_str(), clip_left(res.codecs[c].library, 42).c_str(), a.ratio(), a.enc_mbps(),
                     a.dec_mbps(), modew, p.mode.empty() ? "-" : p.mode.c_str(), penc.c_str(), pdec.c_str(),
                     device_cell(p.dev_enc).c_str(), device_cell(p.dev_dec).c_str(),
                     n.ok, n.not_applicable, n.failed, n.mismatch);
    }
    // What the device-resident columns rest on, or why they are n/a.
    bool any_gpu = false;
    for (size_t c = 0; c < nc; ++c) {
        if (!res.codecs[c].gpu)
            continue;
        any_gpu = true;
        const Aggregate a = aggregate_codec(in.images, res, c, res.common);
        const ParallelResult &p = res.parallel[c];
        for (const auto &[what, t, one, n1] :
             {std::tuple<const char *, const DeviceTime *, double, size_t>{"encode", &p.dev_enc, a.dev_enc_mbps(),
                                                                           a.dev_enc_images},
              std::tuple<const char *, const DeviceTime *, double, size_t>{"decode", &p.dev_dec, a.dev_dec_mbps(),
                                                                           a.dev_dec_images}}) {
            std::string line = "  " + res.codecs[c].id + " device-resident " + what + ": ";
            if (t->status == Status::Ok)
                line += "whole set " + fixed(t->mbps(), 1) + " MB/s (" + std::to_string(t->images) + " frames, " +
                        fixed(t->s * 1e3, 3) + " ms)";
            else if (t->status == Status::NotRun)
                line += "whole set not measured";
            else
                line += std::string(status_word(t->status)) + ": " + t->message;
            if (n1)
                line += "; one frame at a time " + fixed(one, 1) + " MB/s";
            if (t->status == Status::Ok && !t->message.empty())
                line += "; " + t->message;
            std::fprintf(out, "%s\n", line.c_str());
        }
    }
    if (!any_gpu)
        std::fprintf(out, "  dev enc / dev dec: n/a, no GPU codec in this run (GPU: %s)\n", in.run.gpu_status.c_str());

    // Per modality.
    std::fprintf(out, "\nRatio by modality (same frames)\n%-10s %6s", "modality", "frames");
    for (size_t c = 0; c < nc; ++c)
        std::fprintf(out, " %*s", colw, res.codecs[c].id.c_str());
    std::fprintf(out, "\n");
    for (const auto &g : by_modality(in.images, res.common)) {
        std::fprintf(out, "%-10s %6zu", g.first.c_str(), g.second.size());
        for (size_t c = 0; c < nc; ++c)
            std::fprintf(out, " %*.3f", colw, aggregate_codec(in.images, res, c, g.second).ratio());
        std::fprintf(out, "\n");
    }

    // What went wrong, in words.
    const std::vector<std::pair<size_t, size_t>> bad = not_exact(in.images, res);
    if (!bad.empty())
        std::fprintf(out, "\nNot coded / not exact:\n");
    for (const auto &ic : bad) {
        const CodecResult &r = res.per_image[ic.first][ic.second];
        std::fprintf(out, "  %s %s: %s: %s\n", status_word(r.status), res.codecs[ic.second].id.c_str(),
                     in.images[ic.first].name.c_str(), r.message.c_str());
    }
    for (size_t c = 0; c < nc; ++c)
        if (res.parallel[c].status == Status::Failed || res.parallel[c].status == Status::Mismatch)
            std::fprintf(out, "  %s %s whole set: %s\n", status_word(res.parallel[c].status),
                         res.codecs[c].id.c_str(), res.parallel[c].message.c_str());
    for (size_t i = 0; i < in.images.size(); ++i)
        for (size_t c = 0; c < nc; ++c)
            if (res.per_image[i][c].dev_enc.status == Status::Mismatch)
                std::fprintf(out, "  MISMATCH %s device-resident: %s\n", res.codecs[c].id.c_str(),
                             res.per_image[i][c].dev_enc.message.c_str());
    if (!in.problems.empty()) {
        std::fprintf(out, "\nInputs not read (%zu):\n", in.problems.size());
        for (const InputProblem &p : in.problems)
            std::fprintf(out, "  %s: %s\n", p.name.c_str(), p.status.c_str());
    }
    if (res.mismatches > 0)
        std::fprintf(out, "\n*** %zu ROUND TRIP MISMATCH(ES): some codec is NOT lossless on these images ***\n",
                     res.mismatches);
}

} // namespace pcwtbench
