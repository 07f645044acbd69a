/* Status names and the thread-local error message. */
#include "core/base.h"
#include <stdio.h>

/* Fixed-size and thread-local: reporting a failure must never allocate or race. */
static _Thread_local char last_error[1024];

const char *dmlcl_status_string(dmlcl_status status)
{
    switch (status) {
    case DMLCL_SUCCESS: return "DMLCL_SUCCESS";
    case DMLCL_INVALID_ARGUMENT: return "DMLCL_INVALID_ARGUMENT";
    case DMLCL_UNSUPPORTED: return "DMLCL_UNSUPPORTED";
    case DMLCL_OUT_OF_MEMORY: return "DMLCL_OUT_OF_MEMORY";
    case DMLCL_OPENCL_ERROR: return "DMLCL_OPENCL_ERROR";
    case DMLCL_BUILD_ERROR: return "DMLCL_BUILD_ERROR";
    case DMLCL_NO_DEVICE: return "DMLCL_NO_DEVICE";
    case DMLCL_IO_ERROR: return "DMLCL_IO_ERROR";
    }
    return "DMLCL_UNKNOWN_STATUS";
}

const char *dmlcl_last_error(void) { return last_error; }

const char *dmlcl_version(void) { return DMLCL_VERSION_STRING; }

dmlcl_status dmlcl__fail(dmlcl_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

const char *dmlcl_opencl_error_name(cl_int err)
{
#define E(x) case x: return #x
    switch (err) {
    E(CL_SUCCESS); E(CL_DEVICE_NOT_FOUND); E(CL_DEVICE_NOT_AVAILABLE);
    E(CL_COMPILER_NOT_AVAILABLE); E(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    E(CL_OUT_OF_RESOURCES); E(CL_OUT_OF_HOST_MEMORY); E(CL_PROFILING_INFO_NOT_AVAILABLE);
    E(CL_MEM_COPY_OVERLAP); E(CL_BUILD_PROGRAM_FAILURE); E(CL_MAP_FAILURE);
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET); E(CL_COMPILE_PROGRAM_FAILURE);
    E(CL_LINKER_NOT_AVAILABLE); E(CL_LINK_PROGRAM_FAILURE);
    E(CL_INVALID_VALUE); E(CL_INVALID_DEVICE_TYPE); E(CL_INVALID_PLATFORM);
    E(CL_INVALID_DEVICE); E(CL_INVALID_CONTEXT); E(CL_INVALID_QUEUE_PROPERTIES);
    E(CL_INVALID_COMMAND_QUEUE); E(CL_INVALID_HOST_PTR); E(CL_INVALID_MEM_OBJECT);
    E(CL_INVALID_BINARY); E(CL_INVALID_BUILD_OPTIONS); E(CL_INVALID_PROGRAM);
    E(CL_INVALID_PROGRAM_EXECUTABLE); E(CL_INVALID_KERNEL_NAME);
    E(CL_INVALID_KERNEL_DEFINITION); E(CL_INVALID_KERNEL); E(CL_INVALID_ARG_INDEX);
    E(CL_INVALID_ARG_VALUE); E(CL_INVALID_ARG_SIZE); E(CL_INVALID_KERNEL_ARGS);
    E(CL_INVALID_WORK_DIMENSION); E(CL_INVALID_WORK_GROUP_SIZE);
    E(CL_INVALID_WORK_ITEM_SIZE); E(CL_INVALID_GLOBAL_OFFSET);
    E(CL_INVALID_EVENT_WAIT_LIST); E(CL_INVALID_EVENT); E(CL_INVALID_OPERATION);
    E(CL_INVALID_BUFFER_SIZE); E(CL_INVALID_GLOBAL_WORK_SIZE); E(CL_INVALID_PROPERTY);
    }
#undef E
    return "CL_UNKNOWN_ERROR";
}

dmlcl_status dmlcl__cl_fail(const char *call, cl_int err)
{
    dmlcl_status st = DMLCL_OPENCL_ERROR;
    if (err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        err == CL_OUT_OF_RESOURCES)
        st = DMLCL_OUT_OF_MEMORY;
    return dmlcl__fail(st, "%s: %s (%d)", call, dmlcl_opencl_error_name(err), (int)err);
}
