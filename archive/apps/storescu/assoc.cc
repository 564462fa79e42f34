/*
 *  Module:  archive
 *
 *  Purpose: pcwt-storescu's association (assoc.h).
 */

#include "dcmtk/config/osconfig.h"
#include "assoc.h"

#include "dcmtk/dcmnet/diutil.h"
#include "dcmtk/dcmnet/dul.h"
#include "dcmtk/ofstd/ofstd.h"

#include <cstring>

DPSCUAssociation::~DPSCUAssociation()
{
  drop(true);
}

void DPSCUAssociation::propose(const std::string& sopClass, const std::vector<std::string>& transferSyntaxes)
{
  contexts_.push_back(std::make_pair(sopClass, transferSyntaxes));
}

void DPSCUAssociation::drop(bool abort)
{
  if (assoc_ != NULL)
  {
    if (abort) ASC_abortAssociation(assoc_);
    ASC_dropAssociation(assoc_);
    ASC_destroyAssociation(&assoc_); // (its parameters too)
    assoc_ = NULL;
  }
  if (net_ != NULL) ASC_dropNetwork(&net_);
  net_ = NULL;
}

OFCondition DPSCUAssociation::open(const DPSCUSettings& s)
{
  if (assoc_ != NULL || net_ != NULL) return NET_EC_AlreadyConnected;
  if (contexts_.empty() || contexts_.size() > 128) return ASC_BADPRESENTATIONCONTEXTID;
  blocking_ = s.dimseTimeout > 0 ? DIMSE_NONBLOCKING : DIMSE_BLOCKING;
  dimseTimeout_ = OFstatic_cast(int, s.dimseTimeout);
  dcmConnectionTimeout.set(s.connectTimeout);
  OFCondition cond = ASC_initializeNetwork(NET_REQUESTOR, 0, s.acseTimeout, &net_);
  if (cond.bad()) return cond;
  T_ASC_Parameters *params = NULL;
  cond = ASC_createAssociationParameters(&params, OFstatic_cast(long, s.maxPDU));
  if (cond.bad())
  {
    drop(false);
    return cond;
  }
  ASC_setAPTitles(params, s.ourTitle.c_str(), s.peerTitle.c_str(), NULL);
  const std::string called = s.peer + ":" + std::to_string(s.port);
  cond = ASC_setPresentationAddresses(params, OFStandard::getHostName().c_str(), called.c_str());
  for (size_t i = 0; i < contexts_.size() && cond.good(); ++i)
  {
    std::vector<const char *> ts;
    for (const std::string& t : contexts_[i].second) ts.push_back(t.c_str());
    cond = ASC_addPresentationContext(params, OFstatic_cast(T_ASC_PresentationContextID, 1 + 2 * i),
                                      contexts_[i].first.c_str(), ts.data(), OFstatic_cast(int, ts.size()));
  }
  // (the association ASC_requestAssociation creates keeps params, whatever the outcome)
  if (cond.good()) cond = ASC_requestAssociation(net_, params, &assoc_);
  if (assoc_ == NULL) ASC_destroyAssociationParameters(&params);
  if (cond.good() && ASC_countAcceptedPresentationContexts(params) == 0)
    cond = NET_EC_NoAcceptablePresentationContexts;
  if (cond.bad())
  {
    drop(cond == NET_EC_NoAcceptablePresentationContexts);
    return cond;
  }
  carried_ = DPNetCarryUnknownSyntaxes(assoc_->params);
  return EC_Normal;
}

T_ASC_PresentationContextID DPSCUAssociation::find(const std::string& sopClass, const std::string& transferSyntax) const
{
  if (assoc_ == NULL) return 0;
  const int n = ASC_countPresentationContexts(assoc_->params);
  for (int i = 0; i < n; ++i)
  {
    T_ASC_PresentationContext pc;
    if (ASC_getPresentationContext(assoc_->params, i, &pc).bad() || pc.resultReason != ASC_P_ACCEPTANCE) continue;
    if (sopClass == pc.abstractSyntax &&
        transferSyntax == DPNetNegotiatedSyntax(carried_, pc.presentationContextID, pc.acceptedTransferSyntax))
      return pc.presentationContextID;
  }
  return 0;
}

OFCondition DPSCUAssociation::store(T_ASC_PresentationContextID id, DcmDataset *dataset, const std::string& sopClass,
                                    const std::string& sopInstance, Uint16& status)
{
  status = 0;
  if (assoc_ == NULL) return DIMSE_ILLEGALASSOCIATION;
  if (sopClass.empty() || sopInstance.empty()) return DIMSE_BADDATA;
  T_DIMSE_C_StoreRQ req;
  std::memset(&req, 0, sizeof req);
  req.MessageID = assoc_->nextMsgID++;
  OFStandard::strlcpy(req.AffectedSOPClassUID, sopClass.c_str(), sizeof req.AffectedSOPClassUID);
  OFStandard::strlcpy(req.AffectedSOPInstanceUID, sopInstance.c_str(), sizeof req.AffectedSOPInstanceUID);
  req.DataSetType = DIMSE_DATASET_PRESENT;
  req.Priority = DIMSE_PRIORITY_MEDIUM;
  T_DIMSE_C_StoreRSP rsp;
  std::memset(&rsp, 0, sizeof rsp);
  DcmDataset *detail = NULL;
  const OFCondition cond = DIMSE_storeUser(assoc_, id, &req, NULL, dataset, NULL, NULL, blocking_, dimseTimeout_,
                                           &rsp, &detail);
  delete detail;
  if (cond.good())
    status = rsp.DimseStatus;
  else
    drop(cond != DUL_PEERABORTEDASSOCIATION); // the association is in no state to go on
  return cond;
}

void DPSCUAssociation::release()
{
  if (assoc_ != NULL && ASC_releaseAssociation(assoc_).bad())
  {
    drop(true);
    return;
  }
  drop(false);
}
