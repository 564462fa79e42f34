/*
 *  Module:  dcmpcwt
 *
 *  Purpose: codec parameter class of the PCWT codecs.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dpcparam.h"

DPCWTCodecParameter::DPCWTCodecParameter(
    DPCWT_UIDCreation uidCreation,
    OFBool convertToSC,
    OFBool acceptLossyInput,
    Uint32 levels,
    Uint32 groupRows,
    Uint32 groupColumns,
    pcwt_backend backend,
    Uint64 maxSamplesPerFrame,
    pcwt_profile profile)
: DcmCodecParameter()
, uidCreation_(uidCreation)
, convertToSC_(convertToSC)
, acceptLossyInput_(acceptLossyInput)
, levels_(levels)
, groupRows_(groupRows)
, groupColumns_(groupColumns)
, backend_(backend)
, maxSamplesPerFrame_(maxSamplesPerFrame)
, profile_(profile)
{
}

DPCWTCodecParameter::DPCWTCodecParameter(const DPCWTCodecParameter& arg)
: DcmCodecParameter(arg)
, uidCreation_(arg.uidCreation_)
, convertToSC_(arg.convertToSC_)
, acceptLossyInput_(arg.acceptLossyInput_)
, levels_(arg.levels_)
, groupRows_(arg.groupRows_)
, groupColumns_(arg.groupColumns_)
, backend_(arg.backend_)
, maxSamplesPerFrame_(arg.maxSamplesPerFrame_)
, profile_(arg.profile_)
{
}

DPCWTCodecParameter::~DPCWTCodecParameter()
{
}

DcmCodecParameter *DPCWTCodecParameter::clone() const
{
  return new DPCWTCodecParameter(*this);
}

const char *DPCWTCodecParameter::className() const
{
  return "DPCWTCodecParameter";
}

pcwt_encode_params DPCWTCodecParameter::getEncodeParams() const
{
  pcwt_encode_params p;
  pcwt_encode_params_default(&p);
  p.codec = PCWT_CODEC_PCWT;
  p.levels = levels_;
  p.group_rows = groupRows_;
  p.group_cols = groupColumns_;
  p.profile = profile_;
  p.backend = backend_;
  return p;
}
