/*
 *  Module:  dcmpcwt
 *
 *  Purpose: the libpcwt decoder handles a decoder codec keeps between its calls (internal).
 *
 *  DCMTK calls decodeFrame() once per frame (DcmPixelData::getUncompressedFrame, DicomImage's
 *  partial access) and decode() once per image. A handle made for each call would make a GPU
 *  context and its device and page-locked buffers each time; a kept handle reuses them (the GPU
 *  one-frame path: persistent buffers).
 */

#ifndef DCMPCWT_DPDECPOOL_H
#define DCMPCWT_DPDECPOOL_H

#include "pcwt.h"

#include <cstdint>
#include <mutex>
#include <vector>

/** the settings a kept handle was made with: a call takes only a handle of its own settings */
struct DPCWTDecoderSettings
{
  pcwt_backend backend;
  uint64_t maxSamples;
  uint64_t memoryLimit;
  bool operator==(const DPCWTDecoderSettings& o) const
  {
    return backend == o.backend && maxSamples == o.maxSamples && memoryLimit == o.memoryLimit;
  }
};

/** idle decoder handles, each used by one call at a time; thread-safe */
class DPCWTDecoderPool
{
public:
  DPCWTDecoderPool() : mutex_(), kept_() {}
  /// destroys the idle handles
  ~DPCWTDecoderPool();
  /// an idle handle made with settings s, taken out of the pool; NULL when there is none
  pcwt_decoder *take(const DPCWTDecoderSettings& s);
  /** gives back a handle made with settings s after a call that succeeded: kept while fewer
   *  than maxKept are idle (one per thread that decodes at once), destroyed otherwise */
  void give(pcwt_decoder *dec, const DPCWTDecoderSettings& s);

  static const size_t maxKept = 4;

private:
  struct Kept
  {
    pcwt_decoder *dec;
    DPCWTDecoderSettings settings;
  };
  DPCWTDecoderPool(const DPCWTDecoderPool&);
  DPCWTDecoderPool& operator=(const DPCWTDecoderPool&);
  std::mutex mutex_;
  std::vector<Kept> kept_;
};

#endif
