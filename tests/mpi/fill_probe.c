/* The ghosted buffer's fill on one device, alone (OpenCL calls only): for each size given
 * (MiB, fractions allowed), a fresh context fills a buffer of that size with a 128-byte
 * pattern in commands of at most 1 GiB and the last bytes written (what the MPI layer does
 * now), then every size again with a 4-byte pattern in commands of at most 1 GiB (what it
 * did next), then with a 1-byte pattern in one command (what it did first: last, because
 * on NVIDIA's driver a failed fill leaves the process unable to fill again), each followed
 * by a read of bytes at the start, at 2^31, at 2^32 and at the end, that must hold the
 * pattern. One line per fill: the status, the seconds, the samples. A fill that has not
 * finished after 120 s is reported as such and the probe exits 3. Exit status 1 if any
 * fill failed. doc/mpi.md, "Large fields".
 *
 *   fill_probe [--gpu N] 1024 2050 3072 4098 */
#include <CL/cl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK ((uint64_t)1 << 30)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The n-th GPU of any platform, else the first device of the first platform. */
static cl_device_id pick(int n, cl_platform_id *platform)
{
    cl_platform_id ps[16];
    cl_uint np = 0, nd = 0;
    cl_device_id d[64];
    clGetPlatformIDs(16, ps, &np);
    for (cl_uint p = 0; p < np; p++)
        if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_GPU, 64, d, &nd) == CL_SUCCESS) {
            if (n < (int)nd)
                return *platform = ps[p], d[n];
            n -= (int)nd;
        }
    if (np && clGetDeviceIDs(ps[0], CL_DEVICE_TYPE_ALL, 1, d, &nd) == CL_SUCCESS)
        return *platform = ps[0], d[0];
    return NULL;
}

/* Polls the marker after the fills: a bound instead of a blocking clFinish. */
static cl_int finish(cl_command_queue q)
{
    cl_event e;
    cl_int err = clEnqueueMarkerWithWaitList(q, 0, NULL, &e), st = CL_QUEUED;
    if (err != CL_SUCCESS)
        return err;
    clFlush(q);
    for (double t0 = now_s();;) {
        err = clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
        if (err != CL_SUCCESS || st <= CL_COMPLETE)
            break;
        if (now_s() - t0 > 120) {
            printf("  not finished after 120 s: the fill hangs\n");
            fflush(stdout);
            exit(3);
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    clReleaseEvent(e);
    return err != CL_SUCCESS ? err : st;
}

static const char *const modes[3] = {"128-byte pattern, commands of <= 1 GiB, tail written",
                                     "4-byte pattern, commands of <= 1 GiB",
                                     "1-byte pattern, one command"};

/* One fill of bytes in modes[mode]. Returns 1 if it passed. */
static int probe(cl_platform_id platform, cl_device_id dev, uint64_t bytes, int mode)
{
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_int err;
    cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = err == CL_SUCCESS ? clCreateCommandQueue(ctx, dev, 0, &err) : NULL;
    cl_mem buf = err == CL_SUCCESS ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
    uint8_t pattern[128];
    const uint8_t want = mode == 2 ? 0x5A : 0xA5;
    memset(pattern, want, sizeof pattern);
    const size_t psize = mode == 0 ? 128 : mode == 1 ? 4 : 1;
    const uint64_t bulk = mode == 2 ? bytes : bytes / psize * psize;
    double t0 = now_s();
    for (uint64_t at = 0; at < bulk && err == CL_SUCCESS; at += mode == 2 ? bulk : CHUNK)
        err = clEnqueueFillBuffer(q, buf, pattern, psize, at,
                                  mode == 2 || bulk - at < CHUNK ? bulk - at : CHUNK, 0, NULL, NULL);
    if (err == CL_SUCCESS && bytes > bulk)
        err = clEnqueueWriteBuffer(q, buf, CL_TRUE, bulk, bytes - bulk, pattern, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = finish(q);
    double secs = now_s() - t0;
    int bad = 0;
    const uint64_t at[4] = {0, (uint64_t)1 << 31, (uint64_t)1 << 32, bytes - 4096};
    for (int i = 0; i < 4 && err == CL_SUCCESS; i++) {
        uint8_t got[4096];
        if (at[i] + sizeof got > bytes)
            continue;
        err = clEnqueueReadBuffer(q, buf, CL_TRUE, at[i], sizeof got, got, 0, NULL, NULL);
        for (size_t k = 0; k < sizeof got && err == CL_SUCCESS; k++)
            bad += got[k] != want;
    }
    printf("fill %.1f MiB, %s: %s (%d), %.3f s, %s\n", bytes / 1048576.0, modes[mode],
           err == CL_SUCCESS ? "CL_SUCCESS" : "error", (int)err, secs,
           err != CL_SUCCESS ? "samples not read" : bad ? "samples WRONG" : "samples hold the pattern");
    fflush(stdout);
    if (buf)
        clReleaseMemObject(buf);
    if (q)
        clReleaseCommandQueue(q);
    if (ctx)
        clReleaseContext(ctx);
    return err == CL_SUCCESS && !bad;
}

int main(int argc, char **argv)
{
    int gpu = 0, i = 1, failed = 0;
    if (argc > 2 && !strcmp(argv[1], "--gpu"))
        gpu = atoi(argv[2]), i = 3;
    cl_platform_id platform = NULL;
    cl_device_id dev = pick(gpu, &platform);
    if (!dev || i >= argc) {
        fprintf(stderr, "usage: fill_probe [--gpu N] MiB... (and an OpenCL device)\n");
        return 2;
    }
    char name[128] = "?";
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    printf("# %s, CL_DEVICE_MAX_MEM_ALLOC_SIZE %.0f MiB\n", name, max_alloc / 1048576.0);
    for (int mode = 0; mode < 3; mode++)
        for (int k = i; k < argc; k++)
            failed += !probe(platform, dev, (uint64_t)(atof(argv[k]) * 1048576.0) / 4 * 4, mode);
    return failed ? 1 : 0;
}
