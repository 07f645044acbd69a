/* The tap operator behind RESAMPLE_GRAD1 and RESAMPLE3 (antialiased): host-built tap
 * tables (lib/resample_taps_plan.c), one kernel (kernels/resample_taps.cl) per data type. */
#include "plan.h"
#include "resample_taps.h"
#include <stdio.h>
#include <string.h>

/* Host mirror of the kernel's taps_args. */
typedef struct {
    cl_ulong count, rank, nt;
    cl_ulong rsize[8], rstr[8], sstr[8], rtab[8];
    cl_ulong rmul[8], rshr[8];
} taps_args;

typedef struct taps_impl {
    taps_args args;
    uint64_t src_base; /* source element offset fixed by the affine dimensions */
    size_t global, local;
    cl_kernel kernel;
    cl_mem table; /* NULL when every dimension is affine */
} taps_impl;

static dmlcl_status taps_enqueue(dmlcl_operator *op, const cl_mem *in, const uint64_t *in_off,
                                 const cl_mem *out, const uint64_t *out_off, cl_uint nwait,
                                 const cl_event *wait, cl_event *event)
{
    taps_impl *im = op->impl;
    cl_ulong offs[2] = {in_off[0] + im->src_base, out_off[0]};
    dmlcl_status st;
    if ((st = dmlcl__set_arg(im->kernel, 0, sizeof(cl_mem), &in[0])) ||
        (st = dmlcl__set_arg(im->kernel, 1, sizeof(cl_ulong), &offs[0])) ||
        (st = dmlcl__set_arg(im->kernel, 2, sizeof(cl_mem), &out[0])) ||
        (st = dmlcl__set_arg(im->kernel, 3, sizeof(cl_ulong), &offs[1])) ||
        (st = dmlcl__set_arg(im->kernel, 4, sizeof(cl_mem), &im->table)) ||
        (st = dmlcl__set_arg(im->kernel, 5, sizeof im->args, &im->args)))
        return st;
    return dmlcl__enqueue_1d(op, im->kernel, im->global, im->local, nwait, wait, event);
}

static void taps_destroy(dmlcl_operator *op)
{
    taps_impl *im = op->impl;
    if (im && im->kernel)
        clReleaseKernel(im->kernel);
    if (im && im->table)
        clReleaseMemObject(im->table);
    dmlcl__free(im);
    op->impl = NULL;
}

const dmlcl__op_vtable dmlcl__taps_vtable_grad1 = {"resample_grad1", taps_enqueue, taps_destroy};
const dmlcl__op_vtable dmlcl__taps_vtable_resample3 = {"resample3", taps_enqueue, taps_destroy};

/* Every dimension's rows into t; affine dimensions become strides in the arguments. */
static dmlcl_status build(dmlcl_operator *op, taps_impl *im, int grad, int linear,
                          dmlcl__nearest_rule rule, int antialiased, const float *scales,
                          const float *in_offsets, const float *out_offsets,
                          dmlcl__taps_table *t)
{
    const dmlcl__tensor *src = &op->in[0], *res = &op->out[0];
    taps_args *a = &im->args;
    a->count = res->elements;
    a->rank = res->rank;
    for (uint32_t d = 0; d < 8; d++)
        a->rsize[d] = 1;
    for (uint32_t d = 0; d < res->rank; d++) {
        dmlcl__taps_dim p = {res->sizes[d], src->sizes[d], scales[d], in_offsets[d],
                             out_offsets[d], 0, 0, 0};
        int ok = grad ? dmlcl__taps_add_grad(t, linear, rule, &p)
                      : dmlcl__taps_add_forward(t, antialiased, &p);
        if (!ok)
            return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory for the tap tables",
                               op->vt->name);
        a->rsize[d] = res->sizes[d];
        a->rstr[d] = res->strides[d];
        if (p.row_word == UINT64_MAX) {
            im->src_base += p.first * src->strides[d];
            a->sstr[d] = p.step * src->strides[d];
            a->rtab[d] = ~(cl_ulong)0;
        } else {
            a->sstr[d] = src->strides[d];
            a->rtab[d] = p.row_word;
            a->nt++;
        }
    }
    return DMLCL_SUCCESS;
}

static dmlcl_status upload(dmlcl_operator *op, taps_impl *im, const dmlcl__taps_table *t)
{
    const char *name = op->vt->name;
    uint64_t bytes = t->n * 4;
    if (t->n == 0)
        return DMLCL_SUCCESS;
    if (t->n > UINT32_MAX || bytes > op->ctx->info.max_mem_alloc)
        return dmlcl__fail(DMLCL_UNSUPPORTED,
                           "%s: the tap tables need %llu bytes, more than the device's "
                           "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu) or 16 GiB", name,
                           (unsigned long long)bytes,
                           (unsigned long long)op->ctx->info.max_mem_alloc);
    cl_int err = CL_SUCCESS;
    im->table = clCreateBuffer(op->ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               (size_t)bytes, t->words, &err);
    if (err) {
        im->table = NULL;
        return dmlcl__cl_fail("clCreateBuffer", err);
    }
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__taps_create(dmlcl_operator *op, const dmlcl__op_vtable *vt, int grad,
                                int linear, dmlcl__nearest_rule rule, int antialiased,
                                const float *scales, const float *in_offsets,
                                const float *out_offsets)
{
    op->n_in = 1;
    op->n_out = 1;
    op->vt = vt;
    taps_impl *im = dmlcl__calloc(1, sizeof *im);
    if (!im)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", vt->name);
    op->impl = im;
    dmlcl__taps_table t = {0};
    dmlcl_status st = build(op, im, grad, linear, rule, antialiased, scales, in_offsets,
                            out_offsets, &t);
    const dmlcl__device_info *di = &op->ctx->info;
    dmlcl__limits lim = {di->max_work_group_size, di->compute_units, di->is_cpu};
    dmlcl__plan_ndrange(im->args.count, &lim, &im->global, &im->local);
    if (lim.is_cpu) {
        /* POCL compiles once per work-group size: a fixed group, as RESAMPLE1 does. */
        size_t wg = lim.max_work_group_size < 64 ? lim.max_work_group_size : 64;
        im->local = wg ? wg : 1;
        im->global = (im->global + im->local - 1) / im->local * im->local;
    }
    const uint64_t lim32 = (uint64_t)1 << 32;
    int idx64 = im->args.count + im->global >= lim32 || op->in[0].span >= lim32 ||
                op->out[0].span >= lim32;
    for (int d = 0; d < 8; d++) {
        dmlcl__fastdiv f = dmlcl__fastdiv_make(im->args.rsize[d], idx64 ? 64 : 32);
        im->args.rmul[d] = f.mul;
        im->args.rshr[d] = f.sh1 | (cl_ulong)f.sh2 << 8;
    }
    char options[96];
    snprintf(options, sizeof options, "-DDTYPE=%d -DELEM_BYTES=%u -DIDX64=%d -DNT2=%d",
             (int)op->in[0].type, op->in[0].elem_size, idx64, im->args.nt == 2);
    snprintf(op->plan_text, sizeof op->plan_text,
             "variant=taps tabled=%llu affine=%llu count=%llu table=%lluB global=%zu local=%zu "
             "options='%s'", (unsigned long long)im->args.nt,
             (unsigned long long)(im->args.rank - im->args.nt),
             (unsigned long long)im->args.count, (unsigned long long)(t.n * 4), im->global,
             im->local, options);
    if (!st)
        st = dmlcl__kernel_get(op->ctx, "resample_taps", options, "resample_taps", &im->kernel);
    if (!st)
        st = upload(op, im, &t);
    dmlcl__taps_table_free(&t);
    return st;
}
