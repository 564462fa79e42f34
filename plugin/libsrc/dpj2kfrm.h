/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the fragments of each frame of JPEG 2000 pixel data: through the Basic
 *           Offset Table, the Extended Offset Table, or (with neither, more fragments than
 *           frames) the fragments that start a codestream, as GDCM and pydicom find them.
 */

#ifndef DCMPCWT_DPJ2KFRM_H
#define DCMPCWT_DPJ2KFRM_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofcond.h"

#include <cstddef>
#include <cstdint>
#include <vector>

class DcmItem;
class DcmPixelItem;
class DcmPixelSequence;

/// the fragments of a pixel sequence and the offsets that group them into frames
struct DPCWTJ2KFragments
{
  std::vector<DcmPixelItem *> items; ///< fragment items (the offset table item not included)
  std::vector<uint64_t> lengths;     ///< their value lengths
  std::vector<uint32_t> offsets;     ///< an offset per frame (empty: one fragment per frame, or one frame)
  uint64_t frames = 0;
};

/// one frame's codestream: in its fragment, or its fragments joined
struct DPCWTJ2KFrameData
{
  const uint8_t *data = nullptr;
  size_t size = 0;
  std::vector<uint8_t> joined;
  Uint32 nextFragment = 0; ///< item index after this frame's last fragment (item 0: the offset table)
};

/** read the fragments and an offset table (Basic, else Extended (7FE0,0001)); without either and
 *  with more fragments than frames, the frames start at the fragments that start a codestream.
 *  @return EC_Normal or an EPCEC_CorruptData condition naming what does not fit */
OFCondition DPCWTJ2KReadFragments(DcmItem *dataset, DcmPixelSequence *pixSeq, uint64_t frames,
                                  DPCWTJ2KFragments& frags);

/** the codestream of frame frameNo (0-based) */
OFCondition DPCWTJ2KFrameCodestream(const DPCWTJ2KFragments& frags, uint64_t frameNo, DPCWTJ2KFrameData& frame);

#endif
