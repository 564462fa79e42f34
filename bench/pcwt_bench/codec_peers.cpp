// codec_peers.cpp - the peer codecs as Codec objects: CharLS (JPEG-LS), OpenJPEG (JPEG 2000,
// reversible 5/3) and OpenJPH (HTJ2K, reversible). The library calls are in *_io.cpp.
#include "codecs.hpp"

#include "charls_io.hpp"
#include "openjpeg_io.hpp"
#include "openjph_io.hpp"

namespace pcwtbench {

namespace {

using EncodeFn = void (*)(const Image &, ByteBuffer &);
using DecodeFn = void (*)(const Image &, const uint8_t *, size_t, ByteBuffer &);

class FunctionSession : public CodecSession {
public:
    FunctionSession(EncodeFn enc, DecodeFn dec) : enc_(enc), dec_(dec) {}
    void encode(const Image &img, ByteBuffer &coded) override { enc_(img, coded); }
    void decode(const Image &img, const uint8_t *coded, size_t size, ByteBuffer &out) override
    {
        dec_(img, coded, size, out);
    }

private:
    EncodeFn enc_;
    DecodeFn dec_;
};

// A stateless library adapter: a new library object per call (CharLS, OpenJPEG and OpenJPH all
// take one per codestream).
class FunctionCodec : public Codec {
public:
    FunctionCodec(CodecInfo info, EncodeFn enc, DecodeFn dec, std::string (*check)(const Image &))
        : info_(std::move(info)), enc_(enc), dec_(dec), check_(check)
    {
    }
    const CodecInfo &info() const override { return info_; }
    std::string cannot_code(const Image &img) const override { return check_ ? check_(img) : ""; }
    std::unique_ptr<CodecSession> open_session() const override
    {
        return std::make_unique<FunctionSession>(enc_, dec_);
    }

private:
    CodecInfo info_;
    EncodeFn enc_;
    DecodeFn dec_;
    std::string (*check_)(const Image &);
};

std::string jls_check(const Image &img)
{
    return img.peer.is_signed && img.peer.bits < 2 ? "JPEG-LS: 1-bit signed samples" : "";
}

std::string openjph_check(const Image &img)
{
    // OpenJPH 0.9 codes up to 16 bits per sample reversibly (enough for every 8/16-bit word).
    return img.peer.bits > 16 ? "OpenJPH 0.9: more than 16 bits per sample" : "";
}

} // namespace

std::unique_ptr<Codec> make_charls_codec()
{
    CodecInfo info;
    info.id = "charls";
    info.family = "JPEG-LS";
    info.library = "CharLS " + charls_version();
    info.settings = "lossless (NEAR 0), default coding parameters; interleave none (planar) or sample (RGB)";
    return std::make_unique<FunctionCodec>(info, charls_encode_image, charls_decode_image, jls_check);
}

std::unique_ptr<Codec> make_openjpeg_codec()
{
    CodecInfo info;
    info.id = "openjpeg";
    info.family = "JPEG 2000";
    info.library = "OpenJPEG " + openjpeg_version();
    info.settings = "J2K codestream, reversible 5/3, 5 levels (fewer for small images), 64x64 code blocks, "
                    "one layer, RCT for RGB, one thread per codestream";
    return std::make_unique<FunctionCodec>(info, openjpeg_encode_image, openjpeg_decode_image, nullptr);
}

std::unique_ptr<Codec> make_openjph_codec()
{
    CodecInfo info;
    info.id = "openjph";
    info.family = "HTJ2K";
    info.library = "OpenJPH " + openjph_version();
    info.settings = "HTJ2K codestream, reversible 5/3, 5 levels (fewer for small images), 64x64 code blocks, "
                    "RCT for RGB";
    return std::make_unique<FunctionCodec>(info, openjph_encode_image, openjph_decode_image, openjph_check);
}

} // namespace pcwtbench
