/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the JPEG-LS frame encoder behind DPCWTJPEGLSEncoder, in one function so
 *           the implementation can be switched at build time (CMake PCWT_DICOM_JPEGLS_ENCODER):
 *           libpcwt's own JPEG-LS encoder (pcwt_encode with PCWT_CODEC_JPEGLS, the default) or
 *           CharLS 2 (loaded with dlopen, see dpjpegls.cc). Both write the same bytes.
 */

#ifndef DCMPCWT_DPJPEGLS_H
#define DCMPCWT_DPJPEGLS_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofcond.h"
#include "dcmtk/ofstd/ofstring.h"

#include "pcwt.h"

#include <vector>

/** encode one frame to a complete JPEG-LS lossless codestream (SOI ... EOI) of even length.
 *  @param desc the frame: components 1 or 3, pixel-interleaved (planar 0), bits_stored 2..16 is
 *    the sample precision, is_signed ignored (JPEG-LS codes unsigned samples)
 *  @param samples host order, every value below 2^bits_stored
 *  @param out receives the codestream
 *  @return EC_Normal or an EPCEC_CodecError condition with the encoder's message
 */
OFCondition DPCWTEncodeJPEGLSFrame(const pcwt_image_desc& desc, const void *samples,
                                   std::vector<unsigned char>& out);

/** the same for many frames of one image: keeps its encoder handle from frame to frame (a handle
 *  per frame cost more than coding a small frame); one object per thread. `backend` is libpcwt's
 *  (DPCWTBackendForSize: a small image is coded on the CPU, not worth a GPU context); CharLS
 *  ignores it */
class DPCWTJPEGLSFrameEncoder
{
public:
  explicit DPCWTJPEGLSFrameEncoder(pcwt_backend backend = PCWT_BACKEND_AUTO);
  ~DPCWTJPEGLSFrameEncoder();
  OFCondition encode(const pcwt_image_desc& desc, const void *samples, std::vector<unsigned char>& out);

private:
  DPCWTJPEGLSFrameEncoder(const DPCWTJPEGLSFrameEncoder&);
  DPCWTJPEGLSFrameEncoder& operator=(const DPCWTJPEGLSFrameEncoder&);
  void *handle_; // libpcwt's pcwt_encoder; unused with CharLS
  pcwt_backend backend_;
};

/// name and version of the JPEG-LS encoder in use
OFString DPCWTJPEGLSEncoderName();

#endif
