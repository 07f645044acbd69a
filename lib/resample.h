/* Internal interfaces shared by the RESAMPLE family's files (resample1.c, resample3.c,
 * resample_grad1.c, resample_taps*.c). */
#ifndef DMLCL_RESAMPLE_H
#define DMLCL_RESAMPLE_H
#include "internal.h"

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
/* RESAMPLE3 without antialiasing: RESAMPLE2's kernels, messages "resample3: ...". */
dmlcl_status dmlcl__resample3_create_plain(dmlcl_operator *op, const dmlcl_resample1_desc *r1,
                                           dmlcl_axis_direction dir);
#endif
