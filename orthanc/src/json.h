/*
 * json.h - (internal) a small JSON reader for the plugin's configuration: Orthanc hands its whole
 * configuration over as JSON text (OrthancPluginGetConfiguration) and the plugin, in C, reads the
 * few values of its "PCWT" section. Strict RFC 8259 syntax, nesting limited, no global state.
 */
#ifndef PCWT_ORTHANC_JSON_H
#define PCWT_ORTHANC_JSON_H

#include <stddef.h>

typedef enum pco_json_type {
    PCO_JSON_NULL = 0,
    PCO_JSON_FALSE,
    PCO_JSON_TRUE,
    PCO_JSON_NUMBER,
    PCO_JSON_STRING,
    PCO_JSON_ARRAY,
    PCO_JSON_OBJECT
} pco_json_type;

typedef struct pco_json pco_json;
struct pco_json {
    pco_json_type type;
    char *key;       /* the member name when this value is inside an object */
    char *text;      /* strings (unescaped, UTF-8) and numbers (as written) */
    double number;
    pco_json *child; /* first element or member */
    pco_json *next;  /* next sibling */
};

/* Parse text (NUL-terminated). NULL on a syntax error or exhausted memory; msg then says where. */
pco_json *pco_json_parse(const char *text, char *msg, size_t msg_size);
void pco_json_free(pco_json *value);

/* The member called key of an object (NULL when absent or value is not an object). */
const pco_json *pco_json_member(const pco_json *object, const char *key);

#endif
