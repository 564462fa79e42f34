/*
 * file_io.h - whole files in memory: reading with a size limit, and writing that never leaves a
 * partial output (a temporary file beside the target, fsync, then rename over it).
 */
#ifndef PCWT_CLI_FILE_IO_H
#define PCWT_CLI_FILE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "pcwt.h"

/* Largest input file the tool reads (4 GiB). */
#define CLI_MAX_INPUT_BYTES ((uint64_t)1 << 32)

typedef struct cli_buffer {
    unsigned char *data; /* malloc'ed, NULL when empty */
    size_t size;
} cli_buffer;

/* Read the whole of path ("-" reads standard input) into out, refusing files larger than
 * max_bytes before allocating for them. Returns 0, or -1 with an error printed. */
int cli_read_file(const char *path, uint64_t max_bytes, cli_buffer *out);

void cli_buffer_free(cli_buffer *buf);

/* Called with the parsed header before the rest is read: 0 refuses (its error printed). */
typedef int (*cli_header_check)(const char *name, const pcwt_header_info *info, void *ctx);

/* A PCWT codestream from path ("-": standard input), read header first: the first bytes are
 * checked (magic, header and its CRC) before anything else is read or allocated, then at most the
 * length the header declares is read (bytes after it are ignored). max_bytes > 0 refuses a
 * declared codestream larger than that before reading it, as does accept (when not NULL) what it
 * refuses; header_only stops after the header
 * of a regular file.
 * *file_size gets the file's size for a regular file, else the bytes read. Returns 0, or -1 with
 * a one-line error printed. */
int cli_read_codestream(const char *path, uint64_t max_bytes, int header_only,
                        cli_header_check accept, void *ctx, cli_buffer *out,
                        pcwt_header_info *info, uint64_t *file_size);

/* One piece of the output file. */
typedef struct cli_chunk {
    const void *data;
    size_t size;
} cli_chunk;

/* Write the chunks, in order, as the new content of path. The data goes to a temporary file
 * "<path>.tmp.XXXXXX" in the same folder, which is flushed to disk and renamed over path; on any
 * failure (or SIGINT/SIGTERM/SIGHUP while writing) the temporary file is removed and path is
 * left as it was. Path "-" writes to standard output instead. Returns 0, or -1 with an error
 * printed. */
int cli_write_file_atomic(const char *path, const cli_chunk *chunks, size_t count);

#endif /* PCWT_CLI_FILE_IO_H */
