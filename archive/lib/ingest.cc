/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-storescp: checks of a received data set, and failure statuses
 *           (ingest.h).
 */

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcmetinf.h"
#include "dcmtk/dcmdata/dcpixel.h"
#include "dcmtk/dcmdata/dcpixseq.h"
#include "dcmtk/dcmdata/dcxfer.h"
#include "dcmtk/dcmnet/dimse.h"

#include "ingest.h"
#include "netcarrier.h"
#include "pcwt_dicom.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace {

bool getUint(DcmDataset *ds, const DcmTagKey& key, Uint32& value)
{
  Uint16 v = 0;
  if (ds->findAndGetUint16(key, v).bad()) return false;
  value = v;
  return true;
}

/// the data set of a file whose meta information names HTJ2K: DCMTK 3.6.7 does not know the UID
/// and reads it as Explicit VR Little Endian, its Pixel Data a pixel sequence (netcarrier.h)
bool inCarriedFile(DcmDataset *ds)
{
  DcmObject *parent = ds->getParent();
  if (parent == NULL || parent->ident() != EVR_fileFormat) return false;
  DcmMetaInfo *meta = OFstatic_cast(DcmFileFormat *, parent)->getMetaInfo();
  OFString ts;
  return meta != NULL && meta->findAndGetOFString(DCM_TransferSyntaxUID, ts).good() &&
         DPNetIsCarriedSyntax(ts.c_str());
}

} // namespace

bool DPSCPStringOf(DcmDataset *ds, const DcmTagKey& key, OFString& value)
{
  value.clear();
  DcmElement *elem = NULL;
  if (ds == NULL || ds->findAndGetElement(key, elem).bad() || elem == NULL) return false;
  if (elem->ident() != EVR_UN) return elem->getOFString(value, 0).good();
  // a value of VR UN (an implicit VR file converted without a dictionary): its bytes as text
  Uint8 *bytes = NULL;
  if (elem->getUint8Array(bytes).bad() || bytes == NULL) return elem->getLength() == 0;
  value.assign(OFreinterpret_cast(const char *, bytes), elem->getLength());
  const size_t cut = value.find('\\');
  if (cut != OFString_npos) value.erase(cut);
  while (!value.empty() && (value[value.length() - 1] == ' ' || value[value.length() - 1] == '\0'))
    value.erase(value.length() - 1);
  return true;
}

Uint16 DPSCPCheckDataset(DcmDataset *ds, const OFString& requestSOPClass, std::string& why)
{
  OFString sopClass;
  if (DPSCPStringOf(ds, DCM_SOPClassUID, sopClass) && !requestSOPClass.empty() &&
      sopClass != requestSOPClass)
  {
    why = "SOP Class UID " + std::string(sopClass.c_str()) + " of the data set differs from the request's " +
          requestSOPClass.c_str();
    return STATUS_STORE_Error_DataSetDoesNotMatchSOPClass;
  }
  DcmElement *elem = NULL;
  if (ds->findAndGetElement(DCM_PixelData, elem).bad() || elem == NULL) return STATUS_Success;

  // the attributes that fix the size of the pixel data
  Uint32 rows = 0, columns = 0, spp = 0, ba = 0, bs = 0, hb = 0, pr = 0;
  const bool complete = getUint(ds, DCM_Rows, rows) && getUint(ds, DCM_Columns, columns) &&
                        getUint(ds, DCM_SamplesPerPixel, spp) && getUint(ds, DCM_BitsAllocated, ba) &&
                        getUint(ds, DCM_BitsStored, bs) && getUint(ds, DCM_HighBit, hb);
  if (!complete)
  {
    why = "Pixel Data without a complete image pixel module (Rows, Columns, Samples per Pixel, Bits "
          "Allocated, Bits Stored, High Bit)";
    return STATUS_STORE_Error_DataSetDoesNotMatchSOPClass;
  }
  getUint(ds, DCM_PixelRepresentation, pr);
  Uint64 frames = 1;
  OFString nf;
  if (ds->findAndGetOFString(DCM_NumberOfFrames, nf).good() && !nf.empty())
  {
    char *end = NULL;
    const long long v = strtoll(nf.c_str(), &end, 10);
    while (end && *end == ' ') ++end;
    if (v < 1 || end == NULL || *end != '\0')
    {
      why = "Number of Frames \"" + std::string(nf.c_str()) + "\" is not a positive integer";
      return STATUS_STORE_Error_DataSetDoesNotMatchSOPClass;
    }
    frames = OFstatic_cast(Uint64, v);
  }
  char msg[256];
  if (rows == 0 || columns == 0 || spp == 0 || ba == 0 || bs == 0 || bs > ba || hb >= ba || hb + 1 < bs || pr > 1)
  {
    OFStandard::snprintf(msg, sizeof msg, "inconsistent image pixel module: Rows %u, Columns %u, Samples per Pixel "
                         "%u, Bits Allocated %u, Bits Stored %u, High Bit %u, Pixel Representation %u",
                         rows, columns, spp, ba, bs, hb, pr);
    why = msg;
    return STATUS_STORE_Error_DataSetDoesNotMatchSOPClass;
  }

  DcmXfer xfer(ds->getOriginalXfer());
  if (xfer.isEncapsulated() || inCarriedFile(ds))
  {
    // each frame takes one fragment or more
    DcmPixelSequence *seq = NULL;
    DcmPixelData *pd = OFstatic_cast(DcmPixelData *, elem);
    if (pd->getEncapsulatedRepresentation(ds->getOriginalXfer(), NULL, seq).bad() || seq == NULL)
    {
      why = "encapsulated Pixel Data without fragments";
      return STATUS_STORE_Error_CannotUnderstand;
    }
    const Uint64 fragments = seq->card() > 0 ? seq->card() - 1 : 0; // (item 0: the offset table)
    if (fragments < frames)
    {
      OFStandard::snprintf(msg, sizeof msg, "Number of Frames %llu, but Pixel Data has %llu fragments",
                           OFstatic_cast(unsigned long long, frames), OFstatic_cast(unsigned long long, fragments));
      why = msg;
      return STATUS_STORE_Error_DataSetDoesNotMatchSOPClass;
    }
    return STATUS_Success;
  }

  // uncompressed: the length rule of dicom/ for any pixel module (bit-packed and 32-bit data are
  // received and stored as they came, but never with a length that contradicts the module)
  OFString pi;
  ds->findAndGetOFString(DCM_PhotometricInterpretation, pi);
  pcwt_dicom_pixel_module m = {};
  m.rows = rows;
  m.columns = columns;
  m.samples_per_pixel = spp;
  m.bits_allocated = ba;
  m.bits_stored = bs;
  m.high_bit = hb;
  m.pixel_representation = pr;
  m.photometric = pcwt_dicom_photometric_from_string(pi.c_str());
  m.number_of_frames = frames;
  if (pcwt_dicom_check_pixel_length(&m, elem->getLength(), msg, sizeof msg) != PCWT_DICOM_OK)
  {
    why = msg;
    return STATUS_STORE_Error_DataSetDoesNotMatchSOPClass;
  }
  return STATUS_Success;
}

Uint16 DPSCPFailureStatus(const DPRCResult& result)
{
  // no default: a reason added to the engine must be given its status here (-Wswitch)
  switch (result.reason)
  {
    // the data set's fault: senders report it instead of retrying
    case DPRCR_corruptInput: return STATUS_STORE_Error_CannotUnderstand;
    case DPRCR_pixelData: return STATUS_STORE_Error_DataSetDoesNotMatchSOPClass;
    // (here only with --reject-unsupported; otherwise stored as received)
    case DPRCR_unsupported:
    case DPRCR_lossySyntax: return STATUS_STORE_Error_CannotUnderstand;
    // ours, but the same data set would fail the same way again: a retry would not help
    case DPRCR_encodeFailed:
    case DPRCR_verifyFailed:
    case DPRCR_internal: return DPSCP_STATUS_ProcessingFailure;
    // ours and passing (disk, memory, a staged file changed under us): worth a retry
    case DPRCR_io:
    case DPRCR_memory:
    case DPRCR_changed:
    case DPRCR_none: return STATUS_STORE_Refused_OutOfResources;
  }
  return STATUS_STORE_Refused_OutOfResources;
}

std::string DPSCPStatusText(Uint16 status)
{
  const char *name = "Error";
  if (status == STATUS_Success) name = "Success";
  else if ((status & 0xff00) == STATUS_STORE_Refused_OutOfResources) name = "Refused: Out of Resources";
  else if ((status & 0xff00) == STATUS_STORE_Error_DataSetDoesNotMatchSOPClass) name = "Error: Data Set Does Not Match SOP Class";
  else if ((status & 0xf000) == STATUS_STORE_Error_CannotUnderstand) name = "Error: Cannot Understand";
  else if (status == STATUS_STORE_Refused_SOPClassNotSupported) name = "Refused: SOP Class Not Supported";
  else if (status == DPSCP_STATUS_ProcessingFailure) name = "Failure: Processing Failure";
  char buf[96];
  OFStandard::snprintf(buf, sizeof buf, "%s (0x%04X)", name, status);
  return buf;
}

bool DPSCPParseSize(const char *text, std::uint64_t& bytes)
{
  if (text == NULL || !std::isdigit(OFstatic_cast(unsigned char, *text))) return false;
  char *end = NULL;
  errno = 0;
  const unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0 || v == 0) return false;
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  else if (*end == 'M' || *end == 'm') shift = 20;
  else if (*end == 'G' || *end == 'g') shift = 30;
  if (shift) ++end;
  if (*end != '\0' || v > (~0ULL >> shift)) return false;
  bytes = OFstatic_cast(std::uint64_t, v) << shift;
  return true;
}

std::uint64_t DPSCPDefaultMaxObjectBytes()
{
  const std::uint64_t cap = OFstatic_cast(std::uint64_t, 2) << 30;
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0) return cap;
  const std::uint64_t share = OFstatic_cast(std::uint64_t, pages) * OFstatic_cast(std::uint64_t, pageSize) / 32;
  return std::max<std::uint64_t>(std::min(cap, share), OFstatic_cast(std::uint64_t, 64) << 20);
}

std::string DPSCPJoin(const std::vector<std::string>& items)
{
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}
