/*
 * cli_args.h - small helpers for the pcwt command line: long options given as "--name value" or
 * "--name=value", and strict number parsing. Each helper prints its own one-line error.
 */
#ifndef PCWT_CLI_ARGS_H
#define PCWT_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "pcwt.h"

/* Classify argv[i] while scanning a command line: returns 1 for an option (starts with "-" and is
 * not "-" alone, and no "--" came before it), 0 for a positional argument, -1 for the "--" that
 * ends the options (which the caller skips). */
int cli_arg_is_option(const char *arg, int *options_ended);

/* Is argv[*i] the option --name taking a value ("--name V" or "--name=V")?
 * Returns 1 and sets *value (advancing *i past a separate value), 0 when argv[*i] is another
 * argument, -1 (error printed) when the value is missing. */
int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value);

/* Is arg the flag --name? Returns 1 for "--name", 0 for another argument, -1 (error printed)
 * for "--name=..." (flags take no value). */
int cli_option_flag(const char *arg, const char *name);

/* Parse a decimal number in [min, max] (digits only). Returns 0, or -1 with an error naming
 * the option. */
int cli_parse_u32(const char *text, const char *option, uint32_t min, uint32_t max, uint32_t *out);

/* Parse a byte count: digits with an optional suffix K, M, G or T (powers of 1024, also KiB,
 * MiB ... and lower case), at least 1. Returns 0, or -1 with an error naming the option. */
int cli_parse_bytes(const char *text, const char *option, uint64_t *out);

/* Parse "RxC" (rows x columns), each 1..PCWT_MAX_GROUP; a single number N means NxN. */
int cli_parse_group(const char *text, uint32_t *rows, uint32_t *cols);

/* The value of a libpcwt option as the library parses it (pcwt_option_parse: its value names,
 * e.g. baseline | entropy for PCWT_OPT_PROFILE, or a number in range): sets *out, or prints
 * "option --NAME: 'TEXT' is not a, b or c" (the library's name and value names) and returns -1. */
int cli_parse_option(pcwt_option option, const char *text, int64_t *out);
int cli_parse_backend(const char *text, pcwt_backend *backend); /* auto | cpu | gpu */

#endif /* PCWT_CLI_ARGS_H */
