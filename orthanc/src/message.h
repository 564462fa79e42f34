/* message.h - the one-line messages of the storage area's functions (message.c). */
#ifndef PCO_MESSAGE_H
#define PCO_MESSAGE_H

#include <stddef.h>

/* Formats a message into msg (msg_size bytes; nothing when msg is NULL) and returns -1, the
 * failure value of the functions that report through it. */
int pco_fail(char *msg, size_t msg_size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif /* PCO_MESSAGE_H */
