/*
 * storage_files.h - (internal) the files of a storage folder, laid out as Orthanc's own
 * filesystem storage lays them out (ROOT/ab/cd/abcd...-uuid), so that a folder Orthanc wrote
 * without the plugin is read by it and the other way round. Writes are atomic: a temporary file
 * in the same folder (".UUID.pcwt-tmp-XXXXXX"), fsync, rename, fsync of the folder.
 */
#ifndef PCWT_ORTHANC_STORAGE_FILES_H
#define PCWT_ORTHANC_STORAGE_FILES_H

#include <stddef.h>
#include <stdint.h>

/* The marker of temporary files (the plugin's and pcwt-orthanc-compress's). */
#define PCO_TEMP_MARK ".pcwt-tmp-"

/* 1 when name is an attachment name Orthanc makes: 36 characters, lowercase hex and dashes in the
 * UUID's places. Anything else is refused before it becomes a path. */
int pco_uuid_valid(const char *name);

/* ROOT/ab/cd/UUID into path. -1 when the uuid is not valid or the path does not fit. */
int pco_storage_path(const char *root, const char *uuid, char *path, size_t path_size);

/* Write data to path atomically (creating the two folder levels as needed). With sync 0 the
 * fsyncs are left out (the operating system's cache decides when). 0 or -1 with msg. */
int pco_write_atomic(const char *path, const void *data, size_t size, int sync, char *msg, size_t msg_size);

/* The whole file (malloc'd, *size its length; never through a symbolic link). 0, or -1 with msg;
 * *missing is set to 1 when the file does not exist. */
int pco_read_file(const char *path, uint8_t **data, size_t *size, int *missing, char *msg, size_t msg_size);

/* length bytes from start of a plain file into dst, reading no more than that; *container is set
 * to 1 (and nothing copied) when the file is a container, which must be read whole. 0, or -1 with
 * msg (*missing as above). */
int pco_read_plain_range(const char *path, uint64_t start, uint8_t *dst, uint64_t length, int *container,
                         int *missing, char *msg, size_t msg_size);

/* Remove path and then the two folder levels above it when they are empty, as Orthanc does. */
int pco_remove_file(const char *path, char *msg, size_t msg_size);

/* Every entry of the leaf folders ROOT/ab/cd/ (never through a symbolic link), in directory
 * order: fn(user, path, name) for each; the walk stops when fn returns non-zero. A leaf folder
 * that cannot be opened goes to fn with name NULL (path the folder). Returns fn's last result. */
typedef int (*pco_walk_fn)(void *user, const char *path, const char *name);
int pco_walk_storage(const char *root, pco_walk_fn fn, void *user);

/* fsync the folder holding path (after a rename in it). */
int pco_sync_parent(const char *path);

#endif
