/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-storescp's network front: one listening socket of our own (bound to
 *           the address asked for), shared by a fixed set of threads that each accept, read the
 *           association request and serve the association. A peer that connects and stalls
 *           holds one of these threads for the ACSE timeout at most, never the others (DCMTK's
 *           DcmSCPPool reads every request on its single listening thread, so one silent
 *           connection after another keeps everyone out). There are 8 more threads than
 *           associations may be served at once; a request received while all are being served
 *           is answered with A-ASSOCIATE-RJ (transient, local limit exceeded).
 */

#ifndef PCWT_ARCHIVE_NET_H
#define PCWT_ARCHIVE_NET_H

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmnet/assoc.h"

#include <functional>
#include <string>

/// what the listener needs
struct DPSCPNetConfig
{
  /// IPv4 address to bind ("" or "0.0.0.0": every interface)
  std::string bindAddress;
  unsigned port = 0;
  /// associations served at once (threads)
  unsigned workers = 8;
  /// seconds allowed for the association request (and the TLS handshake) after a connect
  unsigned acseTimeout = 30;
  unsigned maxPDU = ASC_DEFAULTMAXPDU;
  /// TLS (NULL: plain TCP); shared by all threads, not owned
  DcmTransportLayer *tls = NULL;
};

/** listen for ever; serve(assoc) is called on a worker thread for each association request
 *  received, and owns assoc (it must drop and destroy it)
 *  @return only on a setup error (error says what: address in use, bad bind address, ...)
 */
bool DPSCPListen(const DPSCPNetConfig& config, const std::function<void(T_ASC_Association *)>& serve,
                 std::string& error);

/** end an association from inside a DIMSE receive (its progress callback), where dcmnet's own
 *  abort cannot be called: an A-ABORT PDU (service user) written through the connection (TLS
 *  too), then the socket shut down, so that the receive in progress fails at once
 */
void DPSCPAbortConnection(T_ASC_Association *assoc);

#endif
