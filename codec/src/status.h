/* status.h - the error message every handle keeps (status.c). */
#ifndef PCWT_STATUS_H
#define PCWT_STATUS_H

#include <stddef.h>

/* Formats a one-line message into buf (size bytes, always terminated; nothing when buf is NULL). */
void pcwt_set_error(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif /* PCWT_STATUS_H */
