/* cli_report.c - one-line error messages on stderr. */
#include "cli_report.h"

#include <stdarg.h>
#include <stdio.h>

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout); /* keep the order of anything already printed */
    fputs("pcwt: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_header_error(const char *path, pcwt_status status)
{
    if (status == PCWT_ERR_BAD_MAGIC)
        cli_error("'%s' is not a PCWT codestream", path);
    else
        cli_error("'%s': invalid PCWT header: %s", path, pcwt_status_string(status));
}

const char *cli_library_message(const char *last_error, pcwt_status status)
{
    return last_error && *last_error ? last_error : pcwt_status_string(status);
}
