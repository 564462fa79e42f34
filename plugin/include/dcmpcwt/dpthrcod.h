/*
 *  Module:  dcmpcwt
 *
 *  Purpose: libpcwt work that an application lends to the codecs on one of its threads.
 *
 *  DCMTK calls a codec once per Pixel Data element, inside chooseRepresentation(). An application
 *  that codes the frames of many files together (pcwt-recompress gives the frames of several files
 *  to one pcwt_encode_batch call, so that a GPU codes them at once) or that keeps its libpcwt
 *  handles (and their GPU contexts) across files installs a DPCWTThreadCoder on the thread that
 *  calls chooseRepresentation(). The encoder codec then hands its PCWT frame jobs to the coder
 *  instead of coding them with a handle of its own, and the decoder codec decodes with the
 *  coder's decoder handle. Everything else (the checks of the image pixel module, the frame
 *  layout, the fragments and the Basic Offset Table) stays the codecs' own.
 */

#ifndef DCMPCWT_DPTHRCOD_H
#define DCMPCWT_DPTHRCOD_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofstring.h"

#include "pcwt.h"

/** what a thread lends to the PCWT codecs (see the file comment). Used only by the thread that
 *  installed it.
 */
class DPCWTThreadCoder
{
public:
  virtual ~DPCWTThreadCoder() {}

  /** code PCWT frames as pcwt_encode_batch() would with params: each job's status and written
   *  set, the status of the first failing job returned
   *  @param message receives a description of a failure
   */
  virtual pcwt_status encodeBatch(const pcwt_encode_params& params, pcwt_frame_job *jobs, size_t count,
                                  OFString& message) = 0;

  /** a decoder handle for the decoder codec to use instead of creating its own (NULL: it
   *  creates one, as without a coder). The codec still checks every frame against its limits.
   */
  virtual pcwt_decoder *decoder() { return NULL; }
};

/** install coder for the calling thread (NULL removes it)
 *  @return the coder installed before
 */
DPCWTThreadCoder *DPCWTSetThreadCoder(DPCWTThreadCoder *coder);

/// @return the calling thread's coder (NULL when none)
DPCWTThreadCoder *DPCWTGetThreadCoder();

#endif
