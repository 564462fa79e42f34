/* cli_args.c - long options and strict number parsing for the pcwt tool. */
#include "cli_args.h"

#include <stdio.h>
#include <string.h>

#include "cli_report.h"

int cli_arg_is_option(const char *arg, int *options_ended)
{
    if (*options_ended || arg[0] != '-' || arg[1] == '\0')
        return 0;
    if (strcmp(arg, "--") == 0) {
        *options_ended = 1;
        return -1;
    }
    return 1;
}

int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, "--", 2) != 0 || strncmp(arg + 2, name, n) != 0)
        return 0;
    if (arg[2 + n] == '=') {
        *value = arg + 3 + n;
        if (**value == '\0') {
            cli_error("option --%s needs a value", name);
            return -1;
        }
        return 1;
    }
    if (arg[2 + n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_error("option --%s needs a value", name);
        return -1;
    }
    *i += 1;
    *value = argv[*i];
    return 1;
}

int cli_option_flag(const char *arg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(arg, "--", 2) != 0 || strncmp(arg + 2, name, n) != 0)
        return 0;
    if (arg[2 + n] == '\0')
        return 1;
    if (arg[2 + n] == '=') {
        cli_error("option --%s takes no value", name);
        return -1;
    }
    return 0;
}

/* Parse the leading digits of text; *end receives the first non-digit. -1 when there are no
 * digits or the number exceeds limit. */
static int parse_digits(const char *text, const char **end, uint32_t limit, uint32_t *out)
{
    uint64_t v = 0;
    const char *p = text;
    if (*p < '0' || *p > '9')
        return -1;
    while (*p >= '0' && *p <= '9') {
        v = v * 10u + (uint64_t)(*p - '0');
        if (v > limit)
            return -1;
        p++;
    }
    *end = p;
    *out = (uint32_t)v;
    return 0;
}

int cli_parse_u32(const char *text, const char *option, uint32_t min, uint32_t max, uint32_t *out)
{
    const char *end = text;
    uint32_t v = 0;
    if (parse_digits(text, &end, max, &v) != 0 || *end != '\0' || v < min) {
        cli_error("option --%s: '%s' is not a number in %u..%u", option, text, (unsigned)min,
                  (unsigned)max);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_bytes(const char *text, const char *option, uint64_t *out)
{
    static const char units[] = "kmgt";
    const char *p = text;
    uint64_t v = 0;
    int shift = 0;
    while (*p >= '0' && *p <= '9') {
        if (v > (UINT64_MAX - 9) / 10)
            goto bad;
        v = v * 10 + (uint64_t)(*p++ - '0');
    }
    if (p == text)
        goto bad;
    if (*p) {
        const char *u = strchr(units, *p | 0x20);
        if (!u)
            goto bad;
        shift = 10 * (int)(u - units + 1);
        p++;
        if ((p[0] | 0x20) == 'i' && (p[1] | 0x20) == 'b')
            p += 2;
        else if ((*p | 0x20) == 'b')
            p++;
    }
    if (*p || v == 0 || v > (UINT64_MAX >> shift))
        goto bad;
    *out = v << shift;
    return 0;
bad:
    cli_error("option --%s: '%s' is not a byte count (e.g. 512M, 4G)", option, text);
    return -1;
}

int cli_parse_group(const char *text, uint32_t *rows, uint32_t *cols)
{
    const char *end = text;
    uint32_t r = 0, c = 0;
    int ok = parse_digits(text, &end, PCWT_MAX_GROUP, &r) == 0 && r >= 1;
    if (ok && *end == '\0') {
        c = r;
    } else if (ok && (*end == 'x' || *end == 'X')) {
        ok = parse_digits(end + 1, &end, PCWT_MAX_GROUP, &c) == 0 && c >= 1 && *end == '\0';
    } else {
        ok = 0;
    }
    if (!ok) {
        cli_error("option --group: '%s' is not RxC with R and C in 1..%d", text, PCWT_MAX_GROUP);
        return -1;
    }
    *rows = r;
    *cols = c;
    return 0;
}

int cli_parse_option(pcwt_option option, const char *text, int64_t *out)
{
    const char *name = pcwt_option_name(option);
    if (pcwt_option_parse(option, text, out) == PCWT_OK)
        return 0;
    /* the library's value names, as "a, b or c" */
    char list[160] = "";
    size_t len = 0, n = 0;
    while (pcwt_option_value_name(option, (int64_t)n))
        n++;
    for (size_t v = 0; v < n && len < sizeof list; v++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                v == 0 ? "" : v + 1 == n ? " or " : ", ",
                                pcwt_option_value_name(option, (int64_t)v));
    cli_error("option --%s: '%s' is not %s", name ? name : "?", text, list);
    return -1;
}

int cli_parse_backend(const char *text, pcwt_backend *backend)
{
    int64_t v = 0;
    if (cli_parse_option(PCWT_OPT_BACKEND, text, &v) != 0)
        return -1;
    *backend = (pcwt_backend)v;
    return 0;
}
