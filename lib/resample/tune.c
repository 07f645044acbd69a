/* $DMLCL_RESAMPLE_PLAN's keys (tune.h), parsed by core's overrides parser, and the tests'
 * 64-bit index hook. */
#include "resample/tune.h"

static const char *const rv_values[] = {"4", "8", "12", "16", NULL}; /* DMLCL_R1_RV */

#define KEY(k, f, i, lo, hi) {k, offsetof(dmlcl__r1_tune, f), i, lo, hi, NULL}
static const dmlcl__override_key keys[] = {
    KEY("v", vec, 0, 1, 64),        KEY("wg", wg, 0, 1, 4096),
    KEY("rows", rows, 1, 0, 1),     KEY("seg", seg, 1, 0, 65536),
    KEY("win", win, 1, 0, 1),       KEY("pair", pair, 1, 0, 2),
    KEY("gpc", gpc, 0, 1, 4096),    KEY("cpu", cpu, 1, 0, 65536),
    KEY("nt", nt, 1, 0, 1),         KEY("tp", tp, 1, 0, 1),
    {"rv", offsetof(dmlcl__r1_tune, rv), 1, 0, 0, rv_values},
    KEY("slab", slab, 0, 0, 1ul << 31), KEY("rb", rb, 0, 1, 16),
    KEY("wplain", wplain, 1, 0, 1), KEY("regs", regs, 1, 0, 255),
    KEY("xc", xc, 0, 1, 8),
    {NULL, 0, 0, 0, 0, NULL},
};

static const dmlcl__override_var resample_plan = {
    "DMLCL_RESAMPLE_PLAN",
    "v=1..64, wg=1..4096, rows=0|1, seg=0..65536, win=0|1, pair=0|1|2, gpc=1..4096, cpu=0..65536, "
    "nt=0|1, tp=0|1, rv=4|8|12|16, slab=0..2147483648, rb=1..16, wplain=0|1, regs=0..255, xc=1..8",
    keys};

static const dmlcl__r1_tune defaults = {0, 0, -1, -1, -1, -1, 0, -1, -1, -1, -1, 1u << 31, 0, -1, -1, 0};

int dmlcl__r1_tune_parse(const char *s, dmlcl__r1_tune *t)
{
    *t = defaults;
    return dmlcl__overrides_parse(s, keys, t);
}

dmlcl_status dmlcl__r1_tune_read(const char *op, dmlcl__r1_tune *t, int *given)
{
    *t = defaults;
    return dmlcl__overrides_read(&resample_plan, op, t, given);
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

int dmlcl__resample_force_idx64(void)
{
    return __atomic_load_n(&force_idx64, __ATOMIC_SEQ_CST);
}
