/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the fragments of each frame of JPEG 2000 pixel data (see dpj2kfrm.h).
 */

#include "dcmtk/config/osconfig.h"
#include "dpj2kfrm.h"

#include "dcmtk/dcmdata/dcdeftag.h"  /* for tag constants */
#include "dcmtk/dcmdata/dcitem.h"    /* for class DcmItem */
#include "dcmtk/dcmdata/dcpixseq.h"  /* for class DcmPixelSequence */
#include "dcmtk/dcmdata/dcpxitem.h"  /* for class DcmPixelItem */

#include "dcmpcwt/dputil.h"
#include "pcwt_dicom.h"

#include <cstring>
#include <sstream>

/* A fragment that starts a codestream: SOC and SIZ, or a JP2 signature box. */
static bool startsCodestream(DcmPixelItem *item)
{
  static const Uint8 soc[4] = {0xFF, 0x4F, 0xFF, 0x51};
  static const Uint8 jp2[12] = {0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A};
  Uint8 *data = NULL;
  const Uint32 n = item->getLength();
  if (n < 4 || item->getUint8Array(data).bad() || data == NULL) return false;
  return std::memcmp(data, soc, 4) == 0 || (n >= 12 && std::memcmp(data, jp2, 12) == 0);
}

static OFCondition corrupt(const std::string& what)
{
  return DPCWTMakeError(EPCEC_CorruptData, what.c_str());
}

OFCondition DPCWTJ2KReadFragments(DcmItem *dataset, DcmPixelSequence *pixSeq, uint64_t frames,
                                  DPCWTJ2KFragments& frags)
{
  frags = DPCWTJ2KFragments();
  frags.frames = frames;
  const unsigned long card = pixSeq ? pixSeq->card() : 0;
  if (card < 2) return corrupt("the pixel sequence holds no fragments");
  DcmPixelItem *item = NULL;
  for (unsigned long i = 1; i < card; ++i)
  {
    if (pixSeq->getItem(item, i).bad() || item == NULL) return corrupt("cannot access a fragment of the pixel sequence");
    frags.items.push_back(item);
    frags.lengths.push_back(item->getLength());
  }
  const size_t n = frags.items.size();
  if (OFstatic_cast(uint64_t, n) == frames || frames == 1) return EC_Normal; // no table needed

  // the Basic Offset Table
  if (pixSeq->getItem(item, 0).bad() || item == NULL) return corrupt("the pixel sequence lacks its offset table item");
  std::ostringstream s;
  if (item->getLength() > 0)
  {
    Uint8 *bot = NULL;
    int present = 0;
    frags.offsets.resize(OFstatic_cast(size_t, frames));
    if (item->getUint8Array(bot).bad() || bot == NULL ||
        pcwt_dicom_bot_decode(bot, item->getLength(), frames, frags.offsets.data(), &present) != PCWT_DICOM_OK)
    {
      s << "the Basic Offset Table (" << item->getLength() / 4 << " entries for " << frames << " frames) is corrupt";
      return corrupt(s.str());
    }
    return EC_Normal;
  }
  // the Extended Offset Table (its 64-bit offsets have the Basic Offset Table's meaning)
  const Uint64 *eot = NULL;
  unsigned long count = 0;
  if (dataset != NULL && dataset->findAndGetUint64Array(DCM_ExtendedOffsetTable, eot, &count).good() && eot != NULL)
  {
    if (OFstatic_cast(uint64_t, count) != frames) return corrupt("the Extended Offset Table has an entry per frame");
    frags.offsets.resize(OFstatic_cast(size_t, frames));
    for (size_t f = 0; f < frags.offsets.size(); ++f)
    {
      if (eot[f] > 0xFFFFFFFFu || (f > 0 && eot[f] <= eot[f - 1]) || (f == 0 && eot[f] != 0))
        return corrupt("the Extended Offset Table is corrupt (it must start at 0 and increase)");
      frags.offsets[f] = OFstatic_cast(uint32_t, eot[f]);
    }
    return EC_Normal;
  }
  // neither: each frame starts at a fragment that starts a codestream
  std::vector<uint32_t> all(n);
  if (pcwt_dicom_bot_offsets(frags.lengths.data(), n, all.data()) != PCWT_DICOM_OK)
    return corrupt("the fragments are too long for 32-bit offsets");
  for (size_t i = 0; i < n; ++i)
    if (startsCodestream(frags.items[i])) frags.offsets.push_back(all[i]);
  if (OFstatic_cast(uint64_t, frags.offsets.size()) != frames || frags.offsets.empty() || frags.offsets[0] != 0)
  {
    s << n << " fragments, " << frags.offsets.size() << " of them starting a JPEG 2000 codestream, for " << frames
      << " frames and no offset table";
    return corrupt(s.str());
  }
  return EC_Normal;
}

OFCondition DPCWTJ2KFrameCodestream(const DPCWTJ2KFragments& frags, uint64_t frameNo, DPCWTJ2KFrameData& frame)
{
  size_t first = 0, count = 0;
  std::ostringstream s;
  s << "frame " << (frameNo + 1) << ": ";
  if (pcwt_dicom_frame_fragments(frags.offsets.empty() ? NULL : frags.offsets.data(), frags.frames,
        frags.lengths.data(), frags.items.size(), frameNo, &first, &count) != PCWT_DICOM_OK)
  {
    s << "cannot find its fragments (" << frags.items.size() << " fragment(s) for " << frags.frames << " frame(s))";
    return corrupt(s.str());
  }
  frame.joined.clear();
  for (size_t i = first; i < first + count; ++i)
  {
    Uint8 *p = NULL;
    if (frags.items[i]->getUint8Array(p).bad() || (p == NULL && frags.lengths[i] > 0))
      return corrupt(s.str() + "cannot read a fragment (truncated file?)");
    if (count == 1)
    {
      frame.data = p;
      frame.size = OFstatic_cast(size_t, frags.lengths[i]);
    }
    else if (frags.lengths[i] > 0)
      frame.joined.insert(frame.joined.end(), p, p + frags.lengths[i]);
  }
  if (count > 1)
  {
    frame.data = frame.joined.data();
    frame.size = frame.joined.size();
  }
  // (a fragment's pad byte after EOC is harmless: decoding stops at EOC)
  frame.nextFragment = OFstatic_cast(Uint32, first + count + 1);
  return EC_Normal;
}
