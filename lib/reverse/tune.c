/* $DMLCL_RS_PLAN's keys (tune.h), parsed by core's overrides parser. */
#include "reverse/tune.h"

static const char *const variants[] = {"generic", "lines", "chunks", "tile", "blocks", NULL};

#define KEY(k, f, i, lo, hi, n) {k, offsetof(dmlcl__rs_tune, f), i, lo, hi, n}
static const dmlcl__override_key keys[] = {
    KEY("variant", variant, 1, 0, 0, variants),
    KEY("wg", wg, 0, 1, 4096, NULL),
    KEY("waves", waves, 0, 1, 1u << 20, NULL),
    KEY("slab", slab, 0, 0, 1ul << 31, NULL),
    KEY("seg", seg, 0, 1, 1u << 30, NULL),
    {NULL, 0, 0, 0, 0, NULL},
};

static const dmlcl__override_var rs_plan = {
    "DMLCL_RS_PLAN", "variant=generic|lines|chunks|tile|blocks, wg=N, waves=N, slab=0..2147483648, seg=1..1073741824", keys};

int dmlcl__rs_tune_parse(const char *s, dmlcl__rs_tune *t)
{
    *t = (dmlcl__rs_tune){-1, 0, 0, 1u << 31, 0};
    return dmlcl__overrides_parse(s, keys, t);
}

dmlcl_status dmlcl__rs_tune_read(const char *op, dmlcl__rs_tune *t)
{
    *t = (dmlcl__rs_tune){-1, 0, 0, 1u << 31, 0};
    return dmlcl__overrides_read(&rs_plan, op, t, NULL);
}
