/*
 *  Module:  archive
 *
 *  Purpose: pcwt-storescp: who verifies the archived copies (verify.cc).
 */

#ifndef PCWT_STORESCP_VERIFY_H
#define PCWT_STORESCP_VERIFY_H

#include "dcmtk/config/osconfig.h"

#include "direct_verifier.h"
#include "engine.h"
#include "pipeline.h"

#include <cstdint>
#include <memory>

/** the verifier of PCWT copies as the options ask, logged: with DPRCVM_auto the coding backend's
 *  when it is a GPU, else none (the PCWT decoder codec verifies every frame on the CPU, as for
 *  DPRCVM_writers and JPEG-LS); DPRCVM_backend the coding backend's on any backend
 *  @param every the CPU decoder's sample, one frame in every (0: none)
 *  @return false (logged) when the decoders asked for cannot be made
 */
bool DPSCPSetUpVerifier(DPRC_Target target, DPRC_VerifyMode mode, unsigned every, std::uint64_t maxSamples,
                        std::unique_ptr<dprc::DirectVerifier>& verifier);

#endif
