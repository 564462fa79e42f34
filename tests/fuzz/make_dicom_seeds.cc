/*
 * make_dicom_seeds.cc - writes the seed corpus of fuzz_dicom_file: small DICOM files of synthetic
 * images (16x16 and an odd 7x5), native and PCWT-compressed, with the normal plugin (CRCs
 * written as usual).
 *
 *   pcwt_fuzz_make_dicom_seeds SEEDS_DIR
 *
 * Images: 8-bit mono, 16-bit signed mono (12 bits stored), 8-bit RGB interleaved and planar,
 * 16-bit mono of 3 frames, 8-bit mono 7x5 (odd length, pad byte). Each is written as a native
 * Part 10 file (Explicit VR Little Endian) and as a PCWT file (baseline profile; the 3-frame one
 * also in the entropy profile); some also as Big Endian files and as bare data sets (Implicit VR
 * Little Endian, no meta header), the other input form DCMTK's auto-detection reads.
 * Deterministic (fixed pixel patterns).
 */
#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "dcmtk/oflog/oflog.h"

#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dpfilefo.h"
#include "dcmpcwt/dprparam.h"
#include "dcmpcwt/dputil.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct SeedImage
{
  const char *name;
  Uint16 rows, columns, samples, bitsAllocated, bitsStored, pixelRepresentation, planar;
  const char *photometric;
  Sint32 frames;
  bool bigEndian, bareDataset, entropy;
};

const SeedImage k_images[] = {
  {"mono8", 16, 16, 1, 8, 8, 0, 0, "MONOCHROME2", 1, false, true, false},
  {"mono16s", 16, 16, 1, 16, 12, 1, 0, "MONOCHROME2", 1, true, false, false},
  {"rgb8", 16, 16, 3, 8, 8, 0, 0, "RGB", 1, false, false, false},
  {"rgb8planar", 16, 16, 3, 8, 8, 0, 1, "RGB", 1, false, false, false},
  {"mono16x3", 16, 16, 1, 16, 16, 0, 0, "MONOCHROME1", 3, true, true, true},
  {"mono8odd", 5, 7, 1, 8, 8, 0, 0, "MONOCHROME2", 1, false, false, false},
};

/* a smooth gradient with a little structure, inside BitsStored (two's complement when signed) */
std::vector<Uint8> pixels(const SeedImage& im)
{
  const size_t bytes = im.bitsAllocated / 8u;
  const size_t n = OFstatic_cast(size_t, im.frames) * im.rows * im.columns * im.samples;
  std::vector<Uint8> out(n * bytes);
  const Uint32 mask = (1u << im.bitsStored) - 1u;
  for (size_t i = 0; i < n; ++i)
  {
    const Uint32 v = OFstatic_cast(Uint32, (i * 37u + (i / im.columns) * 11u + ((i * 7u) % 13u) * 5u)) & mask;
    for (size_t b = 0; b < bytes; ++b) out[i * bytes + b] = OFstatic_cast(Uint8, v >> (8 * b));
  }
  return out;
}

void fillDataset(DcmDataset *ds, const SeedImage& im)
{
  ds->putAndInsertString(DCM_SOPClassUID, UID_SecondaryCaptureImageStorage);
  ds->putAndInsertString(DCM_SOPInstanceUID, "1.2.826.0.1.3680043.2.1125.99.1");
  ds->putAndInsertString(DCM_PatientName, "Fuzz^Seed");
  ds->putAndInsertString(DCM_Modality, "OT");
  ds->putAndInsertUint16(DCM_SamplesPerPixel, im.samples);
  ds->putAndInsertString(DCM_PhotometricInterpretation, im.photometric);
  if (im.samples > 1) ds->putAndInsertUint16(DCM_PlanarConfiguration, im.planar);
  if (im.frames > 1) ds->putAndInsertString(DCM_NumberOfFrames, std::to_string(im.frames).c_str());
  ds->putAndInsertUint16(DCM_Rows, im.rows);
  ds->putAndInsertUint16(DCM_Columns, im.columns);
  ds->putAndInsertUint16(DCM_BitsAllocated, im.bitsAllocated);
  ds->putAndInsertUint16(DCM_BitsStored, im.bitsStored);
  ds->putAndInsertUint16(DCM_HighBit, OFstatic_cast(Uint16, im.bitsStored - 1));
  ds->putAndInsertUint16(DCM_PixelRepresentation, im.pixelRepresentation);
  const std::vector<Uint8> px = pixels(im);
  if (im.bitsAllocated == 8)
    ds->putAndInsertUint8Array(DCM_PixelData, px.data(), OFstatic_cast(unsigned long, px.size()));
  else
  {
    std::vector<Uint16> words(px.size() / 2);
    for (size_t i = 0; i < words.size(); ++i) words[i] = OFstatic_cast(Uint16, px[2 * i] | (px[2 * i + 1] << 8));
    ds->putAndInsertUint16Array(DCM_PixelData, words.data(), OFstatic_cast(unsigned long, words.size()));
  }
}

int save(DPCWTFileFormat& ff, const std::string& path, E_TransferSyntax xfer, E_FileWriteMode mode)
{
  const OFCondition c = ff.saveFile(path.c_str(), xfer, EET_ExplicitLength, EGL_recalcGL, EPD_noChange, 0, 0, mode);
  if (c.bad())
  {
    std::fprintf(stderr, "make_dicom_seeds: %s: %s\n", path.c_str(), c.text());
    return 1;
  }
  std::printf("make_dicom_seeds: %s\n", path.c_str());
  return 0;
}

void registerEncoder(pcwt_profile profile)
{
  DPCWTEncoderRegistration::cleanup();
  DPCWTEncoderRegistration::registerCodecs(EPCUC_never, OFFalse, OFFalse, PCWT_DEFAULT_LEVELS, 0, 0,
                                           PCWT_BACKEND_CPU, OFFalse, profile);
}

} // namespace

int main(int argc, char **argv)
{
  if (argc != 2)
  {
    std::fprintf(stderr, "usage: %s SEEDS_DIR\n", argv[0]);
    return 2;
  }
  OFLog::configure(OFLogger::WARN_LOG_LEVEL);
  const std::string dir = argv[1];
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
  {
    std::fprintf(stderr, "make_dicom_seeds: %s: %s\n", dir.c_str(), std::strerror(errno));
    return 1;
  }
  int failures = 0;
  for (const SeedImage& im : k_images)
  {
    const std::string base = dir + "/" + im.name;
    {
      DPCWTFileFormat ff;
      fillDataset(ff.getDataset(), im);
      failures += save(ff, base + "_native.dcm", EXS_LittleEndianExplicit, EWM_updateMeta);
      if (im.bigEndian) failures += save(ff, base + "_bigendian.dcm", EXS_BigEndianExplicit, EWM_updateMeta);
      if (im.bareDataset) failures += save(ff, base + "_dataset.bin", EXS_LittleEndianImplicit, EWM_dataset);
    }
    for (int entropy = 0; entropy < (im.entropy ? 2 : 1); ++entropy)
    {
      registerEncoder(entropy ? PCWT_PROFILE_ENTROPY : PCWT_PROFILE_BASELINE);
      DPCWTFileFormat ff;
      fillDataset(ff.getDataset(), im);
      DPCWTRepresentationParameter rp;
      const OFCondition c = ff.getDataset()->chooseRepresentation(DPCWT_CARRIER_XFER, &rp);
      if (c.bad())
      {
        std::fprintf(stderr, "make_dicom_seeds: %s: compressing: %s\n", im.name, c.text());
        ++failures;
        continue;
      }
      failures += save(ff, base + (entropy ? "_pcwt_entropy.dcm" : "_pcwt.dcm"), DPCWT_CARRIER_XFER, EWM_updateMeta);
    }
  }
  DPCWTEncoderRegistration::cleanup();
  if (failures) std::fprintf(stderr, "make_dicom_seeds: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}
