/* RESAMPLE_GRAD1: the backward pass of RESAMPLE2. Each forward output's gradient goes to
 * the input elements the forward pass read, times the weights it used. Computed as a
 * gather (no atomics, reproducible): per input element, the forward outputs that read it,
 * from per-dimension inverse tables (lib/resample_taps_plan.c), summed in float (FLOAT64:
 * double) in the order a forward scatter would add them. INT8/UINT8 round the float sum
 * half to even and saturate once, on the store (kernels/resample_taps.cl). */
#include "resample/family.h"
#include "resample/resample.h"
#include "resample/taps.h"

static dmlcl_status check_tensors(dmlcl_operator *op, const dmlcl_resample_grad1_desc *d)
{
    static const char *const name = "resample_grad1";
    dmlcl__tensor *gin = &op->in[0], *gout = &op->out[0];
    dmlcl_status st;
    if ((st = dmlcl__tensor_check(name, "input_gradient_tensor", d->input_gradient_tensor,
                                  gin)) ||
        (st = dmlcl__tensor_check(name, "output_gradient_tensor", d->output_gradient_tensor,
                                  gout)))
        return st;
    if (gout->rank != gin->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: output_gradient_tensor dimension_count must equal "
                           "input_gradient_tensor's (%u), got %u", name, gin->rank, gout->rank);
    if (d->dimension_count != gin->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: dimension_count must equal the tensors' dimension_count (%u), "
                           "got %u", name, gin->rank, d->dimension_count);
    if (gout->type != gin->type)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: output_gradient_tensor data_type must equal "
                           "input_gradient_tensor's (%s), got %s", name,
                           dmlcl__type_name(gin->type), dmlcl__type_name(gout->type));
    /* RESAMPLE1's types: the 8-bit ones sum in float and round once, on the store. */
    if (!dmlcl__resample_type_ok(gin->type))
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: input_gradient_tensor data_type must be FLOAT32, FLOAT16, "
                           "FLOAT64, INT8 or UINT8, got %s", name, dmlcl__type_name(gin->type));
    return DMLCL_SUCCESS;
}

static dmlcl_status validate(dmlcl_operator *op, const dmlcl_resample_grad1_desc *d)
{
    static const char *const name = "resample_grad1";
    dmlcl_status st = check_tensors(op, d);
    if (st)
        return st;
    if (d->interpolation_mode != DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR &&
        d->interpolation_mode != DMLCL_INTERPOLATION_MODE_LINEAR)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: interpolation_mode must be 0 (NEAREST_NEIGHBOR) or 1 (LINEAR), "
                           "got %d", name, (int)d->interpolation_mode);
    uint32_t n = d->dimension_count;
    if ((st = dmlcl__resample_rounding_check(name, d->rounding_direction)) ||
        (st = dmlcl__resample_check_array(name, "scales", d->scales, n, 1)) ||
        (st = dmlcl__resample_check_array(name, "input_pixel_offsets", d->input_pixel_offsets,
                                          n, 0)) ||
        (st = dmlcl__resample_check_array(name, "output_pixel_offsets",
                                          d->output_pixel_offsets, n, 0)) ||
        (st = dmlcl__tensor_check_no_alias(name, "output_gradient_tensor", &op->out[0])) ||
        (st = dmlcl__resample_place_tiles(op, name, "input_gradient_tensor",
                                          "output_gradient_tensor")))
        return st;
    if (op->in[0].type == DMLCL_TENSOR_DATA_TYPE_FLOAT64 && op->ctx && !op->ctx->info.has_fp64)
        return dmlcl__fail(DMLCL_UNSUPPORTED,
                           "%s: data_type FLOAT64 needs cl_khr_fp64, which the device \"%s\" "
                           "does not support", name, op->ctx->info.name);
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__resample_grad1_check(dmlcl_operator *op, const dmlcl_resample_grad1_desc *d,
                                         dmlcl__resample_map *m)
{
    *m = (dmlcl__resample_map){1, d->interpolation_mode == DMLCL_INTERPOLATION_MODE_LINEAR, 0,
                               dmlcl__resample_rule_of(d->rounding_direction), d->scales,
                               d->input_pixel_offsets, d->output_pixel_offsets};
    return validate(op, d);
}

dmlcl_status dmlcl__resample_grad1_create(dmlcl_operator *op, const dmlcl_resample_grad1_desc *d)
{
    dmlcl__resample_map m;
    dmlcl_status st = dmlcl__resample_grad1_check(op, d, &m);
    if (st || (st = dmlcl__resample_check_tiles(op, "resample_grad1", &m)))
        return st;
    return dmlcl__taps_create(op, &dmlcl__taps_vtable_grad1, 1, m.linear, m.rule, 0, d->scales,
                              d->input_pixel_offsets, d->output_pixel_offsets);
}
