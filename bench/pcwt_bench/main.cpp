// main.cpp - pcwt-bench: compare lossless codecs on a user's own images (see README.md).
//   options -> load every frame -> choose codecs -> measure -> table, Markdown, CSV, JSON, HTML.
#include <pcwt.h>

#include <cstdio>
#include <thread>

#include "codecs.hpp"
#include "input_scan.hpp"
#include "machine_info.hpp"
#include "options.hpp"
#include "reports.hpp"
#include "runner.hpp"
#include "save_frames.hpp"

using namespace pcwtbench;

int main(int argc, char **argv)
{
    Options opt;
    switch (parse_options(argc, argv, opt)) {
    case ParseOutcome::ExitSuccess:
        return 0;
    case ParseOutcome::ExitUsage:
        return 2;
    case ParseOutcome::Run:
        break;
    }

    CodecSelection sel = select_codecs(opt.codecs, opt.gpu, opt.pcwt, opt.peers);
    if (sel.codecs.empty()) {
        std::fprintf(stderr, "pcwt-bench: no codec to run (GPU: %s)\n", sel.gpu_status.c_str());
        return 2;
    }

    if (opt.progress)
        std::fprintf(stderr, "pcwt-bench: reading inputs...\n");
    LoadedInputs in = load_inputs(opt.paths, opt.raw, [&](size_t done, size_t total, const std::string &name) {
        if (opt.progress && (done == total || done % 10 == 0))
            std::fprintf(stderr, "  read %zu/%zu files (%s)\n", done, total, name.c_str());
    });
    size_t raw_total = 0;
    for (const Image &img : in.images)
        raw_total += img.raw_bytes();
    if (opt.progress) {
        std::fprintf(stderr, "pcwt-bench: %zu frames (%.1f MB raw), %zu inputs not read, %zu files ignored; codecs:",
                     in.images.size(), static_cast<double>(raw_total) / 1e6, in.problems.size(), in.ignored_files);
        for (const auto &c : sel.codecs)
            std::fprintf(stderr, " %s", c->info().id.c_str());
        std::fprintf(stderr, " (GPU: %s)\n", sel.gpu_status.c_str());
        for (const auto &sk : sel.skipped)
            std::fprintf(stderr, "  codec %s not run: %s\n", sk.first.c_str(), sk.second.c_str());
        for (const InputProblem &p : in.problems)
            std::fprintf(stderr, "  not read: %s: %s\n", p.name.c_str(), p.status.c_str());
    }

    if (!opt.save_frames.empty()) {
        std::string why;
        if (!save_frames(in.images, opt.save_frames, why)) {
            std::fprintf(stderr, "pcwt-bench: --save-frames: %s\n", why.c_str());
            return 2;
        }
    }

    const BenchResults res = run_benchmark(in.images, sel.codecs, opt);

    RunInfo run;
    run.title = opt.title;
    run.date_utc = utc_timestamp();
    run.host = host_name();
    run.cpu_model = cpu_model();
    run.hardware_threads = std::thread::hardware_concurrency();
    run.threads = opt.threads;
    run.repeats = opt.repeats;
    run.warmup = opt.warmup;
    run.gpu_status = sel.gpu_status;
    run.skipped_codecs = sel.skipped;
    run.pcwt_version = pcwt_version_string();
    run.command_line = opt.command_line;
    run.ignored_files = in.ignored_files;
    const ReportInput report{run, in.images, in.problems, res};

    print_terminal_report(stdout, report);
    std::fflush(stdout);

    bool wrote_all = true;
    auto write = [&](const std::string &path, const char *what, auto fn) {
        if (path == "none")
            return;
        std::string why;
        if (!fn(path, why)) {
            std::fprintf(stderr, "pcwt-bench: cannot write the %s %s: %s\n", what, path.c_str(), why.c_str());
            wrote_all = false;
        } else if (opt.progress) {
            std::fprintf(stderr, "pcwt-bench: wrote %s\n", path.c_str());
        }
    };
    write(opt.md, "Markdown report",
          [&](const std::string &p, std::string &w) { return write_markdown_report(p, report, w); });
    write(opt.csv, "CSV", [&](const std::string &p, std::string &w) { return write_csv_report(p, report, w); });
    write(opt.json, "JSON", [&](const std::string &p, std::string &w) { return write_json_report(p, report, w); });
    write(opt.html, "HTML report",
          [&](const std::string &p, std::string &w) { return write_html_report(p, report, opt.thumbnails, w); });

    if (res.mismatches > 0 || res.failures > 0)
        return 1;
    if (in.images.empty()) {
        std::fprintf(stderr, "pcwt-bench: no frame could be read\n");
        return 2;
    }
    return wrote_all ? 0 : 2;
}
