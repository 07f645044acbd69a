/* The generic operator object: the table of operator classes, create/release, binding
 * checks, enqueue (host arrays: host.c). The top floor: it includes the families' entries. */
#include "operator.h"
#include "slabs.h"
#include "resample/resample.h"
#include "reverse/reverse.h"
#include <stdio.h>
#include <string.h>

/* Every operator: one row (its class, defined by its family). */
static const dmlcl__op_class *const classes[] = {
    &dmlcl__reverse_subsequences_class,
    &dmlcl__resample1_class,
    &dmlcl__resample_class,
    &dmlcl__resample2_class,
    &dmlcl__resample_grad1_class,
    &dmlcl__resample3_class,
};

const dmlcl__op_class *dmlcl__op_class_find(dmlcl_operator_type type)
{
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (classes[i]->type == type)
            return classes[i];
    return NULL;
}

/* op of class cls: its check and overrides once, then its parts where its tensors pass the
 * slab bound (slabs.c), else the class's create. */
static dmlcl_status made(dmlcl_operator *op, const dmlcl__op_class *cls, const void *desc)
{
    dmlcl__checked ck;
    dmlcl_status st = cls->check(op, desc, &ck.r);
    if (!st)
        st = cls->overrides(cls->name, &ck.tune);
    int parts = 0; /* tensors past the slab bound: made of parts */
    if (!st)
        st = dmlcl__slabs_create(op, cls, desc, &ck, &parts);
    if (!st && !parts)
        st = cls->create(op, desc, &ck);
    return st;
}

static dmlcl_status create(dmlcl_context *c, const dmlcl_operator_desc *desc,
                           const dmlcl_tile_desc *tile_in, const dmlcl_tile_desc *tile_out,
                           dmlcl_operator **out, const char *fn)
{
    if (!out)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!c)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: context is NULL", fn);
    if (!desc)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: desc is NULL", fn);
    if (!desc->desc)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: desc->desc is NULL", fn);
    dmlcl_operator *op = dmlcl__calloc(1, sizeof *op);
    if (!op)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", fn);
    op->ctx = c;
    op->tile_in = tile_in;
    op->tile_out = tile_out;
    const dmlcl__op_class *cls = dmlcl__op_class_find(desc->type);
    dmlcl_status st = cls ? made(op, cls, desc->desc)
                          : dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                                        "%s: desc->type %d is not an operator type", fn,
                                        (int)desc->type);
    op->tile_in = op->tile_out = NULL; /* the caller's memory */
    if (st) {
        if (op->vt && op->vt->destroy)
            op->vt->destroy(op);
        dmlcl__free(op);
        return st;
    }
    pthread_mutex_init(&op->lock, NULL);
    dmlcl__context_retain(c);
    *out = op;
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl_operator_create(dmlcl_context *c, const dmlcl_operator_desc *desc,
                                   dmlcl_operator **out)
{
    return create(c, desc, NULL, NULL, out, "dmlcl_operator_create");
}

dmlcl_status dmlcl_operator_create_tile(dmlcl_context *c, const dmlcl_operator_desc *desc,
                                        const dmlcl_tile_desc *input_tile,
                                        const dmlcl_tile_desc *output_tile, dmlcl_operator **out)
{
    return create(c, desc, input_tile, output_tile, out, "dmlcl_operator_create_tile");
}

void dmlcl_operator_release(dmlcl_operator *op)
{
    if (!op)
        return;
    op->vt->destroy(op);
    pthread_mutex_destroy(&op->lock);
    dmlcl_context_release(op->ctx);
    dmlcl__free(op);
}

const char *dmlcl_operator_plan(const dmlcl_operator *op)
{
    if (!op)
        return "";
    if (op->vt->describe) {
        /* Written once, on first demand, under the operator's lock (threads may ask at
         * once); the text is the operator's, which is why the const is cast away. */
        dmlcl_operator *w = (dmlcl_operator *)op;
        pthread_mutex_lock(&w->lock);
        if (!w->plan_text[0])
            w->vt->describe(w);
        pthread_mutex_unlock(&w->lock);
    }
    return op->plan_text;
}

/* ---- bindings ------------------------------------------------------------------------ */

/* A binding resolved to (root buffer, absolute byte range) so sub-buffers compare. */
typedef struct { cl_mem root; uint64_t begin, end; } range_t;

static dmlcl_status check_binding(const dmlcl_operator *op, const char *kind, uint32_t i,
                                  const dmlcl_buffer_binding *b, const dmlcl__tensor *t,
                                  range_t *r)
{
    const char *name = op->vt->name;
    if (!b->buffer)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s[%u].buffer is NULL", name, kind, i);
    size_t mem_size = 0, sub_off = 0;
    cl_mem parent = NULL;
    cl_context owner = NULL;
    cl_int err = clGetMemObjectInfo(b->buffer, CL_MEM_SIZE, sizeof mem_size, &mem_size, NULL);
    if (!err)
        err = clGetMemObjectInfo(b->buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
    if (err)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s[%u].buffer is not a valid cl_mem (%s)",
                           name, kind, i, dmlcl_opencl_error_name(err));
    /* Some drivers (POCL) run a kernel on another context's buffer without complaint:
     * undefined behaviour, so it is a binding rule rather than an OpenCL error later. */
    if (owner != op->ctx->cl_ctx)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s[%u].buffer belongs to another cl_context than the operator's",
                           name, kind, i);
    clGetMemObjectInfo(b->buffer, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
    if (parent)
        clGetMemObjectInfo(b->buffer, CL_MEM_OFFSET, sizeof sub_off, &sub_off, NULL);
    if (b->offset % t->elem_size)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s[%u].offset %llu must be a multiple of the element size %u",
                           name, kind, i, (unsigned long long)b->offset, t->elem_size);
    if (b->offset > mem_size)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s[%u].offset %llu is beyond the buffer's CL_MEM_SIZE %zu",
                           name, kind, i, (unsigned long long)b->offset, mem_size);
    uint64_t avail = mem_size - b->offset;
    if (b->size_in_bytes > avail)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s[%u] offset %llu + size_in_bytes %llu exceeds CL_MEM_SIZE %zu",
                           name, kind, i, (unsigned long long)b->offset,
                           (unsigned long long)b->size_in_bytes, mem_size);
    if (b->size_in_bytes)
        avail = b->size_in_bytes;
    if (avail < t->span_bytes)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s[%u] holds %llu bytes from offset %llu, the tensor needs %llu",
                           name, kind, i, (unsigned long long)avail, (unsigned long long)b->offset,
                           (unsigned long long)t->span_bytes);
    r->root = parent ? parent : b->buffer;
    r->begin = sub_off + b->offset;
    r->end = r->begin + t->span_bytes;
    return DMLCL_SUCCESS;
}

static int overlap(const range_t *a, const range_t *b)
{
    return a->root == b->root && a->begin < b->end && b->begin < a->end;
}

static dmlcl_status check_bindings(const dmlcl_operator *op, const dmlcl_buffer_binding *in,
                                   uint32_t n_in, const dmlcl_buffer_binding *out, uint32_t n_out)
{
    const char *name = op->vt->name;
    if (n_in != op->n_in || n_out != op->n_out)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: expects %u input and %u output bindings, got %u and %u", name,
                           op->n_in, op->n_out, n_in, n_out);
    if (!in || !out)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s bindings array is NULL", name,
                           in ? "output" : "input");
    range_t ri[DMLCL_MAX_BINDINGS], ro[DMLCL_MAX_BINDINGS];
    dmlcl_status st;
    for (uint32_t i = 0; i < n_in; i++)
        if ((st = check_binding(op, "inputs", i, &in[i], &op->in[i], &ri[i])))
            return st;
    for (uint32_t i = 0; i < n_out; i++) {
        if ((st = check_binding(op, "outputs", i, &out[i], &op->out[i], &ro[i])))
            return st;
        for (uint32_t j = 0; j < n_in; j++)
            if (overlap(&ro[i], &ri[j]))
                return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                                   "%s: outputs[%u] overlaps inputs[%u] (in-place is not "
                                   "supported)", name, i, j);
        for (uint32_t j = 0; j < i; j++)
            if (overlap(&ro[i], &ro[j]))
                return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: outputs[%u] overlaps outputs[%u]",
                                   name, i, j);
    }
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl_operator_enqueue(dmlcl_operator *op, const dmlcl_buffer_binding *inputs,
                                    uint32_t input_count, const dmlcl_buffer_binding *outputs,
                                    uint32_t output_count, cl_uint nwait, const cl_event *wait,
                                    cl_event *event)
{
    if (!op)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "dmlcl_operator_enqueue: op is NULL");
    if ((nwait == 0) != (wait == NULL))
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: event_wait_list must be NULL exactly "
                                                   "when num_events_in_wait_list is 0",
                           op->vt->name);
    for (cl_uint i = 0; i < nwait; i++)
        if (!wait[i])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: event_wait_list[%u] is NULL",
                               op->vt->name, i);
    dmlcl_status st = check_bindings(op, inputs, input_count, outputs, output_count);
    if (st)
        return st;
    cl_mem in[DMLCL_MAX_BINDINGS], out[DMLCL_MAX_BINDINGS];
    uint64_t in_off[DMLCL_MAX_BINDINGS], out_off[DMLCL_MAX_BINDINGS];
    for (uint32_t i = 0; i < input_count; i++) {
        in[i] = inputs[i].buffer;
        in_off[i] = inputs[i].offset / op->in[i].elem_size;
    }
    for (uint32_t i = 0; i < output_count; i++) {
        out[i] = outputs[i].buffer;
        out_off[i] = outputs[i].offset / op->out[i].elem_size;
    }
    pthread_mutex_lock(&op->lock);
    st = op->vt->enqueue(op, in, in_off, out, out_off, nwait, wait, event);
    pthread_mutex_unlock(&op->lock);
    return st;
}
