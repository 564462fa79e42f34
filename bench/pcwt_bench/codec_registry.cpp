// codec_registry.cpp - which codecs a run uses (see codecs.hpp).
#include "codecs.hpp"

#include <pcwt.h>

#include <algorithm>
#include <stdexcept>

namespace pcwtbench {

const std::vector<std::string> &all_codec_ids()
{
    static const std::vector<std::string> ids = {
        "pcwt-cpu",         "pcwt-gpu",          "pcwt-jpegls",      "pcwt-jpegls-gpu",   "charls",
        "openjpeg",         "jpeg2000-gpu",      "openjph",          "pcwt-baseline-cpu", "pcwt-baseline-gpu",
        "pcwt-entropy-cpu", "pcwt-entropy-gpu",  "pcwt-compact-cpu", "pcwt-compact-gpu",  "jpegxl"};
    return ids;
}

bool in_default_set(const std::string &id)
{
    return pcwt_profile_of(id).empty() && id != "jpegxl";
}

std::string pcwt_profile_of(const std::string &id)
{
    for (int64_t v = 0; const char *p = pcwt_option_value_name(PCWT_OPT_PROFILE, v); ++v) // libpcwt's names
        for (const char *side : {"-cpu", "-gpu"})
            if (id == std::string("pcwt-") + p + side)
                return p;
    return "";
}

bool is_gpu_codec(const std::string &id)
{
    return id.size() > 4 && id.compare(id.size() - 4, 4, "-gpu") == 0;
}

CodecSelection select_codecs(const std::vector<std::string> &ids, const std::string &gpu, const PcwtSettings &pcwt,
                             const PeerSettings &peers)
{
    const std::vector<std::string> &known = all_codec_ids();
    for (const std::string &id : ids)
        if (std::find(known.begin(), known.end(), id) == known.end())
            throw std::invalid_argument("unknown codec '" + id + "'");
    auto wanted = [&](const std::string &id) {
        if (ids.empty())
            return in_default_set(id);
        return std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    bool any_gpu = false;
    for (const std::string &id : known)
        any_gpu = any_gpu || (is_gpu_codec(id) && wanted(id));
    CodecSelection sel;
    bool use_gpu = false;
    std::string gpu_why; // why the GPU codecs are not run
    if (gpu == "off") {
        sel.gpu_status = "not used (--gpu off)";
        gpu_why = "--gpu off";
    } else if (!any_gpu) {
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
        if (id == "pcwt-cpu" || id == "pcwt-gpu" || !pcwt_profile_of(id).empty())
            sel.codecs.push_back(make_pcwt_codec(id, pcwt));
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
