/*
 * plugin.c - libpcwt_orthanc: Orthanc's entry points and the storage area callbacks
 * (OrthancPluginRegisterStorageArea2). Orthanc's callbacks carry no user pointer, so the plugin's
 * one context object (the Orthanc context and the store) lives in this file; it is set in
 * OrthancPluginInitialize before the callbacks are registered and cleared in OrthancPluginFinalize.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orthanc/OrthancCPlugin.h>

#include "config.h"
#include "deferred.h"
#include "store.h"

#define PCO_PLUGIN_NAME "pcwt-storage"
#define PCO_PLUGIN_VERSION PCWT_VERSION_STRING

typedef struct plugin_context {
    OrthancPluginContext *orthanc;
    pco_store *store;
    pco_deferred *deferred; /* the background coders (Mode "deferred") */
} plugin_context;

static plugin_context g_plugin; /* the plugin's context object (see above) */

static void log_error(const char *what, const char *uuid, const char *msg)
{
    char line[1024]; /* longer than what + uuid + a message: never cut */
    if (snprintf(line, sizeof line, "PCWT storage: %s %s: %s", what, uuid, msg) < 0) return;
    OrthancPluginLogError(g_plugin.orthanc, line);
}

static void log_line(void *user, int warning, const char *line)
{
    (void)user;
    if (warning) OrthancPluginLogWarning(g_plugin.orthanc, line);
    else OrthancPluginLogInfo(g_plugin.orthanc, line); /* with --verbose */
}

static OrthancPluginErrorCode error_of(pco_result r)
{
    switch (r) {
    case PCO_OK: return OrthancPluginErrorCode_Success;
    case PCO_ERR_MISSING: return OrthancPluginErrorCode_InexistentFile;
    case PCO_ERR_MEMORY: return OrthancPluginErrorCode_NotEnoughMemory;
    case PCO_ERR_DAMAGED: return OrthancPluginErrorCode_CorruptedFile;
    case PCO_ERR_REFUSED: return OrthancPluginErrorCode_StorageAreaPlugin;
    case PCO_ERR_IO: return OrthancPluginErrorCode_FileStorageCannotWrite;
    }
    return OrthancPluginErrorCode_StorageAreaPlugin;
}

static OrthancPluginErrorCode storage_create(const char *uuid, const void *content, int64_t size,
                                             OrthancPluginContentType type)
{
    char msg[512];
    if (size < 0) return OrthancPluginErrorCode_ParameterOutOfRange;
    pco_result r = pco_store_write(g_plugin.store, uuid, content, (size_t)size,
                                   type == OrthancPluginContentType_Dicom, msg, sizeof msg);
    if (r != PCO_OK) log_error("cannot store", uuid, msg);
    return error_of(r);
}

typedef struct read_target {
    OrthancPluginMemoryBuffer64 *buffer;
} read_target;

static void *alloc_target(void *user, uint64_t size)
{
    read_target *t = user;
    if (OrthancPluginCreateMemoryBuffer64(g_plugin.orthanc, t->buffer, size) != OrthancPluginErrorCode_Success)
        return NULL;
    return t->buffer->data ? t->buffer->data : (void *)t->buffer;
}

static OrthancPluginErrorCode storage_read_whole(OrthancPluginMemoryBuffer64 *target, const char *uuid,
                                                 OrthancPluginContentType type)
{
    (void)type;
    char msg[512];
    read_target t = {target};
    pco_result r = pco_store_read(g_plugin.store, uuid, alloc_target, &t, msg, sizeof msg);
    if (r != PCO_OK) {
        log_error("cannot read", uuid, msg);
        if (target->data) OrthancPluginFreeMemoryBuffer64(g_plugin.orthanc, target); /* Orthanc frees only on success */
        target->data = NULL;
        target->size = 0;
    }
    return error_of(r);
}

static OrthancPluginErrorCode storage_read_range(OrthancPluginMemoryBuffer64 *target, const char *uuid,
                                                 OrthancPluginContentType type, uint64_t start)
{
    (void)type;
    char msg[512];
    snprintf(msg, sizeof msg, "PCWT storage: range %llu+%llu of %s", (unsigned long long)start,
             (unsigned long long)target->size, uuid);
    OrthancPluginLogInfo(g_plugin.orthanc, msg); /* with --verbose */
    pco_result r = pco_store_read_range(g_plugin.store, uuid, start, target->data, target->size, msg, sizeof msg);
    if (r != PCO_OK) log_error("cannot read a range of", uuid, msg);
    return error_of(r);
}

static OrthancPluginErrorCode storage_remove(const char *uuid, OrthancPluginContentType type)
{
    (void)type;
    char msg[512];
    pco_result r = pco_store_remove(g_plugin.store, uuid, msg, sizeof msg);
    if (r != PCO_OK) log_error("cannot remove", uuid, msg);
    return error_of(r);
}

ORTHANC_PLUGINS_API int32_t OrthancPluginInitialize(OrthancPluginContext *context)
{
    g_plugin.orthanc = context;
    if (OrthancPluginCheckVersion(context) == 0) {
        char line[256];
        snprintf(line, sizeof line, "PCWT storage: Orthanc %s is older than the SDK this plugin was built with (%d.%d.%d)",
                 context->orthancVersion, ORTHANC_PLUGINS_MINIMAL_MAJOR_NUMBER,
                 ORTHANC_PLUGINS_MINIMAL_MINOR_NUMBER, ORTHANC_PLUGINS_MINIMAL_REVISION_NUMBER);
        OrthancPluginLogError(context, line);
        return -1;
    }
    OrthancPluginSetDescription(context, "Stores DICOM pixel data losslessly as PCWT (bytes given back exactly)");

    char *json = OrthancPluginGetConfiguration(context);
    if (!json) {
        OrthancPluginLogError(context, "PCWT storage: cannot read Orthanc's configuration");
        return -1;
    }
    pco_config cfg;
    char msg[512];
    int rc = pco_config_parse(json, &cfg, msg, sizeof msg);
    OrthancPluginFreeString(context, json);
    if (rc != 0) {
        char line[640];
        snprintf(line, sizeof line, "PCWT storage: %s", msg);
        OrthancPluginLogError(context, line);
        return -1;
    }
    if (!cfg.enable) {
        OrthancPluginLogWarning(context, "PCWT storage: disabled (set \"PCWT\": {\"Enable\": true} to use it)");
        return 0;
    }
    g_plugin.store = pco_store_create(&cfg, msg, sizeof msg);
    if (!g_plugin.store) {
        char line[640];
        snprintf(line, sizeof line, "PCWT storage: %s", msg);
        OrthancPluginLogError(context, line);
        return -1;
    }
    if (cfg.deferred && cfg.compress_dicom) {
        g_plugin.deferred = pco_deferred_start(g_plugin.store, cfg.deferred_threads, cfg.deferred_idle, log_line, NULL, msg, sizeof msg);
        if (!g_plugin.deferred) {
            char line[640];
            snprintf(line, sizeof line, "PCWT storage: %s", msg);
            OrthancPluginLogError(context, line);
            pco_store_destroy(g_plugin.store);
            g_plugin.store = NULL;
            return -1;
        }
    }
    OrthancPluginRegisterStorageArea2(context, storage_create, storage_read_whole, storage_read_range, storage_remove);
    char line[4400];
    snprintf(line, sizeof line,
             "PCWT storage: files in %s, DICOM pixel data %s (profile %s, backend %s%s), plain files %s",
             cfg.storage_dir,
             !cfg.compress_dicom ? "stored as it comes"
             : cfg.deferred      ? "stored as it comes and coded in the background (Mode deferred)"
                                 : "coded before each write is acknowledged (Mode immediate)",
             pcwt_profile_name(cfg.profile), pcwt_backend_name(cfg.backend),
             pco_store_batching(g_plugin.store) ? ", concurrent writes batched" : "",
             cfg.read_plain_files ? "read as they are" : "refused");
    OrthancPluginLogWarning(context, line);
    return 0;
}

ORTHANC_PLUGINS_API void OrthancPluginFinalize(void)
{
    pco_deferred_stop(g_plugin.deferred); /* each coder finishes its file */
    g_plugin.deferred = NULL;
    if (g_plugin.store && pco_store_batching(g_plugin.store)) {
        unsigned long long batches = 0, frames = 0;
        pco_store_batch_counts(g_plugin.store, &batches, &frames);
        char line[200];
        snprintf(line, sizeof line, "PCWT storage: %llu frames of concurrent writes coded in %llu batches", frames,
                 batches);
        OrthancPluginLogWarning(g_plugin.orthanc, line);
    }
    pco_store_destroy(g_plugin.store);
    g_plugin.store = NULL;
}

ORTHANC_PLUGINS_API const char *OrthancPluginGetName(void) { return PCO_PLUGIN_NAME; }

ORTHANC_PLUGINS_API const char *OrthancPluginGetVersion(void) { return PCO_PLUGIN_VERSION; }
