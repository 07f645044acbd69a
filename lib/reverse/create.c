/* REVERSE_SUBSEQUENCES: planning and dispatch (its rules: validate.c). */
#include "core/launch.h"
#include "reverse/args.h"
#include "reverse/plan.h"
#include "reverse/reverse.h"
#include "reverse/validate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP "reverse_subsequences"

typedef struct rs_impl {
    dmlcl__rs_plan plan;
    cl_kernel kernel;
    uint64_t shift[2]; /* tiles: input and lengths elements before the output tile's box */
} rs_impl;


static dmlcl_status rs_enqueue(dmlcl_operator *op, const cl_mem *in, const uint64_t *in_off,
                               const cl_mem *out, const uint64_t *out_off, cl_uint nwait,
                               const cl_event *wait, cl_event *event)
{
    rs_impl *im = op->impl;
    const dmlcl__rs_plan *p = &im->plan;
    rs_args a;
    memset(&a, 0, sizeof a);
    for (int d = 0; d < DMLCL_RS_MAXRANK; d++) {
        a.size[d] = d < (int)p->rank ? p->sizes[d] : 1;
        a.in_str[d] = p->in_str[d];
        a.len_str[d] = p->len_str[d];
        a.out_str[d] = p->out_str[d];
        a.div_mul[d] = d < (int)p->rank ? p->div[d].mul : 1;
        a.div_shr[d] = d < (int)p->rank ? p->div[d].sh1 | p->div[d].sh2 << 8 : 0;
    }
    a.units = p->units;
    a.axis = p->axis;
    a.segs = p->segs;
    a.seg_mul = p->seg_div.mul;
    a.seg_shr = p->seg_div.sh1 | p->seg_div.sh2 << 8;
    a.seg_len = p->seg_len;
    a.per_item = p->per_item;
    a.ptiles = p->ptiles;
    a.ptile_mul = p->ptile_div.mul;
    a.ptile_shr = p->ptile_div.sh1 | p->ptile_div.sh2 << 8;
    a.in_span = p->in_span;
    a.axis_size = p->sizes[p->axis];
    a.axis_in_str = p->in_str[p->axis];
    cl_ulong offs[3] = {in_off[0] + im->shift[0], in_off[1] + im->shift[1], out_off[0]};
    dmlcl_status st;
    if ((st = dmlcl__set_arg(im->kernel, 0, sizeof(cl_mem), &in[0])) ||
        (st = dmlcl__set_arg(im->kernel, 1, sizeof(cl_ulong), &offs[0])) ||
        (st = dmlcl__set_arg(im->kernel, 2, sizeof(cl_mem), &in[1])) ||
        (st = dmlcl__set_arg(im->kernel, 3, sizeof(cl_ulong), &offs[1])) ||
        (st = dmlcl__set_arg(im->kernel, 4, sizeof(cl_mem), &out[0])) ||
        (st = dmlcl__set_arg(im->kernel, 5, sizeof(cl_ulong), &offs[2])) ||
        (st = dmlcl__set_arg(im->kernel, 6, sizeof a, &a)))
        return st;
    return dmlcl__enqueue_1d(op, im->kernel, p->global, p->local, nwait, wait, event);
}

/* Elements per vector access of the kernel variant (for the plan text). */
static uint32_t vector_lanes(const dmlcl__rs_plan *p)
{
    if (p->variant == DMLCL_RS_CHUNKS)
        return p->vec;
    if (p->variant == DMLCL_RS_LINES) /* 64-byte vectors of at most 16 lanes */
        return 64 / p->elem_bytes < 16 ? 64 / p->elem_bytes : 16;
    return 1;
}

static void rs_destroy(dmlcl_operator *op)
{
    rs_impl *im = op->impl;
    if (im && im->kernel)
        clReleaseKernel(im->kernel);
    dmlcl__free(im);
    op->impl = NULL;
}

static const dmlcl__op_vtable rs_vtable = {OP, rs_enqueue, rs_destroy, NULL};

/* $DMLCL_RS_PLAN overrides the planner's choices: for tuning runs and for the tests that
 * cover every variant on one device. */
static dmlcl_status overrides(const char *name, dmlcl__tune *t)
{
    _Static_assert(sizeof(dmlcl__rs_tune) <= sizeof(dmlcl__tune), "dmlcl__tune too small");
    return dmlcl__rs_tune_read(name, (dmlcl__rs_tune *)t);
}

static uint64_t slab_bound(const dmlcl__tune *t)
{
    return ((const dmlcl__rs_tune *)t)->slab;
}

/* A sequence's line along the axis stays in one slab: the kernel reverses it whole. */
static uint32_t kept_axes(const void *desc)
{
    return 1u << ((const dmlcl_reverse_subsequences_desc *)desc)->axis;
}

static dmlcl_status create(dmlcl_operator *op, const void *desc, const dmlcl__checked *c)
{
    const dmlcl_reverse_subsequences_desc *d = desc;
    dmlcl__op_slab_narrow(op, 0); /* a slab's part: its output box (the input's follows) */
    op->n_in = 2;
    op->n_out = 1;
    rs_impl *im = dmlcl__calloc(1, sizeof *im);
    if (!im)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, OP ": out of host memory");
    op->impl = im;
    op->vt = &rs_vtable;
    dmlcl__limits lim = dmlcl__op_limits(op);
    const dmlcl__rs_tune *tune = (const dmlcl__rs_tune *)&c->tune;
    /* A tile plans on the part of the input and lengths tiles under the output tile; the
     * offsets of their first elements ride on the bindings' offsets. */
    const dmlcl__tensor *out = &op->out[0];
    uint64_t at[DMLCL_MAXDIM], lat[DMLCL_MAXDIM], lsz[DMLCL_MAXDIM];
    for (uint32_t k = 0; k < out->rank; k++) {
        at[k] = out->origin[k] - op->in[0].origin[k];
        lat[k] = k == d->axis ? 0 : at[k];
        lsz[k] = k == d->axis ? 1 : out->sizes[k];
    }
    dmlcl__tensor in, len;
    im->shift[0] = dmlcl__tensor_view(&op->in[0], at, out->sizes, &in);
    im->shift[1] = dmlcl__tensor_view(&op->in[1], lat, lsz, &len);
    dmlcl__rs_plan_make_tuned(&in, &len, out, d->axis, &lim, tune, &im->plan);
    const dmlcl__rs_plan *p = &im->plan;
    snprintf(op->plan_text, sizeof op->plan_text,
             "variant=%s vec=%u rank=%u axis=%u units=%llu segs=%llu global=%zu local=%zu "
             "options='%s'", dmlcl__rs_variant_names[p->variant],
             vector_lanes(p), p->rank, p->axis, (unsigned long long)p->units, (unsigned long long)p->segs, p->global, p->local,
             p->options);
    return dmlcl__kernel_get(op->ctx, op->kernels, "reverse_subsequences", im->plan.options,
                             "reverse_subsequences", &im->kernel);
}

const dmlcl__op_class dmlcl__reverse_subsequences_class = {
    DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, OP, "output_tensor", dmlcl__reverse_subsequences_reads,
    overrides, slab_bound, kept_axes, create, dmlcl__reverse_subsequences_input_box,
    dmlcl__reverse_subsequences_input_range,
    {sizeof(dmlcl_reverse_subsequences_desc), 3, 0,
     {offsetof(dmlcl_reverse_subsequences_desc, input_tensor),
      offsetof(dmlcl_reverse_subsequences_desc, output_tensor),
      offsetof(dmlcl_reverse_subsequences_desc, sequence_lengths_tensor)},
     {0},
     0}};
