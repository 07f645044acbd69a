/* Launches of one kernel in order, on the POCL versions that need it (kernel_order.c). */
#ifndef DMLCL_CORE_KERNEL_ORDER_H
#define DMLCL_CORE_KERNEL_ORDER_H
#include "core/base.h"

struct dmlcl_context;
/* Whether launches on this device must be ordered: a CPU device of POCL before 7.0, from
 * its CL_PLATFORM_VERSION ("OpenCL 3.0 PoCL 5.0+debian ..."). */
int dmlcl__needs_kernel_order(const char *platform_version, int is_cpu);
/* clEnqueueNDRangeKernel on c's queue; where c's device needs it, the launch also waits
 * for the previous launch of a kernel of the same name on that device, from any queue or
 * context of the process. */
dmlcl_status dmlcl__enqueue_kernel(struct dmlcl_context *c, cl_kernel k, cl_uint dims,
                                   const size_t *global, const size_t *local, cl_uint nwait,
                                   const cl_event *wait, cl_event *event);
/* Drops the launches remembered from cl_ctx (its last dmlcl context is going). */
void dmlcl__kernel_order_forget(cl_context cl_ctx);
#endif
