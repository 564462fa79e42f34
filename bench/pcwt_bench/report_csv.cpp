// report_csv.cpp - the CSV: one row per frame and codec, one per input that gave no frame
// (codec empty, status saying why). lossless is true/false where the round trip ran, else empty.
#include <fstream>

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
                    "enc_ms,dec_ms,enc_mbps,dec_mbps,message\n";
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
            s += csv_field(r.message) + "\n";
        }
    }
    for (const InputProblem &p : in.problems)
        s += csv_field(p.name) + "," + csv_field(p.path) + ",,,,,,,,,,,,,,," + csv_field(p.status) +
             ",,,,,,,," + csv_field(p.status) + "\n";
    return write_text_file(path, s, why);
}

} // namespace pcwtbench
