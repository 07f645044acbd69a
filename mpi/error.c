/* The layer's thread-local message (agree.c makes it every rank's). */
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
