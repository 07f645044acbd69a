/* Tuning and test overrides from the environment, one syntax for all (overrides.h). */
#include "core/overrides.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next "key=value" at *s, stepping past it: 1 = an item, 0 = the end, -1 = malformed. */
static int next_item(const char **s, char name[16], char val[16])
{
    int n = 0;
    if (!*s || !**s)
        return 0;
    if (sscanf(*s, "%15[a-z]=%15[a-z0-9]%n", name, val, &n) != 2)
        return -1;
    *s += n;
    if (**s == ',')
        ++*s;
    else if (**s)
        return -1;
    return 1;
}

/* One item's value into its field; -1 for an unknown key or a value it does not take. */
static int set(const dmlcl__override_key *keys, const char *name, const char *val, void *dst)
{
    const dmlcl__override_key *k = keys;
    while (k->name && strcmp(k->name, name))
        k++;
    if (!k->name)
        return -1;
    unsigned long v = 0;
    if (k->names) {
        while (k->names[v] && strcmp(k->names[v], val))
            v++;
        if (!k->names[v])
            return -1;
    } else {
        char *end;
        v = strtoul(val, &end, 10);
        if (*end || v < k->lo || v > k->hi)
            return -1;
    }
    char *field = (char *)dst + k->offset;
    if (k->is_int)
        *(int *)field = (int)v;
    else
        *(uint32_t *)field = (uint32_t)v;
    return 0;
}

int dmlcl__overrides_parse(const char *s, const dmlcl__override_key *keys, void *dst)
{
    char name[16], val[16];
    int r;
    while ((r = next_item(&s, name, val)) > 0)
        if (set(keys, name, val, dst))
            return -1;
    return r;
}

/* Variables read, for the tests (atomic: operators are created on many threads). */
static uint64_t reads;

uint64_t dmlcl_test_override_reads(void);
uint64_t dmlcl_test_override_reads(void)
{
    return __atomic_load_n(&reads, __ATOMIC_RELAXED);
}

dmlcl_status dmlcl__overrides_read(const dmlcl__override_var *v, const char *op, void *dst,
                                   int *given)
{
    __atomic_add_fetch(&reads, 1, __ATOMIC_RELAXED);
    const char *s = getenv(v->env);
    if (given)
        *given = s && *s;
    if (dmlcl__overrides_parse(s, v->keys, dst))
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s must be key=value pairs (%s) separated by commas, got \"%s\"",
                           op, v->env, v->keys_text, s);
    return DMLCL_SUCCESS;
}
