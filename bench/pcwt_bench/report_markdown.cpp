// report_markdown.cpp - the Markdown report: the tables a results file in bench/results keeps.
// Per frame, each codec's ratio and single-thread encode / decode MB/s, with an aggregate row over
// the frames every codec coded exactly; then the whole-set figures, the codecs' settings, the
// inputs (what the peers were given), and anything not coded exactly.
#include <string>

#include "aggregate.hpp"
#include "reports.hpp"
#include "text_format.hpp"

namespace pcwtbench {

namespace {

// Table cells must not hold a bare '|'.
std::string md_cell(const std::string &s)
{
    std::string out;
    for (char ch : s) {
        if (ch == '|')
            out += "\\|";
        else if (ch == '\n')
            out += ' ';
        else
            out += ch;
    }
    return out;
}

std::string mbps(double raw, double s)
{
    return s > 0.0 ? fixed(raw / s / 1e6, 1) : "-";
}

std::string device_cell(const DeviceTime &t)
{
    return t.status == Status::Ok ? fixed(t.mbps(), 1) : t.status == Status::Mismatch ? "MISMATCH" : "n/a";
}

} // namespace

bool write_markdown_report(const std::string &path, const ReportInput &in, std::string &why)
{
    const BenchResults &res = in.res;
    const RunInfo &run = in.run;
    const size_t nc = res.codecs.size();
    std::string s = "# " + md_cell(run.title) + "\n\n";
    s += "- date: " + run.date_utc + "; host: " + md_cell(run.host) + "; CPU: " + md_cell(run.cpu_model) + " (" +
         std::to_string(run.hardware_threads) + " hardware threads); libpcwt " + run.pcwt_version + "; GPU: " +
         md_cell(run.gpu_status) + "\n";
    s += "- command: `" + run.command_line + "`\n";
    s += "- " + std::to_string(run.warmup) + " warm-up + median of " + std::to_string(run.repeats) +
         " timed runs; 1 thread: one frame at a time, the codecs' runs alternating; every round trip checked "
         "word by word\n";
    s += "- ratio = raw bytes / coded bytes; MB/s = raw bytes / 1e6 / s; aggregate: total raw / total coded and "
         "total raw / sum of the per-frame medians, over the " +
         std::to_string(res.common.size()) + " frames every codec coded exactly\n\n";

    s += "## One thread, per frame\n\n| image | geometry | raw bytes |";
    std::string rule = "|---|---|---:|";
    for (size_t c = 0; c < nc; ++c) {
        const std::string &id = res.codecs[c].id;
        s += " " + id + " ratio | " + id + " enc MB/s | " + id + " dec MB/s |";
        rule += "---:|---:|---:|";
    }
    s += "\n" + rule + "\n";
    for (size_t i = 0; i < in.images.size(); ++i) {
        const Image &img = in.images[i];
        const pcwt_image_desc &d = img.desc;
        s += "| " + md_cell(img.name) + " | " + std::to_string(d.width) + "x" + std::to_string(d.height) + "x" +
             std::to_string(d.components) + ", " + std::to_string(d.bits_stored) + " bit, " +
             (d.is_signed ? "signed" : "unsigned") + " | " + std::to_string(img.raw_bytes()) + " |";
        for (size_t c = 0; c < nc; ++c) {
            const CodecResult &r = res.per_image[i][c];
            if (r.status == Status::Ok) {
                const double raw = static_cast<double>(img.raw_bytes());
                s += " " + fixed(raw / static_cast<double>(r.coded_bytes), 3) + " | " + mbps(raw, r.enc_s) + " | " +
                     mbps(raw, r.dec_s) + " |";
            } else {
                s += std::string(" ") + status_word(r.status) + " | - | - |";
            }
        }
        s += "\n";
    }
    double common_raw = 0.0;
    for (size_t i : res.common)
        common_raw += static_cast<double>(in.images[i].raw_bytes());
    s += "| **all " + std::to_string(res.common.size()) + "** | | " + fixed(common_raw, 0) + " |";
    for (size_t c = 0; c < nc; ++c) {
        const Aggregate a = aggregate_codec(in.images, res, c, res.common);
        s += " " + fixed(a.ratio(), 3) + " | " + fixed(a.enc_mbps(), 1) + " | " + fixed(a.dec_mbps(), 1) + " |";
    }
    s += "\n";

    bool any_parallel = false;
    for (const ParallelResult &p : res.parallel)
        any_parallel = any_parallel || p.status != Status::NotRun;
    if (any_parallel) {
        s += "\n## Whole set (MB/s; dev: device-resident, GPU codecs)\n\n"
             "| codec | mode | enc | dec | dev enc | dev dec |\n|---|---|---:|---:|---:|---:|\n";
        for (size_t c = 0; c < nc; ++c) {
            const ParallelResult &p = res.parallel[c];
            const bool ok = p.status == Status::Ok;
            s += "| " + res.codecs[c].id + " | " + md_cell(p.mode.empty() ? "-" : p.mode) + " | " +
                 (ok ? mbps(p.raw_bytes, p.enc_s) : status_word(p.status)) + " | " +
                 (ok ? mbps(p.raw_bytes, p.dec_s) : status_word(p.status)) + " | " + device_cell(p.dev_enc) +
                 " | " + device_cell(p.dev_dec) + " |\n";
        }
    }

    s += "\n## Codecs\n\n";
    for (const CodecInfo &ci : res.codecs)
        s += "- " + ci.id + ": " + md_cell(ci.library) + "; " + md_cell(ci.settings) + "\n";
    for (const auto &sk : run.skipped_codecs)
        s += "- " + sk.first + ": not run (" + md_cell(sk.second) + ")\n";

    s += "\n## Inputs\n\n";
    for (const Image &img : in.images) {
        s += "- " + md_cell(img.name) + ": " + md_cell(img.source) + "; peers given " + md_cell(img.peer.describe());
        if (!img.note.empty())
            s += "; " + md_cell(img.note);
        s += "\n";
    }
    for (const InputProblem &p : in.problems)
        s += "- " + md_cell(p.name) + ": not read, " + md_cell(p.status) + "\n";

    const std::vector<std::pair<size_t, size_t>> bad = not_exact(in.images, res);
    if (!bad.empty())
        s += "\n## Not coded exactly\n\n";
    for (const auto &ic : bad) {
        const CodecResult &r = res.per_image[ic.first][ic.second];
        s += "- " + std::string(status_word(r.status)) + " " + res.codecs[ic.second].id + " on " +
             md_cell(in.images[ic.first].name) + ": " + md_cell(r.message) + "\n";
    }
    return write_text_file(path, s, why);
}

} // namespace pcwtbench
