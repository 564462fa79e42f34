/*
 *  Module:  dcmpcwt
 *
 *  Purpose: Decompress DICOM file of the PCWT private transfer syntax (or any transfer syntax
 *           DCMTK 3.6.7 decodes) to Explicit or Implicit VR Little Endian
 *
 *  The output is written to a temporary file in the output folder and renamed when it is complete:
 *  on any error nothing is left at the output path.
 */

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/dctk.h"
#include "dcmtk/dcmdata/cmdlnarg.h"
#include "dcmtk/ofstd/ofconapp.h"
#include "dcmtk/ofstd/ofstd.h"
#include "dcmtk/dcmdata/dcuid.h"      /* for dcmtk version name */

#include "dcmpcwt/dpdecode.h"
#include "dcmpcwt/dpfilefo.h"
#include "dcmpcwt/dputil.h"
#include "dpapps.h"

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "dcmdpcwt"
#endif

static OFLogger dcmdpcwtLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

static char rcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

#define EXITCODE_NO_ERROR 0
#define EXITCODE_ERROR    1

#define SHORTCOL 3
#define LONGCOL 21

int main(int argc, char *argv[])
{
  const char *opt_ifname = NULL;
  const char *opt_ofname = NULL;

  // input options
  E_FileReadMode opt_readMode = ERM_autoDetect;
  E_TransferSyntax opt_ixfer = EXS_Unknown;

  // decoding options
  DPCWT_UIDCreation opt_uidcreation = EPCUC_default;
  OFCmdUnsignedInt opt_maxSamples = OFstatic_cast(OFCmdUnsignedInt, 1) << 30;

  // output options
  E_TransferSyntax opt_oxfer = EXS_LittleEndianExplicit;
  E_GrpLenEncoding opt_oglenc = EGL_recalcGL;
  E_EncodingType opt_oenctype = EET_ExplicitLength;
  E_PaddingEncoding opt_opadenc = EPD_noChange;
  OFCmdUnsignedInt opt_filepad = 0;
  OFCmdUnsignedInt opt_itempad = 0;

  OFConsoleApplication app(OFFIS_CONSOLE_APPLICATION, "Decode PCWT compressed DICOM file", rcsid);
  OFCommandLine cmd;
  cmd.setOptionColumns(LONGCOL, SHORTCOL);
  cmd.setParamColumn(LONGCOL + SHORTCOL + 4);

  cmd.addParam("dcmfile-in",  "DICOM input filename to be converted");
  cmd.addParam("dcmfile-out", "DICOM output filename");

  cmd.addGroup("general options:", LONGCOL, SHORTCOL + 2);
    cmd.addOption("--help",                     "-h",     "print this help text and exit", OFCommandLine::AF_Exclusive);
    cmd.addOption("--version",                            "print version information and exit", OFCommandLine::AF_Exclusive);
    OFLog::addOptions(cmd);

  cmd.addGroup("input options:");
    cmd.addSubGroup("input file format:");
      cmd.addOption("--read-file",              "+f",     "read file format or data set (default)");
      cmd.addOption("--read-file-only",         "+fo",    "read file format only\n(rejects PCWT input: DCMTK limitation)");
      cmd.addOption("--read-dataset",           "-f",     "read data set without file meta information");
    cmd.addSubGroup("input transfer syntax:");
      cmd.addOption("--read-xfer-auto",         "-t=",    "use TS recognition (default)");
      cmd.addOption("--read-xfer-detect",       "-td",    "ignore TS specified in the file meta header");
      cmd.addOption("--read-xfer-little",       "-te",    "read with explicit VR little endian TS");
      cmd.addOption("--read-xfer-big",          "-tb",    "read with explicit VR big endian TS");
      cmd.addOption("--read-xfer-implicit",     "-ti",    "read with implicit VR little endian TS");

  cmd.addGroup("processing options:");
    cmd.addSubGroup("SOP Instance UID:");
      cmd.addOption("--uid-default",            "+ud",    "keep same SOP Instance UID (default)");
      cmd.addOption("--uid-always",             "+ua",    "always assign new UID");
    cmd.addSubGroup("limits:");
      cmd.addOption("--max-samples",            "+ms", 1, "[n]umber: integer (default: 1073741824)",
                                                          "refuse frames with more samples");

  cmd.addGroup("output options:");
    cmd.addSubGroup("output transfer syntax:");
      cmd.addOption("--write-xfer-little",      "+te",    "write with explicit VR little endian (default)");
      cmd.addOption("--write-xfer-implicit",    "+ti",    "write with implicit VR little endian");
    cmd.addSubGroup("group length encoding:");
      cmd.addOption("--group-length-recalc",    "+g=",    "recalculate group lengths if present (default)");
      cmd.addOption("--group-length-create",    "+g",     "always write with group length elements");
      cmd.addOption("--group-length-remove",    "-g",     "always write without group length elements");
    cmd.addSubGroup("length encoding in sequences and items:");
      cmd.addOption("--length-explicit",        "+e",     "write with explicit lengths (default)");
      cmd.addOption("--length-undefined",       "-e",     "write with undefined lengths");
    cmd.addSubGroup("data set trailing padding:");
      cmd.addOption("--padding-retain",         "-p=",    "do not change padding (default)");
      cmd.addOption("--padding-off",            "-p",     "no padding");
      cmd.addOption("--padding-create",         "+p",  2, "[f]ile-pad [i]tem-pad: integer",
                                                          "align file on multiple of f bytes\nand items on multiple of i bytes");

  /* evaluate command line */
  prepareCmdLineArgs(argc, argv, OFFIS_CONSOLE_APPLICATION);
  if (app.parseCommandLine(cmd, argc, argv))
  {
    /* check exclusive options first */
    if (cmd.hasExclusiveOption())
    {
      if (cmd.findOption("--version"))
      {
        app.printHeader(OFTrue /*print host identifier*/);
        COUT << OFendl << "External libraries used:" << OFendl;
        COUT << "- " << DPCWTDecoderRegistration::getLibraryVersionString() << OFendl;
        COUT << OFendl << "PCWT transfer syntax UID: " << DCMPCWT_TRANSFER_SYNTAX_UID << OFendl;
        return EXITCODE_NO_ERROR;
      }
    }

    /* command line parameters */
    cmd.getParam(1, opt_ifname);
    cmd.getParam(2, opt_ofname);

    // general options
    OFLog::configureFromCommandLine(cmd, app);

    // input file format
    cmd.beginOptionBlock();
    if (cmd.findOption("--read-file")) opt_readMode = ERM_autoDetect;
    if (cmd.findOption("--read-file-only")) opt_readMode = ERM_fileOnly;
    if (cmd.findOption("--read-dataset")) opt_readMode = ERM_dataset;
    cmd.endOptionBlock();

    // input transfer syntax
    cmd.beginOptionBlock();
    if (cmd.findOption("--read-xfer-auto"))
      opt_ixfer = EXS_Unknown;
    if (cmd.findOption("--read-xfer-detect"))
      dcmAutoDetectDatasetXfer.set(OFTrue);
    if (cmd.findOption("--read-xfer-little"))
    {
      app.checkDependence("--read-xfer-little", "--read-dataset", opt_readMode == ERM_dataset);
      opt_ixfer = EXS_LittleEndianExplicit;
    }
    if (cmd.findOption("--read-xfer-big"))
    {
      app.checkDependence("--read-xfer-big", "--read-dataset", opt_readMode == ERM_dataset);
      opt_ixfer = EXS_BigEndianExplicit;
    }
    if (cmd.findOption("--read-xfer-implicit"))
    {
      app.checkDependence("--read-xfer-implicit", "--read-dataset", opt_readMode == ERM_dataset);
      opt_ixfer = EXS_LittleEndianImplicit;
    }
    cmd.endOptionBlock();

    // SOP Instance UID options
    cmd.beginOptionBlock();
    if (cmd.findOption("--uid-default")) opt_uidcreation = EPCUC_default;
    if (cmd.findOption("--uid-always")) opt_uidcreation = EPCUC_always;
    cmd.endOptionBlock();

    if (cmd.findOption("--max-samples"))
      app.checkValue(cmd.getValueAndCheckMin(opt_maxSamples, 1));

    // output transfer syntax
    cmd.beginOptionBlock();
    if (cmd.findOption("--write-xfer-little")) opt_oxfer = EXS_LittleEndianExplicit;
    if (cmd.findOption("--write-xfer-implicit")) opt_oxfer = EXS_LittleEndianImplicit;
    cmd.endOptionBlock();

    // group length encoding
    cmd.beginOptionBlock();
    if (cmd.findOption("--group-length-recalc")) opt_oglenc = EGL_recalcGL;
    if (cmd.findOption("--group-length-create")) opt_oglenc = EGL_withGL;
    if (cmd.findOption("--group-length-remove")) opt_oglenc = EGL_withoutGL;
    cmd.endOptionBlock();

    // length encoding in sequences and items
    cmd.beginOptionBlock();
    if (cmd.findOption("--length-explicit")) opt_oenctype = EET_ExplicitLength;
    if (cmd.findOption("--length-undefined")) opt_oenctype = EET_UndefinedLength;
    cmd.endOptionBlock();

    // data set trailing padding
    cmd.beginOptionBlock();
    if (cmd.findOption("--padding-retain")) opt_opadenc = EPD_noChange;
    if (cmd.findOption("--padding-off")) opt_opadenc = EPD_withoutPadding;
    if (cmd.findOption("--padding-create"))
    {
      app.checkValue(cmd.getValueAndCheckMin(opt_filepad, 0));
      app.checkValue(cmd.getValueAndCheckMin(opt_itempad, 0));
      opt_opadenc = EPD_withPadding;
    }
    cmd.endOptionBlock();
  }

  /* print resource identifier */
  OFLOG_DEBUG(dcmdpcwtLogger, rcsid << OFendl);

  // register global decompression codecs: PCWT and DCMTK's, with the UID policy
  DPCWTRegisterDecoders(OFstatic_cast(unsigned long, opt_maxSamples), opt_uidcreation == EPCUC_always);

  int status = EXITCODE_ERROR;
  do
  {
    if (!dcmDataDict.isDictionaryLoaded())
    {
      OFLOG_WARN(dcmdpcwtLogger, "no data dictionary loaded, check environment variable: "
        << DCM_DICT_ENVIRONMENT_VARIABLE);
    }
    if ((opt_ifname == NULL) || (strlen(opt_ifname) == 0) || (opt_ofname == NULL) || (strlen(opt_ofname) == 0))
    {
      OFLOG_FATAL(dcmdpcwtLogger, "invalid filename: <empty string>");
      break;
    }

    OFLOG_INFO(dcmdpcwtLogger, "reading input file " << opt_ifname);
    DPCWTFileFormat fileformat;
    OFCondition error = fileformat.loadFile(opt_ifname, opt_ixfer, EGL_noChange, DCM_MaxReadLength, opt_readMode);
    if (error.bad())
    {
      OFLOG_FATAL(dcmdpcwtLogger, error.text() << ": reading file: " << opt_ifname);
      break;
    }
    DcmDataset *dataset = fileformat.getDataset();

    OFString tsuid;
    if (fileformat.getMetaInfo()->findAndGetOFString(DCM_TransferSyntaxUID, tsuid).good() && !tsuid.empty() &&
        !DPCWTFileFormat::isPCWTFile(fileformat) && DcmXfer(tsuid.c_str()).getXfer() == EXS_Unknown)
    {
      OFLOG_FATAL(dcmdpcwtLogger, "unsupported transfer syntax " << tsuid << ": " << opt_ifname);
      break;
    }

    const E_TransferSyntax ixfer = dataset->getOriginalXfer();
    const OFString xferName = (ixfer == DPCWT_CARRIER_XFER) ? OFString(DCMPCWT_TRANSFER_SYNTAX_NAME)
                                                            : OFString(DcmXfer(ixfer).getXferName());
    OFLOG_INFO(dcmdpcwtLogger, "decompressing file (" << xferName << ")");
    DcmXfer opt_oxferSyn(opt_oxfer);
    error = dataset->chooseRepresentation(opt_oxfer, NULL);
    if (error.bad())
    {
      OFLOG_FATAL(dcmdpcwtLogger, error.text() << ": decompressing file: " << opt_ifname);
      if (error == EC_CannotChangeRepresentation)
        OFLOG_FATAL(dcmdpcwtLogger, "input transfer syntax " << xferName << " not supported");
      break;
    }
    if (!dataset->canWriteXfer(opt_oxfer))
    {
      OFLOG_FATAL(dcmdpcwtLogger, "no conversion to transfer syntax " << opt_oxferSyn.getXferName() << " possible");
      break;
    }

    DPCWTOutputFile output(opt_ofname);
    error = output.create();
    if (error.bad())
    {
      OFLOG_FATAL(dcmdpcwtLogger, error.text() << ": writing file: " << opt_ofname);
      break;
    }
    OFLOG_INFO(dcmdpcwtLogger, "creating output file " << opt_ofname);
    fileformat.loadAllDataIntoMemory();
    error = fileformat.saveFile(output.tempPath().c_str(), opt_oxfer, opt_oenctype, opt_oglenc, opt_opadenc,
      OFstatic_cast(Uint32, opt_filepad), OFstatic_cast(Uint32, opt_itempad), EWM_updateMeta);
    if (error.good()) error = output.commit();
    if (error.bad())
    {
      OFLOG_FATAL(dcmdpcwtLogger, error.text() << ": writing file: " << opt_ofname);
      break;
    }
    OFLOG_INFO(dcmdpcwtLogger, "conversion successful");
    status = EXITCODE_NO_ERROR;
  } while (false);

  DPCWTCleanupDecoders();
  return status;
}
