/*
 *  Module:  archive
 *
 *  Purpose: pcwt-storescp: a Storage SCP (DCMTK dcmnet) that compresses every image instance it
 *           receives to PCWT (or JPEG-LS) and files it into an archive tree
 *           root/<PatientID>/<StudyInstanceUID>/<SeriesInstanceUID>/<SOPInstanceUID>.dcm.
 *           Success is answered only after the compressed file was written to a temporary file,
 *           flushed, decoded and compared sample by sample with what was received, and renamed
 *           into place; on failure the received original is kept under root/failed/.
 *           Several associations are served at once, one thread each (net.cc); the
 *           received data set is checked before it is coded (ingest.cc), and each refusal
 *           gets its own DICOM status. docs/pacs.md lists the limits and statuses.
 */

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/cmdlnarg.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "dcmtk/dcmnet/dcmtrans.h"
#include "dcmtk/dcmnet/diutil.h"
#include "dcmtk/dcmnet/dimse.h"
#include "dcmtk/dcmnet/scpthrd.h"
#include "dcmtk/ofstd/ofconapp.h"
#include "dcmtk/ofstd/ofstd.h"

#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dputil.h"
#include "dpappopt.h"
#include "dpapps.h"
#include "engine.h"
#include "walk.h"
#include "ingest.h"
#include "j2k.h"
#include "net.h"
#include "netcarrier.h"
#include "tls.h"
#include "verify.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "pcwt-storescp"
#endif

static OFLogger scpLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

static char rcsid[] = "$dcmtk: " OFFIS_CONSOLE_APPLICATION " v"
  PCWT_VERSION_STRING " (DCMTK " OFFIS_DCMTK_VERSION ") $";

#define EXITCODE_NO_ERROR 0
#define EXITCODE_ERROR    1

#define SHORTCOL 4
#define LONGCOL 21

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// settings shared by all workers (set before the pool starts, read-only afterwards)

namespace {

struct StoreSettings
{
  std::string root;
  DPRC_Target target = DPRCT_pcwt;
  bool rejectUnsupported = false;
  bool acceptLossy = false;
  pcwt_profile profile = PCWT_PROFILE_COMPACT;
  unsigned slots = 8;
  /// the most bytes of one received data set (the association is aborted beyond)
  std::uint64_t maxObjectBytes = 0;
  /// calling AE titles allowed to associate (empty: any)
  std::vector<std::string> callingAETitles;
  /// --verify-gpu / --verify-cpu (default: the GPU's verifier where the GPU codes), --verify-sample
  DPRC_VerifyMode verify = DPRCVM_auto;
  OFCmdUnsignedInt verifySample = kDPRCDefaultVerifySample;
  /// --j2k-decoder
  DPRC_J2KDecoder j2kDecoder = DPRCJD_auto;
  /// --j2k-gpu-min-samples
  OFCmdUnsignedInt j2kGpuMinSamples = kJ2KGpuMinSamples;
};

StoreSettings g_settings;
/// PCWT copies: every frame decoded by the coding backend, a sample by the CPU (NULL: the codec, every frame on the CPU)
std::unique_ptr<dprc::DirectVerifier> g_verifier;
/// JPEG 2000 input decoded on the GPU (NULL, or not enabled: OpenJPEG on the association's thread)
std::unique_ptr<DPSCPJ2KDecoding> g_j2k;
std::atomic<unsigned long> g_counter(0);

/// the worker slots of the engine's temporary file registry (temp.cc)
std::mutex g_slotMutex;
std::vector<bool> g_slotBusy;

unsigned takeSlot()
{
  std::lock_guard<std::mutex> lock(g_slotMutex);
  for (unsigned i = 0; i < g_slotBusy.size(); ++i)
    if (!g_slotBusy[i])
    {
      g_slotBusy[i] = true;
      return i;
    }
  return OFstatic_cast(unsigned, g_slotBusy.size()); // beyond the registry: no signal cleanup
}

void releaseSlot(unsigned slot)
{
  std::lock_guard<std::mutex> lock(g_slotMutex);
  if (slot < g_slotBusy.size()) g_slotBusy[slot] = false;
}

/// a path component from an attribute value: [A-Za-z0-9._-] kept, anything else '_'
std::string sanitize(const OFString& value, const char *fallback)
{
  std::string s;
  for (size_t i = 0; i < value.length() && s.size() < 64; ++i)
  {
    const char c = value[i];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    s += ok ? c : '_';
  }
  // no empty, hidden, "." or ".." components
  while (!s.empty() && s[0] == '.') s[0] = '_';
  if (s.empty()) s = fallback;
  return s;
}

bool fsyncPath(const std::string& path, bool directory)
{
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) return false;
  const int rc = fsync(fd);
  const int e = errno;
  close(fd);
  return rc == 0 || (directory && (e == EINVAL || e == EBADF));
}

/// move a file into dir (created if needed) under name, durably; an existing file is replaced
bool moveInto(const std::string& from, const std::string& dir, const std::string& name, std::string& error)
{
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
  {
    error = "cannot create folder " + dir + ": " + ec.message();
    return false;
  }
  const std::string to = dir + "/" + name;
  if (rename(from.c_str(), to.c_str()) != 0)
  {
    error = "cannot rename " + from + " to " + to + ": " + std::strerror(errno);
    return false;
  }
  if (!fsyncPath(dir, true))
  {
    error = "cannot flush folder " + dir;
    return false;
  }
  return true;
}

/// the transfer syntaxes accepted for storage, in order of preference: lossless compressed (fewer
/// bytes on the wire), uncompressed, then those that may be lossy (lossy ones are stored as
/// received; a JPEG 2000 (.91) or HTJ2K (.203) codestream is lossless or not by its headers).
/// HTJ2K, which DCMTK 3.6.7 does not know, is received under its carriers (netcarrier.h).
const char *g_storeXfers[] = {
  UID_JPEGLSLosslessTransferSyntax, UID_JPEGProcess14SV1TransferSyntax, UID_JPEGProcess14TransferSyntax,
  UID_RLELosslessTransferSyntax, UID_JPEG2000LosslessOnlyTransferSyntax, DCMPCWT_HTJ2K_LOSSLESS_UID,
  DCMPCWT_HTJ2K_LOSSLESS_RPCL_UID, UID_LittleEndianExplicitTransferSyntax,
  UID_BigEndianExplicitTransferSyntax, UID_LittleEndianImplicitTransferSyntax,
  UID_DeflatedExplicitVRLittleEndianTransferSyntax, UID_JPEG2000TransferSyntax, DCMPCWT_HTJ2K_UID,
  UID_JPEGProcess1TransferSyntax, UID_JPEGProcess2_4TransferSyntax, UID_JPEGLSLossyTransferSyntax};
const char *g_echoXfers[] = {
  UID_LittleEndianExplicitTransferSyntax, UID_BigEndianExplicitTransferSyntax, UID_LittleEndianImplicitTransferSyntax};
const char *g_verification[] = {UID_VerificationSOPClass};

/// the accepted storage SOP classes
std::vector<std::string> g_sopClassStore;
std::vector<const char *> g_sopClassUIDs;

std::string failedDir() { return g_settings.root + "/failed"; }
std::string incomingDir() { return g_settings.root + "/.incoming"; }

} // namespace

// ---------------------------------------------------------------------------------------------
// one worker: serves one association at a time

class DPCWTStoreSCP : public DcmThreadSCP
{
public:
  DPCWTStoreSCP() : DcmThreadSCP(), params_(NULL), assoc_(NULL), overLimit_(false) {}

  /// serve one association (ours to destroy: the destructor drops it)
  void serve(T_ASC_Association *assoc)
  {
    assoc_ = assoc;
    run(assoc);
  }

protected:
  /// --calling-aet: others get A-ASSOCIATE-RJ (permanent, calling AE title not recognised)
  virtual OFBool checkCallingAETitleAccepted(const OFString& callingAE)
  {
    if (g_settings.callingAETitles.empty()) return OFTrue;
    OFString ae = callingAE;
    while (!ae.empty() && ae[ae.length() - 1] == ' ') ae.erase(ae.length() - 1);
    for (const std::string& allowed : g_settings.callingAETitles)
      if (allowed == ae.c_str()) return OFTrue;
    OFLOG_WARN(scpLogger, "refusing association: calling AE title \"" << ae << "\" is not allowed (--calling-aet)");
    return OFFalse;
  }

  /** --max-object-size, while the data set comes in (so that neither memory nor disk holds more
   *  than the limit and one PDU): the association is aborted; nothing was acknowledged
   */
  virtual void notifyRECEIVEProgress(const unsigned long byteCount)
  {
    if (overLimit_ || g_settings.maxObjectBytes == 0 || byteCount <= g_settings.maxObjectBytes) return;
    overLimit_ = true;
    OFLOG_ERROR(scpLogger, "refusing a data set of more than " << g_settings.maxObjectBytes
                << " bytes (--max-object-size): association aborted");
    DPSCPAbortConnection(assoc_);
  }

  /// the A-ASSOCIATE-AC is sent: HTJ2K contexts go under their carriers from now on
  virtual void notifyAssociationAcknowledge()
  {
    if (assoc_ != NULL) carried_ = DPNetCarryUnknownSyntaxes(assoc_->params);
    DcmThreadSCP::notifyAssociationAcknowledge();
  }

  virtual void notifyAssociationRequest(const T_ASC_Parameters& params, DcmSCPActionType& desiredAction)
  {
    params_ = OFconst_cast(T_ASC_Parameters *, &params);
    DcmThreadSCP::notifyAssociationRequest(params, desiredAction);
  }

  /// accept Verification and the storage SOP classes (any number, unlike a DcmSCPConfig profile)
  virtual OFCondition negotiateAssociation()
  {
    if (params_ == NULL) return DIMSE_ILLEGALASSOCIATION;
    OFCondition c = ASC_acceptContextsWithPreferredTransferSyntaxes(params_, g_verification, 1, g_echoXfers, 3);
    if (c.good())
      c = ASC_acceptContextsWithPreferredTransferSyntaxes(params_, g_sopClassUIDs.data(),
            OFstatic_cast(int, g_sopClassUIDs.size()), g_storeXfers,
            OFstatic_cast(int, sizeof g_storeXfers / sizeof g_storeXfers[0]));
    if (c.bad()) OFLOG_ERROR(scpLogger, "cannot negotiate presentation contexts: " << c.text());
    return c;
  }

  virtual OFCondition handleIncomingCommand(T_DIMSE_Message *incomingMsg,
                                            const DcmPresentationContextInfo& presInfo)
  {
    if (incomingMsg->CommandField != DIMSE_C_STORE_RQ)
      return DcmThreadSCP::handleIncomingCommand(incomingMsg, presInfo);
    T_DIMSE_C_StoreRQ& req = incomingMsg->msg.CStoreRQ;
    const T_ASC_PresentationContextID presID = presInfo.presentationContextID;

    // receive the data set as it comes, straight into a file of the staging folder
    char tag[64];
    OFStandard::snprintf(tag, sizeof tag, "%ld-%lu", OFstatic_cast(long, getpid()), ++g_counter);
    const std::string stage = incomingDir() + "/" + tag;
    std::error_code ec;
    fs::create_directories(stage, ec);
    if (ec)
    {
      OFLOG_ERROR(scpLogger, "cannot create staging folder " << stage << ": " << ec.message());
      // the data set must still be read off the association before answering
      DcmDataset *ds = NULL;
      OFCondition c = receiveSTORERequest(req, presID, ds);
      delete ds;
      if (c.bad()) return c;
      return sendSTOREResponse(presID, req, STATUS_STORE_Refused_OutOfResources);
    }
    const std::string received = stage + "/received.dcm";
    overLimit_ = false;
    OFCondition cond;
    if (carried_.count(presID))
      cond = DPNetReceiveCarriedToFile(assoc_, req, presID, carried_[presID], received, getDIMSEBlockingMode(),
                                       OFstatic_cast(int, getDIMSETimeout()), receiveProgress, this);
    else
      cond = receiveSTORERequest(req, presID, OFString(received.c_str()));
    if (cond.bad())
    {
      if (!overLimit_) OFLOG_ERROR(scpLogger, "receiving C-STORE data set failed: " << cond.text());
      fs::remove_all(stage, ec);
      return cond;
    }
    Uint16 status = STATUS_STORE_Refused_SOPClassNotSupported;
    if (presInfo.abstractSyntax == req.AffectedSOPClassUID)
      status = store(req, received, stage);
    else
      OFLOG_ERROR(scpLogger, "refusing " << req.AffectedSOPInstanceUID << ": SOP class " << req.AffectedSOPClassUID
                  << " sent on a presentation context for " << presInfo.abstractSyntax);
    fs::remove_all(stage, ec);
    if (status != STATUS_Success)
      OFLOG_INFO(scpLogger, "answering " << DPSCPStatusText(status) << " for " << req.AffectedSOPInstanceUID);
    return sendSTOREResponse(presID, req, status);
  }

private:
  /// file the received instance; the DIMSE status to answer
  Uint16 store(const T_DIMSE_C_StoreRQ& req, const std::string& received, const std::string& stage)
  {
    const std::string sopInstance = sanitize(req.AffectedSOPInstanceUID, "UNKNOWN");
    // the received original is flushed first: whatever happens next, it is not lost
    if (!fsyncPath(received, false))
    {
      OFLOG_ERROR(scpLogger, "cannot flush received file " << received << ": " << std::strerror(errno));
      return STATUS_STORE_Refused_OutOfResources;
    }

    // where it goes in the archive
    OFString patient, study, series, instance, sopClass;
    std::uint64_t samples = 0; // of all frames (the JPEG 2000 decoder's choice)
    {
      // (values over 4 KiB are left on disk: Pixel Data's length is all the checks need)
      DcmFileFormat ff;
      OFCondition c = ff.loadFile(received.c_str(), EXS_Unknown, EGL_noChange, 4096);
      if (c.bad())
      {
        OFLOG_ERROR(scpLogger, "cannot read received data set " << req.AffectedSOPInstanceUID << ": " << c.text());
        keepFailed(received, sopInstance);
        return STATUS_STORE_Error_CannotUnderstand;
      }
      DcmDataset *ds = ff.getDataset();
      DPSCPStringOf(ds, DCM_PatientID, patient);
      DPSCPStringOf(ds, DCM_StudyInstanceUID, study);
      DPSCPStringOf(ds, DCM_SeriesInstanceUID, series);
      DPSCPStringOf(ds, DCM_SOPInstanceUID, instance);
      DPSCPStringOf(ds, DCM_SOPClassUID, sopClass);
      Uint16 rows = 0, columns = 0, spp = 1;
      Sint32 frames = 1;
      ds->findAndGetUint16(DCM_Rows, rows);
      ds->findAndGetUint16(DCM_Columns, columns);
      ds->findAndGetUint16(DCM_SamplesPerPixel, spp);
      if (ds->findAndGetSint32(DCM_NumberOfFrames, frames).bad() || frames < 1) frames = 1;
      samples = std::uint64_t(rows) * columns * spp * OFstatic_cast(std::uint64_t, frames);
      // defence in depth before the codec's own checks: an image whose pixel data contradicts its
      // module is never acknowledged (part of it would be archived as the whole)
      std::string why;
      const Uint16 bad = DPSCPCheckDataset(ds, req.AffectedSOPClassUID, why);
      if (bad != STATUS_Success)
      {
        OFLOG_ERROR(scpLogger, "refusing " << req.AffectedSOPInstanceUID << ": " << why);
        keepFailed(received, sopInstance);
        return bad;
      }
    }
    if (instance.empty()) instance = req.AffectedSOPInstanceUID;
    const std::string rel = sanitize(patient, "UNKNOWN") + "/" + sanitize(study, "UNKNOWN") + "/" +
                            sanitize(series, "UNKNOWN") + "/" + sanitize(instance, "UNKNOWN") + ".dcm";
    const std::string dest = g_settings.root + "/" + rel;
    const std::string destDir = dest.substr(0, dest.rfind('/'));
    const std::string destName = dest.substr(dest.rfind('/') + 1);

    // compress and verify into the staging folder (temporary file, fsync, verify, rename)
    DPRCEntry entry;
    entry.path = received;
    entry.rel = "out.dcm";
    entry.size = 0;
    entry.symlink = false;
    DPRCOptions opt;
    opt.target = g_settings.target;
    opt.outputDir = stage;
    opt.acceptLossy = g_settings.acceptLossy;
    if (const char *fault = std::getenv("PCWT_RECOMPRESS_FAULT")) opt.testFault = fault; // the verification's tests
    const unsigned slot = takeSlot();
    dprc::Work work; // (its job: what the JPEG 2000 batch decoder takes)
    DPRCJob& job = work.job;
    job.sampleKey = instance.c_str(); // draws the CPU decoder's sample of the frames
    job.deferJ2K = g_j2k && g_j2k->takes(samples);
    bool go = DPRCPrepare(job, entry, opt, slot);
    if (go && job.j2kDeferred)
    {
      dprc::J2KCounts counts;
      DPSCPJ2KWait wait;
      go = g_j2k->prepareDecoded(work, opt, slot, counts, wait);
      OFLOG_INFO(scpLogger, "JPEG 2000 frames of " << rel << ": " << counts.gpu << " decoded on the "
                 << (g_j2k->gpu() ? "GPU" : "CPU standing in for the GPU") << ", " << counts.openjpeg
                 << " by OpenJPEG" << (counts.cpuLibrary ? ", " + std::to_string(counts.cpuLibrary) + " by libpcwt on the CPU" : "")
                 << " (batch decoder: waited " << OFstatic_cast(long, wait.ms + 0.5) << " ms, a call of " << wait.dataSets
                 << " data sets, " << wait.frames << " frames)");
    }
    if (go) DPRCFinish(job, opt, slot, g_verifier.get());
    releaseSlot(slot);
    const DPRCResult& r = job.result;

    std::string error;
    switch (r.status)
    {
      case DPRCST_done:
        if (!moveInto(r.output, destDir, destName, error)) break;
        OFLOG_INFO(scpLogger, "stored " << rel << " (" << r.inXfer << " -> " << r.outXfer << ", "
                   << r.inBytes << " -> " << r.outBytes << " bytes)");
        return STATUS_STORE_Success;
      case DPRCST_unsupported:
        // (input in a lossy syntax is stored as received: it is compressed already)
        if (g_settings.rejectUnsupported && r.reason != DPRCR_lossySyntax)
        {
          OFLOG_ERROR(scpLogger, "refusing " << rel << ": " << r.message);
          keepFailed(received, sopInstance);
          return DPSCPFailureStatus(r);
        }
        OFLOG_WARN(scpLogger, "cannot compress " << rel << " (" << r.message << "): stored as received");
        if (!moveInto(received, destDir, destName, error)) break;
        return STATUS_STORE_Success;
      case DPRCST_skippedNonImage:
      case DPRCST_skippedDone:
        if (!moveInto(received, destDir, destName, error)) break;
        OFLOG_INFO(scpLogger, "stored " << rel << " as received (" << r.inXfer << ", " << r.message << ")");
        return STATUS_STORE_Success;
      default:
        OFLOG_ERROR(scpLogger, "cannot store " << rel << ": " << r.message);
        keepFailed(received, sopInstance);
        return DPSCPFailureStatus(r);
    }
    // not moved into the archive: ours
    OFLOG_ERROR(scpLogger, "cannot store " << rel << ": " << error);
    keepFailed(received, sopInstance);
    return STATUS_STORE_Refused_OutOfResources;
  }

  T_ASC_Parameters *params_;
  T_ASC_Association *assoc_;
  /// the association's HTJ2K contexts (under their carriers), with their UIDs
  DPNetCarried carried_;

  /// DIMSE's progress callback for receiving on a carried context
  static void receiveProgress(void *self, unsigned long bytes)
  {
    OFstatic_cast(DPCWTStoreSCP *, self)->notifyRECEIVEProgress(bytes);
  }
  /// the data set being received went over --max-object-size
  bool overLimit_;

  /// keep a received original that could not be filed under root/failed/
  void keepFailed(const std::string& received, const std::string& sopInstance)
  {
    std::string error;
    char name[128];
    OFStandard::snprintf(name, sizeof name, "%.64s.%ld-%lu.dcm", sopInstance.c_str(),
                         OFstatic_cast(long, getpid()), ++g_counter);
    if (moveInto(received, failedDir(), name, error))
      OFLOG_WARN(scpLogger, "received original kept as " << failedDir() << "/" << name);
    else
      OFLOG_ERROR(scpLogger, "cannot keep the received original: " << error);
  }
};

// ---------------------------------------------------------------------------------------------

/// --j2k-decoder: the GPU's batch decoders, logged; false (logged) when gpu was asked for without one
static bool setUpJ2K()
{
  g_j2k.reset(new DPSCPJ2KDecoding());
  std::string error;
  if (!g_j2k->start(g_settings.j2kDecoder, OFstatic_cast(std::uint64_t, 1) << 30, error))
  {
    OFLOG_FATAL(scpLogger, "cannot start: " << error << " (--j2k-decoder gpu; cpu, and auto without a GPU, decode with OpenJPEG)");
    return false;
  }
  g_j2k->setMinSamples(g_settings.j2kGpuMinSamples);
  if (g_j2k->enabled())
    OFLOG_INFO(scpLogger, "JPEG 2000 input: lossless Part 1 and HTJ2K frames decoded on the "
               << (g_j2k->gpu() ? "GPU" : "CPU standing in for the GPU") << ", OpenJPEG for the others"
               << " and for data sets of fewer than " << g_settings.j2kGpuMinSamples << " samples");
  else
    OFLOG_INFO(scpLogger, "JPEG 2000 input: decoded by OpenJPEG (--j2k-decoder "
               << (g_settings.j2kDecoder == DPRCJD_cpu ? "cpu" : "auto, no GPU: " + g_j2k->autoWithout()) << ")");
  return true;
}

int main(int argc, char *argv[])
{
  OFCmdUnsignedInt opt_port = 0;
  const char *opt_aetitle = "PCWT_STORESCP";
  const char *opt_root = NULL;
  OFCmdUnsignedInt opt_maxAssoc = 8;
  OFCmdUnsignedInt opt_maxPDU = ASC_DEFAULTMAXPDU;
  OFCmdUnsignedInt opt_acseTimeout = 30;
  OFCmdUnsignedInt opt_dimseTimeout = 60;
  OFCmdUnsignedInt opt_networkTimeout = 60;
  const char *opt_bind = "";
  const char *opt_maxObject = NULL;
  std::vector<std::string> sopClasses;
  DPSCPTLSOptions tlsOptions;

  OFConsoleApplication app(OFFIS_CONSOLE_APPLICATION,
    "Storage SCP that archives every received image compressed to PCWT (or JPEG-LS)", rcsid);
  OFCommandLine cmd;
  cmd.setOptionColumns(LONGCOL, SHORTCOL);
  cmd.setParamColumn(LONGCOL + SHORTCOL + 4);
  cmd.addParam("port", "tcp/ip port number to listen on (or --port)", OFCmdParam::PM_Optional);

  cmd.addGroup("general options:", LONGCOL, SHORTCOL + 2);
    cmd.addOption("--help",                     "-h",     "print this help text and exit", OFCommandLine::AF_Exclusive);
    cmd.addOption("--version",                            "print version information and exit", OFCommandLine::AF_Exclusive);
    OFLog::addOptions(cmd);

  cmd.addGroup("network options:");
    cmd.addOption("--port",                     "+P",  1, "[n]umber: integer",
                                                          "tcp/ip port number to listen on");
    cmd.addOption("--aetitle",                  "-aet", 1, "[a]etitle: string",
                                                          "set my AE title (default: PCWT_STORESCP)");
    cmd.addOption("--bind",                     "+B",  1, "[a]ddress: IPv4 address (default: all)",
                                                          "accept connections on this address only");
    cmd.addOption("--max-associations",         "+ma", 1, "[n]umber: integer (default: 8)",
                                                          "associations served at once (one thread each;\nmore are refused while all are busy)");
    cmd.addOption("--max-object-size",          "+mo", 1, "[n]umber: bytes, or with K, M, G (binary)",
                                                          "abort an association whose data set grows\nbeyond n bytes (default: 2G, or 1/32 of\nthe memory when less)");
    cmd.addOption("--calling-aet",              "+ca", 1, "[a]etitle: string",
                                                          "accept associations from this calling AE\ntitle only (repeatable; default: any)");
    cmd.addOption("--max-pdu",                  "-pdu", 1, "[n]umber of bytes: integer (4096..131072)",
                                                          "set max receive pdu to n bytes");
    cmd.addOption("--acse-timeout",             "-ta", 1, "[s]econds: integer (default: 30)",
                                                          "timeout for the association request (and\nTLS handshake) after a connect");
    cmd.addOption("--dimse-timeout",            "-td", 1, "[s]econds: integer (default: 60)",
                                                          "timeout for DIMSE messages (an idle or\nstalled association is aborted after it)");
    cmd.addOption("--network-timeout",          "-tn", 1, "[s]econds: integer (default: 60)",
                                                          "timeout of every socket read and write");
    cmd.addOption("--sop-class",                "+sc", 1, "[u]id: string",
                                                          "accept this storage SOP class (repeatable;\ndefault: all storage SOP classes)");

  cmd.addGroup("archive options:");
    cmd.addOption("--output-directory",         "-od", 1, "[d]irectory: string",
                                                          "archive root (required)");
    cmd.addOption("--target",                   "+t",  1, "[s]yntax: pcwt | jpegls (default: pcwt)",
                                                          "transfer syntax of archived images");
    DPCWTAddProfileOption(cmd);
    cmd.addOption("--reject-unsupported",       "+ru",    "answer a failure for images that cannot be\ncompressed (default: store them as received)");
    cmd.addOption("--accept-lossy",             "+al",    "also compress images received in a lossy\nsyntax (default: store them as received)");
    cmd.addOption("--verify-gpu",                         "PCWT: verify every frame with the coding\nbackend, a sample with the CPU decoder\n(default when the GPU codes; on the CPU, a\nCPU decoder stands in)");
    cmd.addOption("--verify-cpu",                         "verify every frame with the CPU decoder\n(default when the CPU codes)");
    cmd.addOption("--verify-sample",                   1, "[n]umber: integer (default: 64)",
                                                          "with --verify-gpu: the CPU decoder checks one\nframe in n too (0: none, 1: all)");
    cmd.addOption("--j2k-decoder",              "+jd", 1, "[d]ecoder: auto, gpu or cpu (default: auto)",
                                                          "JPEG 2000 input: gpu decodes the frames of the\ndata sets of all associations waiting in one\nlibpcwt call on the GPU (OpenJPEG what it does\nnot take: HTJ2K, lossy, a failed call, small\nframes); cpu: OpenJPEG; auto: gpu where there\nis a GPU, else cpu. gpu without a GPU: the\nserver does not start");
    cmd.addOption("--j2k-gpu-min-samples",           1, "[n]umber: integer (default: 0)",
                                                          "GPU JPEG 2000 decoding: data sets of fewer\nsamples (rows x columns x samples per pixel x\nframes) are decoded by OpenJPEG on the\nassociation's thread (0: all on the GPU)");
  DPSCPAddTLSOptions(cmd);

  prepareCmdLineArgs(argc, argv, OFFIS_CONSOLE_APPLICATION);
  if (app.parseCommandLine(cmd, argc, argv))
  {
    if (DPCWTPrintVersion(app, cmd, DPCWTEncoderRegistration::getLibraryVersionString()))
      return EXITCODE_NO_ERROR;
    if (cmd.getParamCount() > 0) app.checkParam(cmd.getParamAndCheckMinMax(1, opt_port, 1, 65535));
    OFLog::configureFromCommandLine(cmd, app);
    if (cmd.findOption("--port")) app.checkValue(cmd.getValueAndCheckMinMax(opt_port, 1, 65535));
    if (cmd.findOption("--aetitle")) app.checkValue(cmd.getValue(opt_aetitle));
    if (cmd.findOption("--max-associations")) app.checkValue(cmd.getValueAndCheckMinMax(opt_maxAssoc, 1, 256));
    if (cmd.findOption("--max-pdu")) app.checkValue(cmd.getValueAndCheckMinMax(opt_maxPDU, ASC_MINIMUMPDUSIZE, ASC_MAXIMUMPDUSIZE));
    if (cmd.findOption("--acse-timeout")) app.checkValue(cmd.getValueAndCheckMin(opt_acseTimeout, 1));
    if (cmd.findOption("--dimse-timeout")) app.checkValue(cmd.getValueAndCheckMin(opt_dimseTimeout, 1));
    if (cmd.findOption("--network-timeout")) app.checkValue(cmd.getValueAndCheckMin(opt_networkTimeout, 1));
    if (cmd.findOption("--bind")) app.checkValue(cmd.getValue(opt_bind));
    if (cmd.findOption("--max-object-size"))
    {
      app.checkValue(cmd.getValue(opt_maxObject));
      if (!DPSCPParseSize(opt_maxObject, g_settings.maxObjectBytes))
        app.printError("--max-object-size: a number of bytes from 1, optionally followed by K, M or G");
    }
    if (cmd.findOption("--calling-aet", 0, OFCommandLine::FOM_FirstFromLeft))
    {
      do
      {
        const char *ae = NULL;
        app.checkValue(cmd.getValue(ae));
        if (ae == NULL || !*ae || strlen(ae) > 16) app.printError("--calling-aet: an AE title of 1 to 16 characters");
        g_settings.callingAETitles.push_back(ae);
      } while (cmd.findOption("--calling-aet", 0, OFCommandLine::FOM_NextFromLeft));
    }
    DPSCPEvaluateTLSOptions(app, cmd, tlsOptions);
    if (g_settings.maxObjectBytes == 0) g_settings.maxObjectBytes = DPSCPDefaultMaxObjectBytes();
    if (cmd.findOption("--sop-class", 0, OFCommandLine::FOM_FirstFromLeft))
    {
      do
      {
        const char *uid = NULL;
        app.checkValue(cmd.getValue(uid));
        if (uid && *uid) sopClasses.push_back(uid);
      } while (cmd.findOption("--sop-class", 0, OFCommandLine::FOM_NextFromLeft));
    }
    if (cmd.findOption("--output-directory")) app.checkValue(cmd.getValue(opt_root));
    if (cmd.findOption("--target"))
    {
      const char *t = NULL;
      app.checkValue(cmd.getValue(t));
      if (strcmp(t, "pcwt") == 0) g_settings.target = DPRCT_pcwt;
      else if (strcmp(t, "jpegls") == 0) g_settings.target = DPRCT_jpegls;
      else app.printError("--target must be pcwt or jpegls");
    }
    DPCWTEvaluateProfileOption(app, cmd, g_settings.profile, "--target jpegls", g_settings.target == DPRCT_jpegls);
    if (cmd.findOption("--reject-unsupported")) g_settings.rejectUnsupported = true;
    if (cmd.findOption("--accept-lossy")) g_settings.acceptLossy = true;
    cmd.beginOptionBlock();
    if (cmd.findOption("--verify-gpu")) g_settings.verify = DPRCVM_backend;
    if (cmd.findOption("--verify-cpu")) g_settings.verify = DPRCVM_writers;
    cmd.endOptionBlock();
    if (cmd.findOption("--verify-sample"))
    {
      app.checkConflict("--verify-sample", "--verify-cpu", g_settings.verify == DPRCVM_writers);
      app.checkValue(cmd.getValueAndCheckMinMax(g_settings.verifySample, 0, 1000000));
    }
    if (cmd.findOption("--j2k-decoder"))
    {
      const char *d = NULL;
      app.checkValue(cmd.getValue(d));
      if (!DPRCJ2KDecoderFromName(d, g_settings.j2kDecoder))
        app.printError(("--j2k-decoder needs auto, gpu or cpu, not \"" + std::string(d ? d : "") + "\"").c_str());
    }
    if (cmd.findOption("--j2k-gpu-min-samples")) app.checkValue(cmd.getValue(g_settings.j2kGpuMinSamples));
    if (opt_port == 0) app.printError("missing port (parameter or --port)");
    if (opt_root == NULL || !*opt_root) app.printError("missing archive root (--output-directory)");
  }
  OFLOG_DEBUG(scpLogger, rcsid << OFendl);

  // the archive root must exist and be a folder; the staging folder is created in it
  {
    std::error_code ec;
    g_settings.root = fs::absolute(opt_root, ec).lexically_normal().string();
    if (g_settings.root.size() > 1 && g_settings.root.back() == '/') g_settings.root.pop_back();
    if (!fs::is_directory(g_settings.root, ec))
    {
      OFLOG_FATAL(scpLogger, "archive root is not a folder: " << g_settings.root);
      return EXITCODE_ERROR;
    }
    fs::create_directories(incomingDir(), ec);
    if (ec) OFLOG_WARN(scpLogger, "cannot create " << incomingDir() << ": " << ec.message());
    // leftovers of a killed run: instances that were never acknowledged (the sender still has
    // them); their received originals are kept under failed/
    for (fs::directory_iterator it(incomingDir(), ec), end; !ec && it != end; it.increment(ec))
    {
      const std::string left = it->path().string() + "/received.dcm";
      std::string error;
      if (fs::exists(left, ec))
      {
        if (moveInto(left, failedDir(), it->path().filename().string() + ".unacknowledged.dcm", error))
          OFLOG_WARN(scpLogger, "unacknowledged instance of an earlier run kept under " << failedDir());
      }
      std::error_code ec2;
      fs::remove_all(it->path(), ec2);
    }
  }

  g_settings.slots = OFstatic_cast(unsigned, opt_maxAssoc);
  g_slotBusy.assign(g_settings.slots, false);
  DPRCInstallSignalHandlers(g_settings.slots);

  DPCWTRegisterDecoders(OFstatic_cast(unsigned long, 1) << 30, OFFalse);
  DPCWTEncoderRegistration::registerCodecs(EPCUC_default, OFFalse, g_settings.acceptLossy ? OFTrue : OFFalse,
    PCWT_DEFAULT_LEVELS, 0, 0 /* the profile's group size */, PCWT_BACKEND_AUTO, OFTrue /* JPEG-LS */,
    g_settings.profile);
  if (!DPSCPSetUpVerifier(g_settings.target, g_settings.verify, static_cast<unsigned>(g_settings.verifySample),
                          OFstatic_cast(std::uint64_t, 1) << 30, g_verifier))
    return EXITCODE_ERROR;
  if (!setUpJ2K()) return EXITCODE_ERROR;

  DcmSCPConfig cfg;
  cfg.setAETitle(opt_aetitle);
  cfg.setPort(OFstatic_cast(Uint16, opt_port));
  cfg.setMaxReceivePDULength(OFstatic_cast(Uint32, opt_maxPDU));
  cfg.setACSETimeout(OFstatic_cast(Uint32, opt_acseTimeout));
  // a peer that stops sending (SIGSTOP, a cable pulled) holds its thread this long at most
  cfg.setDIMSEBlockingMode(DIMSE_NONBLOCKING);
  cfg.setDIMSETimeout(OFstatic_cast(Uint32, opt_dimseTimeout));
  cfg.setHostLookupEnabled(OFFalse);
  cfg.setProgressNotificationMode(OFTrue); // --max-object-size is checked there
  dcmSocketReceiveTimeout.set(OFstatic_cast(Sint32, opt_networkTimeout));
  dcmSocketSendTimeout.set(OFstatic_cast(Sint32, opt_networkTimeout));
  // (a peer that goes away while we write gets EPIPE, not the end of the server)
  signal(SIGPIPE, SIG_IGN);

  if (sopClasses.empty())
    for (int i = 0; i < numberOfDcmAllStorageSOPClassUIDs; ++i) sopClasses.push_back(dcmAllStorageSOPClassUIDs[i]);
  // (DcmSCPConfig's profiles hold at most 128 presentation contexts, fewer than the storage SOP
  // classes: the workers negotiate with dcmnet's ASC functions, see DPCWTStoreSCP)
  g_sopClassStore = sopClasses;
  for (const std::string& sc : g_sopClassStore) g_sopClassUIDs.push_back(sc.c_str());
  OFList<OFString> echoXfers;
  for (int i = 0; i < 3; ++i) echoXfers.push_back(g_echoXfers[i]);
  cfg.addPresentationContext(UID_VerificationSOPClass, echoXfers);
  const DcmSharedSCPConfig shared(cfg);

  std::unique_ptr<DcmTransportLayer> tls;
  if (tlsOptions.enabled)
  {
    std::string error;
    tls = DPSCPCreateTLSLayer(tlsOptions, error);
    if (!tls)
    {
      OFLOG_FATAL(scpLogger, "TLS: " << error);
      return EXITCODE_ERROR;
    }
  }
  DPSCPNetConfig net;
  net.bindAddress = opt_bind;
  net.port = OFstatic_cast(unsigned, opt_port);
  net.workers = OFstatic_cast(unsigned, opt_maxAssoc);
  net.acseTimeout = OFstatic_cast(unsigned, opt_acseTimeout);
  net.maxPDU = OFstatic_cast(unsigned, opt_maxPDU);
  net.tls = tls.get();

  OFLOG_INFO(scpLogger, "listening on " << (*opt_bind ? opt_bind : "*") << ":" << opt_port << (tls ? " (TLS)" : "")
             << " as " << opt_aetitle << ", archive " << g_settings.root << ", target "
             << (g_settings.target == DPRCT_jpegls ? "JPEG-LS" : "PCWT")
             << (g_settings.target == DPRCT_jpegls ? "" : OFString(" (") + DPCWTProfileName(g_settings.profile) + " profile)"));
  OFLOG_INFO(scpLogger, "limits: " << opt_maxAssoc << " associations, " << g_settings.maxObjectBytes
             << " bytes per data set, timeouts ACSE " << opt_acseTimeout << " s, DIMSE " << opt_dimseTimeout
             << " s, network " << opt_networkTimeout << " s; calling AE titles: "
             << (g_settings.callingAETitles.empty() ? std::string("any") : DPSCPJoin(g_settings.callingAETitles)));
  std::string error;
  const bool ok = DPSCPListen(net, [&shared](T_ASC_Association *assoc) {
    DPCWTStoreSCP scp;
    scp.setSharedConfig(shared);
    scp.serve(assoc);
  }, error);
  if (!ok) OFLOG_FATAL(scpLogger, error);

  g_j2k.reset();
  DPCWTEncoderRegistration::cleanup();
  DPCWTCleanupDecoders();
  return ok ? EXITCODE_NO_ERROR : EXITCODE_ERROR;
}
