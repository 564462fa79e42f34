// report_html.cpp - the self-contained HTML report: summary table, charts (inline SVG), ratio by
// modality, every frame with its thumbnail, the inputs that were not read, and how it was
// measured. Written as well-formed XHTML-compatible markup (parses as XML), no scripts, no
// external resources.
#include <cmath>
#include <map>

#include "aggregate.hpp"
#include "reports.hpp"
#include "svg_chart.hpp"
#include "text_format.hpp"
#include "thumbnail.hpp"

namespace pcwtbench {

namespace {

std::string codec_color(const std::string &id, size_t index)
{
    static const std::map<std::string, std::string> known = {
        {"pcwt-cpu", "#d95f02"}, {"pcwt-gpu", "#e7298a"}, {"pcwt-jpegls", "#7570b3"},
        {"pcwt-jpegls-gpu", "#b15928"}, {"charls", "#1b9e77"}, {"openjpeg", "#66a61e"},
        {"openjph", "#377eb8"}, {"pcwt-entropy-cpu", "#a6761d"}, {"pcwt-entropy-gpu", "#e6ab02"},
        {"pcwt-baseline-cpu", "#8c6bb1"}, {"pcwt-baseline-gpu", "#fb9a99"}};
    static const char *const spare[] = {"#666666", "#984ea3", "#999999"};
    const auto it = known.find(id);
    return it != known.end() ? it->second : spare[index % 3];
}

const char *kStyle = R"CSS(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1200px; color: #222; padding: 0 16px; }
h1 { font-size: 1.6em; margin-bottom: 4px; }
h2 { font-size: 1.25em; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
table { border-collapse: collapse; font-size: 0.88em; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; vertical-align: middle; }
th { background: #f4f4f4; }
td.l, th.l { text-align: left; }
table.meta td { text-align: left; border: none; padding: 1px 8px 1px 0; }
.best { font-weight: bold; }
.bad { background: #fdd; color: #a00; font-weight: bold; }
.na { color: #999; }
.alert { background: #fdd; border: 2px solid #c00; color: #800; padding: 10px 14px; font-weight: bold; }
.ok { background: #e8f5e9; border: 1px solid #8c8; padding: 8px 14px; }
.charts svg { display: block; margin: 12px 0; border: 1px solid #eee; }
svg text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; font-size: 12px; fill: #222; }
svg .ctitle { font-size: 14px; font-weight: bold; }
svg .small { font-size: 11px; }
svg .muted { fill: #888; }
svg .grid { stroke: #e4e4e4; stroke-width: 1; }
svg .axis { stroke: #888; stroke-width: 1; }
svg .frame { fill: none; stroke: #bbb; }
img.thumb { display: block; max-width: 160px; max-height: 160px; }
.small { font-size: 0.85em; color: #555; }
code { font-size: 0.95em; }
)CSS";

std::string td(const std::string &text, const std::string &cls = "", const std::string &title = "")
{
    std::string s = "<td";
    if (!cls.empty())
        s += " class=\"" + cls + "\"";
    if (!title.empty())
        s += " title=\"" + xml_escape(title) + "\"";
    return s + ">" + text + "</td>";
}

std::string th(const std::string &text, const std::string &cls = "")
{
    return "<th" + (cls.empty() ? std::string() : " class=\"" + cls + "\"") + ">" + text + "</th>";
}

std::string esc(const std::string &s)
{
    return xml_escape(s);
}

double mbps(double bytes, double s)
{
    return s > 0 ? bytes / s / 1e6 : NAN;
}

// A device-resident figure as a table cell: MB/s, or n/a / MISMATCH with the reason on hover.
std::string device_td(const DeviceTime &t, bool gpu_codec)
{
    if (t.status == Status::Ok) {
        std::string title = std::to_string(t.images) + " frame(s), median " + fixed(t.s * 1e3, 3) + " ms";
        if (!t.message.empty())
            title += "; " + t.message;
        return td(fixed(t.raw_bytes / t.s / 1e6, 1), "", title);
    }
    if (t.status == Status::Mismatch)
        return td("MISMATCH", "bad", t.message);
    return td("n/a", "na", gpu_codec ? t.message : "CPU codec: no device-resident figure");
}

std::string geometry(const Image &img)
{
    const pcwt_image_desc &d = img.desc;
    std::string g = std::to_string(d.width) + "&#215;" + std::to_string(d.height);
    if (d.components > 1)
        g += "&#215;" + std::to_string(d.components) + (d.planar ? " planar" : "");
    return g + ", " + std::to_string(d.bits_stored) + "/" + std::to_string(d.bits_allocated) + " bit " +
           (d.is_signed ? "signed" : "unsigned");
}

std::string section_summary(const ReportInput &in)
{
    const BenchResults &res = in.res;
    const size_t nc = res.codecs.size();
    std::string s = "<h2 id=\"summary\">Summary</h2>\n";
    if (res.mismatches > 0)
        s += "<p class=\"alert\">ROUND TRIP MISMATCH: " + std::to_string(res.mismatches) +
             " decoded result(s) differ from the original. The codec concerned is NOT lossless on these images; "
             "see the cells marked MISMATCH below.</p>\n";
    if (res.failures > 0)
        s += "<p class=\"alert\">" + std::to_string(res.failures) + " codec call(s) failed (cells marked FAIL).</p>\n";
    if (res.mismatches == 0 && res.failures == 0)
        s += "<p class=\"ok\">Every round trip was checked sample by sample: all exact.</p>\n";
    s += "<p>Over the " + std::to_string(res.common.size()) + " of " + std::to_string(in.images.size()) +
         " frames that every codec coded exactly (" +
         std::to_string(in.images.size() - res.common.size()) + " left out). Ratio = total raw bytes / total coded "
         "bytes. Throughput in MB/s of raw samples (1 MB = 10<sup>6</sup> bytes). Whole set: end to end, host "
         "memory in and out. Device-resident (GPU codecs): the whole set already on the GPU, only the device work "
         "timed with CUDA events; n/a for CPU codecs and where there is no device path (hover for the reason).</p>\n";
    s += "<table>\n<tr>" + th("codec", "l") + th("library", "l") + th("ratio") + th("encode MB/s<br/>1 thread") +
         th("decode MB/s<br/>1 thread") + th("whole set", "l") + th("encode MB/s<br/>whole set") +
         th("decode MB/s<br/>whole set") + th("encode MB/s<br/>device-resident") +
         th("decode MB/s<br/>device-resident") + th("frames ok") + th("n/a") + th("FAIL") + th("MISMATCH") + "</tr>\n";
    double best = 0;
    for (size_t c = 0; c < nc; ++c)
        best = std::max(best, aggregate_codec(in.images, res, c, res.common).ratio());
    for (size_t c = 0; c < nc; ++c) {
        const Aggregate a = aggregate_codec(in.images, res, c, res.common);
        const OutcomeCounts n = outcome_counts(in.images, res, c);
        const ParallelResult &p = res.parallel[c];
        const bool pok = p.status == Status::Ok;
        const std::string pcls = p.status == Status::Mismatch || p.status == Status::Failed ? "bad" : "";
        s += "<tr>" + td(esc(res.codecs[c].id), "l") + td(esc(res.codecs[c].library), "l") +
             td(fixed(a.ratio(), 3), a.ratio() >= best - 1e-12 && best > 0 ? "best" : "") +
             td(fixed(a.enc_mbps(), 1)) + td(fixed(a.dec_mbps(), 1)) + td(esc(p.mode.empty() ? "-" : p.mode), "l") +
             td(pok ? fixed(mbps(p.raw_bytes, p.enc_s), 1) : status_word(p.status), pcls, p.message) +
             td(pok ? fixed(mbps(p.raw_bytes, p.dec_s), 1) : status_word(p.status), pcls, p.message) +
             device_td(p.dev_enc, res.codecs[c].gpu) + device_td(p.dev_dec, res.codecs[c].gpu) +
             td(std::to_string(n.ok)) + td(std::to_string(n.not_applicable)) +
             td(std::to_string(n.failed), n.failed ? "bad" : "") +
             td(std::to_string(n.mismatch), n.mismatch ? "bad" : "") + "</tr>\n";
    }
    s += "</table>\n";
    for (const auto &sk : in.run.skipped_codecs)
        s += "<p class=\"small\">Codec " + esc(sk.first) + " not run: " + esc(sk.second) + ".</p>\n";
    return s;
}

std::string section_charts(const ReportInput &in)
{
    const BenchResults &res = in.res;
    const size_t nc = res.codecs.size();
    std::vector<Aggregate> agg;
    std::vector<ChartSeries> codec_series;
    for (size_t c = 0; c < nc; ++c) {
        agg.push_back(aggregate_codec(in.images, res, c, res.common));
        codec_series.push_back({res.codecs[c].id, codec_color(res.codecs[c].id, c)});
    }
    std::string s = "<h2 id=\"charts\">Charts</h2>\n<div class=\"charts\">\n";

    BarChart ratio;
    ratio.title = "Compression ratio by codec (total raw / total coded, " + std::to_string(res.common.size()) + " frames)";
    ratio.axis_label = "compression ratio";
    ratio.series = {{"ratio", "#4477aa"}};
    ratio.decimals = 3;
    for (size_t c = 0; c < nc; ++c)
        ratio.groups.push_back({res.codecs[c].id, {agg[c].ratio()}, {codec_series[c].color}});
    s += render_bar_chart(ratio) + "\n";

    BarChart mod;
    mod.title = "Compression ratio by modality";
    mod.axis_label = "compression ratio";
    mod.series = codec_series;
    mod.decimals = 2;
    for (const auto &g : by_modality(in.images, res.common)) {
        BarGroup bg;
        bg.label = g.first + " (" + std::to_string(g.second.size()) + ")";
        for (size_t c = 0; c < nc; ++c)
            bg.values.push_back(aggregate_codec(in.images, res, c, g.second).ratio());
        mod.groups.push_back(bg);
    }
    s += render_bar_chart(mod) + "\n";

    BarChart speed;
    speed.title = "Throughput by codec (MB/s of raw samples)";
    speed.axis_label = "MB/s";
    speed.log_scale = true;
    speed.decimals = 1;
    std::string whole = "whole set";
    for (size_t c = 0; c < nc; ++c)
        if (!res.parallel[c].mode.empty() && !res.codecs[c].gpu) {
            whole = "whole set, " + res.parallel[c].mode;
            break;
        }
    speed.series = {{"encode, 1 thread", "#9ecae1"},
                    {"decode, 1 thread", "#3182bd"},
                    {"encode, " + whole + " (end to end)", "#fdae6b"},
                    {"decode, " + whole + " (end to end)", "#e6550d"}};
    bool any_device = false;
    for (size_t c = 0; c < nc; ++c)
        any_device = any_device || res.parallel[c].dev_enc.status == Status::Ok ||
                     res.parallel[c].dev_dec.status == Status::Ok;
    if (any_device) {
        speed.title += "; GPU codecs also device-resident";
        speed.series.push_back({"encode, whole set device-resident (GPU)", "#a1d99b"});
        speed.series.push_back({"decode, whole set device-resident (GPU)", "#31a354"});
    }
    for (size_t c = 0; c < nc; ++c) {
        const ParallelResult &p = res.parallel[c];
        const bool pok = p.status == Status::Ok;
        BarGroup g{res.codecs[c].id,
                   {agg[c].enc_mbps(), agg[c].dec_mbps(), pok ? mbps(p.raw_bytes, p.enc_s) : NAN,
                    pok ? mbps(p.raw_bytes, p.dec_s) : NAN},
                   {}};
        if (any_device) {
            g.values.push_back(p.dev_enc.status == Status::Ok ? p.dev_enc.mbps() : NAN);
            g.values.push_back(p.dev_dec.status == Status::Ok ? p.dev_dec.mbps() : NAN);
        }
        speed.groups.push_back(g);
    }
    s += render_bar_chart(speed) + "\n";

    ScatterChart sc;
    sc.title = "Compression ratio against speed (aggregate, 1 thread)";
    sc.x_label = "MB/s";
    sc.y_label = "compression ratio";
    sc.legend = codec_series;
    sc.note = "hollow: encode, filled: decode";
    for (size_t c = 0; c < nc; ++c) {
        if (agg[c].images == 0)
            continue;
        const std::string col = codec_series[c].color;
        sc.points.push_back({agg[c].enc_mbps(), agg[c].ratio(), col, "",
                             res.codecs[c].id + " encode: " + fixed(agg[c].enc_mbps(), 1) + " MB/s, ratio " +
                                 fixed(agg[c].ratio(), 3),
                             6, true});
        sc.points.push_back({agg[c].dec_mbps(), agg[c].ratio(), col, res.codecs[c].id,
                             res.codecs[c].id + " decode: " + fixed(agg[c].dec_mbps(), 1) + " MB/s, ratio " +
                                 fixed(agg[c].ratio(), 3),
                             6, false});
    }
    s += render_scatter(sc) + "\n";

    ScatterChart per;
    per.title = "Every frame: compression ratio against decode speed (1 thread)";
    per.x_label = "decode MB/s";
    per.y_label = "compression ratio";
    per.legend = codec_series;
    for (size_t i : res.common)
        for (size_t c = 0; c < nc; ++c) {
            const CodecResult &r = res.per_image[i][c];
            const double raw = static_cast<double>(in.images[i].raw_bytes());
            const double ratio_v = raw / static_cast<double>(r.coded_bytes);
            per.points.push_back({mbps(raw, r.dec_s), ratio_v, codec_series[c].color, "",
                                  in.images[i].name + ", " + res.codecs[c].id + ": ratio " + fixed(ratio_v, 3) +
                                      ", decode " + fixed(mbps(raw, r.dec_s), 1) + " MB/s",
                                  3, false});
        }
    s += render_scatter(per) + "\n";
    return s + "</div>\n";
}

std::string section_modality(const ReportInput &in)
{
    const BenchResults &res = in.res;
    std::string s = "<h2 id=\"modality\">Ratio by modality</h2>\n<table>\n<tr>" + th("modality", "l") + th("frames") +
                    th("raw MB");
    for (const CodecInfo &ci : res.codecs)
        s += th(esc(ci.id));
    s += "</tr>\n";
    for (const auto &g : by_modality(in.images, res.common)) {
        double raw = 0, best = 0;
        std::vector<double> r;
        for (size_t c = 0; c < res.codecs.size(); ++c) {
            r.push_back(aggregate_codec(in.images, res, c, g.second).ratio());
            best = std::max(best, r.back());
        }
        for (size_t i : g.second)
            raw += static_cast<double>(in.images[i].raw_bytes());
        s += "<tr>" + td(esc(g.first), "l") + td(std::to_string(g.second.size())) + td(fixed(raw / 1e6, 2));
        for (double v : r)
            s += td(fixed(v, 3), v >= best - 1e-12 ? "best" : "");
        s += "</tr>\n";
    }
    return s + "</table>\n";
}

std::string section_images(const ReportInput &in, bool thumbnails)
{
    const BenchResults &res = in.res;
    const size_t nc = res.codecs.size();
    std::string s = "<h2 id=\"images\">Frames</h2>\n<p class=\"small\">Compression ratio of each codec on each frame "
                    "(hover for sizes and speeds); the best ratio in bold. n/a: the codec cannot code the frame.</p>\n"
                    "<table>\n<tr>";
    if (thumbnails)
        s += th("image", "l");
    s += th("name", "l") + th("modality", "l") + th("geometry", "l") + th("raw bytes");
    for (const CodecInfo &ci : res.codecs)
        s += th(esc(ci.id));
    s += "</tr>\n";
    for (size_t i = 0; i < in.images.size(); ++i) {
        const Image &img = in.images[i];
        const double raw = static_cast<double>(img.raw_bytes());
        s += "<tr>";
        if (thumbnails) {
            const std::string uri = thumbnail_data_uri(img, 160);
            s += uri.empty() ? td("-", "l") : td("<img class=\"thumb\" src=\"" + uri + "\" alt=\"" + esc(img.name) + "\"/>", "l");
        }
        std::string info = "<b>" + esc(img.name) + "</b><br/><span class=\"small\">" + esc(img.source);
        if (!img.note.empty())
            info += "<br/>" + esc(img.note);
        info += "<br/>peer codecs given: " + esc(img.peer.describe()) + "</span>";
        s += td(info, "l") + td(esc(img.modality) + (img.photometric.empty() ? "" : "<br/><span class=\"small\">" +
                                                                                       esc(img.photometric) + "</span>"),
                                "l") +
             td(geometry(img), "l") + td(std::to_string(img.raw_bytes()));
        double best = 0;
        for (size_t c = 0; c < nc; ++c)
            if (res.per_image[i][c].status == Status::Ok)
                best = std::max(best, raw / static_cast<double>(res.per_image[i][c].coded_bytes));
        for (size_t c = 0; c < nc; ++c) {
            const CodecResult &r = res.per_image[i][c];
            if (r.status == Status::Ok) {
                const double ratio_v = raw / static_cast<double>(r.coded_bytes);
                std::string title = std::to_string(r.coded_bytes) + " bytes; encode " + fixed(mbps(raw, r.enc_s), 1) +
                                    " MB/s, decode " + fixed(mbps(raw, r.dec_s), 1) + " MB/s (1 thread)";
                if (res.codecs[c].gpu) {
                    auto dev = [](const DeviceTime &t) {
                        return t.status == Status::Ok ? fixed(t.mbps(), 1) + " MB/s" : std::string(status_word(t.status));
                    };
                    title += "; device-resident encode " + dev(r.dev_enc) + ", decode " + dev(r.dev_dec);
                }
                const bool dev_bad = r.dev_enc.status == Status::Mismatch;
                s += td(dev_bad ? "MISMATCH" : fixed(ratio_v, 3),
                        dev_bad ? "bad" : ratio_v >= best - 1e-12 ? "best" : "",
                        dev_bad ? r.dev_enc.message : title);
            } else if (r.status == Status::NotApplicable || r.status == Status::NotRun) {
                s += td(status_word(r.status), "na", r.message);
            } else {
                s += td(status_word(r.status), "bad", r.message);
            }
        }
        s += "</tr>\n";
    }
    return s + "</table>\n";
}

std::string section_problems(const ReportInput &in)
{
    std::string s = "<h2 id=\"problems\">Inputs not read</h2>\n";
    if (in.problems.empty())
        return s + "<p>None" +
               (in.run.ignored_files ? " (" + std::to_string(in.run.ignored_files) +
                                           " files met in directories were not image files and were ignored)"
                                     : std::string()) +
               ".</p>\n";
    s += "<table>\n<tr>" + th("input", "l") + th("status", "l") + "</tr>\n";
    for (const InputProblem &p : in.problems)
        s += "<tr>" + td(esc(p.name), "l") + td(esc(p.status), "l bad") + "</tr>\n";
    s += "</table>\n";
    if (in.run.ignored_files)
        s += "<p class=\"small\">" + std::to_string(in.run.ignored_files) +
             " files met in directories were not image files and were ignored.</p>\n";
    return s;
}

std::string section_method(const ReportInput &in)
{
    const RunInfo &run = in.run;
    std::string s = "<h2 id=\"method\">How it was measured</h2>\n<ul>\n";
    s += "<li>Every frame is encoded and decoded by every codec in one process; each decoded frame (warm-up and timed "
         "runs, single thread and whole set) is compared with the original word by word. A difference is reported as "
         "MISMATCH and makes the tool exit with status 1; it is never averaged away.</li>\n";
    s += "<li>Timing: " + std::to_string(run.warmup) + " untimed warm-up run(s), then the median of " +
         std::to_string(run.repeats) +
         " timed runs, on a monotonic clock around the codec adapter only: conversion of the samples into the "
         "library's input and back, and the library calls (no file I/O).</li>\n";
    s += "<li>1 thread: one frame at a time, the codecs' runs alternating (each codec's first run, then each codec's "
         "second, ...). Aggregate = total raw bytes / sum of the per-frame medians.</li>\n";
    s += "<li>Whole set: all frames at once, " + std::to_string(run.threads) +
         " worker threads taking frames from a queue, largest first (one codec session per thread) for the CPU codecs; one batch "
         "call (pcwt_encode_batch / pcwt_decode_batch) for PCWT on the GPU, host memory in and out (end to end); "
         "for libpcwt's JPEG-LS encoder on the GPU, one pcwt_encode_batch call per interleave mode to encode and "
         "CharLS on the worker threads to decode. Throughput = total raw bytes / median wall time.</li>\n";
    s += "<li>Device-resident (GPU codecs only): after the end-to-end measurements were exact, the frames (encode) "
         "or their codestreams (decode) are uploaded to the GPU once, then only the device work is repeated and timed "
         "with CUDA events (one warm-up, median of " +
         std::to_string(run.repeats) +
         " runs), through libpcwt's internal benchmark entry points pcwt_gpu_bench_encode / pcwt_gpu_bench_decode: "
         "the whole set in one batch (summary and chart), and each frame alone (hover over a frame's cell). The "
         "JPEG-LS codestreams the device encoder gives back are compared byte for byte with the end-to-end ones; "
         "the device decoder checks each codestream. n/a where there is no such path (CPU codecs, JPEG-LS decode, "
         "pixel-interleaved RGB for the GPU JPEG-LS encoder, a build without CUDA) or it reported an error.</li>\n";
    s += "<li>libpcwt codes the stored words themselves, bits above BitsStored included. JPEG-LS, JPEG 2000 and HTJ2K "
         "are given BitsStored-bit samples when the words are their plain sign or zero extension (JPEG-LS: the two's "
         "complement pattern), otherwise the whole words (the image's 'peer codecs given' line says which).</li>\n";
    s += "</ul>\n<table>\n<tr>" + th("codec", "l") + th("family", "l") + th("library", "l") + th("settings", "l") +
         "</tr>\n";
    for (const CodecInfo &ci : in.res.codecs)
        s += "<tr>" + td(esc(ci.id), "l") + td(esc(ci.family), "l") + td(esc(ci.library), "l") +
             td(esc(ci.settings), "l") + "</tr>\n";
    return s + "</table>\n";
}

} // namespace

bool write_html_report(const std::string &path, const ReportInput &in, bool thumbnails, std::string &why)
{
    const RunInfo &run = in.run;
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>" + esc(run.title) +
                    "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
    s += "<h1>" + esc(run.title) + "</h1>\n<table class=\"meta\">\n";
    auto meta = [&](const std::string &k, const std::string &v) {
        s += "<tr><td><b>" + esc(k) + "</b></td><td>" + esc(v) + "</td></tr>\n";
    };
    meta("date (UTC)", run.date_utc);
    meta("machine", run.host + ": " + run.cpu_model + ", " + std::to_string(run.hardware_threads) + " hardware threads");
    meta("GPU", run.gpu_status);
    for (const auto &sk : run.skipped_codecs)
        meta("not run", sk.first + ": " + sk.second);
    meta("libpcwt", run.pcwt_version);
    meta("frames", std::to_string(in.images.size()) + " (" + std::to_string(in.problems.size()) + " inputs not read)");
    meta("timing", std::to_string(run.warmup) + " warm-up + median of " + std::to_string(run.repeats) + " runs; whole set on " +
                       std::to_string(run.threads) + " threads");
    meta("command", run.command_line);
    s += "</table>\n";
    s += section_summary(in);
    s += section_charts(in);
    s += section_modality(in);
    s += section_images(in, thumbnails);
    s += section_problems(in);
    s += section_method(in);
    s += "</body>\n</html>\n";
    return write_text_file(path, s, why);
}

} // namespace pcwtbench
