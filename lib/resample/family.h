/* What the RESAMPLE family's files share (nothing outside lib/resample/ includes this):
 * the shared checks (checks.c), each operator's check (validate.c), what an operator reads
 * (tiles.c) and the two kernel engines: the RESAMPLE1 kernels (resample1.c) and the tap
 * kernels (taps.c, taps.h). */
#ifndef DMLCL_RESAMPLE_FAMILY_H
#define DMLCL_RESAMPLE_FAMILY_H
#include "core/memo.h"
#include "core/op.h"
#include "resample/resample1/resample1_plan.h"

/* What the family's engines keep in the context's memo (core/memo.h). */
enum {
    DMLCL__MEMO_TAPS_DIM = DMLCL__MEMO_FAMILY, /* key: a tap dimension's inputs; the entry:
                                                 * its rows (taps.c) */
    DMLCL__MEMO_R1_PLANS, /* key: a dmlcl__resample_key; the entry: a RESAMPLE1
                           * operator's plans and their table's buffer (resample1.c) */
    DMLCL__MEMO_TAPS_PLAN /* key: a dmlcl__resample_key; the entry: a tap operator's plan
                           * and its table's buffer (taps.c) */
};

/* ---- the shared checks (checks.c) --------------------------------------------------------
 * What every operator of the family checks, named by its descriptor's fields. */
typedef struct dmlcl__resample_args {
    const char *name;                         /* "resample1": messages */
    const char *in_field, *out_field;         /* "input_tensor", "output_tensor" */
    const char *count_field;                  /* "dimension_count" or "scale_count" */
    const dmlcl_tensor_desc *in, *out;
    dmlcl_interpolation_mode mode;
    uint32_t count;
    const float *scales, *in_offsets, *out_offsets;
    const dmlcl_axis_direction *direction;    /* checked after the mode; NULL: none here */
    int sums;                                 /* RESAMPLE_GRAD1: adds, even for nearest */
} dmlcl__resample_args;
/* Tensors (same rank and type, one of FLOAT32, FLOAT16, FLOAT64, INT8, UINT8, INT16,
 * UINT16, and INT32 or UINT32 for nearest where the operator does not sum), mode,
 * direction, arrays, no aliased output, tiles placed from op->tile_in / tile_out, FLOAT64
 * support (op->ctx may be NULL: no device rule). Fills op->in[0] and op->out[0]. */
dmlcl_status dmlcl__resample_check_args(dmlcl_operator *op, const dmlcl__resample_args *a);
/* `field`, n values: non-NULL; scales (is_scale) finite and > 0, offsets finite. */
dmlcl_status dmlcl__resample_check_values(const char *name, const char *field, const float *v,
                                          uint32_t n, int is_scale);
/* rounding_direction is 0 or 1. */
dmlcl_status dmlcl__resample_rounding_check(const char *name, dmlcl_axis_direction dir);
/* RESAMPLE2's direction as a nearest rule (INCREASING: ceil; DECREASING: floor). */
dmlcl__nearest_rule dmlcl__resample_rule_of(dmlcl_axis_direction dir);

/* ---- what an operator reads (tiles.c) -----------------------------------------------------
 * Whatever its descriptor: for the halo query and the tiles' check. */
typedef struct dmlcl__resample_map {
    int grad;   /* RESAMPLE_GRAD1: the output is the forward input, the input its output */
    int linear; /* LINEAR, else NEAREST_NEIGHBOR with `rule` */
    int widen;  /* RESAMPLE3 antialiased: LINEAR dimensions with scale < 1 widen the filter */
    dmlcl__nearest_rule rule;
    const float *scales, *in_offsets, *out_offsets;
} dmlcl__resample_map;
/* The map lives in the class interface's dmlcl__reads (core/op.h). */
static inline dmlcl__resample_map *dmlcl__resample_map_of(dmlcl__reads *r)
{
    _Static_assert(sizeof(dmlcl__resample_map) <= sizeof(dmlcl__reads), "dmlcl__reads too small");
    return (dmlcl__resample_map *)r;
}
/* The box of op->in[0]'s logical tensor that box `out` of op->out[0]'s reads (op's tensors
 * validated). An empty box (a size 0) reads nothing: all sizes 0. */
void dmlcl__resample_input_box(const dmlcl_operator *op, const dmlcl__resample_map *m,
                               const dmlcl__box *out, dmlcl__box *in);
/* The class's input_range (core/op.h): dim_reads of d. */
void dmlcl__resample_input_range(const dmlcl_operator *op, const dmlcl__resample_map *m,
                                 uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                                 uint64_t *hi);
/* RESAMPLE1-shaped descriptors' map (widen: RESAMPLE3's antialiasing). */
dmlcl__resample_map dmlcl__resample1_map(const dmlcl_resample1_desc *d, dmlcl__nearest_rule rule,
                                         int widen);
/* Tiles: fails unless the input tile holds what the output tile reads. */
dmlcl_status dmlcl__resample_check_tiles(const dmlcl_operator *op, const char *name,
                                         const dmlcl__resample_map *m);
/* The tiles of op->in[0] / op->out[0] (from op->tile_in / tile_out) for operator `name`,
 * whose data input and output fields are named in_field and out_field. */
dmlcl_status dmlcl__resample_place_tiles(dmlcl_operator *op, const char *name,
                                         const char *in_field, const char *out_field);

/* ---- one check per operator (validate.c): the classes' check -------------------------------
 * Every rule (op->ctx may be NULL: no device rules), the tiles placed from op->tile_in /
 * tile_out, and what the operator reads into *r (dmlcl__resample_map_of). */
dmlcl_status dmlcl__resample_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r);
dmlcl_status dmlcl__resample1_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r);
dmlcl_status dmlcl__resample2_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r);
dmlcl_status dmlcl__resample3_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r);
dmlcl_status dmlcl__resample_grad1_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r);

/* ---- what the engines plan from (plan_key.c) -----------------------------------------------
 * Everything an engine's plan is a function of (the planners are pure: core/plan.h; the
 * parts' shared searches, op->whole_dims, only spare work): the key of the memo's plans,
 * so that an operator created again, or a slab like an earlier one, skips the planning
 * and the tables. Zeroed first, padding included: keys compare as bytes. */
typedef struct dmlcl__resample_key {
    dmlcl__tensor in, out;
    dmlcl__limits lim;
    float scales[DMLCL_MAXDIM], in_offsets[DMLCL_MAXDIM], out_offsets[DMLCL_MAXDIM];
    dmlcl__r1_tune t;
    int tuned, grad, linear, widen, force_idx64;
    dmlcl__nearest_rule rule;
} dmlcl__resample_key;
/* The key of op (its tensors checked and placed) reading *m, under tune on a device of lim. */
void dmlcl__resample_key_make(const dmlcl_operator *op, const dmlcl__resample_map *m,
                              const dmlcl__resample_tune *tune, const dmlcl__limits *lim,
                              int force_idx64, dmlcl__resample_key *k);
/* Counts a plan made where the memo missed (dmlcl_test_resample_plans, for the tests). */
void dmlcl__resample_count_plan(void);

/* ---- the RESAMPLE1 kernels (resample1.c) ---------------------------------------------------
 * Plans, fetches the kernel and uploads the tables of a checked operator (tiles checked)
 * that reads *m; vt names it; tune: $DMLCL_RESAMPLE_PLAN as read. */
dmlcl_status dmlcl__resample1_build(dmlcl_operator *op, const dmlcl__op_vtable *vt,
                                    const dmlcl__resample_map *m,
                                    const dmlcl__resample_tune *tune);
dmlcl_status dmlcl__resample1_enqueue(dmlcl_operator *op, const cl_mem *in,
                                      const uint64_t *in_off, const cl_mem *out,
                                      const uint64_t *out_off, cl_uint nwait,
                                      const cl_event *wait, cl_event *event);
void dmlcl__resample1_destroy(dmlcl_operator *op);
void dmlcl__resample1_describe(dmlcl_operator *op); /* op->plan_text, on demand */
#endif
