/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: recompressing one file safely. The new copy is written to
 *           a temporary file in the destination folder, flushed to disk, decoded and compared
 *           sample by sample with the original, and only then renamed over the destination (and
 *           the folder flushed): at every moment the destination is either the untouched original
 *           or the complete verified copy.
 */

#ifndef PCWT_ARCHIVE_ENGINE_H
#define PCWT_ARCHIVE_ENGINE_H

#include "dcmtk/config/osconfig.h"

#include "dcmpcwt/dpfilefo.h"
#include "walk.h"
#include "pcwt.h"
#include "pcwt_dicom.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

/// the transfer syntax pcwt-recompress writes
enum DPRC_Target
{
  /// the PCWT private transfer syntax (default)
  DPRCT_pcwt,
  /// JPEG-LS Lossless (standard)
  DPRCT_jpegls,
  /// Explicit VR Little Endian (--decompress)
  DPRCT_uncompressed
};

/// what happened to one file
enum DPRC_Status
{
  /// recompressed, verified and in place (or in the output tree)
  DPRCST_done,
  /// --dry-run: would be recompressed
  DPRCST_wouldDo,
  /// already in the target transfer syntax (or the output exists): nothing to do
  DPRCST_skippedDone,
  /// not a DICOM Part 10 file
  DPRCST_skippedNotDicom,
  /// a DICOM file without image pixel data (DICOMDIR, structured report, ...)
  DPRCST_skippedNonImage,
  /// a symbolic link (not followed)
  DPRCST_skippedSymlink,
  /// --keep-smaller: the verified copy was not smaller than the original, which was kept
  DPRCST_keptOriginal,
  /// an image that cannot be coded (losslessly) to the target: left as it is
  DPRCST_unsupported,
  /// the file changed while it was read or before its copy replaced it: left as it is now
  DPRCST_skippedChanged,
  /// an error: unreadable, truncated, corrupt, read-only, cannot write, verification failed
  DPRCST_failed
};

/// the name of a status in reports ("recompressed", "skipped-done", ...)
const char *DPRCStatusName(DPRC_Status status);

/** why a file failed (or is unsupported, or changed), decided where it happened from condition
 *  codes, errno and the step, never from a message: pcwt-storescp answers a sender by it
 *  (ingest.cc), and a message may be reworded at any time
 */
enum DPRC_Reason
{
  /// no failure (or none that a status does not say all about)
  DPRCR_none,
  /// the file system: a file that cannot be opened, read, created, written, flushed, renamed,
  /// copied (errno: ENOSPC, EIO, EACCES, EROFS, ...), read-only files and folders, a name in the way
  DPRCR_io,
  /// memory exhausted (EC_MemoryExhausted, libpcwt's out of memory), or a data set beyond the
  /// decoder's memory budget or frame size limit (EPCEC_TooLarge while decoding the input)
  DPRCR_memory,
  /// not readable as DICOM data (truncated, corrupt), or compressed pixel data that does not decode
  DPRCR_corruptInput,
  /// the image pixel module or the Pixel Data contradicts itself (EPCEC_InvalidImage,
  /// DPCWTIsPixelDataLengthError, the checks of DPCWTFindPixels/DPCWTGetPixels)
  DPRCR_pixelData,
  /// the encoder failed on an image that passed the checks (EPCEC_CodecError, EPCEC_TooLarge, ...)
  DPRCR_encodeFailed,
  /// the copy read back did not decode to exactly the original samples
  DPRCR_verifyFailed,
  /// a step called out of order (a bug)
  DPRCR_internal,
  /// DPRCST_unsupported: cannot be coded losslessly to the target (EPCEC_UnsupportedImage,
  /// EPCEC_LossyInput, hard links, transfer syntaxes DCMTK cannot decode, ...)
  DPRCR_unsupported,
  /// DPRCST_unsupported: the input is in a lossy transfer syntax (not decoded without --accept-lossy)
  DPRCR_lossySyntax,
  /// DPRCST_skippedChanged: written to or replaced while it was worked on
  DPRCR_changed
};

/// the name of a reason ("io", "pixel-data", ...), for logs and tests
const char *DPRCReasonName(DPRC_Reason reason);

/// what DPRCProcess() is to do
struct DPRCOptions
{
  DPRC_Target target = DPRCT_pcwt;
  /// mirrored output tree; empty: in place
  std::string outputDir;
  /// in place: keep the original beside the new file as NAME.pcwt-orig
  bool keepOriginals = false;
  /// look and report, write nothing
  bool dryRun = false;
  /// code images that were lossy compressed before
  bool acceptLossy = false;
  /// mirrored output: copy files that are not recompressed (skipped, unsupported) unchanged
  bool copyOthers = false;
  /// keep the original when the verified copy is not smaller (with --output: copy it there)
  bool keepSmaller = false;
  /** for the tests of the verification (environment PCWT_RECOMPRESS_FAULT): after each copy is
   *  written and read back, flip a bit of the first frame's codestream as read ("codestream") or
   *  of the original samples it is compared with ("original"), so that it must fail
   */
  std::string testFault;
};

/// who a file is: compared between reading a file and replacing it (ident.cc)
struct DPRCFileId
{
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtimeNs = 0, ctimeNs = 0;
  bool valid = false;
};

/// the outcome for one file (one line of the report)
struct DPRCResult
{
  std::string path;
  std::string output;
  DPRC_Status status = DPRCST_failed;
  std::uint64_t inBytes = 0;
  std::uint64_t outBytes = 0;
  /// bytes of uncompressed pixel data (0 when not looked at)
  std::uint64_t pixelBytes = 0;
  std::string inXfer;
  std::string outXfer;
  /// for people: the report, the log
  std::string message;
  /// for programs: why it failed (DPRCR_none unless failed, unsupported or changed)
  DPRC_Reason reason = DPRCR_none;
  double seconds = 0.0;
};

/** memory for the original samples of files (pcwt-recompress's pipeline: a pool of page-locked
 *  buffers, which the GPU reads directly and which are reused instead of faulted in anew)
 */
class DPRCSampleMemory
{
public:
  virtual ~DPRCSampleMemory() {}
  /// a buffer of at least n bytes, given back when the last copy of the pointer goes (empty: none)
  virtual std::shared_ptr<unsigned char> get(std::size_t n) = 0;
};

/// a file's original samples: in a buffer of a DPRCSampleMemory, or on the heap
class DPRCSamples
{
public:
  unsigned char *data() { return block_ ? block_.get() : heap_.data(); }
  const unsigned char *data() const { return block_ ? block_.get() : heap_.data(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  unsigned char& operator[](std::size_t i) { return data()[i]; }

  /// room for n bytes from memory (NULL, or none to be had there: the heap)
  void allocate(std::size_t n, DPRCSampleMemory *memory)
  {
    reset();
    if (memory) block_ = memory->get(n ? n : 1);
    if (!block_) heap_.resize(n);
    size_ = n;
  }

  /// take these bytes as they are (on the heap)
  void adopt(std::vector<unsigned char>&& bytes)
  {
    reset();
    heap_.swap(bytes);
    size_ = heap_.size();
  }

  /// the memory goes back
  void reset()
  {
    block_.reset();
    std::vector<unsigned char>().swap(heap_);
    size_ = 0;
  }

private:
  std::shared_ptr<unsigned char> block_;
  std::vector<unsigned char> heap_;
  std::size_t size_ = 0;
};

/// the temporary file of a verified copy (temp.cc); removed when dropped before its commit
class DPRCTempFile;
/// a copy whose frames a DPRCFrameVerifier is decoding (write.cc; DPRCAwaitVerified)
struct DPRCPendingCopy;

/** one file on its way through the steps of DPRCPrepare() and DPRCFinish(), which a pipeline
 *  may run on different threads, with the frames coded in between by a batch coder
 */
struct DPRCJob
{
  DPRCEntry entry;
  /// the identity that draws the CPU decoder's sample of the frames (sample.h; empty: entry.rel)
  std::string sampleKey;
  DPRCResult result;
  std::chrono::steady_clock::time_point start;
  /// the file, read, its pixel data decoded (uncompressed)
  std::unique_ptr<DPCWTFileFormat> file;
  /// mode, owner and group of the original
  unsigned mode = 0, uid = 0, gid = 0;
  /// the original as it was read (fstat of the descriptor read), checked again before the rename
  DPRCFileId identity;
  /// the image pixel module and the original samples (DPCWTGetPixels; raw pixel data for --decompress)
  pcwt_dicom_pixel_module module;
  DPRCSamples original;
  /** the data set's pixel data that `original` was copied from (NULL: converted, not copied): the
   *  codec finds the samples of a frame coded ahead there again
   */
  const unsigned char *pixels = NULL;
  /** PCWT codestreams of the frames of `original`, coded ahead by a batch coder as codedWith
   *  codes (empty: the codec codes them when the file is written). Each is followed by a zero byte when
   *  its length is odd (the fragment's pad byte), so that the codec stores it as it is. Used only
   *  for frames whose samples and description match (the ThreadCoder of pipeline.cc).
   */
  struct CodedFrame
  {
    const unsigned char *data;
    std::size_t size;
  };
  std::vector<CodedFrame> coded;
  /** an encoder with the coding options of the batch coder's (pcwt_encoder_same_coding()
   *  compares it with the codec's; shared by the files of all batches, read only)
   */
  std::shared_ptr<const pcwt_encoder> codedWith;
  /// the memory `coded` points into: the batch coder's output arena, shared by the files of a batch
  std::shared_ptr<const void> codedArena;
  /// the verified copy waiting for DPRCCommit (DPRCWriteVerified), and its folder
  std::shared_ptr<DPRCTempFile> temp;
  std::string destDir;
  /** a copy written and handed to a DPRCFrameVerifier, its verdict not yet taken
   *  (DPRCAwaitVerified); `original` stays until then
   */
  std::shared_ptr<DPRCPendingCopy> pending;
  /** set by the caller: DPRCPrepare() stops before decoding JPEG 2000 (or HTJ2K) pixel data and
   *  sets j2kDeferred, so that the frames of many files can be decoded together (on a GPU) and
   *  handed to the decoder codec through the thread's coder in DPRCPrepareDecoded()
   */
  bool deferJ2K = false;
  bool j2kDeferred = false;
};

/** the first steps for one file: look at it, read it, decode its pixel data, check it and get
 *  its samples (a dry run stops here); memory: where the samples go (NULL: the heap)
 *  @return true when the file is to be coded and written (DPRCFinish); false when job.result is
 *    final (skipped, unsupported, failed, would-recompress), the job's file released
 */
bool DPRCPrepare(DPRCJob& job, const DPRCEntry& entry, const DPRCOptions& options, unsigned slot,
                 DPRCSampleMemory *memory = NULL);

/** the rest of DPRCPrepare() for a job it left with j2kDeferred (the data set read and checked,
 *  its JPEG 2000 pixel data not decoded): decode it, check it, get the samples; the same return
 */
bool DPRCPrepareDecoded(DPRCJob& job, const DPRCOptions& options, unsigned slot, DPRCSampleMemory *memory = NULL);

/// decodes copies and compares them with the originals (below; NULL: the PCWT decoder codec)
class DPRCFrameVerifier;

/** the last steps for a prepared job: DPRCWriteVerified() and, for a verified copy, DPRCCommit()
 *  of this job alone; job.result is then final and the job's data released
 *  @param slot the worker's slot for the temporary file registry
 *  @param verifier as for DPRCWriteVerified()
 */
void DPRCFinish(DPRCJob& job, const DPRCOptions& options, unsigned slot, DPRCFrameVerifier *verifier = NULL);

/// one frame's codestream in a copy read back from disk
struct DPRCCodestream
{
  const unsigned char *data;
  std::size_t size;
};

/// a copy handed to a DPRCFrameVerifier; dropping it waits for the verifier to be done with it
class DPRCVerifyTicket
{
public:
  virtual ~DPRCVerifyTicket() {}

  /// the verdict is in (wait() returns at once)
  virtual bool ready() = 0;

  /** wait for the verdict
   *  @param reason set with a failure: DPRCR_memory when the decoder ran out of memory, else
   *    DPRCR_verifyFailed
   *  @return empty when every frame decoded to exactly the original's samples, else why not
   *    ("cannot decode the new copy: frame N: ...", "decoded pixel data differs ... at byte N")
   */
  virtual std::string wait(DPRC_Reason& reason) = 0;
};

/** decodes the frames of the copies the writers read back, many files together, and compares
 *  them with the originals (the verifier stage of pipeline.cc): a writer hands over the
 *  codestreams of its copy and goes on with its next file; it takes the verdict later
 *  (DPRCAwaitVerified)
 */
class DPRCFrameVerifier
{
public:
  virtual ~DPRCFrameVerifier() {}

  /** decode each codestream into frameBytes bytes and compare them with original, on the
   *  verifier's own time (and a sample of the frames with the CPU decoder besides, sample.h)
   *  @param frames the codestreams; they and original stay valid while the ticket lives
   *  @param original the original samples (frames.size() * frameBytes bytes): no frame that the
   *    decoder did not write can pass for them
   *  @param sampleKey the file's identity that draws the sample (DPRCJob::sampleKey)
   */
  virtual std::unique_ptr<DPRCVerifyTicket> submit(const std::vector<DPRCCodestream>& frames, std::size_t frameBytes,
                                                   const unsigned char *original, const std::string& sampleKey) = 0;

  /// the decoder's limit of samples per frame (as the PCWT decoder codec's)
  virtual std::uint64_t maxSamplesPerFrame() const = 0;

  /** where the writer copies the codestreams it hands over, out of the copy read back, which
   *  goes at once (NULL: the heap)
   */
  virtual DPRCSampleMemory *codestreamMemory() = 0;
};

/** the writing steps for a prepared job: code (or take the frames coded ahead, through the codecs'
 *  thread coder), write the temporary file (its write-back to disk started, not waited for), give
 *  it the original's permissions, read it back, decode it and compare every sample with the
 *  original (--keep-smaller: and compare the sizes). With a verifier the decoding goes on after
 *  the return: the job is then pending, and DPRCAwaitVerified() compares and finishes it.
 *  @param slot the worker's slot for the temporary file registry; it stays taken by job.temp
 *    until the job is committed
 *  @param verifier PCWT copies: decodes the codestreams read back (with the codec's checks of
 *    the pixel module, fragments and headers done here) instead of the PCWT decoder codec; copies
 *    it does not take (nested Pixel Data such as icons, several fragments per frame, anything
 *    the checks do not pass) are decoded by the codec as without it. NULL: always the codec.
 *  @return true when the copy waits for DPRCAwaitVerified() and DPRCCommit() (the data set
 *    released; the samples too unless the job is pending); false when job.result is final
 *    (failed, unsupported, kept)
 */
bool DPRCWriteVerified(DPRCJob& job, const DPRCOptions& options, unsigned slot, DPRCFrameVerifier *verifier = NULL);

/** the rest of DPRCWriteVerified() for a job it left pending (job.pending): wait for the
 *  verifier's verdict, then --keep-smaller's sizes; the job's samples are released. Nothing to
 *  do for a job that is not pending.
 *  @return true when the verified copy waits in job.temp for DPRCCommit(); false when job.result
 *    is final (failed, kept)
 */
bool DPRCAwaitVerified(DPRCJob& job, const DPRCOptions& options);

/// the verdict on a pending job is in: DPRCAwaitVerified() would not wait (true too for a job not pending)
bool DPRCVerifiedReady(const DPRCJob& job);

/** the codestreams of every frame of a PCWT copy read back (DPCWTFileFormat), checked as the PCWT
 *  decoder codec checks them before it decodes: the image pixel module (valid for PCWT, within
 *  maxSamples per frame), the offset table, one fragment per frame, each a PCWT codestream whose
 *  header describes exactly the frame the module declares and that fits in its fragment
 *  @return false when the copy is not of this simple kind (e.g. icons: more than one Pixel Data);
 *    the codec is then left to decode it
 */
bool DPRCReadCodestreams(DcmDataset *dataset, std::uint64_t maxSamples, pcwt_dicom_pixel_module& module,
                         std::vector<DPRCCodestream>& frames);

/** the last steps for jobs whose verified copies wait (DPRCWriteVerified() returned true): every
 *  temporary file flushed to disk (fsync), then each renamed over its destination (with
 *  --keep-originals the original first given its second name), then each folder flushed once for
 *  all the files renamed into it. A file that fails a step is left as it was (its temporary file
 *  removed) and does not hold up the others. Every job's result is final afterwards.
 */
void DPRCCommit(const std::vector<DPRCJob *>& jobs, const DPRCOptions& options);

/** install the handlers that remove the temporary files of all workers on SIGINT, SIGTERM,
 *  SIGHUP, SIGQUIT (SIGKILL cannot be caught: the next run removes what is left)
 *  @param workers number of worker slots (0 .. workers-1 for DPRCProcess)
 */
void DPRCInstallSignalHandlers(unsigned workers);

/** process one file (DPRCPrepare and DPRCFinish on this thread)
 *  @param slot the worker's slot for the temporary file registry (< workers above)
 */
DPRCResult DPRCProcess(const DPRCEntry& entry, const DPRCOptions& options, unsigned slot);

/// what DPRCUpdateDicomdir() did
struct DPRCDicomdirUpdate
{
  /// records changed (or, in a dry run, to be changed)
  std::uint64_t records = 0;
  /// an error: the DICOMDIR is left as it was
  std::string error;
};

/** set the Referenced Transfer Syntax UID in File (0004,1512) of every record of a DICOMDIR whose
 *  referenced file is now in the target transfer syntax (recompressed by this run or an earlier,
 *  interrupted one) and whose record says otherwise. The DICOMDIR is rewritten by DCMTK's
 *  DcmDicomDir (record offsets recomputed) into a temporary copy in its folder, flushed, and
 *  renamed over it; under an exclusive lock of the folder, so that shards finishing at the same
 *  time do not undo each other's updates. Nothing is written when nothing changes or in a dry run.
 *  @param slot the temporary file slot (see DPRCInstallSignalHandlers)
 */
DPRCDicomdirUpdate DPRCUpdateDicomdir(const std::string& dicomdir, DPRC_Target target, bool dryRun, unsigned slot);

/// the stages of a file's way through pcwt-recompress, timed for --stats (thread-seconds)
enum DPRC_Stage
{
  DPRCSG_check,        // reader: stat, the file meta information, permissions
  DPRCSG_load,         // reader: DCMTK reads the whole file
  DPRCSG_decodeInput,  // reader: compressed input decoded
  DPRCSG_samples,      // reader: the original samples taken and checked
  DPRCSG_readerWait,   // reader: waiting for room in the memory budget
  DPRCSG_coderWait,    // batch coder: waiting for files
  DPRCSG_code,         // batch coder: pcwt_encode_batch
  DPRCSG_writerWait,   // writer: waiting for a coded file
  DPRCSG_encode,       // writer: chooseRepresentation (frames taken from the batch, or coded)
  DPRCSG_save,         // writer: the temporary file written
  DPRCSG_flush,        // writer: the temporary file flushed to disk
  DPRCSG_verifyLoad,   // writer: the new copy read back
  DPRCSG_verifyDecode, // writer: ... decoded (with a verifier: waiting for it)
  DPRCSG_verifyCompare,// writer: ... its samples taken and compared with the original
  DPRCSG_rename,       // writer: permissions, the original kept (--keep-originals), the rename
  DPRCSG_dirFlush,     // writer: the folder flushed
  DPRCSG_verifierWait, // verifier: waiting for copies to decode
  DPRCSG_verifyBatch,  // verifier: pcwt_verify_batch of the copies of several writers
  DPRCSG_j2kWait,      // JPEG 2000 batch decoder: waiting for files (and filling a batch)
  DPRCSG_j2kDecode,    // JPEG 2000 batch decoder: the codestreams found, parsed, decoded (pcwt_decode_batch)
  DPRCSG_finishWait,   // finisher: waiting for a decoded batch's files
  DPRCSG_finishDecode, // finisher: the data set decoded with the frames decoded ahead (OpenJPEG the others)
  DPRCSG_finishSamples,// finisher: the original samples taken and checked
  DPRCSG_count
};

/// the short name of a stage ("load", "verify-decode", ...)
const char *DPRCStageName(DPRC_Stage stage);

/// add time to a stage (thread-safe); on a finisher's thread a reader's decoding is the finisher's
void DPRCStageAdd(DPRC_Stage stage, std::chrono::steady_clock::duration d);

/// this thread is a JPEG 2000 finisher (DPRCPrepareDecoded's stages are counted as its own)
void DPRCStageOnFinisher(bool on);

/// the seconds of every stage so far (index: DPRC_Stage), summed over threads
std::vector<double> DPRCStageSeconds();

/** note a moment of the run for --stats' timeline ("walk", "first batch coded", ...): the first
 *  call with a name counts, later ones are ignored (thread-safe)
 */
void DPRCTimelineMark(const char *what);

/// the moments noted so far, in order: name and seconds since the first mark
std::vector<std::pair<std::string, double> > DPRCTimeline();

/// seconds since the first mark (0 before it): a moment on DPRCTimeline()'s clock
double DPRCTimelineNow();

/// times the scope (or up to next()) into a stage
class DPRCStageTimer
{
public:
  explicit DPRCStageTimer(DPRC_Stage stage) : stage_(stage), t0_(std::chrono::steady_clock::now()) {}
  ~DPRCStageTimer() { DPRCStageAdd(stage_, std::chrono::steady_clock::now() - t0_); }
  /// end the current stage here and time the next one from here
  void next(DPRC_Stage stage)
  {
    const std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
    DPRCStageAdd(stage_, t - t0_);
    stage_ = stage;
    t0_ = t;
  }
private:
  DPRC_Stage stage_;
  std::chrono::steady_clock::time_point t0_;
};

/// the output path of an entry under options (the entry's path when in place)
std::string DPRCOutputPath(const DPRCEntry& entry, const DPRCOptions& options);

#endif
