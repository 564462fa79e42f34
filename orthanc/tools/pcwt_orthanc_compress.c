/*
 * pcwt-orthanc-compress - compresses an Orthanc storage folder in place: each plain DICOM file
 * whose pixel data PCWT codes is replaced by the container libpcwt_orthanc reads, after it was
 * verified (migrate.h says how a file is replaced). Safe to run while Orthanc (with the plugin)
 * serves the folder; one run per folder at a time (a lock); a killed run leaves every file either
 * as it was or replaced, and a second run goes on where it stopped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "migrate.h"
#include "storage_files.h"
#include "store.h"

#define LOCK_NAME ".pcwt-orthanc-compress.lock"

typedef struct totals {
    uint64_t files[PCO_FAILED + 1];
    uint64_t before, after;
    uint64_t done;
    uint64_t max_files;
    int64_t min_age;
    int verbose;
    int check;     /* --check: decode every container, change nothing */
    int decompress; /* --decompress: containers back to plain files */
    uint64_t checked, damaged;
} totals;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: pcwt-orthanc-compress [--profile baseline|entropy] [--backend auto|cpu|gpu]\n"
            "                             [--min-age SECONDS] [--max-files N] [--no-sync] [-v] STORAGE_DIR\n"
            "       pcwt-orthanc-compress --check STORAGE_DIR\n"
            "       pcwt-orthanc-compress --decompress [--min-age SECONDS] [--max-files N] STORAGE_DIR\n"
            "Compresses, in place, the DICOM files of an Orthanc storage folder (ROOT/ab/cd/UUID) that\n"
            "libpcwt_orthanc codes; every file is verified before it replaces its original.\n"
            "  --min-age SECONDS  leave files modified more recently alone (default 60)\n"
            "  --max-files N      stop after replacing N files (a later run goes on)\n"
            "  --check            decode every container and compare its checksums; change nothing\n"
            "                     (exit status 1 when a stored file is damaged)\n"
            "  --decompress       the way back to plain storage: every container replaced by its\n"
            "                     original, with the same checks\n");
}

static void *alloc_plain(void *user, uint64_t size)
{
    void **slot = user;
    *slot = malloc(size ? size : 1);
    return *slot;
}

static void check_file(pco_store *store, const char *path, totals *t)
{
    uint8_t *data = NULL, *original = NULL;
    size_t size = 0;
    int missing = 0;
    char msg[512];
    if (pco_read_file(path, &data, &size, &missing, msg, sizeof msg) != 0) {
        if (!missing) {
            fprintf(stderr, "pcwt-orthanc-compress: %s\n", msg);
            t->damaged++;
        }
        return;
    }
    t->checked++;
    t->before += size;
    if (pco_store_decode(store, data, size, alloc_plain, &original, msg, sizeof msg) != PCO_OK) {
        fprintf(stderr, "pcwt-orthanc-compress: %s: %s\n", path, msg);
        t->damaged++;
    }
    free(original);
    free(data);
}

typedef struct walk_state {
    pco_store *store;
    totals *t;
} walk_state;

static int visit(void *user, const char *path, const char *name)
{
    walk_state *w = user;
    totals *t = w->t;
    if (!name) {
        fprintf(stderr, "pcwt-orthanc-compress: cannot open %s: %s\n", path, strerror(errno));
        t->files[PCO_FAILED]++;
        return 0;
    }
    if (name[0] == '.' && strstr(name, PCO_TEMP_MARK)) {
        if (!t->check && pco_remove_stale_temp(path, t->min_age) && t->verbose) printf("removed left-over %s\n", path);
        return 0;
    }
    if (!pco_uuid_valid(name)) return 0;
    if (t->check) {
        check_file(w->store, path, t);
        return 0;
    }
    uint64_t before = 0, after = 0;
    char msg[512];
    pco_migrate_outcome o = pco_migrate_file(w->store, path, t->min_age, t->decompress, &before, &after, msg, sizeof msg);
    t->files[o]++;
    if (o == PCO_FAILED) fprintf(stderr, "pcwt-orthanc-compress: %s\n", msg);
    if (o == PCO_MIGRATED || o == PCO_ALREADY || o == PCO_NOT_CODED) {
        t->before += before;
        t->after += after;
    }
    if (o == PCO_MIGRATED) {
        if (t->verbose) printf("%s: %llu -> %llu bytes\n", path, (unsigned long long)before, (unsigned long long)after);
        if (t->max_files && ++t->done >= t->max_files) return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    pco_config cfg;
    char msg[512];
    if (pco_config_parse("{}", &cfg, msg, sizeof msg) != 0) return 2;
    totals t;
    memset(&t, 0, sizeof t);
    t.min_age = 60;
    const char *root = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t value = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else if (!strcmp(a, "-v")) t.verbose = 1;
        else if (!strcmp(a, "--no-sync")) cfg.sync = 0;
        else if (!strcmp(a, "--check")) t.check = 1;
        else if (!strcmp(a, "--decompress")) t.decompress = 1;
        else if ((!strcmp(a, "--profile") || !strcmp(a, "--backend")) && v) {
            pcwt_option opt = a[2] == 'p' ? PCWT_OPT_PROFILE : PCWT_OPT_BACKEND;
            if (pcwt_option_parse(opt, v, &value) != PCWT_OK) {
                char choices[64];
                pcwt_option_choices(opt, ", ", choices, sizeof choices);
                fprintf(stderr, "pcwt-orthanc-compress: %s '%s': expected %s\n", a, v, choices);
                return 2;
            }
            if (opt == PCWT_OPT_PROFILE) cfg.profile = (pcwt_profile)value;
            else cfg.backend = (pcwt_backend)value;
            ++i;
        } else if ((!strcmp(a, "--min-age") || !strcmp(a, "--max-files")) && v) {
            char *end = NULL;
            long long n = strtoll(v, &end, 10);
            if (!*v || *end || n < 0) {
                fprintf(stderr, "pcwt-orthanc-compress: %s '%s': expected a number >= 0\n", a, v);
                return 2;
            }
            if (a[6] == 'a') t.min_age = n;
            else t.max_files = (uint64_t)n;
            ++i;
        } else if (a[0] == '-' || root) {
            usage(stderr);
            return 2;
        } else {
            root = a;
        }
    }
    if (!root) { usage(stderr); return 2; }
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "pcwt-orthanc-compress: %s is not a folder\n", root);
        return 2;
    }
    snprintf(cfg.storage_dir, sizeof cfg.storage_dir, "%s", root);

    char lock_path[4200];
    snprintf(lock_path, sizeof lock_path, "%s/" LOCK_NAME, root);
    int lock = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "pcwt-orthanc-compress: %s: %s\n", lock_path,
                lock >= 0 ? "another run holds the folder" : strerror(errno));
        return 3;
    }
    pco_store *store = pco_store_create(&cfg, msg, sizeof msg);
    if (!store) {
        fprintf(stderr, "pcwt-orthanc-compress: %s\n", msg);
        return 2;
    }
    walk_state w = {store, &t};
    pco_walk_storage(root, visit, &w);
    pco_store_destroy(store);
    close(lock);
    if (t.check) {
        printf("checked %llu stored files (%llu bytes): %llu damaged\n", (unsigned long long)t.checked,
               (unsigned long long)t.before, (unsigned long long)t.damaged);
        return t.damaged ? 1 : 0;
    }
    printf("%s %llu, %s %llu, kept as they are %llu, too recent %llu, changed meanwhile %llu, "
           "failed %llu; %llu -> %llu bytes\n",
           t.decompress ? "decompressed" : "compressed", (unsigned long long)t.files[PCO_MIGRATED],
           t.decompress ? "already plain" : "already compressed", (unsigned long long)t.files[PCO_ALREADY],
           (unsigned long long)t.files[PCO_NOT_CODED], (unsigned long long)t.files[PCO_TOO_YOUNG],
           (unsigned long long)t.files[PCO_CHANGED], (unsigned long long)t.files[PCO_FAILED],
           (unsigned long long)t.before, (unsigned long long)t.after);
    return t.files[PCO_FAILED] ? 1 : 0;
}
