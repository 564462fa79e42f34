/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) helpers shared by dcmcpcwt and dcmdpcwt.
 */

#include "dcmtk/config/osconfig.h"
#include "dpapps.h"

#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcpixel.h"
#include "dcmtk/dcmdata/dcrledrg.h"   /* for DcmRLEDecoderRegistration */
#include "dcmtk/dcmdata/dcswap.h"
#include "dcmtk/dcmjpeg/djdecode.h"   /* for DJDecoderRegistration */
#include "dcmtk/dcmjpls/djdecode.h"   /* for DJLSDecoderRegistration */

#include "dcmpcwt/dpdecode.h"
#include "dcmpcwt/dputil.h"
#include "../libsrc/dpmodule.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

// ---------------------------------------------------------------------------------------------
// output files

/* the temporary file a signal handler must remove (one output at a time per process) */
static char g_tempPath[4096];
static volatile sig_atomic_t g_tempActive = 0;

/* the signals after which the temporary file goes, and the actions they had before */
static const int g_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction g_previous[sizeof g_signals / sizeof g_signals[0]];
static bool g_handlersInstalled = false;

extern "C" void dpcwtRemoveTempOnSignal(int sig)
{
  if (g_tempActive) unlink(g_tempPath);
  g_tempActive = 0;
  // hand the signal on to what was there before (the default, or a sanitizer's reporter): for a
  // fault, returning re-executes the faulting instruction under the previous action
  for (size_t i = 0; i < sizeof g_signals / sizeof g_signals[0]; ++i)
  {
    if (g_signals[i] == sig)
    {
      sigaction(sig, &g_previous[i], NULL);
      break;
    }
  }
  if (sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL) raise(sig);
}

static void installSignalHandlers()
{
  if (g_handlersInstalled) return;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = dpcwtRemoveTempOnSignal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof g_signals / sizeof g_signals[0]; ++i)
    sigaction(g_signals[i], &sa, &g_previous[i]);
  g_handlersInstalled = true;
}

DPCWTOutputFile::DPCWTOutputFile(const OFString& path)
: path_(path)
, temp_()
, committed_(OFFalse)
{
}

DPCWTOutputFile::~DPCWTOutputFile()
{
  discard();
}

OFCondition DPCWTOutputFile::create()
{
  OFString dir = ".";
  const size_t slash = path_.rfind('/');
  if (slash != OFString_npos) dir = (slash == 0) ? OFString("/") : path_.substr(0, slash);
  const OFString base = (slash == OFString_npos) ? path_ : path_.substr(slash + 1);
  if (base.empty())
    return makeOFCondition(OFM_dcmpcwt, 100, OF_error, "the output path names a folder, not a file");
  OFString tmpl = dir + "/." + base + ".tmp.XXXXXX";
  if (tmpl.size() >= sizeof g_tempPath)
    return makeOFCondition(OFM_dcmpcwt, 100, OF_error, "output path too long");
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0)
  {
    const OFString msg = OFString("cannot create a temporary file in ") + dir + ": " + std::strerror(errno);
    return makeOFCondition(OFM_dcmpcwt, 100, OF_error, msg.c_str());
  }
  close(fd);
  temp_ = buf.data();
  std::strcpy(g_tempPath, temp_.c_str());
  g_tempActive = 1;
  installSignalHandlers();
  return EC_Normal;
}

OFCondition DPCWTOutputFile::commit()
{
  if (temp_.empty()) return EC_IllegalCall;
  const int fd = open(temp_.c_str(), O_RDONLY);
  if (fd < 0 || fsync(fd) != 0)
  {
    const OFString msg = OFString("cannot flush ") + temp_ + ": " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return makeOFCondition(OFM_dcmpcwt, 101, OF_error, msg.c_str());
  }
  close(fd);
  // the permissions an ordinary file gets (mkstemp creates 0600)
  const mode_t mask = umask(0);
  umask(mask);
  (void)chmod(temp_.c_str(), 0666 & ~mask);
  if (rename(temp_.c_str(), path_.c_str()) != 0)
  {
    const OFString msg = OFString("cannot rename ") + temp_ + " to " + path_ + ": " + std::strerror(errno);
    return makeOFCondition(OFM_dcmpcwt, 101, OF_error, msg.c_str());
  }
  g_tempActive = 0;
  committed_ = OFTrue;
  temp_.clear();
  return EC_Normal;
}

void DPCWTOutputFile::discard()
{
  if (!temp_.empty() && !committed_)
  {
    g_tempActive = 0;
    unlink(temp_.c_str());
    temp_.clear();
  }
}

// ---------------------------------------------------------------------------------------------
// codecs

void DPCWTRegisterDecoders(unsigned long maxSamplesPerFrame, OFBool newUID, pcwt_backend backend)
{
  DJDecoderRegistration::registerCodecs(EDC_photometricInterpretation, newUID ? EUC_always : EUC_default);
  DJLSDecoderRegistration::registerCodecs(newUID ? EJLSUC_always : EJLSUC_default);
  DcmRLEDecoderRegistration::registerCodecs(newUID);
  DPCWTDecoderRegistration::registerCodecs(newUID ? EPCUC_always : EPCUC_default, maxSamplesPerFrame, backend);
}

void DPCWTCleanupDecoders()
{
  DPCWTDecoderRegistration::cleanup();
  DcmRLEDecoderRegistration::cleanup();
  DJLSDecoderRegistration::cleanup();
  DJDecoderRegistration::cleanup();
}

// ---------------------------------------------------------------------------------------------
// samples

OFCondition DPCWTFindPixels(DcmDataset *dataset, pcwt_dicom_target target, pcwt_dicom_pixel_module& module,
                            const Uint8 *& data, Uint64& bytes)
{
  data = NULL;
  bytes = 0;
  OFCondition result = DPCWTReadPixelModule(dataset, module);
  if (result.good()) result = DPCWTValidatePixelModule(module, target);
  if (result.bad()) return result;
  DcmElement *elem = NULL;
  result = dataset->findAndGetElement(DCM_PixelData, elem);
  if (result.bad() || elem == NULL)
    return makeOFCondition(OFM_dcmpcwt, 102, OF_error, "no Pixel Data (7FE0,0010)");
  Uint8 *p = NULL;
  result = elem->getUint8Array(p);
  const Uint64 total = pcwt_dicom_pixel_bytes(&module);
  if (result.bad() || p == NULL || OFstatic_cast(Uint64, elem->getLength()) < total)
    return DPCWTMakeError(EPCEC_PixelDataTooShort, "the uncompressed Pixel Data is shorter than declared");
  data = p;
  bytes = total;
  return EC_Normal;
}

OFCondition DPCWTGetPixels(DcmDataset *dataset, pcwt_dicom_target target,
                           pcwt_dicom_pixel_module& module, std::vector<unsigned char>& pixels)
{
  const Uint8 *data = NULL;
  Uint64 total = 0;
  const OFCondition result = DPCWTFindPixels(dataset, target, module, data, total);
  if (result.bad()) return result;
  pixels.assign(data, data + total);
  // 8-bit samples sit in 16-bit words of local byte order: make them a byte sequence
  if (module.bits_allocated == 8 && gLocalByteOrder == EBO_BigEndian)
  {
    if (pixels.size() & 1) pixels.push_back(0);
    swapIfNecessary(EBO_LittleEndian, gLocalByteOrder, pixels.data(), OFstatic_cast(Uint32, pixels.size()), 2);
    pixels.resize(OFstatic_cast(size_t, total));
  }
  return EC_Normal;
}

OFCondition DPCWTCompareSamples(const pcwt_dicom_pixel_module& om,
                                const unsigned char *original, size_t originalSize,
                                const pcwt_dicom_pixel_module& dm,
                                const std::vector<unsigned char>& decoded,
                                pcwt_dicom_target target)
{
  if (om.rows != dm.rows || om.columns != dm.columns || om.samples_per_pixel != dm.samples_per_pixel ||
      om.bits_allocated != dm.bits_allocated || om.bits_stored != dm.bits_stored ||
      om.number_of_frames != dm.number_of_frames)
    return makeOFCondition(OFM_dcmpcwt, 103, OF_error, "the decoded image pixel module differs from the original");
  if (originalSize != decoded.size())
    return makeOFCondition(OFM_dcmpcwt, 103, OF_error, "the decoded pixel data has a different size");
  if (target == PCWT_DICOM_TARGET_PCWT)
  {
    if (originalSize && std::memcmp(original, decoded.data(), originalSize) != 0)
    {
      size_t i = 0;
      while (i < originalSize && original[i] == decoded[i]) ++i;
      std::ostringstream s;
      s << "decoded pixel data differs from the original at byte " << i;
      return makeOFCondition(OFM_dcmpcwt, 103, OF_error, s.str().c_str());
    }
    return EC_Normal;
  }
  pcwt_image_desc od, dd;
  pcwt_dicom_image_desc(&om, &od);
  pcwt_dicom_image_desc(&dm, &dd);
  const size_t frameBytes = OFstatic_cast(size_t, pcwt_dicom_frame_bytes(&om));
  const size_t pixelsPerFrame = OFstatic_cast(size_t, om.rows) * om.columns;
  const unsigned bps = om.bits_allocated / 8;
  std::vector<unsigned char> a(frameBytes), b(frameBytes), t(frameBytes);
  od.planar = dd.planar = 0;
  for (Uint64 f = 0; f < om.number_of_frames; ++f)
  {
    const unsigned char *po = original + f * frameBytes;
    const unsigned char *pd = decoded.data() + f * frameBytes;
    if (om.samples_per_pixel == 3 && om.has_planar_configuration && om.planar_configuration == 1)
    {
      pcwt_dicom_planar_to_interleaved(po, t.data(), pixelsPerFrame, bps);
      po = t.data();
    }
    pcwt_dicom_mask_to_bits_stored(&od, po, a.data());
    if (dm.samples_per_pixel == 3 && dm.has_planar_configuration && dm.planar_configuration == 1)
    {
      pcwt_dicom_planar_to_interleaved(pd, t.data(), pixelsPerFrame, bps);
      pd = t.data();
    }
    pcwt_dicom_mask_to_bits_stored(&dd, pd, b.data());
    if (a != b)
    {
      std::ostringstream s;
      s << "decoded frame " << (f + 1) << " differs from the original in its BitsStored-bit values";
      return makeOFCondition(OFM_dcmpcwt, 103, OF_error, s.str().c_str());
    }
  }
  return EC_Normal;
}
