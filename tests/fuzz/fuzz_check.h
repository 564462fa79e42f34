/*
 * fuzz_check.h - FUZZ_CHECK, the fuzz targets' invariant check: a violation prints
 * "<FUZZ_NAME>: invariant violated: <condition> (<file>:<line>)" and aborts, which libFuzzer
 * reports as a crash. Define FUZZ_NAME (the target's name, a string) before including.
 */
#ifndef PCWT_FUZZ_CHECK_H
#define PCWT_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME before including fuzz_check.h"
#endif

#define FUZZ_CHECK(cond)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "%s: invariant violated: %s (%s:%d)\n", FUZZ_NAME, #cond, __FILE__, \
                    __LINE__);                                                                  \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

#endif
