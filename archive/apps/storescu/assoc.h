/*
 *  Module:  archive
 *
 *  Purpose: (internal) pcwt-storescu's association with a Storage SCP, on dcmnet's ASC and DIMSE
 *           functions rather than DcmSCU, which keeps its association to itself: HTJ2K contexts
 *           need their UIDs replaced by their carriers' once negotiated (netcarrier.h).
 */

#ifndef PCWT_ARCHIVE_STORESCU_ASSOC_H
#define PCWT_ARCHIVE_STORESCU_ASSOC_H

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmnet/assoc.h"
#include "dcmtk/dcmnet/dimse.h"

#include "netcarrier.h"

#include <string>
#include <utility>
#include <vector>

/// where to and how
struct DPSCUSettings
{
  std::string peer;
  unsigned port = 104;
  std::string ourTitle = "PCWT_STORESCU";
  std::string peerTitle = "ANY-SCP";
  unsigned maxPDU = ASC_DEFAULTMAXPDU;
  int connectTimeout = 30;   ///< seconds
  int acseTimeout = 30;      ///< seconds
  unsigned dimseTimeout = 0; ///< seconds; 0: blocking
};

/// one association; aborted by the destructor when still open
class DPSCUAssociation
{
public:
  DPSCUAssociation() {}
  ~DPSCUAssociation();

  /// propose a presentation context (before open()): a SOP class and the transfer syntaxes offered
  void propose(const std::string& sopClass, const std::vector<std::string>& transferSyntaxes);

  /// how many contexts are proposed
  size_t proposed() const { return contexts_.size(); }

  /// request the association
  OFCondition open(const DPSCUSettings& settings);

  bool connected() const { return assoc_ != NULL; }

  /** the accepted context of this SOP class and transfer syntax (HTJ2K by its own UID), else 0;
   *  unlike ASC_findAcceptedPresentationContextID, no other syntax stands in
   */
  T_ASC_PresentationContextID find(const std::string& sopClass, const std::string& transferSyntax) const;

  /** C-STORE of a data set, written in the context's transfer syntax (an HTJ2K file's data set read
   *  by DPCWTFileFormat: its pixel data under the carrier). A failure of the association itself
   *  ends it (connected() is false afterwards).
   *  @param sopClass, sopInstance the request's affected SOP (the file's meta information: a data
   *         set's own may be unreadable, as values of VR UN are)
   *  @param status the peer's DIMSE status when the condition is good
   */
  OFCondition store(T_ASC_PresentationContextID id, DcmDataset *dataset, const std::string& sopClass,
                    const std::string& sopInstance, Uint16& status);

  /// A-RELEASE, then everything dropped
  void release();

private:
  DPSCUAssociation(const DPSCUAssociation&);
  DPSCUAssociation& operator=(const DPSCUAssociation&);

  void drop(bool abort);

  std::vector<std::pair<std::string, std::vector<std::string> > > contexts_;
  T_ASC_Network *net_ = NULL;
  T_ASC_Association *assoc_ = NULL;
  DPNetCarried carried_;
  T_DIMSE_BlockingMode blocking_ = DIMSE_BLOCKING;
  int dimseTimeout_ = 0;
};

#endif
