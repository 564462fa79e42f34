/*
 * cli_report.h - how the pcwt tool reports failure: one line "pcwt: <message>" on stderr, and
 * the process exit codes.
 */
#ifndef PCWT_CLI_REPORT_H
#define PCWT_CLI_REPORT_H

#include "pcwt.h"

/* Exit codes of the pcwt tool (also listed by pcwt --help). */
enum {
    CLI_EXIT_OK = 0,      /* success */
    CLI_EXIT_RUNTIME = 1, /* the job failed: unreadable input, bad data, library error, I/O */
    CLI_EXIT_USAGE = 2    /* the command line is wrong: unknown option, missing value, ... */
};

/* Print "pcwt: <formatted message>\n" on stderr. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
void cli_error(const char *fmt, ...);

/* Report why pcwt_read_header refused the file at path. */
void cli_header_error(const char *path, pcwt_status status);

/* A library error: the handle's last error message, or the status text when it has none. */
const char *cli_library_message(const char *last_error, pcwt_status status);

#endif /* PCWT_CLI_REPORT_H */
