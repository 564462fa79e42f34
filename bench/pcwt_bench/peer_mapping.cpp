// peer_mapping.cpp - choosing how peer codecs are given a frame (see peer_mapping.hpp).
#include "peer_mapping.hpp"

namespace pcwtbench {

std::string PeerMapping::describe() const
{
    const std::string b = std::to_string(bits) + "-bit";
    switch (kind) {
    case Kind::Extended:
        return b + (is_signed ? " signed" : " unsigned");
    case Kind::Pattern:
        return b + " unsigned patterns of signed samples (words not sign-extended)";
    case Kind::Word:
        return b + " unsigned words (bits above BitsStored are set)";
    }
    return b;
}

PeerMapping choose_peer_mapping(const pcwt_image_desc &desc, const uint8_t *samples)
{
    PeerMapping m;
    m.bits_allocated = desc.bits_allocated;
    m.bits = desc.bits_stored;
    m.is_signed = desc.is_signed != 0;
    if (desc.bits_stored >= desc.bits_allocated) {
        m.bits = desc.bits_allocated;
        return m;
    }
    const size_t n = sample_count(desc);
    const uint32_t wmask = word_mask(desc.bits_allocated);
    bool extended = true;
    bool low_only = true;
    for (size_t i = 0; i < n && (extended || low_only); ++i) {
        const uint32_t w = load_word(samples, desc.bits_allocated, i);
        const int32_t v = value_of_word(w, desc.bits_stored, desc.is_signed != 0);
        if ((static_cast<uint32_t>(v) & wmask) != w)
            extended = false;
        if ((w >> desc.bits_stored) != 0)
            low_only = false;
    }
    if (extended)
        return m;
    m.is_signed = false;
    if (low_only) {
        m.kind = PeerMapping::Kind::Pattern;
        return m;
    }
    m.kind = PeerMapping::Kind::Word;
    m.bits = desc.bits_allocated;
    return m;
}

} // namespace pcwtbench
