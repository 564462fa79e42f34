/*
 * fuzz_dicom_file.cc - libFuzzer target for the DCMTK carrier read: arbitrary bytes as a DICOM
 * file (Part 10, or a bare data set: DCMTK's ERM_autoDetect takes either), read as dcmdpcwt reads
 * its input, then what dcmdpcwt does with it:
 *
 *   1. DPCWTFileFormat::loadFile (DcmFileFormat's read, then rekeyPixelData: PCWT pixel data onto
 *      DPCWT_CARRIER_XFER), the unknown-transfer-syntax check of DPCWTLoadInput;
 *   2. for encapsulated carrier pixel data, DcmPixelData::getUncompressedFrame of the first and
 *      the last frame (DPCWTDecoder::decodeFrame: Basic Offset Table, fragments of a frame);
 *   3. chooseRepresentation(EXS_LittleEndianExplicit) (DPCWTDecoder::decode); when both decode,
 *      the frames of step 2 must equal those of the whole image (a difference aborts);
 *   4. small native images: chooseRepresentation(DPCWT_CARRIER_XFER) (DPCWTEncoder), and when the
 *      encoder accepts the image, decoding the result again must give back the same bytes
 *      (lossless: every bit). A mismatch aborts.
 *
 * The input is read from a file (a memfd), not from a DcmInputBufferStream: from a buffer stream
 * DCMTK allocates every element's declared length (up to 4 GiB) before it finds that the input
 * is shorter, as no file reader does (a file stream skips values above DCM_MaxReadLength and
 * refuses those longer than the rest of the file). That is DCMTK's behaviour, not ours, and it
 * exhausted -malloc_limit_mb on the first fuzzing run; the file path is also the tools' path.
 *
 * Only our decoders (PCWT, JPEG 2000/HTJ2K) and encoder are registered (no DCMTK JPEG/RLE
 * codecs): other encapsulated syntaxes stop at step 3. The decoders' memory budget is 256 MiB
 * (DPCWTSetDecodeMemoryLimit, as dcmdpcwt --max-memory), so a legal but large header is refused
 * instead of exhausting the fuzzer's -rss_limit_mb; frames beyond FUZZ_MAX_FRAME_BYTES are not
 * decoded frame-wise.
 *
 * Built (fuzz.cmake) from a second copy of the plugin sources and of dicom/ with coverage
 * instrumentation, against pcwt_fuzzlib (CRC checks skipped so that mutated codestreams reach
 * the decoder). DCMTK itself (Debian's shared libraries) is neither instrumented nor sanitized.
 */
#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcdict.h"
#include "dcmtk/dcmdata/dcmetinf.h"
#include "dcmtk/dcmdata/dcpixel.h"
#include "dcmtk/dcmdata/dcxfer.h"
#include "dcmtk/oflog/oflog.h"

#include "dcmpcwt/dpdecode.h"
#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dpfilefo.h"
#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"

#include <sys/mman.h> /* memfd_create */
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define FUZZ_CHECK(cond)                                                                         \
  do                                                                                             \
  {                                                                                              \
    if (!(cond))                                                                                 \
    {                                                                                            \
      std::fprintf(stderr, "fuzz_dicom_file: invariant violated: %s (%s:%d)\n", #cond, __FILE__, \
                   __LINE__);                                                                    \
      std::abort();                                                                              \
    }                                                                                            \
  } while (0)

namespace {

// FUZZ_DICOM_FILE_TRACE=1 in the environment: say how far each input got (to check the seeds)
bool g_trace = false;
// the file each input is written to (loadFile takes a name)
int g_fd = -1;
char g_path[64];
#define FUZZ_TRACE(what) do { if (g_trace) std::fprintf(stderr, "fuzz_dicom_file: %s\n", what); } while (0)

// decoder budget: far above what a seed needs, far below -rss_limit_mb=2048
const Uint64 FUZZ_DECODE_MEMORY_LIMIT = OFstatic_cast(Uint64, 256) << 20;
// frame-wise decoding only for frames up to this size (the buffer is ours to allocate)
const Uint64 FUZZ_MAX_FRAME_BYTES = OFstatic_cast(Uint64, 16) << 20;
// the encode/decode round trip only for native Pixel Data up to this size (time per input)
const Uint32 FUZZ_MAX_ENCODE_BYTES = 1u << 18;

/* a frame decoded on its own (step 2), to be compared with the same frame of the whole image */
struct DecodedFrame
{
  Uint32 frameNo;
  std::vector<Uint8> bytes;
};

/* step 2: the first and the last frame through getUncompressedFrame (DPCWTDecoder::decodeFrame) */
std::vector<DecodedFrame> decodeFrames(DcmDataset *dataset, DcmPixelData *pixelData)
{
  std::vector<DecodedFrame> out;
  Uint32 frameSize = 0;
  if (pixelData->getUncompressedFrameSize(dataset, frameSize).bad() || frameSize == 0 ||
      frameSize > FUZZ_MAX_FRAME_BYTES)
    return out;
  Sint32 frames = 1;
  if (dataset->findAndGetSint32(DCM_NumberOfFrames, frames).bad() || frames < 1) frames = 1;
  // DCMTK wants room for the pad byte of an odd frame (EC_IllegalCall otherwise)
  const Uint32 bufSize = frameSize + (frameSize & 1u);
  std::vector<Uint8> buffer(bufSize);
  const Uint32 which[2] = {0, OFstatic_cast(Uint32, frames - 1)};
  for (int i = 0; i < (frames > 1 ? 2 : 1); ++i)
  {
    Uint32 startFragment = 0; // 0: let the decoder find the frame's fragments
    OFString colorModel;
    const OFCondition c = pixelData->getUncompressedFrame(dataset, which[i], startFragment, buffer.data(),
                                                          bufSize, colorModel, NULL);
    FUZZ_TRACE(c.good() ? "frame decoded" : c.text());
    if (c.good()) out.push_back(DecodedFrame{which[i], std::vector<Uint8>(buffer.begin(), buffer.begin() + frameSize)});
  }
  return out;
}

/* the native Pixel Data bytes of dataset (empty when there are none) */
std::vector<Uint8> nativePixels(DcmDataset *dataset)
{
  DcmElement *elem = NULL;
  Uint8 *bytes = NULL;
  std::vector<Uint8> out;
  if (dataset->findAndGetElement(DCM_PixelData, elem).good() && elem != NULL &&
      elem->getUint8Array(bytes).good() && bytes != NULL)
    out.assign(bytes, bytes + elem->getLength());
  return out;
}

/* step 4: compress a small native image and decompress the result again: same bytes */
void roundTrip(DcmDataset *dataset)
{
  DcmElement *elem = NULL;
  if (dataset->findAndGetElement(DCM_PixelData, elem).bad() || elem == NULL ||
      elem->getLength() > FUZZ_MAX_ENCODE_BYTES || !dataset->hasRepresentation(EXS_LittleEndianExplicit, NULL))
    return;
  // the encoder takes the bytes in the data set's byte order: compare them in Little Endian
  if (dataset->chooseRepresentation(EXS_LittleEndianExplicit, NULL).bad()) return;
  const std::vector<Uint8> before = nativePixels(dataset);
  if (before.empty()) return;

  DPCWTRepresentationParameter rp;
  if (dataset->chooseRepresentation(DPCWT_CARRIER_XFER, &rp).bad()) // refused: fine
  {
    FUZZ_TRACE("encoder refused");
    return;
  }
  // keep only the codestreams, so that the next step really decodes them
  dataset->removeAllButCurrentRepresentations();
  const OFCondition back = dataset->chooseRepresentation(EXS_LittleEndianExplicit, NULL);
  if (back.bad()) std::fprintf(stderr, "fuzz_dicom_file: decoding our own encoding: %s\n", back.text());
  FUZZ_CHECK(back.good());
  const std::vector<Uint8> after = nativePixels(dataset);
  // the encoder accepted the module, so it is sane: frames x rows x columns x samples x bytes;
  // a pad byte after an odd total may differ (the decoder writes zero)
  Uint16 rows = 0, columns = 0, spp = 0, bitsAllocated = 0;
  Sint32 frames = 1;
  FUZZ_CHECK(dataset->findAndGetUint16(DCM_Rows, rows).good());
  FUZZ_CHECK(dataset->findAndGetUint16(DCM_Columns, columns).good());
  FUZZ_CHECK(dataset->findAndGetUint16(DCM_SamplesPerPixel, spp).good());
  FUZZ_CHECK(dataset->findAndGetUint16(DCM_BitsAllocated, bitsAllocated).good());
  if (dataset->findAndGetSint32(DCM_NumberOfFrames, frames).bad()) frames = 1;
  const size_t total = OFstatic_cast(size_t, frames) * rows * columns * spp * (bitsAllocated / 8u);
  FUZZ_CHECK(total > 0 && before.size() >= total && after.size() >= total);
  FUZZ_CHECK(std::memcmp(before.data(), after.data(), total) == 0);
  FUZZ_TRACE("round trip: same pixels");
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
  // the codecs log refusals at debug level; DCMTK's parser warns on every odd input: quiet
  g_trace = std::getenv("FUZZ_DICOM_FILE_TRACE") != NULL;
  OFLog::configure(g_trace ? OFLogger::DEBUG_LOG_LEVEL : OFLogger::FATAL_LOG_LEVEL);
  DPCWTDecoderRegistration::registerCodecs();
  // the PCWT encoder only (the JPEG-LS one would need DCMTK's decoder to be checked)
  DPCWTEncoderRegistration::registerCodecs(EPCUC_never, OFFalse, OFFalse, PCWT_DEFAULT_LEVELS, 0, 0,
                                           PCWT_BACKEND_AUTO, OFFalse);
  DPCWTSetDecodeMemoryLimit(FUZZ_DECODE_MEMORY_LIMIT);
  // an anonymous file: nothing to clean up after a crash (Linux >= 3.17, as libFuzzer's hosts)
  g_fd = memfd_create("fuzz_dicom_file", MFD_CLOEXEC);
  if (g_fd < 0)
  {
    std::perror("fuzz_dicom_file: memfd_create");
    std::abort();
  }
  std::snprintf(g_path, sizeof g_path, "/proc/self/fd/%d", g_fd);
  if (!dcmDataDict.isDictionaryLoaded())
    std::fprintf(stderr, "fuzz_dicom_file: no DICOM data dictionary loaded (DCMDICTPATH)\n");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > (OFstatic_cast(size_t, 1) << 20)) return 0; // larger inputs teach nothing more

  // step 1: as dcmdpcwt, DPCWTFileFormat::loadFile
  if (ftruncate(g_fd, 0) != 0 ||
      pwrite(g_fd, data, size, 0) != OFstatic_cast(ssize_t, size))
  {
    std::perror("fuzz_dicom_file: writing the input file");
    std::abort();
  }
  DPCWTFileFormat fileformat;
  if (fileformat.loadFile(g_path).bad()) return 0;
  // as DPCWTLoadInput: a transfer syntax that is neither DCMTK's nor ours is refused
  OFString tsuid;
  DcmMetaInfo *meta = fileformat.getMetaInfo();
  if (meta != NULL && meta->findAndGetOFString(DCM_TransferSyntaxUID, tsuid).good() && !tsuid.empty() &&
      !DPCWTFileFormat::isPCWTFile(fileformat) && DcmXfer(tsuid.c_str()).getXfer() == EXS_Unknown)
    return 0;
  DcmDataset *dataset = fileformat.getDataset();
  if (dataset == NULL) return 0;

  DcmElement *elem = NULL;
  if (dataset->findAndGetElement(DCM_PixelData, elem).bad() || elem == NULL || elem->ident() != EVR_PixelData)
    return 0;
  DcmPixelData *pixelData = OFstatic_cast(DcmPixelData *, elem);

  // step 2: frame-wise, where the pixel data is ours
  std::vector<DecodedFrame> frames;
  if (dataset->getOriginalXfer() == DPCWT_CARRIER_XFER) frames = decodeFrames(dataset, pixelData);

  // step 3: decompress everything, as dcmdpcwt
  FUZZ_TRACE(dataset->getOriginalXfer() == DPCWT_CARRIER_XFER ? "read: PCWT" : "read: other");
  if (dataset->chooseRepresentation(EXS_LittleEndianExplicit, NULL).bad()) return 0;
  FUZZ_TRACE("decompressed");
  // a frame decoded on its own (Basic Offset Table, fragments of one frame) is the same frame of
  // the whole image (all fragments in order)
  if (!frames.empty())
  {
    const std::vector<Uint8> whole = nativePixels(dataset);
    for (const DecodedFrame& f : frames)
    {
      const size_t at = OFstatic_cast(size_t, f.frameNo) * f.bytes.size();
      FUZZ_CHECK(at + f.bytes.size() <= whole.size());
      FUZZ_CHECK(std::memcmp(whole.data() + at, f.bytes.data(), f.bytes.size()) == 0);
    }
  }

  // step 4: the encoder on what came out
  roundTrip(dataset);
  return 0;
}
