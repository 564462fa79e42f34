/* storage_files.c - paths, atomic writes, reads and removals in a storage folder. */
#define _GNU_SOURCE
#include "storage_files.h"

#include "container.h"
#include "message.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pco_uuid_valid(const char *name)
{
    if (!name || strlen(name) != 36) return 0;
    for (int i = 0; i < 36; ++i) {
        char c = name[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-') return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

int pco_storage_path(const char *root, const char *uuid, char *path, size_t path_size)
{
    if (!pco_uuid_valid(uuid)) return -1;
    int n = snprintf(path, path_size, "%s/%.2s/%.2s/%s", root, uuid, uuid + 2, uuid);
    return n < 0 || (size_t)n >= path_size ? -1 : 0;
}

static void parent_of(const char *path, char *dir, size_t dir_size)
{
    snprintf(dir, dir_size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) *slash = '\0';
    else snprintf(dir, dir_size, "%s", slash ? "/" : ".");
}

int pco_sync_parent(const char *path)
{
    char dir[4096];
    parent_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* mkdir of the folder holding path and of its parent; a new folder is made durable by
 * syncing the folder it was made in. */
static int make_parents(const char *path, int sync)
{
    char dir[4096], up[4096];
    parent_of(path, dir, sizeof dir);
    parent_of(dir, up, sizeof up);
    const char *levels[2] = {up, dir};
    for (int i = 0; i < 2; ++i) {
        if (mkdir(levels[i], 0755) == 0) {
            if (sync && pco_sync_parent(levels[i]) != 0) return -1;
        } else if (errno != EEXIST) {
            return -1;
        }
    }
    return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int pco_write_atomic(const char *path, const void *data, size_t size, int sync, char *msg, size_t msg_size)
{
    char dir[4096], tmp[4200];
    parent_of(path, dir, sizeof dir);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int fd = -1;
    /* A removal of the last file of a folder removes the folder: made again when that raced. */
    for (int attempt = 0; fd < 0 && attempt < 3; ++attempt) {
        if (make_parents(path, sync) != 0)
            return pco_fail(msg, msg_size, "cannot create the folder of %s: %s", path, strerror(errno));
        snprintf(tmp, sizeof tmp, "%s/.%s" PCO_TEMP_MARK "XXXXXX", dir, base);
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0 && errno != ENOENT) break;
    }
    if (fd < 0) return pco_fail(msg, msg_size, "cannot create a temporary file in %s: %s", dir, strerror(errno));
    int err = 0;
    if (write_all(fd, data, size) != 0 || (sync && fsync(fd) != 0)) err = errno;
    if (fchmod(fd, 0644) != 0 && !err) err = errno;
    if (close(fd) != 0 && !err) err = errno;
    if (!err && rename(tmp, path) != 0) err = errno;
    if (err) {
        unlink(tmp);
        return pco_fail(msg, msg_size, "cannot write %s: %s", path, strerror(err));
    }
    if (sync && pco_sync_parent(path) != 0)
        return pco_fail(msg, msg_size, "cannot sync the folder of %s: %s", path, strerror(errno));
    return 0;
}

int pco_read_file(const char *path, uint8_t **data, size_t *size, int *missing, char *msg, size_t msg_size)
{
    *missing = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *missing = errno == ENOENT;
        return pco_fail(msg, msg_size, "cannot open %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pco_fail(msg, msg_size, "%s is not a regular file", path);
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        close(fd);
        return pco_fail(msg, msg_size, "out of memory reading %s", path);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            free(buf);
            close(fd);
            return pco_fail(msg, msg_size, "cannot read %s: %s", path, strerror(e));
        }
        got += (size_t)r;
    }
    close(fd);
    *data = buf;
    *size = n;
    return 0;
}

static int pread_all(int fd, uint8_t *dst, uint64_t length, uint64_t offset)
{
    while (length) {
        ssize_t r = pread(fd, dst, length > (1u << 30) ? (1u << 30) : (size_t)length, (off_t)offset);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        dst += r;
        length -= (uint64_t)r;
        offset += (uint64_t)r;
    }
    return 0;
}

int pco_read_plain_range(const char *path, uint64_t start, uint8_t *dst, uint64_t length, int *container,
                         int *missing, char *msg, size_t msg_size)
{
    *container = 0;
    *missing = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *missing = errno == ENOENT;
        return pco_fail(msg, msg_size, "cannot open %s: %s", path, strerror(errno));
    }
    struct stat st;
    uint8_t magic[PCO_MAGIC_LENGTH];
    int rc = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = pco_fail(msg, msg_size, "%s is not a regular file", path);
    } else if ((uint64_t)st.st_size >= PCO_MAGIC_LENGTH && pread_all(fd, magic, sizeof magic, 0) == 0 &&
               pco_is_container(magic, sizeof magic)) {
        *container = 1;
    } else if (start > (uint64_t)st.st_size || length > (uint64_t)st.st_size - start) {
        rc = pco_fail(msg, msg_size, "range beyond the end of %s", path);
    } else if (pread_all(fd, dst, length, start) != 0) {
        rc = pco_fail(msg, msg_size, "cannot read %s: %s", path, strerror(errno ? errno : EIO));
    }
    close(fd);
    return rc;
}

int pco_remove_file(const char *path, char *msg, size_t msg_size)
{
    if (unlink(path) != 0) return pco_fail(msg, msg_size, "cannot remove %s: %s", path, strerror(errno));
    char dir[4096], up[4096];
    parent_of(path, dir, sizeof dir);
    parent_of(dir, up, sizeof up);
    if (rmdir(dir) == 0) (void)rmdir(up); /* not empty: another attachment lives there */
    return 0;
}

static int is_hex2(const char *name)
{
    return strlen(name) == 2 && strspn(name, "0123456789abcdef") == 2;
}

static int walk_leaf(const char *dir, pco_walk_fn fn, void *user)
{
    DIR *d = opendir(dir);
    if (!d) return fn(user, dir, NULL);
    struct dirent *e;
    int stop = 0;
    while (!stop && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[4400];
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path) continue;
        stop = fn(user, path, e->d_name);
    }
    closedir(d);
    return stop;
}

int pco_walk_storage(const char *root, pco_walk_fn fn, void *user)
{
    DIR *d1 = opendir(root);
    if (!d1) return 0;
    struct dirent *a;
    int stop = 0;
    while (!stop && (a = readdir(d1)) != NULL) {
        if (!is_hex2(a->d_name)) continue;
        char level1[4200];
        snprintf(level1, sizeof level1, "%s/%s", root, a->d_name);
        DIR *d2 = opendir(level1);
        if (!d2) continue;
        struct dirent *b;
        while (!stop && (b = readdir(d2)) != NULL) {
            if (!is_hex2(b->d_name)) continue;
            char level2[4300];
            snprintf(level2, sizeof level2, "%s/%s", level1, b->d_name);
            struct stat st;
            if (lstat(level2, &st) != 0 || !S_ISDIR(st.st_mode)) continue; /* never through a link */
            stop = walk_leaf(level2, fn, user);
        }
        closedir(d2);
    }
    closedir(d1);
    return stop;
}
