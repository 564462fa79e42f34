/*
 *  Module:  dcmpcwt
 *
 *  Purpose: libdcmpcwt_preload.so: registers the PCWT decoder when loaded, so that stock DCMTK
 *           3.6.7 tools decompress PCWT files:
 *
 *             LD_PRELOAD=libdcmpcwt_preload.so dcmdjpls in.dcm out.dcm
 *             LD_PRELOAD=libdcmpcwt_preload.so dcmconv +te in.dcm out.dcm
 *
 *  Stock tools read a PCWT file with a plain DcmFileFormat: DCMTK does not know the UID and keys
 *  the encapsulated pixel data as Explicit VR Little Endian. The decoder registered here claims
 *  exactly that (EPCDM_unknownEncapsulated) and decodes only when the file's (0002,0010) is the
 *  PCWT UID and the first fragment is a PCWT codestream. It never claims the in-memory carrier,
 *  so it cannot take another codec's transfer syntax. Limits: docs/dcmtk-plugin.md.
 *
 */

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dccodec.h"
#include "dcmpcwt/dpcodecd.h"
#include "dcmpcwt/dpcparam.h"
#include "dcmpcwt/dpj2kdec.h"

/* Its own instances, not DPCWTDecoderRegistration's: an application that registers the PCWT
 * decoder itself (carrier mode) keeps doing so when this library is preloaded as well. */
static DPCWTDecoder *g_decoder = NULL;
static DPCWTCodecParameter *g_param = NULL;
/* JPEG 2000 (.90, .91), which DCMTK 3.6.7 keys by its own enum values: stock tools then decompress
 * it. Lossy streams too (decompressing is what the tools are asked to do); HTJ2K needs
 * DPCWTFileFormat's carrier and is not read by stock tools. Not registered when an application
 * registered a JPEG 2000 decoder first. */
static DPCWTJ2KDecoder *g_j2kDecoder = NULL;
static DPCWTCodecParameter *g_j2kParam = NULL;

__attribute__((constructor)) static void dcmpcwt_preload_register()
{
  g_param = new DPCWTCodecParameter();
  g_decoder = new DPCWTDecoder(EPCDM_unknownEncapsulated);
  if (DcmCodecList::registerCodec(g_decoder, NULL, g_param).bad())
  {
    delete g_decoder;
    delete g_param;
    g_decoder = NULL;
    g_param = NULL;
  }
  if (!DPCWTJ2KDecoder::available()) return;
  g_j2kParam = new DPCWTCodecParameter(EPCUC_default, OFFalse, OFTrue /* lossy streams decoded */);
  g_j2kDecoder = new DPCWTJ2KDecoder();
  if (DcmCodecList::registerCodec(g_j2kDecoder, NULL, g_j2kParam).bad())
  {
    delete g_j2kDecoder;
    delete g_j2kParam;
    g_j2kDecoder = NULL;
    g_j2kParam = NULL;
  }
}

__attribute__((destructor)) static void dcmpcwt_preload_cleanup()
{
  if (g_j2kDecoder != NULL)
  {
    DcmCodecList::deregisterCodec(g_j2kDecoder);
    delete g_j2kDecoder;
    delete g_j2kParam;
    g_j2kDecoder = NULL;
    g_j2kParam = NULL;
  }
  if (g_decoder == NULL) return;
  DcmCodecList::deregisterCodec(g_decoder);
  delete g_decoder;
  delete g_param;
  g_decoder = NULL;
  g_param = NULL;
}
