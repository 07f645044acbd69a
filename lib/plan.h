/* Planners: pure functions from (operator, sizes, strides, device limits) to a plan.
 * No OpenCL calls, so they are unit-tested directly (tests/check_planner.c). */
#ifndef DMLCL_PLAN_H
#define DMLCL_PLAN_H
#include "internal.h"

/* What a planner needs to know about the device. */
typedef struct dmlcl__limits {
    size_t max_work_group_size;
    uint32_t compute_units;
    int is_cpu;
} dmlcl__limits;

/* ---- REVERSE_SUBSEQUENCES -------------------------------------------------------------- */

/* Rank classes the kernel is compiled for: collapsed ranks are padded up to one of these
 * so that the number of programs stays small. */
#define DMLCL_RS_MAXRANK 8

typedef struct dmlcl__rs_plan {
    uint32_t rank;                   /* collapsed rank, padded to the rank class */
    uint32_t axis;                   /* the axis in the collapsed shape */
    uint64_t sizes[DMLCL_RS_MAXRANK];
    uint64_t in_str[DMLCL_RS_MAXRANK];
    uint64_t len_str[DMLCL_RS_MAXRANK]; /* 0 at the axis */
    uint64_t out_str[DMLCL_RS_MAXRANK];
    uint64_t count;                  /* output elements */
    uint32_t elem_bytes, len_bytes;  /* 1/2/4/8 and 4/8 */
    int idx64;                       /* 64-bit index arithmetic needed */
    size_t global, local;            /* NDRange; local 0 = let the runtime choose */
    char options[160];               /* complete build options: the program variant */
} dmlcl__rs_plan;

void dmlcl__rs_plan_make(const dmlcl__tensor *in, const dmlcl__tensor *lengths,
                         const dmlcl__tensor *out, uint32_t axis, const dmlcl__limits *lim,
                         dmlcl__rs_plan *p);

/* Work-group and global size for a grid-stride loop over `items` elements. */
void dmlcl__plan_ndrange(uint64_t items, const dmlcl__limits *lim, size_t *global, size_t *local);
#endif
