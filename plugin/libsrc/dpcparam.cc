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

pcwt_status DPCWTCodecParameter::configureEncoder(pcwt_encoder *enc, OFBool withBackend) const
{
  const struct { pcwt_option option; int64_t value; } options[] = {
    { PCWT_OPT_CODEC, PCWT_CODEC_PCWT },
    { PCWT_OPT_PROFILE, profile_ },
    { PCWT_OPT_LEVELS, levels_ },
    { PCWT_OPT_GROUP_ROWS, groupRows_ },
    { PCWT_OPT_GROUP_COLS, groupColumns_ },
    { PCWT_OPT_BACKEND, backend_ } // last: only withBackend
  };
  const size_t count = sizeof(options) / sizeof(options[0]) - (withBackend ? 0 : 1);
  for (size_t i = 0; i < count; ++i)
  {
    const pcwt_status st = pcwt_encoder_set_option(enc, options[i].option, options[i].value);
    if (st != PCWT_OK) return st;
  }
  return PCWT_OK;
}
