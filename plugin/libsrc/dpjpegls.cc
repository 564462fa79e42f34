/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the JPEG-LS frame encoder: CharLS or libpcwt (see dpjpegls.h).
 */

#include "dcmtk/config/osconfig.h"
#include "dpjpegls.h"
#include "dcmpcwt/dputil.h"
#include "dpbackend.h"

#include <sstream>

#if defined(DCMPCWT_JPEGLS_WITH_CHARLS)
#include <charls/charls.h>  /* types only: the functions are looked up with dlsym */
#include <dlfcn.h>
#include <mutex>
#endif

/* An odd codestream is made even the way dcmcjpls does it: a 0xFF fill byte before the EOI marker
 * (T.81 B.1.1.2 allows fill bytes before any marker), so every decoder sees a plain codestream. */
static void makeEven(std::vector<unsigned char>& out)
{
  if ((out.size() & 1) == 0) return;
  const size_t n = out.size();
  if (n >= 2 && out[n - 2] == 0xFF && out[n - 1] == 0xD9)
    out.insert(out.end() - 2, OFstatic_cast(unsigned char, 0xFF));
  else
    out.push_back(0);
}

#if defined(DCMPCWT_JPEGLS_WITH_CHARLS)

/* CharLS 2 is loaded with dlopen(RTLD_LOCAL), never linked: it exports the legacy JpegLsEncode,
 * JpegLsDecode and JpegLsReadHeader, and so does DCMTK 3.6.7's bundled CharLS 1.0
 * (libdcmtkcharls), with different structure layouts. Linked into one process, whichever library
 * the dynamic linker finds first serves dcmjpls' calls too, and DCMTK's JPEG-LS decoder then
 * corrupts memory. Loaded locally, CharLS 2 adds nothing to the global symbol scope. */
namespace {

struct CharLSApi
{
  decltype(&charls_jpegls_encoder_create) create;
  decltype(&charls_jpegls_encoder_destroy) destroy;
  decltype(&charls_jpegls_encoder_set_frame_info) setFrameInfo;
  decltype(&charls_jpegls_encoder_set_near_lossless) setNearLossless;
  decltype(&charls_jpegls_encoder_set_interleave_mode) setInterleaveMode;
  decltype(&charls_jpegls_encoder_set_encoding_options) setEncodingOptions;
  decltype(&charls_jpegls_encoder_get_estimated_destination_size) estimatedSize;
  decltype(&charls_jpegls_encoder_set_destination_buffer) setDestination;
  decltype(&charls_jpegls_encoder_encode_from_buffer) encode;
  decltype(&charls_jpegls_encoder_get_bytes_written) bytesWritten;
  decltype(&charls_get_error_message) errorMessage;
  decltype(&charls_get_version_string) version;
  OFString error; // why it could not be loaded
};

template <typename T> static bool bind(void *lib, const char *name, T& fn, OFString& error)
{
  fn = reinterpret_cast<T>(dlsym(lib, name));
  if (fn == NULL && error.empty()) error = OFString("symbol ") + name + " missing in " DCMPCWT_CHARLS_SONAME;
  return fn != NULL;
}

static const CharLSApi& charlsApi()
{
  static CharLSApi api; // static storage: every function pointer starts out NULL
  static std::once_flag once;
  std::call_once(once, []() {
    void *lib = dlopen(DCMPCWT_CHARLS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
    {
      const char *e = dlerror();
      api.error = OFString("cannot load " DCMPCWT_CHARLS_SONAME ": ") + (e ? e : "unknown error");
      return;
    }
    bool ok = bind(lib, "charls_jpegls_encoder_create", api.create, api.error);
    ok = bind(lib, "charls_jpegls_encoder_destroy", api.destroy, api.error) && ok;
    ok = bind(lib, "charls_jpegls_encoder_set_frame_info", api.setFrameInfo, api.error) && ok;
    ok = bind(lib, "charls_jpegls_encoder_set_near_lossless", api.setNearLossless, api.error) && ok;
    ok = bind(lib, "charls_jpegls_encoder_set_interleave_mode", api.setInterleaveMode, api.error) && ok;
    ok = bind(lib, "charls_jpegls_encoder_set_encoding_options", api.setEncodingOptions, api.error) && ok;
    ok = bind(lib, "charls_jpegls_encoder_get_estimated_destination_size", api.estimatedSize, api.error) && ok;
    ok = bind(lib, "charls_jpegls_encoder_set_destination_buffer", api.setDestination, api.error) && ok;
    ok = bind(lib, "charls_jpegls_encoder_encode_from_buffer", api.encode, api.error) && ok;
    ok = bind(lib, "charls_jpegls_encoder_get_bytes_written", api.bytesWritten, api.error) && ok;
    ok = bind(lib, "charls_get_error_message", api.errorMessage, api.error) && ok;
    ok = bind(lib, "charls_get_version_string", api.version, api.error) && ok;
    if (!ok) api.create = NULL; // unusable; the library stays loaded (harmless)
  });
  return api;
}

} // namespace

OFCondition DPCWTEncodeJPEGLSFrame(const pcwt_image_desc& desc, const void *samples,
                                   std::vector<unsigned char>& out)
{
  const CharLSApi& api = charlsApi();
  if (api.create == NULL)
    return DPCWTMakeError(EPCEC_CodecError, OFString("JPEG-LS encoder (CharLS): ") + api.error);
  const size_t bytesPerSample = desc.bits_allocated > 8 ? 2 : 1;
  const size_t size = OFstatic_cast(size_t, desc.width) * desc.height * desc.components * bytesPerSample;
  charls_jpegls_encoder *enc = api.create();
  if (enc == NULL) return EC_MemoryExhausted;

  charls_frame_info fi;
  fi.width = desc.width;
  fi.height = desc.height;
  fi.bits_per_sample = OFstatic_cast(int32_t, desc.bits_stored);
  fi.component_count = OFstatic_cast(int32_t, desc.components);

  charls::jpegls_errc e = api.setFrameInfo(enc, &fi);
  if (e == charls::jpegls_errc::success) e = api.setNearLossless(enc, 0);
  if (e == charls::jpegls_errc::success && desc.components == 3)
    e = api.setInterleaveMode(enc, charls::interleave_mode::line);
  // Write the default preset parameters for P > 12 explicitly (CharLS 1.x based decoders such as
  // DCMTK 3.6.7's compute them differently) and make the size even with an extra 0xFF.
  if (e == charls::jpegls_errc::success)
    e = api.setEncodingOptions(enc, charls::encoding_options::even_destination_size |
                                    charls::encoding_options::include_pc_parameters_jai);
  size_t bound = 0;
  if (e == charls::jpegls_errc::success) e = api.estimatedSize(enc, &bound);
  if (e == charls::jpegls_errc::success)
  {
    out.resize(bound);
    e = api.setDestination(enc, out.data(), out.size());
  }
  if (e == charls::jpegls_errc::success) e = api.encode(enc, samples, size, 0);
  size_t written = 0;
  if (e == charls::jpegls_errc::success) e = api.bytesWritten(enc, &written);
  api.destroy(enc);
  if (e != charls::jpegls_errc::success)
  {
    out.clear();
    return DPCWTMakeError(EPCEC_CodecError, OFString("JPEG-LS encoder (CharLS): ") + api.errorMessage(e));
  }
  out.resize(written);
  makeEven(out);
  return EC_Normal;
}

DPCWTJPEGLSFrameEncoder::DPCWTJPEGLSFrameEncoder(pcwt_backend backend) : handle_(NULL), backend_(backend) {}
DPCWTJPEGLSFrameEncoder::~DPCWTJPEGLSFrameEncoder() {}

OFCondition DPCWTJPEGLSFrameEncoder::encode(const pcwt_image_desc& desc, const void *samples,
                                            std::vector<unsigned char>& out)
{
  return DPCWTEncodeJPEGLSFrame(desc, samples, out);
}

OFString DPCWTJPEGLSEncoderName()
{
  const CharLSApi& api = charlsApi();
  if (api.create == NULL) return OFString("CharLS (not available: ") + api.error + ")";
  return OFString("CharLS, Version ") + api.version() + " (" DCMPCWT_CHARLS_SONAME ", loaded privately)";
}

#else /* libpcwt's JPEG-LS encoder */

static pcwt_encoder *createJPEGLSEncoder(pcwt_backend backend)
{
  pcwt_encoder *enc = pcwt_encoder_create();
  if (enc != NULL && (pcwt_encoder_set_option(enc, PCWT_OPT_CODEC, PCWT_CODEC_JPEGLS) != PCWT_OK ||
                      pcwt_encoder_set_option(enc, PCWT_OPT_JPEGLS_RESTART, 0) != PCWT_OK ||
                      (backend != PCWT_BACKEND_AUTO &&
                       pcwt_encoder_set_option(enc, PCWT_OPT_BACKEND, OFstatic_cast(int64_t, backend)) != PCWT_OK)))
  {
    pcwt_encoder_destroy(enc);
    enc = NULL;
  }
  return enc;
}

static OFCondition encodeWith(pcwt_encoder *enc, const pcwt_image_desc& desc, const void *samples,
                              std::vector<unsigned char>& out)
{
  pcwt_image_desc d = desc;
  d.is_signed = 0; // the samples are the BitsStored-bit patterns
  d.planar = 0;
  // line interleaved, as dcmcjpls (the handle is createJPEGLSEncoder()'s: JPEG-LS, no restart markers)
  pcwt_status st = pcwt_encoder_set_option(enc, PCWT_OPT_JPEGLS_INTERLEAVE, d.components == 3 ? 1 : 0);
  size_t written = 0;
  if (st == PCWT_OK)
  {
    out.resize(pcwt_encode_bound(&d));
    st = pcwt_encode(enc, &d, samples, pcwt_image_size(&d), out.data(), out.size(), &written);
  }
  if (st != PCWT_OK)
  {
    std::ostringstream s;
    s << "JPEG-LS encoder (libpcwt): " << pcwt_status_string(st) << ": " << pcwt_encoder_last_error(enc);
    out.clear();
    return DPCWTMakeError(EPCEC_CodecError, s.str().c_str());
  }
  out.resize(written);
  makeEven(out);
  return EC_Normal;
}

OFCondition DPCWTEncodeJPEGLSFrame(const pcwt_image_desc& desc, const void *samples,
                                   std::vector<unsigned char>& out)
{
  DPCWTJPEGLSFrameEncoder enc(DPCWTBackendForSize(PCWT_BACKEND_AUTO, pcwt_image_size(&desc)));
  return enc.encode(desc, samples, out);
}

DPCWTJPEGLSFrameEncoder::DPCWTJPEGLSFrameEncoder(pcwt_backend backend) : handle_(NULL), backend_(backend) {}

DPCWTJPEGLSFrameEncoder::~DPCWTJPEGLSFrameEncoder()
{
  if (handle_) pcwt_encoder_destroy(OFstatic_cast(pcwt_encoder *, handle_));
}

OFCondition DPCWTJPEGLSFrameEncoder::encode(const pcwt_image_desc& desc, const void *samples,
                                            std::vector<unsigned char>& out)
{
  if (handle_ == NULL) handle_ = createJPEGLSEncoder(backend_);
  if (handle_ == NULL) return EC_MemoryExhausted;
  return encodeWith(OFstatic_cast(pcwt_encoder *, handle_), desc, samples, out);
}

OFString DPCWTJPEGLSEncoderName()
{
  return OFString("libpcwt JPEG-LS, Version ") + pcwt_version_string();
}

#endif
