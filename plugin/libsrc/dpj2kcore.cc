/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) JPEG 2000 / HTJ2K headers and decoding: libpcwt's decoder, and OpenJPEG 2.5
 *           for what it does not decode (see dpj2kcore.h).
 */

#include "dpj2kcore.h"

#include <openjpeg.h>
#include <pcwt.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace {

const uint8_t kJp2Signature[12] = {0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A};

uint32_t be16(const uint8_t *p) { return (uint32_t(p[0]) << 8) | p[1]; }
uint32_t be32(const uint8_t *p) { return (be16(p) << 16) | be16(p + 2); }

/* A JP2 file's contiguous codestream box (jp2c), found among the top-level boxes. */
bool findJp2Codestream(const uint8_t *data, size_t size, size_t& offset, size_t& length, std::string& error)
{
  size_t pos = 0;
  while (pos + 8 <= size)
  {
    uint64_t boxLength = be32(data + pos);
    size_t header = 8;
    if (boxLength == 1)
    {
      if (pos + 16 > size) break;
      boxLength = (uint64_t(be32(data + pos + 8)) << 32) | be32(data + pos + 12);
      header = 16;
    }
    else if (boxLength == 0)
      boxLength = size - pos; // the last box runs to the end
    if (boxLength < header || boxLength > size - pos)
    {
      error = "JP2 box extends beyond the data (truncated?)";
      return false;
    }
    if (std::memcmp(data + pos + 4, "jp2c", 4) == 0)
    {
      offset = pos + header;
      length = size_t(boxLength) - header;
      return true;
    }
    pos += size_t(boxLength);
  }
  error = "JP2 file without a codestream box (jp2c)";
  return false;
}

/* The component index of a COC or QCC marker (one byte, two when Csiz > 256). */
bool componentIndex(const uint8_t *& p, const uint8_t *end, size_t comps, uint32_t& c)
{
  const size_t n = comps > 256 ? 2 : 1;
  if (size_t(end - p) < n) return false;
  c = n == 2 ? be16(p) : p[0];
  p += n;
  return c < comps;
}

/* The markers of a main or tile-part header, from p up to the first SOT (main) or SOD (tile
 * part). Records the wavelet, quantisation, MCT and HT code-blocks they declare. */
bool readMarkers(const uint8_t *& p, const uint8_t *end, bool mainHeader, DPJ2KInfo& info, std::string& error)
{
  const size_t comps = info.components.size();
  while (true)
  {
    if (end - p < 2 || p[0] != 0xFF)
    {
      error = mainHeader ? "truncated or corrupt main header" : "truncated or corrupt tile-part header";
      return false;
    }
    const uint32_t marker = be16(p);
    if ((mainHeader && marker == 0xFF90) || (!mainHeader && marker == 0xFF93)) return true;
    if (end - p < 4)
    {
      error = "truncated marker segment";
      return false;
    }
    const uint32_t len = be16(p + 2);
    if (len < 2 || size_t(end - p) < 2 + size_t(len))
    {
      error = "marker segment extends beyond the codestream (truncated?)";
      return false;
    }
    const uint8_t *s = p + 4;
    const uint8_t *send = p + 2 + len;
    switch (marker)
    {
      case 0xFF50: // CAP: Part 15 capabilities
        info.htj2k = true;
        break;
      case 0xFF52: // COD: Scod, progression, layers, MCT, levels, xcb, ycb, style, transform
        if (send - s < 10) { error = "COD marker too short"; return false; }
        info.mct = s[4] != 0;
        if (mainHeader) info.levels = s[5];
        if (s[8] & 0x40) info.htj2k = true;
        for (DPJ2KComponent& k : info.components) k.reversible = k.reversible && s[9] == 1;
        break;
      case 0xFF53: // COC: component, Scoc, levels, xcb, ycb, style, transform
      {
        uint32_t c = 0;
        if (!componentIndex(s, send, comps, c) || send - s < 6) { error = "corrupt COC marker"; return false; }
        if (s[4] & 0x40) info.htj2k = true;
        info.components[c].reversible = info.components[c].reversible && s[5] == 1;
        break;
      }
      case 0xFF5C: // QCD: Sqcd (low 5 bits 0: no quantisation)
        if (send - s < 1) { error = "QCD marker too short"; return false; }
        for (DPJ2KComponent& k : info.components) k.quantized = k.quantized || (s[0] & 0x1F) != 0;
        break;
      case 0xFF5D: // QCC: component, Sqcc
      {
        uint32_t c = 0;
        if (!componentIndex(s, send, comps, c) || send - s < 1) { error = "corrupt QCC marker"; return false; }
        info.components[c].quantized = info.components[c].quantized || (s[0] & 0x1F) != 0;
        break;
      }
      default:
        break;
    }
    p = send;
  }
}

void collect(const char *msg, void *user)
{
  std::string *text = static_cast<std::string *>(user);
  std::string m(msg ? msg : "");
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  if (m.empty() || text->size() > 2048) return; // a hostile stream can repeat a warning endlessly
  if (!text->empty()) *text += "; ";
  *text += m;
}

void ignore(const char *, void *) {}

struct Source
{
  const uint8_t *data;
  size_t size;
  size_t pos;
};

OPJ_SIZE_T sourceRead(void *buf, OPJ_SIZE_T n, void *user)
{
  Source *s = static_cast<Source *>(user);
  if (s->pos >= s->size) return OPJ_SIZE_T(-1);
  const size_t k = std::min<size_t>(n, s->size - s->pos);
  std::memcpy(buf, s->data + s->pos, k);
  s->pos += k;
  return k;
}

OPJ_OFF_T sourceSkip(OPJ_OFF_T n, void *user)
{
  Source *s = static_cast<Source *>(user);
  if (n < 0 && size_t(-n) > s->pos) return -1;
  // skipping past the end is allowed (OpenJPEG asks so at the end of a stream): reads then fail
  s->pos = n < 0 ? s->pos - size_t(-n) : std::min(s->size, s->pos + size_t(n));
  return n;
}

OPJ_BOOL sourceSeek(OPJ_OFF_T n, void *user)
{
  Source *s = static_cast<Source *>(user);
  if (n < 0 || size_t(n) > s->size) return OPJ_FALSE;
  s->pos = size_t(n);
  return OPJ_TRUE;
}

} // namespace

bool DPJ2KInfo::lossless() const
{
  for (const DPJ2KComponent& k : components)
    if (!k.reversible || k.quantized) return false;
  return !components.empty();
}

bool DPJ2KLooksLikeJ2K(const uint8_t *data, size_t size)
{
  static const uint8_t soc[4] = {0xFF, 0x4F, 0xFF, 0x51};
  return (size >= 4 && std::memcmp(data, soc, 4) == 0) ||
         (size >= 12 && std::memcmp(data, kJp2Signature, 12) == 0);
}

bool DPJ2KReadInfo(const uint8_t *data, size_t size, DPJ2KInfo& info, std::string& error)
{
  info = DPJ2KInfo();
  if (data == NULL || !DPJ2KLooksLikeJ2K(data, size))
  {
    error = "not a JPEG 2000 codestream or JP2 file";
    return false;
  }
  info.offset = 0;
  info.length = size;
  if (data[0] == 0x00)
  {
    info.jp2 = true;
    if (!findJp2Codestream(data, size, info.offset, info.length, error)) return false;
    if (info.length < 4 || std::memcmp(data + info.offset, "\xFF\x4F\xFF\x51", 4) != 0)
    {
      error = "the JP2 file's codestream box does not hold a JPEG 2000 codestream";
      return false;
    }
  }
  const uint8_t *cs = data + info.offset;
  const uint8_t *end = cs + info.length;

  // SIZ: Lsiz Rsiz Xsiz Ysiz XOsiz YOsiz XTsiz YTsiz XTOsiz YTOsiz Csiz, then 3 bytes a component
  const uint8_t *siz = cs + 4;
  if (end - siz < 38)
  {
    error = "truncated SIZ marker";
    return false;
  }
  const uint32_t lsiz = be16(siz), rsiz = be16(siz + 2);
  const uint32_t xsiz = be32(siz + 4), ysiz = be32(siz + 8), xo = be32(siz + 12), yo = be32(siz + 16);
  const uint32_t xt = be32(siz + 20), yt = be32(siz + 24), xto = be32(siz + 28), yto = be32(siz + 32);
  const uint32_t csiz = be16(siz + 36);
  if (csiz == 0 || csiz > 16384 || lsiz != 38 + 3 * csiz || size_t(end - siz) < lsiz || xsiz <= xo ||
      ysiz <= yo || xt == 0 || yt == 0 || xto > xo || yto > yo || (xt - 1) + uint64_t(xto) < xo ||
      (yt - 1) + uint64_t(yto) < yo)
  {
    error = "corrupt SIZ marker (size, offsets, tiles or components)";
    return false;
  }
  info.width = xsiz - xo;
  info.height = ysiz - yo;
  info.tiles = uint32_t(((uint64_t(xsiz) - xto + xt - 1) / xt) * ((uint64_t(ysiz) - yto + yt - 1) / yt));
  if (rsiz & 0x4000) info.htj2k = true;
  info.components.resize(csiz);
  for (uint32_t c = 0; c < csiz; ++c)
  {
    const uint8_t *k = siz + 38 + 3 * c;
    info.components[c].precision = uint32_t(k[0] & 0x7F) + 1;
    info.components[c].isSigned = (k[0] & 0x80) != 0;
    info.components[c].dx = k[1];
    info.components[c].dy = k[2];
    if (k[1] == 0 || k[2] == 0 || info.components[c].precision > 38)
    {
      error = "corrupt SIZ marker (component precision or subsampling)";
      return false;
    }
  }

  const uint8_t *p = siz + lsiz;
  if (!readMarkers(p, end, true, info, error)) return false;
  // the tile parts: each SOT (Lsot Isot Psot TPsot TNsot) gives its length (0: up to EOC)
  while (end - p >= 12 && be16(p) == 0xFF90)
  {
    const uint32_t psot = be32(p + 6);
    const uint8_t *tp = p + 12;
    if (be16(p + 2) != 10 || !readMarkers(tp, end, false, info, error))
    {
      if (error.empty()) error = "corrupt SOT marker";
      return false;
    }
    if (psot == 0) break;
    if (psot < 14 || psot > size_t(end - p))
    {
      error = "tile part extends beyond the codestream (truncated?)";
      return false;
    }
    p += psot;
  }
  return true;
}

DPJ2KImage::DPJ2KImage() : image_(NULL), width_(0), height_(0), components_(0), precision_(0), signed_(false) {}

DPJ2KImage::~DPJ2KImage() { clear(); }

void DPJ2KImage::clear()
{
  if (image_) opj_image_destroy(static_cast<opj_image_t *>(image_));
  image_ = NULL;
  planes_.clear();
  components_ = 0;
  fallback_.clear();
}

#define DPJ2K_OPJ static_cast<opj_image_t *>(image_)
uint32_t DPJ2KImage::width() const { return image_ ? DPJ2K_OPJ->comps[0].w : width_; }
uint32_t DPJ2KImage::height() const { return image_ ? DPJ2K_OPJ->comps[0].h : height_; }
uint32_t DPJ2KImage::components() const { return image_ ? DPJ2K_OPJ->numcomps : components_; }
uint32_t DPJ2KImage::precision(uint32_t c) const { return image_ ? DPJ2K_OPJ->comps[c].prec : precision_; }
bool DPJ2KImage::isSigned(uint32_t c) const { return image_ ? DPJ2K_OPJ->comps[c].sgnd != 0 : signed_; }
const int32_t *DPJ2KImage::plane(uint32_t c) const
{
  return image_ ? DPJ2K_OPJ->comps[c].data : planes_.data() + size_t(c) * width_ * height_;
}
#undef DPJ2K_OPJ
const char *DPJ2KImage::decoder() const { return image_ ? "OpenJPEG" : components_ ? "libpcwt" : ""; }
const std::string& DPJ2KImage::fallbackReason() const { return fallback_; }

namespace {

void planesOf(const pcwt_image_desc& d, const uint8_t *out, std::vector<int32_t>& planes);

/* libpcwt's JPEG 2000 decoder (CPU) into the image's planes: PCWT_ERR_UNSUPPORTED for what it
 * does not decode, with its message in error. */
pcwt_status decodeLibrary(const uint8_t *cs, size_t size, const DPJ2KInfo& info, std::vector<int32_t>& planes,
                          pcwt_image_desc& d, std::string& error)
{
  pcwt_decoder *dec = pcwt_decoder_create();
  if (!dec || pcwt_decoder_set_backend(dec, PCWT_BACKEND_CPU) != PCWT_OK)
  {
    pcwt_decoder_destroy(dec);
    error = "libpcwt: out of memory";
    return PCWT_ERR_OUT_OF_MEMORY;
  }
  pcwt_header_info hi;
  pcwt_status st = pcwt_read_header(cs, size, &hi);
  if (st != PCWT_OK)
  {
    uint8_t none = 0; // pcwt_read_header has no message: the decode's names the refused feature
    st = pcwt_decode(dec, cs, size, &none, 1);
    if (st == PCWT_OK) st = PCWT_ERR_CORRUPT;
  }
  else if (hi.desc.width != info.width || hi.desc.height != info.height ||
           hi.desc.components != info.components.size())
  {
    pcwt_decoder_destroy(dec);
    error = "libpcwt: the codestream's header differs from the one read";
    return PCWT_ERR_CORRUPT;
  }
  std::vector<uint8_t> out;
  if (st == PCWT_OK)
  {
    d = hi.desc;
    out.resize(pcwt_image_size(&d));
    st = pcwt_decode(dec, cs, size, out.data(), out.size());
  }
  if (st != PCWT_OK)
  {
    const char *m = pcwt_decoder_last_error(dec);
    error = std::string("libpcwt: ") + (m[0] ? m : pcwt_status_string(st));
    pcwt_decoder_destroy(dec);
    return st;
  }
  pcwt_decoder_destroy(dec);
  planesOf(d, out.data(), planes);
  return PCWT_OK;
}

} // namespace

bool DPJ2KImageFromSamples(const pcwt_image_desc& desc, const void *samples, size_t size, DPJ2KImage& image)
{
  image.clear();
  if (samples == NULL || desc.planar != 0 || (desc.components != 1 && desc.components != 3) ||
      (desc.bits_allocated != 8 && desc.bits_allocated != 16) || size != pcwt_image_size(&desc))
    return false;
  planesOf(desc, static_cast<const uint8_t *>(samples), image.planes_);
  image.setShape(desc);
  return true;
}

void DPJ2KImage::setShape(const pcwt_image_desc& d)
{
  width_ = d.width;
  height_ = d.height;
  components_ = d.components;
  precision_ = d.bits_stored;
  signed_ = d.is_signed != 0;
}

namespace {

/* the interleaved samples libpcwt wrote (desc d) as planes of int32 values */
void planesOf(const pcwt_image_desc& d, const uint8_t *out, std::vector<int32_t>& planes)
{
  const size_t n = size_t(d.width) * d.height, nc = d.components;
  planes.resize(n * nc);
  for (size_t c = 0; c < nc; ++c)
  {
    int32_t *p = planes.data() + c * n;
    if (d.bits_allocated == 8)
      for (size_t i = 0; i < n; ++i)
        p[i] = d.is_signed ? int32_t(int8_t(out[i * nc + c])) : int32_t(out[i * nc + c]);
    else
      for (size_t i = 0; i < n; ++i)
      {
        uint16_t w;
        std::memcpy(&w, &out[2 * (i * nc + c)], 2);
        p[i] = d.is_signed ? int32_t(int16_t(w)) : int32_t(w);
      }
  }
}

} // namespace

bool DPJ2KDecode(const uint8_t *data, size_t size, const DPJ2KInfo& info, DPJ2KImage& image, std::string& error,
                 DPJ2KDecoderChoice choice)
{
  image.clear();
  if (info.offset > size || info.length > size - info.offset)
  {
    error = "the codestream lies outside the data";
    return false;
  }
  if (choice == DPJ2K_AUTO)
  {
    // OpenJPEG, the faster of the two on a CPU thread (bench/results/cpu-2026-11-27-j2k-decoder.md),
    // unless the operator chooses (docs/jpeg2000.md): PCWT_J2K_DECODER=libpcwt (libpcwt alone) or
    // both (libpcwt, then OpenJPEG for what it reports unsupported)
    const char *env = std::getenv("PCWT_J2K_DECODER");
    if (env && std::strcmp(env, "libpcwt") == 0) choice = DPJ2K_LIBRARY;
    else if (env && std::strcmp(env, "both") == 0) choice = DPJ2K_BOTH;
    else choice = DPJ2K_OPENJPEG;
  }
  if (choice != DPJ2K_OPENJPEG)
  {
    pcwt_image_desc d;
    std::string why;
    const pcwt_status st = decodeLibrary(data + info.offset, info.length, info, image.planes_, d, why);
    if (st == PCWT_OK)
    {
      image.setShape(d);
      return true;
    }
    if (st != PCWT_ERR_UNSUPPORTED || choice == DPJ2K_LIBRARY)
    {
      error = why;
      return false;
    }
    image.fallback_ = why;
  }
  std::string messages, warnings;
  opj_codec_t *codec = opj_create_decompress(OPJ_CODEC_J2K);
  opj_stream_t *stream = opj_stream_create(size_t(1) << 16, OPJ_TRUE);
  opj_image_t *raw = NULL;
  Source src = {data + info.offset, info.length, 0};
  bool ok = codec != NULL && stream != NULL;
  if (ok)
  {
    opj_set_error_handler(codec, collect, &messages);
    opj_set_warning_handler(codec, collect, &warnings);
    opj_set_info_handler(codec, ignore, NULL);
    opj_dparameters_t param;
    opj_set_default_decoder_parameters(&param);
    ok = opj_setup_decoder(codec, &param) && opj_decoder_set_strict_mode(codec, OPJ_TRUE) &&
         opj_codec_set_threads(codec, 1);
    opj_stream_set_user_data(stream, &src, NULL);
    opj_stream_set_user_data_length(stream, info.length);
    opj_stream_set_read_function(stream, sourceRead);
    opj_stream_set_skip_function(stream, sourceSkip);
    opj_stream_set_seek_function(stream, sourceSeek);
  }
  if (ok) ok = opj_read_header(stream, codec, &raw) != 0;
  // what OpenJPEG will allocate must be what the caller checked in info
  if (ok && (raw->numcomps != info.components.size() || raw->x1 - raw->x0 != info.width ||
             raw->y1 - raw->y0 != info.height))
  {
    ok = false;
    if (messages.empty()) messages = "the decoder's header differs from the one read";
  }
  if (ok) ok = opj_decode(codec, stream, raw) && opj_end_decompress(codec, stream);
  if (ok)
  {
    for (uint32_t c = 0; c < raw->numcomps && ok; ++c)
      ok = raw->comps[c].data != NULL && raw->comps[c].w == raw->comps[0].w && raw->comps[c].h == raw->comps[0].h;
    if (!ok) messages = "subsampled or missing components are not handled";
  }
  if (stream) opj_stream_destroy(stream);
  if (codec) opj_destroy_codec(codec);
  if (!ok)
  {
    if (raw) opj_image_destroy(raw);
    error = "OpenJPEG: " + (messages.empty() ? std::string("cannot decode the codestream") : messages);
    if (!warnings.empty()) error += " (warnings: " + warnings + ")";
    return false;
  }
  const std::string fallback = image.fallback_;
  image.clear();
  image.image_ = raw;
  image.fallback_ = fallback;
  return true;
}

const char *DPJ2KVersion()
{
  return opj_version();
}
