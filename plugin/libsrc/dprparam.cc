/*
 *  Module:  dcmpcwt
 *
 *  Purpose: representation parameter of the PCWT codecs.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dprparam.h"

#include <cstring>

DPCWTRepresentationParameter::DPCWTRepresentationParameter()
: DcmRepresentationParameter()
{
}

DPCWTRepresentationParameter::DPCWTRepresentationParameter(const DPCWTRepresentationParameter& arg)
: DcmRepresentationParameter(arg)
{
}

DPCWTRepresentationParameter::~DPCWTRepresentationParameter()
{
}

DcmRepresentationParameter *DPCWTRepresentationParameter::clone() const
{
  return new DPCWTRepresentationParameter(*this);
}

const char *DPCWTRepresentationParameter::className() const
{
  return "DPCWTRepresentationParameter";
}

OFBool DPCWTRepresentationParameter::operator==(const DcmRepresentationParameter &arg) const
{
  const char *argname = arg.className();
  return argname != NULL && std::strcmp(argname, className()) == 0;
}
