/*
 *  Module:  dcmpcwt
 *
 *  Purpose: libpcwt work that an application lends to the codecs on one of its threads.
 *
 *  DCMTK calls a codec once per Pixel Data element, inside chooseRepresentation(). An application
 *  that codes the frames of many files together (pcwt-recompress gives the frames of several files
 *  to one pcwt_encode_batch call, so that a GPU codes them at once) or that keeps its libpcwt
 *  handles (and their GPU contexts) across files installs a DPCWTThreadCoder on the thread that
 *  calls chooseRepresentation(). The encoder codec then takes the codestreams the coder holds
 *  already (codedFrame()) and hands its other PCWT frame jobs to the coder instead of coding them
 *  with a handle of its own, and the decoder codec decodes with the coder's decoder handle. Everything else (the checks of the image pixel module, the frame
 *  layout, the fragments and the Basic Offset Table) stays the codecs' own.
 */

#ifndef DCMPCWT_DPTHRCOD_H
#define DCMPCWT_DPTHRCOD_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/ofstd/ofstring.h"
#include "dcmtk/ofstd/oftypes.h"

#include "pcwt.h"

/** what a thread lends to the PCWT codecs (see the file comment). Used only by the thread that
 *  installed it.
 */
class DPCWTThreadCoder
{
public:
  virtual ~DPCWTThreadCoder() {}

  /** code PCWT frames as pcwt_encode_batch() with the codec's encoder would: each job's status
   *  and written set, the status of the first failing job returned
   *  @param coding the codec's encoder, configured with the codec's settings (its backend aside:
   *    the coder codes with handles of its own, on the backend of its choice). Read only: a coder
   *    gives a handle of its own these options with pcwt_encoder_copy_coding() and compares
   *    with pcwt_encoder_same_coding(); valid until the codec returns
   *  @param message receives a description of a failure
   */
  virtual pcwt_status encodeBatch(const pcwt_encoder *coding, pcwt_frame_job *jobs, size_t count,
                                  OFString& message) = 0;

  /** the codestream of one frame coded ahead, asked for before the frame is coded: the codec
   *  asks frame by frame, in order, and stores a codestream it gets as the frame's fragment as it
   *  is (no buffer of its own, no second copy), coding only the frames it does not get.
   *  A coder hands over a codestream only for exactly these samples coded as coding codes
   *  (pcwt_encoder_same_coding()) into a frame described by desc.
   *  @param coding the codec's encoder, as for encodeBatch()
   *  @param data receives the codestream; when its length is odd, data[size] must be a readable
   *    zero byte (the pad byte of the fragment). It must stay valid until the codec returns.
   *  @param size receives its length
   *  @return true when handed over; false (the default): the frame goes to encodeBatch()
   */
  virtual bool codedFrame(const pcwt_encoder *coding, const pcwt_image_desc& desc,
                          const void *samples, size_t samplesSize, const Uint8 *& data, size_t& size)
  {
    (void)coding; (void)desc; (void)samples; (void)samplesSize; (void)data; (void)size;
    return false;
  }

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
