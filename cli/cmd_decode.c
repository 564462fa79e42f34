/* cmd_decode.c - pcwt decode: PCWT codestream in, raw or PGM/PPM samples out. */
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_commands.h"
#include "cli_report.h"
#include "file_io.h"
#include "pcwt.h"
#include "pnm_io.h"
#include "raw_io.h"

static int write_output(const char *path, const pcwt_image_desc *desc, unsigned char *samples,
                        size_t size)
{
    cli_chunk chunk;
    if (pnm_name_kind_of(path) != PNM_NAME_NONE)
        return pnm_write(path, desc, samples);
    raw_frame_to_file(desc, samples, size);
    chunk.data = samples;
    chunk.size = size;
    return cli_write_file_atomic(path, &chunk, 1);
}

/* Decode the codestream held in src (header already read into info) into out_path, within
 * max_memory bytes of decoder memory (what the decoder reports for the codestream; the input
 * buffer is the caller's). */
static int decode_to(const char *in_path, const char *out_path, const cli_buffer *src,
                     const pcwt_header_info *info, int have_backend, pcwt_backend backend,
                     uint64_t max_memory)
{
    pcwt_decoder *dec;
    pcwt_status st;
    unsigned char *samples = NULL;
    size_t size;
    int rc = CLI_EXIT_RUNTIME;

    if (pnm_name_kind_of(out_path) != PNM_NAME_NONE && pnm_check_writable(out_path, &info->desc))
        return CLI_EXIT_RUNTIME; /* refuse before the work, not after */
    size = pcwt_image_size(&info->desc);
    if (size == 0) {
        cli_error("'%s': header describes an invalid image", in_path);
        return CLI_EXIT_RUNTIME;
    }
    dec = pcwt_decoder_create();
    if (!dec) {
        cli_error("decode: out of memory");
        return CLI_EXIT_RUNTIME;
    }
    if (have_backend && (st = pcwt_decoder_set_backend(dec, backend)) != PCWT_OK) {
        cli_error("decode: backend: %s", cli_library_message(pcwt_decoder_last_error(dec), st));
        goto done;
    }
    if ((st = pcwt_decoder_set_memory_limit(dec, max_memory)) != PCWT_OK) {
        cli_error("decode: %s", cli_library_message(pcwt_decoder_last_error(dec), st));
        goto done;
    }
    samples = malloc(size);
    if (!samples) {
        cli_error("decode: out of memory (%llu bytes for the image)", (unsigned long long)size);
        goto done;
    }
    st = pcwt_decode(dec, src->data, src->size, samples, size);
    if (st != PCWT_OK) {
        cli_error("'%s': %s", in_path, cli_library_message(pcwt_decoder_last_error(dec), st));
        goto done;
    }
    if (write_output(out_path, &info->desc, samples, size) == 0)
        rc = CLI_EXIT_OK;
done:
    free(samples);
    pcwt_decoder_destroy(dec);
    return rc;
}

/* The header's memory bound against the budget, before the payload is read or the image
 * allocated (the decoder checks it again, without the input buffer held here). */
static int within_budget(const char *in_path, const pcwt_header_info *info, void *ctx)
{
    const uint64_t limit = *(const uint64_t *)ctx;
    const uint64_t mib = (uint64_t)1 << 20;
    const uint64_t bound = pcwt_decode_memory_bound(info);
    const uint64_t need = bound == UINT64_MAX ? bound : bound + info->codestream_length;
    if (need <= limit)
        return 1;
    if (bound == UINT64_MAX)
        cli_error("'%s': header describes an image of %ux%ux%u beyond the format's limits", in_path,
                  info->desc.width, info->desc.height, info->desc.components);
    else
        cli_error("'%s': decoding a %ux%u image needs %llu MiB, limit %llu MiB (see --max-memory)",
                  in_path, info->desc.width, info->desc.height,
                  (unsigned long long)((need + mib - 1) / mib), (unsigned long long)(limit / mib));
    return 0;
}

int cli_decode(int argc, char **argv)
{
    const char *positional[2] = {NULL, NULL};
    pcwt_backend backend = PCWT_BACKEND_AUTO;
    int have_backend = 0, npos = 0, ended = 0, i, rc;
    uint64_t max_memory = 0; /* 0: the library's default, from the machine */
    cli_buffer src;
    pcwt_header_info info;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        int kind = cli_arg_is_option(arg, &ended), m;
        if (kind < 0)
            continue;
        if (kind == 0) {
            if (npos == 2) {
                cli_error("decode: too many arguments ('%s'); see pcwt --help", arg);
                return CLI_EXIT_USAGE;
            }
            positional[npos++] = arg;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            cli_print_help(stdout);
            return CLI_EXIT_OK;
        } else if ((m = cli_option_value(argc, argv, &i, "max-memory", &val)) != 0) {
            if (m < 0 || cli_parse_bytes(val, "max-memory", &max_memory) != 0)
                return CLI_EXIT_USAGE;
        } else if ((m = cli_option_value(argc, argv, &i, "backend", &val)) != 0) {
            if (m < 0 || cli_parse_backend(val, &backend) != 0)
                return CLI_EXIT_USAGE;
            have_backend = 1;
        } else {
            cli_error("decode: unknown option '%s'; see pcwt --help", arg);
            return CLI_EXIT_USAGE;
        }
    }
    if (npos < 2) {
        cli_error("decode: needs an input and an output file: pcwt decode [options] IN OUT");
        return CLI_EXIT_USAGE;
    }
    if (!max_memory)
        max_memory = pcwt_default_memory_limit();
    /* the header first: a file that is no codestream, or a bomb, is refused before the rest */
    if (cli_read_codestream(positional[0], CLI_MAX_INPUT_BYTES, 0, within_budget, &max_memory,
                            &src, &info, NULL) != 0)
        return CLI_EXIT_RUNTIME;
    rc = decode_to(positional[0], positional[1], &src, &info, have_backend, backend,
                   max_memory > src.size ? max_memory - src.size : 1);
    cli_buffer_free(&src);
    return rc;
}
