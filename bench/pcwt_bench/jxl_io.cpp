// jxl_io.cpp - libjxl calls (see jxl_io.hpp).
#include "jxl_io.hpp"

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/version.h>

#include <memory>
#include <vector>

#include "codec.hpp"
#include "sample_words.hpp"

namespace pcwtbench {

namespace {

struct EncoderFree {
    void operator()(JxlEncoder *e) const { JxlEncoderDestroy(e); }
};
struct DecoderFree {
    void operator()(JxlDecoder *d) const { JxlDecoderDestroy(d); }
};

// The largest value of a b-bit sample, and the offset that makes a signed sample unsigned.
uint32_t max_value(const Image &img) { return word_mask(img.peer.bits); }
int32_t value_offset(const Image &img) { return img.peer.is_signed ? int32_t{1} << (img.peer.bits - 1) : 0; }

// A b-bit unsigned value to and from libjxl's full-range 16-bit buffer value.
uint16_t to_full_range(uint32_t v, uint32_t maxv)
{
    return static_cast<uint16_t>((uint64_t{v} * 65535u + maxv / 2) / maxv);
}
uint32_t from_full_range(uint16_t u, uint32_t maxv)
{
    return static_cast<uint32_t>((uint64_t{u} * maxv + 32767u) / 65535u);
}

void check_enc(JxlEncoderStatus s, const char *call)
{
    if (s != JXL_ENC_SUCCESS)
        throw CodecError(std::string("libjxl ") + call + " failed");
}

} // namespace

std::string jxl_version()
{
    return std::to_string(JPEGXL_MAJOR_VERSION) + "." + std::to_string(JPEGXL_MINOR_VERSION) + "." +
           std::to_string(JPEGXL_PATCH_VERSION);
}

void jxl_encode_image(const Image &img, int effort, ByteBuffer &coded)
{
    const pcwt_image_desc &d = img.desc;
    const uint32_t nc = d.components;
    if (nc != 1 && nc != 3)
        throw CodecError("libjxl encode: 1 or 3 components only");
    const uint32_t maxv = max_value(img);
    const int32_t off = value_offset(img);
    // Interleaved full-range 16-bit samples, the layout JxlPixelFormat describes.
    std::vector<uint16_t> pixels(sample_count(d));
    for (uint32_t y = 0; y < d.height; ++y)
        for (uint32_t x = 0; x < d.width; ++x)
            for (uint32_t c = 0; c < nc; ++c) {
                const uint32_t w = load_word(img.samples.data(), d.bits_allocated, sample_index(d, y, x, c));
                const uint32_t v = static_cast<uint32_t>(img.peer.value(w) + off);
                pixels[(static_cast<size_t>(y) * d.width + x) * nc + c] = to_full_range(v, maxv);
            }

    std::unique_ptr<JxlEncoder, EncoderFree> enc(JxlEncoderCreate(nullptr));
    if (!enc)
        throw CodecError("libjxl JxlEncoderCreate failed");
    JxlBasicInfo info;
    JxlEncoderInitBasicInfo(&info);
    info.xsize = d.width;
    info.ysize = d.height;
    info.bits_per_sample = img.peer.bits;
    info.exponent_bits_per_sample = 0;
    info.num_color_channels = nc;
    info.uses_original_profile = JXL_TRUE; // required for lossless
    check_enc(JxlEncoderSetBasicInfo(enc.get(), &info), "JxlEncoderSetBasicInfo");
    JxlColorEncoding color;
    JxlColorEncodingSetToSRGB(&color, nc == 1 ? JXL_TRUE : JXL_FALSE);
    check_enc(JxlEncoderSetColorEncoding(enc.get(), &color), "JxlEncoderSetColorEncoding");
    JxlEncoderFrameSettings *fs = JxlEncoderFrameSettingsCreate(enc.get(), nullptr);
    if (!fs)
        throw CodecError("libjxl JxlEncoderFrameSettingsCreate failed");
    check_enc(JxlEncoderSetFrameLossless(fs, JXL_TRUE), "JxlEncoderSetFrameLossless");
    check_enc(JxlEncoderFrameSettingsSetOption(fs, JXL_ENC_FRAME_SETTING_EFFORT, effort),
              "JxlEncoderFrameSettingsSetOption(effort)");
    const JxlPixelFormat format = {nc, JXL_TYPE_UINT16, JXL_NATIVE_ENDIAN, 0};
    check_enc(JxlEncoderAddImageFrame(fs, &format, pixels.data(), pixels.size() * sizeof(uint16_t)),
              "JxlEncoderAddImageFrame");
    JxlEncoderCloseInput(enc.get());

    std::vector<uint8_t> out(img.raw_bytes() / 2 + 4096);
    size_t used = 0;
    for (;;) {
        uint8_t *next = out.data() + used;
        size_t avail = out.size() - used;
        const JxlEncoderStatus s = JxlEncoderProcessOutput(enc.get(), &next, &avail);
        used = static_cast<size_t>(next - out.data());
        if (s == JXL_ENC_SUCCESS)
            break;
        if (s != JXL_ENC_NEED_MORE_OUTPUT)
            throw CodecError("libjxl JxlEncoderProcessOutput failed");
        out.resize(out.size() * 2);
    }
    coded.assign(out.data(), used);
}

void jxl_decode_image(const Image &img, const uint8_t *data, size_t size, ByteBuffer &out)
{
    const pcwt_image_desc &d = img.desc;
    const uint32_t nc = d.components;
    std::unique_ptr<JxlDecoder, DecoderFree> dec(JxlDecoderCreate(nullptr));
    if (!dec)
        throw CodecError("libjxl JxlDecoderCreate failed");
    if (JxlDecoderSubscribeEvents(dec.get(), JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(dec.get(), data, size) != JXL_DEC_SUCCESS)
        throw CodecError("libjxl decoder setup failed");
    JxlDecoderCloseInput(dec.get());
    const JxlPixelFormat format = {nc, JXL_TYPE_UINT16, JXL_NATIVE_ENDIAN, 0};
    std::vector<uint16_t> pixels;
    bool have_image = false;
    for (;;) {
        const JxlDecoderStatus s = JxlDecoderProcessInput(dec.get());
        if (s == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo info;
            if (JxlDecoderGetBasicInfo(dec.get(), &info) != JXL_DEC_SUCCESS)
                throw CodecError("libjxl JxlDecoderGetBasicInfo failed");
            if (info.xsize != d.width || info.ysize != d.height || info.num_color_channels != nc ||
                info.bits_per_sample != img.peer.bits)
                throw CodecError("libjxl decode: the stream's frame does not match the image");
        } else if (s == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t bytes = 0;
            if (JxlDecoderImageOutBufferSize(dec.get(), &format, &bytes) != JXL_DEC_SUCCESS ||
                bytes != sample_count(d) * sizeof(uint16_t))
                throw CodecError("libjxl decode: unexpected output size");
            pixels.resize(sample_count(d));
            if (JxlDecoderSetImageOutBuffer(dec.get(), &format, pixels.data(), bytes) != JXL_DEC_SUCCESS)
                throw CodecError("libjxl JxlDecoderSetImageOutBuffer failed");
        } else if (s == JXL_DEC_FULL_IMAGE) {
            have_image = true;
        } else if (s == JXL_DEC_SUCCESS) {
            break;
        } else {
            throw CodecError("libjxl decode: corrupt or truncated codestream");
        }
    }
    if (!have_image)
        throw CodecError("libjxl decode: no image in the codestream");
    const uint32_t maxv = max_value(img);
    const int32_t off = value_offset(img);
    uint8_t *dst = out.resize(img.raw_bytes());
    for (uint32_t y = 0; y < d.height; ++y)
        for (uint32_t x = 0; x < d.width; ++x)
            for (uint32_t c = 0; c < nc; ++c) {
                const uint16_t u = pixels[(static_cast<size_t>(y) * d.width + x) * nc + c];
                const int32_t v = static_cast<int32_t>(from_full_range(u, maxv)) - off;
                store_word(dst, d.bits_allocated, sample_index(d, y, x, c), img.peer.word_from_value(v));
            }
}

} // namespace pcwtbench
