/* Tuning and test overrides (overrides.c): the only place that reads them from the
 * environment. Each variable takes one syntax, "key=value,key=value" (keys [a-z]+, values
 * [a-z0-9]+: a decimal number within the key's range, or one of its names), each key
 * optional, in any order; unset or "" = none. The planners get the parsed structs and read
 * no environment.
 *   DMLCL_RS_PLAN        REVERSE_SUBSEQUENCES: variant=generic|lines|chunks, wg, waves, slab
 *   DMLCL_RESAMPLE_PLAN  the RESAMPLE family: v, wg, rows, seg, win, pair, gpc, cpu, nt, tp,
 *                        rv, slab
 * Test hooks set by a call rather than the environment live here too
 * (dmlcl_test_resample_force_idx64). */
#ifndef DMLCL_CORE_OVERRIDES_H
#define DMLCL_CORE_OVERRIDES_H
#include "core/base.h"

/* $DMLCL_RS_PLAN, e.g. "variant=lines,wg=128,waves=8"; 0 / -1 = the planner's choice. A
 * variant that does not apply to the shape is ignored. */
typedef struct dmlcl__rs_tune {
    int variant;     /* -1 or a dmlcl__rs_variant */
    uint32_t wg;     /* GPU work-group size */
    uint32_t waves;  /* GPU work-groups per compute unit before items loop (grid stride) */
    uint32_t slab;   /* slabs (core/slab.h): the bound on a launch's spans in elements,
                      * 2^31 unless given; 0: no slabs (64-bit indices past 2^32) */
} dmlcl__rs_tune;

/* $DMLCL_RESAMPLE_PLAN, e.g. "v=8,wg=128,rows=1"; 0 = the planner's choice. */
typedef struct dmlcl__r1_tune {
    uint32_t vec, wg;
    int rows; /* -1: the planner's choice; 0/1: the 2-D row kernels off/on where they apply */
    int seg;  /* -1: the planner's choice; 0: off; N: the *_seg kernels with N outputs */
    int win;  /* -1: the planner's choice; 0: no window; 1: a window wherever one unit fits
               * (the kernel checks each item, so tests can mix both paths in one launch) */
    int pair; /* -1: the planner's choice; 0: off; 1: wherever some rows pair up */
    uint32_t gpc; /* GPUs: work-groups per compute unit before items loop (0: the planner's) */
    int cpu;  /* -1: the planner's choice; 0: off; N: the CPU row blocks, N rows per item */
    int nt;   /* -1: the planner's choice; 0/1: their non-temporal stores off/on */
    int tp;   /* tap kernels' segments: -1: the planner's choice; 0/1: vector pattern off/on */
    int rv;        /* LINEAR row kernels (GPUs): outputs per item 4 << rv (rv=4|8|16: 0, 1,
                    * 2; -1: the planner's, 4); more share more of each window's loads */
    uint32_t slab; /* slabs (core/slab.h): the bound on a launch's spans in elements, 2^31
                    * unless given; 0: no slabs (64-bit indices past 2^32) */
} dmlcl__r1_tune;

/* Parse a string of the variable's syntax into *t: 0, or -1 (callers report the whole
 * string). NULL or "" = no overrides. */
int dmlcl__rs_tune_parse(const char *s, dmlcl__rs_tune *t);
int dmlcl__r1_tune_parse(const char *s, dmlcl__r1_tune *t);

/* Read and parse the variable for operator `op`; a malformed value fails with
 * "<op>: <VARIABLE> must be key=value pairs (<keys>) separated by commas, got "<value>"".
 * *given (may be NULL): the variable is set and not empty. */
dmlcl_status dmlcl__overrides_rs(const char *op, dmlcl__rs_tune *t);
dmlcl_status dmlcl__overrides_resample(const char *op, dmlcl__r1_tune *t, int *given);

/* The tests' hook dmlcl_test_resample_force_idx64: 1 = 64-bit indices. */
int dmlcl__overrides_idx64(void);

#endif
