// reports.hpp - the outputs of a run: the terminal table, the Markdown tables, the CSV (one row per image and codec,
// plus one per input that gave no image), the JSON (everything) and the HTML report.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "image.hpp"
#include "results.hpp"

namespace pcwtbench {

struct ReportInput {
    const RunInfo &run;
    const std::vector<Image> &images;
    const std::vector<InputProblem> &problems;
    const BenchResults &res;
};

void print_terminal_report(std::FILE *out, const ReportInput &in);
// The writers return false (and why) when the file cannot be written.
bool write_markdown_report(const std::string &path, const ReportInput &in, std::string &why);
bool write_csv_report(const std::string &path, const ReportInput &in, std::string &why);
bool write_json_report(const std::string &path, const ReportInput &in, std::string &why);
bool write_html_report(const std::string &path, const ReportInput &in, bool thumbnails, std::string &why);

// Shared by the writers: write text to a file (false and why on failure).
bool write_text_file(const std::string &path, const std::string &text, std::string &why);

} // namespace pcwtbench
