// codec_peers.cpp - the peer codecs as Codec objects: CharLS (JPEG-LS), OpenJPEG (JPEG 2000,
// reversible 5/3), OpenJPH (HTJ2K, reversible) and libjxl (JPEG XL, lossless; when built with it).
// The library calls are in *_io.cpp.
#include "codecs.hpp"

#include "charls_io.hpp"
#include "openjpeg_io.hpp"
#include "openjph_io.hpp"
#if PCWT_BENCH_HAVE_JXL
#include "jxl_io.hpp"
#endif

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

CodecInfo peer_info(std::string id, std::string family, std::string library, std::string settings)
{
    CodecInfo info;
    info.id = std::move(id);
    info.family = std::move(family);
    info.library = std::move(library);
    info.settings = std::move(settings);
    return info;
}

std::string jls_check(const Image &img)
{
    return img.peer.is_signed && img.peer.bits < 2 ? "JPEG-LS: 1-bit signed samples" : "";
}

std::string openjph_check(const Image &img)
{
    // OpenJPH 0.9 codes up to 16 bits per sample reversibly (enough for every 8/16-bit word).
    return img.peer.bits > 16 ? "OpenJPH 0.9: more than 16 bits per sample" : "";
}

#if PCWT_BENCH_HAVE_JXL
// libjxl's effort is a per-codec setting, so its session holds it.
class JxlSession : public CodecSession {
public:
    explicit JxlSession(int effort) : effort_(effort) {}
    void encode(const Image &img, ByteBuffer &coded) override { jxl_encode_image(img, effort_, coded); }
    void decode(const Image &img, const uint8_t *coded, size_t size, ByteBuffer &out) override
    {
        jxl_decode_image(img, coded, size, out);
    }

private:
    int effort_;
};

class JxlCodec : public Codec {
public:
    JxlCodec(CodecInfo info, int effort) : info_(std::move(info)), effort_(effort) {}
    const CodecInfo &info() const override { return info_; }
    std::string cannot_code(const Image &img) const override
    {
        if (img.desc.components != 1 && img.desc.components != 3)
            return "JPEG XL: 1 or 3 components only";
        return img.peer.bits > 16 ? "libjxl: more than 16 bits per sample" : "";
    }
    std::unique_ptr<CodecSession> open_session() const override { return std::make_unique<JxlSession>(effort_); }

private:
    CodecInfo info_;
    int effort_;
};
#endif

} // namespace

std::string jxl_unavailable()
{
#if PCWT_BENCH_HAVE_JXL
    return "";
#else
    return "pcwt-bench was built without libjxl (libjxl-dev)";
#endif
}

std::unique_ptr<Codec> make_jxl_codec(int effort)
{
#if PCWT_BENCH_HAVE_JXL
    return std::make_unique<JxlCodec>(
        peer_info("jpegxl", "JPEG XL", "libjxl " + jxl_version(),
                  "lossless (modular, distance 0), effort " + std::to_string(effort) +
                      ", bits_per_sample = BitsStored, signed values offset by 2^(BitsStored-1), one thread"),
        effort);
#else
    (void)effort;
    return nullptr;
#endif
}

std::unique_ptr<Codec> make_charls_codec()
{
    return std::make_unique<FunctionCodec>(
        peer_info("charls", "JPEG-LS", "CharLS " + charls_version(),
                  "lossless (NEAR 0), default coding parameters; interleave none (planar) or sample (RGB)"),
        charls_encode_image, charls_decode_image, jls_check);
}

std::unique_ptr<Codec> make_openjpeg_codec()
{
    return std::make_unique<FunctionCodec>(
        peer_info("openjpeg", "JPEG 2000", "OpenJPEG " + openjpeg_version(),
                  "J2K codestream, reversible 5/3, 5 levels (fewer for small images), 64x64 code blocks, "
                  "one layer, RCT for RGB, one thread per codestream"),
        openjpeg_encode_image, openjpeg_decode_image, nullptr);
}

std::unique_ptr<Codec> make_openjph_codec()
{
    return std::make_unique<FunctionCodec>(
        peer_info("openjph", "HTJ2K", "OpenJPH " + openjph_version(),
                  "HTJ2K codestream, reversible 5/3, 5 levels (fewer for small images), 64x64 code blocks, "
                  "RCT for RGB"),
        openjph_encode_image, openjph_decode_image, openjph_check);
}

} // namespace pcwtbench
