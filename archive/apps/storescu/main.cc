/*
 *  Module:  archive
 *
 *  Purpose: pcwt-storescu: a Storage SCU (DCMTK dcmnet) that sends archive files (PCWT, or any
 *           syntax DCMTK 3.6.7 decodes) to a peer, decompressing them on the fly to what the peer
 *           accepted: the file's own standard transfer syntax when accepted (HTJ2K too, under
 *           its carrier: netcarrier.h), else JPEG-LS Lossless when offered and accepted, else
 *           uncompressed (explicit or implicit VR little endian). PCWT itself never goes on the
 *           wire (its UID is private).
 */

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/cmdlnarg.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcmetinf.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "dcmtk/dcmdata/dcxfer.h"
#include "dcmtk/dcmnet/diutil.h"
#include "dcmtk/dcmnet/dimse.h"
#include "dcmtk/ofstd/ofconapp.h"
#include "dcmtk/ofstd/ofstd.h"

#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dpfilefo.h"
#include "dcmpcwt/dputil.h"
#include "dpappopt.h"
#include "dpapps.h"
#include "assoc.h"
#include "netcarrier.h"
#include "walk.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "pcwt-storescu"
#endif

static OFLogger scuLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

static char rcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

#define EXITCODE_NO_ERROR         0
#define EXITCODE_ERROR            1  /* command line, no files, association failed */
#define EXITCODE_FILES_FAILED     2  /* at least one instance not stored by the peer */

#define SHORTCOL 4
#define LONGCOL 21

namespace fs = std::filesystem;

namespace {

struct FileInfo
{
  std::string path;
  std::string sopClass;
  std::string xfer;
};

bool isUncompressed(const std::string& ts)
{
  return ts == UID_LittleEndianExplicitTransferSyntax || ts == UID_LittleEndianImplicitTransferSyntax ||
         ts == UID_BigEndianExplicitTransferSyntax;
}

/// a standard transfer syntax a file can be sent in as it is: one DCMTK knows (not PCWT's private
/// one), or HTJ2K (under its carrier)
bool isStandard(const std::string& ts)
{
  return (ts != DCMPCWT_TRANSFER_SYNTAX_UID && DcmXfer(ts.c_str()).getXfer() != EXS_Unknown) ||
         DPNetIsCarriedSyntax(ts);
}

void collect(const std::string& input, std::vector<std::string>& files)
{
  std::error_code ec;
  if (fs::is_directory(input, ec))
  {
    for (fs::recursive_directory_iterator it(input, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
    {
      const std::string name = it->path().filename().string();
      if (!name.empty() && name[0] == '.')
      {
        // hidden files and folders (the storescp's staging folder among them)
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec)) files.push_back(it->path().string());
    }
    if (ec) OFLOG_WARN(scuLogger, "cannot read folder " << input << ": " << ec.message());
  }
  else
    files.push_back(input);
}

} // namespace

int main(int argc, char *argv[])
{
  const char *opt_peer = NULL;
  OFCmdUnsignedInt opt_port = 104;
  const char *opt_ourTitle = "PCWT_STORESCU";
  const char *opt_peerTitle = "ANY-SCP";
  OFCmdUnsignedInt opt_maxPDU = ASC_DEFAULTMAXPDU;
  OFCmdSignedInt opt_timeout = 30;
  OFCmdUnsignedInt opt_acseTimeout = 30;
  OFCmdUnsignedInt opt_dimseTimeout = 0;
  bool opt_jpegls = true;
  std::vector<std::string> inputs;

  OFConsoleApplication app(OFFIS_CONSOLE_APPLICATION,
    "Send archive files (PCWT or standard) to a Storage SCP, decompressing on the fly", rcsid);
  OFCommandLine cmd;
  cmd.setOptionColumns(LONGCOL, SHORTCOL);
  cmd.setParamColumn(LONGCOL + SHORTCOL + 4);
  cmd.addParam("peer", "hostname of DICOM peer");
  cmd.addParam("port", "tcp/ip port number of peer");
  cmd.addParam("dcmfile-in", "DICOM file or folder (recursed) to be sent", OFCmdParam::PM_MultiMandatory);

  cmd.addGroup("general options:", LONGCOL, SHORTCOL + 2);
    cmd.addOption("--help",                     "-h",     "print this help text and exit", OFCommandLine::AF_Exclusive);
    cmd.addOption("--version",                            "print version information and exit", OFCommandLine::AF_Exclusive);
    OFLog::addOptions(cmd);

  cmd.addGroup("network options:");
    cmd.addOption("--aetitle",                  "-aet", 1, "[a]etitle: string",
                                                          "set my calling AE title (default: PCWT_STORESCU)");
    cmd.addOption("--call",                     "-aec", 1, "[a]etitle: string",
                                                          "set called AE title of peer (default: ANY-SCP)");
    cmd.addOption("--max-pdu",                  "-pdu", 1, "[n]umber of bytes: integer (4096..131072)",
                                                          "set max receive pdu to n bytes");
    cmd.addOption("--timeout",                  "-to",  1, "[s]econds: integer (default: 30)",
                                                          "timeout for connection requests");
    cmd.addOption("--acse-timeout",             "-ta",  1, "[s]econds: integer (default: 30)",
                                                          "timeout for ACSE messages");
    cmd.addOption("--dimse-timeout",            "-td",  1, "[s]econds: integer (default: unlimited)",
                                                          "timeout for DIMSE messages");
  cmd.addGroup("transfer syntaxes proposed:");
    cmd.addOption("--propose-jpegls",           "+xj",    "JPEG-LS lossless, uncompressed and each file's\nown standard syntax (default)");
    cmd.addOption("--propose-uncompressed",     "-xj",    "uncompressed and each file's own standard\nsyntax only (no JPEG-LS)");

  prepareCmdLineArgs(argc, argv, OFFIS_CONSOLE_APPLICATION);
  if (app.parseCommandLine(cmd, argc, argv))
  {
    if (DPCWTPrintVersion(app, cmd, DPCWTEncoderRegistration::getLibraryVersionString()))
      return EXITCODE_NO_ERROR;
    cmd.getParam(1, opt_peer);
    app.checkParam(cmd.getParamAndCheckMinMax(2, opt_port, 1, 65535));
    for (int i = 3; i <= cmd.getParamCount(); ++i)
    {
      const char *p = NULL;
      cmd.getParam(i, p);
      if (p && *p) inputs.push_back(p);
    }
    OFLog::configureFromCommandLine(cmd, app);
    if (cmd.findOption("--aetitle")) app.checkValue(cmd.getValue(opt_ourTitle));
    if (cmd.findOption("--call")) app.checkValue(cmd.getValue(opt_peerTitle));
    if (cmd.findOption("--max-pdu")) app.checkValue(cmd.getValueAndCheckMinMax(opt_maxPDU, ASC_MINIMUMPDUSIZE, ASC_MAXIMUMPDUSIZE));
    if (cmd.findOption("--timeout")) app.checkValue(cmd.getValueAndCheckMin(opt_timeout, 1));
    if (cmd.findOption("--acse-timeout")) app.checkValue(cmd.getValueAndCheckMin(opt_acseTimeout, 1));
    if (cmd.findOption("--dimse-timeout")) app.checkValue(cmd.getValueAndCheckMin(opt_dimseTimeout, 1));
    cmd.beginOptionBlock();
    if (cmd.findOption("--propose-jpegls")) opt_jpegls = true;
    if (cmd.findOption("--propose-uncompressed")) opt_jpegls = false;
    cmd.endOptionBlock();
  }
  OFLOG_DEBUG(scuLogger, rcsid << OFendl);

  // the files and what they are
  std::vector<std::string> paths;
  for (const std::string& in : inputs) collect(in, paths);
  std::sort(paths.begin(), paths.end());
  std::vector<FileInfo> files;
  unsigned failed = 0;
  for (const std::string& p : paths)
  {
    FileInfo fi;
    fi.path = p;
    std::string error;
    const DPRC_Sniff s = DPRCSniff(p, fi.xfer, fi.sopClass, error);
    if (s == DPRCS_unreadable)
    {
      OFLOG_ERROR(scuLogger, "cannot read " << p << ": " << error);
      ++failed;
      continue;
    }
    if (s == DPRCS_notDicom || fi.sopClass.empty() || fi.sopClass == UID_MediaStorageDirectoryStorage)
    {
      OFLOG_WARN(scuLogger, "not a DICOM instance, skipped: " << p);
      continue;
    }
    files.push_back(fi);
  }
  if (files.empty())
  {
    OFLOG_FATAL(scuLogger, "no DICOM instances to send");
    return EXITCODE_ERROR;
  }

  DPCWTRegisterDecoders(OFstatic_cast(unsigned long, 1) << 30, OFFalse);
  DPCWTEncoderRegistration::registerCodecs(); // the JPEG-LS Lossless encoder for the way out

  // presentation contexts per SOP class: JPEG-LS Lossless, uncompressed, and the files' own
  // standard compressed syntaxes (sent unchanged when accepted)
  std::map<std::string, std::set<std::string> > own;
  for (const FileInfo& f : files)
  {
    std::set<std::string>& s = own[f.sopClass];
    if (isStandard(f.xfer) && !isUncompressed(f.xfer) && f.xfer != UID_JPEGLSLosslessTransferSyntax)
      s.insert(f.xfer);
  }
  DPSCUSettings settings;
  settings.peer = opt_peer;
  settings.port = OFstatic_cast(unsigned, opt_port);
  settings.ourTitle = opt_ourTitle;
  settings.peerTitle = opt_peerTitle;
  settings.maxPDU = OFstatic_cast(unsigned, opt_maxPDU);
  settings.connectTimeout = OFstatic_cast(int, opt_timeout);
  settings.acseTimeout = OFstatic_cast(int, opt_acseTimeout);
  settings.dimseTimeout = OFstatic_cast(unsigned, opt_dimseTimeout);
  DPSCUAssociation scu;
  for (std::map<std::string, std::set<std::string> >::const_iterator it = own.begin(); it != own.end(); ++it)
  {
    scu.propose(it->first, {UID_LittleEndianExplicitTransferSyntax, UID_LittleEndianImplicitTransferSyntax});
    if (opt_jpegls) scu.propose(it->first, {UID_JPEGLSLosslessTransferSyntax});
    for (const std::string& ts : it->second) scu.propose(it->first, {ts});
  }
  if (scu.proposed() > 128)
  {
    OFLOG_FATAL(scuLogger, "too many SOP classes and transfer syntaxes for one association (" << scu.proposed()
                << " presentation contexts, at most 128): send fewer files at once");
    return EXITCODE_ERROR;
  }

  OFCondition cond = scu.open(settings);
  if (cond.bad())
  {
    OFLOG_FATAL(scuLogger, "cannot negotiate an association with " << opt_peer << ":" << opt_port << ": " << cond.text());
    return EXITCODE_ERROR;
  }

  unsigned sent = 0;
  for (const FileInfo& f : files)
  {
    if (!scu.connected())
    {
      OFLOG_ERROR(scuLogger, "association lost, not sent: " << f.path);
      ++failed;
      continue;
    }
    DPCWTFileFormat ff;
    cond = ff.loadFile(f.path.c_str());
    if (cond.good()) cond = ff.loadAllDataIntoMemory();
    if (cond.bad())
    {
      OFLOG_ERROR(scuLogger, "cannot read " << f.path << ": " << cond.text());
      ++failed;
      continue;
    }
    DcmDataset *ds = ff.getDataset();
    T_ASC_PresentationContextID pcid = 0;
    std::string how;
    // 1. the file as it is, when the peer accepted its own standard syntax
    if (isStandard(f.xfer))
    {
      pcid = scu.find(f.sopClass, f.xfer);
      if (pcid != 0) how = "as is";
    }
    // 2. JPEG-LS Lossless
    const T_ASC_PresentationContextID jlsID =
      opt_jpegls ? scu.find(f.sopClass, UID_JPEGLSLosslessTransferSyntax) : 0;
    if (pcid == 0 && jlsID != 0 && ds->tagExists(DCM_PixelData))
    {
      const OFCondition c = ds->chooseRepresentation(EXS_JPEGLSLossless, NULL);
      if (c.good() && ds->canWriteXfer(EXS_JPEGLSLossless))
      {
        pcid = jlsID;
        how = "recoded to JPEG-LS Lossless";
      }
      else
        OFLOG_DEBUG(scuLogger, f.path << ": not as JPEG-LS (" << c.text() << "), trying uncompressed");
    }
    // 3. uncompressed
    if (pcid == 0)
    {
      const T_ASC_PresentationContextID ele = scu.find(f.sopClass, UID_LittleEndianExplicitTransferSyntax);
      const T_ASC_PresentationContextID ile = scu.find(f.sopClass, UID_LittleEndianImplicitTransferSyntax);
      const E_TransferSyntax x = ele ? EXS_LittleEndianExplicit : EXS_LittleEndianImplicit;
      if (ele || ile)
      {
        const OFCondition c = ds->chooseRepresentation(x, NULL);
        if (c.good() && ds->canWriteXfer(x))
        {
          pcid = ele ? ele : ile;
          how = ele ? "decompressed to explicit VR little endian" : "decompressed to implicit VR little endian";
        }
        else
          OFLOG_ERROR(scuLogger, "cannot decompress " << f.path << ": " << c.text());
      }
    }
    if (pcid == 0)
    {
      OFLOG_ERROR(scuLogger, "no accepted presentation context for " << f.path << " ("
                  << dcmFindNameOfUID(f.sopClass.c_str(), f.sopClass.c_str()) << "): not sent");
      ++failed;
      continue;
    }
    Uint16 status = 0;
    // the affected SOP instance: the file's meta information, else the data set's
    OFString instance;
    if (ff.getMetaInfo()->findAndGetOFString(DCM_MediaStorageSOPInstanceUID, instance).bad() || instance.empty())
      ds->findAndGetOFString(DCM_SOPInstanceUID, instance);
    cond = scu.store(pcid, ds, f.sopClass, instance.c_str(), status);
    if (cond.bad())
    {
      OFLOG_ERROR(scuLogger, "C-STORE of " << f.path << " failed: " << cond.text());
      ++failed;
    }
    else if (status != STATUS_Success && (status & 0xf000) != 0xb000)
    {
      OFLOG_ERROR(scuLogger, "peer refused " << f.path << ": " << DU_cstoreStatusString(status)
                  << " (0x" << STD_NAMESPACE hex << status << STD_NAMESPACE dec << ")");
      ++failed;
    }
    else
    {
      ++sent;
      OFLOG_INFO(scuLogger, "sent " << f.path << " (" << how << ")"
                 << (status != STATUS_Success ? ", with a warning" : ""));
    }
  }
  scu.release();

  OFLOG_INFO(scuLogger, sent << " sent, " << failed << " failed");
  DPCWTEncoderRegistration::cleanup();
  DPCWTCleanupDecoders();
  return failed ? EXITCODE_FILES_FAILED : EXITCODE_NO_ERROR;
}
