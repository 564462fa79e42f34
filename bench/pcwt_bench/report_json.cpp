// report_json.cpp - the JSON file: the run, the codecs, every frame with every codec's result,
// the inputs not read, and the aggregates (per codec, whole set, per modality). Device-resident
// figures (GPU codecs): dev_enc_mbps / dev_dec_mbps per frame and codec, and per codec
// summary.codecs.ID.device_resident (the whole set in one device batch, enc_mbps / dec_mbps, and
// the per-frame aggregate, *_1frame); null where there is none, with *_message saying why.
#include "aggregate.hpp"
#include "reports.hpp"
#include "text_format.hpp"

namespace pcwtbench {

namespace {

std::string kv(const std::string &k, const std::string &json_value)
{
    return json_string(k) + ": " + json_value;
}

std::string str(const std::string &s)
{
    return json_string(s);
}

std::string num(double v)
{
    return json_number(v);
}

std::string boolean(bool b)
{
    return b ? "true" : "false";
}

// A device-resident figure: its MB/s (null when there is none), status, and why where it says.
std::string device_fields(const std::string &prefix, const DeviceTime &t, bool frames)
{
    const bool ok = t.status == Status::Ok;
    std::string s = kv(prefix + "mbps", ok ? num(t.mbps()) : "null");
    if (t.status != Status::NotRun)
        s += ", " + kv(prefix + "status", str(status_word(t.status)));
    if (ok)
        s += ", " + kv(prefix + "s", num(t.s));
    if (ok && frames)
        s += ", " + kv(prefix + "frames", num(static_cast<double>(t.images)));
    if (!t.message.empty())
        s += ", " + kv(prefix + "message", str(t.message));
    return s;
}

} // namespace

bool write_json_report(const std::string &path, const ReportInput &in, std::string &why)
{
    const RunInfo &run = in.run;
    const BenchResults &res = in.res;
    const size_t nc = res.codecs.size();
    std::string s = "{\n";
    s += "  " + kv("tool", str("pcwt-bench")) + ",\n";
    s += "  \"run\": {" + kv("title", str(run.title)) + ", " + kv("date_utc", str(run.date_utc)) + ", " +
         kv("host", str(run.host)) + ", " + kv("cpu_model", str(run.cpu_model)) + ", " +
         kv("hardware_threads", num(run.hardware_threads)) + ", " + kv("threads", num(run.threads)) + ", " +
         kv("repeats", num(run.repeats)) + ", " + kv("warmup", num(run.warmup)) + ", " +
         kv("gpu", str(run.gpu_status)) + ", " + kv("libpcwt", str(run.pcwt_version)) + ", " +
         kv("command", str(run.command_line)) + ", " + kv("ignored_files", num(static_cast<double>(run.ignored_files))) +
         ", \"skipped_codecs\": [";
    for (size_t k = 0; k < run.skipped_codecs.size(); ++k)
        s += std::string(k ? ", " : "") + "{" + kv("id", str(run.skipped_codecs[k].first)) + ", " +
             kv("why", str(run.skipped_codecs[k].second)) + "}";
    s += "]},\n";
    s += "  \"codecs\": [\n";
    for (size_t c = 0; c < nc; ++c) {
        const CodecInfo &ci = res.codecs[c];
        s += "    {" + kv("id", str(ci.id)) + ", " + kv("family", str(ci.family)) + ", " +
             kv("library", str(ci.library)) + ", " + kv("settings", str(ci.settings)) + ", " +
             kv("gpu", boolean(ci.gpu)) + "}" + (c + 1 < nc ? "," : "") + "\n";
    }
    s += "  ],\n  \"images\": [\n";
    for (size_t i = 0; i < in.images.size(); ++i) {
        const Image &img = in.images[i];
        const pcwt_image_desc &d = img.desc;
        s += "    {" + kv("name", str(img.name)) + ", " + kv("file", str(img.path)) + ", " +
             kv("frame", num(img.frame + 1)) + ", " + kv("frames", num(img.frame_count)) + ", " +
             kv("modality", str(img.modality)) + ", " + kv("photometric", str(img.photometric)) + ", " +
             kv("source", str(img.source)) + ", " + kv("note", str(img.note)) + ", " + kv("width", num(d.width)) +
             ", " + kv("height", num(d.height)) + ", " + kv("components", num(d.components)) + ", " +
             kv("bits_allocated", num(d.bits_allocated)) + ", " + kv("bits_stored", num(d.bits_stored)) + ", " +
             kv("signed", boolean(d.is_signed)) + ", " + kv("planar", boolean(d.planar)) + ", " +
             kv("raw_bytes", num(static_cast<double>(img.raw_bytes()))) + ", " +
             kv("peer_input", str(img.peer.describe())) + ",\n     \"results\": {";
        for (size_t c = 0; c < nc; ++c) {
            const CodecResult &r = res.per_image[i][c];
            const double raw = static_cast<double>(img.raw_bytes());
            s += (c ? ", " : "") + json_string(res.codecs[c].id) + ": {" + kv("status", str(status_word(r.status)));
            if (r.status == Status::Ok || r.status == Status::Mismatch)
                s += ", " + kv("lossless", boolean(r.status == Status::Ok)) + ", " +
                     kv("coded_bytes", num(static_cast<double>(r.coded_bytes))) + ", " +
                     kv("ratio", num(raw / static_cast<double>(r.coded_bytes)));
            if (r.status == Status::Ok)
                s += ", " + kv("enc_s", num(r.enc_s)) + ", " + kv("dec_s", num(r.dec_s)) + ", " +
                     kv("enc_mbps", num(raw / r.enc_s / 1e6)) + ", " + kv("dec_mbps", num(raw / r.dec_s / 1e6));
            if (!r.message.empty())
                s += ", " + kv("message", str(r.message));
            s += ", " + device_fields("dev_enc_", r.dev_enc, false) + ", " + device_fields("dev_dec_", r.dev_dec, false);
            s += "}";
        }
        s += "}}" + std::string(i + 1 < in.images.size() ? "," : "") + "\n";
    }
    s += "  ],\n  \"problems\": [\n";
    for (size_t k = 0; k < in.problems.size(); ++k) {
        const InputProblem &p = in.problems[k];
        s += "    {" + kv("name", str(p.name)) + ", " + kv("file", str(p.path)) + ", " + kv("status", str(p.status)) +
             "}" + (k + 1 < in.problems.size() ? "," : "") + "\n";
    }
    s += "  ],\n  \"summary\": {\n    " + kv("common_frames", num(static_cast<double>(res.common.size()))) + ",\n";
    s += "    " + kv("mismatches", num(static_cast<double>(res.mismatches))) + ", " +
         kv("failures", num(static_cast<double>(res.failures))) + ",\n    \"codecs\": {\n";
    for (size_t c = 0; c < nc; ++c) {
        const Aggregate a = aggregate_codec(in.images, res, c, res.common);
        const ParallelResult &p = res.parallel[c];
        s += "      " + json_string(res.codecs[c].id) + ": {" + kv("frames", num(static_cast<double>(a.images))) +
             ", " + kv("raw_bytes", num(a.raw)) + ", " + kv("coded_bytes", num(a.coded)) + ", " +
             kv("ratio", num(a.ratio())) + ", " + kv("enc_mbps_1thread", num(a.enc_mbps())) + ", " +
             kv("dec_mbps_1thread", num(a.dec_mbps())) + ",\n        \"whole_set\": {" +
             kv("status", str(status_word(p.status))) + ", " + kv("mode", str(p.mode)) + ", " +
             kv("frames", num(static_cast<double>(p.images)));
        if (p.status == Status::Ok)
            s += ", " + kv("enc_mbps", num(p.raw_bytes / p.enc_s / 1e6)) + ", " +
                 kv("dec_mbps", num(p.raw_bytes / p.dec_s / 1e6));
        if (!p.message.empty())
            s += ", " + kv("message", str(p.message));
        s += "},\n        \"device_resident\": {" + device_fields("enc_", p.dev_enc, true) + ", " +
             device_fields("dec_", p.dev_dec, true) + ", " +
             kv("enc_mbps_1frame", a.dev_enc_images ? num(a.dev_enc_mbps()) : "null") + ", " +
             kv("dec_mbps_1frame", a.dev_dec_images ? num(a.dev_dec_mbps()) : "null") + "}";
        s += "}" + std::string(c + 1 < nc ? "," : "") + "\n";
    }
    s += "    },\n    \"by_modality\": {\n";
    const auto groups = by_modality(in.images, res.common);
    for (size_t g = 0; g < groups.size(); ++g) {
        s += "      " + json_string(groups[g].first) + ": {" +
             kv("frames", num(static_cast<double>(groups[g].second.size()))) + ", \"ratio\": {";
        for (size_t c = 0; c < nc; ++c)
            s += (c ? ", " : "") +
                 kv(res.codecs[c].id, num(aggregate_codec(in.images, res, c, groups[g].second).ratio()));
        s += "}}" + std::string(g + 1 < groups.size() ? "," : "") + "\n";
    }
    s += "    }\n  }\n}\n";
    return write_text_file(path, s, why);
}

} // namespace pcwtbench
