// charls_io.cpp - CharLS calls (see charls_io.hpp).
#include "charls_io.hpp"

#include <charls/charls.h>

#include "codec.hpp"
#include "sample_words.hpp"

namespace pcwtbench {

std::string charls_version()
{
    return charls_get_version_string();
}

JlsFrame charls_decode_frame(const uint8_t *data, size_t size)
{
    JlsFrame f;
    try {
        charls::jpegls_decoder dec(data, size, true);
        const charls::frame_info &fi = dec.frame_info();
        f.width = fi.width;
        f.height = fi.height;
        f.components = static_cast<uint32_t>(fi.component_count);
        f.bits = static_cast<uint32_t>(fi.bits_per_sample);
        f.planar = fi.component_count > 1 && dec.interleave_mode() == charls::interleave_mode::none;
        f.samples.resize(dec.destination_size());
        dec.decode(f.samples);
    } catch (const charls::jpegls_error &e) {
        throw CodecError(std::string("CharLS decode: ") + e.what());
    }
    return f;
}

int jls_interleave_for(const Image &img)
{
    return img.desc.components > 1 && !img.desc.planar ? 2 : 0;
}

// JPEG-LS needs at least 2 bits per sample; 1-bit samples are coded as 2-bit ones.
static uint32_t jls_bits(const Image &img)
{
    return img.peer.bits < 2 ? 2u : img.peer.bits;
}

void charls_encode_image(const Image &img, ByteBuffer &coded)
{
    const pcwt_image_desc &d = img.desc;
    const uint32_t bits = jls_bits(img);
    const size_t n = sample_count(d);
    const uint32_t in_bytes = bits <= 8 ? 1u : 2u;
    const uint32_t ba = d.bits_allocated;
    // The library's input: the words as they are when they already are the patterns to code.
    std::vector<uint8_t> converted;
    const uint8_t *src = img.samples.data();
    if (in_bytes * 8 != ba || !img.peer.words_are_patterns() || bits != img.peer.bits) {
        converted.resize(n * in_bytes);
        for (size_t i = 0; i < n; ++i)
            store_word(converted.data(), in_bytes * 8, i, img.peer.pattern(load_word(src, ba, i)));
        src = converted.data();
    }
    try {
        charls::jpegls_encoder enc;
        enc.frame_info({d.width, d.height, static_cast<int32_t>(bits), static_cast<int32_t>(d.components)});
        enc.interleave_mode(static_cast<charls::interleave_mode>(jls_interleave_for(img)));
        enc.near_lossless(0);
        uint8_t *dst = coded.reserve(enc.estimated_destination_size());
        enc.destination(dst, enc.estimated_destination_size());
        coded.resize(enc.encode(src, n * in_bytes));
    } catch (const charls::jpegls_error &e) {
        throw CodecError(std::string("CharLS encode: ") + e.what());
    }
}

void charls_decode_image(const Image &img, const uint8_t *data, size_t size, ByteBuffer &out)
{
    const pcwt_image_desc &d = img.desc;
    const size_t n = sample_count(d);
    const uint32_t ba = d.bits_allocated;
    try {
        charls::jpegls_decoder dec(data, size, true);
        const charls::frame_info &fi = dec.frame_info();
        const bool planar = fi.component_count > 1 && dec.interleave_mode() == charls::interleave_mode::none;
        if (fi.width != d.width || fi.height != d.height ||
            static_cast<uint32_t>(fi.component_count) != d.components ||
            static_cast<uint32_t>(fi.bits_per_sample) != jls_bits(img) ||
            (d.components > 1 && planar != (d.planar != 0)))
            throw CodecError("CharLS decode: the stream's frame does not match the image");
        const uint32_t in_bytes = fi.bits_per_sample <= 8 ? 1u : 2u;
        uint8_t *dst = out.resize(img.raw_bytes());
        if (in_bytes * 8 == ba) {
            // Decode straight into the words, then sign-extend when the patterns need it.
            dec.decode(dst, img.raw_bytes());
            if (!img.peer.words_are_patterns())
                for (size_t i = 0; i < n; ++i)
                    store_word(dst, ba, i, img.peer.word_from_pattern(load_word(dst, ba, i)));
        } else {
            std::vector<uint8_t> tmp(dec.destination_size());
            dec.decode(tmp);
            for (size_t i = 0; i < n; ++i)
                store_word(dst, ba, i, img.peer.word_from_pattern(load_word(tmp.data(), in_bytes * 8, i)));
        }
    } catch (const charls::jpegls_error &e) {
        throw CodecError(std::string("CharLS decode: ") + e.what());
    }
}

} // namespace pcwtbench
