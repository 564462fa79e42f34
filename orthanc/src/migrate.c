/* migrate.c - one file of a storage folder compressed in place (migrate.h). */
#define _GNU_SOURCE
#include "migrate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "container.h"
#include "storage_files.h"

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int64_t age_of(const struct stat *st)
{
    return (int64_t)time(NULL) - (int64_t)st->st_mtim.tv_sec;
}

static pco_migrate_outcome failed(char *msg, size_t msg_size, const char *what, const char *path)
{
    snprintf(msg, msg_size, "%s %s: %s", what, path, strerror(errno));
    return PCO_FAILED;
}

/* The original was removed while its copy was made: the folders Orthanc's removal could not
 * remove (the copy was in them) are removed now when empty, as Orthanc would have. */
static void remove_empty_parents(const char *path)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    for (int level = 0; level < 2; ++level) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) return;
        *slash = '\0';
        if (rmdir(dir) != 0) return; /* not empty: another attachment lives there */
    }
}

static void *alloc_plain(void *user, uint64_t size)
{
    void **slot = user;
    *slot = malloc(size ? size : 1);
    return *slot;
}

pco_migrate_outcome pco_migrate_file(pco_store *store, const char *path, int64_t min_age, int decompress,
                                     uint64_t *bytes_before, uint64_t *bytes_after, char *msg, size_t msg_size)
{
    msg[0] = '\0';
    struct stat before;
    if (lstat(path, &before) != 0) return errno == ENOENT ? PCO_CHANGED : failed(msg, msg_size, "cannot stat", path);
    if (!S_ISREG(before.st_mode)) return PCO_NOT_CODED;
    if (age_of(&before) < min_age) return PCO_TOO_YOUNG;

    uint8_t *data = NULL;
    size_t size = 0;
    int missing = 0;
    if (pco_read_file(path, &data, &size, &missing, msg, msg_size) != 0) return missing ? PCO_CHANGED : PCO_FAILED;
    *bytes_before = size;
    *bytes_after = size;
    if (pco_is_container(data, size) != decompress) {
        free(data);
        return PCO_ALREADY;
    }
    uint8_t *stored = NULL;
    size_t stored_size = 0;
    if (decompress) {
        /* the original back, checked against its CRC-32 by the decoder */
        pco_result r = pco_store_decode(store, data, size, alloc_plain, &stored, msg, msg_size);
        uint64_t original = 0;
        char unused[8];
        pco_container_original_size(data, size, &original, unused, sizeof unused);
        free(data);
        if (r != PCO_OK) {
            free(stored);
            return PCO_FAILED;
        }
        stored_size = (size_t)original;
    } else {
        int coded = 0;
        pco_result r = pco_store_prepare(store, data, size, 1, &stored, &stored_size, &coded, msg, msg_size);
        free(data);
        if (r != PCO_OK) return PCO_FAILED;
        if (!coded) {
            free(stored);
            return PCO_NOT_CODED;
        }
    }

    /* The temporary file beside the original, synced before the exchange. */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s" PCO_TEMP_MARK "XXXXXX", path);
    char *slash = strrchr(tmp, '/');
    memmove(slash + 2, slash + 1, strlen(slash + 1) + 1); /* hidden: ".UUID.pcwt-tmp-XXXXXX" */
    slash[1] = '.';
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        free(stored);
        return failed(msg, msg_size, "cannot create a temporary file beside", path);
    }
    size_t off = 0;
    int err = 0;
    while (off < stored_size && !err) {
        ssize_t w = write(fd, stored + off, stored_size - off);
        if (w < 0 && errno != EINTR) err = errno;
        else if (w > 0) off += (size_t)w;
    }
    free(stored);
    if (!err && fchmod(fd, before.st_mode & 07777) != 0) err = errno;
    if (!err && fsync(fd) != 0) err = errno;
    if (close(fd) != 0 && !err) err = errno;
    if (err) {
        unlink(tmp);
        errno = err;
        return failed(msg, msg_size, "cannot write the copy of", path);
    }

    struct stat now;
    const int stat_rc = lstat(path, &now);
    if (stat_rc != 0 || !same_file(&before, &now)) {
        const int gone = stat_rc != 0 && errno == ENOENT;
        unlink(tmp);
        if (gone) remove_empty_parents(path);
        return PCO_CHANGED;
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) != 0) {
        int e = errno;
        unlink(tmp);
        if (e == ENOENT) remove_empty_parents(path);
        if (e == ENOENT) return PCO_CHANGED;
        errno = e;
        return failed(msg, msg_size, "cannot exchange", path);
    }
    /* tmp now names the original. Should it not be the file read (replaced in the instant
     * between the check and the exchange), exchange back. */
    struct stat old;
    if (lstat(tmp, &old) != 0 || !same_file(&before, &old)) {
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) unlink(tmp);
        return PCO_CHANGED;
    }
    if (pco_sync_parent(path) != 0) return failed(msg, msg_size, "cannot sync the folder of", path);
    unlink(tmp);
    *bytes_after = stored_size;
    return PCO_MIGRATED;
}

int pco_remove_stale_temp(const char *path, int64_t min_age)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || age_of(&st) < min_age) return 0;
    return unlink(path) == 0;
}
