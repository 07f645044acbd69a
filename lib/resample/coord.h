/* RESAMPLE1's coordinate functions (doc/operators.md), inline: every coordinate table, tap
 * table and halo query of the family calls them per row, and a call across files for
 * each was a third of an operator's creation time. */
#ifndef DMLCL_RESAMPLE_COORD_H
#define DMLCL_RESAMPLE_COORD_H
#include <float.h>
#include <math.h>
#include "core/slab.h"
#include <stdint.h>

/* The nearest-neighbour index rule: RESAMPLE1's floor(x + 0.5), or RESAMPLE2's rounding
 * directions (INCREASING = ceil(x), DECREASING = floor(x)); always clamped to [0, n - 1]. */
typedef enum {
    DMLCL__NEAREST_HALF_UP = 0,
    DMLCL__NEAREST_CEIL = 1,
    DMLCL__NEAREST_FLOOR = 2
} dmlcl__nearest_rule;

/* The mapping must be IEEE float32, step by step, on every host. There is no product in
 * it, so nothing can be fused into an FMA; clang still gets told. Where a compiler keeps
 * excess precision (FLT_EVAL_METHOD != 0, x87), volatile stores force each step to round
 * to float; elsewhere (SSE, NEON) each step already does, and plain floats let the
 * coordinate tables' rows overlap in the pipeline: they are most of a creation's time. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define ROUNDED_FLOAT float
#else
#define ROUNDED_FLOAT volatile float
#endif

static inline float dmlcl__resample1_coord(uint64_t o, float scale, float in_offset,
                                          float out_offset)
{
    ROUNDED_FLOAT t = (float)(int64_t)o; /* the same value (o < 2^63), one instruction */
    t = t - out_offset;
    t = t / scale;
    t = t - in_offset;
    return t;
}

/* floorf / ceilf without the libm call (x86-64's baseline has no rounding instruction, and
 * the coordinate tables call these per row: most of an operator's creation time). Equal
 * to them for every float but the sign of a zero, which no caller can see (a result
 * <= 0 is index 0; a weight x - floor(x) has x > 0): beyond 2^23 every float is an
 * integer, and NaN comes back as it went. */
static inline float dmlcl__floor_fast(float t)
{
    if (!(fabsf(t) < 8388608.0f))
        return t;
    float i = (float)(int32_t)t; /* truncation toward zero */
    return i > t ? i - 1 : i;
}

static inline float dmlcl__ceil_fast(float t)
{
    if (!(fabsf(t) < 8388608.0f))
        return t;
    float i = (float)(int32_t)t;
    return i < t ? i + 1 : i;
}

static inline uint32_t dmlcl__resample_nearest_rule(float x, uint64_t n,
                                                   dmlcl__nearest_rule rule)
{
    ROUNDED_FLOAT t = rule == DMLCL__NEAREST_HALF_UP ? x + 0.5f : x;
    float f = rule == DMLCL__NEAREST_CEIL ? dmlcl__ceil_fast(t) : dmlcl__floor_fast(t);
    if (!(f > 0)) /* also -inf */
        return 0;
    if ((double)f >= (double)(n - 1)) /* compared in double: n - 1 may not be a float */
        return (uint32_t)(n - 1);
    return (uint32_t)f;
}

static inline uint32_t dmlcl__resample1_linear(float x, uint64_t n, float *w)
{
    *w = 0;
    if (!(x > 0))
        return 0;
    if ((double)x >= (double)(n - 1))
        return (uint32_t)(n - 1);
    float f = dmlcl__floor_fast(x);
    *w = x - f; /* exact: the fraction bits of a float are a float */
    return (uint32_t)f;
}

static inline uint32_t dmlcl__resample1_nearest(float x, uint64_t n)
{
    return dmlcl__resample_nearest_rule(x, n, DMLCL__NEAREST_HALF_UP);
}

/* One dimension of the forward map (RESAMPLE1, RESAMPLE2, RESAMPLE3's unwidened linear),
 * made once per dimension from its whole sizes: the one definition that the coordinate
 * tables, RESAMPLE_GRAD1's and RESAMPLE3's tap tables and the tiles' halo all read, so
 * that the backward pass is the exact transpose of the forward one. */
typedef struct dmlcl__resample_axis {
    uint64_t n_in;             /* the whole input size */
    float scale, in_offset, out_offset;
    int linear;                /* LINEAR, else nearest with `rule` */
    dmlcl__nearest_rule rule;
    /* The spec's identity dimension: scale 1, offsets whose float32 sum is 0, equal sizes
     * (not for RESAMPLE2's floor and ceil, which would turn an ulp into a whole index):
     * output o reads input o alone, even where the formula's float32 steps land an ulp
     * off (0.3 / -0.3: 1.3f - 0.3f < 1). */
    int identity;
    uint64_t n_out;            /* the whole output size */
} dmlcl__resample_axis;

static inline dmlcl__resample_axis dmlcl__resample_axis_make(int linear, dmlcl__nearest_rule rule,
                                                             uint64_t n_in, uint64_t n_out,
                                                             float scale, float in_offset,
                                                             float out_offset)
{
    ROUNDED_FLOAT sum = in_offset + out_offset;
    dmlcl__resample_axis a = {n_in, scale, in_offset, out_offset, linear, rule, 0, n_out};
    a.identity = scale == 1.0f && sum == 0.0f && n_in == n_out &&
                 (linear || rule == DMLCL__NEAREST_HALF_UP);
    return a;
}

/* Forward output o's read along the axis: input index i0 and *w, the weight of i0 + 1
 * (LINEAR; 0: i0 alone, with weight 1). */
static inline uint32_t dmlcl__resample_axis_read(const dmlcl__resample_axis *a, uint64_t o,
                                                 float *w)
{
    *w = 0;
    if (a->identity)
        return (uint32_t)o; /* o < n_out = n_in */
    float x = dmlcl__resample1_coord(o, a->scale, a->in_offset, a->out_offset);
    return a->linear ? dmlcl__resample1_linear(x, a->n_in, w)
                     : dmlcl__resample_nearest_rule(x, a->n_in, a->rule);
}
/* Whether outputs [0, n_out) of the axis each read input first + o * step alone (weight 0
 * on any upper corner): a pass-through dimension, without a table. Never a pass over the
 * dimension's length: the reads and their upper corners are nondecreasing in o, so step 0
 * (every row the same) holds exactly when the last row is the first; a step >= 1 cannot
 * last past o = 2^24 + 1, where (float)o rounds to 2^24's value and the row repeats, so
 * only a dimension of at most 2^24 + 1 rows whose last row fits is read row by row. */
static inline int dmlcl__resample_axis_affine(const dmlcl__resample_axis *a, uint64_t n_out,
                                              uint64_t *first, uint64_t *step)
{
    float w;
    *first = 0, *step = 1;
    if (a->identity)
        return 1; /* rows o, however long */
    *first = dmlcl__resample_axis_read(a, 0, &w);
    *step = 0;
    if (w != 0 || n_out < 2)
        return w == 0;
    if (dmlcl__resample_axis_read(a, n_out - 1, &w) == *first)
        return w == 0;
    *step = dmlcl__resample_axis_read(a, 1, &w) - *first;
    if (*step == 0 || n_out > (1u << 24) + 1 ||
        dmlcl__resample_axis_read(a, n_out - 1, &w) != *first + (n_out - 1) * *step)
        return 0; /* the ends tell most maps that are not */
    for (uint64_t o = 1; o < n_out; o++)
        if (dmlcl__resample_axis_read(a, o, &w) != *first + o * *step || w != 0)
            return 0;
    return 1;
}

/* dmlcl__resample_axis_affine on output dimension d's whole map (n_out outputs), through
 * wd where given: told by the first part of a slabs operator, read by the others. */
static inline int dmlcl__resample_whole_affine(const dmlcl__resample_axis *ax, uint64_t n_out,
                                               uint32_t d, dmlcl__whole_dims *wd,
                                               uint64_t *first, uint64_t *step)
{
    if (wd && wd->known[d]) {
        *first = wd->first[d], *step = wd->step[d];
        return wd->affine[d];
    }
    const int affine = dmlcl__resample_axis_affine(ax, n_out, first, step);
    if (wd) {
        wd->known[d] = 1, wd->affine[d] = (uint8_t)affine;
        wd->first[d] = *first, wd->step[d] = *step;
    }
    return affine;
}
#endif
