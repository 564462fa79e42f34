/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) reading the image pixel module from a DCMTK item and turning the
 *           checks of pcwt_dicom.h into OFConditions.
 */

#ifndef DCMPCWT_DPMODULE_H
#define DCMPCWT_DPMODULE_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofcond.h"
#include "dcmpcwt/dputil.h"

#include "pcwt_dicom.h"

class DcmItem;
class DcmStack;

/** read the image pixel module of item (Rows, Columns, SamplesPerPixel, BitsAllocated, BitsStored,
 *  HighBit, PixelRepresentation, PhotometricInterpretation, PlanarConfiguration, NumberOfFrames).
 *  @return EC_Normal, or EPCEC_InvalidImage naming a missing attribute
 */
OFCondition DPCWTReadPixelModule(DcmItem *item, pcwt_dicom_pixel_module& module);

/** pcwt_dicom_validate() as a condition with its message */
OFCondition DPCWTValidatePixelModule(const pcwt_dicom_pixel_module& module, pcwt_dicom_target target);

/** the item (data set or sequence item) holding the pixel data element on top of objStack, or NULL */
DcmItem *DPCWTItemFromStack(const DcmStack& objStack);

/** a short description of the module for log messages, e.g. "512x512, 1 sample, 16/12/11 unsigned,
 *  MONOCHROME2, 1 frame" */
OFString DPCWTDescribe(const pcwt_dicom_pixel_module& module);

#endif
