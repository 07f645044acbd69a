/* Internal interfaces shared by the RESAMPLE family's files (resample1.c, resample3.c,
 * resample_grad1.c, resample_taps*.c). */
#ifndef DMLCL_RESAMPLE_H
#define DMLCL_RESAMPLE_H
#include "core/op.h"
#include "resample/plan.h"

/* resample1.c: RESAMPLE1's rules (tensors, types, mode, arrays, FLOAT64 support) under
 * another operator name; fills op->in[0] and op->out[0]. */
dmlcl_status dmlcl__resample1_validate(dmlcl_operator *op, const char *name,
                                       const dmlcl_resample1_desc *d);
/* RESAMPLE1's data types (every RESAMPLE family operator has them): FLOAT32, FLOAT16,
 * FLOAT64, INT8, UINT8. */
int dmlcl__resample_type_ok(dmlcl_tensor_data_type t);
/* Non-NULL, n values; scales finite and > 0, offsets finite. */
dmlcl_status dmlcl__resample_check_array(const char *name, const char *field, const float *v,
                                         uint32_t n, int is_scale);
/* rounding_direction is 0 or 1. */
dmlcl_status dmlcl__resample_rounding_check(const char *name, dmlcl_axis_direction dir);
/* The tiles of op->in[0] / op->out[0] (from op->tile_in / tile_out) for operator `name`,
 * whose data input and output fields are named in_field and out_field. */
dmlcl_status dmlcl__resample_place_tiles(dmlcl_operator *op, const char *name,
                                         const char *in_field, const char *out_field);

/* What a RESAMPLE family operator reads, whatever its descriptor: for the halo query and
 * the tiles' check (resample_halo.c). */
typedef struct dmlcl__resample_map {
    int grad;   /* RESAMPLE_GRAD1: the output is the forward input, the input its output */
    int linear; /* LINEAR, else NEAREST_NEIGHBOR with `rule` */
    int widen;  /* RESAMPLE3 antialiased: LINEAR dimensions with scale < 1 widen the filter */
    dmlcl__nearest_rule rule;
    const float *scales, *in_offsets, *out_offsets;
} dmlcl__resample_map;
/* The box of op->in[0]'s logical tensor that box `out` of op->out[0]'s reads (op's tensors
 * validated). An empty box (a size 0) reads nothing: all sizes 0. */
void dmlcl__resample_input_box(const dmlcl_operator *op, const dmlcl__resample_map *m,
                               const dmlcl__box *out, dmlcl__box *in);
/* RESAMPLE1-shaped descriptors' map (widen: RESAMPLE3's antialiasing). */
dmlcl__resample_map dmlcl__resample1_map(const dmlcl_resample1_desc *d, dmlcl__nearest_rule rule,
                                         int widen);
/* Tiles: fails unless the input tile holds what the output tile reads. */
dmlcl_status dmlcl__resample_check_tiles(const dmlcl_operator *op, const char *name,
                                         const dmlcl__resample_map *m);

/* RESAMPLE3 without antialiasing, checked: RESAMPLE2's kernels, messages "resample3: ...". */
dmlcl_status dmlcl__resample3_create_plain(dmlcl_operator *op, const dmlcl_resample1_desc *r1,
                                           const dmlcl__resample_map *m);
/* RESAMPLE2's direction as a nearest rule (INCREASING: ceil; DECREASING: floor). */
dmlcl__nearest_rule dmlcl__resample_rule_of(dmlcl_axis_direction dir);

/* One check per operator: every rule (op->ctx may be NULL: no device rules), the tiles
 * placed from op->tile_in / tile_out, and what the operator reads into *m. */
dmlcl_status dmlcl__resample_check(dmlcl_operator *op, const dmlcl_resample_desc *d,
                                   dmlcl__resample_map *m);
dmlcl_status dmlcl__resample1_check(dmlcl_operator *op, const dmlcl_resample1_desc *d,
                                    dmlcl__resample_map *m);
dmlcl_status dmlcl__resample2_check(dmlcl_operator *op, const dmlcl_resample2_desc *d,
                                    dmlcl__resample_map *m);
dmlcl_status dmlcl__resample3_check(dmlcl_operator *op, const dmlcl_resample3_desc *d,
                                    dmlcl__resample_map *m);
dmlcl_status dmlcl__resample_grad1_check(dmlcl_operator *op, const dmlcl_resample_grad1_desc *d,
                                         dmlcl__resample_map *m);
#endif
