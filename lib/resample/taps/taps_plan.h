/* The tap engine's launch plan (taps_plan.c): pure, like every planner (core/plan.h): from
 * the tensors, the tables built for them, the device limits and the overrides to the
 * kernel's arguments, the kernel layout, its NDRange and its build options. No OpenCL
 * call; tests/check_taps_planner.c tests its decisions. */
#ifndef DMLCL_RESAMPLE_TAPS_PLAN_H
#define DMLCL_RESAMPLE_TAPS_PLAN_H
#include "resample/tune.h"
#include "core/plan.h"
#include "resample/taps/args.h"
#include "resample/taps/taps.h"

typedef struct dmlcl__taps_plan {
    taps_args args;    /* the kernel's arguments, but cv_ok (each enqueue's bindings) */
    uint64_t src_base; /* source element offset fixed by the affine dimensions */
    size_t global, local;         /* the 1-D kernels */
    int rows_2d;                  /* the rows (or segment) kernel, over global2/local2 */
    size_t global2[2], local2[2];
    unsigned kb;                  /* the column kernels' tap bound (1, 2, 4, 8; 0: 1-D) */
    unsigned segt;                /* the segment kernel's columns per item; 0 = rows */
    unsigned cv;                  /* the rows kernel's channels per item (1: one) */
    unsigned xc;                  /* ... and its columns per item (1: one) */
    int tp[16];                   /* the segment kernel's pattern (tp[0] < 0: none) */
    unsigned tpw;                 /* its lanes: two registers (dmlcl__simd_lanes) */
    int seg_nt;                   /* its non-temporal stores (SEGNT, with the pattern) */
    int idx64;                    /* 64-bit index arithmetic */
    const char *kernel;           /* resample_taps, resample_taps_rows or _seg */
    char options[640];            /* the generic program's build options */
    char options_tp[640];         /* with the pattern compiled in (= options without one) */
} dmlcl__taps_plan;

/* Starts a plan of result res read from src: every dimension affine, size 1 until
 * dmlcl__taps_plan_dim says otherwise. */
void dmlcl__taps_plan_init(dmlcl__taps_plan *p, const dmlcl__tensor *src,
                           const dmlcl__tensor *res);
/* Dimension d as the tables hold it (dim: its row_word, or its affine map). */
void dmlcl__taps_plan_dim(dmlcl__taps_plan *p, const dmlcl__tensor *src,
                          const dmlcl__tensor *res, uint32_t d, const dmlcl__taps_dim *dim);
/* The layout, NDRange, divisors and build options, from the dimensions' tables t. */
void dmlcl__taps_plan_launch(dmlcl__taps_plan *p, const dmlcl__taps_table *t,
                             const dmlcl__tensor *src, const dmlcl__tensor *res,
                             const dmlcl__limits *lim, const dmlcl__r1_tune *tune,
                             int force_idx64);
#endif
