/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) reading the image pixel module from a DCMTK item.
 */

#include "dcmtk/config/osconfig.h"
#include "dpmodule.h"

#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcitem.h"
#include "dcmtk/dcmdata/dcstack.h"
#include "dcmtk/dcmdata/dcvr.h"

#include <cstring>
#include <sstream>

static OFCondition getUS(DcmItem *item, const DcmTagKey& key, Uint32& value)
{
  Uint16 v = 0;
  OFCondition c = item->findAndGetUint16(key, v);
  if (c.bad())
  {
    std::ostringstream s;
    s << "the image pixel module lacks " << DcmTag(key).getTagName() << " " << key.toString().c_str()
      << " (" << c.text() << ")";
    return DPCWTMakeError(EPCEC_InvalidImage, s.str().c_str());
  }
  value = v;
  return EC_Normal;
}

OFCondition DPCWTReadPixelModule(DcmItem *item, pcwt_dicom_pixel_module& m)
{
  std::memset(&m, 0, sizeof m);
  if (item == NULL) return EC_IllegalCall;
  OFCondition c = getUS(item, DCM_Rows, m.rows);
  if (c.good()) c = getUS(item, DCM_Columns, m.columns);
  if (c.good()) c = getUS(item, DCM_SamplesPerPixel, m.samples_per_pixel);
  if (c.good()) c = getUS(item, DCM_BitsAllocated, m.bits_allocated);
  if (c.good()) c = getUS(item, DCM_BitsStored, m.bits_stored);
  if (c.good()) c = getUS(item, DCM_HighBit, m.high_bit);
  if (c.good()) c = getUS(item, DCM_PixelRepresentation, m.pixel_representation);
  if (c.bad()) return c;

  OFString pi;
  if (item->findAndGetOFString(DCM_PhotometricInterpretation, pi).bad() || pi.empty())
    return DPCWTMakeError(EPCEC_InvalidImage,
      "the image pixel module lacks attribute PhotometricInterpretation (0028,0004)");
  m.photometric = pcwt_dicom_photometric_from_string(pi.c_str());
  if (m.photometric == PCWT_PI_UNKNOWN)
    return DPCWTMakeError(EPCEC_InvalidImage,
      OFString("PhotometricInterpretation \"") + pi + "\" is not a defined term");

  Uint16 pc = 0;
  if (item->findAndGetUint16(DCM_PlanarConfiguration, pc).good())
  {
    m.has_planar_configuration = 1;
    m.planar_configuration = pc;
  }

  m.number_of_frames = 1;
  if (item->tagExistsWithValue(DCM_NumberOfFrames))
  {
    Sint32 frames = 0;
    if (item->findAndGetSint32(DCM_NumberOfFrames, frames).bad() || frames < 1)
      return DPCWTMakeError(EPCEC_InvalidImage,
        "NumberOfFrames (0028,0008) must be a positive integer");
    m.number_of_frames = OFstatic_cast(Uint64, frames);
  }
  return EC_Normal;
}

OFCondition DPCWTValidatePixelModule(const pcwt_dicom_pixel_module& m, pcwt_dicom_target target)
{
  char msg[512];
  const pcwt_dicom_status st = pcwt_dicom_validate(&m, target, msg, sizeof msg);
  switch (st)
  {
    case PCWT_DICOM_OK:
      return EC_Normal;
    case PCWT_DICOM_UNSUPPORTED:
      return DPCWTMakeError(EPCEC_UnsupportedImage, msg);
    case PCWT_DICOM_TOO_LARGE:
      return DPCWTMakeError(EPCEC_TooLarge, msg);
    default:
      return DPCWTMakeError(EPCEC_InvalidImage, msg);
  }
}

DcmItem *DPCWTItemFromStack(const DcmStack& objStack)
{
  DcmStack localStack(objStack);
  (void)localStack.pop();                // the pixel data element
  DcmObject *dobject = localStack.pop(); // the item holding it
  if (dobject == NULL) return NULL;
  if ((dobject->ident() != EVR_dataset) && (dobject->ident() != EVR_item)) return NULL;
  return OFstatic_cast(DcmItem *, dobject);
}

OFString DPCWTDescribe(const pcwt_dicom_pixel_module& m)
{
  std::ostringstream s;
  s << m.columns << "x" << m.rows << ", " << m.samples_per_pixel
    << (m.samples_per_pixel == 1 ? " sample, " : " samples, ")
    << m.bits_allocated << "/" << m.bits_stored << "/" << m.high_bit
    << (m.pixel_representation ? " signed, " : " unsigned, ")
    << pcwt_dicom_photometric_name(m.photometric);
  if (m.samples_per_pixel > 1) s << ", planar " << m.planar_configuration;
  s << ", " << m.number_of_frames << (m.number_of_frames == 1 ? " frame" : " frames");
  return s.str().c_str();
}
