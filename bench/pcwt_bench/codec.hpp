// codec.hpp - what the benchmark needs from a codec: encode a frame into a codestream, decode it
// back into words in the frame's own layout. Each adapter covers the whole way from our sample
// words to the library's input and back, so timing includes the conversions a user of that
// library would have to do too (never file I/O).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "byte_buffer.hpp"
#include "image.hpp"

namespace pcwtbench {

// A codec call failed (the message says which library call and why).
struct CodecError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct CodecInfo {
    std::string id;       // short name used in options, tables and files: "charls"
    std::string family;   // "JPEG-LS", "JPEG 2000", "HTJ2K", "PCWT"
    std::string library;  // "CharLS 2.4.1"
    std::string settings; // how it is configured
    bool gpu = false;
};

// Per-thread state of a codec (handles reused between calls). Not shared between threads.
class CodecSession {
public:
    virtual ~CodecSession() = default;
    // Encode img; coded gets the codestream (its size set). Throws CodecError.
    virtual void encode(const Image &img, ByteBuffer &coded) = 0;
    // Decode a codestream of img into out (img.raw_bytes() words in img's layout). Throws CodecError.
    virtual void decode(const Image &img, const uint8_t *coded, size_t coded_size, ByteBuffer &out) = 0;
};

class Codec {
public:
    virtual ~Codec() = default;
    virtual const CodecInfo &info() const = 0;
    // Empty when this codec can code img losslessly; otherwise why it cannot.
    virtual std::string cannot_code(const Image &img) const = 0;
    virtual std::unique_ptr<CodecSession> open_session() const = 0;

    // Whole-set throughput: a batching codec (the GPU) codes all frames in one call; the others
    // are run on a thread pool, one session per thread.
    virtual bool batches() const { return false; }
    virtual void encode_batch(const std::vector<const Image *> & /*images*/,
                              std::vector<ByteBuffer> & /*coded*/)
    {
        throw CodecError("no batch encoding");
    }
    virtual void decode_batch(const std::vector<const Image *> & /*images*/,
                              const std::vector<ByteBuffer> & /*coded*/,
                              std::vector<ByteBuffer> & /*out*/)
    {
        throw CodecError("no batch decoding");
    }
    // Whether the whole-set decode is one batch call (else: sessions on the thread pool, e.g.
    // the GPU JPEG-LS encoder, whose codestreams CharLS decodes; or a GPU decoder of a CPU
    // encoder's codestreams, which batches decodes only: jpeg2000-gpu).
    virtual bool batch_decodes() const { return batches(); }

    // Device-resident throughput (GPU codecs; see device_resident.hpp): the frames (encode) or
    // codestreams (decode) are put on the device once, then only the device work is repeated,
    // timed with CUDA events. Only called for codecs with info().gpu.
    // Empty when the codec has a device-resident encoder (decoder) in this build, else why not.
    virtual std::string device_encode_unavailable() const { return "not a GPU codec"; }
    virtual std::string device_decode_unavailable() const { return "not a GPU codec"; }
    // Empty when the device-resident encoder takes img (a frame the end-to-end call coded exactly).
    virtual std::string device_cannot_encode(const Image & /*img*/) const { return ""; }
    // Whether device_encode gives the codestreams of its last run back (then they are compared
    // byte for byte with the end-to-end ones).
    virtual bool device_encode_gives_streams() const { return false; }
    // Median seconds of `repeats` device-resident encodes of all the images at once; coded gets
    // one buffer per image (the codestreams when device_encode_gives_streams()). Throws CodecError.
    virtual double device_encode(const std::vector<const Image *> & /*images*/, unsigned /*repeats*/,
                                 std::vector<ByteBuffer> & /*coded*/)
    {
        throw CodecError("no device-resident encoder");
    }
    // Median seconds of `repeats` device-resident decodes of the codestreams (coded[i] of images[i]);
    // out[i] is a buffer of images[i]->raw_bytes() the call may use. Throws CodecError (also when the
    // device reports a corrupt codestream).
    virtual double device_decode(const std::vector<const Image *> & /*images*/,
                                 const std::vector<const ByteBuffer *> & /*coded*/,
                                 std::vector<ByteBuffer> & /*out*/, unsigned /*repeats*/)
    {
        throw CodecError("no device-resident decoder");
    }
};

} // namespace pcwtbench
