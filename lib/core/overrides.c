/* Tuning and test overrides from the environment, one syntax for all (overrides.h). */
#include "core/overrides.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One key of a variable: where its value goes, its range, or its names (value = index). */
typedef struct key {
    const char *name;
    size_t offset;
    int is_int;                /* the field is an int, else a uint32_t */
    unsigned long lo, hi;
    const char *const *names;  /* NULL-terminated; NULL: a number in [lo, hi] */
} key;

typedef struct variable {
    const char *env;
    const char *keys_text;     /* for the message that refuses a malformed value */
    const key *keys;
} variable;

static const char *const rs_variants[] = {"generic", "lines", "chunks", NULL};
static const char *const rv_values[] = {"4", "8", "16", NULL}; /* 4 << index */

#define RS_KEY(k, f, i, lo, hi, n) {k, offsetof(dmlcl__rs_tune, f), i, lo, hi, n}
static const key rs_keys[] = {
    RS_KEY("variant", variant, 1, 0, 0, rs_variants),
    RS_KEY("wg", wg, 0, 1, 4096, NULL),
    RS_KEY("waves", waves, 0, 1, 1u << 20, NULL),
    RS_KEY("slab", slab, 0, 0, 1ul << 31, NULL),
    {NULL, 0, 0, 0, 0, NULL},
};
#define R1_KEY(k, f, i, lo, hi) {k, offsetof(dmlcl__r1_tune, f), i, lo, hi, NULL}
static const key r1_keys[] = {
    R1_KEY("v", vec, 0, 1, 64),        R1_KEY("wg", wg, 0, 1, 4096),
    R1_KEY("rows", rows, 1, 0, 1),     R1_KEY("seg", seg, 1, 0, 65536),
    R1_KEY("win", win, 1, 0, 1),       R1_KEY("pair", pair, 1, 0, 1),
    R1_KEY("gpc", gpc, 0, 1, 4096),    R1_KEY("cpu", cpu, 1, 0, 65536),
    R1_KEY("nt", nt, 1, 0, 1),         R1_KEY("tp", tp, 1, 0, 1),
    {"rv", offsetof(dmlcl__r1_tune, rv), 1, 0, 0, rv_values},
    R1_KEY("slab", slab, 0, 0, 1ul << 31),
    {NULL, 0, 0, 0, 0, NULL},
};

static const variable rs_plan = {"DMLCL_RS_PLAN", "variant=generic|lines|chunks, wg=N, waves=N, slab=0..2147483648",
                                 rs_keys};
static const variable resample_plan = {
    "DMLCL_RESAMPLE_PLAN",
    "v=1..64, wg=1..4096, rows=0|1, seg=0..65536, win=0|1, pair=0|1, gpc=1..4096, cpu=0..65536, "
    "nt=0|1, tp=0|1, rv=4|8|16, slab=0..2147483648",
    r1_keys};

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
static int set(const key *keys, const char *name, const char *val, void *dst)
{
    const key *k = keys;
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

static int parse(const char *s, const key *keys, void *dst)
{
    char name[16], val[16];
    int r;
    while ((r = next_item(&s, name, val)) > 0)
        if (set(keys, name, val, dst))
            return -1;
    return r;
}

int dmlcl__rs_tune_parse(const char *s, dmlcl__rs_tune *t)
{
    *t = (dmlcl__rs_tune){-1, 0, 0, 1u << 31};
    return parse(s, rs_keys, t);
}

int dmlcl__r1_tune_parse(const char *s, dmlcl__r1_tune *t)
{
    *t = (dmlcl__r1_tune){0, 0, -1, -1, -1, -1, 0, -1, -1, -1, -1, 1u << 31};
    return parse(s, r1_keys, t);
}

/* The message for a value of v's variable that did not parse (parsed != 0), naming op. */
static dmlcl_status refuse(const variable *v, const char *op, int parsed, const char *value)
{
    if (parsed)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s must be key=value pairs (%s) separated by commas, got \"%s\"",
                           op, v->env, v->keys_text, value);
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__overrides_rs(const char *op, dmlcl__rs_tune *t)
{
    const char *s = getenv(rs_plan.env);
    return refuse(&rs_plan, op, dmlcl__rs_tune_parse(s, t), s);
}

dmlcl_status dmlcl__overrides_resample(const char *op, dmlcl__r1_tune *t, int *given)
{
    const char *s = getenv(resample_plan.env);
    if (given)
        *given = s && *s;
    return refuse(&resample_plan, op, dmlcl__r1_tune_parse(s, t), s);
}

/* Test hook (not in any public header): forces 64-bit index arithmetic, so the tests run
 * the IDX64 kernels on tensors small enough to allocate (RESAMPLE1 kernels and the tap
 * kernels). */
static int force_idx64;
void dmlcl_test_resample_force_idx64(int on);
void dmlcl_test_resample_force_idx64(int on)
{
    __atomic_store_n(&force_idx64, on, __ATOMIC_SEQ_CST);
}

int dmlcl__overrides_idx64(void) { return __atomic_load_n(&force_idx64, __ATOMIC_SEQ_CST); }
