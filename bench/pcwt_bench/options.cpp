// options.cpp - see options.hpp.
#include "options.hpp"

#include <pcwt.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "codecs.hpp"

#ifndef PCWT_SHARED_DIR
#define PCWT_SHARED_DIR "../shared"
#endif

namespace pcwtbench {

namespace {

// libpcwt's value names of an option, as "a, b or c"
std::string choices(pcwt_option option)
{
    std::string list;
    size_t n = 0;
    while (pcwt_option_value_name(option, static_cast<int64_t>(n)))
        n++;
    for (size_t k = 0; k < n; k++)
        list += std::string(k == 0 ? "" : k + 1 == n ? " or " : ", ") +
                pcwt_option_value_name(option, static_cast<int64_t>(k));
    return list;
}

void print_usage(std::FILE *f)
{
    std::fprintf(f,
        "usage: pcwt-bench [options] PATH...\n"
        "\n"
        "Compares lossless codecs on your images: libpcwt's PCWT codec (CPU, and GPU when present),\n"
        "libpcwt's JPEG-LS encoder (CPU, and GPU when present), CharLS (JPEG-LS), OpenJPEG (JPEG 2000),\n"
        "OpenJPH (HTJ2K) and, when named, libjxl (JPEG XL).\n"
        "Every round trip is checked sample by sample. Writes a table to stdout, progress to stderr,\n"
        "and a Markdown table, a CSV, a JSON and a self-contained HTML report.\n"
        "\n"
        "PATH: a DICOM file (native, JPEG, JPEG-LS, RLE, JPEG 2000, HTJ2K; every frame), a JPEG-LS or\n"
        "JPEG 2000 codestream, a PGM/PPM image, a raw file (with --raw), or a directory (walked\n"
        "recursively; files are recognised by their content, raw ones by a .raw name).\n"
        "      --wg04            add the WG04 set: " PCWT_SHARED_DIR "/testdata/wg04/jls/*.JLS\n"
        "                        (sign from the DICOM originals beside them) and dicom_unc/MR1_UNC.dcm\n"
        "\n"
        "options:\n"
        "  -o, --output PREFIX   write PREFIX.md, PREFIX.csv, PREFIX.json and PREFIX.html (default pcwt-bench)\n"
        "      --md FILE, --csv FILE, --json FILE, --html FILE\n"
        "                        name one output explicitly ('none': do not write it)\n"
        "  -n, --repeats N       timed runs per measurement, the median is reported (default 5)\n"
        "  -w, --warmup N        untimed runs before timing (default 1)\n"
        "  -j, --threads N       threads for the all-threads measurement (default: all hardware threads)\n"
        "      --no-parallel     skip the all-threads / GPU batch measurement\n"
        "      --codecs LIST     comma-separated subset of: pcwt-cpu,pcwt-gpu,pcwt-jpegls,pcwt-jpegls-gpu,\n"
        "                        charls,openjpeg,jpeg2000-gpu,openjph (default: all of those), or\n"
        "                        pcwt-PROFILE-cpu, pcwt-PROFILE-gpu (PCWT in a profile by name: baseline,\n"
        "                        entropy or compact), jpegxl (libjxl, lossless)\n"
        "      --jxl-effort N    libjxl's effort for jpegxl, 1 (fastest) to 9 (smallest; default 7)\n"
        "      --gpu auto|on|off the GPU codecs (the ids ending in -gpu; end-to-end and device-resident\n"
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
        "PCWT parameters (pcwt-cpu, pcwt-gpu, pcwt-PROFILE-*; as the pcwt tool's):\n"
        "      --profile baseline|entropy|compact\n"
        "                        pcwt-cpu/-gpu code libpcwt's default profile, compact; another profile\n"
        "                        runs as pcwt-PROFILE-cpu/-gpu in their place\n"
        "      --levels N        wavelet levels, 0-10 (default 6, fewer for small images)\n"
        "      --group G|RxC     groups of GxG or RxC elements, 1-256 (default: the profile's size)\n"
        "      --lifting auto|rows|columns\n"
        "                        which pass of the 2-D lifting comes first (default: the profile's)\n"
        "      --level1-filter 53|auto|511\n"
        "                        entropy and compact profiles: the finest level's filter (default auto)\n"
        "      --offset auto|off|on\n"
        "                        compact profile: the per-plane modular offset (default: libpcwt's)\n"
        "      --second-bit on|off\n"
        "                        entropy and compact profiles: the modelled second mantissa bit\n"
        "                        (default: libpcwt's)\n"
        "\n"
        "A comparison on one CPU thread, codecs alternating run by run (e.g. against CharLS):\n"
        "  pcwt-bench --wg04 --codecs pcwt-cpu,charls --no-parallel -o cpu\n"
        "\n"
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

// "G" or "RxC", each 1..PCWT_MAX_GROUP.
bool parse_group(const std::string &s, unsigned &rows, unsigned &cols)
{
    const size_t x = s.find('x');
    if (x == std::string::npos)
        return parse_unsigned(s, 1, PCWT_MAX_GROUP, rows) && parse_unsigned(s, 1, PCWT_MAX_GROUP, cols);
    return parse_unsigned(s.substr(0, x), 1, PCWT_MAX_GROUP, rows) &&
           parse_unsigned(s.substr(x + 1), 1, PCWT_MAX_GROUP, cols);
}

// --profile NAME other than libpcwt's default: that profile's codecs (pcwt-NAME-cpu/-gpu) in place
// of pcwt-cpu/-gpu, in the list given or in the default one.
void use_profile(std::vector<std::string> &codecs, const std::string &name)
{
    if (codecs.empty())
        for (const std::string &id : all_codec_ids())
            if (in_default_set(id))
                codecs.push_back(id);
    for (std::string &id : codecs) {
        if (id == "pcwt-cpu")
            id = "pcwt-" + name + "-cpu";
        else if (id == "pcwt-gpu")
            id = "pcwt-" + name + "-gpu";
    }
}

} // namespace

std::vector<std::string> wg04_inputs(std::string &why)
{
    namespace fs = std::filesystem;
    const fs::path wg04 = fs::path(PCWT_SHARED_DIR) / "testdata" / "wg04";
    const fs::path jls = wg04 / "jls", mr1 = wg04 / "dicom_unc" / "MR1_UNC.dcm";
    std::error_code ec;
    if (!fs::is_directory(jls, ec) || !fs::is_regular_file(mr1, ec)) {
        why = "--wg04: " + jls.string() + " or " + mr1.string() + " not found";
        return {};
    }
    return {jls.string(), mr1.string()};
}

ParseOutcome parse_options(int argc, char **argv, Options &opt)
{
    for (int i = 0; i < argc; ++i)
        opt.command_line += (i ? " " : "") + std::string(argv[i]);
    bool raw_be = false;
    pcwt_encode_params defaults;
    pcwt_encode_params_default(&defaults);
    const std::string default_profile = pcwt_profile_name(defaults.profile);
    std::string profile = default_profile;
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
        } else if (a == "--md") {
            if (!value(opt.md))
                return usage_error("--md needs a file");
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
        } else if (a == "--wg04") {
            opt.wg04 = true;
        } else if (a == "--profile") {
            int64_t p = 0; // libpcwt's profile names
            if (!value(profile) || pcwt_option_parse(PCWT_OPT_PROFILE, profile.c_str(), &p) != PCWT_OK)
                return usage_error("--profile takes " + choices(PCWT_OPT_PROFILE));
            profile = pcwt_profile_name(static_cast<pcwt_profile>(p));
        } else if (a == "--levels") {
            if (!value(v) || !parse_unsigned(v, 0, PCWT_MAX_LEVELS, opt.pcwt.levels))
                return usage_error("--levels needs a number from 0 to " + std::to_string(PCWT_MAX_LEVELS));
            opt.pcwt.levels_set = true;
        } else if (a == "--group") {
            if (!value(v) || !parse_group(v, opt.pcwt.group_rows, opt.pcwt.group_cols))
                return usage_error("--group needs G or RxC, each from 1 to " + std::to_string(PCWT_MAX_GROUP));
        } else if (a == "--lifting") {
            int64_t l = 0; // libpcwt's names: auto, rows, columns
            if (!value(v) || pcwt_option_parse(PCWT_OPT_LIFTING_ORDER, v.c_str(), &l) != PCWT_OK)
                return usage_error("--lifting takes " + choices(PCWT_OPT_LIFTING_ORDER));
            opt.pcwt.lifting = static_cast<pcwt_lifting_order>(l);
        } else if (a == "--level1-filter") {
            int64_t l = 0;
            if (!value(v) || pcwt_option_parse(PCWT_OPT_LEVEL1_FILTER, v.c_str(), &l) != PCWT_OK)
                return usage_error("--level1-filter takes " + choices(PCWT_OPT_LEVEL1_FILTER));
            opt.pcwt.level1 = static_cast<pcwt_level1_filter>(l);
        } else if (a == "--offset") {
            int64_t m = 0;
            if (!value(v) || pcwt_option_parse(PCWT_OPT_OFFSET, v.c_str(), &m) != PCWT_OK)
                return usage_error("--offset takes " + choices(PCWT_OPT_OFFSET));
            opt.pcwt.offset = static_cast<int>(m);
        } else if (a == "--second-bit") {
            int64_t m = 0;
            if (!value(v) || pcwt_option_parse(PCWT_OPT_SECOND_BIT, v.c_str(), &m) != PCWT_OK)
                return usage_error("--second-bit takes " + choices(PCWT_OPT_SECOND_BIT));
            opt.pcwt.second_bit = static_cast<int>(m);
        } else if (a == "--jxl-effort") {
            unsigned e = 0;
            if (!value(v) || !parse_unsigned(v, 1, 9, e))
                return usage_error("--jxl-effort takes 1-9");
            opt.peers.jxl_effort = static_cast<int>(e);
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
    if (profile != default_profile)
        use_profile(opt.codecs, profile);
    if (opt.wg04) {
        std::string why;
        const std::vector<std::string> set = wg04_inputs(why);
        if (set.empty())
            return usage_error(why);
        opt.paths.insert(opt.paths.end(), set.begin(), set.end());
    }
    if (opt.paths.empty())
        return usage_error("no input PATH (or --wg04)");
    if (opt.threads == 0) {
        opt.threads = std::thread::hardware_concurrency();
        if (opt.threads == 0)
            opt.threads = 1;
    }
    if (opt.md.empty())
        opt.md = opt.prefix + ".md";
    if (opt.csv.empty())
        opt.csv = opt.prefix + ".csv";
    if (opt.json.empty())
        opt.json = opt.prefix + ".json";
    if (opt.html.empty())
        opt.html = opt.prefix + ".html";
    return ParseOutcome::Run;
}

} // namespace pcwtbench
