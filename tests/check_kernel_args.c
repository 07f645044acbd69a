/* The argument structs that kernels share with their host code (lib/core/kernel_args.h):
 * each struct's size and every field's offset, as the device's compiler lays them out
 * (tests/kernel_args.cl, built here from the same headers the library's programs inline),
 * equal the host's. */
#include "testutil.h"
#include "core/context.h"
#include "resample/resample1/args.h"
#include "resample/taps/args.h"
#include "reverse/args.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* tests/kernel_args_gen.c: the probe's program text (tools/embed_kernels -p tu_args). */
extern const dmlcl__kernel_source tu_args_sources[];
extern const size_t tu_args_source_count;

enum { MOST = 256 };

/* The host's layout, in the probe's order: size, then each field's offset. */
typedef struct {
    uint64_t v[MOST];
    const char *what[MOST];
    unsigned n;
} layout;

#define HOST_S(name) (l->what[l->n] = #name, l->v[l->n++] = offsetof(CUR, name));
#define HOST_A(name, count) HOST_S(name)
#define HOST(T, LIST)                                                                       \
    (l->what[l->n] = "sizeof(" #T ")", l->v[l->n++] = sizeof(T));                           \
    LIST(HOST_S, HOST_A)

static void host_layout(layout *l)
{
    l->n = 0;
#define CUR rs_args
    HOST(rs_args, RS_ARGS)
#undef CUR
#define CUR resample1_args
    HOST(resample1_args, RESAMPLE1_ARGS)
#undef CUR
#define CUR taps_args
    HOST(taps_args, TAPS_ARGS)
#undef CUR
}

START_TEST(device_layout_equals_host)
{
    layout want;
    host_layout(&want);
    ck_assert_uint_eq(tu_args_source_count, 1);
    dmlcl_context *c = tu_context();
    cl_context ctx = dmlcl_context_cl_context(c);
    cl_device_id dev = dmlcl_context_device(c);
    const char *text = tu_args_sources[0].text;
    size_t len = tu_args_sources[0].length;
    cl_int err;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &text, &len, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    err = clBuildProgram(prog, 1, &dev, "-Werror", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        ck_abort_msg("building tests/kernel_args.cl: %d: %s", (int)err, log);
    }
    cl_kernel k = clCreateKernel(prog, "kernel_args_layout", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, MOST * 8, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem count = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 4, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clSetKernelArg(k, 0, sizeof out, &out);
    clSetKernelArg(k, 1, sizeof count, &count);
    size_t one = 1;
    cl_command_queue q = dmlcl_context_queue(c);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL),
                     CL_SUCCESS);
    cl_ulong got[MOST];
    cl_uint n = 0;
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, count, CL_TRUE, 0, 4, &n, 0, NULL, NULL),
                     CL_SUCCESS);
    clReleaseMemObject(out);
    clReleaseMemObject(count);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    ck_assert_uint_eq(n, want.n);
    for (unsigned i = 0; i < n; i++)
        ck_assert_msg(got[i] == want.v[i], "%s: %llu on the device, %llu on the host",
                      want.what[i], (unsigned long long)got[i],
                      (unsigned long long)want.v[i]);
}
END_TEST

Suite *kernel_args_suite(void)
{
    Suite *s = suite_create("kernel_args");
    TCase *tc = tcase_create("layout");
    tcase_add_test(tc, device_layout_equals_host);
    suite_add_tcase(s, tc);
    return s;
}
