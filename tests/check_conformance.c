/* Conformance with doc/api.md and doc/operators.md, item by item, where the other suites leave a
 * gap: the contract's names and values, NULL for every pointer a public function takes,
 * dmlcl_last_error()'s lifetime, context rules and DMLCL_DEVICE, 64-bit byte overflow,
 * bindings from another cl_context, out-of-order queues, shapes as kernel arguments for
 * RESAMPLE1, the spec's RESAMPLE1 tie and FLT_MAX cases, and crashed writers' temp files
 * in the disk cache. Compile budget: four programs, in fresh cl_contexts (context_rules,
 * resample1_shapes_one_compile_each: two, stale_temp_files_swept_on_store); everything
 * else reuses variants the other suites build. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv, utimensat */
#endif
#include "testutil.h"
#include "cachetest.h"
#include <ctype.h>
#include <fcntl.h>
#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* ---- the contract's names and values -------------------------------------------------------- */

START_TEST(api_names_and_values)
{
    ck_assert_int_eq(DMLCL_SUCCESS, 0);
    const dmlcl_status all[8] = {DMLCL_SUCCESS,     DMLCL_INVALID_ARGUMENT, DMLCL_UNSUPPORTED,
                                 DMLCL_OUT_OF_MEMORY, DMLCL_OPENCL_ERROR,   DMLCL_BUILD_ERROR,
                                 DMLCL_NO_DEVICE,   DMLCL_IO_ERROR};
    const char *const names[8] = {"DMLCL_SUCCESS",      "DMLCL_INVALID_ARGUMENT",
                                  "DMLCL_UNSUPPORTED",  "DMLCL_OUT_OF_MEMORY",
                                  "DMLCL_OPENCL_ERROR", "DMLCL_BUILD_ERROR",
                                  "DMLCL_NO_DEVICE",    "DMLCL_IO_ERROR"};
    for (int i = 0; i < 8; i++)
        ck_assert_str_eq(dmlcl_status_string(all[i]), names[i]);
    /* DirectML's DML_TENSOR_DATA_TYPE values, and their element sizes. */
    const dmlcl_tensor_data_type types[12] = {
        DMLCL_TENSOR_DATA_TYPE_UNKNOWN, DMLCL_TENSOR_DATA_TYPE_FLOAT32,
        DMLCL_TENSOR_DATA_TYPE_FLOAT16, DMLCL_TENSOR_DATA_TYPE_UINT32,
        DMLCL_TENSOR_DATA_TYPE_UINT16,  DMLCL_TENSOR_DATA_TYPE_UINT8,
        DMLCL_TENSOR_DATA_TYPE_INT32,   DMLCL_TENSOR_DATA_TYPE_INT16,
        DMLCL_TENSOR_DATA_TYPE_INT8,    DMLCL_TENSOR_DATA_TYPE_FLOAT64,
        DMLCL_TENSOR_DATA_TYPE_UINT64,  DMLCL_TENSOR_DATA_TYPE_INT64};
    const uint32_t bytes[12] = {0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8};
    for (int i = 0; i < 12; i++) {
        ck_assert_int_eq(types[i], i);
        ck_assert_uint_eq(dmlcl_data_type_size(types[i]), bytes[i]);
    }
    ck_assert_int_eq(DMLCL_TENSOR_DIMENSION_COUNT_MAX, 8);
    ck_assert_int_eq(DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 0);
    ck_assert_int_eq(DMLCL_INTERPOLATION_MODE_LINEAR, 1);
    ck_assert_int_eq(DMLCL_OPERATOR_INVALID, 0);
    ck_assert_int_eq(DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, 1);
    ck_assert_int_eq(DMLCL_OPERATOR_RESAMPLE1, 2);
    /* Field order as doc/api.md lists it (positional initializers depend on it). */
#define BEFORE(type, a, b) ck_assert(offsetof(type, a) < offsetof(type, b))
    BEFORE(dmlcl_tensor_desc, data_type, dimension_count);
    BEFORE(dmlcl_tensor_desc, dimension_count, sizes);
    BEFORE(dmlcl_tensor_desc, sizes, strides);
    BEFORE(dmlcl_tensor_desc, strides, total_tensor_size_in_bytes);
    BEFORE(dmlcl_reverse_subsequences_desc, input_tensor, sequence_lengths_tensor);
    BEFORE(dmlcl_reverse_subsequences_desc, sequence_lengths_tensor, output_tensor);
    BEFORE(dmlcl_reverse_subsequences_desc, output_tensor, axis);
    BEFORE(dmlcl_resample1_desc, input_tensor, output_tensor);
    BEFORE(dmlcl_resample1_desc, output_tensor, interpolation_mode);
    BEFORE(dmlcl_resample1_desc, interpolation_mode, dimension_count);
    BEFORE(dmlcl_resample1_desc, dimension_count, scales);
    BEFORE(dmlcl_resample1_desc, scales, input_pixel_offsets);
    BEFORE(dmlcl_resample1_desc, input_pixel_offsets, output_pixel_offsets);
    BEFORE(dmlcl_operator_desc, type, desc);
    BEFORE(dmlcl_buffer_binding, buffer, offset);
    BEFORE(dmlcl_buffer_binding, offset, size_in_bytes);
    BEFORE(dmlcl_cache_stats, memory_hits, disk_hits);
    BEFORE(dmlcl_cache_stats, disk_hits, compiles);
#undef BEFORE
}
END_TEST

/* ---- the spec's reference example 1 as a fixture -------------------------------------------- */

typedef struct {
    uint32_t sizes[4], len_sizes[4];
    dmlcl_tensor_desc in, len;
    dmlcl_reverse_subsequences_desc rd;
    dmlcl_operator_desc od;
} rs_fixture;

static void rs_init(rs_fixture *f)
{
    const uint32_t s[4] = {1, 1, 3, 4}, l[4] = {1, 1, 3, 1};
    memcpy(f->sizes, s, sizeof s);
    memcpy(f->len_sizes, l, sizeof l);
    f->in = (dmlcl_tensor_desc){F32, 4, f->sizes, NULL, 0};
    f->len = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_UINT32, 4, f->len_sizes, NULL, 0};
    f->rd = (dmlcl_reverse_subsequences_desc){&f->in, &f->len, &f->in, 3};
    f->od = (dmlcl_operator_desc){DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &f->rd};
}

static const float ex_in[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const uint32_t ex_len[3] = {2, 4, 3};
static const float ex_out[12] = {2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12};

static void expect_example(const float *out)
{
    for (int i = 0; i < 12; i++)
        ck_assert_msg(out[i] == ex_out[i], "out[%d] = %g, expected %g", i, out[i], ex_out[i]);
}

static cl_mem new_buffer(cl_context ctx, size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)init, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return m;
}

/* A second cl_context on the test device. */
static cl_context other_cl_context(void)
{
    cl_device_id dev = dmlcl_context_device(tu_context());
    cl_int err;
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return other;
}

/* ---- NULL for every pointer a public function takes ----------------------------------------- */

START_TEST(null_everywhere)
{
    dmlcl_context *tc = tu_context();
    cl_context ctx = dmlcl_context_cl_context(tc);
    cl_device_id dev = dmlcl_context_device(tc);
    dmlcl_context *c = (dmlcl_context *)1;
    /* Tensors: the size rule answers 0 for a NULL desc or NULL sizes. */
    dmlcl_tensor_desc nosizes = {F32, 2, NULL, NULL, 0};
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(NULL), 0);
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&nosizes), 0);
    /* Contexts. */
    tu_assert_fails(dmlcl_context_create(NULL, dev, NULL, &c), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_context_create: ctx is NULL");
    ck_assert_ptr_null(c);
    tu_assert_fails(dmlcl_context_create(ctx, NULL, NULL, &c), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_context_create: device is NULL");
    tu_assert_fails(dmlcl_context_create(ctx, dev, NULL, NULL), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_context_create: out is NULL");
    tu_assert_fails(dmlcl_context_create_default(NULL), DMLCL_INVALID_ARGUMENT, "out is NULL");
    tu_assert_fails(dmlcl_context_create_for(NULL, NULL), DMLCL_INVALID_ARGUMENT, "out is NULL");
    dmlcl_context_release(NULL);
    ck_assert_ptr_null(dmlcl_context_cl_context(NULL));
    ck_assert_ptr_null(dmlcl_context_device(NULL));
    ck_assert_ptr_null(dmlcl_context_queue(NULL));
    /* Operators: create (the descriptor's own pointers are in check_reverse_validation.c and
     * check_resample1.c), release, plan. */
    rs_fixture f;
    rs_init(&f);
    dmlcl_operator *op = (dmlcl_operator *)1;
    tu_assert_fails(dmlcl_operator_create(NULL, &f.od, &op), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_create: context is NULL");
    ck_assert_ptr_null(op);
    tu_assert_fails(dmlcl_operator_create(tc, NULL, &op), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_create: desc is NULL");
    tu_assert_fails(dmlcl_operator_create(tc, &f.od, NULL), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_create: out is NULL");
    f.rd.sequence_lengths_tensor = &nosizes;
    tu_assert_fails(dmlcl_operator_create(tc, &f.od, &op), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: sequence_lengths_tensor sizes is NULL");
    dmlcl_operator_release(NULL);
    ck_assert_str_eq(dmlcl_operator_plan(NULL), "");
    /* Enqueue: op, both binding arrays, each buffer, the wait list. */
    rs_init(&f);
    tu_assert_ok(dmlcl_operator_create(tc, &f.od, &op));
    ck_assert_str_ne(dmlcl_operator_plan(op), "");
    cl_mem in = new_buffer(ctx, 48, ex_in), len = new_buffer(ctx, 12, ex_len);
    cl_mem out = new_buffer(ctx, 48, NULL);
    dmlcl_buffer_binding bi[2] = {{in, 0, 0}, {len, 0, 0}}, bo[1] = {{out, 0, 0}};
    tu_assert_fails(dmlcl_operator_enqueue(NULL, bi, 2, bo, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "dmlcl_operator_enqueue: op is NULL");
    tu_assert_fails(dmlcl_operator_enqueue(op, NULL, 2, bo, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "reverse_subsequences: input bindings array is NULL");
    tu_assert_fails(dmlcl_operator_enqueue(op, bi, 2, NULL, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "reverse_subsequences: output bindings array is NULL");
    bi[0].buffer = NULL;
    tu_assert_fails(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "reverse_subsequences: inputs[0].buffer is NULL");
    bi[0].buffer = in;
    bo[0].buffer = NULL;
    tu_assert_fails(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "reverse_subsequences: outputs[0].buffer is NULL");
    bo[0].buffer = out;
    tu_assert_fails(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 2, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: event_wait_list must be NULL exactly when "
                    "num_events_in_wait_list is 0");
    cl_event none[1] = {NULL};
    tu_assert_fails(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 1, none, NULL),
                    DMLCL_INVALID_ARGUMENT, "reverse_subsequences: event_wait_list[0] is NULL");
    /* A real wait list and an event out work. */
    cl_event first = NULL, second = NULL;
    tu_assert_ok(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 0, NULL, &first));
    ck_assert_ptr_nonnull(first);
    tu_assert_ok(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 1, &first, &second));
    ck_assert_int_eq(clWaitForEvents(1, &second), CL_SUCCESS);
    float got[12];
    ck_assert_int_eq(clEnqueueReadBuffer(dmlcl_context_queue(tc), out, CL_TRUE, 0, 48, got, 0,
                                         NULL, NULL), CL_SUCCESS);
    expect_example(got);
    clReleaseEvent(first);
    clReleaseEvent(second);
    /* Host execution: op, both arrays, each element of them. */
    const void *hin[2] = {ex_in, ex_len};
    void *hout[1] = {got};
    tu_assert_fails(dmlcl_operator_execute_host(NULL, hin, hout), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_execute_host: op is NULL");
    tu_assert_fails(dmlcl_operator_execute_host(op, NULL, hout), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: inputs array is NULL");
    tu_assert_fails(dmlcl_operator_execute_host(op, hin, NULL), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: outputs array is NULL");
    hin[1] = NULL;
    tu_assert_fails(dmlcl_operator_execute_host(op, hin, hout), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: inputs[1] is NULL");
    hin[1] = ex_len;
    hout[0] = NULL;
    tu_assert_fails(dmlcl_operator_execute_host(op, hin, hout), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: outputs[0] is NULL");
    dmlcl_operator_release(op);
    clReleaseMemObject(in), clReleaseMemObject(len), clReleaseMemObject(out);
    /* The cache: NULL out-pointers are ignored. */
    dmlcl_cache_get_stats(NULL);
    tu_assert_ok(dmlcl_cache_disk_usage(NULL, NULL));
    ck_assert_ptr_nonnull(dmlcl_last_error());
}
END_TEST

/* ---- dmlcl_last_error(): the last *failing* call, per thread -------------------------------- */

static void *fail_in_thread(void *arg)
{
    char *seen = arg;
    const char *first = dmlcl_last_error(); /* never NULL, "" before any failure */
    snprintf(seen, 256, "[%s]", first ? first : "(null)");
    dmlcl_operator *op;
    dmlcl_operator_create(NULL, NULL, &op);
    snprintf(seen + strlen(seen), 256 - strlen(seen), "%s", dmlcl_last_error());
    return NULL;
}

START_TEST(last_error_survives_success_and_is_per_thread)
{
    rs_fixture f;
    rs_init(&f);
    dmlcl_context *tc = tu_context();
    f.rd.axis = 7;
    dmlcl_operator *op = NULL;
    tu_assert_fails(dmlcl_operator_create(tc, &f.od, &op), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: axis must be < dimension_count (4), got 7");
    char saved[1024];
    snprintf(saved, sizeof saved, "%s", dmlcl_last_error());
    /* Successful calls of every kind leave the message alone. */
    f.rd.axis = 3;
    float out[12];
    const void *ins[2] = {ex_in, ex_len};
    void *outs[1] = {out};
    dmlcl_context *c = NULL;
    dmlcl_cache_stats stats;
    tu_assert_ok(dmlcl_operator_create(tc, &f.od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    expect_example(out);
    dmlcl_operator_release(op);
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&f.in), 48);
    tu_assert_ok(dmlcl_context_create(dmlcl_context_cl_context(tc), dmlcl_context_device(tc),
                                      NULL, &c));
    dmlcl_context_release(c);
    dmlcl_cache_get_stats(&stats);
    tu_assert_ok(dmlcl_cache_disk_usage(NULL, NULL));
    ck_assert_str_eq(dmlcl_last_error(), saved);
    /* Another thread starts empty, and its failure does not touch this thread's text. */
    char seen[256] = "";
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, fail_in_thread, seen), 0);
    pthread_join(t, NULL);
    ck_assert_str_eq(seen, "[]dmlcl_operator_create: context is NULL");
    ck_assert_str_eq(dmlcl_last_error(), saved);
}
END_TEST

/* ---- contexts: the caller's objects and DMLCL_DEVICE ---------------------------------------- */

START_TEST(context_rules)
{
    dmlcl_context *tc = tu_context();
    cl_device_id dev = dmlcl_context_device(tc);
    cl_context other = other_cl_context();
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(other, dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    dmlcl_context *c = (dmlcl_context *)1;
    tu_assert_fails(dmlcl_context_create(dmlcl_context_cl_context(tc), dev, q, &c),
                    DMLCL_INVALID_ARGUMENT,
                    "dmlcl_context_create: queue belongs to another context or device");
    ck_assert_ptr_null(c);
    /* Retained: the caller may drop its references at once. With queue NULL one is made. */
    tu_assert_ok(dmlcl_context_create(other, dev, NULL, &c));
    ck_assert_ptr_eq(dmlcl_context_cl_context(c), other);
    ck_assert_ptr_eq(dmlcl_context_device(c), dev);
    ck_assert_ptr_nonnull(dmlcl_context_queue(c));
    cl_command_queue_properties props = 0;
    ck_assert_int_eq(clGetCommandQueueInfo(dmlcl_context_queue(c), CL_QUEUE_PROPERTIES,
                                           sizeof props, &props, NULL), CL_SUCCESS);
    ck_assert(props & CL_QUEUE_PROFILING_ENABLE);
    ck_assert(!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE));
    clReleaseCommandQueue(q);
    clReleaseContext(other);
    rs_fixture f;
    rs_init(&f);
    dmlcl_operator *op = NULL;
    float out[12];
    const void *ins[2] = {ex_in, ex_len};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_create(c, &f.od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    expect_example(out);
    dmlcl_operator_release(op);
    dmlcl_context_release(c);
}
END_TEST

/* dmlcl_context_create_default() reads DMLCL_DEVICE: a miss names it; a name substring
 * matches whatever its case. */
START_TEST(default_context_follows_dmlcl_device)
{
    char name[256] = "", saved[256] = "", want[256] = "";
    const char *env = getenv("DMLCL_DEVICE");
    int had = env != NULL;
    snprintf(saved, sizeof saved, "%s", env ? env : "");
    clGetDeviceInfo(dmlcl_context_device(tu_context()), CL_DEVICE_NAME, sizeof name - 1, name,
                    NULL);
    dmlcl_context *c = (dmlcl_context *)1;
    setenv("DMLCL_DEVICE", "no-such-device-xyz", 1);
    dmlcl_status st = dmlcl_context_create_default(&c);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", dmlcl_last_error());
    for (size_t i = 0; name[i]; i++)
        want[i] = (char)toupper((unsigned char)name[i]), want[i + 1] = 0;
    setenv("DMLCL_DEVICE", want, 1);
    dmlcl_context *d = NULL;
    dmlcl_status st2 = dmlcl_context_create_default(&d);
    if (had)
        setenv("DMLCL_DEVICE", saved, 1);
    else
        unsetenv("DMLCL_DEVICE");
    ck_assert_int_eq(st, DMLCL_NO_DEVICE);
    ck_assert_ptr_null(c);
    ck_assert_msg(strstr(msg, "no OpenCL device matches DMLCL_DEVICE=\"no-such-device-xyz\""),
                  "%s", msg);
    ck_assert_msg(st2 == DMLCL_SUCCESS, "DMLCL_DEVICE=\"%s\": %s", want, dmlcl_last_error());
    char got[256] = "";
    clGetDeviceInfo(dmlcl_context_device(d), CL_DEVICE_NAME, sizeof got - 1, got, NULL);
    ck_assert_str_eq(got, name);
    dmlcl_context_release(d);
}
END_TEST

/* ---- 64-bit byte sizes ---------------------------------------------------------------------- */

START_TEST(byte_sizes_that_overflow_are_rejected)
{
    const uint32_t one[1] = {0xffffffffu}, two[2] = {0xffffffffu, 4};
    const uint32_t s1[1] = {0xffffffffu}, s2[2] = {0xffffffffu, 0xfffffffeu};
    /* Elements fit (2^64 - 3*2^32 + 3) but 8 bytes each do not. */
    dmlcl_tensor_desc wide = {DMLCL_TENSOR_DATA_TYPE_FLOAT64, 1, one, s1, 0};
    /* 2^64 - 3 bytes: rounding up to a multiple of 4 would wrap. */
    dmlcl_tensor_desc wrap = {DMLCL_TENSOR_DATA_TYPE_UINT8, 2, two, s2, 0};
    /* 2^64 - 3*2^32 + 3 bytes: legal, rounds up to ...04. */
    dmlcl_tensor_desc edge = {DMLCL_TENSOR_DATA_TYPE_UINT8, 1, one, s1, 0};
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&wide), 0);
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&wrap), 0);
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&edge), 0xfffffffd00000004ull);
    rs_fixture f;
    dmlcl_operator *op = NULL;
    rs_init(&f);
    f.rd.input_tensor = &wide;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &f.od, &op), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: input_tensor byte size overflows 64 bits");
    f.rd.input_tensor = &f.in;
    f.rd.output_tensor = &wrap;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &f.od, &op),
                    DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: output_tensor byte size overflows 64 bits");
}
END_TEST

/* ---- bindings ------------------------------------------------------------------------------- */

/* A buffer of another cl_context is a broken binding (POCL would even run it). */
START_TEST(binding_from_another_context)
{
    dmlcl_context *tc = tu_context();
    cl_context other = other_cl_context();
    rs_fixture f;
    rs_init(&f);
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tc, &f.od, &op));
    cl_context ctx = dmlcl_context_cl_context(tc);
    cl_mem in = new_buffer(ctx, 48, ex_in), len = new_buffer(ctx, 12, ex_len);
    cl_mem out = new_buffer(ctx, 48, NULL), foreign = new_buffer(other, 64, NULL);
    dmlcl_buffer_binding bi[2] = {{in, 0, 0}, {foreign, 0, 0}}, bo[1] = {{out, 0, 0}};
    tu_assert_fails(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: inputs[1].buffer belongs to another cl_context than "
                    "the operator's");
    bi[1].buffer = len;
    bo[0].buffer = foreign;
    tu_assert_fails(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "outputs[0].buffer belongs to another cl_context");
    dmlcl_operator_release(op);
    clReleaseMemObject(in), clReleaseMemObject(len), clReleaseMemObject(out);
    clReleaseMemObject(foreign);
    clReleaseContext(other);
}
END_TEST

/* execute_host on a caller's out-of-order queue: the results are read after the kernel. */
START_TEST(execute_host_on_out_of_order_queue)
{
    dmlcl_context *tc = tu_context();
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(dmlcl_context_cl_context(tc),
                                              dmlcl_context_device(tc),
                                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (err != CL_SUCCESS)
        return; /* the device has no out-of-order queues: nothing to check */
    dmlcl_context *c = NULL;
    tu_assert_ok(dmlcl_context_create(dmlcl_context_cl_context(tc), dmlcl_context_device(tc), q,
                                      &c));
    clReleaseCommandQueue(q);
    /* Example 1's layout, made long enough for the kernel to take a while. */
    enum { COLS = 1 << 18 };
    const uint32_t sizes[4] = {1, 1, 4, COLS}, len_sizes[4] = {1, 1, 4, 1};
    const uint32_t lens[4] = {COLS, 2, 0, COLS - 1};
    dmlcl_tensor_desc ti = {F32, 4, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 4, len_sizes, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, 3};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    float *in = malloc(4u * COLS * sizeof *in), *out = malloc(4u * COLS * sizeof *out);
    ck_assert(in && out);
    for (uint32_t i = 0; i < 4u * COLS; i++)
        in[i] = (float)i;
    const void *ins[2] = {in, lens};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_create(c, &od, &op));
    for (int run = 0; run < 8; run++) {
        memset(out, 0, 4u * COLS * sizeof *out);
        tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
        for (uint32_t r = 0; r < 4; r++)
            for (uint32_t k = 0; k < COLS; k++) {
                uint32_t src = k < lens[r] ? lens[r] - 1 - k : k;
                if (out[r * COLS + k] != in[r * COLS + src])
                    ck_abort_msg("run %d: out[%u][%u] = %g, expected %g", run, r, k,
                                 out[r * COLS + k], in[r * COLS + src]);
            }
    }
    dmlcl_operator_release(op);
    dmlcl_context_release(c);
    free(in);
    free(out);
}
END_TEST

/* ---- RESAMPLE1 ------------------------------------------------------------------------------ */

/* ONNX half_pixel + round_prefer_ceil = offsets 0.5 / -0.5, scale out/in: 4 -> 3 has
 * x = (o + 0.5) / 0.75 - 0.5 = 1/6, 1.5 (a tie: up), 17/6. */
START_TEST(onnx_half_pixel_round_prefer_ceil)
{
    const uint32_t is[1] = {4}, os[1] = {3};
    const float sc[1] = {3.0f / 4}, ipo[1] = {0.5f}, opo[1] = {-0.5f};
    const float in[4] = {10, 20, 30, 40}, want[3] = {10, 30, 40};
    float out[3];
    tu_resample1_f32(1, is, os, NEAREST, sc, ipo, opo, in, out);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(out[i] == want[i], "out[%d] = %g, expected %g", i, out[i], want[i]);
}
END_TEST

/* FLT_MAX is a legal scale: every output reads input 0, in both modes. */
START_TEST(flt_max_scale_reads_input_0)
{
    const uint32_t is[2] = {3, 2}, os[2] = {5, 2};
    const float sc[2] = {FLT_MAX, 1}, zero[2] = {0, 0}, ipo[2] = {0.5f, 0.5f};
    const float opo[2] = {-0.5f, -0.5f}, in[6] = {1, 2, 3, 4, 5, 6};
    float out[10];
    for (int mode = 0; mode < 2; mode++)
        for (int centre = 0; centre < 2; centre++) {
            tu_resample1_f32(2, is, os, mode, sc, centre ? ipo : zero, centre ? opo : zero, in,
                             out);
            for (int i = 0; i < 10; i++)
                ck_assert_msg(out[i] == in[i % 2], "mode %d centre %d: out[%d] = %g", mode,
                              centre, i, out[i]);
        }
}
END_TEST

/* "Dimensions with scale 1, offsets summing to 0 and equal sizes are identity": also
 * where the float32 steps of the formula land an ulp off (1.3f - 0.3f < 1). */
START_TEST(cancelling_offsets_are_identity)
{
    const uint32_t n[1] = {4};
    const float sc[1] = {1}, ipo[1] = {0.3f}, opo[1] = {-0.3f}, in[4] = {0, 1000, 2000, 3000};
    float out[4];
    for (int mode = 0; mode < 2; mode++) {
        tu_resample1_f32(1, n, n, mode, sc, ipo, opo, in, out);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(out[i] == in[i], "mode %d: out[%d] = %.9g", mode, i, out[i]);
    }
}
END_TEST

/* Shapes, scales and offsets are kernel arguments: 200 RESAMPLE1 shapes cost one compile
 * per variant (nearest; linear with one resampled dimension). The layout is pinned (units
 * of 4): a GPU picks 2-D rows or units, a CPU row blocks or units, by shape. */
START_TEST(resample1_shapes_one_compile_each)
{
    dmlcl_context *c = NULL;
    tu_assert_ok(dmlcl_context_create_default(&c)); /* cold: programs are per cl_context */
    dmlcl_cache_stats s0, s1;
    setenv("DMLCL_RESAMPLE_PLAN", "v=4,rows=0,seg=0,cpu=0", 1);
    dmlcl_cache_get_stats(&s0);
    const float scales[2] = {1, 2}, zero[2] = {0, 0};
    for (uint32_t k = 0; k < 200; k++) {
        /* Dimension 0 is identity; dimension 1 doubles (x = o / 2: half weights). Rows
         * stay multiples of 16 elements, so no vector width could tell the shapes apart. */
        const uint32_t is[2] = {2 + k % 7, 8 * (1 + k)}, os[2] = {2 + k % 7, 16 * (1 + k)};
        dmlcl_tensor_desc ti = {F32, 2, is, NULL, 0}, to = {F32, 2, os, NULL, 0};
        dmlcl_resample1_desc rd = {&ti, &to, k % 2 ? LINEAR : NEAREST, 2, scales, zero, zero};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
        dmlcl_operator *op = NULL;
        tu_assert_ok(dmlcl_operator_create(c, &od, &op));
        dmlcl_operator_release(op);
    }
    dmlcl_cache_get_stats(&s1);
    unsetenv("DMLCL_RESAMPLE_PLAN");
    ck_assert_uint_eq(s1.compiles - s0.compiles, 2);
    ck_assert_uint_eq(s1.memory_hits - s0.memory_hits, 198);
    dmlcl_context_release(c);
}
END_TEST

/* ---- disk cache: crashed writers' temp files ------------------------------------------------ */

static void plant(const char *dir, const char *tail, time_t age_s)
{
    char path[CT_PATH + 96];
    snprintf(path, sizeof path, "%s/0123456789abcdef.bin.%s", dir, tail);
    ck_assert_int_eq(ct_write(path, "partial", 7), 0);
    struct timespec t[2] = {{time(NULL) - age_s, 0}, {time(NULL) - age_s, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

static int exists(const char *dir, const char *tail)
{
    char path[CT_PATH + 96];
    struct stat st;
    snprintf(path, sizeof path, "%s/0123456789abcdef.bin.%s", dir, tail);
    return stat(path, &st) == 0;
}

/* A store sweeps temp files whose writer is gone (after a minute's grace) and any over an
 * hour old; live writers' recent files and other files stay. */
START_TEST(stale_temp_files_swept_on_store)
{
    char base[CT_PATH];
    ck_assert_int_eq(ct_use_fresh_dir(base), 0);
    char dir[CT_PATH];
    snprintf(dir, sizeof dir, "%s", dmlcl_cache_directory());
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    pid_t dead = fork(); /* a pid that surely ran and surely ended */
    ck_assert_int_ge(dead, 0);
    if (dead == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
    char gone_old[64], gone_new[64], live_old[64], live_ancient[64];
    snprintf(gone_old, sizeof gone_old, "tmp-%ld-0-1", (long)dead);
    snprintf(gone_new, sizeof gone_new, "tmp-%ld-0-2", (long)dead);
    snprintf(live_old, sizeof live_old, "tmp-%ld-0-3", (long)getpid());
    snprintf(live_ancient, sizeof live_ancient, "tmp-%ld-0-4", (long)getpid());
    plant(dir, gone_old, 120);
    plant(dir, gone_new, 0);
    plant(dir, live_old, 120);
    plant(dir, live_ancient, 7200);
    plant(dir, "tmp-garbage", 7200);
    char notes[CT_PATH + 16];
    snprintf(notes, sizeof notes, "%s/notes.tmp", dir);
    ck_assert_int_eq(ct_write(notes, "mine", 4), 0);
    dmlcl_context *c = NULL;
    tu_assert_ok(dmlcl_context_create_default(&c)); /* cold in memory and on disk: a store */
    int r = ct_run_rs(c, DMLCL_TENSOR_DATA_TYPE_INT16);
    dmlcl_context_release(c);
    ck_assert_msg(r == 0, "run: %d (%s)", r, dmlcl_last_error());
    int kept[6] = {exists(dir, gone_old), exists(dir, gone_new), exists(dir, live_old),
                   exists(dir, live_ancient), exists(dir, "tmp-garbage"),
                   access(notes, F_OK) == 0};
    ct_scan s = ct_scan_dir(dir);
    ct_restore(base);
    ck_assert_msg(!kept[0], "a dead writer's temp file over a minute old was kept");
    ck_assert_msg(kept[1], "a dead writer's fresh temp file was removed");
    ck_assert_msg(kept[2], "a live writer's temp file under an hour old was removed");
    ck_assert_msg(!kept[3] && !kept[4], "a temp file over an hour old was kept");
    ck_assert_msg(kept[5], "a file that is not ours was removed");
    ck_assert_int_eq(s.entries, 1);
}
END_TEST

Suite *conformance_suite(void)
{
    Suite *s = suite_create("conformance");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, api_names_and_values);
    tcase_add_test(tc, null_everywhere);
    tcase_add_test(tc, last_error_survives_success_and_is_per_thread);
    tcase_add_test(tc, context_rules);
    tcase_add_test(tc, default_context_follows_dmlcl_device);
    tcase_add_test(tc, byte_sizes_that_overflow_are_rejected);
    tcase_add_test(tc, binding_from_another_context);
    tcase_add_test(tc, execute_host_on_out_of_order_queue);
    tcase_add_test(tc, onnx_half_pixel_round_prefer_ceil);
    tcase_add_test(tc, flt_max_scale_reads_input_0);
    tcase_add_test(tc, cancelling_offsets_are_identity);
    tcase_add_test(tc, resample1_shapes_one_compile_each);
    tcase_add_test(tc, stale_temp_files_swept_on_store);
    suite_add_tcase(s, tc);
    return s;
}
