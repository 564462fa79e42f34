/*
 *  Module:  dcmpcwt
 *
 *  Purpose: Compress DICOM file to the PCWT private transfer syntax (or to JPEG-LS Lossless)
 *
 *  The input may use any transfer syntax DCMTK 3.6.7 decodes (uncompressed, JPEG, JPEG-LS, RLE,
 *  PCWT). The output is written to a temporary file in the output folder and renamed when it is
 *  complete (and, with --verify, decoded and compared sample by sample): on any error nothing is
 *  left at the output path.
 */

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/dctk.h"
#include "dcmtk/dcmdata/cmdlnarg.h"
#include "dcmtk/ofstd/ofconapp.h"
#include "dcmtk/ofstd/ofstd.h"
#include "dcmtk/dcmdata/dcuid.h"      /* for dcmtk version name */

#include "dcmpcwt/dpcodece.h"
#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dpfilefo.h"
#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"
#include "dpapps.h"

#include <chrono>
#include <sys/stat.h>

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "dcmcpcwt"
#endif

static OFLogger dcmcpcwtLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

static char rcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

// exit codes
#define EXITCODE_NO_ERROR               0
#define EXITCODE_ERROR                  1  /* cannot read, decode, encode or write */
#define EXITCODE_VERIFICATION_FAILED    2  /* --verify found a difference */

#define SHORTCOL 3
#define LONGCOL 21

static Uint64 fileSize(const char *path)
{
  struct stat st;
  return (stat(path, &st) == 0) ? OFstatic_cast(Uint64, st.st_size) : 0;
}

int main(int argc, char *argv[])
{
  const char *opt_ifname = NULL;
  const char *opt_ofname = NULL;

  // input options
  E_FileReadMode opt_readMode = ERM_autoDetect;
  E_TransferSyntax opt_ixfer = EXS_Unknown;

  // encoding options
  OFBool opt_jpegls = OFFalse;
  OFCmdUnsignedInt opt_levels = PCWT_DEFAULT_LEVELS;
  OFCmdUnsignedInt opt_groupRows = PCWT_DEFAULT_GROUP;
  OFCmdUnsignedInt opt_groupColumns = PCWT_DEFAULT_GROUP;
  pcwt_backend opt_backend = PCWT_BACKEND_AUTO;
  OFBool opt_acceptLossy = OFFalse;
  OFBool opt_verify = OFFalse;
  DPCWT_UIDCreation opt_uidcreation = EPCUC_default;
  OFBool opt_secondarycapture = OFFalse;

  // output options
  E_GrpLenEncoding opt_oglenc = EGL_recalcGL;
  E_EncodingType opt_oenctype = EET_ExplicitLength;
  E_PaddingEncoding opt_opadenc = EPD_noChange;
  OFCmdUnsignedInt opt_filepad = 0;
  OFCmdUnsignedInt opt_itempad = 0;

  OFConsoleApplication app(OFFIS_CONSOLE_APPLICATION,
    "Encode DICOM file to the PCWT lossless transfer syntax or JPEG-LS Lossless", rcsid);
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

  cmd.addGroup("encoding options:");
    cmd.addSubGroup("output transfer syntax:");
      cmd.addOption("--encode-pcwt",            "+ep",    "encode PCWT lossless, private TS (default)");
      cmd.addOption("--encode-jpegls",          "+el",    "encode JPEG-LS lossless (standard TS)");
    cmd.addSubGroup("PCWT coding:");
      cmd.addOption("--levels",                 "+lv", 1, "[n]umber: integer (0..10, default: 6)",
                                                          "wavelet levels (fewer for small images)");
      cmd.addOption("--group-size",             "+gs", 2, "[r]ows [c]olumns: integer (1..256, default: 32 32)",
                                                          "elements per independently coded group");
      cmd.addOption("--backend-auto",           "+ba",    "GPU when available, else CPU (default)");
      cmd.addOption("--backend-cpu",            "+bc",    "always use the CPU codec");
      cmd.addOption("--backend-gpu",            "+bg",    "always use the GPU codec (fail without one)");
    cmd.addSubGroup("lossy compressed input:");
      cmd.addOption("--refuse-lossy",           "-al",    "refuse images that were lossy compressed\nbefore (default)");
      cmd.addOption("--accept-lossy",           "+al",    "code them anyway (their losses are kept)");
    cmd.addSubGroup("verification:");
      cmd.addOption("--no-verify",              "-vf",    "do not decode the output (default)");
      cmd.addOption("--verify",                 "+vf",    "decode the output and compare every sample\nbefore the output is kept");

  cmd.addGroup("encapsulated pixel data encoding options:");
    cmd.addSubGroup("SOP Class UID:");
      cmd.addOption("--class-default",          "+cd",    "keep SOP Class UID (default)");
      cmd.addOption("--class-sc",               "+cs",    "convert to Secondary Capture Image\n(implies --uid-always)");
    cmd.addSubGroup("SOP Instance UID:");
      cmd.addOption("--uid-default",            "+ud",    "keep UID, coding is lossless (default)");
      cmd.addOption("--uid-always",             "+ua",    "always assign new UID");
      cmd.addOption("--uid-never",              "+un",    "never assign new UID");

  cmd.addGroup("output options:");
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
        COUT << "- " << DPCWTEncoderRegistration::getLibraryVersionString() << OFendl;
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

    // output transfer syntax
    cmd.beginOptionBlock();
    if (cmd.findOption("--encode-pcwt")) opt_jpegls = OFFalse;
    if (cmd.findOption("--encode-jpegls")) opt_jpegls = OFTrue;
    cmd.endOptionBlock();

    // PCWT coding
    if (cmd.findOption("--levels"))
    {
      app.checkConflict("--levels", "--encode-jpegls", opt_jpegls);
      app.checkValue(cmd.getValueAndCheckMinMax(opt_levels, 0, PCWT_MAX_LEVELS));
    }
    if (cmd.findOption("--group-size"))
    {
      app.checkConflict("--group-size", "--encode-jpegls", opt_jpegls);
      app.checkValue(cmd.getValueAndCheckMinMax(opt_groupRows, 1, PCWT_MAX_GROUP));
      app.checkValue(cmd.getValueAndCheckMinMax(opt_groupColumns, 1, PCWT_MAX_GROUP));
    }
    cmd.beginOptionBlock();
    if (cmd.findOption("--backend-auto")) opt_backend = PCWT_BACKEND_AUTO;
    if (cmd.findOption("--backend-cpu")) opt_backend = PCWT_BACKEND_CPU;
    if (cmd.findOption("--backend-gpu")) opt_backend = PCWT_BACKEND_GPU;
    cmd.endOptionBlock();

    cmd.beginOptionBlock();
    if (cmd.findOption("--refuse-lossy")) opt_acceptLossy = OFFalse;
    if (cmd.findOption("--accept-lossy")) opt_acceptLossy = OFTrue;
    cmd.endOptionBlock();

    cmd.beginOptionBlock();
    if (cmd.findOption("--no-verify")) opt_verify = OFFalse;
    if (cmd.findOption("--verify")) opt_verify = OFTrue;
    cmd.endOptionBlock();

    // SOP Class UID options
    cmd.beginOptionBlock();
    if (cmd.findOption("--class-default")) opt_secondarycapture = OFFalse;
    if (cmd.findOption("--class-sc")) opt_secondarycapture = OFTrue;
    cmd.endOptionBlock();

    // SOP Instance UID options
    cmd.beginOptionBlock();
    if (cmd.findOption("--uid-default")) opt_uidcreation = EPCUC_default;
    if (cmd.findOption("--uid-always")) opt_uidcreation = EPCUC_always;
    if (cmd.findOption("--uid-never")) opt_uidcreation = EPCUC_never;
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
  OFLOG_DEBUG(dcmcpcwtLogger, rcsid << OFendl);

  // register global codecs: every decoder DCMTK 3.6.7 has, ours, and the encoders
  DPCWTRegisterDecoders(OFstatic_cast(unsigned long, 1) << 30, OFFalse);
  DPCWTEncoderRegistration::registerCodecs(opt_uidcreation, opt_secondarycapture, opt_acceptLossy,
    OFstatic_cast(Uint32, opt_levels), OFstatic_cast(Uint32, opt_groupRows),
    OFstatic_cast(Uint32, opt_groupColumns), opt_backend, OFTrue /* JPEG-LS */);

  int status = EXITCODE_ERROR;
  do
  {
    /* make sure data dictionary is loaded */
    if (!dcmDataDict.isDictionaryLoaded())
    {
      OFLOG_WARN(dcmcpcwtLogger, "no data dictionary loaded, check environment variable: "
        << DCM_DICT_ENVIRONMENT_VARIABLE);
    }

    if ((opt_ifname == NULL) || (strlen(opt_ifname) == 0) || (opt_ofname == NULL) || (strlen(opt_ofname) == 0))
    {
      OFLOG_FATAL(dcmcpcwtLogger, "invalid filename: <empty string>");
      break;
    }

    const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    OFLOG_INFO(dcmcpcwtLogger, "reading input file " << opt_ifname);

    DPCWTFileFormat fileformat;
    OFCondition error = fileformat.loadFile(opt_ifname, opt_ixfer, EGL_noChange, DCM_MaxReadLength, opt_readMode);
    if (error.bad())
    {
      OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": reading file: " << opt_ifname);
      break;
    }
    DcmDataset *dataset = fileformat.getDataset();

    // a transfer syntax DCMTK does not know (other than PCWT): its pixel data cannot be read
    OFString tsuid;
    if (fileformat.getMetaInfo()->findAndGetOFString(DCM_TransferSyntaxUID, tsuid).good() && !tsuid.empty() &&
        !DPCWTFileFormat::isPCWTFile(fileformat) && DcmXfer(tsuid.c_str()).getXfer() == EXS_Unknown)
    {
      OFLOG_FATAL(dcmcpcwtLogger, "unsupported transfer syntax " << tsuid << ": " << opt_ifname);
      break;
    }

    OFString sopClass;
    if (fileformat.getMetaInfo()->findAndGetOFString(DCM_MediaStorageSOPClassUID, sopClass).good() &&
        sopClass == UID_MediaStorageDirectoryStorage)
    {
      OFLOG_FATAL(dcmcpcwtLogger, "DICOMDIR files (Media Storage Directory Storage SOP Class) cannot be compressed!");
      break;
    }
    if (dataset->tagExists(DCM_FloatPixelData) || dataset->tagExists(DCM_DoubleFloatPixelData))
    {
      OFLOG_FATAL(dcmcpcwtLogger, "Float Pixel Data and Double Float Pixel Data cannot be coded losslessly by "
        << (opt_jpegls ? "JPEG-LS" : "PCWT") << ": " << opt_ifname);
      break;
    }
    if (!dataset->tagExists(DCM_PixelData))
    {
      OFLOG_FATAL(dcmcpcwtLogger, "no Pixel Data (7FE0,0010) to compress: " << opt_ifname);
      break;
    }

    // compressed input: decode with DCMTK's decoders first (lossy input only when accepted)
    const E_TransferSyntax ixfer = dataset->getOriginalXfer();
    DcmXfer original_xfer(ixfer);
    if (original_xfer.isEncapsulated())
    {
      const OFString xferName = (ixfer == DPCWT_CARRIER_XFER) ? OFString(DCMPCWT_TRANSFER_SYNTAX_NAME)
                                                              : OFString(original_xfer.getXferName());
      if (ixfer != DPCWT_CARRIER_XFER && original_xfer.isLossy() && !opt_acceptLossy)
      {
        OFLOG_FATAL(dcmcpcwtLogger, "input is lossy compressed (" << xferName << "): lossless coding would only "
          "preserve those losses; use --accept-lossy to code it anyway: " << opt_ifname);
        break;
      }
      OFLOG_INFO(dcmcpcwtLogger, "DICOM file is compressed (" << xferName << "), decompressing it first");
      error = dataset->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
      if (error.bad())
      {
        OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": cannot decompress input transfer syntax " << xferName
          << " (DCMTK 3.6.7 decodes uncompressed, JPEG, JPEG-LS, RLE and PCWT; convert other syntaxes such as "
          "JPEG 2000 first, e.g. with 'gdcmconv --raw'): " << opt_ifname);
        break;
      }
    }
    else if (ixfer == EXS_Unknown)
    {
      OFLOG_FATAL(dcmcpcwtLogger, "unknown transfer syntax: " << opt_ifname);
      break;
    }

    // the original samples, for --verify and the ratio
    pcwt_dicom_pixel_module originalModule;
    std::vector<unsigned char> originalPixels;
    if (opt_verify)
    {
      error = DPCWTGetPixels(dataset, opt_jpegls ? PCWT_DICOM_TARGET_JPEGLS : PCWT_DICOM_TARGET_PCWT,
        originalModule, originalPixels);
      if (error.bad())
      {
        OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": " << opt_ifname);
        break;
      }
    }

    const E_TransferSyntax opt_oxfer = opt_jpegls ? EXS_JPEGLSLossless : DPCWT_CARRIER_XFER;
    const char *oxferName = opt_jpegls ? DcmXfer(EXS_JPEGLSLossless).getXferName() : DCMPCWT_TRANSFER_SYNTAX_NAME;
    OFLOG_INFO(dcmcpcwtLogger, "converting DICOM file to " << oxferName);

    DPCWTRepresentationParameter rp;
    error = dataset->chooseRepresentation(opt_oxfer, &rp);
    if (error.bad())
    {
      OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": encoding file: " << opt_ifname);
      break;
    }
    if (!dataset->canWriteXfer(opt_oxfer))
    {
      OFLOG_FATAL(dcmcpcwtLogger, "no conversion to transfer syntax " << oxferName << " possible");
      break;
    }

    DPCWTOutputFile output(opt_ofname);
    error = output.create();
    if (error.bad())
    {
      OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": writing file: " << opt_ofname);
      break;
    }
    OFLOG_INFO(dcmcpcwtLogger, "creating output file " << opt_ofname);
    fileformat.loadAllDataIntoMemory();
    error = fileformat.saveFile(output.tempPath().c_str(), opt_oxfer, opt_oenctype, opt_oglenc, opt_opadenc,
      OFstatic_cast(Uint32, opt_filepad), OFstatic_cast(Uint32, opt_itempad), EWM_updateMeta);
    if (error.bad())
    {
      OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": writing file: " << opt_ofname);
      break;
    }

    if (opt_verify)
    {
      OFLOG_INFO(dcmcpcwtLogger, "verifying: decoding the output and comparing every sample");
      DPCWTFileFormat check;
      error = check.loadFile(output.tempPath().c_str());
      if (error.good()) error = check.getDataset()->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
      pcwt_dicom_pixel_module decodedModule;
      std::vector<unsigned char> decodedPixels;
      if (error.good())
        error = DPCWTGetPixels(check.getDataset(), opt_jpegls ? PCWT_DICOM_TARGET_JPEGLS : PCWT_DICOM_TARGET_PCWT,
          decodedModule, decodedPixels);
      if (error.bad())
      {
        OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": verification failed, cannot decode the output; "
          "output not written: " << opt_ofname);
        status = EXITCODE_VERIFICATION_FAILED;
        break;
      }
      error = DPCWTCompareSamples(originalModule, originalPixels, decodedModule, decodedPixels,
        opt_jpegls ? PCWT_DICOM_TARGET_JPEGLS : PCWT_DICOM_TARGET_PCWT);
      if (error.bad())
      {
        OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": verification failed; output not written: " << opt_ofname);
        status = EXITCODE_VERIFICATION_FAILED;
        break;
      }
      OFLOG_INFO(dcmcpcwtLogger, "verification passed: all " << originalPixels.size() << " bytes of samples match");
    }

    const Uint64 outSize = fileSize(output.tempPath().c_str());
    error = output.commit();
    if (error.bad())
    {
      OFLOG_FATAL(dcmcpcwtLogger, error.text());
      break;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Uint64 inSize = fileSize(opt_ifname);
    OFLOG_INFO(dcmcpcwtLogger, "conversion successful: " << inSize << " -> " << outSize << " bytes (file ratio "
      << (outSize ? OFstatic_cast(double, inSize) / OFstatic_cast(double, outSize) : 0.0) << ") in "
      << seconds << " s");
    status = EXITCODE_NO_ERROR;
  } while (false);

  // deregister global codecs
  DPCWTEncoderRegistration::cleanup();
  DPCWTCleanupDecoders();
  return status;
}
