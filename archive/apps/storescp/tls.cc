/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-storescp's TLS options and layer (tls.h).
 */

#include "dcmtk/config/osconfig.h"

#include "tls.h"

#ifdef PCWT_STORESCP_TLS
#include "dcmtk/dcmtls/tlslayer.h"
#endif

bool DPSCPHaveTLS()
{
#ifdef PCWT_STORESCP_TLS
  return true;
#else
  return false;
#endif
}

void DPSCPAddTLSOptions(OFCommandLine& cmd)
{
  cmd.addGroup("transport layer security (TLS) options:");
    cmd.addOption("--enable-tls",        "+tls", 2, "[p]rivate key file, [c]ertificate file: string",
                                                   "use authenticated secure TLS connection\n(PEM files; default: plain TCP)");
    cmd.addOption("--use-passwd",        "+pw",  1, "[p]assword: string",
                                                   "use specified password for the private key");
    cmd.addOption("--add-cert-file",     "+cf",  1, "[f]ilename: string",
                                                   "add certificate file to list of trusted\ncertificates (PEM; repeatable)");
    cmd.addOption("--require-peer-cert", "+rc",     "verify peer certificate, fail if absent (default)");
    cmd.addOption("--verify-peer-cert",  "+vc",     "verify peer certificate if present");
    cmd.addOption("--ignore-peer-cert",  "-ic",     "don't verify peer certificate");
}

void DPSCPEvaluateTLSOptions(OFConsoleApplication& app, OFCommandLine& cmd, DPSCPTLSOptions& o)
{
  if (cmd.findOption("--enable-tls"))
  {
    if (!DPSCPHaveTLS())
      app.printError("--enable-tls: this pcwt-storescp was built without TLS (DCMTK's dcmtls and OpenSSL)");
    const char *key = NULL, *cert = NULL;
    app.checkValue(cmd.getValue(key));
    app.checkValue(cmd.getValue(cert));
    o.enabled = true;
    o.keyFile = key;
    o.certFile = cert;
  }
  if (cmd.findOption("--use-passwd"))
  {
    const char *p = NULL;
    app.checkValue(cmd.getValue(p));
    o.password = p;
  }
  if (cmd.findOption("--add-cert-file", 0, OFCommandLine::FOM_FirstFromLeft))
  {
    do
    {
      const char *f = NULL;
      app.checkValue(cmd.getValue(f));
      o.trustedFiles.push_back(f);
    } while (cmd.findOption("--add-cert-file", 0, OFCommandLine::FOM_NextFromLeft));
  }
  cmd.beginOptionBlock();
  if (cmd.findOption("--require-peer-cert")) o.verify = 0;
  if (cmd.findOption("--verify-peer-cert")) o.verify = 1;
  if (cmd.findOption("--ignore-peer-cert")) o.verify = 2;
  cmd.endOptionBlock();
  if (!o.enabled && (!o.password.empty() || !o.trustedFiles.empty()))
    app.printError("--use-passwd and --add-cert-file only with --enable-tls");
}

std::unique_ptr<DcmTransportLayer> DPSCPCreateTLSLayer(const DPSCPTLSOptions& o, std::string& error)
{
#ifdef PCWT_STORESCP_TLS
  std::unique_ptr<DcmTLSTransportLayer> tls(new DcmTLSTransportLayer(NET_ACCEPTOR, NULL, OFTrue));
  if (!o.password.empty()) tls->setPrivateKeyPasswd(o.password.c_str());
  OFCondition c = tls->setTLSProfile(TSP_Profile_BCP195_ND);
  if (c.good()) c = tls->activateCipherSuites();
  if (c.bad())
  {
    error = std::string("cannot set the TLS profile: ") + c.text();
    return nullptr;
  }
  for (const std::string& f : o.trustedFiles)
    if (tls->addTrustedCertificateFile(f.c_str(), DCF_Filetype_PEM).bad())
    {
      error = "cannot load the trusted certificate file " + f;
      return nullptr;
    }
  if (tls->setPrivateKeyFile(o.keyFile.c_str(), DCF_Filetype_PEM).bad())
  {
    error = "cannot load the private key " + o.keyFile;
    return nullptr;
  }
  if (tls->setCertificateFile(o.certFile.c_str(), DCF_Filetype_PEM).bad())
  {
    error = "cannot load the certificate " + o.certFile;
    return nullptr;
  }
  if (!tls->checkPrivateKeyMatchesCertificate())
  {
    error = "the private key " + o.keyFile + " does not match the certificate " + o.certFile;
    return nullptr;
  }
  tls->setCertificateVerification(o.verify == 0 ? DCV_requireCertificate
                                  : o.verify == 1 ? DCV_checkCertificate : DCV_ignoreCertificate);
  return std::unique_ptr<DcmTransportLayer>(tls.release());
#else
  (void)o;
  error = "built without TLS";
  return nullptr;
#endif
}
