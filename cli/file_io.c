/* file_io.c - size-limited whole-file reads and all-or-nothing file writes (POSIX). */
#define _POSIX_C_SOURCE 200809L

#include "file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli_report.h"

void cli_buffer_free(cli_buffer *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->size = 0;
}

/* read() until count bytes or end of file; returns the bytes read, or -1 (errno set). */
static ptrdiff_t read_full(int fd, unsigned char *dst, size_t count)
{
    size_t done = 0;
    while (done < count) {
        size_t want = count - done;
        ssize_t n;
        if (want > ((size_t)1 << 30))
            want = (size_t)1 << 30;
        n = read(fd, dst + done, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ptrdiff_t)done;
}

static int too_large(const char *path, uint64_t max_bytes)
{
    cli_error("'%s': file too large (the limit is %llu bytes)", path,
              (unsigned long long)max_bytes);
    return -1;
}

/* A regular file: its size is known, so allocate once after checking it. */
static int read_regular(int fd, const char *path, uint64_t file_size, uint64_t max_bytes,
                        cli_buffer *out)
{
    unsigned char *data;
    ptrdiff_t got;
    if (file_size > max_bytes || file_size > (uint64_t)(SIZE_MAX - 1))
        return too_large(path, max_bytes);
    data = malloc(file_size > 0 ? (size_t)file_size : 1);
    if (!data) {
        cli_error("'%s': out of memory reading %llu bytes", path, (unsigned long long)file_size);
        return -1;
    }
    got = read_full(fd, data, (size_t)file_size);
    if (got < 0) {
        cli_error("cannot read '%s': %s", path, strerror(errno));
        free(data);
        return -1;
    }
    out->data = data;
    out->size = (size_t)got; /* a file that shrank meanwhile gives what was there */
    return 0;
}

/* A pipe or device: grow the buffer as data comes, up to the limit. */
static int read_stream(int fd, const char *path, uint64_t max_bytes, cli_buffer *out)
{
    unsigned char *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        ptrdiff_t got;
        if (size == cap) {
            size_t new_cap = cap ? cap * 2 : (size_t)1 << 16;
            unsigned char *grown;
            if ((uint64_t)cap > max_bytes) {
                free(data);
                return too_large(path, max_bytes);
            }
            if ((uint64_t)new_cap > max_bytes + 1)
                new_cap = (size_t)(max_bytes + 1); /* one byte more tells "too large" */
            grown = realloc(data, new_cap);
            if (!grown) {
                free(data);
                cli_error("'%s': out of memory", path);
                return -1;
            }
            data = grown;
            cap = new_cap;
        }
        got = read_full(fd, data + size, cap - size);
        if (got < 0) {
            cli_error("cannot read '%s': %s", path, strerror(errno));
            free(data);
            return -1;
        }
        size += (size_t)got;
        if ((uint64_t)size > max_bytes) {
            free(data);
            return too_large(path, max_bytes);
        }
        if (size < cap)
            break; /* end of input */
    }
    out->data = data;
    out->size = size;
    return 0;
}

int cli_read_file(const char *path, uint64_t max_bytes, cli_buffer *out)
{
    int use_stdin = strcmp(path, "-") == 0;
    int fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    struct stat st;
    int rc;
    const char *name = use_stdin ? "standard input" : path;
    out->data = NULL;
    out->size = 0;
    if (fd < 0) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        cli_error("cannot read '%s': %s", name, strerror(errno));
        rc = -1;
    } else if (S_ISDIR(st.st_mode)) {
        cli_error("'%s' is a directory", name);
        rc = -1;
    } else if (S_ISREG(st.st_mode)) {
        rc = read_regular(fd, name, (uint64_t)st.st_size, max_bytes, out);
    } else {
        rc = read_stream(fd, name, max_bytes, out);
    }
    if (!use_stdin)
        close(fd);
    return rc;
}

/* Reads into buf (size *have, capacity cap), growing it as data comes, until want bytes or the
 * end of input: a stream is never trusted with an allocation larger than what it delivered. */
static int read_upto(int fd, const char *name, cli_buffer *buf, size_t want)
{
    size_t cap = buf->size;
    while (buf->size < want) {
        if (buf->size == cap) {
            size_t new_cap = cap < ((size_t)1 << 16) ? (size_t)1 << 16 : cap * 2;
            if (new_cap > want)
                new_cap = want;
            unsigned char *grown = realloc(buf->data, new_cap);
            if (!grown) {
                cli_error("'%s': out of memory", name);
                return -1;
            }
            buf->data = grown;
            cap = new_cap;
        }
        const ptrdiff_t got = read_full(fd, buf->data + buf->size, cap - buf->size);
        if (got < 0) {
            cli_error("cannot read '%s': %s", name, strerror(errno));
            return -1;
        }
        buf->size += (size_t)got;
        if (buf->size < cap)
            break; /* end of input */
    }
    return 0;
}

/* The largest header: 28 fixed bytes, six plane records of 16, the CRC (docs/FORMAT.md Sec. 1). */
#define HEADER_MAX 128u
/* What is read of a JPEG 2000 main header (markers up to the first tile-part) */
#define J2K_HEADER_MAX 65536u

/* regular: the input is a file of file_size bytes (a truncated one is allocated for what it holds,
 * whatever its header declares). */
static int read_codestream_fd(int fd, const char *name, int regular, uint64_t file_size,
                              uint64_t max_bytes, int header_only, cli_header_check accept,
                              void *ctx, cli_buffer *out, pcwt_header_info *info)
{
    pcwt_status st;
    if (read_upto(fd, name, out, HEADER_MAX) != 0)
        return -1;
    st = pcwt_read_header(out->data, out->size, info);
    /* a JPEG 2000 codestream (decoded by the library too) has a longer main header: read on */
    if (st == PCWT_ERR_TRUNCATED && out->size == HEADER_MAX && out->data[0] == 0xFF && out->data[1] == 0x4F) {
        if (read_upto(fd, name, out, J2K_HEADER_MAX) != 0)
            return -1;
        st = pcwt_read_header(out->data, out->size, info);
    }
    if (st != PCWT_OK) {
        cli_header_error(name, st);
        return -1;
    }
    if (accept && !accept(name, info, ctx))
        return -1;
    if (header_only && regular) /* a stream is read to its declared end, to tell its length */
        return 0;
    /* SIZE_MAX: the header does not tell the length (JPEG 2000 without visible tile-part lengths):
     * the whole input is the codestream */
    const int unknown = info->codestream_length == SIZE_MAX;
    if (max_bytes && (unknown ? regular && file_size > max_bytes : info->codestream_length > max_bytes))
        return too_large(name, max_bytes);
    if (regular) { /* the size is known: allocate once */
        size_t want = unknown ? (size_t)file_size : info->codestream_length;
        if (file_size < want)
            want = file_size > out->size ? (size_t)file_size : out->size;
        unsigned char *all = realloc(out->data, want ? want : 1);
        if (!all) {
            cli_error("'%s': out of memory reading %zu bytes", name, want);
            return -1;
        }
        out->data = all;
        const ptrdiff_t got = read_full(fd, all + out->size, want - out->size);
        if (got < 0) {
            cli_error("cannot read '%s': %s", name, strerror(errno));
            return -1;
        }
        out->size += (size_t)got;
        return 0;
    }
    return read_upto(fd, name, out, unknown && max_bytes ? (size_t)max_bytes : info->codestream_length);
}

int cli_read_codestream(const char *path, uint64_t max_bytes, int header_only,
                        cli_header_check accept, void *ctx, cli_buffer *out,
                        pcwt_header_info *info, uint64_t *file_size)
{
    const int use_stdin = strcmp(path, "-") == 0;
    const char *name = use_stdin ? "standard input" : path;
    const int fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    struct stat st;
    int rc = -1;
    out->data = NULL;
    out->size = 0;
    if (fd < 0) {
        cli_error("cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0)
        cli_error("cannot read '%s': %s", name, strerror(errno));
    else if (S_ISDIR(st.st_mode))
        cli_error("'%s' is a directory", name);
    else
        rc = read_codestream_fd(fd, name, S_ISREG(st.st_mode), (uint64_t)st.st_size, max_bytes,
                                header_only, accept, ctx, out, info);
    if (rc == 0 && file_size)
        *file_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : out->size;
    if (!use_stdin)
        close(fd);
    if (rc != 0)
        cli_buffer_free(out);
    return rc;
}

/* ---- all-or-nothing writes ------------------------------------------------------------------ */

/* The temporary file being written, removed by the signal handler if the user interrupts. */
static char *volatile g_temp_path;
static volatile sig_atomic_t g_temp_active;

static void remove_temp_and_die(int sig)
{
    if (g_temp_active)
        unlink(g_temp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Install (on) or restore (off) the handlers; signals the caller ignores (nohup) stay ignored. */
static void guard_signals(int on)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    static struct sigaction saved[sizeof sigs / sizeof sigs[0]];
    static int installed[sizeof sigs / sizeof sigs[0]];
    size_t k;
    for (k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        if (on) {
            struct sigaction sa;
            installed[k] = 0;
            if (sigaction(sigs[k], NULL, &saved[k]) != 0 || saved[k].sa_handler == SIG_IGN)
                continue;
            memset(&sa, 0, sizeof sa);
            sigemptyset(&sa.sa_mask);
            sa.sa_handler = remove_temp_and_die;
            installed[k] = sigaction(sigs[k], &sa, NULL) == 0;
        } else if (installed[k]) {
            sigaction(sigs[k], &saved[k], NULL);
            installed[k] = 0;
        }
    }
}

static int write_all(int fd, const unsigned char *src, size_t count)
{
    while (count > 0) {
        size_t want = count > ((size_t)1 << 30) ? (size_t)1 << 30 : count;
        ssize_t n = write(fd, src, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        src += n;
        count -= (size_t)n;
    }
    return 0;
}

/* Make the rename durable: fsync the folder holding path (best effort). */
static void sync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd;
    if (!slash) {
        dir = malloc(2);
        if (dir)
            memcpy(dir, ".", 2);
    } else {
        size_t len = slash == path ? 1 : (size_t)(slash - path);
        dir = malloc(len + 1);
        if (dir) {
            memcpy(dir, path, len);
            dir[len] = '\0';
        }
    }
    if (!dir)
        return;
    fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

/* "-": standard output. Nothing is written before the whole output is ready, but a reader
 * downstream may still see a partial stream if writing fails midway. */
static int write_stdout(const cli_chunk *chunks, size_t count)
{
    size_t k;
    for (k = 0; k < count; k++) {
        if (chunks[k].size > 0 && write_all(STDOUT_FILENO, chunks[k].data, chunks[k].size) != 0) {
            cli_error("cannot write to standard output: %s", strerror(errno));
            return -1;
        }
    }
    return 0;
}

int cli_write_file_atomic(const char *path, const cli_chunk *chunks, size_t count)
{
    static const char suffix[] = ".tmp.XXXXXX";
    size_t len = strlen(path);
    char *temp = malloc(len + sizeof suffix);
    mode_t mask;
    size_t k;
    int fd;
    const char *failed = NULL;
    int err = 0;

    if (strcmp(path, "-") == 0) {
        free(temp);
        return write_stdout(chunks, count);
    }
    if (!temp) {
        cli_error("out of memory");
        return -1;
    }
    memcpy(temp, path, len);
    memcpy(temp + len, suffix, sizeof suffix);

    g_temp_path = temp;
    guard_signals(1);
    fd = mkstemp(temp);
    if (fd < 0) {
        err = errno;
        guard_signals(0);
        cli_error("cannot create a temporary file beside '%s': %s", path, strerror(err));
        free(temp);
        return -1;
    }
    g_temp_active = 1;

    /* mkstemp makes the file 0600; give it the usual mode of a new file. */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, (mode_t)(0666 & ~mask)) != 0) {
        failed = "set the mode of";
        err = errno;
    }
    for (k = 0; !failed && k < count; k++) {
        if (chunks[k].size > 0 && write_all(fd, chunks[k].data, chunks[k].size) != 0) {
            failed = "write";
            err = errno;
        }
    }
    if (!failed && fsync(fd) != 0) {
        failed = "flush";
        err = errno;
    }
    if (close(fd) != 0 && !failed) {
        failed = "close";
        err = errno;
    }
    if (!failed && rename(temp, path) != 0) {
        cli_error("cannot replace '%s': %s", path, strerror(errno));
        failed = "";
    }
    if (failed) {
        unlink(temp);
        if (*failed)
            cli_error("cannot %s '%s': %s", failed, path, strerror(err));
    }
    g_temp_active = 0;
    guard_signals(0);
    free(temp);
    if (failed)
        return -1;
    sync_parent_dir(path);
    return 0;
}
