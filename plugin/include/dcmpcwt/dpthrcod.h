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

  /** the samples of a JPEG 2000 frame decoded ahead (pcwt-recompress decodes the frames of many
   *  files in one pcwt_decode_batch call on a GPU), asked for by the JPEG 2000 decoder codec frame
   *  by frame before it decodes one itself; it applies its DICOM rules to them as to its own.
   *  A coder hands over samples only for exactly these codestream bytes.
   *  @param codestream the frame's codestream (a JP2 file's: the content of its jp2c box)
   *  @param desc receives the samples' layout, as pcwt_decode writes them (pcwt_read_header())
   *  @param samples receives them; valid until the codec returns
   *  @return true when handed over; false (the default): the codec decodes the frame itself
   */
  virtual bool decodedJ2KFrame(const Uint8 *codestream, size_t size, pcwt_image_desc& desc, const void *& samples)
  {
    (void)codestream; (void)size; (void)desc; (void)samples;
    return false;
  }

  /** told by the JPEG 2000 decoder codec after it decoded a frame itself (decodedJ2KFrame()
   *  false), with the name of the decoder that did ("OpenJPEG", "libpcwt"), so that a tool can
   *  count them */
  virtual void decodedJ2KHere(const char *decoder) { (void)decoder; }
};

/** install coder for the calling thread (NULL removes it)
 *  @return the coder installed before
 */
DPCWTThreadCoder *DPCWTSetThreadCoder(DPCWTThreadCoder *coder);

/// @return the calling thread's coder (NULL when none)
DPCWTThreadCoder *DPCWTGetThreadCoder();

#endif
