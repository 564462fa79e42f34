// openjpeg_io.cpp - OpenJPEG calls (see openjpeg_io.hpp). Encoding writes to a memory stream,
// OpenJPEG's last error becoming the exception text; decoding is the DICOM plugin's core.
#include "openjpeg_io.hpp"

#include <openjpeg.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "codec.hpp"
#include "dpj2kcore.h"
#include "sample_words.hpp"

namespace pcwtbench {

std::string openjpeg_version()
{
    return opj_version();
}

uint32_t j2k_levels_for(const Image &img)
{
    uint32_t levels = 5;
    const uint32_t small = std::min(img.desc.width, img.desc.height);
    while (levels > 0 && (small >> levels) == 0)
        --levels;
    return levels;
}

namespace {

// Memory stream: writes to a ByteBuffer, with seeks (the encoder seeks back).
struct MemStream {
    ByteBuffer *out = nullptr;
    size_t size = 0; // bytes written so far
    size_t pos = 0;
};

OPJ_SIZE_T mem_write(void *buf, OPJ_SIZE_T n, void *user)
{
    auto *s = static_cast<MemStream *>(user);
    const size_t end = s->pos + n;
    if (end > s->size) {
        size_t cap = std::max<size_t>(end, 2 * s->size + 65536);
        s->out->reserve(cap);
        s->out->resize(end);
        s->size = end;
    }
    std::memcpy(s->out->data() + s->pos, buf, n);
    s->pos = end;
    return n;
}

OPJ_OFF_T mem_skip(OPJ_OFF_T n, void *user)
{
    auto *s = static_cast<MemStream *>(user);
    const OPJ_OFF_T np = static_cast<OPJ_OFF_T>(s->pos) + n;
    if (np < 0)
        return -1;
    s->pos = static_cast<size_t>(np);
    return n;
}

OPJ_BOOL mem_seek(OPJ_OFF_T n, void *user)
{
    auto *s = static_cast<MemStream *>(user);
    if (n < 0)
        return OPJ_FALSE;
    s->pos = static_cast<size_t>(n);
    return OPJ_TRUE;
}

opj_stream_t *make_stream(MemStream *ms)
{
    opj_stream_t *st = opj_stream_create(1u << 16, OPJ_FALSE);
    if (!st)
        throw CodecError("OpenJPEG: cannot create a stream");
    opj_stream_set_user_data(st, ms, nullptr);
    opj_stream_set_write_function(st, mem_write);
    opj_stream_set_skip_function(st, mem_skip);
    opj_stream_set_seek_function(st, mem_seek);
    return st;
}

void on_error(const char *msg, void *user)
{
    auto *last = static_cast<std::string *>(user);
    *last = msg;
    while (!last->empty() && (last->back() == '\n' || last->back() == ' '))
        last->pop_back();
}
void on_quiet(const char *, void *) {}

struct CodecDeleter {
    void operator()(opj_codec_t *c) const { opj_destroy_codec(c); }
};
struct StreamDeleter {
    void operator()(opj_stream_t *s) const { opj_stream_destroy(s); }
};
struct ImageDeleter {
    void operator()(opj_image_t *i) const { opj_image_destroy(i); }
};
using CodecPtr = std::unique_ptr<opj_codec_t, CodecDeleter>;
using StreamPtr = std::unique_ptr<opj_stream_t, StreamDeleter>;
using ImagePtr = std::unique_ptr<opj_image_t, ImageDeleter>;

CodecPtr make_codec(OPJ_CODEC_FORMAT format, bool decoder, std::string *last_error)
{
    CodecPtr c(decoder ? opj_create_decompress(format) : opj_create_compress(format));
    if (!c)
        throw CodecError("OpenJPEG: cannot create a codec");
    opj_set_error_handler(c.get(), on_error, last_error);
    opj_set_warning_handler(c.get(), on_quiet, nullptr);
    opj_set_info_handler(c.get(), on_quiet, nullptr);
    return c;
}

[[noreturn]] void fail(const char *what, const std::string &last_error)
{
    throw CodecError(std::string("OpenJPEG ") + what + (last_error.empty() ? "" : ": " + last_error));
}

// Decoding: the DICOM plugin's JPEG 2000 core (plugin/libsrc/dpj2kcore.h: headers read first, a
// JP2 file's codestream box, the decoder's messages in the error), shared with the JPEG 2000 decoder.
// choice: DPJ2K_AUTO (libpcwt's JPEG 2000 decoder, OpenJPEG for what it does not decode) to read
// input, DPJ2K_OPENJPEG for the openjpeg codec's own decode column.
void decode_core(const uint8_t *data, size_t size, DPJ2KImage &image, DPJ2KDecoderChoice choice)
{
    DPJ2KInfo info;
    std::string error;
    if (!DPJ2KReadInfo(data, size, info, error) || !DPJ2KDecode(data, size, info, image, error, choice))
        throw CodecError("JPEG 2000 decode: " + error);
}

} // namespace

bool looks_like_j2k(const uint8_t *data, size_t size)
{
    return DPJ2KLooksLikeJ2K(data, size);
}

J2kFrame openjpeg_decode_frame(const uint8_t *data, size_t size)
{
    DPJ2KImage image;
    decode_core(data, size, image, DPJ2K_AUTO);
    J2kFrame f;
    f.width = image.width();
    f.height = image.height();
    const size_t n = static_cast<size_t>(f.width) * f.height;
    for (uint32_t c = 0; c < image.components(); ++c) {
        f.precision.push_back(image.precision(c));
        f.is_signed.push_back(image.isSigned(c));
        f.planes.emplace_back(image.plane(c), image.plane(c) + n);
    }
    return f;
}

void openjpeg_encode_image(const Image &img, ByteBuffer &coded)
{
    const pcwt_image_desc &d = img.desc;
    const uint32_t nc = d.components;
    std::string last_error;
    CodecPtr codec = make_codec(OPJ_CODEC_J2K, false, &last_error);
    opj_cparameters_t p;
    opj_set_default_encoder_parameters(&p);
    p.tcp_numlayers = 1;
    p.tcp_rates[0] = 0.0f; // lossless
    p.cp_disto_alloc = 1;
    p.irreversible = 0;    // reversible 5/3
    p.numresolution = static_cast<int>(j2k_levels_for(img)) + 1;
    p.tcp_mct = nc == 3 ? 1 : 0; // reversible colour transform for RGB

    std::vector<opj_image_cmptparm_t> cp(nc);
    for (uint32_t c = 0; c < nc; ++c) {
        std::memset(&cp[c], 0, sizeof cp[c]);
        cp[c].dx = cp[c].dy = 1;
        cp[c].w = d.width;
        cp[c].h = d.height;
        cp[c].prec = img.peer.bits;
        cp[c].sgnd = img.peer.is_signed ? 1u : 0u;
    }
    ImagePtr image(opj_image_create(nc, cp.data(), nc == 3 ? OPJ_CLRSPC_SRGB : OPJ_CLRSPC_GRAY));
    if (!image)
        throw CodecError("OpenJPEG: cannot create an image");
    image->x0 = image->y0 = 0;
    image->x1 = d.width;
    image->y1 = d.height;
    const uint32_t ba = d.bits_allocated;
    for (uint32_t c = 0; c < nc; ++c) {
        OPJ_INT32 *dst = image->comps[c].data;
        for (uint32_t y = 0; y < d.height; ++y)
            for (uint32_t x = 0; x < d.width; ++x)
                *dst++ = img.peer.value(load_word(img.samples.data(), ba, sample_index(d, y, x, c)));
    }
    if (!opj_setup_encoder(codec.get(), &p, image.get()))
        fail("setup encoder", last_error);
    opj_codec_set_threads(codec.get(), 1);
    MemStream ms;
    ms.out = &coded;
    coded.resize(0);
    StreamPtr stream(make_stream(&ms));
    if (!opj_start_compress(codec.get(), image.get(), stream.get()) ||
        !opj_encode(codec.get(), stream.get()) || !opj_end_compress(codec.get(), stream.get()))
        fail("encode", last_error);
    coded.resize(ms.size);
}

void openjpeg_decode_image(const Image &img, const uint8_t *data, size_t size, ByteBuffer &out)
{
    DPJ2KImage image;
    decode_core(data, size, image, DPJ2K_OPENJPEG);
    words_from_j2k_image(img, image, out, "OpenJPEG");
}

void words_from_j2k_image(const Image &img, const DPJ2KImage &image, ByteBuffer &out, const char *decoder)
{
    const pcwt_image_desc &d = img.desc;
    if (image.components() != d.components || image.width() != d.width || image.height() != d.height)
        throw CodecError(std::string(decoder) + " decode: the stream's frame does not match the image");
    const uint32_t ba = d.bits_allocated;
    uint8_t *dst = out.resize(img.raw_bytes());
    for (uint32_t c = 0; c < d.components; ++c) {
        const int32_t *src = image.plane(c);
        for (uint32_t y = 0; y < d.height; ++y)
            for (uint32_t x = 0; x < d.width; ++x)
                store_word(dst, ba, sample_index(d, y, x, c), img.peer.word_from_value(*src++));
    }
}

} // namespace pcwtbench
