/*
 *  Module:  archive
 *
 *  Purpose: HTJ2K on an association under its carriers (netcarrier.h).
 */

#include "dcmtk/config/osconfig.h"
#include "netcarrier.h"

#include "dcmtk/dcmdata/dcostrmf.h"
#include "dcmtk/dcmdata/dcxfer.h"
#include "dcmtk/dcmnet/dul.h"
#include "dcmtk/dcmnet/lst.h"
#include "dcmtk/ofstd/ofstd.h"

#include "dcmpcwt/dputil.h"

#include <cstring>

namespace {

/// the carrier's UID for a carried syntax, else ""
std::string carrierUID(const std::string& uid)
{
  if (!DPNetIsCarriedSyntax(uid)) return "";
  return DcmXfer(DPCWTCarrierOfUID(uid.c_str())).getXferID();
}

/// set the accepted UID of context id (every context when id is 0 and from matches) in one list
void setIn(LST_HEAD *head, T_ASC_PresentationContextID id, const std::string& from, const std::string& to)
{
  if (head == NULL) return;
  LST_HEAD **l = &head;
  DUL_PRESENTATIONCONTEXT *pc = OFstatic_cast(DUL_PRESENTATIONCONTEXT *, LST_Head(l));
  (void)LST_Position(l, OFreinterpret_cast(LST_NODE *, pc));
  for (; pc != NULL; pc = OFstatic_cast(DUL_PRESENTATIONCONTEXT *, LST_Next(l)))
    if (pc->presentationContextID == id && pc->result == ASC_P_ACCEPTANCE && from == pc->acceptedTransferSyntax)
      OFStandard::strlcpy(pc->acceptedTransferSyntax, to.c_str(), sizeof pc->acceptedTransferSyntax);
}

void setAccepted(T_ASC_Parameters *params, T_ASC_PresentationContextID id, const std::string& from,
                 const std::string& to)
{
  setIn(params->DULparams.requestedPresentationContext, id, from, to);
  setIn(params->DULparams.acceptedPresentationContext, id, from, to);
}

} // namespace

bool DPNetIsCarriedSyntax(const std::string& uid)
{
  const E_TransferSyntax c = DPCWTCarrierOfUID(uid.c_str());
  return c == DPCWT_HTJ2K_LOSSLESS_XFER || c == DPCWT_HTJ2K_LOSSLESS_RPCL_XFER || c == DPCWT_HTJ2K_XFER;
}

DPNetCarried DPNetCarryUnknownSyntaxes(T_ASC_Parameters *params)
{
  DPNetCarried carried;
  if (params == NULL) return carried;
  const int n = ASC_countPresentationContexts(params);
  for (int i = 0; i < n; ++i)
  {
    T_ASC_PresentationContext pc;
    if (ASC_getPresentationContext(params, i, &pc).bad() || pc.resultReason != ASC_P_ACCEPTANCE) continue;
    const std::string uid = pc.acceptedTransferSyntax;
    const std::string carrier = carrierUID(uid);
    if (carrier.empty()) continue;
    setAccepted(params, pc.presentationContextID, uid, carrier);
    carried[pc.presentationContextID] = uid;
  }
  return carried;
}

std::string DPNetNegotiatedSyntax(const DPNetCarried& carried, T_ASC_PresentationContextID id,
                                  const char *acceptedUID)
{
  const DPNetCarried::const_iterator it = carried.find(id);
  if (it != carried.end()) return it->second;
  return acceptedUID ? acceptedUID : "";
}

OFCondition DPNetReceiveCarriedToFile(T_ASC_Association *assoc, T_DIMSE_C_StoreRQ& req,
                                      T_ASC_PresentationContextID presID, const std::string& uid,
                                      const std::string& path, T_DIMSE_BlockingMode blocking, int timeout,
                                      DIMSE_ProgressCallback progress, void *progressData)
{
  const std::string carrier = carrierUID(uid);
  if (assoc == NULL || assoc->params == NULL || carrier.empty()) return DIMSE_ILLEGALASSOCIATION;
  // DIMSE_createFilestream writes the context's accepted UID into the meta header: the negotiated
  // one for that moment only, DIMSE_receiveDataSetInFile needs the carrier's
  DcmOutputFileStream *stream = NULL;
  setAccepted(assoc->params, presID, carrier, uid);
  OFCondition cond = DIMSE_createFilestream(path.c_str(), &req, assoc, presID, OFTrue, &stream);
  setAccepted(assoc->params, presID, uid, carrier);
  if (cond.bad())
  {
    // the data set must still be read off the association
    DIC_UL bytes = 0, pdvs = 0;
    const OFCondition ignored = DIMSE_ignoreDataSet(assoc, blocking, timeout, &bytes, &pdvs);
    delete stream;
    return ignored.bad() ? ignored : cond;
  }
  T_ASC_PresentationContextID dataID = presID;
  cond = DIMSE_receiveDataSetInFile(assoc, blocking, timeout, &dataID, stream, progress, progressData);
  if (cond.good() && dataID != presID)
    cond = makeDcmnetCondition(DIMSEC_INVALIDPRESENTATIONCONTEXTID, OF_error,
                               "DIMSE: Presentation Contexts of Command and Data Set differ");
  const bool ok = cond.good() && stream->good();
  delete stream; // (flushes and closes)
  if (!ok) OFStandard::deleteFile(path.c_str());
  return cond;
}
