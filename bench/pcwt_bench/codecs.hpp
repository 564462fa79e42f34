// codecs.hpp - the codecs pcwt-bench knows, and how to make them.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "codec.hpp"
#include "options.hpp"

namespace pcwtbench {

// libpcwt's PCWT codec (codec_pcwt.cpp) with the parameters of set, on the CPU or the GPU as the id
// ends: "pcwt-cpu" / "pcwt-gpu" in libpcwt's default profile (compact), "pcwt-PROFILE-cpu" /
// "-gpu" in the profile named (baseline, entropy, compact; only when --codecs or --profile names
// it).
std::unique_ptr<Codec> make_pcwt_codec(const std::string &id, const PcwtSettings &set);
// libpcwt's JPEG-LS encoder on the CPU ("pcwt-jpegls") or the GPU ("pcwt-jpegls-gpu").
std::unique_ptr<Codec> make_pcwt_jpegls_codec(bool gpu);
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
// Whether a run without --codecs has the codec: all but the PCWT profiles by name and jpegxl.
bool in_default_set(const std::string &id);
// The profile a "pcwt-PROFILE-cpu" / "-gpu" id names; "" for every other id.
std::string pcwt_profile_of(const std::string &id);
// Whether the codec runs on the GPU: its id ends in -gpu.
bool is_gpu_codec(const std::string &id);

struct CodecSelection {
    std::vector<std::unique_ptr<Codec>> codecs;
    std::string gpu_status; // "used", or why the GPU codecs are not in the run
    std::vector<std::pair<std::string, std::string>> skipped; // codecs asked for but not run: id, why
};

// Make the codecs asked for (ids; empty = the default set). gpu: "auto" (the GPU codecs, the ids
// ending in -gpu, when a device works; otherwise they are listed in `skipped`), "on" (required:
// error text returned in gpu_status and no codecs), "off"; the PCWT codecs with the parameters of
// pcwt, the peers with those of peers. Throws std::invalid_argument for an unknown id.
CodecSelection select_codecs(const std::vector<std::string> &ids, const std::string &gpu, const PcwtSettings &pcwt,
                             const PeerSettings &peers);

} // namespace pcwtbench
