/* pcwt_py_bench_decode REPEATS FILE...: the C side of bench/python/bench_decode.py. Decodes the
 * codestream files as a C program using the API would, with one decoder handle: per frame
 * pcwt_read_header, an output buffer malloc'ed, pcwt_decode, free (what pcwt.decode does from
 * Python); and all files together with pcwt_decode_batch. Prints the median time of REPEATS
 * passes of each, after one warm-up pass, in microseconds: "single US" (all files one by one) and
 * "batch US". */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c17 */
#include <pcwt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) != NULL &&
            fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *size = n > 0 ? (size_t)n : 0;
    }
    fclose(f);
    return buf;
}

static int pass_single(pcwt_decoder *dec, unsigned char **src, const size_t *size, int count)
{
    for (int i = 0; i < count; ++i) {
        pcwt_header_info info;
        if (pcwt_read_header(src[i], size[i], &info) != PCWT_OK)
            return 1;
        const size_t n = pcwt_image_size(&info.desc);
        void *dst = malloc(n);
        const pcwt_status st = dst ? pcwt_decode(dec, src[i], size[i], dst, n) : PCWT_ERR_OUT_OF_MEMORY;
        free(dst);
        if (st != PCWT_OK)
            return 1;
    }
    return 0;
}

static int pass_batch(pcwt_decoder *dec, unsigned char **src, const size_t *size, int count, pcwt_decode_job *jobs)
{
    int bad = 0;
    for (int i = 0; i < count; ++i) {
        pcwt_header_info info;
        if (pcwt_read_header(src[i], size[i], &info) != PCWT_OK)
            return 1;
        jobs[i] = (pcwt_decode_job){src[i], size[i], NULL, pcwt_image_size(&info.desc), PCWT_OK};
        jobs[i].dst = malloc(jobs[i].dst_capacity);
        bad |= jobs[i].dst == NULL;
    }
    if (!bad)
        bad = pcwt_decode_batch(dec, jobs, (size_t)count) != PCWT_OK;
    for (int i = 0; i < count; ++i)
        free(jobs[i].dst);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s REPEATS FILE...\n", argv[0]);
        return 2;
    }
    const int repeats = atoi(argv[1]), count = argc - 2;
    if (repeats < 1) {
        fprintf(stderr, "REPEATS must be at least 1\n");
        return 2;
    }
    unsigned char **src = calloc((size_t)count, sizeof *src);
    size_t *size = calloc((size_t)count, sizeof *size);
    pcwt_decode_job *jobs = calloc((size_t)count, sizeof *jobs);
    double *single = calloc((size_t)repeats, sizeof *single), *batch = calloc((size_t)repeats, sizeof *batch);
    pcwt_decoder *dec = pcwt_decoder_create();
    int rc = !src || !size || !jobs || !single || !batch || !dec;
    for (int i = 0; !rc && i < count; ++i)
        if (!(src[i] = read_file(argv[i + 2], &size[i]))) {
            fprintf(stderr, "cannot read %s\n", argv[i + 2]);
            rc = 1;
        }
    if (!rc)
        rc = pass_single(dec, src, size, count) || pass_batch(dec, src, size, count, jobs);
    for (int r = 0; !rc && r < repeats; ++r) {
        double t0 = now_us();
        rc = pass_single(dec, src, size, count);
        single[r] = now_us() - t0;
        t0 = now_us();
        rc = rc || pass_batch(dec, src, size, count, jobs);
        batch[r] = now_us() - t0;
    }
    if (rc) {
        fprintf(stderr, "decoding failed: %s\n", dec ? pcwt_decoder_last_error(dec) : "no decoder");
    } else {
        qsort(single, (size_t)repeats, sizeof *single, cmp_double);
        qsort(batch, (size_t)repeats, sizeof *batch, cmp_double);
        printf("single %.1f\nbatch %.1f\nbackend %s\n", single[repeats / 2], batch[repeats / 2],
               pcwt_backend_name(pcwt_decoder_backend(dec)));
    }
    for (int i = 0; src && i < count; ++i)
        free(src[i]);
    free(src);
    free(size);
    free(jobs);
    free(single);
    free(batch);
    pcwt_decoder_destroy(dec);
    return rc;
}
