/*
 *  Module:  dcmpcwt
 *
 *  Purpose: Compress DICOM file to the PCWT private transfer syntax (or to JPEG-LS Lossless)
 *
 *  The input may use any transfer syntax DCMTK 3.6.7 decodes (uncompressed, JPEG, JPEG-LS, RLE),
 *  PCWT, JPEG 2000 or HTJ2K (lossy streams only with --accept-lossy). The output is written to a
 *  temporary file in the output folder and renamed when it is complete (and, with --verify,
 *  decoded and compared sample by sample): on any error nothing is left at the output path.
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
#include "dcmpcwt/dpj2kdec.h"
#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"
#include "dpappio.h"
#include "dpappopt.h"
#include "dpapps.h"

#include <chrono>
#include <sys/stat.h>

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "dcmcpcwt"
#endif

static OFLogger dcmcpcwtLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

static char rcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

// exit codes besides EXITCODE_NO_ERROR and EXITCODE_ERROR (dpappio.h)
#define EXITCODE_VERIFICATION_FAILED    2  /* --verify found a difference */

static Uint64 fileSize(const char *path)
{
  struct stat st;
  return (stat(path, &st) == 0) ? OFstatic_cast(Uint64, st.st_size) : 0;
}

int main(int argc, char *argv[])
{
  DPCWTAppOptions opt;

  // encoding options
  OFBool opt_jpegls = OFFalse;
  OFCmdUnsignedInt opt_levels = PCWT_DEFAULT_LEVELS;
  OFCmdUnsignedInt opt_groupRows = 0; // 0x0: the profile's size
  OFCmdUnsignedInt opt_groupColumns = 0;
  pcwt_profile opt_profile = PCWT_PROFILE_COMPACT;
  pcwt_backend opt_backend = PCWT_BACKEND_AUTO;
  OFBool opt_acceptLossy = OFFalse;
  OFBool opt_verify = OFFalse;
  DPCWT_UIDCreation opt_uidcreation = EPCUC_default;
  OFBool opt_secondarycapture = OFFalse;

  OFConsoleApplication app(OFFIS_CONSOLE_APPLICATION,
    "Encode DICOM file to the PCWT lossless transfer syntax or JPEG-LS Lossless", rcsid);
  OFCommandLine cmd;
  DPCWTAddInputOptions(cmd);

  cmd.addGroup("encoding options:");
    cmd.addSubGroup("output transfer syntax:");
      cmd.addOption("--encode-pcwt",            "+ep",    "encode PCWT lossless, private TS (default)");
      cmd.addOption("--encode-jpegls",          "+el",    "encode JPEG-LS lossless (standard TS)");
    cmd.addSubGroup("PCWT coding:");
      cmd.addOption("--levels",                 "+lv", 1, "[n]umber: integer (0..10, default: 6)",
                                                          "wavelet levels (fewer for small images)");
      cmd.addOption("--group-size",             "+gs", 2, "[r]ows [c]olumns: integer (1..256)",
                                                          "elements per independently coded group\n(default: 32 32; entropy profile: 64 16)");
      DPCWTAddProfileOption(cmd);
      DPCWTAddBackendOptions(cmd);
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
    DPCWTAddOutputOptions(cmd);

  /* evaluate command line */
  prepareCmdLineArgs(argc, argv, OFFIS_CONSOLE_APPLICATION);
  if (app.parseCommandLine(cmd, argc, argv))
  {
    if (DPCWTPrintVersion(app, cmd, DPCWTEncoderRegistration::getLibraryVersionString()))
      return EXITCODE_NO_ERROR;
    DPCWTEvaluateOptions(app, cmd, opt);

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
    DPCWTEvaluateProfileOption(app, cmd, opt_profile, "--encode-jpegls", opt_jpegls);
    DPCWTEvaluateBackendOptions(cmd, opt_backend);

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
  }

  /* print resource identifier */
  OFLOG_DEBUG(dcmcpcwtLogger, rcsid << OFendl);


  const pcwt_dicom_target target = opt_jpegls ? PCWT_DICOM_TARGET_JPEGLS : PCWT_DICOM_TARGET_PCWT;
  int status = EXITCODE_ERROR;
  do
  {
    if (!DPCWTCheckFileNames(dcmcpcwtLogger, opt)) break;
    const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    DPCWTFileFormat fileformat;
    OFCondition error = DPCWTLoadInput(dcmcpcwtLogger, opt, fileformat);
    if (error.bad()) break;
    DcmDataset *dataset = fileformat.getDataset();
    // global codecs: every decoder DCMTK 3.6.7 has, ours, and the encoders; ours on the backend
    // asked for (AUTO: the codecs take the CPU for a small image, libsrc/dpbackend.h)
    DPCWTRegisterDecoders(OFstatic_cast(unsigned long, 1) << 30, OFFalse, opt_backend);
    DPCWTEncoderRegistration::registerCodecs(opt_uidcreation, opt_secondarycapture, opt_acceptLossy,
      OFstatic_cast(Uint32, opt_levels), OFstatic_cast(Uint32, opt_groupRows),
      OFstatic_cast(Uint32, opt_groupColumns), opt_backend, OFTrue /* JPEG-LS */, opt_profile);

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
        << (opt_jpegls ? "JPEG-LS" : "PCWT") << ": " << opt.ifname);
      break;
    }
    if (!dataset->tagExists(DCM_PixelData))
    {
      OFLOG_FATAL(dcmcpcwtLogger, "no Pixel Data (7FE0,0010) to compress: " << opt.ifname);
      break;
    }

    // compressed input: decode with DCMTK's decoders first (lossy input only when accepted)
    const E_TransferSyntax ixfer = dataset->getOriginalXfer();
    DcmXfer original_xfer(ixfer);
    if (original_xfer.isEncapsulated())
    {
      const OFString xferName = DPCWTXferName(ixfer);
      // JPEG 2000 and HTJ2K: lossless or not is read from the codestreams, not the UID
      OFBool lossy = original_xfer.isLossy();
      if (DPCWTIsJPEG2000Xfer(ixfer) && DPCWTJ2KDecoder::available())
      {
        error = DPCWTJ2KDecoder::isLossy(dataset, lossy);
        if (error.bad())
        {
          OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": cannot decompress input transfer syntax " << xferName
            << ": " << opt.ifname);
          break;
        }
      }
      if (ixfer != DPCWT_CARRIER_XFER && lossy && !opt_acceptLossy)
      {
        OFLOG_FATAL(dcmcpcwtLogger, "input is lossy compressed (" << xferName << "): lossless coding would only "
          "preserve those losses; use --accept-lossy to code it anyway: " << opt.ifname);
        break;
      }
      OFLOG_INFO(dcmcpcwtLogger, "DICOM file is compressed (" << xferName << "), decompressing it first");
      error = dataset->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
      if (error.bad())
      {
        OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": cannot decompress input transfer syntax " << xferName
          << " (dcmcpcwt decodes uncompressed, JPEG, JPEG-LS, RLE, JPEG 2000, HTJ2K and PCWT; convert other "
          "syntaxes first, e.g. with 'gdcmconv --raw'): " << opt.ifname);
        break;
      }
    }
    else if (ixfer == EXS_Unknown)
    {
      OFLOG_FATAL(dcmcpcwtLogger, "unknown transfer syntax: " << opt.ifname);
      break;
    }

    // the original samples, for --verify and the ratio
    pcwt_dicom_pixel_module originalModule;
    std::vector<unsigned char> originalPixels;
    if (opt_verify)
    {
      error = DPCWTGetPixels(dataset, target, originalModule, originalPixels);
      if (error.bad())
      {
        OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": " << opt.ifname);
        break;
      }
    }

    const E_TransferSyntax opt_oxfer = opt_jpegls ? EXS_JPEGLSLossless : DPCWT_CARRIER_XFER;
    const OFString oxferName = DPCWTXferName(opt_oxfer);
    if (opt_jpegls)
      OFLOG_INFO(dcmcpcwtLogger, "converting DICOM file to " << oxferName);
    else
      OFLOG_INFO(dcmcpcwtLogger, "converting DICOM file to " << oxferName << " (" << DPCWTProfileName(opt_profile)
        << " profile)");

    DPCWTRepresentationParameter rp;
    error = dataset->chooseRepresentation(opt_oxfer, &rp);
    if (error.bad())
    {
      OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": encoding file: " << opt.ifname);
      break;
    }
    if (!dataset->canWriteXfer(opt_oxfer))
    {
      OFLOG_FATAL(dcmcpcwtLogger, "no conversion to transfer syntax " << oxferName << " possible");
      break;
    }

    DPCWTOutputFile output(opt.ofname);
    if (DPCWTSaveOutput(dcmcpcwtLogger, opt, fileformat, opt_oxfer, output).bad()) break;

    if (opt_verify)
    {
      OFLOG_INFO(dcmcpcwtLogger, "verifying: decoding the output and comparing every sample");
      DPCWTFileFormat check;
      error = check.loadFile(output.tempPath().c_str());
      if (error.good()) error = check.getDataset()->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
      pcwt_dicom_pixel_module decodedModule;
      std::vector<unsigned char> decodedPixels;
      if (error.good())
        error = DPCWTGetPixels(check.getDataset(), target, decodedModule, decodedPixels);
      if (error.bad())
      {
        OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": verification failed, cannot decode the output; "
          "output not written: " << opt.ofname);
        status = EXITCODE_VERIFICATION_FAILED;
        break;
      }
      error = DPCWTCompareSamples(originalModule, originalPixels.data(), originalPixels.size(), decodedModule,
                                  decodedPixels, target);
      if (error.bad())
      {
        OFLOG_FATAL(dcmcpcwtLogger, error.text() << ": verification failed; output not written: " << opt.ofname);
        status = EXITCODE_VERIFICATION_FAILED;
        break;
      }
      OFLOG_INFO(dcmcpcwtLogger, "verification passed: all " << originalPixels.size() << " bytes of samples match");
    }

    const Uint64 outSize = fileSize(output.tempPath().c_str());
    if (DPCWTCommitOutput(dcmcpcwtLogger, opt, output).bad()) break;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Uint64 inSize = fileSize(opt.ifname);
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
