/* Contexts: wrapping the caller's OpenCL objects, and picking a default device. */
#include "core/context.h"
#include "core/kernel_order.h"
#include <CL/cl_ext.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void query_info(cl_device_id dev, dmlcl__device_info *in)
{
    cl_platform_id plat = NULL;
    char ext[8192] = "";
    memset(in, 0, sizeof *in);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof in->name - 1, in->name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof in->vendor - 1, in->vendor, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof in->driver_version - 1, in->driver_version, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR_ID, sizeof in->vendor_id, &in->vendor_id, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof in->type, &in->type, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof in->compute_units, &in->compute_units, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof in->max_work_group_size,
                    &in->max_work_group_size, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof in->max_mem_alloc, &in->max_mem_alloc, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof in->global_mem, &in->global_mem, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof in->mem_base_addr_align,
                    &in->mem_base_addr_align, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    if (plat)
        clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof in->platform_version - 1,
                          in->platform_version, NULL);
    in->is_cpu = (in->type & CL_DEVICE_TYPE_CPU) != 0;
    in->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    cl_uint regs = 0;
    if (strstr(ext, "cl_nv_device_attribute_query") && strstr(ext, "cl_nv_compiler_options") &&
        clGetDeviceInfo(dev, CL_DEVICE_REGISTERS_PER_BLOCK_NV, sizeof regs, &regs, NULL) ==
            CL_SUCCESS)
        in->registers = regs;
    in->kernel_order = dmlcl__needs_kernel_order(in->platform_version, in->is_cpu);
    if (in->max_work_group_size == 0)
        in->max_work_group_size = 1;
    if (in->compute_units == 0)
        in->compute_units = 1;
}

/* The width of the compiler's vector registers on CPUs (kernels/core/simd.cl: a probe of a few
 * lines, built once per device and process, outside the program cache and its counts;
 * POCL's own cache makes it a load after the first process), 64 bytes elsewhere. Where the
 * probe cannot be built, 16: narrow vectors are slower, never wrong or noisy. */
static uint32_t simd_bytes(dmlcl_context *c)
{
    if (!c->info.is_cpu)
        return 64;
    uint32_t bytes = dmlcl__simd_memo(c->device, 0);
    if (bytes)
        return bytes;
    const dmlcl__kernel_source *src = dmlcl__kernel_find("simd");
    const char *text = src ? src->text : NULL;
    cl_int err = CL_SUCCESS;
    cl_program prog = src ? clCreateProgramWithSource(c->cl_ctx, 1, &text, &src->length, &err)
                          : NULL;
    if (!prog || err || clBuildProgram(prog, 1, &c->device, "", NULL, NULL) != CL_SUCCESS) {
        if (prog)
            clReleaseProgram(prog);
        return 16;
    }
    cl_kernel k = clCreateKernel(prog, "dmlcl_simd_bytes", &err);
    size_t wg[3] = {0, 0, 0};
    if (!err)
        err = clGetKernelWorkGroupInfo(k, c->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                       sizeof wg, wg, NULL);
    if (k)
        clReleaseKernel(k);
    clReleaseProgram(prog);
    bytes = !err && (wg[0] == 16 || wg[0] == 32 || wg[0] == 64) ? (uint32_t)wg[0] : 16;
    return dmlcl__simd_memo(c->device, bytes);
}

/* "176 bytes", "512.0 MiB", "2.48 GiB": the dmlcl tool's words for sizes. */
static const char *bytes_text(uint64_t bytes, char buf[32])
{
    if (bytes < 1024)
        snprintf(buf, 32, "%llu bytes", (unsigned long long)bytes);
    else if (bytes < ((uint64_t)1 << 30))
        snprintf(buf, 32, "%.1f MiB", bytes / 1048576.0);
    else
        snprintf(buf, 32, "%.2f GiB", bytes / 1073741824.0);
    return buf;
}

dmlcl_status dmlcl__buffer_fits(const dmlcl_context *c, const char *what, uint64_t bytes)
{
    uint64_t max = c->info.max_mem_alloc; /* 0: the query failed, let OpenCL decide */
    if ((!max || bytes <= max) && bytes <= SIZE_MAX)
        return DMLCL_SUCCESS;
    char need[32], have[32];
    return dmlcl__fail(DMLCL_UNSUPPORTED,
                       "%s needs a buffer of %s, over this device's limit of %s per buffer "
                       "(CL_DEVICE_MAX_MEM_ALLOC_SIZE; clCreateBuffer would fail with "
                       "CL_INVALID_BUFFER_SIZE); use a smaller tensor, or split the work in "
                       "tiles (dmlcl_operator_create_tile)",
                       what, bytes_text(bytes, need), bytes_text(max, have));
}

dmlcl_status dmlcl__device_mem_fits(const dmlcl_context *c, const char *what, uint64_t bytes)
{
    uint64_t max = c->info.global_mem; /* 0: the query failed, let OpenCL decide */
    if (!max || bytes <= max)
        return DMLCL_SUCCESS;
    char need[32], have[32];
    return dmlcl__fail(DMLCL_UNSUPPORTED,
                       "%s need %s, over this device's memory of %s "
                       "(CL_DEVICE_GLOBAL_MEM_SIZE); use smaller tensors, or split the work "
                       "in tiles (dmlcl_operator_create_tile)",
                       what, bytes_text(bytes, need), bytes_text(max, have));
}

/* The device must belong to the context, and a given queue to both. */
static dmlcl_status check_membership(cl_context ctx, cl_device_id dev, cl_command_queue q)
{
    cl_device_id devs[64];
    size_t bytes = 0;
    cl_int err = clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof devs, devs, &bytes);
    if (err)
        return dmlcl__cl_fail("clGetContextInfo(CL_CONTEXT_DEVICES)", err);
    int found = 0;
    for (size_t i = 0; i < bytes / sizeof devs[0]; i++)
        found |= devs[i] == dev;
    if (!found)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "dmlcl_context_create: device is not a device of ctx");
    if (q) {
        cl_context qc = NULL;
        cl_device_id qd = NULL;
        if ((err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL)) ||
            (err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL)))
            return dmlcl__cl_fail("clGetCommandQueueInfo", err);
        if (qc != ctx || qd != dev)
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "dmlcl_context_create: queue belongs to another context or device");
    }
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl_context_create(cl_context ctx, cl_device_id device, cl_command_queue queue,
                                  dmlcl_context **out)
{
    if (!out)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "dmlcl_context_create: out is NULL");
    *out = NULL;
    if (!ctx || !device)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "dmlcl_context_create: %s is NULL",
                           ctx ? "device" : "ctx");
    dmlcl_status st = check_membership(ctx, device, queue);
    if (st)
        return st;
    dmlcl_context *c = dmlcl__calloc(1, sizeof *c);
    if (!c)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "dmlcl_context_create: out of host memory");
    if ((st = dmlcl__cache_attach(ctx))) {
        dmlcl__free(c);
        return st;
    }
    cl_int err = CL_SUCCESS;
    if (queue) {
        clRetainCommandQueue(queue);
    } else {
        queue = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
        if (err) {
            dmlcl__cache_detach(ctx);
            dmlcl__free(c);
            return dmlcl__cl_fail("clCreateCommandQueue", err);
        }
    }
    clRetainContext(ctx);
    clRetainDevice(device);
    c->cl_ctx = ctx;
    c->device = device;
    c->queue = queue;
    c->refs = 1;
    dmlcl__memo_init(&c->memo);
    dmlcl__builds_init(&c->builds);
    query_info(device, &c->info);
    c->info.simd_bytes = simd_bytes(c);
    *out = c;
    return DMLCL_SUCCESS;
}

void dmlcl__context_retain(dmlcl_context *c) { __atomic_add_fetch(&c->refs, 1, __ATOMIC_SEQ_CST); }

void dmlcl_context_release(dmlcl_context *c)
{
    if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_SEQ_CST) != 0)
        return;
    dmlcl__builds_finish(&c->builds); /* they use c */
    dmlcl__memo_free(&c->memo);
    if (c->staging_kept)
        c->staging_free(c->staging_kept);
    dmlcl__cache_detach(c->cl_ctx);
    clReleaseCommandQueue(c->queue);
    clReleaseDevice(c->device);
    clReleaseContext(c->cl_ctx);
    dmlcl__free(c);
}

cl_context dmlcl_context_cl_context(const dmlcl_context *c) { return c ? c->cl_ctx : NULL; }
cl_device_id dmlcl_context_device(const dmlcl_context *c) { return c ? c->device : NULL; }
cl_command_queue dmlcl_context_queue(const dmlcl_context *c) { return c ? c->queue : NULL; }

/* ---- default device ------------------------------------------------------------------ */

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/* Does device (platform index p, device index d) match the selector? */
static int matches(const char *sel, cl_platform_id plat, cl_device_id dev, unsigned p, unsigned d)
{
    cl_device_type type = 0;
    char pname[256] = "", dname[256] = "";
    unsigned sp, sd;
    char tail;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (!strcmp(sel, "gpu"))
        return (type & CL_DEVICE_TYPE_GPU) != 0;
    if (!strcmp(sel, "cpu"))
        return (type & CL_DEVICE_TYPE_CPU) != 0;
    if (sscanf(sel, "%u:%u%c", &sp, &sd, &tail) == 2)
        return sp == p && sd == d;
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    return contains_nocase(pname, sel) || contains_nocase(dname, sel);
}

/* First device matching sel; with sel NULL, the first GPU, else the first CPU. */
/* `source` names where sel came from in the message: DMLCL_DEVICE or the selector. */
static dmlcl_status find_device(const char *sel, const char *source, cl_device_id *out)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(16, plats, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0))
        return dmlcl__fail(DMLCL_NO_DEVICE, "no OpenCL platform found (is an ICD such as "
                                            "pocl-opencl-icd installed?)");
    if (err)
        return dmlcl__cl_fail("clGetPlatformIDs", err);
    const char *passes[2] = {sel ? sel : "gpu", sel ? NULL : "cpu"};
    for (int pass = 0; pass < 2 && passes[pass]; pass++)
        for (cl_uint p = 0; p < np && p < 16; p++) {
            cl_device_id devs[64];
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < nd && d < 64; d++)
                if (matches(passes[pass], plats[p], devs[d], p, d)) {
                    *out = devs[d];
                    return DMLCL_SUCCESS;
                }
        }
    if (sel)
        return dmlcl__fail(DMLCL_NO_DEVICE, "no OpenCL device matches %s=\"%s\" "
                                            "(use gpu, cpu, P:D or a name substring)", source,
                           sel);
    return dmlcl__fail(DMLCL_NO_DEVICE, "no OpenCL GPU or CPU device found");
}

static dmlcl_status create_for(const char *selector, const char *source, dmlcl_context **out)
{
    if (!out)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "dmlcl_context_create_default: out is NULL");
    *out = NULL;
    if (selector && !*selector)
        selector = NULL;
    cl_device_id dev = NULL;
    dmlcl_status st = find_device(selector, source, &dev);
    if (st)
        return st;
    cl_int err = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err)
        return dmlcl__cl_fail("clCreateContext", err);
    st = dmlcl_context_create(ctx, dev, NULL, out);
    clReleaseContext(ctx); /* the dmlcl context holds its own reference */
    return st;
}

dmlcl_status dmlcl_context_create_for(const char *selector, dmlcl_context **out)
{
    return create_for(selector, "selector", out);
}

dmlcl_status dmlcl_context_create_default(dmlcl_context **out)
{
    return create_for(getenv("DMLCL_DEVICE"), "DMLCL_DEVICE", out);
}
