/* cmd_encode.c - pcwt encode: raw or PGM/PPM samples in, PCWT codestream out. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_commands.h"
#include "cli_report.h"
#include "file_io.h"
#include "pcwt.h"
#include "pnm_io.h"
#include "raw_io.h"

typedef struct encode_opts {
    const char *in, *out;
    uint32_t width, height, bits, bits_stored, components;
    int have_width, have_height, have_bits, have_bits_stored, have_components;
    int is_signed, planar;
    uint32_t levels, group_rows, group_cols;
    /* the encoder's options in command-line order, set with pcwt_encoder_set_option */
    struct {
        pcwt_option option;
        int64_t value;
    } set[16];
    size_t nset;
} encode_opts;

static void push_option(encode_opts *o, pcwt_option option, int64_t value)
{
    if (o->nset < sizeof o->set / sizeof o->set[0]) {
        o->set[o->nset].option = option;
        o->set[o->nset++].value = value;
    }
}

#define PARSE_HELP (-1)

/* Parse the command line into o. Returns 0, PARSE_HELP, or CLI_EXIT_USAGE (error printed). */
static int parse_args(int argc, char **argv, encode_opts *o)
{
    struct {
        const char *name;
        uint32_t min, max;
        uint32_t *dst;
        int *have;
    } const numbers[] = {
        {"width", 1, UINT32_MAX, &o->width, &o->have_width},
        {"height", 1, UINT32_MAX, &o->height, &o->have_height},
        {"bits", 8, 16, &o->bits, &o->have_bits},
        {"bits-stored", 1, 16, &o->bits_stored, &o->have_bits_stored},
        {"components", 1, 3, &o->components, &o->have_components},
        {"levels", 0, PCWT_MAX_LEVELS, &o->levels, NULL},
    };
    static const pcwt_option named[] = {PCWT_OPT_PROFILE, PCWT_OPT_COLOUR_TRANSFORM,
                                        PCWT_OPT_LOW_BITS, PCWT_OPT_VALUE_MAP, PCWT_OPT_LIFTING_ORDER,
                                        PCWT_OPT_LEVEL1_FILTER, PCWT_OPT_OFFSET, PCWT_OPT_SECOND_BIT,
                                        PCWT_OPT_BACKEND};
    const char *positional[2] = {NULL, NULL};
    int npos = 0, ended = 0, i;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        int kind = cli_arg_is_option(arg, &ended), m;
        size_t k;
        if (kind < 0)
            continue;
        if (kind == 0) {
            if (npos == 2) {
                cli_error("encode: too many arguments ('%s'); see pcwt --help", arg);
                return CLI_EXIT_USAGE;
            }
            positional[npos++] = arg;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return PARSE_HELP;
        for (k = 0; k < sizeof numbers / sizeof numbers[0]; k++) {
            m = cli_option_value(argc, argv, &i, numbers[k].name, &val);
            if (m < 0)
                return CLI_EXIT_USAGE;
            if (m > 0)
                break;
        }
        if (k < sizeof numbers / sizeof numbers[0]) {
            if (cli_parse_u32(val, numbers[k].name, numbers[k].min, numbers[k].max,
                              numbers[k].dst) != 0)
                return CLI_EXIT_USAGE;
            if (numbers[k].have)
                *numbers[k].have = 1;
            if (numbers[k].dst == &o->levels)
                push_option(o, PCWT_OPT_LEVELS, o->levels);
            continue;
        }
        if ((m = cli_option_value(argc, argv, &i, "group", &val)) != 0) {
            if (m < 0 || cli_parse_group(val, &o->group_rows, &o->group_cols) != 0)
                return CLI_EXIT_USAGE;
            push_option(o, PCWT_OPT_GROUP_ROWS, o->group_rows);
            push_option(o, PCWT_OPT_GROUP_COLS, o->group_cols);
            continue;
        }
        /* the options named as the library names them, their values parsed by the library */
        for (k = 0; k < sizeof named / sizeof named[0]; k++) {
            m = cli_option_value(argc, argv, &i, pcwt_option_name(named[k]), &val);
            if (m < 0)
                return CLI_EXIT_USAGE;
            if (m > 0)
                break;
        }
        if (k < sizeof named / sizeof named[0]) {
            int64_t v = 0;
            if (cli_parse_option(named[k], val, &v) != 0)
                return CLI_EXIT_USAGE;
            push_option(o, named[k], v);
            continue;
        }
        if ((m = cli_option_flag(arg, "signed")) != 0) {
            if (m < 0)
                return CLI_EXIT_USAGE;
            o->is_signed = 1;
            continue;
        }
        if ((m = cli_option_flag(arg, "planar")) != 0) {
            if (m < 0)
                return CLI_EXIT_USAGE;
            o->planar = 1;
            continue;
        }
        cli_error("encode: unknown option '%s'; see pcwt --help", arg);
        return CLI_EXIT_USAGE;
    }
    if (npos < 2) {
        cli_error("encode: needs an input and an output file: pcwt encode [options] IN OUT");
        return CLI_EXIT_USAGE;
    }
    o->in = positional[0];
    o->out = positional[1];
    if (o->have_bits && o->bits != 8 && o->bits != 16) {
        cli_error("option --bits: bits allocated must be 8 or 16, not %u", (unsigned)o->bits);
        return CLI_EXIT_USAGE;
    }
    if (o->have_components && o->components == 2) {
        cli_error("option --components: must be 1 or 3");
        return CLI_EXIT_USAGE;
    }
    if (o->have_bits && o->have_bits_stored && o->bits_stored > o->bits) {
        cli_error("option --bits-stored: %u is more than the %u bits allocated",
                  (unsigned)o->bits_stored, (unsigned)o->bits);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* Describe a raw input from the options alone. */
static int raw_desc(const encode_opts *o, pcwt_image_desc *desc)
{
    if (!o->have_width || !o->have_height || !o->have_bits) {
        cli_error("encode: raw input '%s' needs --width, --height and --bits", o->in);
        return CLI_EXIT_USAGE;
    }
    desc->width = o->width;
    desc->height = o->height;
    desc->components = o->have_components ? o->components : 1;
    desc->bits_allocated = o->bits;
    desc->bits_stored = o->have_bits_stored ? o->bits_stored : o->bits;
    desc->is_signed = (uint32_t)o->is_signed;
    desc->planar = (uint32_t)(o->planar && desc->components == 3);
    return 0;
}

/* Take the description from a PNM header; options given must agree with it. */
static int pnm_desc(const encode_opts *o, const pnm_header *hdr, pcwt_image_desc *desc)
{
    const char *clash = NULL;
    *desc = hdr->desc;
    if (o->have_width && o->width != desc->width)
        clash = "--width";
    else if (o->have_height && o->height != desc->height)
        clash = "--height";
    else if (o->have_components && o->components != desc->components)
        clash = "--components";
    else if (o->have_bits && o->bits != desc->bits_allocated)
        clash = "--bits";
    if (clash) {
        cli_error("encode: %s disagrees with the header of '%s' (%ux%u, %u component(s), "
                  "%u bits allocated)",
                  clash, o->in, (unsigned)desc->width, (unsigned)desc->height,
                  (unsigned)desc->components, (unsigned)desc->bits_allocated);
        return CLI_EXIT_USAGE;
    }
    if (o->is_signed || o->planar) {
        cli_error("encode: %s does not apply to PGM/PPM input '%s'",
                  o->is_signed ? "--signed" : "--planar", o->in);
        return CLI_EXIT_USAGE;
    }
    if (o->have_bits_stored) {
        if (o->bits_stored > desc->bits_allocated) {
            cli_error("option --bits-stored: %u is more than the %u bits allocated of '%s'",
                      (unsigned)o->bits_stored, (unsigned)desc->bits_allocated, o->in);
            return CLI_EXIT_USAGE;
        }
        desc->bits_stored = o->bits_stored;
    }
    return 0;
}

/* Encode the frame and write it to o->out. */
static int encode_frame(const encode_opts *o, const pcwt_image_desc *desc,
                        const unsigned char *samples, size_t samples_size)
{
    pcwt_encoder *enc = pcwt_encoder_create();
    size_t bound, written = 0;
    unsigned char *dst = NULL;
    pcwt_status st;
    int rc = CLI_EXIT_RUNTIME;
    cli_chunk chunk;

    if (!enc) {
        cli_error("encode: out of memory");
        return CLI_EXIT_RUNTIME;
    }
    for (size_t k = 0; k < o->nset; k++) {
        st = pcwt_encoder_set_option(enc, o->set[k].option, o->set[k].value);
        if (st != PCWT_OK) {
            cli_error("encode: invalid parameters: %s",
                      cli_library_message(pcwt_encoder_last_error(enc), st));
            goto done;
        }
    }
    bound = pcwt_encode_bound(desc);
    if (bound == 0) {
        cli_error("encode: the library does not accept %ux%u, %u component(s), %u bits allocated, "
                  "%u stored, %s",
                  (unsigned)desc->width, (unsigned)desc->height, (unsigned)desc->components,
                  (unsigned)desc->bits_allocated, (unsigned)desc->bits_stored,
                  desc->is_signed ? "signed" : "unsigned");
        goto done;
    }
    dst = malloc(bound);
    if (!dst) {
        cli_error("encode: out of memory (%llu bytes for the codestream)",
                  (unsigned long long)bound);
        goto done;
    }
    st = pcwt_encode(enc, desc, samples, samples_size, dst, bound, &written);
    if (st != PCWT_OK) {
        cli_error("encode: '%s': %s", o->in, cli_library_message(pcwt_encoder_last_error(enc), st));
        goto done;
    }
    chunk.data = dst;
    chunk.size = written;
    if (cli_write_file_atomic(o->out, &chunk, 1) == 0)
        rc = CLI_EXIT_OK;
done:
    free(dst);
    pcwt_encoder_destroy(enc);
    return rc;
}

int cli_encode(int argc, char **argv)
{
    encode_opts o;
    cli_buffer in;
    pcwt_image_desc desc;
    size_t samples_size;
    int rc, is_pnm, raw_known;

    memset(&o, 0, sizeof o);
    memset(&desc, 0, sizeof desc);
    rc = parse_args(argc, argv, &o);
    if (rc == PARSE_HELP) {
        cli_print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (rc != 0)
        return rc;
    /* PGM/PPM by name; a file with --width or --height is raw; otherwise the content decides. */
    is_pnm = pnm_name_kind_of(o.in) != PNM_NAME_NONE;
    raw_known = !is_pnm && (o.have_width || o.have_height);
    if (raw_known && (rc = raw_desc(&o, &desc)) != 0)
        return rc;

    if (cli_read_file(o.in, CLI_MAX_INPUT_BYTES, &in) != 0)
        return CLI_EXIT_RUNTIME;
    if (!is_pnm && !raw_known)
        is_pnm = pnm_has_magic(in.data, in.size);

    if (is_pnm) {
        pnm_header hdr;
        if (pnm_parse(in.data, in.size, o.in, &hdr) != 0) {
            rc = CLI_EXIT_RUNTIME;
        } else if ((rc = pnm_desc(&o, &hdr, &desc)) == 0) {
            samples_size = pnm_frame_from_file(&hdr, in.data);
            rc = encode_frame(&o, &desc, in.data, samples_size);
        }
    } else if (raw_known || (rc = raw_desc(&o, &desc)) == 0) {
        if (raw_frame_from_file(&desc, in.data, in.size, o.in) != 0)
            rc = CLI_EXIT_RUNTIME;
        else
            rc = encode_frame(&o, &desc, in.data, in.size);
    }
    cli_buffer_free(&in);
    return rc;
}
