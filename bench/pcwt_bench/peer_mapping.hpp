// peer_mapping.hpp - how the peer codecs (JPEG-LS, JPEG 2000, HTJ2K), which code samples of a
// given precision rather than DICOM words, are given an image so that every word comes back.
//
// libpcwt codes the words themselves (bits above BitsStored included). The others are given,
// in order of preference:
//   extended  BitsStored-bit samples, when every word is the sign extension (signed) or zero
//             extension (unsigned) of its low BitsStored bits: the usual case. JPEG 2000 and
//             HTJ2K code signed values, JPEG-LS their BitsStored-bit two's-complement pattern.
//   pattern   BitsStored-bit unsigned patterns, when a signed image's words have zero high bits
//             (a writer that did not sign-extend).
//   word      BitsAllocated-bit unsigned words, when some word has other bits above BitsStored.
// The decoded samples are turned back into words and compared with the original words.
#pragma once

#include <pcwt.h>

#include <cstdint>
#include <string>

#include "sample_words.hpp"

namespace pcwtbench {

struct PeerMapping {
    enum class Kind { Extended, Pattern, Word };
    Kind kind = Kind::Extended;
    uint32_t bits = 16;       // precision given to the codec
    bool is_signed = false;   // signed values (only for Extended with a signed image)
    uint32_t bits_allocated = 16;

    // JPEG-LS input: the `bits`-bit pattern of a word (the word when kind is Word).
    uint32_t pattern(uint32_t w) const { return w & word_mask(bits); }
    // JPEG 2000 / HTJ2K input: the sample value of a word.
    int32_t value(uint32_t w) const { return value_of_word(w, bits, is_signed); }
    // Back to the word from a decoded pattern or value.
    uint32_t word_from_pattern(uint32_t p) const
    {
        return word_from_value(value_of_word(p, bits, is_signed));
    }
    uint32_t word_from_value(int32_t v) const
    {
        return static_cast<uint32_t>(v) & word_mask(bits_allocated);
    }
    // True when the words can go to the codec unchanged (a pattern is the word itself).
    bool words_are_patterns() const { return !is_signed || bits == bits_allocated; }
    std::string describe() const;
};

// Look at every word of the frame and choose the mapping.
PeerMapping choose_peer_mapping(const pcwt_image_desc &desc, const uint8_t *samples);

} // namespace pcwtbench
