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
};

} // namespace pcwtbench
