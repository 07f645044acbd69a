/* A run's profile (DMLCL_MPI_PROFILE): where the time of one dmlcl_mpi_operator_run went,
 * from the OpenCL profiling times of its commands on the device's clock and the host's
 * waits, so that a step slower than its kernel shows which phase adds (doc/mpi.md). */
#include "internal.h"

void spans_release(cl_event *ev, int n)
{
    for (int i = 0; i < n; i++)
        if (ev[i])
            clReleaseEvent(ev[i]), ev[i] = NULL;
}

/* An event's start or end (device nanoseconds); 0 where the device does not say. */
static cl_ulong at(cl_event e, cl_profiling_info which)
{
    cl_ulong t = 0;
    if (!e || clGetEventProfilingInfo(e, which, sizeof t, &t, NULL) != CL_SUCCESS)
        return 0;
    return t;
}

/* A phase from first's start to last's end, in ms from origin; -1, -1 where unknown. */
static void phase(cl_event first, cl_event last, cl_ulong origin, double *start, double *ms)
{
    const cl_ulong s = at(first, CL_PROFILING_COMMAND_START);
    const cl_ulong e = at(last, CL_PROFILING_COMMAND_END);
    *start = *ms = -1;
    if (!s || !e || e < s || s < origin)
        return;
    *start = (double)(s - origin) * 1e-6;
    *ms = (double)(e - s) * 1e-6;
}

dmlcl_status spans_profile(const run_spans *r, dmlcl_mpi_run_profile *p)
{
    cl_ulong origin = 0, end = 0;
    for (int i = 0; i < SPANS; i++) {
        cl_int status = CL_COMPLETE;
        if (r->ev[i] && (clGetEventInfo(r->ev[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                                        sizeof status, &status, NULL) != CL_SUCCESS ||
                         status != CL_COMPLETE))
            return mpil_fail(DMLCL_INVALID_ARGUMENT,
                             "dmlcl_mpi_operator_profile: the last run has not finished (wait "
                             "for the context's queue first: clFinish)");
        const cl_ulong s = at(r->ev[i], CL_PROFILING_COMMAND_START);
        const cl_ulong e = at(r->ev[i], CL_PROFILING_COMMAND_END);
        origin = s && (!origin || s < origin) ? s : origin;
        end = e > end ? e : end;
    }
    phase(r->ev[SPAN_READ0], r->ev[SPAN_READ1], origin, &p->reads_start_ms, &p->reads_ms);
    phase(r->ev[SPAN_KERNEL], r->ev[SPAN_KERNEL], origin, &p->kernel_start_ms, &p->kernel_ms);
    phase(r->ev[SPAN_WRITE0], r->ev[SPAN_WRITE1], origin, &p->writes_start_ms, &p->writes_ms);
    phase(r->ev[SPAN_SLAB0], r->ev[SPAN_SLAB1], origin, &p->slabs_start_ms, &p->slabs_ms);
    p->device_ms = origin && end > origin ? (double)(end - origin) * 1e-6 : -1;
    p->reads_wait_ms = r->reads_wait_ms;
    p->exchange_ms = r->exchange_ms;
    return DMLCL_SUCCESS;
}
