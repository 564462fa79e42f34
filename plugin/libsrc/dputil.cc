/*
 *  Module:  dcmpcwt
 *
 *  Purpose: the module's logger.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dputil.h"

OFLogger DCM_dcmpcwtLogger = OFLog::getLogger("dcmtk.dcmpcwt");

// the carriers of the transfer syntaxes DCMTK 3.6.7 does not know
#include <cstring>

static const struct { const char *uid; E_TransferSyntax xfer; const char *name; } kCarriers[] = {
  {DCMPCWT_TRANSFER_SYNTAX_UID, DPCWT_CARRIER_XFER, DCMPCWT_TRANSFER_SYNTAX_NAME},
  {DCMPCWT_HTJ2K_LOSSLESS_UID, DPCWT_HTJ2K_LOSSLESS_XFER, "High-Throughput JPEG 2000 (Lossless Only)"},
  {DCMPCWT_HTJ2K_LOSSLESS_RPCL_UID, DPCWT_HTJ2K_LOSSLESS_RPCL_XFER,
   "High-Throughput JPEG 2000 with RPCL Options (Lossless Only)"},
  {DCMPCWT_HTJ2K_UID, DPCWT_HTJ2K_XFER, "High-Throughput JPEG 2000"}};

E_TransferSyntax DPCWTCarrierOfUID(const char *uid)
{
  if (uid != NULL)
    for (const auto& c : kCarriers)
      if (std::strcmp(uid, c.uid) == 0) return c.xfer;
  return EXS_Unknown;
}

const char *DPCWTUIDOfCarrier(E_TransferSyntax xfer)
{
  for (const auto& c : kCarriers)
    if (c.xfer == xfer) return c.uid;
  return NULL;
}

OFBool DPCWTIsJPEG2000Xfer(E_TransferSyntax xfer)
{
  return xfer == EXS_JPEG2000LosslessOnly || xfer == EXS_JPEG2000 || xfer == DPCWT_HTJ2K_LOSSLESS_XFER ||
         xfer == DPCWT_HTJ2K_LOSSLESS_RPCL_XFER || xfer == DPCWT_HTJ2K_XFER;
}

OFString DPCWTTransferSyntaxName(E_TransferSyntax xfer)
{
  for (const auto& c : kCarriers)
    if (c.xfer == xfer) return c.name;
  return DcmXfer(xfer).getXferName();
}

// the coder an application lends to the codecs of one thread (dpthrcod.h)
#include "dcmpcwt/dpthrcod.h"

static thread_local DPCWTThreadCoder *g_threadCoder = NULL;

DPCWTThreadCoder *DPCWTSetThreadCoder(DPCWTThreadCoder *coder)
{
  DPCWTThreadCoder *old = g_threadCoder;
  g_threadCoder = coder;
  return old;
}

DPCWTThreadCoder *DPCWTGetThreadCoder()
{
  return g_threadCoder;
}

// the decoder's memory budget (0: libpcwt's default); atomic: codecs run on several threads
#include <atomic>

static std::atomic<Uint64> g_decodeMemoryLimit(0);

void DPCWTSetDecodeMemoryLimit(Uint64 bytes)
{
  g_decodeMemoryLimit.store(bytes);
}

Uint64 DPCWTGetDecodeMemoryLimit()
{
  return g_decodeMemoryLimit.load();
}
