/* One check per RESAMPLE family operator (family.h): its own rules, the family's shared
 * ones (checks.c) under its names, and what it reads. */
#include "resample/family.h"

/* RESAMPLE1-shaped descriptors (RESAMPLE1, RESAMPLE2, RESAMPLE3 and, with pixel-centre
 * offsets, RESAMPLE): the shared checks' arguments. */
static dmlcl__resample_args args_of(const char *name, const char *count_field,
                                    const dmlcl_resample1_desc *d)
{
    return (dmlcl__resample_args){name, "input_tensor", "output_tensor", count_field,
                                  d->input_tensor, d->output_tensor, d->interpolation_mode,
                                  d->dimension_count, d->scales, d->input_pixel_offsets,
                                  d->output_pixel_offsets, NULL, 0};
}

static dmlcl_status check_r1(dmlcl_operator *op, const char *name, const char *count_field,
                             const dmlcl_resample1_desc *d)
{
    const dmlcl__resample_args a = args_of(name, count_field, d);
    return dmlcl__resample_check_args(op, &a);
}

dmlcl_status dmlcl__resample1_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r)
{
    const dmlcl_resample1_desc *d = desc;
    *dmlcl__resample_map_of(r) = dmlcl__resample1_map(d, DMLCL__NEAREST_HALF_UP, 0);
    return check_r1(op, "resample1", "dimension_count", d);
}

/* RESAMPLE (v0): pixel-centre offsets on every dimension (input 0.5, output -0.5). */
static const float v0_in_off[DMLCL_MAXDIM] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
static const float v0_out_off[DMLCL_MAXDIM] = {-0.5f, -0.5f, -0.5f, -0.5f,
                                               -0.5f, -0.5f, -0.5f, -0.5f};

dmlcl_status dmlcl__resample_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r)
{
    const dmlcl_resample_desc *d = desc;
    const dmlcl_resample1_desc r1 = {d->input_tensor, d->output_tensor, d->interpolation_mode,
                                     d->scale_count, d->scales, v0_in_off, v0_out_off};
    *dmlcl__resample_map_of(r) = dmlcl__resample1_map(&r1, DMLCL__NEAREST_HALF_UP, 0);
    return check_r1(op, "resample", "scale_count", &r1);
}

/* RESAMPLE2: RESAMPLE1 with a nearest rounding direction. The direction is checked first so
 * that its message does not depend on the tensors. */
dmlcl_status dmlcl__resample2_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r)
{
    const dmlcl_resample2_desc *d = desc;
    dmlcl_status st = dmlcl__resample_rounding_check("resample2", d->rounding_direction);
    if (st)
        return st;
    const dmlcl_resample1_desc r1 = {d->input_tensor, d->output_tensor, d->interpolation_mode,
                                     d->dimension_count, d->scales, d->input_pixel_offsets,
                                     d->output_pixel_offsets};
    *dmlcl__resample_map_of(r) =
        dmlcl__resample1_map(&r1, dmlcl__resample_rule_of(d->rounding_direction), 0);
    return check_r1(op, "resample2", "dimension_count", &r1);
}

/* RESAMPLE3: RESAMPLE2 plus `antialiased`. The filter widens where the mode is LINEAR,
 * antialiased is set and a scale is below 1 (scales checked). */
static int widens(const dmlcl_resample3_desc *d)
{
    int widen = 0;
    if (d->antialiased && d->interpolation_mode == DMLCL_INTERPOLATION_MODE_LINEAR)
        for (uint32_t k = 0; k < d->dimension_count; k++)
            widen |= d->scales[k] < 1;
    return widen;
}

dmlcl_status dmlcl__resample3_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r)
{
    static const char *const name = "resample3";
    const dmlcl_resample3_desc *d = desc;
    dmlcl_status st = dmlcl__resample_rounding_check(name, d->rounding_direction);
    if (st)
        return st;
    if (d->antialiased != 0 && d->antialiased != 1)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: antialiased must be 0 or 1, got %d", name, d->antialiased);
    const dmlcl_resample1_desc r1 = {d->input_tensor, d->output_tensor, d->interpolation_mode,
                                     d->dimension_count, d->scales, d->input_pixel_offsets,
                                     d->output_pixel_offsets};
    if ((st = check_r1(op, name, "dimension_count", &r1)))
        return st;
    *dmlcl__resample_map_of(r) =
        dmlcl__resample1_map(&r1, dmlcl__resample_rule_of(d->rounding_direction), widens(d));
    return DMLCL_SUCCESS;
}

/* RESAMPLE_GRAD1: the gradients' tensors, the direction checked after the mode. */
dmlcl_status dmlcl__resample_grad1_check(dmlcl_operator *op, const void *desc, dmlcl__reads *r)
{
    const dmlcl_resample_grad1_desc *d = desc;
    *dmlcl__resample_map_of(r) = (dmlcl__resample_map){
        1, d->interpolation_mode == DMLCL_INTERPOLATION_MODE_LINEAR, 0,
        dmlcl__resample_rule_of(d->rounding_direction), d->scales, d->input_pixel_offsets,
        d->output_pixel_offsets};
    const dmlcl__resample_args a = {
        "resample_grad1", "input_gradient_tensor", "output_gradient_tensor", "dimension_count",
        d->input_gradient_tensor, d->output_gradient_tensor, d->interpolation_mode,
        d->dimension_count, d->scales, d->input_pixel_offsets, d->output_pixel_offsets,
        &d->rounding_direction, 1};
    return dmlcl__resample_check_args(op, &a);
}
