// codec_registry.cpp - which codecs a run uses (see codecs.hpp).
#include "codecs.hpp"

#include <algorithm>
#include <stdexcept>

namespace pcwtbench {

const std::vector<std::string> &all_codec_ids()
{
    static const std::vector<std::string> ids = {"pcwt-cpu", "pcwt-gpu", "pcwt-jpegls", "pcwt-jpegls-gpu",
                                                 "charls",   "openjpeg", "jpeg2000-gpu", "openjph", "pcwt-entropy-cpu",
                                                 "pcwt-entropy-gpu", "pcwt-compact-cpu", "pcwt-compact-gpu", "jpegxl"};
    return ids;
}

namespace {

bool is_gpu_codec(const std::string &id)
{
    return id == "pcwt-gpu" || id == "pcwt-jpegls-gpu" || id == "pcwt-entropy-gpu" || id == "pcwt-compact-gpu" ||
           id == "jpeg2000-gpu";
}

} // namespace

CodecSelection select_codecs(const std::vector<std::string> &ids, const std::string &gpu, const PcwtSettings &pcwt,
                             const PeerSettings &peers)
{
    const std::vector<std::string> &known = all_codec_ids();
    for (const std::string &id : ids)
        if (std::find(known.begin(), known.end(), id) == known.end())
            throw std::invalid_argument("unknown codec '" + id + "'");
    auto wanted = [&](const std::string &id) {
        if (ids.empty()) // the default set; the entropy and compact profiles and JPEG XL only when named
            return id.rfind("pcwt-entropy-", 0) != 0 && id.rfind("pcwt-compact-", 0) != 0 && id != "jpegxl";
        return std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    CodecSelection sel;
    bool use_gpu = false;
    std::string gpu_why; // why the GPU codecs are not run
    if (gpu == "off") {
        sel.gpu_status = "not used (--gpu off)";
        gpu_why = "--gpu off";
    } else if (!wanted("pcwt-gpu") && !wanted("pcwt-jpegls-gpu") && !wanted("pcwt-entropy-gpu") &&
               !wanted("pcwt-compact-gpu") && !wanted("jpeg2000-gpu")) {
        sel.gpu_status = "not used (not in --codecs)";
    } else {
        const std::string why = probe_pcwt_gpu();
        if (why.empty()) {
            use_gpu = true;
            sel.gpu_status = "used";
        } else if (gpu == "on") {
            sel.gpu_status = "required (--gpu on) but unavailable: " + why;
            return sel;
        } else {
            sel.gpu_status = "not available: " + why;
            gpu_why = "no GPU: " + why;
        }
    }
    for (const std::string &id : known) {
        if (!wanted(id))
            continue;
        if (is_gpu_codec(id) && !use_gpu) {
            sel.skipped.emplace_back(id, gpu_why);
            continue;
        }
        if (id == "pcwt-cpu")
            sel.codecs.push_back(make_pcwt_codec(false, pcwt));
        else if (id == "pcwt-gpu")
            sel.codecs.push_back(make_pcwt_codec(true, pcwt));
        else if (id == "pcwt-jpegls")
            sel.codecs.push_back(make_pcwt_jpegls_codec(false));
        else if (id == "pcwt-jpegls-gpu")
            sel.codecs.push_back(make_pcwt_jpegls_codec(true));
        else if (id == "charls")
            sel.codecs.push_back(make_charls_codec());
        else if (id == "openjpeg")
            sel.codecs.push_back(make_openjpeg_codec());
        else if (id == "jpeg2000-gpu")
            sel.codecs.push_back(make_j2k_gpu_codec());
        else if (id == "openjph")
            sel.codecs.push_back(make_openjph_codec());
        else if (id == "pcwt-entropy-cpu")
            sel.codecs.push_back(make_pcwt_entropy_codec(false, pcwt));
        else if (id == "pcwt-entropy-gpu")
            sel.codecs.push_back(make_pcwt_entropy_codec(true, pcwt));
        else if (id == "pcwt-compact-cpu")
            sel.codecs.push_back(make_pcwt_compact_codec(false, pcwt));
        else if (id == "pcwt-compact-gpu")
            sel.codecs.push_back(make_pcwt_compact_codec(true, pcwt));
        else if (id == "jpegxl") {
            if (jxl_unavailable().empty())
                sel.codecs.push_back(make_jxl_codec(peers.jxl_effort));
            else
                sel.skipped.emplace_back(id, jxl_unavailable());
        }
    }
    return sel;
}

} // namespace pcwtbench
