/*
 *  Module:  archive
 *
 *  Purpose: (internal) HTJ2K on an association. Association negotiation in DCMTK 3.6.7 takes
 *           transfer syntax UIDs as strings, but its DIMSE layer refuses every message, commands
 *           included, on a presentation context whose transfer syntax it does not know. So once
 *           an association is negotiated, the accepted HTJ2K contexts are given their carriers'
 *           UIDs (dputil.h) in this side's own copy of the association parameters (the peer has
 *           been answered and never sees them): DIMSE then reads and writes their data sets as
 *           encapsulated Explicit VR Little Endian, which is, byte for byte, how HTJ2K data sets
 *           are encoded. Used by pcwt-storescp (receiving) and pcwt-storescu (sending).
 */

#ifndef PCWT_ARCHIVE_NETCARRIER_H
#define PCWT_ARCHIVE_NETCARRIER_H

#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmnet/assoc.h"
#include "dcmtk/dcmnet/dimse.h"

#include <map>
#include <string>

/// the contexts whose accepted UID was replaced by a carrier's: id -> the UID negotiated
typedef std::map<T_ASC_PresentationContextID, std::string> DPNetCarried;

/// the transfer syntaxes DCMTK 3.6.7 does not know that an association can carry (HTJ2K's three)
bool DPNetIsCarriedSyntax(const std::string& uid);

/** after negotiation: every accepted context of a carried syntax gets its carrier's UID, in both of
 *  the parameters' lists (requested and accepted presentation contexts)
 *  @return the contexts changed, with the UIDs they were accepted with
 */
DPNetCarried DPNetCarryUnknownSyntaxes(T_ASC_Parameters *params);

/** the transfer syntax a context was negotiated with: its entry in carried, else the accepted UID
 *  as DCMTK holds it
 */
std::string DPNetNegotiatedSyntax(const DPNetCarried& carried, T_ASC_PresentationContextID id,
                                  const char *acceptedUID);

/** receive the data set of a C-STORE request on a carried context straight into a file, as
 *  DcmSCP::receiveSTORERequest(..., filename) does for the others: the file meta information
 *  records the negotiated UID (uid), the data set's bytes follow as they came. On failure the file
 *  is removed.
 *  @param presID the context of the request; the data set must arrive on it
 */
OFCondition DPNetReceiveCarriedToFile(T_ASC_Association *assoc, T_DIMSE_C_StoreRQ& req,
                                      T_ASC_PresentationContextID presID, const std::string& uid,
                                      const std::string& path, T_DIMSE_BlockingMode blocking, int timeout,
                                      DIMSE_ProgressCallback progress, void *progressData);

#endif
