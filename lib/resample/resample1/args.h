/* RESAMPLE1's kernel arguments (every layout, resample1_*.cl, through family.cl), shared
 * with resample1.c. The fields are listed once (core/kernel_args.h says how and why all
 * are 64-bit). The inner dimension is entry inner_k of its list (pass-through or
 * resampled); the outer loops skip it. mul/shr: multiply-high division by the size
 * (lib/core/fastdiv.c). */
#ifndef DMLCL_RESAMPLE1_ARGS_H
#define DMLCL_RESAMPLE1_ARGS_H
#include "core/kernel_args.h"

#define RESAMPLE1_ARGS(S, A)                                                                \
    S(units)           /* outer rows x chunks of V */                                       \
    S(chunks)                                                                               \
    S(chunks_mul)                                                                           \
    S(chunks_shr)                                                                           \
    S(np)              /* pass-through and resampled dimensions */                          \
    S(nr)                                                                                   \
    S(pass_inner)      /* 1: among the outer ones, pass-through varies fastest */           \
    S(inner_k)                                                                              \
    S(inner_size)                                                                           \
    S(inner_in)                                                                             \
    S(inner_out)                                                                            \
    S(inner_tab)                                                                            \
    S(inner_nin)       /* a resampled inner dimension's input size */                       \
    S(gtab)            /* PAIR_K: table row of the first group of rows */                   \
    S(gtab2)           /* PAIR_K2: the same for the second pair slot */                     \
    S(vec_ok)          /* 0: the output's / input's buffer base may be misaligned */        \
    S(vec_in)                                                                               \
    S(rows)            /* outer rows (units / chunks) */                                    \
    S(seg)             /* outputs per unit of the *_seg kernels */                          \
    S(skip_p)          /* list entries the outer loops skip (8: none) */                    \
    S(skip_r)                                                                               \
    S(size2)           /* *_seg2: the second inner dimension (resampled) */                 \
    S(in2)                                                                                  \
    S(out2)                                                                                 \
    S(tab2)                                                                                 \
    A(psize, 8)        /* the pass-through dimensions */                                    \
    A(pin, 8)                                                                               \
    A(pout, 8)                                                                              \
    A(pmul, 8)                                                                              \
    A(pshr, 8)                                                                              \
    A(rsize, 8)        /* the resampled dimensions */                                       \
    A(rin, 8)                                                                               \
    A(rout, 8)                                                                              \
    A(rtab, 8)                                                                              \
    A(rmul, 8)                                                                              \
    A(rshr, 8)

typedef struct resample1_args {
    DMLCL__ARGS_STRUCT(RESAMPLE1_ARGS)
} resample1_args;
#endif
