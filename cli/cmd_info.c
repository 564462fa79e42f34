/* cmd_info.c - pcwt info: print what a codestream header says, without decoding the payloads. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli_args.h"
#include "cli_commands.h"
#include "cli_report.h"
#include "file_io.h"
#include "pcwt.h"

static const char *layout_name(const pcwt_image_desc *desc)
{
    if (desc->components == 1)
        return "single component";
    return desc->planar ? "planar" : "pixel-interleaved";
}

static const char *kind_name(uint32_t kind)
{
    return kind == 0 ? "samples" : kind == 1 ? "high bits" : "unknown";
}

static void print_header(const char *path, const pcwt_header_info *h, size_t file_size)
{
    uint32_t p, planes = h->plane_count;
    printf("file:             %s\n", path);
    printf("format version:   %u\n", (unsigned)h->format_version);
    printf("profile:          %s (%d)\n", pcwt_profile_name(h->profile), (int)h->profile);
    printf("width:            %u\n", (unsigned)h->desc.width);
    printf("height:           %u\n", (unsigned)h->desc.height);
    printf("components:       %u\n", (unsigned)h->desc.components);
    printf("bits allocated:   %u\n", (unsigned)h->desc.bits_allocated);
    printf("bits stored:      %u\n", (unsigned)h->desc.bits_stored);
    printf("signed:           %s\n", h->desc.is_signed ? "yes" : "no");
    printf("layout:           %s\n", layout_name(&h->desc));
    if (h->desc.components == 3)
        printf("colour transform: %s\n", h->colour_transform ? "reversible (RCT)" : "none");
    printf("levels:           %u\n", (unsigned)h->levels);
    printf("lifting order:    %s first\n", h->columns_first ? "columns" : "rows");
    printf("group size:       %ux%u (rows x columns)\n", (unsigned)h->group_rows,
           (unsigned)h->group_cols);
    printf("planes:           %u\n", (unsigned)planes);
    for (p = 0; p < planes; p++) {
        pcwt_plane_info pl;
        if (pcwt_header_plane(h, p, &pl) != PCWT_OK)
            break;
        printf("  plane %u: component %u, kind %u (%s), qmax %d, payload %" PRIu64
               " bytes, crc32 0x%08" PRIx32 "%s%s%s%s%s\n",
               (unsigned)p, (unsigned)pl.component, (unsigned)pl.kind, kind_name(pl.kind),
               (int)pl.qmax, pl.payload_length, pl.payload_crc32,
               pl.second_bit ? ", second mantissa bit modelled" : "", pl.low_bits ? ", low bits modelled" : "",
               pl.value_map ? ", value map" : "",
               pl.level1_511 ? ", 5/11-C at level 1" : "", pl.offset ? ", modular offset" : "");
    }
    printf("header length:    %zu bytes\n", h->header_length);
    if (h->codestream_length == SIZE_MAX) /* JPEG 2000 whose tile-parts' lengths were not read */
        printf("total length:     not in the header (JPEG 2000)\n");
    else
        printf("total length:     %zu bytes\n", h->codestream_length);
    printf("file size:        %zu bytes", file_size);
    if (h->codestream_length == SIZE_MAX)
        printf("\n");
    else if (file_size < h->codestream_length)
        printf(" (truncated: %zu bytes missing)\n", h->codestream_length - file_size);
    else if (file_size > h->codestream_length)
        printf(" (%zu bytes after the codestream)\n", file_size - h->codestream_length);
    else
        printf("\n");
    printf("payload CRCs:     not checked (info reads only the header; decode verifies them)\n");
}

int cli_info(int argc, char **argv)
{
    const char *path = NULL;
    int ended = 0, i, rc = CLI_EXIT_OK;
    cli_buffer src;
    pcwt_header_info info;
    uint64_t size = 0;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int kind = cli_arg_is_option(arg, &ended);
        if (kind < 0)
            continue;
        if (kind > 0 && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            cli_print_help(stdout);
            return CLI_EXIT_OK;
        }
        if (kind > 0) {
            cli_error("info: unknown option '%s'; see pcwt --help", arg);
            return CLI_EXIT_USAGE;
        }
        if (path) {
            cli_error("info: too many arguments ('%s'); see pcwt --help", arg);
            return CLI_EXIT_USAGE;
        }
        path = arg;
    }
    if (!path) {
        cli_error("info: needs a codestream file: pcwt info IN");
        return CLI_EXIT_USAGE;
    }
    /* a file's header only; a stream up to its declared length, never further */
    memset(&info, 0, sizeof info);
    if (cli_read_codestream(path, 0, 1, NULL, NULL, &src, &info, &size) != 0)
        return CLI_EXIT_RUNTIME;
    print_header(path, &info, (size_t)size);
    if (size < info.codestream_length && info.codestream_length != SIZE_MAX) {
        cli_error("'%s' is truncated: the header declares %zu bytes, the file has %llu", path,
                  info.codestream_length, (unsigned long long)size);
        rc = CLI_EXIT_RUNTIME;
    }
    cli_buffer_free(&src);
    return rc;
}
