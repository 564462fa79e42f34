/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-storescp's network front (net.h): our own listening socket,
 *           shared by one DCMTK acceptor network per thread.
 */

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmnet/dcmtrans.h"
#include "dcmtk/dcmnet/diutil.h"
#include "dcmtk/dcmnet/dul.h"
#include "dcmtk/dcmnet/dulstruc.h"

#include "net.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static OFLogger netLogger = OFLog::getLogger("dcmtk.apps.pcwt-storescp");

namespace {
/// the socket of a connection (getSocket() is protected; named here through a derived class)
struct SocketOf : DcmTransportConnection
{
  static int get(DcmTransportConnection *c) { return OFstatic_cast(int, (c->*&SocketOf::getSocket)()); }
};
} // namespace

void DPSCPAbortConnection(T_ASC_Association *assoc)
{
  if (assoc == NULL || assoc->DULassociation == NULL) return;
  DcmTransportConnection *conn = DUL_getTransportConnection(assoc->DULassociation);
  if (conn == NULL) return;
  // PS3.8 9.3.8: type 7, length 4, source 0 (service user), reason 0
  unsigned char pdu[10] = {0x07, 0, 0, 0, 0, 4, 0, 0, 0, 0};
  (void)conn->write(pdu, sizeof pdu);
  shutdown(SocketOf::get(conn), SHUT_RDWR);
}

namespace {

/** a DCMTK acceptor network that accepts on fd: DUL creates no listening socket while
 *  dcmExternalSocketHandle is set (only here, before any thread runs), and is then given ours
 */
T_ASC_Network *makeNetwork(int fd, unsigned port, unsigned timeout, DcmTransportLayer *tls, std::string& error)
{
  T_ASC_Network *net = NULL;
  dcmExternalSocketHandle.set(fd);
  OFCondition c = ASC_initializeNetwork(NET_ACCEPTOR, OFstatic_cast(int, port), OFstatic_cast(int, timeout), &net);
  dcmExternalSocketHandle.set(DCMNET_INVALID_SOCKET);
  if (c.bad())
  {
    error = std::string("cannot initialise the network: ") + c.text();
    return NULL;
  }
  reinterpret_cast<PRIVATE_NETWORKKEY *>(net->network)->networkSpecific.TCP.listenSocket = fd;
  if (tls)
  {
    c = ASC_setTransportLayer(net, tls, 0 /* not owned */);
    if (c.bad())
    {
      error = std::string("cannot set the TLS layer: ") + c.text();
      return NULL;
    }
  }
  return net;
}

/// wait up to a second for one association request on net (NULL: none, or a broken one)
T_ASC_Association *receiveOne(T_ASC_Network *net, const DPSCPNetConfig& cfg)
{
  T_ASC_Association *assoc = NULL;
  // (the listening socket is non-blocking: a thread that loses the race for a connection gets
  // an accept error here instead of waiting in accept() for the next one)
  OFCondition c = ASC_receiveAssociation(net, &assoc, OFstatic_cast(int, cfg.maxPDU), NULL, NULL,
                                         cfg.tls ? OFTrue : OFFalse, DUL_NOBLOCK, 1);
  if (c.good()) return assoc;
  if (c != DUL_NOASSOCIATIONREQUEST)
    OFLOG_DEBUG(netLogger, "no association from this connection: " << c.text());
  if (assoc)
  {
    ASC_dropAssociation(assoc);
    ASC_destroyAssociation(&assoc);
  }
  return NULL;
}

/// A-ASSOCIATE-RJ (transient, local limit exceeded): every association slot is taken
void refuseBusy(T_ASC_Association *assoc, unsigned workers)
{
  OFLOG_WARN(netLogger, "refusing an association from " << assoc->params->DULparams.callingPresentationAddress
             << ": all " << workers << " associations busy (--max-associations)");
  T_ASC_RejectParameters rej;
  rej.result = ASC_RESULT_REJECTEDTRANSIENT;
  rej.source = ASC_SOURCE_SERVICEPROVIDER_PRESENTATION_RELATED;
  rej.reason = ASC_REASON_SP_PRES_LOCALLIMITEXCEEDED;
  ASC_rejectAssociation(assoc, &rej);
  ASC_dropAssociation(assoc);
  ASC_destroyAssociation(&assoc);
}

/// threads beyond --max-associations that read requests (and refuse them while all are busy)
const unsigned kSpareReaders = 8;

} // namespace

bool DPSCPListen(const DPSCPNetConfig& cfg, const std::function<void(T_ASC_Association *)>& serve,
                 std::string& error)
{
  in_addr addr{};
  addr.s_addr = htonl(INADDR_ANY);
  if (!cfg.bindAddress.empty() && inet_pton(AF_INET, cfg.bindAddress.c_str(), &addr) != 1)
  {
    error = "not an IPv4 address: " + cfg.bindAddress;
    return false;
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
  {
    error = std::string("cannot create a socket: ") + std::strerror(errno);
    return false;
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr = addr;
  sa.sin_port = htons(OFstatic_cast(uint16_t, cfg.port));
  if (bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 || listen(fd, 128) != 0 ||
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
  {
    error = "cannot listen on " + (cfg.bindAddress.empty() ? std::string("*") : cfg.bindAddress) + ":" +
            std::to_string(cfg.port) + ": " + std::strerror(errno);
    close(fd);
    return false;
  }

  // one network per thread; more threads read requests than may serve associations, so that
  // silent connections are waited out side by side, not one after another
  const unsigned threadCount = cfg.workers + kSpareReaders;
  std::vector<T_ASC_Network *> nets;
  for (unsigned i = 0; i < threadCount; ++i)
  {
    T_ASC_Network *net = makeNetwork(fd, cfg.port, cfg.acseTimeout, cfg.tls, error);
    if (net == NULL)
    {
      close(fd);
      return false;
    }
    nets.push_back(net);
  }

  std::atomic<unsigned> busy(0);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < threadCount; ++i)
    threads.emplace_back([&, i] {
      for (;;)
      {
        T_ASC_Association *assoc = receiveOne(nets[i], cfg);
        if (assoc == NULL) continue;
        if (busy.fetch_add(1) < cfg.workers)
          serve(assoc);
        else
          refuseBusy(assoc, cfg.workers);
        busy.fetch_sub(1);
      }
    });
  for (std::thread& t : threads) t.join();
  return true;
}
