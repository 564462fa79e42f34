// options.cpp - see options.hpp.
#include "options.hpp"

#include <pcwt.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "codecs.hpp"

namespace pcwtbench {

namespace {

void print_usage(std::FILE *f)
{
    std::fprintf(f,
        "usage: pcwt-bench [options] PATH...\n"
        "\n"
        "Compares lossless codecs on your images: libpcwt's PCWT codec (CPU, and GPU when present),\n"
        "libpcwt's JPEG-LS encoder (CPU, and GPU when present), CharLS (JPEG-LS), OpenJPEG (JPEG 2000)\n"
        "and OpenJPH (HTJ2K).\n"
        "Every round trip is checked sample by sample. Writes a table to stdout, progress to stderr,\n"
        "and a CSV, a JSON and a self-contained HTML report.\n"
        "\n"
        "PATH: a DICOM file (native, JPEG, JPEG-LS, RLE, JPEG 2000, HTJ2K; every frame), a JPEG-LS or\n"
        "JPEG 2000 codestream, a PGM/PPM image, a raw file (with --raw), or a directory (walked\n"
        "recursively; files are recognised by their content, raw ones by a .raw name).\n"
        "\n"
        "options:\n"
        "  -o, --output PREFIX   write PREFIX.csv, PREFIX.json and PREFIX.html (default pcwt-bench)\n"
        "      --csv FILE, --json FILE, --html FILE\n"
        "                        name one output explicitly ('none': do not write it)\n"
        "  -n, --repeats N       timed runs per measurement, the median is reported (default 5)\n"
        "  -w, --warmup N        untimed runs before timing (default 1)\n"
        "  -j, --threads N       threads for the all-threads measurement (default: all hardware threads)\n"
        "      --no-parallel     skip the all-threads / GPU batch measurement\n"
        "      --codecs LIST     comma-separated subset of: pcwt-cpu,pcwt-gpu,pcwt-jpegls,pcwt-jpegls-gpu,\n"
        "                        charls,openjpeg,openjph (default: all of those), or pcwt-entropy-cpu,\n"
        "                        pcwt-entropy-gpu (PCWT's entropy profile)\n"
        "      --gpu auto|on|off the GPU codecs (pcwt-gpu, pcwt-jpegls-gpu; end-to-end and device-resident\n"
        "                        throughput): when a device works (auto, default), required (on), or not\n"
        "      --raw WxHxBITS[s][xC[p]]\n"
        "                        geometry of raw files: BITS stored (1-16; 8-bit words up to 8, else 16),\n"
        "                        s = signed, C = 1 or 3 components, p = planar; e.g. 512x512x12s\n"
        "      --raw-be          raw 16-bit samples are big-endian (default little-endian)\n"
        "      --title TEXT      title of the HTML report\n"
        "      --no-thumbnails   leave the thumbnails out of the HTML report\n"
        "  -q, --quiet           no progress on stderr\n"
        "      --save-frames DIR write the words of every frame read as DIR/NNNN.raw (little-endian,\n"
        "                        numbered in report order) to check what was read\n"
        "      --inject-mismatch CODEC\n"
        "                        testing: corrupt one decoded sample of CODEC to show how a mismatch is reported\n"
        "  -h, --help, --version\n"
        "\n"
        "Exit status: 0 when every round trip was exact (unreadable inputs are listed, not fatal),\n"
        "1 on any round-trip mismatch or codec failure, 2 on a usage error, when no frame could be\n"
        "read, or when an output could not be written.\n");
}

bool parse_unsigned(const std::string &s, unsigned lo, unsigned hi, unsigned &v)
{
    if (s.empty() || s.size() > 9)
        return false;
    for (char c : s)
        if (c < '0' || c > '9')
            return false;
    const unsigned long x = std::stoul(s);
    if (x < lo || x > hi)
        return false;
    v = static_cast<unsigned>(x);
    return true;
}

std::vector<std::string> split_list(const std::string &s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

} // namespace

ParseOutcome parse_options(int argc, char **argv, Options &opt)
{
    for (int i = 0; i < argc; ++i)
        opt.command_line += (i ? " " : "") + std::string(argv[i]);
    bool raw_be = false;
    auto usage_error = [](const std::string &msg) {
        std::fprintf(stderr, "pcwt-bench: %s (see --help)\n", msg.c_str());
        return ParseOutcome::ExitUsage;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](std::string &v) {
            if (i + 1 >= argc)
                return false;
            v = argv[++i];
            return true;
        };
        std::string v;
        if (a == "-h" || a == "--help") {
            print_usage(stdout);
            return ParseOutcome::ExitSuccess;
        } else if (a == "--version") {
            std::printf("pcwt-bench (libpcwt %s)\n", pcwt_version_string());
            return ParseOutcome::ExitSuccess;
        } else if (a == "-o" || a == "--output") {
            if (!value(opt.prefix) || opt.prefix.empty())
                return usage_error(a + " needs a prefix");
        } else if (a == "--csv") {
            if (!value(opt.csv))
                return usage_error("--csv needs a file");
        } else if (a == "--json") {
            if (!value(opt.json))
                return usage_error("--json needs a file");
        } else if (a == "--html") {
            if (!value(opt.html))
                return usage_error("--html needs a file");
        } else if (a == "-n" || a == "--repeats") {
            if (!value(v) || !parse_unsigned(v, 1, 1000, opt.repeats))
                return usage_error(a + " needs a number from 1 to 1000");
        } else if (a == "-w" || a == "--warmup") {
            if (!value(v) || !parse_unsigned(v, 0, 100, opt.warmup))
                return usage_error(a + " needs a number from 0 to 100");
        } else if (a == "-j" || a == "--threads") {
            if (!value(v) || !parse_unsigned(v, 1, 4096, opt.threads))
                return usage_error(a + " needs a number from 1 to 4096");
        } else if (a == "--no-parallel") {
            opt.parallel = false;
        } else if (a == "--codecs") {
            if (!value(v))
                return usage_error("--codecs needs a list");
            opt.codecs = split_list(v);
            for (const std::string &id : opt.codecs) {
                bool known = false;
                for (const std::string &k : all_codec_ids())
                    known = known || k == id;
                if (!known)
                    return usage_error("unknown codec '" + id + "'");
            }
        } else if (a == "--gpu") {
            if (!value(opt.gpu) || (opt.gpu != "auto" && opt.gpu != "on" && opt.gpu != "off"))
                return usage_error("--gpu takes auto, on or off");
        } else if (a == "--raw") {
            if (!value(v) || !(opt.raw = parse_raw_format(v)))
                return usage_error("--raw needs WxHxBITS[s][xC[p]], e.g. 512x512x12s");
        } else if (a == "--raw-be") {
            raw_be = true;
        } else if (a == "--title") {
            if (!value(opt.title))
                return usage_error("--title needs a text");
        } else if (a == "--no-thumbnails") {
            opt.thumbnails = false;
        } else if (a == "-q" || a == "--quiet") {
            opt.progress = false;
        } else if (a == "--save-frames") {
            if (!value(opt.save_frames))
                return usage_error("--save-frames needs a directory");
        } else if (a == "--inject-mismatch") {
            if (!value(opt.inject_mismatch))
                return usage_error("--inject-mismatch needs a codec");
        } else if (a == "--") {
            for (++i; i < argc; ++i)
                opt.paths.push_back(argv[i]);
        } else if (!a.empty() && a[0] == '-') {
            return usage_error("unknown option " + a);
        } else {
            opt.paths.push_back(a);
        }
    }
    if (opt.raw)
        opt.raw->big_endian = raw_be;
    if (opt.paths.empty())
        return usage_error("no input PATH");
    if (opt.threads == 0) {
        opt.threads = std::thread::hardware_concurrency();
        if (opt.threads == 0)
            opt.threads = 1;
    }
    if (opt.csv.empty())
        opt.csv = opt.prefix + ".csv";
    if (opt.json.empty())
        opt.json = opt.prefix + ".json";
    if (opt.html.empty())
        opt.html = opt.prefix + ".html";
    return ParseOutcome::Run;
}

} // namespace pcwtbench
