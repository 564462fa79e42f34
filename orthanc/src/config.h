/*
 * config.h - (internal) the plugin's settings: the "PCWT" section of Orthanc's configuration.
 *
 *   "PCWT" : {
 *     "Enable" : true,                 // register the storage area (default false: installing
 *                                      // the package changes nothing until this is set)
 *     "StorageDirectory" : "/var/lib/orthanc/db-v6", // default: Orthanc's StorageDirectory
 *     "Profile" : "compact",           // baseline | entropy | compact (default: the library's, compact)
 *     "Backend" : "auto",              // auto | cpu | gpu
 *     "CompressDicom" : true,          // code the pixel data of DICOM attachments
 *     "MinimumPixelBytes" : 0,         // smaller pixel data is stored as it came
 *     "ReadPlainFiles" : true,         // read files stored without the plugin as they are
 *     "Sync" : true,                   // fsync each file and its folder before acknowledging
 *     "Mode" : "deferred",             // deferred: store as it comes, code in the background;
 *                                      // immediate: code and verify before acknowledging
 *     "DeferredThreads" : 0,           // background coders (0: one per CPU)
 *     "DeferredPriority" : "idle",     // idle: they use only CPU nothing else wants; normal
 *     "BatchWindowMs" : -1             // gather concurrent writes' frames this long into one
 *                                      // coding call (-1: 2 ms on the GPU, off on the CPU; 0: off)
 *   }
 */
#ifndef PCWT_ORTHANC_CONFIG_H
#define PCWT_ORTHANC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "pcwt.h"

typedef struct pco_config {
    int enable;
    char storage_dir[4096];
    pcwt_profile profile;
    pcwt_backend backend;
    int compress_dicom;
    uint64_t minimum_pixel_bytes;
    int read_plain_files;
    int sync;
    int deferred;             /* Mode "deferred" (1) or "immediate" (0) */
    unsigned deferred_threads; /* 0: one per CPU */
    int deferred_idle;        /* DeferredPriority "idle" (1) or "normal" (0) */
    int64_t batch_window_us;  /* -1: by the backend (batch.h) */
} pco_config;

/* Fill cfg from Orthanc's configuration (JSON text). 0, or -1 with msg naming the bad setting. */
int pco_config_parse(const char *json, pco_config *cfg, char *msg, size_t msg_size);

#endif
