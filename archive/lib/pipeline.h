/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-recompress: the pipeline that keeps a GPU busy. Reader threads read,
 *           decode and check files (DPRCPrepare); batch coders (codersPerDevice on each device)
 *           give the PCWT frames of several files to one pcwt_encode_batch call; writer threads
 *           write and verify each file (DPRCWriteVerified), then flush and rename several together
 *           (DPRCCommit) while the next batch is coded:
 *
 *             readers -> batch coders (on each GPU) -> writers  (<-> verifier per GPU)
 *
 *           JPEG 2000 input decoded on the GPU (--j2k-decoder, j2kdecode.h) takes a detour:
 *           readers -> JPEG 2000 batch decoder (on each GPU) -> finishers -> batch coders.
 *
 *           The codecs do the DICOM side as for a single file: a writer lends its thread a
 *           DPCWTThreadCoder (dcmpcwt/dpthrcod.h) that hands the codec the codestreams coded
 *           ahead, for frames whose samples, description and coding are the ones coded, and
 *           codes any other frame itself. With the verifier stage (by default when the GPU
 *           codes) the writers hand the codestreams of their copies, read back from disk, to a
 *           verifier that decodes those of many files together with the coding backend and
 *           compares them with the originals (pcwt_verify_batch) while the writers go on, each
 *           writer checking a sample of the frames with the CPU decoder meanwhile (sample.h), and
 *           take the verdicts before the commit (DPRCAwaitVerified). Every safety step of
 *           DPRCFinish stays as it is.
 */

#ifndef PCWT_ARCHIVE_PIPELINE_H
#define PCWT_ARCHIVE_PIPELINE_H

#include "dcmtk/config/osconfig.h"

#include "engine.h"
#include "sample.h"
#include "pcwt.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

/// verifier threads per GPU by default (DPRCPipelineOptions::verifiersPerDevice)
const unsigned kDPRCGpuVerifiersPerDevice = 2;
/// a GPU verifier's batch: about this many bytes of samples (and one file more)
const std::uint64_t kDPRCGpuVerifyBatchBytes = std::uint64_t(128) << 20;
/// batch coder threads per GPU by default (DPRCPipelineOptions::codersPerDevice)
const unsigned kDPRCGpuCodersPerDevice = 2;

/// who verifies the PCWT copies
enum DPRC_VerifyMode
{
  /// the verifier stage when the coding backend is a GPU; else each writer (DPRCVM_writers)
  DPRCVM_auto,
  /// the verifier stage with the coding backend's decoders (on the CPU: CPU decoders), every
  /// frame, and each writer's CPU decoder a sample of the frames (verifySample)
  DPRCVM_backend,
  /// each writer decodes its copies itself with the PCWT decoder codec (the CPU), every frame
  DPRCVM_writers
};

/// who decodes JPEG 2000 input (--j2k-decoder)
enum DPRC_J2KDecoder
{
  /// the GPU when the batch coders code on one, else OpenJPEG on the readers' threads
  DPRCJD_auto,
  /// the GPU (the run does not start without one)
  DPRCJD_gpu,
  /// OpenJPEG on the readers' threads
  DPRCJD_cpu
};

/// the handles and buffers of a run that ended, kept for the caller (DPRCPipelineOptions::keepHandles)
class DPRCPipelineHandles;

/// the parts of handles (each handle, each buffer pool), freed together when the last pointer goes
std::size_t DPRCPipelineHandleParts(const DPRCPipelineHandles& handles);

/// how the pipeline runs
struct DPRCPipelineOptions
{
  /** JPEG 2000 input: on a GPU the frames of many files are decoded in one pcwt_decode_batch
   *  call (j2kdecode.h), at most j2kBatchFrames frames and about j2kBatchBytes bytes of samples
   */
  DPRC_J2KDecoder j2kDecoder = DPRCJD_auto;
  std::size_t j2kBatchFrames = 2048;
  std::uint64_t j2kBatchBytes = std::uint64_t(256) << 20;
  /// the first four JPEG 2000 batches 1/16, 1/8, 1/4, 1/2 of the limit (for measuring; full ones by default)
  bool j2kRamp = false;
  /// JPEG 2000 batch decoders per device, each with its own decoder: one parses a batch's
  /// packets on the CPU while another's is on the device
  unsigned j2kDecodersPerDevice = 2;
  /// threads reading, decoding and checking files
  unsigned readers = 1;
  /// threads writing, verifying and renaming files
  unsigned writers = 1;
  /** a batch: at most this many frames ... (0: no batch coder; the codec codes each file in the
   *  writer threads, one pcwt_encode_batch call per file)
   */
  std::size_t batchFrames = 1024;
  /** ... and about this many bytes of uncompressed samples (a single larger file is one batch).
   *  Small batches reach the writers and the verifier sooner and leave less to drain at the end
   *  (bench/results/gpu-h200-2026-11-25-recompress-batches.md)
   */
  std::uint64_t batchBytes = std::uint64_t(32) << 20;
  /// how long a batch that is not full waits for the next file (milliseconds)
  unsigned batchWaitMs = 20;
  /// the libpcwt backend of the batch coders
  pcwt_backend backend = PCWT_BACKEND_AUTO;
  /** the backend of the decoders of readers and writers (the writers' verification, and copies
   *  the verifier stage does not take): the CPU, an implementation independent of the GPU
   *  encoder's
   */
  pcwt_backend decodeBackend = PCWT_BACKEND_CPU;
  /// CUDA devices: batch coders on each (empty: on the default device)
  std::vector<int> devices;
  /** batch coder threads per device, each with its own encoder, taking batches from the same
   *  queue, so that one's host-side work (staging copies, layout, waits) overlaps another's GPU
   *  work (0: kDPRCGpuCodersPerDevice on a GPU, one with the CPU codec)
   */
  unsigned codersPerDevice = 0;
  /** the coding of the PCWT encoder codec as registered: an encoder configured as the codec's
   *  (DPCWTCodecParameter::configureEncoder(); its backend unused: the batch coders take
   *  `backend`). The batch coders and the writers' coders code as it does
   *  (pcwt_encoder_copy_coding()); shared, read only. Required, by the time beforeStart returns
   *  (which may set it: a handle made before a GPU check's cuInit is done waits for it)
   */
  std::shared_ptr<const pcwt_encoder> coding;
  /// CPU backend: threads that code one batch together
  unsigned cpuCoderThreads = 1;
  /** who verifies PCWT copies. The verifier stage is a thread per device, decoding with
   *  `backend`: the writers hand over the codestreams they read back and go on with their next
   *  files, and the verifier decodes the copies waiting and compares them with the originals in
   *  one pcwt_verify_batch call (on the CPU: split over cpuCoderThreads decoders); the writers
   *  take the verdicts before the commit. Without it each writer decodes its copies itself
   *  (through the PCWT decoder codec, the CPU) and compares them
   */
  DPRC_VerifyMode verify = DPRCVM_auto;
  /** verifier threads per device, each with its own decoder, taking copies from the same queue,
   *  so that their calls overlap on the device (0: kDPRCGpuVerifiersPerDevice on a GPU, one on
   *  the CPU)
   */
  unsigned verifiersPerDevice = 0;
  /** with the verifier stage: each writer also decodes one frame in verifySample with the CPU
   *  decoder (sample.h; 0: none, 1: every frame)
   */
  unsigned verifySample = kDPRCDefaultVerifySample;
  /** how long a verifier batch waits for each further copy (ms); 0: it takes the copies already
   *  waiting (a wait per copy made the writers wait for the verifier: bench/results,
   *  gpu-*-recompress-*.md)
   */
  unsigned verifyWaitMs = 0;
  /** a verifier batch below this many frames waits up to verifyFillMs (in all) for more copies,
   *  and the verifiers fill their batches one at a time (0: each takes the copies waiting): a GPU
   *  call costs about the decoder's latency whatever its size, so fewer, larger calls ran faster
   *  (bench/results/gpu-h200x2-2026-11-28-start-checkpoint.md)
   */
  unsigned verifyMinFrames = 64;
  unsigned verifyFillMs = 20;
  /** with GPU coders: each coder and verifier handle codes or verifies a small frame before the
   *  first batch (their device state made while the readers read). Off by default: the first
   *  batches grow the buffers instead, and the run ended no later without it
   *  (bench/results/gpu-h200-2026-11-29-session12-recompress.md)
   */
  bool warm = false;
  /// with JPEG 2000 input decoded on the GPU: each batch decoder decodes a small codestream first,
  /// the page-locked buffer of its first batch made beside it
  bool j2kWarm = true;
  /// the memory budget the readers wait for (0: from the batches in flight, budgetFor())
  std::uint64_t budgetBytes = 0;
  /// the verifier's limit of samples per frame (the PCWT decoder codec's, as registered)
  std::uint64_t maxSamplesPerFrame = std::uint64_t(1) << 30;
  /** the caller's checks (e.g. that the GPUs named are there, their CUDA contexts made), run on
   *  the starting thread while the readers read, before the devices' handles are made: a
   *  non-empty answer (the error) stops the run before any file is reported or written
   */
  std::function<std::string()> beforeStart;
  /** each device's bring-up, on a thread of its own once the handles are made, before the
   *  device's handles warm (e.g. the caller waits there for the device's CUDA context, made
   *  beside the walk): the first device up codes while the others come up (NULL: nothing to wait for)
   */
  std::function<void(int device)> deviceUp;
  /** a writer commits (flushes, renames, flushes the folders of) up to this many verified copies
   *  together, and whatever it holds when no coded file is waiting (1: each file on its own).
   *  With the verifier stage it holds up to this many copies waiting for their verdicts: with 16
   *  the writers waited for verdicts most of a run, with 64 seldom
   *  (bench/results/gpu-h200-2026-11-28-session8-host.md)
   */
  unsigned commitGroup = 64;
  /** where the run's handles and buffers go when it ends (NULL: freed before DPRCRunPipeline
   *  returns), so that the caller reports before they are freed (by the last copy of the
   *  pointer, together, a thread each: a GPU handle's end waits for its device and frees its
   *  memory)
   */
  std::shared_ptr<DPRCPipelineHandles> *keepHandles = NULL;
};

/// what the batch coders did
struct DPRCPipelineStats
{
  /// pcwt_encode_batch calls (per device and batch), the frames and files they coded
  std::uint64_t calls = 0;
  std::uint64_t frames = 0;
  std::uint64_t files = 0;
  /// frames the writers' codecs took from a batch, and frames they coded themselves
  std::uint64_t framesTaken = 0;
  std::uint64_t framesCodedByWriters = 0;
  /// batch coder threads that ran
  unsigned coders = 0;
  /// verifier threads that ran; the batches they verified (with a GPU: a pcwt_verify_batch call
  /// each), their frames and files (copies)
  unsigned verifiers = 0;
  std::uint64_t verifierBatches = 0;
  std::uint64_t verifiedFrames = 0;
  std::uint64_t verifiedFiles = 0;
  /// the verifier stage decoded on a GPU (else on the CPU, or there was none: verifiers 0)
  bool verifierGpu = false;
  /// the frames of those copies that the writers' CPU decoder checked too, one in sampleEvery
  std::uint64_t sampledFrames = 0;
  unsigned sampleEvery = 0;
  /// JPEG 2000 frames decoded on the GPU (in j2kCalls pcwt_decode_batch calls), by OpenJPEG, by
  /// libpcwt on the CPU (PCWT_J2K_DECODER); j2kGpu: the GPU decoded JPEG 2000 input
  std::uint64_t j2kGpuFrames = 0;
  std::uint64_t j2kOpenjpegFrames = 0;
  std::uint64_t j2kCpuLibraryFrames = 0;
  std::uint64_t j2kCalls = 0;
  bool j2kGpu = false;
  /// JPEG 2000 batch decoder threads (and the one handing files on without them) and finishers
  unsigned j2kThreads = 0;
  unsigned finishers = 0;
  /// the memory budget the readers waited for (bytes)
  std::uint64_t budgetBytes = 0;
  /** with GPU coders: the page-locked regions made once that the files' samples, the batch
   *  coders' output arenas and the GPU verifier's codestreams were cut from (bytes; 0: none), the
   *  buffers cut from each, and the requests each had no room for (allocated apart, as without a
   *  region)
   */
  std::uint64_t sampleRegionBytes = 0, sampleRegionBuffers = 0, sampleRegionBeyond = 0;
  std::uint64_t arenaRegionBytes = 0, arenaRegionBuffers = 0, arenaRegionBeyond = 0;
  std::uint64_t codestreamRegionBytes = 0, codestreamRegionBuffers = 0, codestreamRegionBeyond = 0;
  /// the frames the batch coders and the verifiers of each device coded and verified (by device
  /// number; with several GPUs: how the work spread)
  std::map<int, std::uint64_t> framesCodedOn, framesVerifiedOn;
};

/** whether JPEG 2000 input is decoded on the GPU: the choice, and whether the batch coders code
 *  on a GPU (the automatic choice follows them)
 */
inline bool DPRCJ2KOnGpu(DPRC_J2KDecoder choice, bool codersOnGpu)
{
  return choice == DPRCJD_gpu || (choice == DPRCJD_auto && codersOnGpu);
}

/** --j2k-decoder's value (pcwt-recompress, pcwt-storescp): "auto", "gpu" or "cpu"
 *  @return false for anything else
 */
inline bool DPRCJ2KDecoderFromName(const char *name, DPRC_J2KDecoder& choice)
{
  const std::string v = name ? name : "";
  if (v == "auto") choice = DPRCJD_auto;
  else if (v == "gpu") choice = DPRCJD_gpu;
  else if (v == "cpu") choice = DPRCJD_cpu;
  else return false;
  return true;
}

/** run every file through the pipeline; done(i, result) is called once for each file i, from
 *  any thread, as soon as its result is final. The signal handlers for the temporary files are
 *  installed here. The readers start at once; the devices' handles are made beside them (the
 *  CUDA start-up overlaps the first reads), and the other stages start when they are
 *  (gate.h).
 *  @return false (error says why) when beforeStart fails or a batch coder or decoder cannot be
 *    set up, e.g. a GPU that is not present; no file has been reported or written then
 */
bool DPRCRunPipeline(const std::vector<DPRCEntry>& files, const DPRCOptions& options,
                     const DPRCPipelineOptions& pipeline,
                     const std::function<void(std::size_t, DPRCResult&)>& done,
                     DPRCPipelineStats& stats, std::string& error);

#endif
