/* REVERSE_SUBSEQUENCES: validation, planning and dispatch. */
#include "core/launch.h"
#include "reverse/plan.h"
#include "reverse/reverse.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP "reverse_subsequences"

typedef struct rs_impl {
    dmlcl__rs_plan plan;
    cl_kernel kernel;
    uint64_t shift[2]; /* tiles: input and lengths elements before the output tile's box */
} rs_impl;

/* Host mirror of the kernel's rs_args. */
typedef struct {
    cl_ulong size[8], in_str[8], len_str[8], out_str[8];
    cl_ulong div_mul[8], div_shr[8];
    cl_ulong units, axis;
    cl_ulong segs, seg_mul, seg_shr, seg_len, per_item, in_span;
    cl_ulong axis_size, axis_in_str;
} rs_args;

static dmlcl_status check_same_sizes(const char *field, const dmlcl__tensor *t,
                                     const dmlcl__tensor *in, int64_t skip_axis)
{
    for (uint32_t d = 0; d < in->rank; d++) {
        if ((int64_t)d == skip_axis)
            continue;
        if (t->sizes[d] != in->sizes[d])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               OP ": %s sizes[%u] must equal input_tensor sizes[%u] (%llu), got %llu",
                               field, d, d, (unsigned long long)in->sizes[d],
                               (unsigned long long)t->sizes[d]);
    }
    return DMLCL_SUCCESS;
}

/* Tiles: the lengths tile is the input tile's box with the axis collapsed; the logical
 * tensors have one shape; the output tile spans the axis (a sequence's elements would
 * otherwise come from other tiles) and the input tile holds the output tile's box. */
static dmlcl_status place_tiles(dmlcl_operator *op, uint32_t axis)
{
    dmlcl__tensor *in = &op->in[0], *len = &op->in[1], *out = &op->out[0];
    dmlcl_status st;
    if ((st = dmlcl__tile_place(OP, "input_tile", "input_tensor", op->tile_in, in)) ||
        (st = dmlcl__tile_place(OP, "output_tile", "output_tensor", op->tile_out, out)))
        return st;
    dmlcl__tile_whole(len);
    if (!in->tiled && !out->tiled)
        return DMLCL_SUCCESS;
    for (uint32_t d = 0; d < in->rank; d++) {
        if (out->whole[d] != in->whole[d])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               OP ": output_tile logical_sizes[%u] must equal input_tile's "
                               "(%llu), got %llu", d, (unsigned long long)in->whole[d],
                               (unsigned long long)out->whole[d]);
        len->origin[d] = d == axis ? 0 : in->origin[d];
        len->whole[d] = d == axis ? 1 : in->whole[d];
    }
    len->tiled = 1;
    if (out->origin[axis] != 0 || out->sizes[axis] != out->whole[axis])
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           OP ": output_tile must span the whole axis %u (start 0, size %llu), "
                           "got start %llu and size %llu", axis,
                           (unsigned long long)out->whole[axis],
                           (unsigned long long)out->origin[axis],
                           (unsigned long long)out->sizes[axis]);
    dmlcl__box box;
    dmlcl__tile_box(out, &box);
    return dmlcl__tile_covers(OP, in, &box);
}

/* Every rule of operators.md, before any OpenCL call. Fills op->in / op->out. */
dmlcl_status dmlcl__reverse_subsequences_check(dmlcl_operator *op,
                                               const dmlcl_reverse_subsequences_desc *d)
{
    dmlcl__tensor *in = &op->in[0], *len = &op->in[1], *out = &op->out[0];
    dmlcl_status st;
    if ((st = dmlcl__tensor_check(OP, "input_tensor", d->input_tensor, in)) ||
        (st = dmlcl__tensor_check(OP, "sequence_lengths_tensor", d->sequence_lengths_tensor, len)) ||
        (st = dmlcl__tensor_check(OP, "output_tensor", d->output_tensor, out)))
        return st;
    if (len->rank != in->rank || out->rank != in->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           OP ": %s dimension_count must equal input_tensor's (%u), got %u",
                           len->rank != in->rank ? "sequence_lengths_tensor" : "output_tensor",
                           in->rank, len->rank != in->rank ? len->rank : out->rank);
    if (d->axis >= in->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, OP ": axis must be < dimension_count (%u), got %u",
                           in->rank, d->axis);
    if (out->type != in->type)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           OP ": output_tensor data_type must equal input_tensor's (%s), got %s",
                           dmlcl__type_name(in->type), dmlcl__type_name(out->type));
    if (len->type != DMLCL_TENSOR_DATA_TYPE_UINT32 && len->type != DMLCL_TENSOR_DATA_TYPE_UINT64)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           OP ": sequence_lengths_tensor data_type must be UINT32 or UINT64, got %s",
                           dmlcl__type_name(len->type));
    if ((st = place_tiles(op, d->axis)))
        return st;
    if (!in->tiled && !out->tiled && (st = check_same_sizes("output_tensor", out, in, -1)))
        return st;
    if (len->sizes[d->axis] != 1)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           OP ": sequence_lengths_tensor sizes[%u] must be 1 (the axis), got %llu",
                           d->axis, (unsigned long long)len->sizes[d->axis]);
    if ((st = check_same_sizes("sequence_lengths_tensor", len, in, d->axis)))
        return st;
    return dmlcl__tensor_check_no_alias(OP, "output_tensor", out);
}

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

static const dmlcl__op_vtable rs_vtable = {OP, rs_enqueue, rs_destroy};

dmlcl_status dmlcl__reverse_subsequences_create(dmlcl_operator *op,
                                                const dmlcl_reverse_subsequences_desc *d)
{
    dmlcl_status st = dmlcl__reverse_subsequences_check(op, d);
    if (st)
        return st;
    op->n_in = 2;
    op->n_out = 1;
    rs_impl *im = dmlcl__calloc(1, sizeof *im);
    if (!im)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, OP ": out of host memory");
    op->impl = im;
    op->vt = &rs_vtable;
    dmlcl__limits lim = dmlcl__op_limits(op);
    /* $DMLCL_RS_PLAN overrides the planner's choices: for tuning runs and for the tests
     * that cover every variant on one device. */
    dmlcl__rs_tune tune;
    if ((st = dmlcl__overrides_rs(OP, &tune)))
        return st;
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
    dmlcl__rs_plan_make_tuned(&in, &len, out, d->axis, &lim, &tune, &im->plan);
    const dmlcl__rs_plan *p = &im->plan;
    snprintf(op->plan_text, sizeof op->plan_text,
             "variant=%s vec=%u rank=%u axis=%u units=%llu segs=%llu global=%zu local=%zu "
             "options='%s'", dmlcl__rs_variant_names[p->variant],
             vector_lanes(p), p->rank, p->axis, (unsigned long long)p->units, (unsigned long long)p->segs, p->global, p->local,
             p->options);
    return dmlcl__kernel_get(op->ctx, "reverse_subsequences", im->plan.options,
                             "reverse_subsequences", &im->kernel);
}
