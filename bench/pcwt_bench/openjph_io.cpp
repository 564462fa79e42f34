// openjph_io.cpp - OpenJPH calls (see openjph_io.hpp). OpenJPH reports errors through a global
// message handler; ours throws a CodecError with the message (it is called on the thread that
// failed, so concurrent sessions are fine).
#include "openjph_io.hpp"

#include <openjph/ojph_arch.h>
#include <openjph/ojph_codestream.h>
#include <openjph/ojph_file.h>
#include <openjph/ojph_mem.h>
#include <openjph/ojph_message.h>
#include <openjph/ojph_params.h>
#include <openjph/ojph_version.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "codec.hpp"
#include "openjpeg_io.hpp"
#include "sample_words.hpp"

namespace pcwtbench {

namespace {

class ThrowingError : public ojph::message_error {
public:
    void operator()(int code, const char * /*file*/, int /*line*/, const char *fmt, ...) override
    {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        std::vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        throw CodecError("OpenJPH error 0x" + to_hex(code) + ": " + msg);
    }

private:
    static std::string to_hex(int v)
    {
        char b[16];
        std::snprintf(b, sizeof b, "%x", static_cast<unsigned>(v));
        return b;
    }
};

class QuietWarning : public ojph::message_warning {
public:
    void operator()(int, const char *, int, const char *, ...) override {}
};

void install_handlers()
{
    static std::once_flag once;
    std::call_once(once, [] {
        static ThrowingError error;
        static QuietWarning warning;
        ojph::configure_error(&error);
        ojph::configure_warning(&warning);
    });
}

} // namespace

std::string openjph_version()
{
    return std::to_string(OPENJPH_VERSION_MAJOR) + "." + std::to_string(OPENJPH_VERSION_MINOR) + "." +
           std::to_string(OPENJPH_VERSION_PATCH);
}

void openjph_encode_image(const Image &img, ByteBuffer &coded)
{
    install_handlers();
    const pcwt_image_desc &d = img.desc;
    const uint32_t nc = d.components;
    const uint32_t ba = d.bits_allocated;
    ojph::codestream cs;
    ojph::param_siz siz = cs.access_siz();
    siz.set_image_extent(ojph::point(d.width, d.height));
    siz.set_num_components(nc);
    for (uint32_t c = 0; c < nc; ++c)
        siz.set_component(c, ojph::point(1, 1), img.peer.bits, img.peer.is_signed);
    siz.set_image_offset(ojph::point(0, 0));
    siz.set_tile_size(ojph::size(d.width, d.height));
    siz.set_tile_offset(ojph::point(0, 0));
    ojph::param_cod cod = cs.access_cod();
    cod.set_num_decomposition(j2k_levels_for(img));
    cod.set_block_dims(64, 64);
    cod.set_color_transform(nc == 3);
    cod.set_reversible(true);
    cs.set_planar(false);

    ojph::mem_outfile file;
    file.open(img.raw_bytes() / 2 + 4096);
    cs.write_headers(&file);
    ojph::ui32 comp = 0;
    ojph::line_buf *line = cs.exchange(nullptr, comp);
    const uint8_t *src = img.samples.data();
    // Non-planar: for each row, the components in order.
    for (uint32_t y = 0; y < d.height; ++y) {
        for (uint32_t c = 0; c < nc; ++c) {
            if (comp != c)
                throw CodecError("OpenJPH encode: unexpected component order");
            ojph::si32 *dst = line->i32;
            for (uint32_t x = 0; x < d.width; ++x)
                dst[x] = img.peer.value(load_word(src, ba, sample_index(d, y, x, c)));
            line = cs.exchange(line, comp);
        }
    }
    cs.flush();
    const size_t n = static_cast<size_t>(file.tell());
    coded.assign(file.get_data(), n);
    cs.close();
    file.close();
}

void openjph_decode_image(const Image &img, const uint8_t *data, size_t size, ByteBuffer &out)
{
    install_handlers();
    const pcwt_image_desc &d = img.desc;
    const uint32_t ba = d.bits_allocated;
    ojph::mem_infile file;
    file.open(data, size);
    ojph::codestream cs;
    cs.read_headers(&file);
    ojph::param_siz siz = cs.access_siz();
    if (siz.get_num_components() != d.components || siz.get_recon_width(0) != d.width ||
        siz.get_recon_height(0) != d.height) {
        cs.close();
        throw CodecError("OpenJPH decode: the stream's frame does not match the image");
    }
    cs.set_planar(false);
    cs.create();
    uint8_t *dst = out.resize(img.raw_bytes());
    for (uint32_t y = 0; y < d.height; ++y) {
        for (uint32_t c = 0; c < d.components; ++c) {
            ojph::ui32 comp = 0;
            ojph::line_buf *line = cs.pull(comp);
            if (comp != c) {
                cs.close();
                throw CodecError("OpenJPH decode: unexpected component order");
            }
            const ojph::si32 *src = line->i32;
            for (uint32_t x = 0; x < d.width; ++x)
                store_word(dst, ba, sample_index(d, y, x, c), img.peer.word_from_value(src[x]));
        }
    }
    cs.close();
    file.close();
}

} // namespace pcwtbench
