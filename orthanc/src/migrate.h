/*
 * migrate.h - (internal) pcwt-orthanc-compress: one plain file of a storage folder replaced, in
 * place, by its verified container. The file is read, coded and checked (the container decodes to
 * every byte read), the container written to a temporary file beside it and synced, and then the
 * two are exchanged atomically (renameat2 RENAME_EXCHANGE) only if the original is still the file
 * that was read (same inode, size and modification time): a file Orthanc removed meanwhile is not
 * brought back, and one still being written (younger than min_age seconds) is not touched.
 */
#ifndef PCWT_ORTHANC_MIGRATE_H
#define PCWT_ORTHANC_MIGRATE_H

#include <stdint.h>

#include "store.h"

typedef enum pco_migrate_outcome {
    PCO_MIGRATED = 0,   /* replaced by its container */
    PCO_ALREADY,        /* already a container */
    PCO_NOT_CODED,      /* kept as it is (not DICOM pixel data PCWT codes) */
    PCO_TOO_YOUNG,      /* modified less than min_age seconds ago */
    PCO_CHANGED,        /* changed or removed while it was being coded: left alone */
    PCO_FAILED          /* an error (msg says which); the original is untouched */
} pco_migrate_outcome;

/* decompress 1: the other way, a container replaced by its original (PCO_MIGRATED); a plain
 * file is then PCO_ALREADY. */
pco_migrate_outcome pco_migrate_file(pco_store *store, const char *path, int64_t min_age, int decompress,
                                     uint64_t *bytes_before, uint64_t *bytes_after, char *msg, size_t msg_size);

/* Remove a temporary file left by a killed run or writer, if older than min_age seconds.
 * 1 when removed. */
int pco_remove_stale_temp(const char *path, int64_t min_age);

#endif
