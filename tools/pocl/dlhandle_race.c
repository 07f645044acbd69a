/* A reproducer, in OpenCL calls alone, of a POCL bug that dmlcl works around
 * (lib/core/kernel_order.c). POCL's CPU drivers before 7.0 keep a cache of each kernel's
 * loaded machine code, one entry per (kernel, local size, widest grid it was built for),
 * counted while launches use it. A launch takes the first entry wide enough for its grid
 * and moves it to the front, but gives it back by looking up (kernel, local size) alone,
 * so it gives back whatever entry of that kernel is at the front then. Two launches of one
 * kernel in flight at once, the second wider than any entry so far (so it makes a new
 * one), give back the new entry twice: with assertions on (Ubuntu 24.04's POCL 5.0, and
 * Debian's) the process aborts in pocl_release_dlhandle_cache ("found->ref_count > 0");
 * without them the count wraps, and an entry still in use can be unloaded later. POCL 7.0
 * fixed it (a launch gives back the entry it took).
 *
 * The steps, on a fresh kernel: queue A launches a narrow grid that runs for a while; once
 * it runs, queue B launches a wider grid and finishes; then A finishes. Exits 0 if POCL
 * survived that (an unaffected POCL), 1 on a wrong result; an affected POCL aborts. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

static const char *source =
    "__kernel void spin(__global int *p, int n) {\n"
    "    int acc = (int)get_global_id(0);\n"
    "    for (int i = 0; i < n; i++) acc = acc * 1103515245 + 12345;\n"
    "    p[get_global_id(0)] = n ? acc : (int)get_global_id(0);\n"
    "}\n";

static int fail(const char *what, cl_int err)
{
    fprintf(stderr, "dlhandle_race: %s failed (%d)\n", what, err);
    return 2;
}

/* Launches spin over `global` items, `n` turns each, on q; returns its event. */
static cl_int launch(cl_command_queue q, cl_kernel k, cl_mem m, size_t global, int n,
                     cl_event *ev)
{
    size_t local = 64;
    cl_int err = clSetKernelArg(k, 0, sizeof m, &m) | clSetKernelArg(k, 1, sizeof n, &n);
    return err ? err : clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, ev);
}

int main(void)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    char version[256] = "";
    clGetPlatformIDs(8, plats, &np);
    for (cl_uint i = 0; i < np && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_CPU, 1, &dev, NULL) == CL_SUCCESS)
            clGetPlatformInfo(plats[i], CL_PLATFORM_VERSION, sizeof version, version, NULL);
    if (!dev)
        return fail("finding an OpenCL CPU device", CL_DEVICE_NOT_FOUND);
    printf("dlhandle_race: %s\n", version);
    fflush(stdout);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue a = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_command_queue b = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    if ((err = clBuildProgram(prog, 1, &dev, "", NULL, NULL)))
        return fail("clBuildProgram", err);
    cl_kernel ka = clCreateKernel(prog, "spin", &err), kb = clCreateKernel(prog, "spin", &err);
    cl_mem ma = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 64 * sizeof(int), NULL, &err);
    cl_mem mb = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 128 * sizeof(int), NULL, &err);

    /* A: 64 items that spin for a second or so; wait until it runs (POCL takes its entry
     * when it starts it). */
    cl_event ea, eb;
    if ((err = launch(a, ka, ma, 64, 20000000, &ea)) || (err = clFlush(a)))
        return fail("launching A", err);
    cl_int status = CL_QUEUED;
    while (clGetEventInfo(ea, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL)
               == CL_SUCCESS && status > CL_RUNNING)
        ;
    /* B: 128 items, wider than A's entry, so POCL makes a second entry; B ends first. */
    if ((err = launch(b, kb, mb, 128, 0, &eb)) || (err = clFinish(b)))
        return fail("running B", err);
    clGetEventInfo(ea, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    printf("dlhandle_race: B finished while A was %s\n",
           status == CL_COMPLETE ? "already complete (too fast: not a test)" : "running");
    fflush(stdout);
    if ((err = clFinish(a)))
        return fail("finishing A", err);
    int host[128];
    clEnqueueReadBuffer(b, mb, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL);
    int wrong = 0;
    for (int i = 0; i < 128; i++)
        wrong |= host[i] != i;
    printf("dlhandle_race: no abort%s\n", wrong ? ", but B's result is WRONG" : "");
    clReleaseEvent(ea), clReleaseEvent(eb);
    clReleaseMemObject(ma), clReleaseMemObject(mb);
    clReleaseKernel(ka), clReleaseKernel(kb);
    clReleaseProgram(prog);
    clReleaseCommandQueue(a), clReleaseCommandQueue(b);
    clReleaseContext(ctx);
    return wrong;
}
