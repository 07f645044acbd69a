/* The tap kernels' arguments (taps.cl), shared with taps.c and the tap planner
 * (taps_plan.c). The fields are listed once (core/kernel_args.h says how and why all are
 * 64-bit). */
#ifndef DMLCL_RESAMPLE_TAPS_ARGS_H
#define DMLCL_RESAMPLE_TAPS_ARGS_H
#include "core/kernel_args.h"

/* The column kernels (rows, segments): the inner dimension b (the last tabled one), the
 * affine dimension c inside it (channels-last; 8 = none), the columns nx = b's size x c's
 * size (nc), rows (count / nx), b's rows' word offset, source and result strides of b and
 * of c, division by nc. */
#define TAPS_ARGS(S, A)                                                                     \
    S(count)           /* result elements */                                                \
    S(rank)            /* dimensions */                                                     \
    S(nt)              /* tabled dimensions */                                              \
    A(rsize, 8)        /* result size and stride per dimension */                           \
    A(rstr, 8)                                                                              \
    A(sstr, 8)         /* source stride (affine dimensions: times their step) */            \
    A(rtab, 8)         /* word offset of the dimension's rows; ~0 = affine */               \
    A(rmul, 8)         /* multiply-high division by rsize (common.cl's fdiv) */             \
    A(rshr, 8)                                                                              \
    S(inner)           /* the column kernels (above) */                                     \
    S(cdim)                                                                                 \
    S(nx)                                                                                   \
    S(nc)                                                                                   \
    S(rows)                                                                                 \
    S(btab)                                                                                 \
    S(bstr)                                                                                 \
    S(bres)                                                                                 \
    S(csrc)                                                                                 \
    S(cres)                                                                                 \
    S(cmul)                                                                                 \
    S(cshr)                                                                                 \
    S(cv_ok)           /* CV > 1: this enqueue's bindings allow the vector loads, stores */ \
    S(sspan)           /* TP: source elements readable from src (after src_off) */

typedef struct taps_args {
    DMLCL__ARGS_STRUCT(TAPS_ARGS)
} taps_args;
#endif
