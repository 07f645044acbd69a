/* Bounded waits: every wait of the layer on a peer (MPI requests) or on the device (OpenCL
 * events) polls until it completes or DMLCL_MPI_TIMEOUT seconds pass, so that a rank that
 * stopped taking part, or a device that stopped, becomes an error naming the call instead
 * of a job that never ends (doc/mpi.md, "Time limits"). */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DEFAULT_TIMEOUT_S 300.0

double mpil_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Yields for the first 2 ms (a halo's face reads and messages take tens of microseconds,
 * and begin's wait is on a step's critical path: a sleep there would add to every step),
 * then sleeps a little longer each time (50 us doubling to 1 ms): long waits cost no core. */
static void pause_for(double t0, long *ns)
{
    if (mpil_now_s() - t0 < 2e-3) {
        sched_yield();
        return;
    }
    struct timespec t = {0, *ns};
    nanosleep(&t, NULL);
    if (*ns < 1000000)
        *ns *= 2;
}

dmlcl_status mpil_timeout_check(void)
{
    const char *v = getenv("DMLCL_MPI_TIMEOUT");
    char *end = NULL;
    if (!v || !*v)
        return DMLCL_SUCCESS;
    errno = 0;
    double s = strtod(v, &end);
    if (errno || *end || !(s > 0) || s > 1e9)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "DMLCL_MPI_TIMEOUT \"%.40s\": must be a number of seconds above 0 "
                         "(default %.0f)",
                         v, DEFAULT_TIMEOUT_S);
    return DMLCL_SUCCESS;
}

double mpil_timeout_s(void)
{
    const char *v = getenv("DMLCL_MPI_TIMEOUT");
    char *end = NULL;
    double s = v && *v ? strtod(v, &end) : 0;
    return end && !*end && s > 0 && s <= 1e9 ? s : DEFAULT_TIMEOUT_S;
}

dmlcl_status mpil_finish(cl_command_queue q, const char *what)
{
    cl_event done = NULL;
    cl_int err = clEnqueueMarkerWithWaitList(q, 0, NULL, &done);
    if (err == CL_SUCCESS)
        err = clFlush(q);
    if (err != CL_SUCCESS) {
        if (done)
            clReleaseEvent(done);
        return mpil_cl_fail(what, err);
    }
    dmlcl_status st = mpil_event_wait(done, what);
    clReleaseEvent(done);
    return st;
}

dmlcl_status mpil_event_wait(cl_event e, const char *what)
{
    const double limit = mpil_timeout_s(), t0 = mpil_now_s();
    long ns = 50000;
    for (;;) {
        cl_int status = CL_QUEUED;
        cl_int err = clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                                    &status, NULL);
        if (err != CL_SUCCESS)
            return mpil_cl_fail(what, err);
        if (status < 0)
            return mpil_cl_fail(what, status);
        if (status == CL_COMPLETE)
            return DMLCL_SUCCESS;
        if (mpil_now_s() - t0 > limit)
            return mpil_fail(DMLCL_OPENCL_ERROR,
                             "%s: the device did not finish within %g s (DMLCL_MPI_TIMEOUT); "
                             "the command is %s",
                             what, limit,
                             status == CL_RUNNING     ? "running"
                             : status == CL_SUBMITTED ? "submitted"
                                                      : "queued");
        pause_for(t0, &ns);
    }
}

dmlcl_status mpil_requests_wait(int n, MPI_Request *req, const char *what,
                                void (*describe)(const void *ctx, int i, char *buf, size_t cap),
                                const void *ctx)
{
    const double limit = mpil_timeout_s(), t0 = mpil_now_s();
    long ns = 50000;
    int done = 0;
    while (n > 0) {
        int err = MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (err != MPI_SUCCESS)
            return mpil_mpi_fail(what, err);
        if (done)
            return DMLCL_SUCCESS;
        if (mpil_now_s() - t0 > limit)
            break;
        pause_for(t0, &ns);
    }
    if (n <= 0)
        return DMLCL_SUCCESS;
    /* The first request still open says which peer this rank waits for; the open ones are
     * cancelled and freed, so that no late message lands in memory the caller reuses. */
    char which[200] = "a request";
    int first = -1;
    for (int i = 0; i < n; i++) {
        int flag = 1;
        if (req[i] != MPI_REQUEST_NULL)
            MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
        if (flag)
            continue;
        if (first < 0 && describe)
            describe(ctx, i, which, sizeof which);
        first = first < 0 ? i : first;
        MPI_Cancel(&req[i]);
        MPI_Request_free(&req[i]);
    }
    return mpil_fail(DMLCL_IO_ERROR,
                     "%s: waited %g s (DMLCL_MPI_TIMEOUT) for %s: that rank did not take part "
                     "in time",
                     what, limit, which);
}

/* The agreement's own wait: where it runs out, a rank is gone or stuck outside the layer,
 * and no answer can be agreed; this rank says so and ends the job (doc/mpi.md). */
int mpil_collective_wait(MPI_Comm comm, MPI_Request *req, const char *function,
                         dmlcl_status mine)
{
    const double limit = mpil_timeout_s(), t0 = mpil_now_s();
    long ns = 50000;
    int done = 0, rank = 0;
    for (;;) {
        int err = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS || done)
            return err;
        if (mpil_now_s() - t0 > limit)
            break;
        pause_for(t0, &ns);
    }
    MPI_Comm_rank(comm, &rank);
    fprintf(stderr,
            "dmlcl_mpi: rank %d: %s: waited %g s (DMLCL_MPI_TIMEOUT) in the agreement on "
            "errors (MPI_Iallreduce/MPI_Ibcast): a rank did not reach it; this rank's "
            "status: %s%s%s; calling MPI_Abort\n",
            rank, function, limit, dmlcl_status_string(mine), mine ? ": " : "",
            mine ? dmlcl_mpi_last_error() : "");
    fflush(stderr);
    MPI_Abort(comm, 3);
    return MPI_ERR_OTHER; /* not reached */
}
