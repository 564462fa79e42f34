/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the steps of dcmcpcwt and dcmdpcwt around their conversion: reading the
 *           input file and writing the output file through a DPCWTOutputFile. Each logs its
 *           failure as fatal on the tool's logger, naming the file.
 */

#ifndef DCMPCWT_DPAPPIO_H
#define DCMPCWT_DPAPPIO_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/oflog/oflog.h"

#include "dcmpcwt/dpfilefo.h"
#include "dpappopt.h"
#include "dpapps.h"

/// the exit codes both tools use (dcmcpcwt adds EXITCODE_VERIFICATION_FAILED)
#define EXITCODE_NO_ERROR 0
#define EXITCODE_ERROR    1  /* cannot read, decode, encode or write */

/** warn when no data dictionary is loaded
 *  @return OFFalse (logged) when a file name is missing or empty
 */
OFBool DPCWTCheckFileNames(const OFLogger& logger, const DPCWTAppOptions& opt);

/** read opt.ifname as opt says; a transfer syntax DCMTK does not know (other than PCWT) is
 *  refused, since its pixel data cannot be read
 */
OFCondition DPCWTLoadInput(const OFLogger& logger, const DPCWTAppOptions& opt, DPCWTFileFormat& fileformat);

/// the name of a transfer syntax; PCWT's for its in-memory carrier
OFString DPCWTXferName(E_TransferSyntax xfer);

/** create the output's temporary file and write fileformat to it in oxfer, encoded as opt says;
 *  the output is not committed yet
 */
OFCondition DPCWTSaveOutput(const OFLogger& logger, const DPCWTAppOptions& opt, DPCWTFileFormat& fileformat,
                            E_TransferSyntax oxfer, DPCWTOutputFile& output);

/// flush the output to disk and rename it to opt.ofname
OFCondition DPCWTCommitOutput(const OFLogger& logger, const DPCWTAppOptions& opt, DPCWTOutputFile& output);

#endif
