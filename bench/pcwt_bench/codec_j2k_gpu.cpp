// codec_j2k_gpu.cpp - "jpeg2000-gpu": libpcwt's JPEG 2000 decoder on the GPU backend (Part 1
// lossless, docs/jpeg2000.md) decoding the codestreams of the openjpeg codec (its encoder, the same
// settings, so the same streams). Its round trip is checked word for word as every codec's, and
// the openjpeg codec's decode of the same streams is checked alike: both exact means the GPU gave
// OpenJPEG's samples, sample for sample. The encode columns are OpenJPEG's again; the decode
// columns are the GPU's: one frame per pcwt_decode call (1 thread), the whole set in one
// pcwt_decode_batch call, host memory in and out (end to end).
#include "codecs.hpp"

#include <pcwt.h>

#include <memory>

#include "dpj2kcore.h"
#include "openjpeg_io.hpp"

namespace pcwtbench {

namespace {

struct DecoderDeleter {
    void operator()(pcwt_decoder *d) const { pcwt_decoder_destroy(d); }
};
using DecoderPtr = std::unique_ptr<pcwt_decoder, DecoderDeleter>;

DecoderPtr make_gpu_decoder()
{
    DecoderPtr dec(pcwt_decoder_create());
    if (!dec)
        throw CodecError("pcwt_decoder_create: out of memory");
    const pcwt_status st = pcwt_decoder_set_backend(dec.get(), PCWT_BACKEND_GPU);
    if (st != PCWT_OK)
        throw CodecError(std::string("pcwt_decoder_set_backend(GPU): ") + pcwt_status_string(st) + " (" +
                         pcwt_decoder_last_error(dec.get()) + ")");
    return dec;
}

// the layout libpcwt's decoder writes a codestream's samples in (its header)
pcwt_image_desc samples_desc(const uint8_t *coded, size_t size)
{
    pcwt_header_info info;
    const pcwt_status st = pcwt_read_header(coded, size, &info);
    if (st != PCWT_OK)
        throw CodecError(std::string("pcwt_read_header (JPEG 2000): ") + pcwt_status_string(st));
    return info.desc;
}

// libpcwt's samples of one frame into img's words
void to_words(const Image &img, const pcwt_image_desc &desc, const std::vector<uint8_t> &samples, ByteBuffer &out)
{
    DPJ2KImage image;
    if (!DPJ2KImageFromSamples(desc, samples.data(), samples.size(), image))
        throw CodecError("libpcwt JPEG 2000 (GPU): samples in a layout the benchmark does not read");
    words_from_j2k_image(img, image, out, "libpcwt JPEG 2000 (GPU)");
}

[[noreturn]] void decode_failed(const char *call, pcwt_status st, const pcwt_decoder *dec)
{
    throw CodecError(std::string(call) + ": " + pcwt_status_string(st) + " (" + pcwt_decoder_last_error(dec) + ")");
}

class J2kGpuSession : public CodecSession {
public:
    J2kGpuSession() : dec_(make_gpu_decoder()) {}
    void encode(const Image &img, ByteBuffer &coded) override { openjpeg_encode_image(img, coded); }
    void decode(const Image &img, const uint8_t *coded, size_t size, ByteBuffer &out) override
    {
        const pcwt_image_desc desc = samples_desc(coded, size);
        samples_.resize(pcwt_image_size(&desc));
        const pcwt_status st = pcwt_decode(dec_.get(), coded, size, samples_.data(), samples_.size());
        if (st != PCWT_OK)
            decode_failed("pcwt_decode (JPEG 2000, GPU)", st, dec_.get());
        to_words(img, desc, samples_, out);
    }

private:
    DecoderPtr dec_;
    std::vector<uint8_t> samples_;
};

class J2kGpuCodec : public Codec {
public:
    J2kGpuCodec()
    {
        info_.id = "jpeg2000-gpu";
        info_.family = "JPEG 2000";
        info_.library = std::string("OpenJPEG ") + openjpeg_version() + " (encode), libpcwt " + pcwt_version_string() +
                        " JPEG 2000 decoder (GPU)";
        info_.settings = "the openjpeg codec's codestreams (J2K, reversible 5/3, 5 levels, 64x64 code blocks, one "
                         "layer, RCT for RGB) decoded on the GPU backend; whole set: one pcwt_decode_batch call, "
                         "host memory in and out (end to end)";
        info_.gpu = true;
    }
    const CodecInfo &info() const override { return info_; }
    std::string cannot_code(const Image &) const override { return ""; }
    std::unique_ptr<CodecSession> open_session() const override { return std::make_unique<J2kGpuSession>(); }

    // encoded by OpenJPEG on the thread pool, decoded in one batch
    bool batch_decodes() const override { return true; }
    void decode_batch(const std::vector<const Image *> &images, const std::vector<ByteBuffer> &coded,
                      std::vector<ByteBuffer> &out) override
    {
        if (!batch_dec_)
            batch_dec_ = make_gpu_decoder();
        const size_t n = images.size();
        out.resize(n);
        descs_.resize(n);
        samples_.resize(n);
        std::vector<pcwt_decode_job> jobs(n);
        for (size_t i = 0; i < n; ++i) {
            descs_[i] = samples_desc(coded[i].data(), coded[i].size());
            samples_[i].resize(pcwt_image_size(&descs_[i]));
            jobs[i].src = coded[i].data();
            jobs[i].src_size = coded[i].size();
            jobs[i].dst = samples_[i].data();
            jobs[i].dst_capacity = samples_[i].size();
            jobs[i].status = PCWT_ERR_INVALID_ARGUMENT; // until the decoder says otherwise
        }
        const pcwt_status st = pcwt_decode_batch(batch_dec_.get(), jobs.data(), jobs.size());
        if (st != PCWT_OK)
            decode_failed("pcwt_decode_batch (JPEG 2000, GPU)", st, batch_dec_.get());
        for (size_t i = 0; i < n; ++i) {
            if (jobs[i].status != PCWT_OK)
                throw CodecError(images[i]->name + ": pcwt_decode_batch (JPEG 2000, GPU): " +
                                 pcwt_status_string(jobs[i].status));
            to_words(*images[i], descs_[i], samples_[i], out[i]);
        }
    }

    std::string device_encode_unavailable() const override { return "the encoder is OpenJPEG's, on the CPU"; }
    std::string device_decode_unavailable() const override
    {
        return "not measured here: bench/bench_gpu_j2k.cpp (pcwt_bench_gpu) times JPEG 2000 decoding on the device";
    }

private:
    CodecInfo info_;
    DecoderPtr batch_dec_;
    std::vector<pcwt_image_desc> descs_;
    std::vector<std::vector<uint8_t>> samples_;
};

} // namespace

std::unique_ptr<Codec> make_j2k_gpu_codec()
{
    return std::make_unique<J2kGpuCodec>();
}

} // namespace pcwtbench
