/*
 *  Module:  archive
 *
 *  Purpose: pcwt-storescp: who verifies the archived copies (verify.h).
 */

#include "dcmtk/config/osconfig.h"
#include "verify.h"

#include "dcmtk/oflog/oflog.h"

#include <string>

#ifndef OFFIS_CONSOLE_APPLICATION
#define OFFIS_CONSOLE_APPLICATION "pcwt-storescp"
#endif

static OFLogger verifyLogger = OFLog::getLogger("dcmtk.apps." OFFIS_CONSOLE_APPLICATION);

bool DPSCPSetUpVerifier(DPRC_Target target, DPRC_VerifyMode mode, unsigned every, std::uint64_t maxSamples,
                        std::unique_ptr<dprc::DirectVerifier>& verifier)
{
  verifier.reset();
  if (target == DPRCT_pcwt && mode != DPRCVM_writers)
  {
    std::unique_ptr<dprc::DirectVerifier> v(new dprc::DirectVerifier(PCWT_BACKEND_AUTO, maxSamples, every));
    bool gpu = false;
    std::string error;
    if (!v->init(gpu, error))
    {
      OFLOG_FATAL(verifyLogger, "cannot set up the verification: " << error);
      return false;
    }
    // (the codec codes on the GPU where there is one: the CPU coding, it verifies every frame itself)
    if (gpu || mode == DPRCVM_backend) verifier = std::move(v);
  }
  if (verifier)
    OFLOG_INFO(verifyLogger, "verification: every frame by the " << (verifier->gpu() ? "GPU" : "CPU (standing in for "
               "the coding backend)") << " decoder, " << (every ? "one frame in " + std::to_string(every) : std::string("no frame"))
               << " by the CPU decoder too");
  else
    OFLOG_INFO(verifyLogger, "verification: every frame by the CPU decoder");
  return true;
}
