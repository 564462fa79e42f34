/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the command line dcmcpcwt and dcmdpcwt share.
 */

#include "dcmtk/config/osconfig.h"
#include "dpappopt.h"

#include "dcmtk/dcmdata/dcxfer.h"
#include "dcmtk/oflog/oflog.h"

#include "dcmpcwt/dputil.h"

#include <cstring>

#define SHORTCOL 3
#define LONGCOL 21

DPCWTAppOptions::DPCWTAppOptions()
: ifname(NULL)
, ofname(NULL)
, readMode(ERM_autoDetect)
, ixfer(EXS_Unknown)
, oglenc(EGL_recalcGL)
, oenctype(EET_ExplicitLength)
, opadenc(EPD_noChange)
, filepad(0)
, itempad(0)
{
}

void DPCWTAddInputOptions(OFCommandLine& cmd)
{
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
}

void DPCWTAddOutputOptions(OFCommandLine& cmd)
{
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
}

OFBool DPCWTPrintVersion(OFConsoleApplication& app, OFCommandLine& cmd, const OFString& libraryVersion)
{
  if (!cmd.hasExclusiveOption() || !cmd.findOption("--version")) return OFFalse;
  app.printHeader(OFTrue /*print host identifier*/);
  COUT << OFendl << "External libraries used:" << OFendl;
  COUT << "- " << libraryVersion << OFendl;
  COUT << OFendl << "PCWT transfer syntax UID: " << DCMPCWT_TRANSFER_SYNTAX_UID << OFendl;
  return OFTrue;
}

void DPCWTEvaluateOptions(OFConsoleApplication& app, OFCommandLine& cmd, DPCWTAppOptions& opt)
{
  /* command line parameters */
  cmd.getParam(1, opt.ifname);
  cmd.getParam(2, opt.ofname);

  // general options
  OFLog::configureFromCommandLine(cmd, app);

  // input file format
  cmd.beginOptionBlock();
  if (cmd.findOption("--read-file")) opt.readMode = ERM_autoDetect;
  if (cmd.findOption("--read-file-only")) opt.readMode = ERM_fileOnly;
  if (cmd.findOption("--read-dataset")) opt.readMode = ERM_dataset;
  cmd.endOptionBlock();

  // input transfer syntax
  cmd.beginOptionBlock();
  if (cmd.findOption("--read-xfer-auto"))
    opt.ixfer = EXS_Unknown;
  if (cmd.findOption("--read-xfer-detect"))
    dcmAutoDetectDatasetXfer.set(OFTrue);
  if (cmd.findOption("--read-xfer-little"))
  {
    app.checkDependence("--read-xfer-little", "--read-dataset", opt.readMode == ERM_dataset);
    opt.ixfer = EXS_LittleEndianExplicit;
  }
  if (cmd.findOption("--read-xfer-big"))
  {
    app.checkDependence("--read-xfer-big", "--read-dataset", opt.readMode == ERM_dataset);
    opt.ixfer = EXS_BigEndianExplicit;
  }
  if (cmd.findOption("--read-xfer-implicit"))
  {
    app.checkDependence("--read-xfer-implicit", "--read-dataset", opt.readMode == ERM_dataset);
    opt.ixfer = EXS_LittleEndianImplicit;
  }
  cmd.endOptionBlock();

  // group length encoding
  cmd.beginOptionBlock();
  if (cmd.findOption("--group-length-recalc")) opt.oglenc = EGL_recalcGL;
  if (cmd.findOption("--group-length-create")) opt.oglenc = EGL_withGL;
  if (cmd.findOption("--group-length-remove")) opt.oglenc = EGL_withoutGL;
  cmd.endOptionBlock();

  // length encoding in sequences and items
  cmd.beginOptionBlock();
  if (cmd.findOption("--length-explicit")) opt.oenctype = EET_ExplicitLength;
  if (cmd.findOption("--length-undefined")) opt.oenctype = EET_UndefinedLength;
  cmd.endOptionBlock();

  // data set trailing padding
  cmd.beginOptionBlock();
  if (cmd.findOption("--padding-retain")) opt.opadenc = EPD_noChange;
  if (cmd.findOption("--padding-off")) opt.opadenc = EPD_withoutPadding;
  if (cmd.findOption("--padding-create"))
  {
    app.checkValue(cmd.getValueAndCheckMin(opt.filepad, 0));
    app.checkValue(cmd.getValueAndCheckMin(opt.itempad, 0));
    opt.opadenc = EPD_withPadding;
  }
  cmd.endOptionBlock();
}

void DPCWTAddProfileOption(OFCommandLine& cmd)
{
      cmd.addOption("--profile",                "+pr", 1, "[p]rofile: baseline | entropy | compact (default: compact)",
                                                          "PCWT coding profile: entropy range-codes each\n"
                                                          "group, about 10% smaller, slower to code;\n"
                                                          "compact adds value maps, the smallest (decoders\n"
                                                          "read it from the file; older ones refuse it)");
}

void DPCWTEvaluateProfileOption(OFConsoleApplication& app, OFCommandLine& cmd, pcwt_profile& profile,
                                const char *jpeglsOption, OFBool jpegls)
{
  if (!cmd.findOption("--profile")) return;
  app.checkConflict("--profile", jpeglsOption, jpegls);
  const char *value = NULL;
  app.checkValue(cmd.getValue(value));
  // the library's names for the profiles (pcwt_option_parse; its numbers are not taken here)
  int64_t v = 0;
  if (pcwt_option_parse(PCWT_OPT_PROFILE, value, &v) == PCWT_OK &&
      strcmp(value, pcwt_profile_name(static_cast<pcwt_profile>(v))) == 0)
    profile = static_cast<pcwt_profile>(v);
  else
  {
    char names[64];
    pcwt_option_choices(PCWT_OPT_PROFILE, " or ", names, sizeof names);
    const OFString message = OFString("invalid value for option --profile: '") + value +
                             "' (must be " + names + ")";
    app.printError(message.c_str());
  }
}

void DPCWTAddBackendOptions(OFCommandLine& cmd)
{
      cmd.addOption("--backend-auto",           "+ba",    "GPU when available for images of 32 MB of\nsamples or more, else CPU (default)");
      cmd.addOption("--backend-cpu",            "+bc",    "always use the CPU codec");
      cmd.addOption("--backend-gpu",            "+bg",    "always use the GPU codec (fail without one)");
}

void DPCWTEvaluateBackendOptions(OFCommandLine& cmd, pcwt_backend& backend)
{
  cmd.beginOptionBlock();
  if (cmd.findOption("--backend-auto")) backend = PCWT_BACKEND_AUTO;
  if (cmd.findOption("--backend-cpu")) backend = PCWT_BACKEND_CPU;
  if (cmd.findOption("--backend-gpu")) backend = PCWT_BACKEND_GPU;
  cmd.endOptionBlock();
}

const char *DPCWTProfileName(pcwt_profile profile)
{
  return pcwt_profile_name(profile);
}
