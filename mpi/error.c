/* The layer's thread-local message and the collective agreement on failures. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Fixed-size and thread-local, as libdmlcl's: reporting never allocates. */
static _Thread_local char message[1024];

const char *dmlcl_mpi_last_error(void) { return message; }

dmlcl_status mpil_fail(dmlcl_status status, const char *fmt, ...)
{
    char text[sizeof message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap); /* fmt's arguments may point into message */
    va_end(ap);
    memcpy(message, text, sizeof message);
    return status;
}

dmlcl_status mpil_dmlcl_fail(dmlcl_status status, const char *call)
{
    return mpil_fail(status, "%s: %s", call, dmlcl_last_error());
}

dmlcl_status mpil_cl_fail(const char *call, cl_int err)
{
    dmlcl_status st = err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                              err == CL_OUT_OF_RESOURCES
                          ? DMLCL_OUT_OF_MEMORY
                          : DMLCL_OPENCL_ERROR;
    return mpil_fail(st, "%s: %s (%d)", call, dmlcl_opencl_error_name(err), (int)err);
}

dmlcl_status mpil_mpi_fail(const char *call, int err)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(err, text, &len);
    return mpil_fail(DMLCL_IO_ERROR, "%s: %s", call, text);
}

/* One allreduce when every rank is fine (each wait bounded: wait.c) (MINLOC on "ok" finds the lowest failing rank);
 * a broadcast of that rank's status and message when one is not. */
dmlcl_status mpil_agree(MPI_Comm comm, const char *function, dmlcl_status status)
{
    struct {
        int ok, rank;
    } mine, first;
    MPI_Comm_rank(comm, &mine.rank);
    mine.ok = status == DMLCL_SUCCESS;
    MPI_Request req;
    int err = MPI_Iallreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, comm, &req);
    if (err == MPI_SUCCESS)
        err = mpil_collective_wait(comm, &req, function, status);
    if (err != MPI_SUCCESS)
        return mpil_mpi_fail("MPI_Allreduce (agreeing on errors)", err);
    if (first.ok)
        return DMLCL_SUCCESS;
    struct {
        int status;
        char text[sizeof message - 64];
    } m;
    memset(&m, 0, sizeof m);
    if (mine.rank == first.rank) {
        m.status = (int)status;
        memcpy(m.text, message, sizeof m.text - 1); /* m is zeroed: ends in 0 */
    }
    err = MPI_Ibcast(&m, (int)sizeof m, MPI_BYTE, first.rank, comm, &req);
    if (err == MPI_SUCCESS)
        err = mpil_collective_wait(comm, &req, function, status);
    if (err != MPI_SUCCESS)
        return mpil_mpi_fail("MPI_Bcast (agreeing on errors)", err);
    return mpil_fail((dmlcl_status)m.status, "%s: rank %d: %s", function, first.rank, m.text);
}
