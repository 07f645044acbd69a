/* The RESAMPLE family's shared rules (family.h): every operator of it checks these, under
 * its own name and field names. */
#include "resample/family.h"
#include <math.h>

/* RESAMPLE1's data types, which every operator of the family has. The 32-bit integers
 * only move (nearest) and so are refused where the operator computes (linear, and
 * RESAMPLE_GRAD1's sums): float32 holds them exactly only up to 2^24 (doc/operators.md). */
static int is_int32(dmlcl_tensor_data_type t)
{
    return t == DMLCL_TENSOR_DATA_TYPE_INT32 || t == DMLCL_TENSOR_DATA_TYPE_UINT32;
}

static int computes_ok(dmlcl_tensor_data_type t)
{
    return t == DMLCL_TENSOR_DATA_TYPE_FLOAT32 || t == DMLCL_TENSOR_DATA_TYPE_FLOAT16 ||
           t == DMLCL_TENSOR_DATA_TYPE_FLOAT64 || t == DMLCL_TENSOR_DATA_TYPE_INT8 ||
           t == DMLCL_TENSOR_DATA_TYPE_UINT8 || t == DMLCL_TENSOR_DATA_TYPE_INT16 ||
           t == DMLCL_TENSOR_DATA_TYPE_UINT16;
}

static dmlcl_status check_type(const dmlcl__resample_args *a, dmlcl_tensor_data_type t)
{
    if (a->sums && !computes_ok(t))
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s data_type must be FLOAT32, FLOAT16, FLOAT64, INT8, UINT8, "
                           "INT16 or UINT16, got %s%s", a->name, a->in_field, dmlcl__type_name(t),
                           is_int32(t) ? " (gradients are summed in float32, which holds "
                                         "32-bit integers exactly only up to 2^24)" : "");
    if (!computes_ok(t) && !is_int32(t))
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s data_type must be FLOAT32, FLOAT16, FLOAT64, INT8, UINT8, "
                           "INT16, UINT16, INT32 or UINT32, got %s", a->name, a->in_field,
                           dmlcl__type_name(t));
    return DMLCL_SUCCESS;
}

static dmlcl_status check_tensors(dmlcl_operator *op, const dmlcl__resample_args *a)
{
    dmlcl__tensor *in = &op->in[0], *out = &op->out[0];
    const char *name = a->name;
    dmlcl_status st;
    if ((st = dmlcl__tensor_check(name, a->in_field, a->in, in)) ||
        (st = dmlcl__tensor_check(name, a->out_field, a->out, out)))
        return st;
    if (out->rank != in->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s dimension_count must equal %s's (%u), got %u", name,
                           a->out_field, a->in_field, in->rank, out->rank);
    if (a->count != in->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s must equal the tensors' dimension_count (%u), got %u", name,
                           a->count_field, in->rank, a->count);
    if (out->type != in->type)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s data_type must equal %s's (%s), got %s", name, a->out_field,
                           a->in_field, dmlcl__type_name(in->type), dmlcl__type_name(out->type));
    return check_type(a, in->type);
}

dmlcl_status dmlcl__resample_check_values(const char *name, const char *field, const float *v,
                                          uint32_t n, int is_scale)
{
    if (!v)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s is NULL (it needs %u values)", name,
                           field, n);
    for (uint32_t i = 0; i < n; i++) {
        if (is_scale && !(isfinite(v[i]) && v[i] > 0))
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s[%u] must be finite and > 0, got %g",
                               name, field, i, (double)v[i]);
        if (!is_scale && !isfinite(v[i]))
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s[%u] must be finite, got %g", name,
                               field, i, (double)v[i]);
    }
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__resample_check_args(dmlcl_operator *op, const dmlcl__resample_args *a)
{
    const char *name = a->name;
    dmlcl_status st = check_tensors(op, a);
    if (st)
        return st;
    if (a->mode != DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR &&
        a->mode != DMLCL_INTERPOLATION_MODE_LINEAR)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: interpolation_mode must be 0 (NEAREST_NEIGHBOR) or 1 (LINEAR), "
                           "got %d", name, (int)a->mode);
    if (a->mode == DMLCL_INTERPOLATION_MODE_LINEAR && is_int32(op->in[0].type))
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: data_type %s takes interpolation_mode 0 (NEAREST_NEIGHBOR) only, "
                           "got 1 (LINEAR): LINEAR computes in float32, which holds 32-bit integers "
                           "exactly only up to 2^24", name, dmlcl__type_name(op->in[0].type));
    if (a->direction && (st = dmlcl__resample_rounding_check(name, *a->direction)))
        return st;
    uint32_t n = a->count;
    if ((st = dmlcl__resample_check_values(name, "scales", a->scales, n, 1)) ||
        (st = dmlcl__resample_check_values(name, "input_pixel_offsets", a->in_offsets, n, 0)) ||
        (st = dmlcl__resample_check_values(name, "output_pixel_offsets", a->out_offsets, n,
                                           0)) ||
        (st = dmlcl__tensor_check_no_alias(name, a->out_field, &op->out[0])) ||
        (st = dmlcl__resample_place_tiles(op, name, a->in_field, a->out_field)))
        return st;
    /* No context: the halo query, which needs no device. */
    if (op->in[0].type == DMLCL_TENSOR_DATA_TYPE_FLOAT64 && op->ctx && !op->ctx->info.has_fp64)
        return dmlcl__fail(DMLCL_UNSUPPORTED,
                           "%s: data_type FLOAT64 needs cl_khr_fp64, which the device \"%s\" "
                           "does not support", name, op->ctx->info.name);
    return DMLCL_SUCCESS;
}

/* RESAMPLE2, RESAMPLE3 and RESAMPLE_GRAD1: RESAMPLE1 with ceil or floor. */
dmlcl_status dmlcl__resample_rounding_check(const char *name, dmlcl_axis_direction dir)
{
    if (dir != DMLCL_AXIS_DIRECTION_INCREASING && dir != DMLCL_AXIS_DIRECTION_DECREASING)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: rounding_direction must be 0 (INCREASING) or 1 (DECREASING), "
                           "got %d", name, (int)dir);
    return DMLCL_SUCCESS;
}

dmlcl__nearest_rule dmlcl__resample_rule_of(dmlcl_axis_direction dir)
{
    return dir == DMLCL_AXIS_DIRECTION_INCREASING ? DMLCL__NEAREST_CEIL : DMLCL__NEAREST_FLOOR;
}
