/* Kernel launch helpers for the operator families (launch.h). */
#include "core/launch.h"
#include "core/kernel_order.h"

dmlcl__limits dmlcl__op_limits(const dmlcl_operator *op)
{
    const dmlcl__device_info *di = &op->ctx->info;
    return (dmlcl__limits){di->max_work_group_size, di->compute_units, di->is_cpu,
                           di->simd_bytes, di->registers};
}

dmlcl_status dmlcl__set_arg(cl_kernel k, cl_uint idx, size_t size, const void *value)
{
    cl_int err = clSetKernelArg(k, idx, size, value);
    if (err)
        return dmlcl__fail(err == CL_OUT_OF_HOST_MEMORY ? DMLCL_OUT_OF_MEMORY : DMLCL_OPENCL_ERROR,
                           "clSetKernelArg(%u): %s", idx, dmlcl_opencl_error_name(err));
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__enqueue_1d(dmlcl_operator *op, cl_kernel k, size_t global, size_t local,
                               cl_uint nwait, const cl_event *wait, cl_event *event)
{
    if (local)
        global = (global + local - 1) / local * local;
    return dmlcl__enqueue_kernel(op->ctx, k, 1, &global, local ? &local : NULL, nwait, wait,
                                 event);
}

int dmlcl__mem_aligned(cl_mem m)
{
    void *host = NULL;
    if (clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof host, &host, NULL) != CL_SUCCESS)
        return 0;
    return (uintptr_t)host % 128 == 0;
}

dmlcl_status dmlcl__enqueue_2d(dmlcl_operator *op, cl_kernel k, const size_t global[2],
                               const size_t local[2], cl_uint nwait, const cl_event *wait,
                               cl_event *event)
{
    return dmlcl__enqueue_kernel(op->ctx, k, 2, global, local, nwait, wait, event);
}

dmlcl_status dmlcl__enqueue_table_kernel(dmlcl_operator *op, cl_kernel k, cl_mem in, cl_mem out,
                                         const cl_ulong offs[2], cl_mem table, size_t args_size,
                                         const void *args, int two_d, const size_t *global,
                                         const size_t *local, cl_uint nwait,
                                         const cl_event *wait, cl_event *event)
{
    dmlcl_status st;
    if ((st = dmlcl__set_arg(k, 0, sizeof(cl_mem), &in)) ||
        (st = dmlcl__set_arg(k, 1, sizeof(cl_ulong), &offs[0])) ||
        (st = dmlcl__set_arg(k, 2, sizeof(cl_mem), &out)) ||
        (st = dmlcl__set_arg(k, 3, sizeof(cl_ulong), &offs[1])) ||
        (st = dmlcl__set_arg(k, 4, sizeof(cl_mem), &table)) ||
        (st = dmlcl__set_arg(k, 5, args_size, args)))
        return st;
    if (two_d)
        return dmlcl__enqueue_2d(op, k, global, local, nwait, wait, event);
    return dmlcl__enqueue_1d(op, k, global[0], local[0], nwait, wait, event);
}

void dmlcl__release_cl(cl_kernel k, cl_mem m)
{
    if (k)
        clReleaseKernel(k);
    if (m)
        clReleaseMemObject(m);
}

void dmlcl__op_slab_narrow(dmlcl_operator *op, int input)
{
    if (!op->slab_out)
        return;
    op->shift_out[0] = dmlcl__tile_narrow(&op->out[0], op->slab_out);
    if (input)
        op->shift_in[0] = dmlcl__tile_narrow(&op->in[0], op->slab_in);
}

/* Checks run, for the tests (an atomic counter: operators are created on many threads). */
static uint64_t checks;

void dmlcl__op_count_check(void)
{
    __atomic_add_fetch(&checks, 1, __ATOMIC_RELAXED);
}

uint64_t dmlcl_test_op_checks(void);
uint64_t dmlcl_test_op_checks(void)
{
    return __atomic_load_n(&checks, __ATOMIC_RELAXED);
}
