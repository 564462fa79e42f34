/*
 * file_io.h - whole files in memory: reading with a size limit, and writing that never leaves a
 * partial output (a temporary file beside the target, fsync, then rename over it).
 */
#ifndef PCWT_CLI_FILE_IO_H
#define PCWT_CLI_FILE_IO_H

#include <stddef.h>
#include <stdint.h>

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
