/* config.c - the "PCWT" section of Orthanc's configuration (config.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "message.h"

static int get_bool(const pco_json *section, const char *key, int *out, char *msg, size_t msg_size)
{
    const pco_json *v = pco_json_member(section, key);
    if (!v) return 0;
    if (v->type != PCO_JSON_TRUE && v->type != PCO_JSON_FALSE)
        return pco_fail(msg, msg_size, "PCWT.%s: expected true or false", key);
    *out = v->type == PCO_JSON_TRUE;
    return 0;
}

static int get_string(const pco_json *section, const char *key, const char **out, char *msg, size_t msg_size)
{
    const pco_json *v = pco_json_member(section, key);
    if (!v) return 0;
    if (v->type != PCO_JSON_STRING) return pco_fail(msg, msg_size, "PCWT.%s: expected a string", key);
    *out = v->text;
    return 0;
}

/* An enum option by the library's value names ("entropy", "gpu", ...). */
static int get_option(const pco_json *section, const char *key, pcwt_option option, int64_t *out,
                      char *msg, size_t msg_size)
{
    const char *text = NULL;
    if (get_string(section, key, &text, msg, msg_size) != 0) return -1;
    if (!text) return 0;
    if (pcwt_option_parse(option, text, out) != PCWT_OK) {
        char choices[128];
        pcwt_option_choices(option, ", ", choices, sizeof choices);
        return pco_fail(msg, msg_size, "PCWT.%s '%s': expected %s", key, text, choices);
    }
    return 0;
}

int pco_config_parse(const char *json, pco_config *cfg, char *msg, size_t msg_size)
{
    memset(cfg, 0, sizeof *cfg);
    pcwt_encode_params defaults;
    pcwt_encode_params_default(&defaults);
    cfg->profile = defaults.profile; /* the library's default, as every tool's */
    cfg->backend = PCWT_BACKEND_AUTO;
    cfg->compress_dicom = 1;
    cfg->read_plain_files = 1;
    cfg->sync = 1;
    cfg->deferred = 1;
    cfg->deferred_idle = 1;
    cfg->batch_window_us = -1;
    snprintf(cfg->storage_dir, sizeof cfg->storage_dir, "OrthancStorage"); /* Orthanc's default */

    char err[160];
    pco_json *root = pco_json_parse(json, err, sizeof err);
    if (!root) return pco_fail(msg, msg_size, "configuration: %s", err);
    int rc = -1;
    const pco_json *orthanc_dir = pco_json_member(root, "StorageDirectory");
    if (orthanc_dir && orthanc_dir->type == PCO_JSON_STRING)
        snprintf(cfg->storage_dir, sizeof cfg->storage_dir, "%s", orthanc_dir->text);
    const pco_json *section = pco_json_member(root, "PCWT");
    if (!section) { rc = 0; goto done; }
    if (section->type != PCO_JSON_OBJECT) { pco_fail(msg, msg_size, "PCWT: expected an object"); goto done; }

    const char *dir = NULL;
    int64_t profile = cfg->profile, backend = cfg->backend;
    if (get_bool(section, "Enable", &cfg->enable, msg, msg_size) != 0 ||
        get_string(section, "StorageDirectory", &dir, msg, msg_size) != 0 ||
        get_option(section, "Profile", PCWT_OPT_PROFILE, &profile, msg, msg_size) != 0 ||
        get_option(section, "Backend", PCWT_OPT_BACKEND, &backend, msg, msg_size) != 0 ||
        get_bool(section, "CompressDicom", &cfg->compress_dicom, msg, msg_size) != 0 ||
        get_bool(section, "ReadPlainFiles", &cfg->read_plain_files, msg, msg_size) != 0 ||
        get_bool(section, "Sync", &cfg->sync, msg, msg_size) != 0)
        goto done;
    cfg->profile = (pcwt_profile)profile;
    cfg->backend = (pcwt_backend)backend;
    const char *mode = NULL;
    if (get_string(section, "Mode", &mode, msg, msg_size) != 0) goto done;
    if (mode) {
        if (strcmp(mode, "deferred") != 0 && strcmp(mode, "immediate") != 0) {
            pco_fail(msg, msg_size, "PCWT.Mode '%s': expected deferred or immediate", mode);
            goto done;
        }
        cfg->deferred = mode[0] == 'd';
    }
    const char *priority = NULL;
    if (get_string(section, "DeferredPriority", &priority, msg, msg_size) != 0) goto done;
    if (priority) {
        if (strcmp(priority, "idle") != 0 && strcmp(priority, "normal") != 0) {
            pco_fail(msg, msg_size, "PCWT.DeferredPriority '%s': expected idle or normal", priority);
            goto done;
        }
        cfg->deferred_idle = priority[0] == 'i';
    }
    const pco_json *threads = pco_json_member(section, "DeferredThreads");
    if (threads) {
        if (threads->type != PCO_JSON_NUMBER || threads->number < 0 || threads->number > 256 ||
            threads->number != (double)(unsigned)threads->number) {
            pco_fail(msg, msg_size, "PCWT.DeferredThreads: expected a whole number from 0 to 256");
            goto done;
        }
        cfg->deferred_threads = (unsigned)threads->number;
    }
    const pco_json *window = pco_json_member(section, "BatchWindowMs");
    if (window) {
        if (window->type != PCO_JSON_NUMBER || !(window->number == -1 || (window->number >= 0 && window->number <= 1000))) {
            pco_fail(msg, msg_size, "PCWT.BatchWindowMs: expected -1 or milliseconds from 0 to 1000");
            goto done;
        }
        cfg->batch_window_us = window->number < 0 ? -1 : (int64_t)(window->number * 1000.0 + 0.5);
    }
    const pco_json *min = pco_json_member(section, "MinimumPixelBytes");
    if (min) {
        if (min->type != PCO_JSON_NUMBER || min->number < 0 || min->number > 9.0e15) {
            pco_fail(msg, msg_size, "PCWT.MinimumPixelBytes: expected a number of bytes");
            goto done;
        }
        cfg->minimum_pixel_bytes = (uint64_t)min->number;
    }
    if (cfg->deferred && cfg->compress_dicom && !cfg->read_plain_files) {
        /* the deferred mode keeps each file plain until its coder gets to it */
        pco_fail(msg, msg_size, "PCWT.ReadPlainFiles false needs \"Mode\": \"immediate\"");
        goto done;
    }
    if (dir) {
        if (!dir[0]) { pco_fail(msg, msg_size, "PCWT.StorageDirectory is empty"); goto done; }
        snprintf(cfg->storage_dir, sizeof cfg->storage_dir, "%s", dir);
    }
    for (const pco_json *m = section->child; m; m = m->next) {
        static const char *const known[] = {"Enable", "StorageDirectory", "Profile", "Backend",
                                            "CompressDicom", "MinimumPixelBytes", "ReadPlainFiles", "Sync",
                                            "Mode", "DeferredThreads", "DeferredPriority", "BatchWindowMs"};
        int found = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i) found |= strcmp(m->key, known[i]) == 0;
        if (!found) { pco_fail(msg, msg_size, "PCWT.%s: unknown setting", m->key); goto done; }
    }
    rc = 0;
done:
    pco_json_free(root);
    return rc;
}
