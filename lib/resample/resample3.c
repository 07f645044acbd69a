/* RESAMPLE3: RESAMPLE2 plus `antialiased`. Antialiasing only changes LINEAR dimensions
 * with scale < 1 (downsampling): there the triangle filter is widened to 1 / scale and
 * normalized (PyTorch's antialias=True, align_corners=False), through host-built tap
 * tables and kernels/resample_taps.cl. Everything else is RESAMPLE2, kernels included. */
#include "resample/family.h"
#include "resample/resample.h"
#include "resample/taps.h"

static dmlcl_resample1_desc r1_of3(const dmlcl_resample3_desc *d)
{
    return (dmlcl_resample1_desc){d->input_tensor, d->output_tensor, d->interpolation_mode,
                                  d->dimension_count, d->scales, d->input_pixel_offsets,
                                  d->output_pixel_offsets};
}

/* Whether the filter widens: LINEAR, antialiased, some scale below 1 (scales checked). */
static int widens(const dmlcl_resample3_desc *d)
{
    int widen = 0;
    if (d->antialiased && d->interpolation_mode == DMLCL_INTERPOLATION_MODE_LINEAR)
        for (uint32_t k = 0; k < d->dimension_count; k++)
            widen |= d->scales[k] < 1;
    return widen;
}

dmlcl_status dmlcl__resample3_check(dmlcl_operator *op, const dmlcl_resample3_desc *d,
                                    dmlcl__resample_map *m)
{
    static const char *const name = "resample3";
    dmlcl_status st = dmlcl__resample_rounding_check(name, d->rounding_direction);
    if (st)
        return st;
    if (d->antialiased != 0 && d->antialiased != 1)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: antialiased must be 0 or 1, got %d", name, d->antialiased);
    const dmlcl_resample1_desc r1 = r1_of3(d);
    if ((st = dmlcl__resample1_validate(op, name, &r1)))
        return st;
    *m = dmlcl__resample1_map(&r1, dmlcl__resample_rule_of(d->rounding_direction), widens(d));
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__resample3_create(dmlcl_operator *op, const dmlcl_resample3_desc *d)
{
    dmlcl__resample_map m;
    dmlcl_status st = dmlcl__resample3_check(op, d, &m);
    if (st)
        return st;
    const dmlcl_resample1_desc r1 = r1_of3(d);
    if (!m.widen)
        return dmlcl__resample3_create_plain(op, &r1, &m);
    if ((st = dmlcl__resample_check_tiles(op, "resample3", &m)))
        return st;
    return dmlcl__taps_create(op, &dmlcl__taps_vtable_resample3, 0, 1, DMLCL__NEAREST_HALF_UP, 1,
                              d->scales, d->input_pixel_offsets, d->output_pixel_offsets);
}
