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

int cli_parse_choice(const char *option, const char *text, const cli_choice *choices, size_t n,
                     int *out)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(text, choices[i].name) == 0) {
            *out = choices[i].value;
            return 0;
        }
    char list[160] = "";
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                i == 0 ? "" : i + 1 == n ? " or " : ", ", choices[i].name);
    cli_error("option --%s: '%s' is not %s", option, text, list);
    return -1;
}

#define CLI_CHOICE(option, text, out, ...)                                                         \
    do {                                                                                           \
        static const cli_choice choices_[] = {__VA_ARGS__};                                        \
        int v_ = 0;                                                                                \
        if (cli_parse_choice(option, text, choices_, sizeof choices_ / sizeof choices_[0], &v_))   \
            return -1;                                                                             \
        *(out) = v_;                                                                               \
        return 0;                                                                                  \
    } while (0)

int cli_parse_profile(const char *text, pcwt_profile *profile)
{
    CLI_CHOICE("profile", text, profile, {"baseline", PCWT_PROFILE_BASELINE},
               {"entropy", PCWT_PROFILE_ENTROPY}, {"0", PCWT_PROFILE_BASELINE},
               {"1", PCWT_PROFILE_ENTROPY});
}

int cli_parse_colour(const char *text, pcwt_colour_transform *colour)
{
    CLI_CHOICE("colour-transform", text, colour, {"auto", PCWT_COLOUR_AUTO},
               {"none", PCWT_COLOUR_NONE}, {"rct", PCWT_COLOUR_RCT});
}

int cli_parse_low_bits(const char *text, pcwt_low_bits *low)
{
    CLI_CHOICE("low-bits", text, low, {"auto", PCWT_LOW_BITS_AUTO}, {"off", PCWT_LOW_BITS_OFF},
               {"on", PCWT_LOW_BITS_ON});
}

int cli_parse_lifting(const char *text, pcwt_lifting_order *order)
{
    CLI_CHOICE("lifting", text, order, {"auto", PCWT_LIFTING_AUTO},
               {"rows", PCWT_LIFTING_ROWS_FIRST}, {"columns", PCWT_LIFTING_COLUMNS_FIRST});
}

int cli_parse_backend(const char *text, pcwt_backend *backend)
{
    CLI_CHOICE("backend", text, backend, {"auto", PCWT_BACKEND_AUTO}, {"cpu", PCWT_BACKEND_CPU},
               {"gpu", PCWT_BACKEND_GPU});
}
