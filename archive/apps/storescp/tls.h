/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-storescp's TLS options (as DCMTK storescp's +tls, +cf, +rc/+vc/-ic,
 *           +pw) and the dcmtls transport layer they make. Built without DCMTK's dcmtls (or
 *           without OpenSSL), +tls is still parsed and refused with an error, so that a server
 *           never silently listens in plain TCP where TLS was asked for.
 */

#ifndef PCWT_ARCHIVE_TLS_H
#define PCWT_ARCHIVE_TLS_H

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmnet/dcmlayer.h"
#include "dcmtk/ofstd/ofcmdln.h"
#include "dcmtk/ofstd/ofconapp.h"

#include <memory>
#include <string>
#include <vector>

struct DPSCPTLSOptions
{
  bool enabled = false;
  std::string keyFile, certFile, password;
  std::vector<std::string> trustedFiles;
  /// 0: require a peer certificate that verifies (default), 1: verify it if sent, 2: ignore it
  int verify = 0;
};

/// whether this build has TLS
bool DPSCPHaveTLS();

void DPSCPAddTLSOptions(OFCommandLine& cmd);

/// read the options (printing an error and exiting on misuse, as OFConsoleApplication does)
void DPSCPEvaluateTLSOptions(OFConsoleApplication& app, OFCommandLine& cmd, DPSCPTLSOptions& options);

/// the acceptor's TLS layer (NULL with error set when the key, certificate or CA files do not load)
std::unique_ptr<DcmTransportLayer> DPSCPCreateTLSLayer(const DPSCPTLSOptions& options, std::string& error);

#endif
