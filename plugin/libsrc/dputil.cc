/*
 *  Module:  dcmpcwt
 *
 *  Purpose: the module's logger.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dputil.h"

OFLogger DCM_dcmpcwtLogger = OFLog::getLogger("dcmtk.dcmpcwt");

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
