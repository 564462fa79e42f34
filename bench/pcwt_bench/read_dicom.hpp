// read_dicom.hpp - DICOM files through DCMTK: every frame of native pixel data (any byte order),
// JPEG and RLE through DCMTK's decoders, JPEG-LS through CharLS 2.4.1 and JPEG 2000 / HTJ2K
// through OpenJPEG (the fragments of each frame are taken from the pixel sequence).
//
// DCMTK's own JPEG-LS codec (dcmjpls) is deliberately not used: it bundles CharLS 1.0, whose
// exported JpegLs* symbols clash with CharLS 2.4.1's in one process.
#pragma once

#include <string>

#include "image.hpp"

namespace pcwtbench {

// Register DCMTK's JPEG and RLE decoders and quieten its logger (once, before reading).
void register_dicom_decoders();

// Read every frame of a DICOM file into out.images (named `name`, "#N" appended for multi-frame
// files), or one entry in out.problems saying why not.
void read_dicom_file(const std::string &path, const std::string &name, LoadedInputs &out);

} // namespace pcwtbench
