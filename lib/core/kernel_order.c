/* Launches of one kernel in order on POCL's CPU devices before 7.0.
 *
 * POCL keeps each kernel's loaded machine code in a process-wide cache, one entry per
 * (kernel, local size, widest grid built for). A launch takes the first entry wide enough
 * for its grid, but gives it back by (kernel, local size) alone, which finds whichever
 * entry of that kernel is first then. Two launches of one kernel in flight at once, the
 * later with a wider grid than any entry so far, so give back the later one's entry twice:
 * POCL 5.0 built with assertions (Ubuntu 24.04's) aborts the process ("found->ref_count >
 * 0" in pocl_release_dlhandle_cache); without assertions the count wraps, and an entry in
 * use can be unloaded under a running launch. tools/pocl/dlhandle_race.c shows it with
 * OpenCL calls alone; POCL 7.0 fixed it. (POCL 3.1 takes every entry twice and gives it
 * back once, which hides the mistake; ordering costs it nothing, so it is ordered too.)
 *
 * So on those devices a launch waits for the previous launch of the same kernel (by name:
 * the same name in two programs orders more than needed, never less), from any thread,
 * queue or context. In one context the wait is an event in the launch's wait list, so
 * nothing blocks; across contexts an event cannot be waited for on the device, and the
 * caller waits for it on the host. A CPU device runs one kernel's work-groups on all its
 * cores, so two launches of one kernel gained little from overlapping.
 *
 * This table is process-wide like POCL's cache, behind its own lock (held across the
 * enqueue, so that no two launches read the same predecessor). */
#include "core/kernel_order.h"
#include "core/context.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cl_device_id device;
    char kernel[128];
    cl_context cl_ctx; /* of last */
    cl_event last;     /* the latest launch, retained */
} slot;

static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static size_t n_slots, cap_slots;

int dmlcl__needs_kernel_order(const char *platform_version, int is_cpu)
{
    const char *p = strstr(platform_version, "PoCL ");
    return is_cpu && p && atoi(p + 5) < 7;
}

/* The slot of (device, kernel), added if new; NULL when out of memory. Caller holds the
 * lock. */
static slot *find(cl_device_id device, const char *kernel)
{
    for (size_t i = 0; i < n_slots; i++)
        if (slots[i].device == device && !strcmp(slots[i].kernel, kernel))
            return &slots[i];
    if (n_slots == cap_slots) {
        size_t cap = cap_slots ? 2 * cap_slots : 16;
        slot *grown = dmlcl__realloc(slots, cap * sizeof *grown);
        if (!grown)
            return NULL;
        slots = grown, cap_slots = cap;
    }
    slot *s = &slots[n_slots++];
    *s = (slot){device, "", NULL, NULL};
    snprintf(s->kernel, sizeof s->kernel, "%s", kernel);
    return s;
}

/* The launch, after s's last where there is one. Caller holds the lock. */
static dmlcl_status enqueue_after(dmlcl_context *c, slot *s, cl_kernel k, cl_uint dims,
                                  const size_t *global, const size_t *local, cl_uint nwait,
                                  const cl_event *wait, cl_event *event)
{
    cl_event *all = (cl_event *)wait;
    if (s->last && s->cl_ctx != c->cl_ctx) {
        clWaitForEvents(1, &s->last); /* another context's event: on the host */
    } else if (s->last) {
        if (!(all = dmlcl__malloc((nwait + 1) * sizeof *all)))
            return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "launching %s: out of host memory",
                               s->kernel);
        if (nwait)
            memcpy(all, wait, nwait * sizeof *all); /* wait may be NULL */
        all[nwait++] = s->last;
    }
    cl_event mine = NULL;
    cl_int err = clEnqueueNDRangeKernel(c->queue, k, dims, NULL, global, local, nwait, all,
                                        &mine);
    if (all != wait)
        dmlcl__free(all);
    if (err)
        return dmlcl__cl_fail("clEnqueueNDRangeKernel", err);
    if (s->last)
        clReleaseEvent(s->last);
    s->last = mine, s->cl_ctx = c->cl_ctx;
    if (event) {
        clRetainEvent(mine);
        *event = mine;
    }
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__enqueue_kernel(dmlcl_context *c, cl_kernel k, cl_uint dims,
                                   const size_t *global, const size_t *local, cl_uint nwait,
                                   const cl_event *wait, cl_event *event)
{
    cl_int err;
    char name[128] = "";
    if (!c->info.kernel_order) {
        err = clEnqueueNDRangeKernel(c->queue, k, dims, NULL, global, local, nwait, wait, event);
        return err ? dmlcl__cl_fail("clEnqueueNDRangeKernel", err) : DMLCL_SUCCESS;
    }
    if ((err = clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL)))
        return dmlcl__cl_fail("clGetKernelInfo(CL_KERNEL_FUNCTION_NAME)", err);
    pthread_mutex_lock(&order_lock);
    slot *s = find(c->device, name);
    dmlcl_status st = s ? enqueue_after(c, s, k, dims, global, local, nwait, wait, event)
                        : dmlcl__fail(DMLCL_OUT_OF_MEMORY, "launching %s: out of host memory",
                                      name);
    pthread_mutex_unlock(&order_lock);
    return st;
}

void dmlcl__kernel_order_forget(cl_context cl_ctx)
{
    pthread_mutex_lock(&order_lock);
    size_t kept = 0;
    for (size_t i = 0; i < n_slots; i++) {
        if (slots[i].cl_ctx == cl_ctx)
            clReleaseEvent(slots[i].last);
        else
            slots[kept++] = slots[i];
    }
    n_slots = kept;
    if (n_slots == 0) { /* a finished process (or test) holds nothing of ours */
        dmlcl__free(slots);
        slots = NULL, cap_slots = 0;
    }
    pthread_mutex_unlock(&order_lock);
}
