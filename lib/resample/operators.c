/* The RESAMPLE family's operators: one class row each (core/op.h) for lib/operator.c's
 * table, with its creation: its check (validate.c), the tiles' check, then one of the two
 * kernel engines of the family.
 *   RESAMPLE1, RESAMPLE (v0), RESAMPLE2: the RESAMPLE1 kernels (resample1.c).
 *   RESAMPLE3: RESAMPLE2 plus `antialiased`. Antialiasing only changes LINEAR dimensions
 *     with scale < 1 (downsampling): there the triangle filter is widened to 1 / scale and
 *     normalized (PyTorch's antialias=True, align_corners=False), through host-built tap
 *     tables and the tap kernels (taps.c). Everything else is RESAMPLE2, kernels included.
 *   RESAMPLE_GRAD1: the backward pass of RESAMPLE2. Each forward output's gradient goes to
 *     the input elements the forward pass read, times the weights it used. Computed as a
 *     gather (no atomics, reproducible): per input element, the forward outputs that read
 *     it, from per-dimension inverse tables (taps_tables.c), summed in float (FLOAT64:
 *     double) in the order a forward scatter would add them. The 8- and 16-bit integers
 *     round the float sum half to even and saturate once, on the store (the tap kernels). */
#include "resample/family.h"
#include "resample/resample.h"
#include "resample/taps/taps.h"

#define R1_VTABLE(name)                                                                        \
    {name, dmlcl__resample1_enqueue, dmlcl__resample1_destroy, dmlcl__resample1_describe}
static const dmlcl__op_vtable resample1_vt = R1_VTABLE("resample1");
static const dmlcl__op_vtable resample_vt = R1_VTABLE("resample");
static const dmlcl__op_vtable resample2_vt = R1_VTABLE("resample2");
static const dmlcl__op_vtable resample3_vt = R1_VTABLE("resample3");
static const dmlcl__op_vtable resample3_taps_vt = {"resample3", dmlcl__taps_enqueue,
                                                   dmlcl__taps_destroy, dmlcl__taps_describe};
static const dmlcl__op_vtable grad1_vt = {"resample_grad1", dmlcl__taps_enqueue,
                                          dmlcl__taps_destroy, dmlcl__taps_describe};

/* Checks the operator (check: its validate.c function) and its tiles; *r: what it reads. */
static dmlcl_status checked(dmlcl_operator *op, const void *desc, const char *name,
                            dmlcl_status (*check)(dmlcl_operator *, const void *, dmlcl__reads *),
                            dmlcl__reads *r)
{
    dmlcl__op_count_check();
    dmlcl_status st = check(op, desc, r);
    return st ? st : dmlcl__resample_check_tiles(op, name, dmlcl__resample_map_of(r));
}

#define CHECK(op, name)                                                                        \
    static dmlcl_status check_##op(dmlcl_operator *o, const void *desc, dmlcl__reads *r)      \
    {                                                                                          \
        return checked(o, desc, name, dmlcl__##op##_check, r);                                 \
    }
CHECK(resample1, "resample1")
CHECK(resample, "resample")
CHECK(resample2, "resample2")
CHECK(resample3, "resample3")
CHECK(resample_grad1, "resample_grad1")

/* $DMLCL_RESAMPLE_PLAN, read by both engines. */
static dmlcl_status overrides(const char *name, dmlcl__tune *t)
{
    _Static_assert(sizeof(dmlcl__resample_tune) <= sizeof(dmlcl__tune), "dmlcl__tune too small");
    dmlcl__resample_tune *rt = (dmlcl__resample_tune *)t;
    return dmlcl__r1_tune_read(name, &rt->t, &rt->given);
}

static const dmlcl__resample_tune *tune_of(const dmlcl__checked *c)
{
    return (const dmlcl__resample_tune *)&c->tune;
}

static const dmlcl__resample_map *map_in(const dmlcl__checked *c)
{
    return (const dmlcl__resample_map *)&c->r; /* map_of's cast */
}

static uint64_t slab_bound(const dmlcl__tune *t)
{
    return ((const dmlcl__resample_tune *)t)->t.slab;
}

/* A slab may cut any dimension: the input box it reads follows from the map. */
static uint32_t kept_axes(const void *desc)
{
    (void)desc;
    return 0;
}

/* An operator of the RESAMPLE1 kernels. */
static dmlcl_status create_r1(dmlcl_operator *op, const dmlcl__checked *c,
                              const dmlcl__op_vtable *vt)
{
    dmlcl__op_slab_narrow(op, 1); /* a slab's part: its boxes, as tiles */
    return dmlcl__resample1_build(op, vt, map_in(c), tune_of(c));
}

static dmlcl_status create_resample1(dmlcl_operator *op, const void *desc, const dmlcl__checked *c)
{
    (void)desc;
    return create_r1(op, c, &resample1_vt);
}

static dmlcl_status create_resample(dmlcl_operator *op, const void *desc, const dmlcl__checked *c)
{
    (void)desc;
    return create_r1(op, c, &resample_vt);
}

static dmlcl_status create_resample2(dmlcl_operator *op, const void *desc, const dmlcl__checked *c)
{
    (void)desc;
    return create_r1(op, c, &resample2_vt);
}

static dmlcl_status create_resample3(dmlcl_operator *op, const void *desc, const dmlcl__checked *c)
{
    const dmlcl__resample_map *m = map_in(c);
    if (!m->widen)
        return create_r1(op, c, &resample3_vt);
    (void)desc;
    dmlcl__op_slab_narrow(op, 1);
    return dmlcl__taps_create(op, &resample3_taps_vt, 0, 1, DMLCL__NEAREST_HALF_UP, 1, m->scales,
                              m->in_offsets, m->out_offsets, tune_of(c));
}

static dmlcl_status create_grad1(dmlcl_operator *op, const void *desc, const dmlcl__checked *c)
{
    const dmlcl__resample_map *m = map_in(c);
    (void)desc;
    dmlcl__op_slab_narrow(op, 1);
    return dmlcl__taps_create(op, &grad1_vt, 1, m->linear, m->rule, 0, m->scales, m->in_offsets,
                              m->out_offsets, tune_of(c));
}

static void input_box(const dmlcl_operator *op, const dmlcl__reads *r, const dmlcl__box *out,
                      dmlcl__box *in)
{
    dmlcl__resample_input_box(op, (const dmlcl__resample_map *)r, out, in); /* map_of's cast */
}

static void input_range(const dmlcl_operator *op, const dmlcl__reads *r, uint32_t d, uint64_t a,
                        uint64_t b, uint64_t *lo, uint64_t *hi)
{
    dmlcl__resample_input_range(op, (const dmlcl__resample_map *)r, d, a, b, lo, hi);
}

/* A descriptor's layout (core/op.h): its tensors in and out, its scales and offsets. */
#define LAYOUT(T, in, out, count)                                                              \
    {sizeof(T), 2, 3, {offsetof(T, in), offsetof(T, out)},                                     \
     {offsetof(T, scales), offsetof(T, input_pixel_offsets), offsetof(T, output_pixel_offsets)}, \
     offsetof(T, count)}

const dmlcl__op_class dmlcl__resample1_class = {DMLCL_OPERATOR_RESAMPLE1, "resample1",
    "output_tensor", check_resample1, overrides, slab_bound, kept_axes, create_resample1,
    input_box, input_range, LAYOUT(dmlcl_resample1_desc, input_tensor, output_tensor, dimension_count)};
const dmlcl__op_class dmlcl__resample_class = {DMLCL_OPERATOR_RESAMPLE, "resample",
    "output_tensor", check_resample, overrides, slab_bound, kept_axes, create_resample,
    input_box, input_range,
    {sizeof(dmlcl_resample_desc), 2, 1,
     {offsetof(dmlcl_resample_desc, input_tensor), offsetof(dmlcl_resample_desc, output_tensor)},
     {offsetof(dmlcl_resample_desc, scales)}, offsetof(dmlcl_resample_desc, scale_count)}};
const dmlcl__op_class dmlcl__resample2_class = {DMLCL_OPERATOR_RESAMPLE2, "resample2",
    "output_tensor", check_resample2, overrides, slab_bound, kept_axes, create_resample2,
    input_box, input_range, LAYOUT(dmlcl_resample2_desc, input_tensor, output_tensor, dimension_count)};
const dmlcl__op_class dmlcl__resample3_class = {DMLCL_OPERATOR_RESAMPLE3, "resample3",
    "output_tensor", check_resample3, overrides, slab_bound, kept_axes, create_resample3,
    input_box, input_range, LAYOUT(dmlcl_resample3_desc, input_tensor, output_tensor, dimension_count)};
const dmlcl__op_class dmlcl__resample_grad1_class = {DMLCL_OPERATOR_RESAMPLE_GRAD1,
    "resample_grad1", "output_gradient_tensor", check_resample_grad1, overrides, slab_bound,
    kept_axes, create_grad1, input_box, input_range,
    LAYOUT(dmlcl_resample_grad1_desc, input_gradient_tensor, output_gradient_tensor,
           dimension_count)};
