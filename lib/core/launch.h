/* Kernel launch helpers for the operator families (launch.c). */
#ifndef DMLCL_CORE_LAUNCH_H
#define DMLCL_CORE_LAUNCH_H
#include "core/op.h"
#include "core/plan.h"

/* The planners' view of op's device. */
dmlcl__limits dmlcl__op_limits(const dmlcl_operator *op);
/* Enqueue a 1-D NDRange of at least `items` work-items (rounded up to local). */
dmlcl_status dmlcl__enqueue_1d(dmlcl_operator *op, cl_kernel k, size_t global, size_t local,
                               cl_uint nwait, const cl_event *wait, cl_event *event);
/* The same over a 2-D range (global a multiple of local in each dimension). */
dmlcl_status dmlcl__enqueue_2d(dmlcl_operator *op, cl_kernel k, const size_t global[2],
                               const size_t local[2], cl_uint nwait, const cl_event *wait,
                               cl_event *event);
/* Device allocations start at CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 128 bytes in the
 * full profile); a CL_MEM_USE_HOST_PTR buffer starts wherever the caller's memory does.
 * Kernels move vectors of up to 128 bytes only through a base aligned to that: 1 if m's
 * is. */
int dmlcl__mem_aligned(cl_mem m);
/* A kernel of the signature (input, input offset, output, output offset, table, args by
 * value), the RESAMPLE family's: sets its six arguments and enqueues it over a 2-D range
 * (two_d; global and local hold 2 sizes) or a 1-D one (as dmlcl__enqueue_1d). */
dmlcl_status dmlcl__enqueue_table_kernel(dmlcl_operator *op, cl_kernel k, cl_mem in, cl_mem out,
                                         const cl_ulong offs[2], cl_mem table, size_t args_size,
                                         const void *args, int two_d, const size_t *global,
                                         const size_t *local, cl_uint nwait,
                                         const cl_event *wait, cl_event *event);
/* Releases whichever of a kernel and a buffer is not NULL. */
void dmlcl__release_cl(cl_kernel k, cl_mem m);
/* clSetKernelArg with error reporting naming the argument index. */
dmlcl_status dmlcl__set_arg(cl_kernel k, cl_uint idx, size_t size, const void *value);

#endif
