/* REVERSE_SUBSEQUENCES' rules (doc/operators.md), before any OpenCL call, and what a box of
 * its outputs reads (the halo query). */
#include "reverse/validate.h"
#include <string.h>

#define OP "reverse_subsequences"

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
    dmlcl__tensor_whole(len);
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

/* Every rule of doc/operators.md, before any OpenCL call. Fills op->in / op->out. */
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

/* What it reads: the axis (the rest is the output box). */
typedef struct reads {
    uint32_t axis;
} reads;

dmlcl_status dmlcl__reverse_subsequences_reads(dmlcl_operator *op, const void *desc,
                                               dmlcl__reads *r)
{
    const dmlcl_reverse_subsequences_desc *d = desc;
    _Static_assert(sizeof(reads) <= sizeof(dmlcl__reads), "dmlcl__reads too small");
    ((reads *)r)->axis = d->axis;
    dmlcl__op_count_check();
    return dmlcl__reverse_subsequences_check(op, d);
}

/* A sequence reads its whole line: the whole axis, the output's range elsewhere. */
void dmlcl__reverse_subsequences_input_range(const dmlcl_operator *op, const dmlcl__reads *r,
                                             uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                                             uint64_t *hi)
{
    const uint32_t axis = ((const reads *)r)->axis;
    *lo = d == axis ? 0 : a;
    *hi = d == axis ? op->out[0].sizes[axis] : b;
}

/* A sequence reads its whole line: the box with the whole axis. */
void dmlcl__reverse_subsequences_input_box(const dmlcl_operator *op, const dmlcl__reads *r,
                                           const dmlcl__box *out, dmlcl__box *in)
{
    const uint32_t axis = ((const reads *)r)->axis, rank = op->out[0].rank;
    *in = *out;
    int empty = 0;
    for (uint32_t d = 0; d < rank; d++)
        empty |= out->size[d] == 0;
    in->start[axis] = 0;
    in->size[axis] = op->out[0].sizes[axis];
    for (uint32_t d = 0; d < rank && empty; d++)
        in->start[d] = in->size[d] = 0;
}
