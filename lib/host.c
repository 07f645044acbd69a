/* Host execution (dmlcl_operator_execute_host): the caller's arrays as the operator's
 * buffers. Rules (doc/api.md, "Host arrays"):
 * - On a CPU device an array is used in place: a CL_MEM_USE_HOST_PTR buffer over it, whose
 *   start is the array's address rounded down to CL_DEVICE_MEM_BASE_ADDR_ALIGN, the array
 *   bound at the offset in between. POCL's CPU devices run kernels on that memory itself
 *   and their map/unmap are no-ops there, so nothing is copied and the peak is input +
 *   output. The rounding keeps the buffer's start aligned as kernels may assume; the
 *   bytes before the array are never read or written.
 * - Copied instead: an array whose address is not a multiple of its element size (a
 *   binding's offset must be); an output whose bytes overlap another array of the call (in
 *   place it would read what it writes). A copied output is uploaded first only where it
 *   has padding, which it keeps.
 * - Staged on other devices (a GPU's kernels read device memory): every array goes through
 *   pinned buffers in pieces (staging.c), which $DMLCL_HOST_PATH=staged forces anywhere.
 * - Every buffer is checked against the device's limits before any is created.
 * - dmlcl_operator_prepare_host pins the staging buffers ahead of a call. */
#include "operator.h"
#include <stdio.h>
#include <string.h>

/* One array of the call and the buffer planned for it. */
typedef struct {
    const char *role; /* "inputs", "outputs" */
    uint32_t index;
    const dmlcl__tensor *t;
    char *host;
    int in_place;
    int staged;      /* through pinned pieces (staging.c) */
    uint64_t offset; /* bytes from the buffer's start to the array (in place) */
    uint64_t bytes;  /* the buffer's size */
    cl_mem buf;
} host_array;

static int overlaps(const host_array *a, const host_array *b)
{
    return a->host < b->host + b->t->span_bytes && b->host < a->host + a->t->span_bytes;
}

/* Where each array goes (in place, copied or staged) and its buffer's size: no OpenCL
 * call. */
static void plan(const dmlcl_operator *op, int staged, host_array *a, uint32_t n)
{
    const dmlcl__device_info *info = &op->ctx->info;
    uint64_t align = info->mem_base_addr_align / 8 ? info->mem_base_addr_align / 8 : 128;
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t p = (uintptr_t)a[i].host;
        a[i].staged = staged;
        a[i].in_place = !staged && p % a[i].t->elem_size == 0;
        for (uint32_t j = 0; j < n && a[i].in_place; j++)
            if (j != i && a[i].role[0] == 'o' && overlaps(&a[i], &a[j]))
                a[i].in_place = 0;
        a[i].offset = a[i].in_place ? p % align : 0;
        a[i].bytes = a[i].offset + a[i].t->span_bytes;
    }
}

/* Each buffer within CL_DEVICE_MAX_MEM_ALLOC_SIZE, the copies together within
 * CL_DEVICE_GLOBAL_MEM_SIZE. */
static dmlcl_status check_limits(const dmlcl_operator *op, const host_array *a, uint32_t n)
{
    char what[96];
    uint64_t copied = 0;
    dmlcl_status st;
    for (uint32_t i = 0; i < n; i++) {
        snprintf(what, sizeof what, "%s: %s[%u]", op->vt->name, a[i].role, (unsigned)a[i].index);
        if ((st = dmlcl__buffer_fits(op->ctx, what, a[i].bytes)))
            return st;
        copied += a[i].in_place ? 0 : a[i].bytes;
    }
    snprintf(what, sizeof what, "%s: the copies of its host arrays", op->vt->name);
    return dmlcl__device_mem_fits(op->ctx, what, copied);
}

static dmlcl_status make_buffer(const dmlcl_operator *op, host_array *a)
{
    int input = a->role[0] == 'i';
    cl_mem_flags flags = input ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE;
    void *host = NULL;
    if (a->in_place) {
        flags |= CL_MEM_USE_HOST_PTR;
        host = a->host - a->offset;
    } else if (!a->staged && (input || a->t->elements != a->t->span)) {
        flags |= CL_MEM_COPY_HOST_PTR; /* an output's padding comes back intact */
        host = a->host;
    }
    cl_int err = CL_SUCCESS;
    a->buf = clCreateBuffer(op->ctx->cl_ctx, flags, (size_t)a->bytes, host, &err);
    return err ? dmlcl__cl_fail("clCreateBuffer", err) : DMLCL_SUCCESS;
}

/* The output in the caller's array once the kernel (done) is over: read back, or for an
 * array in place, mapped (OpenCL's rule for USE_HOST_PTR memory; no copy on POCL's CPU
 * devices, where the map is the array itself). */
static dmlcl_status fetch_output(const dmlcl_operator *op, dmlcl__staging *s,
                                 const host_array *a, cl_event done)
{
    cl_command_queue q = op->ctx->queue;
    size_t span = (size_t)a->t->span_bytes;
    cl_uint nw = done ? 1 : 0;
    const cl_event *w = done ? &done : NULL;
    cl_int err;
    if (a->staged)
        return dmlcl__staging_download(s, a->buf, done, a->host, a->t->span_bytes);
    if (!a->in_place) {
        err = clEnqueueReadBuffer(q, a->buf, CL_TRUE, 0, span, a->host, nw, w, NULL);
        return err ? dmlcl__cl_fail("clEnqueueReadBuffer", err) : DMLCL_SUCCESS;
    }
    void *m = clEnqueueMapBuffer(q, a->buf, CL_TRUE, CL_MAP_READ, (size_t)a->offset, span, nw,
                                 w, NULL, &err);
    if (err)
        return dmlcl__cl_fail("clEnqueueMapBuffer", err);
    if (m != a->host) /* a runtime that mapped a copy after all */
        memcpy(a->host, m, span);
    cl_event unmapped = NULL;
    err = clEnqueueUnmapMemObject(q, a->buf, m, 0, NULL, &unmapped);
    if (!err)
        err = clWaitForEvents(1, &unmapped);
    if (unmapped)
        clReleaseEvent(unmapped);
    return err ? dmlcl__cl_fail("clEnqueueUnmapMemObject", err) : DMLCL_SUCCESS;
}

static dmlcl_status check_arrays(const dmlcl_operator *op, const void *const *inputs,
                                 void *const *outputs)
{
    if (!inputs || !outputs)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s array is NULL", op->vt->name,
                           inputs ? "outputs" : "inputs");
    for (uint32_t i = 0; i < op->n_in; i++)
        if (!inputs[i])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: inputs[%u] is NULL", op->vt->name, i);
    for (uint32_t i = 0; i < op->n_out; i++)
        if (!outputs[i])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: outputs[%u] is NULL", op->vt->name, i);
    return DMLCL_SUCCESS;
}

/* The staged arrays' bytes on the device (inputs; outputs with padding, which they
 * keep), then a barrier: *ready, which the kernel waits for. */
static dmlcl_status stage_in(const dmlcl_operator *op, dmlcl__staging *s, const host_array *a,
                             uint32_t n, cl_event *ready)
{
    dmlcl_status st = DMLCL_SUCCESS;
    for (uint32_t i = 0; i < n && !st; i++)
        if (a[i].role[0] == 'i' || a[i].t->elements != a[i].t->span)
            st = dmlcl__staging_upload(s, a[i].host, a[i].buf, a[i].t->span_bytes);
    cl_int err = st ? CL_SUCCESS : clEnqueueBarrierWithWaitList(op->ctx->queue, 0, NULL, ready);
    return err ? dmlcl__cl_fail("clEnqueueBarrierWithWaitList", err) : st;
}

/* The largest of the operator's arrays: staged, each is a buffer of its span. */
static uint64_t largest_span(const dmlcl_operator *op)
{
    uint64_t largest = 0;
    for (uint32_t i = 0; i < op->n_in; i++)
        largest = op->in[i].span_bytes > largest ? op->in[i].span_bytes : largest;
    for (uint32_t i = 0; i < op->n_out; i++)
        largest = op->out[i].span_bytes > largest ? op->out[i].span_bytes : largest;
    return largest;
}

/* Pinning is what a first staged call pays beyond the steady state: three 16 MiB buffers
 * took 10 ms each on the H200 node, a fifth of a 1 GiB input's upload. */
dmlcl_status dmlcl_operator_prepare_host(dmlcl_operator *op)
{
    if (!op)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "dmlcl_operator_prepare_host: op is NULL");
    dmlcl__host_plan hp;
    dmlcl_status st = dmlcl__host_path(op->ctx, &hp);
    if (st || !hp.staged)
        return st;
    return dmlcl__staging_prepare(op->ctx, &hp, largest_span(op));
}

dmlcl_status dmlcl_operator_execute_host(dmlcl_operator *op, const void *const *inputs,
                                         void *const *outputs)
{
    if (!op)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "dmlcl_operator_execute_host: op is NULL");
    dmlcl_status st = check_arrays(op, inputs, outputs);
    dmlcl__host_plan hp;
    if (st || (st = dmlcl__host_path(op->ctx, &hp)))
        return st;
    const int staged = hp.staged;
    host_array a[2 * DMLCL_MAX_BINDINGS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < op->n_in; i++)
        a[n++] = (host_array){"inputs", i, &op->in[i], (char *)inputs[i], 0, 0, 0, 0, NULL};
    for (uint32_t i = 0; i < op->n_out; i++)
        a[n++] = (host_array){"outputs", i, &op->out[i], outputs[i], 0, 0, 0, 0, NULL};
    plan(op, staged, a, n);
    if ((st = check_limits(op, a, n)))
        return st;
    dmlcl__staging s = {0};
    if (staged)
        st = dmlcl__staging_create(op->ctx, &hp, largest_span(op), &s);
    dmlcl_buffer_binding b[2 * DMLCL_MAX_BINDINGS] = {{0}};
    for (uint32_t i = 0; i < n && !st; i++)
        if (!(st = make_buffer(op, &a[i])))
            b[i] = (dmlcl_buffer_binding){a[i].buf, a[i].offset, 0};
    /* The caller's queue may be out of order: the kernel runs after the staged uploads'
     * barrier, the outputs are fetched after the kernel's event. */
    cl_event ready = NULL, done = NULL;
    if (!st && staged)
        st = stage_in(op, &s, a, n, &ready);
    if (!st)
        st = dmlcl_operator_enqueue(op, b, op->n_in, b + op->n_in, op->n_out, ready ? 1 : 0,
                                    ready ? &ready : NULL, &done);
    for (uint32_t i = op->n_in; i < n && !st; i++)
        st = fetch_output(op, &s, &a[i], done);
    if (ready)
        clReleaseEvent(ready);
    if (done)
        clReleaseEvent(done);
    if (staged)
        dmlcl__staging_release(&s);
    for (uint32_t i = 0; i < n; i++)
        if (a[i].buf)
            clReleaseMemObject(a[i].buf);
    return st;
}
