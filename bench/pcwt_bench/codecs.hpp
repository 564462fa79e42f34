// codecs.hpp - the codecs pcwt-bench knows, and how to make them.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codec.hpp"
#include "options.hpp"

namespace pcwtbench {

// libpcwt (codec_pcwt.cpp), PCWT with the parameters of set.
std::unique_ptr<Codec> make_pcwt_codec(bool gpu, const PcwtSettings &set);
// libpcwt's JPEG-LS encoder on the CPU ("pcwt-jpegls") or the GPU ("pcwt-jpegls-gpu").
std::unique_ptr<Codec> make_pcwt_jpegls_codec(bool gpu);
// PCWT's entropy profile on the CPU or the GPU ("pcwt-entropy-cpu", "pcwt-entropy-gpu"; only when
// --codecs names them).
std::unique_ptr<Codec> make_pcwt_entropy_codec(bool gpu, const PcwtSettings &set);
// PCWT's compact profile (the entropy profile with value maps) on the CPU or the GPU
// ("pcwt-compact-cpu", "pcwt-compact-gpu"; only when --codecs names them).
std::unique_ptr<Codec> make_pcwt_compact_codec(bool gpu, const PcwtSettings &set);
// Empty when the GPU backend works here (a small image round-trips on it), else why not.
std::string probe_pcwt_gpu();

// libpcwt's JPEG 2000 decoder on the GPU decoding OpenJPEG's codestreams ("jpeg2000-gpu",
// codec_j2k_gpu.cpp).
std::unique_ptr<Codec> make_j2k_gpu_codec();

// Peers (codec_peers.cpp).
std::unique_ptr<Codec> make_charls_codec();
std::unique_ptr<Codec> make_openjpeg_codec();
std::unique_ptr<Codec> make_openjph_codec();
// libjxl (JPEG XL) at an effort of 1-9 ("jpegxl"; only when --codecs names it); null, with
// jxl_unavailable() saying why, when pcwt-bench was built without libjxl.
std::unique_ptr<Codec> make_jxl_codec(int effort);
std::string jxl_unavailable();

// Every codec id, in report order.
const std::vector<std::string> &all_codec_ids();

struct CodecSelection {
    std::vector<std::unique_ptr<Codec>> codecs;
    std::string gpu_status; // "used", or why the GPU codecs are not in the run
    std::vector<std::pair<std::string, std::string>> skipped; // codecs asked for but not run: id, why
};

// Make the codecs asked for (ids; empty = all). gpu: "auto" (the GPU codecs pcwt-gpu,
// pcwt-jpegls-gpu and jpeg2000-gpu when a device works; otherwise they are listed in `skipped`), "on" (required:
// error text returned in gpu_status and no codecs), "off"; the PCWT codecs with the parameters of
// pcwt, the peers with those of peers. Throws std::invalid_argument for an unknown id.
CodecSelection select_codecs(const std::vector<std::string> &ids, const std::string &gpu, const PcwtSettings &pcwt,
                             const PeerSettings &peers);

} // namespace pcwtbench
