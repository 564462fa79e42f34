/* json.c - the configuration's JSON reader (json.h). */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCO_JSON_MAX_DEPTH 64

typedef struct parser {
    const char *p;
    const char *start;
    char *msg;
    size_t msg_size;
    int failed;
} parser;

static void fail(parser *ps, const char *what)
{
    if (!ps->failed && ps->msg && ps->msg_size)
        snprintf(ps->msg, ps->msg_size, "JSON: %s at offset %zu", what, (size_t)(ps->p - ps->start));
    ps->failed = 1;
}

static void skip_space(parser *ps)
{
    for (;;) {
        while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
        /* Orthanc's own configuration files allow comments; its GetConfiguration text has none,
         * but a file read directly (tests, tools) may. */
        if (ps->p[0] == '/' && ps->p[1] == '/') {
            while (*ps->p && *ps->p != '\n') ps->p++;
        } else if (ps->p[0] == '/' && ps->p[1] == '*') {
            const char *end = strstr(ps->p + 2, "*/");
            ps->p = end ? end + 2 : ps->p + strlen(ps->p);
        } else {
            return;
        }
    }
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *dst, unsigned cp)
{
    if (cp < 0x80) { dst[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        dst[0] = (char)(0xC0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    dst[0] = (char)(0xF0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string starting at the opening quote; the result is malloc'd. An escaped text is never
 * longer than its source, so the source length bounds the buffer. */
static char *parse_string(parser *ps)
{
    const char *s = ps->p + 1;
    const char *end = s;
    while (*end && *end != '"') {
        if (*end == '\\' && end[1]) end++;
        end++;
    }
    if (*end != '"') { fail(ps, "unterminated string"); return NULL; }
    char *out = malloc((size_t)(end - s) + 1);
    if (!out) { fail(ps, "out of memory"); return NULL; }
    size_t n = 0;
    while (s < end) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20) { ps->p = s; fail(ps, "control character in string"); free(out); return NULL; }
        if (c != '\\') { out[n++] = (char)c; s++; continue; }
        char e = s[1];
        s += 2;
        switch (e) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (end - s < 4 || !hex4(s, &cp)) { ps->p = s; fail(ps, "bad \\u escape"); free(out); return NULL; }
            s += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && end - s >= 6 && s[0] == '\\' && s[1] == 'u' &&
                hex4(s + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                s += 6;
            }
            n += put_utf8(out + n, cp); /* at most 4 bytes for 6 or 12 source bytes */
            break;
        }
        default:
            ps->p = s - 2;
            fail(ps, "bad escape");
            free(out);
            return NULL;
        }
    }
    out[n] = '\0';
    ps->p = end + 1;
    return out;
}

static pco_json *parse_value(parser *ps, int depth);

static pco_json *new_value(parser *ps, pco_json_type type)
{
    pco_json *v = calloc(1, sizeof *v);
    if (!v) fail(ps, "out of memory");
    else v->type = type;
    return v;
}

static pco_json *parse_container(parser *ps, int depth, int object)
{
    pco_json *v = new_value(ps, object ? PCO_JSON_OBJECT : PCO_JSON_ARRAY);
    if (!v) return NULL;
    pco_json **tail = &v->child;
    ps->p++;
    skip_space(ps);
    if (*ps->p == (object ? '}' : ']')) { ps->p++; return v; }
    for (;;) {
        char *key = NULL;
        skip_space(ps);
        if (object) {
            if (*ps->p != '"') { fail(ps, "expected a member name"); break; }
            key = parse_string(ps);
            if (!key) break;
            skip_space(ps);
            if (*ps->p != ':') { fail(ps, "expected ':'"); free(key); break; }
            ps->p++;
        }
        pco_json *item = parse_value(ps, depth + 1);
        if (!item) { free(key); break; }
        item->key = key;
        *tail = item;
        tail = &item->next;
        skip_space(ps);
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p == (object ? '}' : ']')) { ps->p++; return v; }
        fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    pco_json_free(v);
    return NULL;
}

static pco_json *parse_value(parser *ps, int depth)
{
    if (depth > PCO_JSON_MAX_DEPTH) { fail(ps, "nesting too deep"); return NULL; }
    skip_space(ps);
    char c = *ps->p;
    if (c == '{' || c == '[') return parse_container(ps, depth, c == '{');
    if (c == '"') {
        char *s = parse_string(ps);
        if (!s) return NULL;
        pco_json *v = new_value(ps, PCO_JSON_STRING);
        if (!v) { free(s); return NULL; }
        v->text = s;
        return v;
    }
    static const struct { const char *word; pco_json_type type; } words[] = {
        {"true", PCO_JSON_TRUE}, {"false", PCO_JSON_FALSE}, {"null", PCO_JSON_NULL}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i) {
        size_t n = strlen(words[i].word);
        if (strncmp(ps->p, words[i].word, n) == 0) {
            ps->p += n;
            return new_value(ps, words[i].type);
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char *end = NULL;
        double d = strtod(ps->p, &end);
        if (end == ps->p) { fail(ps, "bad number"); return NULL; }
        pco_json *v = new_value(ps, PCO_JSON_NUMBER);
        if (!v) return NULL;
        size_t n = (size_t)(end - ps->p);
        v->text = malloc(n + 1);
        if (!v->text) { free(v); fail(ps, "out of memory"); return NULL; }
        memcpy(v->text, ps->p, n);
        v->text[n] = '\0';
        v->number = d;
        ps->p = end;
        return v;
    }
    fail(ps, "unexpected character");
    return NULL;
}

pco_json *pco_json_parse(const char *text, char *msg, size_t msg_size)
{
    parser ps = {text, text, msg, msg_size, 0};
    if (msg && msg_size) msg[0] = '\0';
    pco_json *v = parse_value(&ps, 0);
    if (!v) return NULL;
    skip_space(&ps);
    if (*ps.p) {
        fail(&ps, "text after the value");
        pco_json_free(v);
        return NULL;
    }
    return v;
}

void pco_json_free(pco_json *value)
{
    while (value) {
        pco_json *next = value->next;
        pco_json_free(value->child);
        free(value->key);
        free(value->text);
        free(value);
        value = next;
    }
}

const pco_json *pco_json_member(const pco_json *object, const char *key)
{
    if (!object || object->type != PCO_JSON_OBJECT) return NULL;
    for (const pco_json *m = object->child; m; m = m->next)
        if (m->key && strcmp(m->key, key) == 0) return m;
    return NULL;
}
