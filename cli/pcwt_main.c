/* pcwt_main.c - the pcwt command-line tool: dispatch to encode, decode or info. */
#include <stdio.h>
#include <string.h>

#include "cli_commands.h"
#include "cli_report.h"
#include "pcwt.h"

void cli_print_help(FILE *out)
{
    fputs(
        "Usage:\n"
        "  pcwt encode [options] IN OUT   compress IN (raw samples, or PGM/PPM) to codestream OUT\n"
        "  pcwt decode [options] IN OUT   decompress codestream IN to OUT (PGM/PPM or raw)\n"
        "  pcwt info IN                   print the header of codestream IN\n"
        "  pcwt --help | --version\n"
        "\n"
        "Encode options:\n"
        "  --width W          columns (raw input)\n"
        "  --height H         rows (raw input)\n"
        "  --bits B           bits allocated per sample: 8 or 16 (raw input)\n"
        "  --bits-stored S    significant bits, 1..B (default: B; PGM/PPM: bit length of maxval)\n"
        "  --signed           samples are two's complement in S bits (raw input)\n"
        "  --components C     1 or 3 (default 1)\n"
        "  --planar           3 components stored as whole planes (default: pixel-interleaved)\n"
        "  --levels N         wavelet levels, 0..10 (default 6; fewer for small images)\n"
        "  --group RxC        group size in elements, rows x columns, 1..256 (default 32x32 with\n"
        "                     the baseline profile, 64x16 with the entropy and compact profiles)\n"
        "  --profile P        baseline (raw bits), entropy (range-coded groups, smaller) or\n"
        "                     compact (the entropy profile with value maps, the smallest; the\n"
        "                     default; decoders before it refuse it)\n"
        "  --colour-transform T\n"
        "                     3 components: auto (the reversible colour transform with the\n"
        "                     entropy profile, none with the baseline; the default), none or rct\n"
        "  --low-bits M       entropy profile: range-code the two low bits of each coefficient:\n"
        "                     auto (per plane, where they are far from random; the default), off\n"
        "                     or on\n"
        "  --value-map M      compact profile: code a plane's values as ranks in the set of those\n"
        "                     that occur: auto (per plane, where few of its span occur; the\n"
        "                     default), off or on\n"
        "  --lifting O        the order of each wavelet level's lifting passes: auto (columns\n"
        "                     first with the entropy profile, as JPEG 2000; rows first with the\n"
        "                     baseline; the default), rows or columns\n"
        "  --level1-filter F  entropy and compact profiles: the finest wavelet level's filter:\n"
        "                     auto (per plane, 5/11-C where an estimate says it is smaller;\n"
        "                     the default), 53 or 511 (5/11-C, smaller on smooth CT and MR)\n"
        "  --offset M         compact profile: code each plane's values from a modular offset,\n"
        "                     the wrap of their range moved to the largest stretch none of them\n"
        "                     uses: auto (per plane, where an estimate says it pays; the\n"
        "                     default), off or on\n"
        "  --second-bit M     entropy, compact: second mantissa bit modelled, on (default) or off\n"
        "  --backend B        auto, cpu or gpu (default auto); also a decode option\n"
        "  --max-memory N     decode: refuse, before reading the payload, a codestream whose\n"
        "                     decoding needs more than N bytes of memory (suffix K, M, G, T:\n"
        "                     powers of 1024); default 3/4 of the physical memory, less under\n"
        "                     ulimit -v or -d\n"
        "\n"
        "Raw files hold one frame of little-endian samples, 1 byte each for 8 bits allocated,\n"
        "2 bytes for 16, row by row; their size must be exactly W*H*C*bytes. Every bit of every\n"
        "stored word is kept, including bits above bits stored.\n"
        "Encode reads IN as PGM/PPM (P5/P6, maxval up to 65535) when its name ends in .pgm, .ppm\n"
        "or .pnm, or when it starts with P5/P6 and neither --width nor --height is given; its\n"
        "header then gives W, H, C and B (8 if maxval < 256, else 16); options must agree.\n"
        "Decode writes PGM/PPM when OUT ends in .pgm, .ppm or .pnm (unsigned images only; maxval\n"
        "2^S-1), raw otherwise. IN may be '-' for standard input, OUT '-' for standard output.\n"
        "Outputs are written to a temporary file beside OUT and renamed over it when complete,\n"
        "so a failed run never leaves a partial OUT.\n"
        "Info reads only the header (its CRC is checked, the payload CRCs are not: decode\n"
        "verifies them).\n"
        "\n"
        "Exit status: 0 success, 1 the job failed (bad input, I/O or codec error),\n"
        "2 usage error (unknown option, missing or invalid value).\n",
        out);
}

int main(int argc, char **argv)
{
    const char *cmd;
    if (argc < 2) {
        cli_error("missing command (encode, decode or info); see pcwt --help");
        return CLI_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        cli_print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("pcwt %s\n", pcwt_version_string());
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "encode") == 0)
        return cli_encode(argc - 1, argv + 1);
    if (strcmp(cmd, "decode") == 0)
        return cli_decode(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0)
        return cli_info(argc - 1, argv + 1);
    if (cmd[0] == '-')
        cli_error("unknown option '%s'; see pcwt --help", cmd);
    else
        cli_error("unknown command '%s'; see pcwt --help", cmd);
    return CLI_EXIT_USAGE;
}
