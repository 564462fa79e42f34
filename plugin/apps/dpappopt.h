/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the command line dcmcpcwt and dcmdpcwt share: the two file parameters, the
 *           general and input options, the output encoding options and --version; and the PCWT
 *           coding options of the encoding tools (dcmcpcwt, pcwt-storescp, pcwt-recompress); the
 *           backend options of the two tools.
 */

#ifndef DCMPCWT_DPAPPOPT_H
#define DCMPCWT_DPAPPOPT_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcfilefo.h"  /* for E_FileReadMode */
#include "dcmtk/ofstd/ofconapp.h"

#include "pcwt.h"

/// what the shared options set
struct DPCWTAppOptions
{
  /// dcmfile-in
  const char *ifname;
  /// dcmfile-out
  const char *ofname;
  /// --read-file, --read-file-only, --read-dataset
  E_FileReadMode readMode;
  /// --read-xfer-*
  E_TransferSyntax ixfer;
  /// --group-length-*
  E_GrpLenEncoding oglenc;
  /// --length-*
  E_EncodingType oenctype;
  /// --padding-*
  E_PaddingEncoding opadenc;
  /// --padding-create: file and item padding
  OFCmdUnsignedInt filepad;
  OFCmdUnsignedInt itempad;

  /// the defaults
  DPCWTAppOptions();
};

/// set the columns and add the two file parameters, the general options and the input options
void DPCWTAddInputOptions(OFCommandLine& cmd);

/// add the output encoding subgroups (group length, sequence lengths, padding) to the current group
void DPCWTAddOutputOptions(OFCommandLine& cmd);

/** print the version information (with libraryVersion under "External libraries used") when
 *  --version was given
 *  @return OFTrue if it was printed: the tool is done
 */
OFBool DPCWTPrintVersion(OFConsoleApplication& app, OFCommandLine& cmd, const OFString& libraryVersion);

/// evaluate the parameters, the logging options and the shared input and output options
void DPCWTEvaluateOptions(OFConsoleApplication& app, OFCommandLine& cmd, DPCWTAppOptions& opt);

/** add --profile (+pr) to the current group or subgroup: the PCWT coding profile, baseline
 *  (default) or entropy
 */
void DPCWTAddProfileOption(OFCommandLine& cmd);

/** evaluate --profile: baseline or entropy, anything else is a command line error (one line,
 *  exit status 1). The profile applies to PCWT output only: given together with the option that
 *  selects JPEG-LS output, it is reported as a conflict.
 *  @param profile receives the profile when --profile was given (left alone otherwise)
 *  @param jpeglsOption the tool's option that selects JPEG-LS output
 *  @param jpegls OFTrue when the tool writes JPEG-LS
 */
void DPCWTEvaluateProfileOption(OFConsoleApplication& app, OFCommandLine& cmd, pcwt_profile& profile,
                                const char *jpeglsOption, OFBool jpegls);

/// add --backend-auto (+ba, the default), --backend-cpu (+bc), --backend-gpu (+bg) to the current
/// group or subgroup
void DPCWTAddBackendOptions(OFCommandLine& cmd);

/// evaluate the backend options: backend receives the one given (left alone when none was)
void DPCWTEvaluateBackendOptions(OFCommandLine& cmd, pcwt_backend& backend);

/** @param profile a coding profile
 *  @return its name as --profile takes it ("baseline", "entropy"; "unknown" for other values)
 */
const char *DPCWTProfileName(pcwt_profile profile);

#endif
