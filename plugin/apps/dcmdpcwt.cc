/*
 *  Module:  dcmpcwt
 *
 *  Purpose: Decompress DICOM file of the PCWT private transfer syntax (or any transfer syntax
 *           DCMTK 3.6.7 decodes, JPEG 2000 and HTJ2K) to Explicit or Implicit VR Little Endian
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
#include "dpappio.h"
#include "dpappopt.h"
#include "dpapps.h"

#include <cerrno>
#include <cstdlib>

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "dcmdpcwt"
#endif

static OFLogger dcmdpcwtLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

static char rcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

/* "123", "64K", "512M", "2G" (binary units) -> bytes; false on anything else or overflow */
static bool parseBytes(const char *v, Uint64& bytes)
{
  if (v == NULL || *v < '0' || *v > '9') return false;
  errno = 0;
  char *end = NULL;
  const unsigned long long n = strtoull(v, &end, 10);
  if (errno != 0) return false;
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  else if (*end == 'M' || *end == 'm') shift = 20;
  else if (*end == 'G' || *end == 'g') shift = 30;
  if (shift) ++end;
  if (*end != '\0' || n > (~0ULL >> shift)) return false;
  bytes = OFstatic_cast(Uint64, n) << shift;
  return true;
}

int main(int argc, char *argv[])
{
  DPCWTAppOptions opt;

  // decoding options
  DPCWT_UIDCreation opt_uidcreation = EPCUC_default;
  OFCmdUnsignedInt opt_maxSamples = OFstatic_cast(OFCmdUnsignedInt, 1) << 30;
  Uint64 opt_maxMemory = 0; // libpcwt's default
  pcwt_backend opt_backend = PCWT_BACKEND_AUTO;

  // output options
  E_TransferSyntax opt_oxfer = EXS_LittleEndianExplicit;

  OFConsoleApplication app(OFFIS_CONSOLE_APPLICATION, "Decode PCWT compressed DICOM file", rcsid);
  OFCommandLine cmd;
  DPCWTAddInputOptions(cmd);

  cmd.addGroup("processing options:");
    cmd.addSubGroup("SOP Instance UID:");
      cmd.addOption("--uid-default",            "+ud",    "keep same SOP Instance UID (default)");
      cmd.addOption("--uid-always",             "+ua",    "always assign new UID");
    cmd.addSubGroup("limits:");
      cmd.addOption("--max-samples",            "+ms", 1, "[n]umber: integer (default: 1073741824)",
                                                          "refuse frames with more samples");
      cmd.addOption("--max-memory",             "+mm", 1, "[b]ytes: integer, suffix K, M or G (default: 0)",
                                                          "refuse images whose decoding needs more memory\n(0: 3/4 of physical memory, within ulimit -v)");
    cmd.addSubGroup("backend:");
      DPCWTAddBackendOptions(cmd);

  cmd.addGroup("output options:");
    cmd.addSubGroup("output transfer syntax:");
      cmd.addOption("--write-xfer-little",      "+te",    "write with explicit VR little endian (default)");
      cmd.addOption("--write-xfer-implicit",    "+ti",    "write with implicit VR little endian");
    DPCWTAddOutputOptions(cmd);

  /* evaluate command line */
  prepareCmdLineArgs(argc, argv, OFFIS_CONSOLE_APPLICATION);
  if (app.parseCommandLine(cmd, argc, argv))
  {
    if (DPCWTPrintVersion(app, cmd, DPCWTDecoderRegistration::getLibraryVersionString()))
      return EXITCODE_NO_ERROR;
    DPCWTEvaluateOptions(app, cmd, opt);

    // SOP Instance UID options
    cmd.beginOptionBlock();
    if (cmd.findOption("--uid-default")) opt_uidcreation = EPCUC_default;
    if (cmd.findOption("--uid-always")) opt_uidcreation = EPCUC_always;
    cmd.endOptionBlock();

    DPCWTEvaluateBackendOptions(cmd, opt_backend);

    if (cmd.findOption("--max-samples"))
      app.checkValue(cmd.getValueAndCheckMin(opt_maxSamples, 1));
    if (cmd.findOption("--max-memory"))
    {
      const char *v = NULL;
      app.checkValue(cmd.getValue(v));
      if (!parseBytes(v, opt_maxMemory))
        app.printError("invalid value for --max-memory: a whole number of bytes, optionally with K, M or G");
    }

    // output transfer syntax
    cmd.beginOptionBlock();
    if (cmd.findOption("--write-xfer-little")) opt_oxfer = EXS_LittleEndianExplicit;
    if (cmd.findOption("--write-xfer-implicit")) opt_oxfer = EXS_LittleEndianImplicit;
    cmd.endOptionBlock();
  }

  /* print resource identifier */
  OFLOG_DEBUG(dcmdpcwtLogger, rcsid << OFendl);

  DPCWTSetDecodeMemoryLimit(opt_maxMemory);

  int status = EXITCODE_ERROR;
  do
  {
    if (!DPCWTCheckFileNames(dcmdpcwtLogger, opt)) break;
    DPCWTFileFormat fileformat;
    OFCondition error = DPCWTLoadInput(dcmdpcwtLogger, opt, fileformat);
    if (error.bad()) break;
    DcmDataset *dataset = fileformat.getDataset();
    // global decompression codecs: PCWT and DCMTK's, with the UID policy, the PCWT decoder on the
    // backend asked for (AUTO: the codec takes the CPU for a small image, libsrc/dpbackend.h)
    DPCWTRegisterDecoders(OFstatic_cast(unsigned long, opt_maxSamples), opt_uidcreation == EPCUC_always,
                          opt_backend);

    // a compressed file, or an image, without Pixel Data was cut short (a file that ends right
    // before (7FE0,0010) loads cleanly): nothing to decompress is then an error, not a success
    if (!dataset->tagExists(DCM_PixelData) &&
        (DcmXfer(dataset->getOriginalXfer()).isEncapsulated() || dataset->tagExists(DCM_Rows)))
    {
      OFLOG_FATAL(dcmdpcwtLogger, "no Pixel Data (7FE0,0010) in an image or a compressed file "
        "(truncated file?): " << opt.ifname);
      break;
    }
    const OFString xferName = DPCWTXferName(dataset->getOriginalXfer());
    OFLOG_INFO(dcmdpcwtLogger, "decompressing file (" << xferName << ")");
    error = dataset->chooseRepresentation(opt_oxfer, NULL);
    if (error.bad())
    {
      OFLOG_FATAL(dcmdpcwtLogger, error.text() << ": decompressing file: " << opt.ifname);
      if (error == EC_CannotChangeRepresentation)
        OFLOG_FATAL(dcmdpcwtLogger, "input transfer syntax " << xferName << " not supported");
      break;
    }
    if (!dataset->canWriteXfer(opt_oxfer))
    {
      OFLOG_FATAL(dcmdpcwtLogger, "no conversion to transfer syntax " << DPCWTXferName(opt_oxfer) << " possible");
      break;
    }

    DPCWTOutputFile output(opt.ofname);
    if (DPCWTSaveOutput(dcmdpcwtLogger, opt, fileformat, opt_oxfer, output).bad()) break;
    if (DPCWTCommitOutput(dcmdpcwtLogger, opt, output).bad()) break;
    OFLOG_INFO(dcmdpcwtLogger, "conversion successful");
    status = EXITCODE_NO_ERROR;
  } while (false);

  DPCWTCleanupDecoders();
  return status;
}
