/*
 *  Module:  dcmpcwt
 *
 *  Purpose: (internal) the command line dcmcpcwt and dcmdpcwt share: the two file parameters, the
 *           general and input options, the output encoding options and --version.
 */

#ifndef DCMPCWT_DPAPPOPT_H
#define DCMPCWT_DPAPPOPT_H

#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcfilefo.h"  /* for E_FileReadMode */
#include "dcmtk/ofstd/ofconapp.h"

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

#endif
