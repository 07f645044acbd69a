/* Distributed operators: every rank's tile operator on its output box, reading its input
 * field's ghosted buffer through strides; one call updates the halo and runs them. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* A box of outputs, the input box it reads, and its tile operator. */
typedef struct piece {
    box out, in;
    dmlcl_operator *op;
} piece;

struct dmlcl_mpi_operator {
    dmlcl_context *ctx;
    /* With overlap: the boundary slabs' context, the same device on a queue of its own, so
     * that the slabs run beside the interior's last waves as soon as the ghosts are in
     * (NULL: they queue behind the interior on ctx's queue). */
    dmlcl_context *side;
    const dmlcl_mpi_layout *in, *out;
    dmlcl_operator_desc *whole; /* the library's copy: tiles are made at runs too */
    const dmlcl_tensor_desc *lengths; /* whole's sequence lengths (NULL: one input) */
    box *needed; /* every rank's input box */
    box out_box;
    uint32_t flags;
    /* parts[0]: the whole output box. With DMLCL_MPI_OVERLAP and an interior (outputs
     * that read owned elements only): parts[1] the interior, then the boundary slabs. */
    piece parts[2 + 2 * MAXDIM];
    int count;
    box made_in, made_out; /* the ghost boxes the tile operators were made for */
    run_spans spans;       /* with DMLCL_MPI_PROFILE: the last run's timeline */
};

int operator_reads(const dmlcl_mpi_operator *op, const dmlcl_mpi_layout *l) { return op->in == l; }

int operator_profiles(const dmlcl_mpi_operator *op)
{
    return !!(op->flags & DMLCL_MPI_PROFILE);
}

void dmlcl_mpi_operator_input_box(const dmlcl_mpi_operator *op, int rank, dmlcl_mpi_box *b)
{
    *b = op->needed[rank < 0 ? op->in->rank : rank];
}

/* The input box of an output box (empty for an empty one); the descriptor is valid. */
static void input_box(const dmlcl_operator_desc *w, const box *out, box *in)
{
    box_empty(out->dimension_count, in);
    if (box_count(out))
        dmlcl_operator_input_box(w, out->start, out->sizes, in->start, in->sizes);
}

/* An operator with sequence lengths (REVERSE_SUBSEQUENCES, whose lengths tensor is 1 long
 * on the axis): a sequence's elements and its length stay on one rank, so the layouts
 * leave the axis whole and cut both tensors alike (the lengths then follow the input's
 * grid: a rank's lengths are its box's). The descriptor is valid. */
static dmlcl_status validate_lengths_cut(const dmlcl_tensor_desc *len,
                                         const dmlcl_mpi_layout *in, const dmlcl_mpi_layout *out)
{
    for (uint32_t d = 0; d < in->dims; d++)
        if (len->sizes[d] == 1 && in->sizes[d] > 1 && in->grid[d] != 1)
            return mpil_fail(DMLCL_INVALID_ARGUMENT,
                             "REVERSE_SUBSEQUENCES: the input layout cuts the axis (grid[%u] = "
                             "%u): a sequence's elements would lie on several ranks; cut the "
                             "other dimensions",
                             d, in->grid[d]);
    for (uint32_t d = 0; d < in->dims; d++)
        if (in->grid[d] != out->grid[d])
            return mpil_fail(DMLCL_INVALID_ARGUMENT,
                             "REVERSE_SUBSEQUENCES: the output layout's grid[%u] is %u, the "
                             "input's %u: both tensors are cut alike",
                             d, out->grid[d], in->grid[d]);
    return DMLCL_SUCCESS;
}

/* A profile reads the times of the commands on the context's queue. */
static dmlcl_status validate_profile(dmlcl_context *ctx)
{
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(dmlcl_context_queue(ctx), CL_QUEUE_PROPERTIES,
                                       sizeof props, &props, NULL);
    if (err != CL_SUCCESS)
        return mpil_cl_fail("clGetCommandQueueInfo (the context's queue)", err);
    if (!(props & CL_QUEUE_PROFILING_ENABLE))
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "flags: DMLCL_MPI_PROFILE needs the context's queue made with "
                         "CL_QUEUE_PROFILING_ENABLE");
    return DMLCL_SUCCESS;
}

/* Every rule one rank checks alone (the halo query checks the descriptor, host only). */
static dmlcl_status validate(dmlcl_context *ctx, const dmlcl_operator_desc *desc,
                             const dmlcl_mpi_layout *in, const dmlcl_mpi_layout *out,
                             uint32_t flags)
{
    int same = MPI_UNEQUAL;
    if (!desc || !desc->desc)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "desc is NULL");
    if (flags & ~(DMLCL_MPI_OVERLAP | DMLCL_MPI_PROFILE))
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "flags 0x%x: only DMLCL_MPI_OVERLAP and DMLCL_MPI_PROFILE are known",
                         flags);
    dmlcl_status st = flags & DMLCL_MPI_PROFILE ? validate_profile(ctx) : DMLCL_SUCCESS;
    if (st != DMLCL_SUCCESS)
        return st;
    MPI_Comm_compare(in->comm, out->comm, &same);
    if (same != MPI_IDENT && same != MPI_CONGRUENT)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "the input and output layouts are of different communicators");
    uint32_t start[MAXDIM] = {0}, is[MAXDIM], isz[MAXDIM];
    if (dmlcl_operator_input_box(desc, start, out->sizes, is, isz) != DMLCL_SUCCESS)
        return mpil_dmlcl_fail(DMLCL_INVALID_ARGUMENT, "desc");
    const dmlcl_tensor_desc *ti = dmlcl_operator_desc_tensor(desc, 0);
    const dmlcl_tensor_desc *to = dmlcl_operator_desc_tensor(desc, 1);
    const dmlcl_tensor_desc *len = dmlcl_operator_desc_tensor(desc, 2);
    const dmlcl_mpi_layout *ls[2] = {in, out};
    const dmlcl_tensor_desc *ts[2] = {ti, to};
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "output" : "input";
        if (ts[k]->data_type != ls[k]->type || ts[k]->dimension_count != ls[k]->dims)
            return mpil_fail(DMLCL_INVALID_ARGUMENT,
                             "the descriptor's %s tensor (type %d, %u dimensions) is not the "
                             "%s layout's (type %d, %u dimensions)",
                             name, (int)ts[k]->data_type, ts[k]->dimension_count, name,
                             (int)ls[k]->type, ls[k]->dims);
        for (uint32_t d = 0; d < ls[k]->dims; d++)
            if (ts[k]->sizes[d] != ls[k]->sizes[d])
                return mpil_fail(DMLCL_INVALID_ARGUMENT,
                                 "the descriptor's %s tensor has sizes[%u] = %u, the %s "
                                 "layout %u: the layout cuts the whole tensor",
                                 name, d, ts[k]->sizes[d], name, ls[k]->sizes[d]);
    }
    return len ? validate_lengths_cut(len, in, out) : DMLCL_SUCCESS;
}

/* The input range, in dimension d, that outputs [o, o + 1) of d read (b's other dims). */
static void row_reads(const dmlcl_operator_desc *w, const box *b, uint32_t d, uint32_t o,
                      uint64_t *s, uint64_t *e)
{
    box q = *b, in;
    q.start[d] = o, q.sizes[d] = 1;
    input_box(w, &q, &in);
    *s = in.start[d], *e = (uint64_t)in.start[d] + in.sizes[d];
}

/* The outputs that read owned elements only: per dimension, the first output whose reads
 * start in the owned range and the first whose reads end past it (both monotone, so
 * binary searches). 0 when there is none. */
static int interior(const dmlcl_mpi_operator *op, const box *owned, box *inner)
{
    *inner = op->out_box;
    if (!box_count(owned) || !box_count(&op->out_box))
        return 0;
    for (uint32_t d = 0; d < owned->dimension_count; d++) {
        const uint64_t os = owned->start[d], oe = os + owned->sizes[d];
        uint32_t a = op->out_box.start[d], b = a + op->out_box.sizes[d], s = a, e = b;
        uint64_t rs, re;
        while (a < b) {
            uint32_t m = a + (b - a) / 2;
            row_reads(op->whole, &op->out_box, d, m, &rs, &re);
            if (rs >= os) b = m; else a = m + 1;
        }
        uint32_t lo = a;
        a = s, b = e;
        while (a < b) {
            uint32_t m = a + (b - a) / 2;
            row_reads(op->whole, &op->out_box, d, m, &rs, &re);
            if (re > oe) b = m; else a = m + 1;
        }
        if (lo >= a)
            return 0;
        inner->start[d] = lo, inner->sizes[d] = a - lo;
    }
    box reads;
    input_box(op->whole, inner, &reads);
    return box_contains(owned, &reads);
}

/* The pieces: the whole box, and with overlap the interior and the slabs around it. */
static void plan_pieces(dmlcl_mpi_operator *op)
{
    box owned, inner, rem = op->out_box;
    op->parts[0].out = op->out_box;
    op->count = 1;
    dmlcl_mpi_layout_box(op->in, -1, &owned);
    if (!(op->flags & DMLCL_MPI_OVERLAP) || !interior(op, &owned, &inner))
        return;
    op->parts[op->count++].out = inner;
    for (uint32_t d = 0; d < rem.dimension_count; d++) { /* peel one dimension at a time */
        uint64_t re = (uint64_t)rem.start[d] + rem.sizes[d], ie = (uint64_t)inner.start[d] + inner.sizes[d];
        if (inner.start[d] > rem.start[d]) {
            box b = rem;
            b.sizes[d] = inner.start[d] - rem.start[d];
            op->parts[op->count++].out = b;
        }
        if (ie < re) {
            box b = rem;
            b.start[d] = (uint32_t)ie, b.sizes[d] = (uint32_t)(re - ie);
            op->parts[op->count++].out = b;
        }
        rem.start[d] = inner.start[d], rem.sizes[d] = inner.sizes[d];
    }
}

/* The boundary slabs' context (struct dmlcl_mpi_operator's side), or NULL where the device
 * gives no second queue: the slabs then run on the context's queue, as without overlap. */
static dmlcl_context *side_context(dmlcl_context *ctx)
{
    dmlcl_context *side = NULL; /* a NULL queue: the context makes its own */
    if (dmlcl_context_create(dmlcl_context_cl_context(ctx), dmlcl_context_device(ctx), NULL,
                             &side) != DMLCL_SUCCESS)
        return NULL;
    return side;
}

static void release_ops(dmlcl_mpi_operator *op)
{
    for (int i = 0; i < op->count; i++) {
        dmlcl_operator_release(op->parts[i].op);
        op->parts[i].op = NULL;
    }
}

/* Packed strides of a ghost box as a tensor's (uint32 elements). */
static dmlcl_status strides_of(const box *g, uint32_t *strides)
{
    uint64_t s = 1;
    for (uint32_t d = g->dimension_count; d-- > 0;) {
        if (s > UINT32_MAX)
            return mpil_fail(DMLCL_UNSUPPORTED,
                             "a stride of the ghosted buffer exceeds 2^32 - 1 elements");
        strides[d] = (uint32_t)s;
        s *= g->sizes[d] ? g->sizes[d] : 1;
    }
    return DMLCL_SUCCESS;
}

/* The lengths' box of an input box (REVERSE_SUBSEQUENCES): 1 long where the lengths
 * tensor is (the axis); empty for an empty one. */
static box lengths_box(const dmlcl_mpi_operator *op, const box *in)
{
    box b = *in;
    for (uint32_t d = 0; box_count(in) && d < in->dimension_count; d++)
        if (op->lengths->sizes[d] == 1)
            b.start[d] = 0, b.sizes[d] = 1;
    return b;
}

/* The tile operators for an input field of ghost box gin and an output field of gout. */
static dmlcl_status make_ops(dmlcl_mpi_operator *op, const box *gin, const box *gout)
{
    uint32_t si[MAXDIM], so[MAXDIM];
    dmlcl_status st = strides_of(gin, si);
    if (st == DMLCL_SUCCESS)
        st = strides_of(gout, so);
    release_ops(op);
    for (int i = 0; i < op->count && st == DMLCL_SUCCESS; i++) {
        piece *p = &op->parts[i];
        input_box(op->whole, &p->out, &p->in);
        if (!box_count(&p->out))
            continue;
        dmlcl_tile_box ti = {p->in.start, p->in.sizes, si};
        dmlcl_tile_box to = {p->out.start, p->out.sizes, so};
        dmlcl_context *c = i >= 2 && op->side ? op->side : op->ctx;
        st = dmlcl_operator_create_tile_box(c, op->whole, &ti, &to, &p->op);
        if (st != DMLCL_SUCCESS)
            st = mpil_dmlcl_fail(st, "dmlcl_operator_create_tile_box");
    }
    op->made_in = *gin, op->made_out = *gout;
    return st;
}

dmlcl_status dmlcl_mpi_operator_create(dmlcl_context *context, const dmlcl_operator_desc *desc,
                                       const dmlcl_mpi_layout *input,
                                       const dmlcl_mpi_layout *output, uint32_t flags,
                                       dmlcl_mpi_operator **out)
{
    if (!input || !output) /* nobody to agree with */
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "dmlcl_mpi_operator_create: %s layout is NULL",
                         input ? "output" : "input");
    if (out)
        *out = NULL;
    dmlcl_mpi_operator *op = calloc(1, sizeof *op);
    box *needed = calloc((size_t)input->size, sizeof *needed);
    dmlcl_status st = DMLCL_SUCCESS;
    if (!op || !needed)
        st = mpil_fail(DMLCL_OUT_OF_MEMORY, "out of host memory");
    else if (!context || !out)
        st = mpil_fail(DMLCL_INVALID_ARGUMENT, "%s is NULL", context ? "out" : "context");
    else
        st = validate(context, desc, input, output, flags);
    if (st == DMLCL_SUCCESS &&
        (st = dmlcl_operator_desc_copy(desc, &op->whole)) != DMLCL_SUCCESS)
        st = mpil_dmlcl_fail(st, "dmlcl_operator_desc_copy");
    if (st == DMLCL_SUCCESS)
        op->lengths = dmlcl_operator_desc_tensor(op->whole, 2);
    if ((st = mpil_agree(input->comm, "dmlcl_mpi_operator_create", st)) != DMLCL_SUCCESS)
        goto fail;

    op->ctx = context, op->in = input, op->out = output, op->flags = flags;
    op->needed = needed, needed = NULL;
    for (int r = 0; r < input->size; r++) { /* the halo query for every rank: host only */
        box ob;
        dmlcl_mpi_layout_box(output, r, &ob);
        input_box(op->whole, &ob, &op->needed[r]);
    }
    dmlcl_mpi_layout_box(output, -1, &op->out_box);
    plan_pieces(op);
    if (op->count > 2)
        op->side = side_context(context);
    /* The geometry of the fields dmlcl_mpi_field_create makes: an input field read by this
     * operator, an output field read by none. */
    box owned_in, ghost_in;
    dmlcl_mpi_layout_box(input, -1, &owned_in);
    box_hull(&owned_in, &op->needed[input->rank], &ghost_in);
    st = make_ops(op, &ghost_in, &op->out_box);
    if ((st = mpil_agree(input->comm, "dmlcl_mpi_operator_create", st)) != DMLCL_SUCCESS)
        goto fail;
    *out = op;
    return DMLCL_SUCCESS;
fail:
    free(needed);
    dmlcl_mpi_operator_release(op);
    return st;
}

void dmlcl_mpi_operator_release(dmlcl_mpi_operator *op)
{
    if (!op)
        return;
    release_ops(op);
    spans_release(op->spans.ev, SPANS);
    dmlcl_context_release(op->side);
    dmlcl_operator_desc_free(op->whole);
    free(op->needed);
    free(op);
}

/* REVERSE_SUBSEQUENCES' lengths field: of the lengths tensor, cut by the input's grid,
 * holding exactly the lengths of the input field's box. */
static dmlcl_status validate_lengths(const dmlcl_mpi_operator *op, const dmlcl_mpi_field *in,
                                     const dmlcl_mpi_field *len)
{
    const dmlcl_mpi_layout *l = len->layout;
    const box want = lengths_box(op, &in->ghost);
    char a[200], b[200];
    if (l->type != op->lengths->data_type || l->dims != op->in->dims)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "the sequence lengths field's layout (type %d, %u dimensions) is not "
                         "the descriptor's sequence_lengths_tensor (type %d, %u dimensions)",
                         (int)l->type, l->dims, (int)op->lengths->data_type, op->in->dims);
    for (uint32_t d = 0; d < l->dims; d++)
        if (l->sizes[d] != op->lengths->sizes[d] || l->grid[d] != op->in->grid[d])
            return mpil_fail(DMLCL_INVALID_ARGUMENT,
                             "the sequence lengths field's layout has sizes[%u] = %u and "
                             "grid[%u] = %u; the lengths tensor's is %u, the input's grid %u",
                             d, l->sizes[d], d, l->grid[d], op->lengths->sizes[d],
                             op->in->grid[d]);
    if (memcmp(&len->ghost, &want, sizeof want))
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "the sequence lengths field holds %s, not the lengths of the input "
                         "field's box, %s: create it without a reader",
                         box_text(&len->ghost, a, sizeof a), box_text(&want, b, sizeof b));
    return DMLCL_SUCCESS;
}

static dmlcl_status validate_run(const dmlcl_mpi_operator *op, const dmlcl_mpi_field *in,
                                 const dmlcl_mpi_field *len, uint32_t input_count,
                                 const dmlcl_mpi_field *out, uint32_t flags)
{
    char a[200], b[200];
    const uint32_t inputs = op->lengths ? 2 : 1;
    if (input_count != inputs)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "input_count is %u: the operator reads %u input field%s%s", input_count,
                         inputs, inputs == 1 ? "" : "s",
                         inputs == 2 ? " (input, sequence_lengths: dmlcl_mpi_operator_run_inputs)"
                                     : "");
    if (inputs == 2 && !len)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "the sequence lengths field is NULL");
    if (!in || !out)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "the %s field is NULL", in ? "output" : "input");
    if (flags & ~DMLCL_MPI_HALO_CURRENT)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "flags 0x%x: only DMLCL_MPI_HALO_CURRENT is known", flags);
    if (in == out)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "the input and output fields are the same");
    if (in->layout != op->in || out->layout != op->out)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "the %s field is not of the operator's %s layout",
                         in->layout != op->in ? "input" : "output",
                         in->layout != op->in ? "input" : "output");
    if (!box_contains(&in->ghost, &op->needed[op->in->rank]))
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "the input field's ghost box %s does not hold the halo the operator "
                         "reads, %s: create the field with this operator as its reader",
                         box_text(&in->ghost, a, sizeof a),
                         box_text(&op->needed[op->in->rank], b, sizeof b));
    if (in->ex.in_flight)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "the input field's halo update is in flight");
    return len ? validate_lengths(op, in, len) : DMLCL_SUCCESS;
}

/* Byte offset of box b's first element in a field's buffer. */
static uint64_t offset_in(const dmlcl_mpi_field *f, const box *b)
{
    uint64_t o = 0;
    for (uint32_t d = 0; d < b->dimension_count; d++)
        o += (uint64_t)(b->start[d] - f->ghost.start[d]) * f->stride[d];
    return f->offset + o * f->layout->elem;
}

/* event: NULL, or where the piece's completion event goes (a profile's). */
static dmlcl_status enqueue(const dmlcl_mpi_operator *op, const piece *p,
                            const dmlcl_mpi_field *in, const dmlcl_mpi_field *len,
                            const dmlcl_mpi_field *out, cl_event *event)
{
    if (!p->op)
        return DMLCL_SUCCESS;
    dmlcl_buffer_binding bi[2] = {{in->buffer, offset_in(in, &p->in), 0}};
    if (len) {
        box lb = lengths_box(op, &p->in);
        bi[1] = (dmlcl_buffer_binding){len->buffer, offset_in(len, &lb), 0};
    }
    dmlcl_buffer_binding bo = {out->buffer, offset_in(out, &p->out), 0};
    dmlcl_status st = dmlcl_operator_enqueue(p->op, bi, len ? 2 : 1, &bo, 1, 0, NULL, event);
    return st == DMLCL_SUCCESS ? st : mpil_dmlcl_fail(st, "dmlcl_operator_enqueue");
}

/* The profile's slot for a piece's event: NULL without DMLCL_MPI_PROFILE. */
static cl_event *span(dmlcl_mpi_operator *op, int which)
{
    return operator_profiles(op) ? &op->spans.ev[which] : NULL;
}

/* The boundary slabs, each on its tile operator's queue; a profile keeps the first and
 * the last one's events. */
static dmlcl_status enqueue_slabs(dmlcl_mpi_operator *op, const dmlcl_mpi_field *in,
                                  const dmlcl_mpi_field *len, const dmlcl_mpi_field *out)
{
    dmlcl_status st = DMLCL_SUCCESS;
    cl_event *first = span(op, SPAN_SLAB0), *last = span(op, SPAN_SLAB1);
    for (int i = 2; i < op->count && st == DMLCL_SUCCESS; i++) {
        cl_event e = NULL;
        st = enqueue(op, &op->parts[i], in, len, out, first ? &e : NULL);
        if (!e)
            continue;
        if (!*first)
            clRetainEvent(e), *first = e;
        spans_release(last, 1);
        *last = e;
    }
    return st;
}

/* The boundary slabs on the side queue, beside the interior: after everything enqueued on
 * the context's queue before this run (`before`, a marker: whatever wrote the input or
 * reads the output) and the ghosts' writes (`ghosts`; NULL: none); then a barrier holds
 * whatever comes next on the context's queue until they are done (in-order semantics
 * for the caller, and for the next halo update's reads of the faces). */
static dmlcl_status enqueue_side(dmlcl_mpi_operator *op, cl_event before, cl_event ghosts,
                                 const dmlcl_mpi_field *in, const dmlcl_mpi_field *len,
                                 const dmlcl_mpi_field *out)
{
    cl_command_queue sq = dmlcl_context_queue(op->side), q = dmlcl_context_queue(op->ctx);
    const cl_event wait[2] = {before, ghosts};
    cl_int err = clEnqueueBarrierWithWaitList(sq, ghosts ? 2 : 1, wait, NULL);
    if (err != CL_SUCCESS)
        return mpil_cl_fail("clEnqueueBarrierWithWaitList (the boundary slabs' queue)", err);
    dmlcl_status st = enqueue_slabs(op, in, len, out);
    cl_event done = NULL; /* even after a failed slab: the caller's queue must not run ahead */
    if ((err = clEnqueueMarkerWithWaitList(sq, 0, NULL, &done)) == CL_SUCCESS &&
        (err = clFlush(sq)) == CL_SUCCESS)
        err = clEnqueueBarrierWithWaitList(q, 1, &done, NULL);
    if (done)
        clReleaseEvent(done);
    if (err != CL_SUCCESS && st == DMLCL_SUCCESS)
        st = mpil_cl_fail("clEnqueueMarkerWithWaitList (the boundary slabs' end)", err);
    return st;
}

dmlcl_status dmlcl_mpi_operator_run(dmlcl_mpi_operator *op, dmlcl_mpi_field *input,
                                    dmlcl_mpi_field *output, uint32_t flags)
{
    return dmlcl_mpi_operator_run_inputs(op, &input, 1, output, flags);
}

/* A profiled run takes the halo update's timeline from the input field. */
static void take_spans(dmlcl_mpi_operator *op, dmlcl_mpi_field *in)
{
    for (int i = SPAN_READ0; i <= SPAN_WRITE1; i++)
        op->spans.ev[i] = in->ex.span[i], in->ex.span[i] = NULL;
    op->spans.reads_wait_ms = in->ex.reads_wait_ms;
    op->spans.exchange_ms = in->ex.exchange_ms;
}

/* A run once every rank agreed to it: the interior first, then the halo update, then the
 * rest. `before` marks everything the caller enqueued on the context's queue before this
 * run (whatever wrote the input or reads the output, and the last run's readers of the
 * ghosts). The faces' reads, the ghosts' writes behind them (the field's queue) and the
 * boundary slabs (the side queue) wait for it; the interior follows it here at once,
 * waiting for none of them: it reads owned elements only, which they do not write. */
static dmlcl_status run_agreed(dmlcl_mpi_operator *op, dmlcl_mpi_field *in,
                               const dmlcl_mpi_field *len, const dmlcl_mpi_field *out, int halo)
{
    static const char *const fn = "dmlcl_mpi_operator_run";
    const int overlap = halo && op->count > 1, side = overlap && op->side;
    cl_command_queue q = dmlcl_context_queue(op->ctx);
    cl_event before = NULL, reads = NULL;
    dmlcl_status run = DMLCL_SUCCESS, st;
    cl_int err = halo || side ? clEnqueueMarkerWithWaitList(q, 0, NULL, &before) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        run = mpil_cl_fail("clEnqueueMarkerWithWaitList (before the interior)", err);
    if (overlap && run == DMLCL_SUCCESS) /* the interior computes while the faces fly */
        run = enqueue(op, &op->parts[1], in, len, out, span(op, SPAN_KERNEL));
    if (before)
        clFlush(q); /* the interior goes to the device now; other queues wait for `before` */
    const int same = dmlcl_context_queue(in->ctx) == q; /* else the field's queue's marker */
    if (halo && (st = mpil_halo_reads(in, same ? before : NULL, &reads)) != DMLCL_SUCCESS) {
        if (before) /* in flight: validate_run refused that, so never here */
            clReleaseEvent(before);
        return mpil_agree(op->in->comm, fn, st);
    }
    if (halo) /* even after a failed interior: the peers wait for our faces */
        mpil_halo_sends(in, reads); /* its failures wait in the field for halo_end */
    if (halo && (st = dmlcl_mpi_halo_end(in)) != DMLCL_SUCCESS) {
        if (before)
            clReleaseEvent(before);
        return st; /* agreed by end */
    }
    if (halo && operator_profiles(op))
        take_spans(op, in);
    if (side && run == DMLCL_SUCCESS)
        run = enqueue_side(op, before, in->ex.last_write, in, len, out);
    else if (overlap && run == DMLCL_SUCCESS)
        run = enqueue_slabs(op, in, len, out);
    else if (run == DMLCL_SUCCESS)
        run = enqueue(op, &op->parts[0], in, len, out, span(op, SPAN_KERNEL));
    if (before)
        clReleaseEvent(before);
    if (run == DMLCL_SUCCESS)
        clFlush(q);
    return mpil_agree(op->in->comm, fn, run);
}

dmlcl_status dmlcl_mpi_operator_run_inputs(dmlcl_mpi_operator *op,
                                           dmlcl_mpi_field *const *inputs, uint32_t input_count,
                                           dmlcl_mpi_field *out, uint32_t flags)
{
    static const char *const fn = "dmlcl_mpi_operator_run";
    if (!op) /* nobody to agree with */
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "%s: op is NULL", fn);
    dmlcl_mpi_field *in = inputs && input_count ? inputs[0] : NULL;
    dmlcl_mpi_field *len = inputs && input_count == 2 ? inputs[1] : NULL;
    dmlcl_status st = validate_run(op, in, len, input_count, out, flags);
    if (st == DMLCL_SUCCESS &&
        (memcmp(&in->ghost, &op->made_in, sizeof in->ghost) ||
         memcmp(&out->ghost, &op->made_out, sizeof out->ghost)))
        st = make_ops(op, &in->ghost, &out->ghost); /* fields of another geometry */
    if ((st = mpil_agree(op->in->comm, fn, st)) != DMLCL_SUCCESS)
        return st;
    spans_release(op->spans.ev, SPANS);
    op->spans.reads_wait_ms = op->spans.exchange_ms = -1;
    op->spans.runs++;
    return run_agreed(op, in, len, out, !(flags & DMLCL_MPI_HALO_CURRENT));
}

dmlcl_status dmlcl_mpi_operator_profile(const dmlcl_mpi_operator *op,
                                        dmlcl_mpi_run_profile *profile)
{
    if (!op || !profile)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "dmlcl_mpi_operator_profile: %s is NULL",
                         op ? "profile" : "op");
    if (!operator_profiles(op))
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "dmlcl_mpi_operator_profile: the operator was made without "
                         "DMLCL_MPI_PROFILE");
    if (!op->spans.runs)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "dmlcl_mpi_operator_profile: the operator has not run yet");
    return spans_profile(&op->spans, profile);
}
