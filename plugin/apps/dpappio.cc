/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) reading the input file and writing the output file of dcmcpcwt and dcmdpcwt.
 */

#include "dcmtk/config/osconfig.h"
#include "dpappio.h"

#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcdict.h"
#include "dcmtk/dcmdata/dcmetinf.h"
#include "dcmtk/dcmdata/dcxfer.h"

#include "dcmpcwt/dputil.h"

#include <cstring>

OFBool DPCWTCheckFileNames(const OFLogger& logger, const DPCWTAppOptions& opt)
{
  /* make sure data dictionary is loaded */
  if (!dcmDataDict.isDictionaryLoaded())
  {
    OFLOG_WARN(logger, "no data dictionary loaded, check environment variable: "
      << DCM_DICT_ENVIRONMENT_VARIABLE);
  }
  if ((opt.ifname == NULL) || (strlen(opt.ifname) == 0) || (opt.ofname == NULL) || (strlen(opt.ofname) == 0))
  {
    OFLOG_FATAL(logger, "invalid filename: <empty string>");
    return OFFalse;
  }
  return OFTrue;
}

OFCondition DPCWTLoadInput(const OFLogger& logger, const DPCWTAppOptions& opt, DPCWTFileFormat& fileformat)
{
  OFLOG_INFO(logger, "reading input file " << opt.ifname);
  OFCondition error = fileformat.loadFile(opt.ifname, opt.ixfer, EGL_noChange, DCM_MaxReadLength, opt.readMode);
  if (error.bad())
  {
    OFLOG_FATAL(logger, error.text() << ": reading file: " << opt.ifname);
    return error;
  }
  OFString tsuid;
  if (fileformat.getMetaInfo()->findAndGetOFString(DCM_TransferSyntaxUID, tsuid).good() && !tsuid.empty() &&
      DPCWTCarrierOfUID(tsuid.c_str()) == EXS_Unknown && DcmXfer(tsuid.c_str()).getXfer() == EXS_Unknown)
  {
    OFLOG_FATAL(logger, "unsupported transfer syntax " << tsuid << ": " << opt.ifname);
    return EC_UnsupportedEncoding;
  }
  return EC_Normal;
}

OFString DPCWTXferName(E_TransferSyntax xfer)
{
  return DPCWTTransferSyntaxName(xfer);
}

OFCondition DPCWTSaveOutput(const OFLogger& logger, const DPCWTAppOptions& opt, DPCWTFileFormat& fileformat,
                            E_TransferSyntax oxfer, DPCWTOutputFile& output)
{
  OFCondition error = output.create();
  if (error.good())
  {
    OFLOG_INFO(logger, "creating output file " << opt.ofname);
    fileformat.loadAllDataIntoMemory();
    error = fileformat.saveFile(output.tempPath().c_str(), oxfer, opt.oenctype, opt.oglenc, opt.opadenc,
      OFstatic_cast(Uint32, opt.filepad), OFstatic_cast(Uint32, opt.itempad), EWM_updateMeta);
  }
  if (error.bad()) OFLOG_FATAL(logger, error.text() << ": writing file: " << opt.ofname);
  return error;
}

OFCondition DPCWTCommitOutput(const OFLogger& logger, const DPCWTAppOptions& opt, DPCWTOutputFile& output)
{
  const OFCondition error = output.commit();
  if (error.bad()) OFLOG_FATAL(logger, error.text() << ": writing file: " << opt.ofname);
  return error;
}
