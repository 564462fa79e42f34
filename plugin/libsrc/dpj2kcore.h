/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) JPEG 2000 and HTJ2K decoding on OpenJPEG 2.5 without a DICOM toolkit, so
 *           that the DCMTK codec (dpj2kdec.cc) and pcwt-bench's OpenJPEG reader share it: the main
 *           and tile-part headers read before anything is decoded (size, precision, sign, whether
 *           the stream is lossless), a JP2 file's codestream found inside its boxes, and a decode
 *           whose errors and warnings come back as text (per call: no global state): libpcwt's
 *           OpenJPEG by default, libpcwt's JPEG 2000 decoder where chosen (DPJ2KDecoderChoice).
 */

#ifndef DCMPCWT_DPJ2KCORE_H
#define DCMPCWT_DPJ2KCORE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct pcwt_image_desc; // pcwt.h (not needed by the callers that decode with OpenJPEG only)

/** one component as the SIZ, COD/COC and QCD/QCC markers describe it */
struct DPJ2KComponent
{
  uint32_t precision = 0;    ///< bits (Ssiz & 0x7F) + 1
  bool isSigned = false;     ///< Ssiz bit 7
  uint32_t dx = 1, dy = 1;   ///< subsampling (XRsiz, YRsiz)
  bool reversible = true;    ///< every COD/COC for it names the reversible 5/3 wavelet
  bool quantized = false;    ///< some QCD/QCC for it quantises (style other than "none")
};

/** what the headers say, read by DPJ2KReadInfo() without decoding */
struct DPJ2KInfo
{
  uint32_t width = 0, height = 0;        ///< the image area (Xsiz - XOsiz, Ysiz - YOsiz)
  std::vector<DPJ2KComponent> components;
  size_t offset = 0;                     ///< where the codestream starts in the data (a JP2 file's jp2c box)
  size_t length = 0;                     ///< its length
  bool jp2 = false;                      ///< the data was a JP2 file, not a bare codestream
  bool mct = false;                      ///< the multiple component transform (RCT or ICT) is used
  bool htj2k = false;                    ///< HTJ2K (Part 15: CAP marker, Rsiz bit 14 or HT code-blocks)
  uint32_t levels = 0;                   ///< wavelet levels of the COD marker
  uint32_t tiles = 0;                    ///< number of tiles (SIZ)

  /** lossless: every component reversible and none quantised */
  bool lossless() const;
};

/** true when data starts with a JPEG 2000 codestream (SOC SIZ) or a JP2 signature box */
bool DPJ2KLooksLikeJ2K(const uint8_t *data, size_t size);

/** read the main header (and every tile-part header) of a codestream or JP2 file.
 *  @return true, or false with error saying what is wrong (not JPEG 2000, truncated header, ...)
 */
bool DPJ2KReadInfo(const uint8_t *data, size_t size, DPJ2KInfo& info, std::string& error);

/** which decoder DPJ2KDecode() runs */
enum DPJ2KDecoderChoice
{
  DPJ2K_AUTO,     ///< OpenJPEG (on a CPU thread the faster), unless the environment variable
                  ///< PCWT_J2K_DECODER says libpcwt (DPJ2K_LIBRARY) or both (DPJ2K_BOTH)
  DPJ2K_OPENJPEG, ///< OpenJPEG only
  DPJ2K_LIBRARY,  ///< libpcwt's decoder only (its unsupported features are errors)
  DPJ2K_BOTH      ///< libpcwt's decoder, OpenJPEG for what it reports unsupported
};

/** a decoded frame: one plane of int32 values per component (colour transform undone), in the
 *  memory OpenJPEG decoded into or the planes of libpcwt's decoder */
class DPJ2KImage
{
public:
  DPJ2KImage();
  ~DPJ2KImage();
  uint32_t width() const;
  uint32_t height() const;
  uint32_t components() const;
  uint32_t precision(uint32_t c) const;
  bool isSigned(uint32_t c) const;
  const int32_t *plane(uint32_t c) const;
  /** "libpcwt" or "OpenJPEG": which decoder made the image */
  const char *decoder() const;
  /** with OpenJPEG under DPJ2K_BOTH: why libpcwt did not decode it (its message), else "" */
  const std::string& fallbackReason() const;

private:
  friend bool DPJ2KImageFromSamples(const pcwt_image_desc&, const void *, size_t, DPJ2KImage&);
  friend bool DPJ2KDecode(const uint8_t *, size_t, const DPJ2KInfo&, DPJ2KImage&, std::string&,
                          DPJ2KDecoderChoice);
  DPJ2KImage(const DPJ2KImage&);
  DPJ2KImage& operator=(const DPJ2KImage&);
  void clear();
  /** the geometry of libpcwt's planes_, from the description its decoder gave */
  void setShape(const pcwt_image_desc& d);
  void *image_; // opj_image_t
  std::vector<int32_t> planes_; // libpcwt's samples, plane after plane
  uint32_t width_, height_, components_, precision_;
  bool signed_;
  std::string fallback_;
};

/** decode the codestream that DPJ2KReadInfo() found (info from it: its dimensions are what
 *  the decoders allocate for, so check them first). The decoder is the choice's (DPJ2KDecoderChoice);
 *  libpcwt's (JPEG 2000 Part 1 lossless, docs/jpeg2000.md) runs on the CPU here, and under
 *  DPJ2K_BOTH OpenJPEG decodes what it reports unsupported, while its other errors (a truncated
 *  or corrupt codestream) are the result. OpenJPEG runs on the calling thread only and in strict mode (a truncated stream is an
 *  error, not a partial image).
 *  @return true, or false with error holding the decoder's messages (OpenJPEG: errors, then warnings)
 */
bool DPJ2KDecode(const uint8_t *data, size_t size, const DPJ2KInfo& info, DPJ2KImage& image, std::string& error,
                 DPJ2KDecoderChoice choice = DPJ2K_AUTO);

/** the image of samples libpcwt's decoder wrote (pcwt_decode, pcwt_decode_batch: desc as
 *  pcwt_read_header() gave it), e.g. on a GPU: decoder() is then "libpcwt"
 *  @return false when size is not the size of such samples (pcwt_image_size(&desc))
 */
bool DPJ2KImageFromSamples(const pcwt_image_desc& desc, const void *samples, size_t size, DPJ2KImage& image);

/** OpenJPEG's version string */
const char *DPJ2KVersion();

#endif
