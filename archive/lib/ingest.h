/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-storescp: the checks of a received data set before it is coded, and
 *           the DICOM status (PS3.4 B.2.3, PS3.7 C) of each way storing it can fail. A sender
 *           retries Refused: Out of Resources (0xA7xx) for ever, so that status is kept for
 *           problems of ours (disk, memory); a data set that contradicts itself gets an Error
 *           status, which senders report instead of retrying.
 */

#ifndef PCWT_ARCHIVE_INGEST_H
#define PCWT_ARCHIVE_INGEST_H

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/dcdatset.h"

#include "engine.h"

#include <cstdint>
#include <string>
#include <vector>

/// PS3.7 C.4: a general failure in processing the operation (not in dcmnet's list for C-STORE)
#define DPSCP_STATUS_ProcessingFailure 0x0110

/** the first value of a string attribute, also when its VR is UN (the value's bytes, trailing
 *  spaces and NULs removed): data sets from files written with every VR UN arrive so
 *  @return false when absent or unreadable (value empty)
 */
bool DPSCPStringOf(DcmDataset *ds, const DcmTagKey& key, OFString& value);

/** look at a received data set (its large values need not be loaded): the SOP Class UID against
 *  the request's, and for an image, the image pixel module against itself and against the size
 *  of Pixel Data (uncompressed: exactly the declared frames, plus a pad byte when odd;
 *  encapsulated: at least one fragment per declared frame)
 *  @return STATUS_Success when nothing contradicts, else the status to answer; why says what
 */
Uint16 DPSCPCheckDataset(DcmDataset *ds, const OFString& requestSOPClass, std::string& why);

/** the status for a file that pcwt-recompress's steps did not store (failed; unsupported with
 *  --reject-unsupported; changed), by the reason the engine gave (DPRCResult::reason) alone: its
 *  message is for people and may be reworded
 */
Uint16 DPSCPFailureStatus(const DPRCResult& result);

/// "Refused: Out of Resources (0xA700)" and the like, for the log and the documentation
std::string DPSCPStatusText(Uint16 status);

/// "100", "64K", "5M", "2G" (binary multiples) as bytes; false when not a size from 1
bool DPSCPParseSize(const char *text, std::uint64_t& bytes);

/** the default --max-object-size: 2 GiB, or 1/32 of the physical memory when that is less
 *  (coding and verifying an instance takes about 18 times its size at the peak; 8 associations)
 */
std::uint64_t DPSCPDefaultMaxObjectBytes();

/// "A, B, C"
std::string DPSCPJoin(const std::vector<std::string>& items);

#endif
