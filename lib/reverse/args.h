/* REVERSE_SUBSEQUENCES' kernel arguments (reverse_subsequences.cl), shared with create.c:
 * the shape travels as this struct, so shapes never cause recompiles. The fields are
 * listed once (core/kernel_args.h says how and why all are 64-bit). */
#ifndef DMLCL_REVERSE_ARGS_H
#define DMLCL_REVERSE_ARGS_H
#include "core/kernel_args.h"

#define RS_ARGS(S, A)                                                                       \
    A(size, 8)                                                                              \
    A(in_str, 8)                                                                            \
    A(len_str, 8)      /* 0 at the axis */                                                  \
    A(out_str, 8)                                                                           \
    A(div_mul, 8)      /* fast division by size[d] */                                       \
    A(div_shr, 8)                                                                           \
    S(units)           /* work units: elements, line segments, chunks or tiles */          \
    S(axis)                                                                                 \
    S(segs)            /* segments per line, and fast division by it: */                    \
    S(seg_mul)                                                                              \
    S(seg_shr)                                                                              \
    S(seg_len)         /* elements per segment */                                           \
    S(per_item)        /* LINES, BLOCKS: units per work-item */                             \
    S(ptiles)          /* TILE, BLOCKS: tiles across the rows, and fast division by it */   \
    S(ptile_mul)                                                                            \
    S(ptile_shr)                                                                            \
    S(in_span)         /* input elements from the binding's start */                        \
    S(axis_size)       /* size[axis], in_str[axis]: no dynamic indexing, which would make */ \
    S(axis_in_str)     /* GPU compilers copy the struct to memory */

typedef struct rs_args {
    DMLCL__ARGS_STRUCT(RS_ARGS)
} rs_args;
#endif
