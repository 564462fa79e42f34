// codec_pcwt.cpp - libpcwt: the PCWT codec on the CPU or the GPU backend, and libpcwt's JPEG-LS
// encoder on the CPU or the GPU backend (its codestreams decoded by CharLS, the reference JPEG-LS
// decoder). The GPU codecs also measure device-resident throughput (device_resident.hpp).
#include "codecs.hpp"

#include <pcwt.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "charls_io.hpp"
#include "device_resident.hpp"
#include "encoder_options.hpp"

namespace pcwtbench {

namespace {

struct EncoderDeleter {
    void operator()(pcwt_encoder *e) const { pcwt_encoder_destroy(e); }
};
struct DecoderDeleter {
    void operator()(pcwt_decoder *d) const { pcwt_decoder_destroy(d); }
};
using EncoderPtr = std::unique_ptr<pcwt_encoder, EncoderDeleter>;
using DecoderPtr = std::unique_ptr<pcwt_decoder, DecoderDeleter>;

const char *backend_name(pcwt_backend b)
{
    return b == PCWT_BACKEND_GPU ? "GPU" : "CPU";
}

[[noreturn]] void option_refused(pcwt_status st, const pcwt_encoder *enc)
{
    throw CodecError(std::string("pcwt_encoder_set_option: ") + pcwt_status_string(st) + " (" +
                     pcwt_encoder_last_error(enc) + ")");
}

EncoderPtr make_encoder(const EncoderOptions &options)
{
    EncoderPtr enc(pcwt_encoder_create());
    if (!enc)
        throw CodecError("pcwt_encoder_create: out of memory");
    const pcwt_status st = set_encoder_options(enc.get(), options);
    if (st != PCWT_OK)
        option_refused(st, enc.get());
    return enc;
}

// options with one more (set last)
EncoderOptions with(EncoderOptions options, pcwt_option option, int64_t value)
{
    options.emplace_back(option, value);
    return options;
}

DecoderPtr make_decoder(pcwt_backend backend)
{
    DecoderPtr dec(pcwt_decoder_create());
    if (!dec)
        throw CodecError("pcwt_decoder_create: out of memory");
    const pcwt_status st = pcwt_decoder_set_backend(dec.get(), backend);
    if (st != PCWT_OK)
        throw CodecError(std::string("pcwt_decoder_set_backend: ") + pcwt_status_string(st) + " (" +
                         pcwt_decoder_last_error(dec.get()) + ")");
    return dec;
}

[[noreturn]] void encode_failed(pcwt_status st, const pcwt_encoder *enc)
{
    throw CodecError(std::string("pcwt_encode: ") + pcwt_status_string(st) + " (" +
                     pcwt_encoder_last_error(enc) + ")");
}

// ---------------------------------------------------------------------------------------------
// PCWT (CPU or GPU backend)

class PcwtSession : public CodecSession {
public:
    PcwtSession(const EncoderOptions &options, pcwt_backend backend)
        : enc_(make_encoder(options)), dec_(make_decoder(backend))
    {
    }
    void encode(const Image &img, ByteBuffer &coded) override
    {
        const size_t bound = pcwt_encode_bound(&img.desc);
        if (bound == 0)
            throw CodecError("pcwt_encode_bound: descriptor refused");
        size_t written = 0;
        const pcwt_status st = pcwt_encode(enc_.get(), &img.desc, img.samples.data(), img.raw_bytes(),
                                           coded.reserve(bound), bound, &written);
        if (st != PCWT_OK)
            encode_failed(st, enc_.get());
        coded.resize(written);
    }
    void decode(const Image &img, const uint8_t *coded, size_t size, ByteBuffer &out) override
    {
        const pcwt_status st = pcwt_decode(dec_.get(), coded, size, out.resize(img.raw_bytes()), img.raw_bytes());
        if (st != PCWT_OK)
            throw CodecError(std::string("pcwt_decode: ") + pcwt_status_string(st) + " (" +
                             pcwt_decoder_last_error(dec_.get()) + ")");
    }

private:
    EncoderPtr enc_;
    DecoderPtr dec_;
};

class PcwtCodec : public Codec {
public:
    PcwtCodec(const std::string &id, pcwt_backend backend, pcwt_profile profile, const PcwtSettings &set)
        : backend_(backend)
    {
        const unsigned levels = set.levels_set ? set.levels : PCWT_DEFAULT_LEVELS;
        options_ = {{PCWT_OPT_BACKEND, backend},
                    {PCWT_OPT_PROFILE, profile},
                    {PCWT_OPT_LEVELS, levels},
                    {PCWT_OPT_GROUP_ROWS, set.group_rows},
                    {PCWT_OPT_GROUP_COLS, set.group_cols},
                    {PCWT_OPT_LIFTING_ORDER, set.lifting},
                    {PCWT_OPT_LEVEL1_FILTER, set.level1}};
        pcwt_encode_params defaults;
        pcwt_encode_params_default(&defaults);
        const int64_t offset = set.offset >= 0 ? set.offset : static_cast<int64_t>(defaults.offset);
        const bool compact = profile == PCWT_PROFILE_COMPACT;
        if (compact)
            options_.push_back({PCWT_OPT_OFFSET, offset});
        const bool entropy = profile != PCWT_PROFILE_BASELINE; // entropy or compact: range-coded
        const int64_t second = set.second_bit >= 0 ? set.second_bit : static_cast<int64_t>(defaults.second_bit);
        if (entropy)
            options_.push_back({PCWT_OPT_SECOND_BIT, second});
        const unsigned gr = set.group_rows ? set.group_rows : entropy ? PCWT_ENTROPY_GROUP_ROWS : PCWT_DEFAULT_GROUP;
        const unsigned gc = set.group_cols ? set.group_cols : entropy ? PCWT_ENTROPY_GROUP_COLS : PCWT_DEFAULT_GROUP;
        const bool columns_first =
            set.lifting == PCWT_LIFTING_AUTO ? entropy : set.lifting == PCWT_LIFTING_COLUMNS_FIRST;
        info_.id = id;
        info_.family = "PCWT";
        info_.library = std::string("libpcwt ") + pcwt_version_string() + " (" + backend_name(backend) + ")";
        info_.settings = std::string(pcwt_profile_name(profile)) + " profile, " +
                         std::to_string(levels) + " levels, " + std::to_string(gr) + "x" +
                         std::to_string(gc) + " groups, " + (columns_first ? "columns" : "rows") +
                         " lifted first; " +
                         (entropy && set.level1 != PCWT_LEVEL1_53
                              ? std::string("level-1 filter ") +
                                    pcwt_option_value_name(PCWT_OPT_LEVEL1_FILTER, set.level1) + "; "
                              : std::string()) +
                         (compact ? std::string("offset ") + pcwt_option_value_name(PCWT_OPT_OFFSET, offset) + "; "
                                  : std::string()) +
                         (entropy ? std::string("second bit ") +
                                        pcwt_option_value_name(PCWT_OPT_SECOND_BIT, second) + "; "
                                  : std::string()) +
                         (backend == PCWT_BACKEND_GPU
                              ? "GPU backend, host memory in and out (end to end); whole set: one batch call"
                              : "CPU backend");
        info_.gpu = backend == PCWT_BACKEND_GPU;
    }
    const CodecInfo &info() const override { return info_; }
    std::string cannot_code(const Image &img) const override
    {
        return pcwt_encode_bound(&img.desc) == 0 ? "libpcwt refuses the descriptor" : "";
    }
    std::unique_ptr<CodecSession> open_session() const override
    {
        return std::make_unique<PcwtSession>(options_, backend_);
    }
    bool batches() const override { return info_.gpu; }

    void encode_batch(const std::vector<const Image *> &images, std::vector<ByteBuffer> &coded) override
    {
        pcwt_encoder *enc = batch_encoder();
        coded.resize(images.size());
        std::vector<pcwt_frame_job> jobs(images.size());
        for (size_t i = 0; i < images.size(); ++i) {
            const Image &img = *images[i];
            const size_t bound = pcwt_encode_bound(&img.desc);
            jobs[i].desc = img.desc;
            jobs[i].samples = img.samples.data();
            jobs[i].samples_size = img.raw_bytes();
            jobs[i].dst = coded[i].reserve(bound);
            jobs[i].dst_capacity = bound;
        }
        const pcwt_status st = pcwt_encode_batch(enc, jobs.data(), jobs.size());
        if (st != PCWT_OK)
            throw CodecError(std::string("pcwt_encode_batch: ") + pcwt_status_string(st) + " (" +
                             pcwt_encoder_last_error(enc) + ")");
        for (size_t i = 0; i < images.size(); ++i)
            coded[i].resize(jobs[i].written);
    }

    void decode_batch(const std::vector<const Image *> &images, const std::vector<ByteBuffer> &coded,
                      std::vector<ByteBuffer> &out) override
    {
        if (!batch_dec_)
            batch_dec_ = make_decoder(backend_);
        out.resize(images.size());
        std::vector<pcwt_decode_job> jobs(images.size());
        for (size_t i = 0; i < images.size(); ++i) {
            jobs[i].src = coded[i].data();
            jobs[i].src_size = coded[i].size();
            jobs[i].dst = out[i].resize(images[i]->raw_bytes());
            jobs[i].dst_capacity = images[i]->raw_bytes();
        }
        const pcwt_status st = pcwt_decode_batch(batch_dec_.get(), jobs.data(), jobs.size());
        if (st != PCWT_OK)
            throw CodecError(std::string("pcwt_decode_batch: ") + pcwt_status_string(st) + " (" +
                             pcwt_decoder_last_error(batch_dec_.get()) + ")");
    }

    std::string device_encode_unavailable() const override
    {
        return info_.gpu ? device_resident_unavailable() : "not a GPU codec";
    }
    std::string device_decode_unavailable() const override { return device_encode_unavailable(); }

    double device_encode(const std::vector<const Image *> &images, unsigned repeats,
                         std::vector<ByteBuffer> &coded) override
    {
        // The PCWT device-resident encoder gives no codestreams back: no destinations needed.
        coded.resize(images.size());
        std::vector<pcwt_frame_job> jobs(images.size());
        for (size_t i = 0; i < images.size(); ++i) {
            jobs[i].desc = images[i]->desc;
            jobs[i].samples = images[i]->samples.data();
            jobs[i].samples_size = images[i]->raw_bytes();
            coded[i].resize(0);
        }
        return device_.encode(batch_encoder(), jobs.data(), jobs.size(), repeats);
    }

    double device_decode(const std::vector<const Image *> &images, const std::vector<const ByteBuffer *> &coded,
                         std::vector<ByteBuffer> &out, unsigned repeats) override
    {
        out.resize(images.size());
        std::vector<pcwt_decode_job> jobs(images.size());
        for (size_t i = 0; i < images.size(); ++i) {
            jobs[i].src = coded[i]->data();
            jobs[i].src_size = coded[i]->size();
            jobs[i].dst = out[i].reserve(images[i]->raw_bytes());
            jobs[i].dst_capacity = images[i]->raw_bytes();
        }
        return device_.decode(jobs.data(), jobs.size(), repeats);
    }

private:
    // the codec's encoder for whole sets (made on first use)
    pcwt_encoder *batch_encoder()
    {
        if (!batch_enc_)
            batch_enc_ = make_encoder(options_);
        return batch_enc_.get();
    }

    EncoderOptions options_;
    pcwt_backend backend_;
    CodecInfo info_;
    EncoderPtr batch_enc_;
    DecoderPtr batch_dec_;
    DeviceBench device_;
};

// ---------------------------------------------------------------------------------------------
// libpcwt's JPEG-LS encoder, decoded by CharLS

// The descriptor the JPEG-LS encoder is given: the image's words read as img.peer says.
pcwt_image_desc jls_desc(const Image &img)
{
    pcwt_image_desc d = img.desc;
    d.bits_stored = img.peer.bits < 2 ? 2u : img.peer.bits;
    d.is_signed = img.peer.is_signed ? 1u : 0u;
    return d;
}

class PcwtJlsSession : public CodecSession {
public:
    explicit PcwtJlsSession(const EncoderOptions &options) : enc_(make_encoder(options)) {}
    void encode(const Image &img, ByteBuffer &coded) override
    {
        // The same interleave mode as the CharLS codec: sample for interleaved RGB, else none.
        const int64_t interleave = jls_interleave_for(img);
        if (interleave != interleave_) {
            const pcwt_status st = pcwt_encoder_set_option(enc_.get(), PCWT_OPT_JPEGLS_INTERLEAVE, interleave);
            if (st != PCWT_OK)
                option_refused(st, enc_.get());
            interleave_ = interleave;
        }
        const pcwt_image_desc d = jls_desc(img);
        const size_t bound = pcwt_encode_bound(&d);
        if (bound == 0)
            throw CodecError("pcwt_encode_bound: descriptor refused");
        size_t written = 0;
        const pcwt_status st = pcwt_encode(enc_.get(), &d, img.samples.data(), img.raw_bytes(),
                                           coded.reserve(bound), bound, &written);
        if (st != PCWT_OK)
            encode_failed(st, enc_.get());
        coded.resize(written);
    }
    void decode(const Image &img, const uint8_t *coded, size_t size, ByteBuffer &out) override
    {
        charls_decode_image(img, coded, size, out);
    }

private:
    EncoderPtr enc_;
    int64_t interleave_ = 0; // the handle's (a new one's: none)
};

// Frames the GPU JPEG-LS encoder takes (as libpcwt's encode_batch_gpu decides): grey frames, and
// colour with interleave none; the public API codes the others on the CPU.
bool jls_gpu_takes(const Image &img)
{
    return img.desc.components == 1 || jls_interleave_for(img) == 0;
}

class PcwtJlsCodec : public Codec {
public:
    explicit PcwtJlsCodec(pcwt_backend backend)
    {
        options_ = {{PCWT_OPT_CODEC, PCWT_CODEC_JPEGLS}, {PCWT_OPT_BACKEND, backend}};
        const bool gpu = backend == PCWT_BACKEND_GPU;
        info_.id = gpu ? "pcwt-jpegls-gpu" : "pcwt-jpegls";
        info_.family = "JPEG-LS";
        info_.library = std::string("libpcwt ") + pcwt_version_string() + " JPEG-LS encoder (" + backend_name(backend) +
                        ") + CharLS " + charls_version() + " decoder";
        info_.settings = "lossless (NEAR 0), default coding parameters, no restart markers; "
                         "interleave none (planar) or sample (RGB)";
        if (gpu)
            info_.settings += "; GPU backend, host memory in and out (end to end; pixel-interleaved RGB is coded "
                              "on the CPU by libpcwt); whole set: one batch call per interleave mode to encode, "
                              "CharLS on the thread pool to decode (there is no GPU JPEG-LS decoder)";
        info_.gpu = gpu;
    }
    const CodecInfo &info() const override { return info_; }
    std::string cannot_code(const Image &img) const override
    {
        if (img.peer.is_signed && img.peer.bits < 2)
            return "JPEG-LS: 1-bit signed samples";
        const pcwt_image_desc d = jls_desc(img);
        return pcwt_encode_bound(&d) == 0 ? "libpcwt refuses the descriptor" : "";
    }
    std::unique_ptr<CodecSession> open_session() const override
    {
        return std::make_unique<PcwtJlsSession>(options_);
    }

    // The GPU encoder codes the whole set in batch calls (one per interleave mode); CharLS decodes.
    bool batches() const override { return info_.gpu; }
    bool batch_decodes() const override { return false; }

    void encode_batch(const std::vector<const Image *> &images, std::vector<ByteBuffer> &coded) override
    {
        coded.resize(images.size());
        for (int interleave : {0, 2}) {
            std::vector<pcwt_frame_job> jobs;
            std::vector<size_t> where;
            for (size_t i = 0; i < images.size(); ++i) {
                const Image &img = *images[i];
                if (jls_interleave_for(img) != interleave)
                    continue;
                const pcwt_image_desc d = jls_desc(img);
                const size_t bound = pcwt_encode_bound(&d);
                pcwt_frame_job j{};
                j.desc = d;
                j.samples = img.samples.data();
                j.samples_size = img.raw_bytes();
                j.dst = coded[i].reserve(bound);
                j.dst_capacity = bound;
                jobs.push_back(j);
                where.push_back(i);
            }
            if (jobs.empty())
                continue;
            pcwt_encoder *enc = batch_encoder(interleave);
            const pcwt_status st = pcwt_encode_batch(enc, jobs.data(), jobs.size());
            if (st != PCWT_OK)
                throw CodecError(std::string("pcwt_encode_batch: ") + pcwt_status_string(st) + " (" +
                                 pcwt_encoder_last_error(enc) + ")");
            for (size_t k = 0; k < jobs.size(); ++k)
                coded[where[k]].resize(jobs[k].written);
        }
    }

    std::string device_encode_unavailable() const override
    {
        return info_.gpu ? device_resident_unavailable() : "not a GPU codec";
    }
    std::string device_decode_unavailable() const override
    {
        return info_.gpu ? "no GPU JPEG-LS decoder (CharLS decodes on the CPU)" : "not a GPU codec";
    }
    std::string device_cannot_encode(const Image &img) const override
    {
        return jls_gpu_takes(img) ? "" : "the GPU JPEG-LS encoder codes grey frames and colour with interleave none "
                                         "(pixel-interleaved RGB is coded on the CPU)";
    }
    bool device_encode_gives_streams() const override { return true; }

    double device_encode(const std::vector<const Image *> &images, unsigned repeats,
                         std::vector<ByteBuffer> &coded) override
    {
        coded.resize(images.size());
        std::vector<pcwt_frame_job> jobs(images.size());
        for (size_t i = 0; i < images.size(); ++i) {
            if (!jls_gpu_takes(*images[i]))
                throw CodecError(device_cannot_encode(*images[i]));
            const pcwt_image_desc d = jls_desc(*images[i]);
            const size_t bound = pcwt_encode_bound(&d);
            jobs[i].desc = d;
            jobs[i].samples = images[i]->samples.data();
            jobs[i].samples_size = images[i]->raw_bytes();
            jobs[i].dst = coded[i].reserve(bound);
            jobs[i].dst_capacity = bound;
        }
        const double s = device_.encode(batch_encoder(0), jobs.data(), jobs.size(), repeats);
        for (size_t i = 0; i < images.size(); ++i) {
            if (jobs[i].status != PCWT_OK)
                throw CodecError(std::string("pcwt_gpu_bench_encode: frame ") + std::to_string(i) + ": " +
                                 pcwt_status_string(jobs[i].status));
            coded[i].resize(jobs[i].written);
        }
        return s;
    }

private:
    // the codec's encoder for whole sets of one interleave mode, 0 (none) or 2 (sample; made on first use)
    pcwt_encoder *batch_encoder(int interleave)
    {
        EncoderPtr &enc = batch_enc_[interleave ? 1 : 0];
        if (!enc)
            enc = make_encoder(with(options_, PCWT_OPT_JPEGLS_INTERLEAVE, interleave));
        return enc.get();
    }

    EncoderOptions options_;
    CodecInfo info_;
    EncoderPtr batch_enc_[2]; // interleave none, sample
    DeviceBench device_;
};

} // namespace

std::unique_ptr<Codec> make_pcwt_codec(const std::string &id, const PcwtSettings &set)
{
    pcwt_encode_params defaults;
    pcwt_encode_params_default(&defaults);
    pcwt_profile profile = defaults.profile;
    int64_t named = 0;
    const std::string name = pcwt_profile_of(id);
    if (!name.empty()) {
        if (pcwt_option_parse(PCWT_OPT_PROFILE, name.c_str(), &named) != PCWT_OK)
            throw std::invalid_argument("libpcwt has no profile '" + name + "'");
        profile = static_cast<pcwt_profile>(named);
    }
    return std::make_unique<PcwtCodec>(id, is_gpu_codec(id) ? PCWT_BACKEND_GPU : PCWT_BACKEND_CPU, profile, set);
}

std::unique_ptr<Codec> make_pcwt_jpegls_codec(bool gpu)
{
    return std::make_unique<PcwtJlsCodec>(gpu ? PCWT_BACKEND_GPU : PCWT_BACKEND_CPU);
}

std::string probe_pcwt_gpu()
{
    if (!pcwt_has_cuda())
        return "libpcwt was built without CUDA";
    try {
        EncoderPtr enc = make_encoder({{PCWT_OPT_BACKEND, PCWT_BACKEND_GPU}});
        DecoderPtr dec = make_decoder(PCWT_BACKEND_GPU);
        pcwt_image_desc d{64, 64, 1, 16, 12, 0, 0};
        std::vector<uint16_t> samples(64 * 64);
        for (size_t i = 0; i < samples.size(); ++i)
            samples[i] = static_cast<uint16_t>((i * 37u) & 0xFFFu);
        const size_t bound = pcwt_encode_bound(&d);
        std::vector<uint8_t> coded(bound);
        std::vector<uint16_t> back(samples.size());
        size_t written = 0;
        pcwt_status st = pcwt_encode(enc.get(), &d, samples.data(), samples.size() * 2, coded.data(), bound, &written);
        if (st != PCWT_OK)
            return std::string("GPU encode: ") + pcwt_status_string(st) + " (" + pcwt_encoder_last_error(enc.get()) + ")";
        if (pcwt_encoder_backend(enc.get()) != PCWT_BACKEND_GPU)
            return "the encoder did not resolve to the GPU backend";
        st = pcwt_decode(dec.get(), coded.data(), written, back.data(), back.size() * 2);
        if (st != PCWT_OK)
            return std::string("GPU decode: ") + pcwt_status_string(st) + " (" + pcwt_decoder_last_error(dec.get()) + ")";
        if (back != samples)
            return "GPU round trip of a test image is not exact";
    } catch (const CodecError &e) {
        return e.what();
    }
    return "";
}

} // namespace pcwtbench
