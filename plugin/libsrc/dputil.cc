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
