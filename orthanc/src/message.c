/* message.c - the one-line messages of the storage area's functions (message.h). */
#include "message.h"

#include <stdarg.h>
#include <stdio.h>

int pco_fail(char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}
