/* Tuning and test overrides from the environment (overrides.c): one syntax and one parser
 * for every family's variable, each family's keys in its own folder (a table passed in),
 * so core knows no family. A variable reads "key=value,key=value" (keys [a-z]+, values
 * [a-z0-9]+: a decimal number within the key's range, or one of its names), each key
 * optional, in any order, the last one winning; unset or "" = none. The planners get the
 * parsed structs and read no environment. */
#ifndef DMLCL_CORE_OVERRIDES_H
#define DMLCL_CORE_OVERRIDES_H
#include "core/base.h"
#include <stddef.h>

/* One key: the field of the family's struct its value goes to, its range, or its names
 * (the value is the name's index). The table ends with a NULL name. */
typedef struct dmlcl__override_key {
    const char *name;
    size_t offset;
    int is_int;                /* the field is an int, else a uint32_t */
    unsigned long lo, hi;
    const char *const *names;  /* NULL-terminated; NULL: a number in [lo, hi] */
} dmlcl__override_key;

/* A variable: its name, its keys for the message that refuses a malformed value, its keys. */
typedef struct dmlcl__override_var {
    const char *env;
    const char *keys_text;
    const dmlcl__override_key *keys;
} dmlcl__override_var;

/* Parses s into dst (a struct holding the defaults already): 0, or -1 for an unknown key
 * or a value out of range (callers report the whole string). NULL or "" = no overrides. */
int dmlcl__overrides_parse(const char *s, const dmlcl__override_key *keys, void *dst);

/* Reads v's variable and parses it into dst (holding the defaults); a malformed value
 * fails with "<op>: <VARIABLE> must be key=value pairs (<keys>) separated by commas, got
 * "<value>"". *given (may be NULL): the variable is set and not empty. */
dmlcl_status dmlcl__overrides_read(const dmlcl__override_var *v, const char *op, void *dst,
                                   int *given);
#endif
