/* dicom_scan.c - Pixel Data and the pixel module of a Part 10 file (dicom_scan.h). */
#include "dicom_scan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG(g, e) (((uint32_t)(g) << 16) | (uint32_t)(e))
#define TAG_PIXEL_DATA TAG(0x7FE0, 0x0010)
#define TAG_ITEM TAG(0xFFFE, 0xE000)
#define TAG_ITEM_END TAG(0xFFFE, 0xE00D)
#define TAG_SEQ_END TAG(0xFFFE, 0xE0DD)
#define UNDEFINED_LENGTH 0xFFFFFFFFu
#define MAX_DEPTH 32

typedef struct cursor {
    const uint8_t *data;
    size_t size;
    size_t pos;
} cursor;

typedef struct element {
    uint32_t tag;
    char vr[3];
    uint32_t length;
    size_t value; /* offset of the value */
} element;

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int say(char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* VRs whose explicit header has two reserved bytes and a 32-bit length (PS3.5 7.1.2). */
static int long_vr(const char *vr)
{
    static const char *const list[] = {"OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV",
                                       "UC", "UN", "UR", "UT", "UV"};
    for (size_t i = 0; i < sizeof list / sizeof list[0]; ++i)
        if (vr[0] == list[i][0] && vr[1] == list[i][1]) return 1;
    return 0;
}

/* Read one element header at c->pos; items and delimiters have no VR in either encoding. */
static int read_header(cursor *c, int implicit, element *el)
{
    if (c->size - c->pos < 8) return 0;
    const uint8_t *p = c->data + c->pos;
    el->tag = ((uint32_t)rd16(p) << 16) | rd16(p + 2);
    el->vr[0] = el->vr[1] = el->vr[2] = '\0';
    if (implicit || (el->tag >> 16) == 0xFFFE) {
        el->length = rd32(p + 4);
        el->value = c->pos + 8;
    } else {
        el->vr[0] = (char)p[4];
        el->vr[1] = (char)p[5];
        if (long_vr(el->vr)) {
            if (c->size - c->pos < 12) return 0;
            el->length = rd32(p + 8);
            el->value = c->pos + 12;
        } else {
            el->length = rd16(p + 6);
            el->value = c->pos + 8;
        }
    }
    return 1;
}

static int skip_undefined(cursor *c, int implicit, int depth);

/* Move past the value of el (c->pos at its header). Undefined lengths are sequences (or, in
 * explicit VR, UN holding an implicit-VR sequence). */
static int skip_value(cursor *c, const element *el, int implicit, int depth)
{
    c->pos = el->value;
    if (el->length == UNDEFINED_LENGTH) {
        int inner_implicit = implicit || (el->vr[0] == 'U' && el->vr[1] == 'N');
        return skip_undefined(c, inner_implicit, depth + 1);
    }
    if (c->size - c->pos < el->length) return 0;
    c->pos += el->length;
    return 1;
}

/* Items of a sequence of undefined length, up to and past its delimiter. */
static int skip_undefined(cursor *c, int implicit, int depth)
{
    if (depth > MAX_DEPTH) return 0;
    for (;;) {
        element item;
        if (!read_header(c, 1, &item)) return 0;
        if (item.tag == TAG_SEQ_END) { c->pos = item.value; return 1; }
        if (item.tag != TAG_ITEM) return 0;
        if (item.length != UNDEFINED_LENGTH) {
            if (!skip_value(c, &item, implicit, depth)) return 0;
            continue;
        }
        c->pos = item.value;
        for (;;) {
            element el;
            if (!read_header(c, implicit, &el)) return 0;
            if (el.tag == TAG_ITEM_END) { c->pos = el.value; break; }
            if (!skip_value(c, &el, implicit, depth)) return 0;
        }
    }
}

static int read_us(const cursor *c, const element *el, uint32_t *out)
{
    if (el->length < 2 || el->length == UNDEFINED_LENGTH) return 0;
    *out = rd16(c->data + el->value);
    return 1;
}

/* A text value without its padding (spaces, NUL), into buf. */
static void read_text(const cursor *c, const element *el, char *buf, size_t buf_size)
{
    size_t n = el->length == UNDEFINED_LENGTH ? 0 : el->length;
    if (n >= buf_size) n = buf_size - 1;
    memcpy(buf, c->data + el->value, n);
    while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\0')) n--;
    buf[n] = '\0';
}

int pco_dicom_scan(const uint8_t *data, size_t size, pco_scan *scan, char *msg, size_t msg_size)
{
    memset(scan, 0, sizeof *scan);
    if (size < 132 || memcmp(data + 128, "DICM", 4) != 0)
        return say(msg, msg_size, "not a DICOM Part 10 file");
    cursor c = {data, size, 132};

    /* File meta information: explicit VR little endian, group 0002. */
    char ts[72] = "";
    for (;;) {
        element el;
        if (c.size - c.pos < 8 || rd16(data + c.pos) != 0x0002) break;
        if (!read_header(&c, 0, &el) || el.length == UNDEFINED_LENGTH || c.size - el.value < el.length)
            return say(msg, msg_size, "malformed file meta information");
        if (el.tag == TAG(0x0002, 0x0010)) read_text(&c, &el, ts, sizeof ts);
        c.pos = el.value + el.length;
    }
    int implicit;
    if (strcmp(ts, "1.2.840.10008.1.2.1") == 0) implicit = 0;
    else if (strcmp(ts, "1.2.840.10008.1.2") == 0) implicit = 1;
    else return say(msg, msg_size, "transfer syntax %s is not native little endian", ts[0] ? ts : "(none)");

    pcwt_dicom_pixel_module *m = &scan->module;
    m->number_of_frames = 1;
    int have_spp = 0, have_ba = 0, have_bs = 0, have_hb = 0, have_pr = 0;
    for (;;) {
        element el;
        if (c.pos == c.size) return say(msg, msg_size, "no Pixel Data element");
        if (!read_header(&c, implicit, &el)) return say(msg, msg_size, "truncated data set");
        if ((el.tag >> 16) == 0xFFFE) return say(msg, msg_size, "item tag at the top level");
        if (el.tag == TAG_PIXEL_DATA) {
            if (el.length == UNDEFINED_LENGTH) return say(msg, msg_size, "encapsulated pixel data");
            if (c.size - el.value < el.length) return say(msg, msg_size, "Pixel Data runs past the end");
            if (!implicit && !((el.vr[0] == 'O' && (el.vr[1] == 'W' || el.vr[1] == 'B'))))
                return say(msg, msg_size, "Pixel Data with VR %s", el.vr);
            scan->pixel_offset = el.value;
            scan->pixel_length = el.length;
            break;
        }
        if (el.tag > TAG_PIXEL_DATA) return say(msg, msg_size, "no Pixel Data element");
        if ((el.tag >> 16) == 0x0028 && el.length != UNDEFINED_LENGTH) {
            if (c.size - el.value < el.length) return say(msg, msg_size, "truncated data set");
            char text[72];
            switch (el.tag & 0xFFFF) {
            case 0x0002: have_spp = read_us(&c, &el, &m->samples_per_pixel); break;
            case 0x0004:
                read_text(&c, &el, text, sizeof text);
                m->photometric = pcwt_dicom_photometric_from_string(text);
                break;
            case 0x0006:
                m->has_planar_configuration = read_us(&c, &el, &m->planar_configuration);
                break;
            case 0x0008: {
                read_text(&c, &el, text, sizeof text);
                char *end = NULL;
                const char *s = text;
                while (*s == ' ') s++;
                unsigned long long n = strtoull(s, &end, 10);
                if (end == s || *end || *s == '-') return say(msg, msg_size, "bad Number of Frames '%s'", text);
                m->number_of_frames = n;
                break;
            }
            case 0x0010: read_us(&c, &el, &m->rows); break;
            case 0x0011: read_us(&c, &el, &m->columns); break;
            case 0x0100: have_ba = read_us(&c, &el, &m->bits_allocated); break;
            case 0x0101: have_bs = read_us(&c, &el, &m->bits_stored); break;
            case 0x0102: have_hb = read_us(&c, &el, &m->high_bit); break;
            case 0x0103: have_pr = read_us(&c, &el, &m->pixel_representation); break;
            default: break;
            }
        }
        if (!skip_value(&c, &el, implicit, 0)) return say(msg, msg_size, "malformed data set");
    }
    if (!have_spp || !have_ba || !have_bs || !have_hb || !have_pr || !m->rows || !m->columns)
        return say(msg, msg_size, "incomplete image pixel module");

    char why[256];
    pcwt_dicom_status st = pcwt_dicom_validate(m, PCWT_DICOM_TARGET_PCWT, why, sizeof why);
    if (st == PCWT_DICOM_OK) st = pcwt_dicom_check_native_length(m, scan->pixel_length, why, sizeof why);
    if (st != PCWT_DICOM_OK) return say(msg, msg_size, "%s", why);
    scan->frame_bytes = pcwt_dicom_frame_bytes(m);
    if (msg && msg_size) msg[0] = '\0';
    return 1;
}
