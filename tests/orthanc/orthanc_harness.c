/*
 * orthanc_harness - drives libpcwt_orthanc.so without Orthanc: loads the plugin with a minimal
 * OrthancPluginContext that answers the services the plugin calls (its configuration, the log,
 * its description, the registration of the storage area, memory buffers), then calls the
 * registered storage callbacks as Orthanc does, from N threads at once: every file written,
 * read back whole and by ranges and compared byte for byte, then removed, the folder left empty.
 * For machines without Orthanc (the GPU machine) and for measuring the plugin's own speed.
 *
 * usage: orthanc_harness --plugin libpcwt_orthanc.so --storage DIR [--pcwt 'JSON members']
 *                        [--threads N] [--expect-log TEXT] [--wait-coded] [--keep] FILE|DIR...
 *   --pcwt       members of the "PCWT" section ("Enable": true is implied), e.g. '"Mode": "immediate"'
 *   --expect-log a line the plugin must log at start (e.g. "batched")
 *   --wait-coded in the deferred mode, wait until the background coders are idle and report
 *                the time from the first write
 *   --expect-coded      fail unless some files are stored coded (after --wait-coded)
 *   --skip-missing      exit 77 (a skip) when an input path does not exist
 *   --skip-without-gpu  exit 77 when this build has no CUDA backend or no device answers
 *   --clean             first remove what a killed earlier run left in the storage folder
 * Prints one line of figures; exit status 0 when every byte came back, 1 otherwise, 2 on usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <orthanc/OrthancCPlugin.h>

#include "pcwt.h"

typedef struct input {
    char path[4096];
    uint8_t *data;
    size_t size;
    char uuid[37];
} input;

static struct {
    char *config;
    OrthancPluginStorageCreate create;
    OrthancPluginStorageReadWhole read_whole;
    OrthancPluginStorageReadRange read_range;
    OrthancPluginStorageRemove remove;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char expect[256];
    int expect_seen;
    int deferred_seen; /* the plugin started in the deferred mode */
    int idle_seen;     /* its background coders logged they fell idle with every write done */
    input *inputs;
    size_t count;
    atomic_size_t next;
    atomic_int failures;
    int verbose;
} H = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void failure(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "orthanc_harness: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    atomic_fetch_add(&H.failures, 1);
}

static void log_line(const char *level, const char *text)
{
    pthread_mutex_lock(&H.lock);
    if (H.expect[0] && strstr(text, H.expect)) H.expect_seen = 1;
    if (strstr(text, "(Mode deferred)")) H.deferred_seen = 1;
    const char *idle = strstr(text, "background coding idle: ");
    unsigned long long queued = 0;
    /* every write of the deferred mode queues its file once: all of them done, all coded */
    if (idle && sscanf(idle, "background coding idle: %llu queued", &queued) == 1 && queued >= H.count) {
        H.idle_seen = 1;
        pthread_cond_broadcast(&H.cond);
    }
    pthread_mutex_unlock(&H.lock);
    if (H.verbose || level[0] != 'I') fprintf(stderr, "[%s] %s\n", level, text);
}

/* The services libpcwt_orthanc calls; any other is refused as Orthanc refuses unknown ones. */
static OrthancPluginErrorCode invoke(OrthancPluginContext *context, _OrthancPluginService service, const void *params)
{
    (void)context;
    switch (service) {
    case _OrthancPluginService_LogInfo: log_line("I", params); return OrthancPluginErrorCode_Success;
    case _OrthancPluginService_LogWarning: log_line("W", params); return OrthancPluginErrorCode_Success;
    case _OrthancPluginService_LogError: log_line("E", params); return OrthancPluginErrorCode_Success;
    case _OrthancPluginService_SetPluginProperty: return OrthancPluginErrorCode_Success;
    case _OrthancPluginService_GetConfiguration: {
        const _OrthancPluginRetrieveDynamicString *p = params;
        *p->result = strdup(H.config);
        return *p->result ? OrthancPluginErrorCode_Success : OrthancPluginErrorCode_NotEnoughMemory;
    }
    case _OrthancPluginService_RegisterStorageArea2: {
        const _OrthancPluginRegisterStorageArea2 *p = params;
        H.create = p->create;
        H.read_whole = p->readWhole;
        H.read_range = p->readRange;
        H.remove = p->remove;
        return OrthancPluginErrorCode_Success;
    }
    case _OrthancPluginService_CreateMemoryBuffer64: {
        const _OrthancPluginCreateMemoryBuffer64 *p = params;
        p->target->data = malloc(p->size ? p->size : 1);
        p->target->size = p->size;
        return p->target->data ? OrthancPluginErrorCode_Success : OrthancPluginErrorCode_NotEnoughMemory;
    }
    default:
        return OrthancPluginErrorCode_UnknownPluginService;
    }
}

static int read_input(const char *path, input *in)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) { fclose(f); return -1; }
    in->size = (size_t)st.st_size;
    in->data = malloc(in->size ? in->size : 1);
    int ok = in->data && fread(in->data, 1, in->size, f) == in->size;
    fclose(f);
    snprintf(in->path, sizeof in->path, "%s", path);
    return ok ? 0 : -1;
}

static void add_inputs(const char *path, input **list, size_t *count, size_t *cap)
{
    struct stat st;
    if (stat(path, &st) != 0) { failure("cannot read %s", path); return; }
    if (S_ISDIR(st.st_mode)) {
        struct dirent **names = NULL;
        int n = scandir(path, &names, NULL, alphasort);
        for (int i = 0; i < n; ++i) {
            if (names[i]->d_name[0] != '.') {
                char sub[4096];
                snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
                struct stat s2;
                size_t len = strlen(sub);
                if (stat(sub, &s2) == 0 && (S_ISDIR(s2.st_mode) || (len > 4 && !strcasecmp(sub + len - 4, ".dcm"))))
                    add_inputs(sub, list, count, cap);
            }
            free(names[i]);
        }
        free(names);
        return;
    }
    if (*count == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *list = realloc(*list, *cap * sizeof **list);
        if (!*list) { fprintf(stderr, "orthanc_harness: out of memory\n"); exit(2); }
    }
    if (read_input(path, &(*list)[*count]) != 0) failure("cannot read %s", path);
    else ++*count;
}

static void *write_worker(void *arg)
{
    (void)arg;
    size_t i;
    while ((i = atomic_fetch_add(&H.next, 1)) < H.count) {
        input *in = &H.inputs[i];
        OrthancPluginErrorCode e = H.create(in->uuid, in->data, (int64_t)in->size, OrthancPluginContentType_Dicom);
        if (e != OrthancPluginErrorCode_Success) failure("write of %s: error %d", in->path, (int)e);
    }
    return NULL;
}

static void *read_worker(void *arg)
{
    (void)arg;
    size_t i;
    while ((i = atomic_fetch_add(&H.next, 1)) < H.count) {
        input *in = &H.inputs[i];
        OrthancPluginMemoryBuffer64 whole = {0};
        OrthancPluginErrorCode e = H.read_whole(&whole, in->uuid, OrthancPluginContentType_Dicom);
        if (e != OrthancPluginErrorCode_Success) {
            failure("read of %s: error %d", in->path, (int)e);
            continue;
        }
        if (whole.size != in->size || memcmp(whole.data, in->data, in->size) != 0)
            failure("%s read back different", in->path);
        free(whole.data);
        /* ranges as Orthanc asks for them: the start (the tags), the middle, the end */
        const uint64_t starts[3] = {0, in->size / 2, in->size > 100 ? in->size - 100 : 0};
        for (int r = 0; r < 3; ++r) {
            uint64_t len = in->size - starts[r] < 1000 ? in->size - starts[r] : 1000;
            uint8_t *buf = malloc(len ? len : 1);
            OrthancPluginMemoryBuffer64 range = {buf, len};
            e = H.read_range(&range, in->uuid, OrthancPluginContentType_Dicom, starts[r]);
            if (e != OrthancPluginErrorCode_Success) failure("range %d of %s: error %d", r, in->path, (int)e);
            else if (memcmp(buf, in->data + starts[r], len) != 0) failure("range %d of %s read back different", r, in->path);
            free(buf);
        }
    }
    return NULL;
}

/* Why the GPU backend cannot run here, or NULL. */
static const char *gpu_missing(void)
{
    static char why[300];
    if (!pcwt_has_cuda()) return "this build has no CUDA backend";
    pcwt_decoder *d = pcwt_decoder_create();
    if (!d) return "out of memory";
    const char *r = NULL;
    if (pcwt_decoder_set_backend(d, PCWT_BACKEND_GPU) != PCWT_OK) {
        snprintf(why, sizeof why, "no usable CUDA device: %s", pcwt_decoder_last_error(d));
        r = why;
    }
    pcwt_decoder_destroy(d);
    return r;
}

static double run_threads(void *(*fn)(void *), unsigned threads)
{
    pthread_t *t = calloc(threads, sizeof *t);
    atomic_store(&H.next, 0);
    double t0 = now_s();
    unsigned started = 0;
    for (unsigned i = 0; i < threads; ++i) started += pthread_create(&t[i], NULL, fn, NULL) == 0;
    for (unsigned i = 0; i < started; ++i) pthread_join(t[i], NULL);
    free(t);
    return now_s() - t0;
}

static uint64_t folder_bytes(const char *root, uint64_t *files, uint64_t *containers)
{
    uint64_t total = 0;
    DIR *d = opendir(root);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", root, e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            total += folder_bytes(p, files, containers);
        } else if (S_ISREG(st.st_mode) && strlen(e->d_name) == 36) {
            total += (uint64_t)st.st_size;
            ++*files;
            char magic[8] = {0};
            FILE *f = fopen(p, "rb");
            if (f && fread(magic, 1, 8, f) == 8 && !memcmp(magic, "PCWTORC1", 8)) ++*containers;
            if (f) fclose(f);
        }
    }
    closedir(d);
    return total;
}

/* --clean: what a killed earlier run left in the storage folder (attachment files, temporary
 * files, the deferred mode's marker, the empty folders), nothing else. */
static void clean_folder(const char *root, int depth)
{
    DIR *d = opendir(root);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", root, e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0) continue;
        if (depth < 2 && S_ISDIR(st.st_mode) && strlen(e->d_name) == 2) {
            clean_folder(p, depth + 1);
            rmdir(p);
        } else if (S_ISREG(st.st_mode) && ((depth == 2 && (strlen(e->d_name) == 36 || strstr(e->d_name, ".pcwt-tmp-"))) ||
                                           (depth == 0 && !strcmp(e->d_name, ".pcwt-deferred-clean")))) {
            unlink(p);
        }
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    const char *plugin = NULL, *storage = NULL, *pcwt = "";
    unsigned threads = 4;
    int wait_coded = 0, keep = 0, expect_coded = 0, skip_missing = 0, need_gpu = 0, clean = 0;
    input *list = NULL;
    size_t cap = 0;
    const char **paths = calloc((size_t)argc, sizeof *paths); /* the inputs, read after the checks */
    int npaths = 0;
    if (!paths) return 2;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--plugin") && v) plugin = argv[++i];
        else if (!strcmp(a, "--storage") && v) storage = argv[++i];
        else if (!strcmp(a, "--pcwt") && v) pcwt = argv[++i];
        else if (!strcmp(a, "--threads") && v) threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--expect-log") && v) snprintf(H.expect, sizeof H.expect, "%s", argv[++i]);
        else if (!strcmp(a, "--wait-coded")) wait_coded = 1;
        else if (!strcmp(a, "--keep")) keep = 1;
        else if (!strcmp(a, "--clean")) clean = 1;
        else if (!strcmp(a, "--expect-coded")) expect_coded = 1;
        else if (!strcmp(a, "--skip-missing")) skip_missing = 1;
        else if (!strcmp(a, "--skip-without-gpu")) need_gpu = 1;
        else if (!strcmp(a, "-v")) H.verbose = 1;
        else if (a[0] == '-') {
            fprintf(stderr, "orthanc_harness: unknown option %s\n", a);
            free(paths);
            return 2;
        }
        else if (skip_missing && access(a, R_OK) != 0) {
            printf("SKIPPED: %s is missing (the shared corpus)\n", a);
            free(paths);
            return 77;
        } else paths[npaths++] = a;
    }
    if (need_gpu) {
        const char *why = gpu_missing();
        if (why) {
            printf("SKIPPED: %s\n", why);
            free(paths);
            return 77;
        }
    }
    for (int i = 0; i < npaths; ++i) add_inputs(paths[i], &list, &H.count, &cap);
    free(paths);
    if (!plugin || !storage || threads == 0 || threads > 256 || H.count == 0) {
        fprintf(stderr, "usage: orthanc_harness --plugin SO --storage DIR [--pcwt JSON] [--threads N] "
                        "[--expect-log TEXT] [--wait-coded] [--keep] FILE|DIR...\n");
        return 2;
    }
    H.inputs = list;
    if (clean) clean_folder(storage, 0);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    for (size_t i = 0; i < H.count; ++i) /* the form Orthanc gives attachment names */
        snprintf(list[i].uuid, sizeof list[i].uuid, "%08x-%04x-4%03x-8%03x-%012llx", (unsigned)rand(),
                 (unsigned)rand() & 0xffffu, (unsigned)rand() & 0xfffu, (unsigned)rand() & 0xfffu,
                 (unsigned long long)i & 0xffffffffffffull);
    size_t need = strlen(storage) + strlen(pcwt) + 128;
    H.config = malloc(need);
    snprintf(H.config, need, "{\"StorageDirectory\": \"%s\", \"PCWT\": {\"Enable\": true%s%s}}", storage,
             pcwt[0] ? ", " : "", pcwt);

    void *so = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
    if (!so) { fprintf(stderr, "orthanc_harness: %s\n", dlerror()); return 2; }
    int32_t (*init)(OrthancPluginContext *) = NULL;
    void (*finalize)(void) = NULL;
    void *sym_init = dlsym(so, "OrthancPluginInitialize"), *sym_finalize = dlsym(so, "OrthancPluginFinalize");
    memcpy(&init, &sym_init, sizeof init); /* POSIX: dlsym's object pointer names the function */
    memcpy(&finalize, &sym_finalize, sizeof finalize);
    if (!init || !finalize) { fprintf(stderr, "orthanc_harness: %s is not an Orthanc plugin\n", plugin); return 2; }
    OrthancPluginContext context = {NULL, "1.10.1", free, invoke};
    if (init(&context) != 0 || !H.create) {
        fprintf(stderr, "orthanc_harness: the plugin did not start (see its log above)\n");
        return 1;
    }
    if (H.expect[0] && !H.expect_seen) failure("the plugin did not log '%s' at start", H.expect);

    uint64_t bytes = 0;
    for (size_t i = 0; i < H.count; ++i) bytes += H.inputs[i].size;
    double t0 = now_s();
    double write_s = run_threads(write_worker, threads);
    double coded_s = -1;
    if (wait_coded && !H.deferred_seen) coded_s = write_s; /* immediate: coded when written */
    if (wait_coded && H.deferred_seen) {
        pthread_mutex_lock(&H.lock);
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 600;
        while (!H.idle_seen)
            if (pthread_cond_timedwait(&H.cond, &H.lock, &deadline) != 0) break;
        int idle = H.idle_seen;
        pthread_mutex_unlock(&H.lock);
        if (!idle) failure("the background coders did not become idle within 600 s");
        coded_s = now_s() - t0;
    }
    uint64_t files = 0, containers = 0;
    uint64_t stored = folder_bytes(storage, &files, &containers);
    if (expect_coded && containers == 0) failure("no file was stored coded");
    double read_s = run_threads(read_worker, threads);
    if (!keep) {
        for (size_t i = 0; i < H.count; ++i)
            if (H.remove(H.inputs[i].uuid, OrthancPluginContentType_Dicom) != OrthancPluginErrorCode_Success)
                failure("remove of %s failed", H.inputs[i].path);
    }
    finalize();
    if (!keep) {
        uint64_t left = 0, unused = 0;
        folder_bytes(storage, &left, &unused);
        if (left) failure("%llu files left in %s after every removal", (unsigned long long)left, storage);
    }
    printf("files %zu, bytes %llu, stored %llu (%llu containers, ratio %.3f), threads %u, write %.3f s "
           "(%.1f files/s, %.1f MB/s), coded after %.3f s, read %.3f s, failures %d\n",
           H.count, (unsigned long long)bytes, (unsigned long long)stored, (unsigned long long)containers,
           stored ? (double)bytes / (double)stored : 0.0, threads, write_s, (double)H.count / write_s,
           (double)bytes / write_s / 1e6, coded_s, read_s, atomic_load(&H.failures));
    for (size_t i = 0; i < H.count; ++i) free(H.inputs[i].data);
    free(H.inputs);
    free(H.config);
    dlclose(so);
    return atomic_load(&H.failures) ? 1 : 0;
}
