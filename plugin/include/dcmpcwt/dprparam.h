/*
 *  Module:  dcmpcwt
 *
 *  Purpose: representation parameter of the PCWT codecs.
 */

#ifndef DCMPCWT_DPRPARAM_H
#define DCMPCWT_DPRPARAM_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcpixel.h" /* for class DcmRepresentationParameter */

/** representation parameter of the PCWT transfer syntax and of the JPEG-LS Lossless output.
 *  Both codings are lossless, so every representation of one transfer syntax decodes to the same
 *  pixels and all instances of this class compare equal. (Wavelet levels and group sizes change
 *  the codestream but not the pixels: they are codec parameters, see DPCWTCodecParameter.)
 */
class DPCWTRepresentationParameter : public DcmRepresentationParameter
{
public:

  /// constructor
  DPCWTRepresentationParameter();

  /// copy constructor
  DPCWTRepresentationParameter(const DPCWTRepresentationParameter& arg);

  /// destructor
  virtual ~DPCWTRepresentationParameter();

  /** this methods creates a copy of type DcmRepresentationParameter *
   *  it must be overweritten in every subclass.
   *  @return copy of this object
   */
  virtual DcmRepresentationParameter *clone() const;

  /** returns the class name as string.
   *  can be used in operator== as poor man's RTTI replacement.
   */
  virtual const char *className() const;

  /** compares an object to another DcmRepresentationParameter.
   *  @param arg representation parameter to compare with
   *  @return true if arg is also a DPCWTRepresentationParameter
   */
  virtual OFBool operator==(const DcmRepresentationParameter &arg) const;

  /// always true: both codings of this module are lossless
  OFBool useLosslessProcess() const { return OFTrue; }
};

#endif
