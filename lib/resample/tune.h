/* The RESAMPLE family's tuning and test overrides (tune.c): $DMLCL_RESAMPLE_PLAN, in core's
 * syntax (core/overrides.h), e.g. "v=8,wg=128,rows=1", read by both engines (RESAMPLE1's and
 * the taps'), and the tests' hook that forces 64-bit indices. */
#ifndef DMLCL_RESAMPLE_TUNE_H
#define DMLCL_RESAMPLE_TUNE_H
#include "core/overrides.h"

/* 0 = the planner's choice. */
typedef struct dmlcl__r1_tune {
    uint32_t vec, wg;
    int rows; /* -1: the planner's choice; 0/1: the 2-D row kernels off/on where they apply */
    int seg;  /* -1: the planner's choice; 0: off; N: the *_seg kernels with N outputs */
    int win;  /* -1: the planner's choice; 0: no window; 1: a window wherever one unit fits
               * (the kernel checks each item, so tests can mix both paths in one launch) */
    int pair; /* -1: the planner's choice; 0: off; 1: wherever some rows pair up; 2: in two
               * outer dimensions where both pair up (else as 1) */
    uint32_t gpc; /* GPUs: work-groups per compute unit before items loop (0: the planner's) */
    int cpu;  /* -1: the planner's choice; 0: off; N: the CPU row blocks, N rows per item */
    int nt;   /* -1: the planner's choice; 0/1: their non-temporal stores off/on */
    int tp;   /* tap kernels' segments: -1: the planner's choice; 0/1: vector pattern off/on */
    int rv;        /* LINEAR row kernels (GPUs): outputs per item DMLCL_R1_RV(rv) (rv=4|8|12|16:
                    * 0..3; -1: the planner's); more share more of each window's loads */
    uint32_t slab; /* slabs (core/slab.h): the bound on a launch's spans in elements, 2^31
                    * unless given; 0: no slabs (64-bit indices past 2^32) */
    uint32_t rb;   /* row kernels (GPUs): consecutive rows (LINEAR pairs: groups) per item
                    * and step, 1..16 (0: the planner's) */
    int wplain;    /* LINEAR row kernels' window: -1: the planner's; 0: the choice per
                    * term; 1: the plain sum, redone with the choice where a result is not
                    * finite */
    int regs;      /* LINEAR row kernels' register cap per item where the device takes one
                    * (-cl-nv-maxrregcount): -1: the planner's; 0: none; N: N registers */
    uint32_t xc;   /* the tap rows kernel's columns per item, 1..8 (0: the planner's) */
} dmlcl__r1_tune;

/* The variable as one creation read it (the class's overrides, core/op.h's dmlcl__tune). */
typedef struct dmlcl__resample_tune {
    dmlcl__r1_tune t;
    int given; /* the variable is set and not empty */
} dmlcl__resample_tune;

/* Parses a string of the variable's syntax into *t: 0, or -1. NULL or "" = none. */
int dmlcl__r1_tune_parse(const char *s, dmlcl__r1_tune *t);
/* Reads $DMLCL_RESAMPLE_PLAN for operator `op` (its message names it when malformed);
 * *given (may be NULL): the variable is set and not empty. */
dmlcl_status dmlcl__r1_tune_read(const char *op, dmlcl__r1_tune *t, int *given);

/* The tests' hook dmlcl_test_resample_force_idx64: 1 = 64-bit indices. */
int dmlcl__resample_force_idx64(void);
/* The row kernels' outputs per item for rv's value index: 4, 8, 12, 16. */
#define DMLCL_R1_RV(i) ((i) == 2 ? 12u : 4u << ((i) == 3 ? 2 : (i)))

#endif
