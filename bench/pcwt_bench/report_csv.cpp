// report_csv.cpp - the CSV: one row per frame and codec, one per input that gave no frame
// (codec empty, status saying why). lossless is true/false where the round trip ran, else empty.
// dev_*: the frame alone device-resident (GPU codecs), empty where there is no such figure
// (CPU codecs; dev_message says why for a GPU codec).
#include <fstream>
#include <utility>

#include "reports.hpp"
#include "text_format.hpp"

namespace pcwtbench {

bool write_text_file(const std::string &path, const std::string &text, std::string &why)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) {
        why = "cannot open for writing";
        return false;
    }
    f << text;
    f.close();
    if (!f) {
        why = "write failed";
        return false;
    }
    return true;
}

bool write_csv_report(const std::string &path, const ReportInput &in, std::string &why)
{
    std::string s = "image,file,frame,modality,photometric,source,width,height,components,bits_allocated,"
                    "bits_stored,signed,planar,raw_bytes,peer_input,codec,status,lossless,coded_bytes,ratio,"
                    "enc_ms,dec_ms,enc_mbps,dec_mbps,dev_enc_ms,dev_dec_ms,dev_enc_mbps,dev_dec_mbps,message,dev_message\n";
    const BenchResults &res = in.res;
    for (size_t i = 0; i < in.images.size(); ++i) {
        const Image &img = in.images[i];
        const pcwt_image_desc &d = img.desc;
        std::string head = csv_field(img.name) + "," + csv_field(img.path) + "," + std::to_string(img.frame + 1) +
                           "," + csv_field(img.modality) + "," + csv_field(img.photometric) + "," +
                           csv_field(img.source) + "," + std::to_string(d.width) + "," + std::to_string(d.height) +
                           "," + std::to_string(d.components) + "," + std::to_string(d.bits_allocated) + "," +
                           std::to_string(d.bits_stored) + "," + (d.is_signed ? "true" : "false") + "," +
                           (d.planar ? "true" : "false") + "," + std::to_string(img.raw_bytes()) + "," +
                           csv_field(img.peer.describe()) + ",";
        for (size_t c = 0; c < res.codecs.size(); ++c) {
            const CodecResult &r = res.per_image[i][c];
            s += head + csv_field(res.codecs[c].id) + "," + status_word(r.status) + ",";
            s += r.status == Status::Ok ? "true" : r.status == Status::Mismatch ? "false" : "";
            s += ",";
            if (r.status == Status::Ok || r.status == Status::Mismatch) {
                const double raw = static_cast<double>(img.raw_bytes());
                s += std::to_string(r.coded_bytes) + "," + fixed(raw / static_cast<double>(r.coded_bytes), 4) + ",";
            } else {
                s += ",,";
            }
            if (r.status == Status::Ok) {
                const double raw = static_cast<double>(img.raw_bytes());
                s += fixed(r.enc_s * 1e3, 4) + "," + fixed(r.dec_s * 1e3, 4) + "," +
                     fixed(r.enc_s > 0 ? raw / r.enc_s / 1e6 : 0, 2) + "," +
                     fixed(r.dec_s > 0 ? raw / r.dec_s / 1e6 : 0, 2) + ",";
            } else {
                s += ",,,,";
            }
            auto dev_ms = [](const DeviceTime &t) { return t.status == Status::Ok ? fixed(t.s * 1e3, 4) : ""; };
            auto dev_mbps = [](const DeviceTime &t) { return t.status == Status::Ok ? fixed(t.mbps(), 2) : ""; };
            s += dev_ms(r.dev_enc) + "," + dev_ms(r.dev_dec) + "," + dev_mbps(r.dev_enc) + "," + dev_mbps(r.dev_dec) +
                 ",";
            std::string dev_note;
            for (const auto &[what, t] : {std::pair<const char *, const DeviceTime *>{"encode", &r.dev_enc},
                                          std::pair<const char *, const DeviceTime *>{"decode", &r.dev_dec}})
                if (!t->message.empty())
                    dev_note += (dev_note.empty() ? "" : "; ") + std::string(what) + ": " +
                                (t->status == Status::Ok ? "" : std::string(status_word(t->status)) + ": ") +
                                t->message;
            s += csv_field(r.message) + "," + csv_field(dev_note) + "\n";
        }
    }
    for (const InputProblem &p : in.problems)
        s += csv_field(p.name) + "," + csv_field(p.path) + ",,,,,,,,,,,,,,," + csv_field(p.status) +
             ",,,,,,,,,,,," + csv_field(p.status) + ",\n";
    return write_text_file(path, s, why);
}

} // namespace pcwtbench
