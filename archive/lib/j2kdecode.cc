/*
 *  Module:  archive
 *
 *  Purpose: (internal) JPEG 2000 input decoded on a GPU (j2kdecode.h): a batch's limits.
 */

#include "dcmtk/config/osconfig.h"
#include "j2kdecode.h"

#include "dpmodule.h"

using namespace dprc;

void J2KBatchDecoder::declared(const Work& w, std::uint64_t& frames, std::uint64_t& bytes)
{
  pcwt_dicom_pixel_module m;
  if (!w.job.file || DPCWTReadPixelModule(w.job.file->getDataset(), m).bad()) return;
  frames += m.number_of_frames;
  bytes += std::uint64_t(m.rows) * m.columns * m.samples_per_pixel * (m.bits_allocated / 8) * m.number_of_frames;
}
