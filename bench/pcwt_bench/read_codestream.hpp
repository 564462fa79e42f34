// read_codestream.hpp - standalone JPEG-LS (.jls) and JPEG 2000 (.j2k/.j2c/.jp2) files.
//
// A codestream carries no sign or modality. When a DICOM file of the same stem (optionally with
// "_UNC") lies beside it or in a sibling folder (e.g. wg04/jls/CT1.JLS and
// wg04/dicom_unc/CT1_UNC.dcm) and holds exactly the same words, its PixelRepresentation,
// BitsStored, Photometric Interpretation and Modality are used; otherwise the samples are
// unsigned and the modality is taken from the start of the file name when it is a DICOM modality
// code (CT1 -> CT), else "?".
#pragma once

#include <string>

#include "image.hpp"

namespace pcwtbench {

void read_jpegls_file(const std::string &path, const std::string &name, LoadedInputs &out);
void read_j2k_file(const std::string &path, const std::string &name, LoadedInputs &out);

// The modality a file name starts with ("CT1.JLS" -> "CT"), or "?".
std::string modality_from_name(const std::string &path);

} // namespace pcwtbench
