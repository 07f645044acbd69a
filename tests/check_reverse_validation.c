/* Every validation rule of REVERSE_SUBSEQUENCES, of tensors and of bindings: the status
 * and the message. All of these fail before any OpenCL call. */
#include "testutil.h"
#include <stdio.h>
#include <string.h>

/* A valid descriptor (the spec's example 1) that each test breaks in one place. */
typedef struct {
    uint32_t in_sizes[4], len_sizes[4], out_sizes[4];
    dmlcl_tensor_desc in, len, out;
    dmlcl_reverse_subsequences_desc rd;
    dmlcl_operator_desc od;
} fixture;

static void fixture_init(fixture *f)
{
    const uint32_t s[4] = {1, 1, 3, 4}, l[4] = {1, 1, 3, 1};
    memcpy(f->in_sizes, s, sizeof s);
    memcpy(f->out_sizes, s, sizeof s);
    memcpy(f->len_sizes, l, sizeof l);
    f->in = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, f->in_sizes, NULL, 0};
    f->len = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_UINT32, 4, f->len_sizes, NULL, 0};
    f->out = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, f->out_sizes, NULL, 0};
    f->rd = (dmlcl_reverse_subsequences_desc){&f->in, &f->len, &f->out, 3};
    f->od = (dmlcl_operator_desc){DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &f->rd};
}

static dmlcl_status create(fixture *f)
{
    return tu_create_release(&f->od);
}

#define BAD(code, needle) tu_assert_fails(create(&f), DMLCL_INVALID_ARGUMENT, needle)

START_TEST(valid_fixture_passes)
{
    fixture f;
    fixture_init(&f);
    tu_assert_ok(create(&f));
}
END_TEST

START_TEST(null_pointers)
{
    fixture f;
    dmlcl_operator *op;
    fixture_init(&f);
    tu_assert_fails(dmlcl_operator_create(NULL, &f.od, &op), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_create: context is NULL");
    tu_assert_fails(dmlcl_operator_create(tu_context(), NULL, &op), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_create: desc is NULL");
    tu_assert_fails(dmlcl_operator_create(tu_context(), &f.od, NULL), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_create: out is NULL");
    f.od.desc = NULL;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &f.od, &op), DMLCL_INVALID_ARGUMENT,
                    "desc->desc is NULL");
    fixture_init(&f);
    f.od.type = (dmlcl_operator_type)99;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &f.od, &op), DMLCL_INVALID_ARGUMENT,
                    "desc->type 99 is not an operator type");
    fixture_init(&f);
    f.rd.input_tensor = NULL;
    BAD(0, "reverse_subsequences: input_tensor is NULL");
    fixture_init(&f);
    f.rd.sequence_lengths_tensor = NULL;
    BAD(0, "reverse_subsequences: sequence_lengths_tensor is NULL");
    fixture_init(&f);
    f.rd.output_tensor = NULL;
    BAD(0, "reverse_subsequences: output_tensor is NULL");
    fixture_init(&f);
    f.out.sizes = NULL;
    BAD(0, "reverse_subsequences: output_tensor sizes is NULL");
}
END_TEST

START_TEST(tensor_rules)
{
    fixture f;
    fixture_init(&f);
    f.in.dimension_count = 0;
    BAD(0, "reverse_subsequences: input_tensor dimension_count must be 1..8, got 0");
    fixture_init(&f);
    f.len.dimension_count = 9;
    BAD(0, "reverse_subsequences: sequence_lengths_tensor dimension_count must be 1..8, got 9");
    fixture_init(&f);
    f.in_sizes[1] = 0;
    BAD(0, "reverse_subsequences: input_tensor sizes[1] must be >= 1, got 0");
    fixture_init(&f);
    f.in.data_type = (dmlcl_tensor_data_type)12;
    BAD(0, "reverse_subsequences: input_tensor data_type 12 is not a valid data type");
    fixture_init(&f);
    f.out.data_type = DMLCL_TENSOR_DATA_TYPE_UNKNOWN;
    BAD(0, "reverse_subsequences: output_tensor data_type 0 is not a valid data type");
    fixture_init(&f);
    f.in.total_tensor_size_in_bytes = 44;
    BAD(0, "reverse_subsequences: input_tensor total_tensor_size_in_bytes must be 0 or >= 48, got 44");
    fixture_init(&f);
    f.in.total_tensor_size_in_bytes = 48;
    tu_assert_ok(create(&f));
}
END_TEST

START_TEST(overflow_rejected)
{
    fixture f;
    const uint32_t big[8] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 2, 1, 1, 1, 1};
    const uint32_t strides[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    fixture_init(&f);
    f.in.sizes = big;
    BAD(0, "reverse_subsequences: input_tensor sizes overflow 64-bit element arithmetic");
    fixture_init(&f);
    f.in.sizes = big;
    f.in.strides = strides;
    BAD(0, "reverse_subsequences: input_tensor sizes and strides overflow 64-bit element arithmetic");
    dmlcl_tensor_desc d = {DMLCL_TENSOR_DATA_TYPE_FLOAT64, 3, big, NULL, 0};
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&d), 0);
}
END_TEST

START_TEST(operator_rules)
{
    fixture f;
    fixture_init(&f);
    f.len.dimension_count = 3;
    BAD(0, "reverse_subsequences: sequence_lengths_tensor dimension_count must equal input_tensor's (4), got 3");
    fixture_init(&f);
    f.out.dimension_count = 3;
    BAD(0, "reverse_subsequences: output_tensor dimension_count must equal input_tensor's (4), got 3");
    fixture_init(&f);
    f.rd.axis = 4;
    BAD(0, "reverse_subsequences: axis must be < dimension_count (4), got 4");
    fixture_init(&f);
    f.out.data_type = DMLCL_TENSOR_DATA_TYPE_INT32;
    BAD(0, "reverse_subsequences: output_tensor data_type must equal input_tensor's (FLOAT32), got INT32");
    fixture_init(&f);
    f.len.data_type = DMLCL_TENSOR_DATA_TYPE_INT32;
    BAD(0, "reverse_subsequences: sequence_lengths_tensor data_type must be UINT32 or UINT64, got INT32");
    fixture_init(&f);
    f.len.data_type = DMLCL_TENSOR_DATA_TYPE_FLOAT32;
    BAD(0, "reverse_subsequences: sequence_lengths_tensor data_type must be UINT32 or UINT64, got FLOAT32");
    fixture_init(&f);
    f.out_sizes[2] = 4;
    BAD(0, "reverse_subsequences: output_tensor sizes[2] must equal input_tensor sizes[2] (3), got 4");
    fixture_init(&f);
    f.len_sizes[3] = 4;
    BAD(0, "reverse_subsequences: sequence_lengths_tensor sizes[3] must be 1 (the axis), got 4");
    fixture_init(&f);
    f.rd.axis = 2;
    BAD(0, "reverse_subsequences: sequence_lengths_tensor sizes[2] must be 1 (the axis), got 3");
    fixture_init(&f);
    f.len_sizes[2] = 2;
    BAD(0, "reverse_subsequences: sequence_lengths_tensor sizes[2] must equal input_tensor sizes[2] (3), got 2");
}
END_TEST

START_TEST(output_must_not_alias)
{
    fixture f;
    const uint32_t zero[4] = {0, 0, 0, 1};
    const uint32_t overlap[4] = {12, 12, 2, 1};   /* rows of 4 every 2 elements: nested, overlaps */
    const uint32_t interleaved[4] = {1, 1, 5, 2}; /* 3x4 with strides 5 and 2: exact check */
    const uint32_t shared[4] = {1, 1, 2, 1};      /* 3x4: element 2 reached twice */
    fixture_init(&f);
    f.out.strides = zero;
    BAD(0, "reverse_subsequences: output_tensor strides[2] is 0 with sizes[2] = 3: output elements would alias");
    fixture_init(&f);
    f.out.strides = overlap;
    BAD(0, "reverse_subsequences: output_tensor strides make two indices share element");
    fixture_init(&f);
    f.out.strides = shared;
    BAD(0, "(output must not alias itself)");
    fixture_init(&f);
    f.out.strides = interleaved; /* offsets 5i+2j, i<3, j<4: all distinct */
    tu_assert_ok(create(&f));
    fixture_init(&f);
    f.in.strides = zero; /* broadcast is fine on inputs */
    tu_assert_ok(create(&f));
}
END_TEST

/* ---- bindings -------------------------------------------------------------------------- */

static cl_mem new_buffer(size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(dmlcl_context_cl_context(tu_context()), CL_MEM_READ_WRITE, bytes,
                              NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return m;
}

START_TEST(binding_rules)
{
    fixture f;
    dmlcl_operator *op;
    fixture_init(&f);
    tu_assert_ok(dmlcl_operator_create(tu_context(), &f.od, &op));
    cl_mem in = new_buffer(48), len = new_buffer(12), out = new_buffer(64), small = new_buffer(44);
    dmlcl_buffer_binding bi[2] = {{in, 0, 0}, {len, 0, 0}}, bo[1] = {{out, 0, 0}};
#define ENQ(nin, nout) dmlcl_operator_enqueue(op, bi, nin, bo, nout, 0, NULL, NULL)
    tu_assert_ok(ENQ(2, 1));
    tu_assert_fails(ENQ(1, 1), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: expects 2 input and 1 output bindings, got 1 and 1");
    tu_assert_fails(dmlcl_operator_enqueue(op, NULL, 2, bo, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "reverse_subsequences: input bindings array is NULL");
    bi[1].buffer = NULL;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT, "reverse_subsequences: inputs[1].buffer is NULL");
    bi[1].buffer = len;
    bi[0].buffer = small;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: inputs[0] holds 44 bytes from offset 0, the tensor needs 48");
    bi[0].buffer = in;
    bo[0].offset = 2;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: outputs[0].offset 2 must be a multiple of the element size 4");
    bo[0].offset = 20;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: outputs[0] holds 44 bytes from offset 20, the tensor needs 48");
    bo[0].offset = 68;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: outputs[0].offset 68 is beyond the buffer's CL_MEM_SIZE 64");
    bo[0].offset = 16;
    bo[0].size_in_bytes = 52;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: outputs[0] offset 16 + size_in_bytes 52 exceeds CL_MEM_SIZE 64");
    bo[0].offset = 0;
    bo[0].size_in_bytes = 40;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: outputs[0] holds 40 bytes from offset 0, the tensor needs 48");
    bo[0].size_in_bytes = 0;
    bo[0].buffer = in;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: outputs[0] overlaps inputs[0] (in-place is not supported)");
    /* Sub-buffers are resolved to their parent: a sub-buffer of `in` overlaps `in`. */
    cl_buffer_region reg = {0, 48};
    cl_int err;
    cl_mem sub = clCreateSubBuffer(in, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    bo[0].buffer = sub;
    tu_assert_fails(ENQ(2, 1), DMLCL_INVALID_ARGUMENT, "outputs[0] overlaps inputs[0]");
    bo[0].buffer = out;
    tu_assert_fails(dmlcl_operator_enqueue(op, bi, 2, bo, 1, 1, NULL, NULL), DMLCL_INVALID_ARGUMENT,
                    "event_wait_list must be NULL exactly when num_events_in_wait_list is 0");
    tu_assert_fails(dmlcl_operator_enqueue(NULL, bi, 2, bo, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "dmlcl_operator_enqueue: op is NULL");
    const void *hin[2] = {NULL, NULL};
    float hout[12];
    void *houts[1] = {hout};
    tu_assert_fails(dmlcl_operator_execute_host(op, hin, houts), DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: inputs[0] is NULL");
#undef ENQ
    dmlcl_operator_release(op);
    clReleaseMemObject(sub);
    clReleaseMemObject(in), clReleaseMemObject(len), clReleaseMemObject(out);
    clReleaseMemObject(small);
}
END_TEST

/* A tensor whose span is over the device's largest buffer: execute_host says so in the
 * library's words (the limit named, UNSUPPORTED) before any clCreateBuffer, which would
 * answer CL_INVALID_BUFFER_SIZE and leave every binding to explain it. The huge stride
 * keeps the elements few: the host arrays are never read. */
START_TEST(host_buffer_over_device_limit)
{
    cl_ulong max = 0;
    ck_assert_int_eq(clGetDeviceInfo(dmlcl_context_device(tu_context()),
                                     CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max, &max, NULL),
                     CL_SUCCESS);
    fixture f;
    fixture_init(&f);
    const uint32_t strides[4] = {1, 1, UINT32_MAX, 1}; /* span: (1 + 2 (2^32 - 1) + 3) x 4 B */
    f.in.strides = strides;
    const uint64_t span_bytes = (1 + 2 * (uint64_t)UINT32_MAX + 3) * 4;
    if (span_bytes <= max) {
        printf("host_buffer_over_device_limit: skipped, this device allocates %llu bytes\n",
               (unsigned long long)max);
        return;
    }
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &f.od, &op));
    float hin[12] = {0}, hout[12];
    uint32_t hlen[3] = {0};
    const void *ins[2] = {hin, hlen};
    void *outs[1] = {hout};
    char want[256], limit[32];
    if (max < ((cl_ulong)1 << 30))
        snprintf(limit, sizeof limit, "%.1f MiB", max / 1048576.0);
    else
        snprintf(limit, sizeof limit, "%.2f GiB", max / 1073741824.0);
    snprintf(want, sizeof want, "reverse_subsequences: inputs[0] needs a buffer of 32.00 GiB, "
             "over this device's limit of %s per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE;", limit);
    tu_assert_fails(dmlcl_operator_execute_host(op, ins, outs), DMLCL_UNSUPPORTED, want);
    tu_assert_fails(dmlcl_operator_execute_host(op, ins, outs), DMLCL_UNSUPPORTED,
                    "use a smaller tensor, or split the work in tiles");
    dmlcl_operator_release(op);
}
END_TEST

START_TEST(tensor_size_in_bytes)
{
    const uint32_t sizes[3] = {2, 3, 5}, strides[3] = {40, 1, 3}, odd[1] = {3};
    dmlcl_tensor_desc packed = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, sizes, NULL, 0};
    dmlcl_tensor_desc strided = {DMLCL_TENSOR_DATA_TYPE_FLOAT16, 3, sizes, strides, 0};
    dmlcl_tensor_desc bytes3 = {DMLCL_TENSOR_DATA_TYPE_UINT8, 1, odd, NULL, 0};
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&packed), 120);
    /* (1 + 1*40 + 2*1 + 4*3) * 2 = 110 -> rounded up to 112 */
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&strided), 112);
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(&bytes3), 4);
    ck_assert_uint_eq(dmlcl_tensor_size_in_bytes(NULL), 0);
    ck_assert_uint_eq(dmlcl_data_type_size(DMLCL_TENSOR_DATA_TYPE_INT64), 8);
    ck_assert_uint_eq(dmlcl_data_type_size((dmlcl_tensor_data_type)42), 0);
}
END_TEST

START_TEST(status_strings_and_contexts)
{
    ck_assert_str_eq(dmlcl_status_string(DMLCL_SUCCESS), "DMLCL_SUCCESS");
    ck_assert_str_eq(dmlcl_status_string(DMLCL_BUILD_ERROR), "DMLCL_BUILD_ERROR");
    ck_assert_str_eq(dmlcl_status_string(DMLCL_IO_ERROR), "DMLCL_IO_ERROR");
    ck_assert_str_eq(dmlcl_status_string((dmlcl_status)77), "DMLCL_UNKNOWN_STATUS");
    ck_assert_str_eq(dmlcl_version(), DMLCL_VERSION_STRING);
    ck_assert_str_eq(dmlcl_opencl_error_name(CL_INVALID_BUFFER_SIZE), "CL_INVALID_BUFFER_SIZE");
    ck_assert_str_eq(dmlcl_opencl_error_name(CL_SUCCESS), "CL_SUCCESS");
    ck_assert_str_eq(dmlcl_opencl_error_name(-9999), "CL_UNKNOWN_ERROR");
    dmlcl_context *c = (dmlcl_context *)1;
    tu_assert_fails(dmlcl_context_create_for("no-such-device-xyz", &c), DMLCL_NO_DEVICE,
                    "no OpenCL device matches selector=\"no-such-device-xyz\"");
    ck_assert_ptr_null(c);
    tu_assert_fails(dmlcl_context_create(NULL, NULL, NULL, &c), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_context_create: ctx is NULL");
    tu_assert_fails(dmlcl_context_create_default(NULL), DMLCL_INVALID_ARGUMENT, "out is NULL");
    tu_assert_ok(dmlcl_context_create_for("0:0", &c));
    dmlcl_context_release(c);
    tu_assert_ok(dmlcl_context_create_for("cpu", &c));
    dmlcl_context_release(c);
    dmlcl_context_release(NULL);
    dmlcl_operator_release(NULL);
}
END_TEST

/* A context wrapping the caller's objects, with the caller's queue. */
START_TEST(context_wraps_caller_objects)
{
    cl_context ctx = dmlcl_context_cl_context(tu_context());
    cl_device_id dev = dmlcl_context_device(tu_context());
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    dmlcl_context *c = NULL;
    tu_assert_ok(dmlcl_context_create(ctx, dev, q, &c));
    ck_assert_ptr_eq(dmlcl_context_queue(c), q);
    clReleaseCommandQueue(q); /* the dmlcl context keeps its own reference */
    fixture f;
    fixture_init(&f);
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(c, &f.od, &op));
    dmlcl_context_release(c); /* the operator keeps the context alive */
    static const float in[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const uint32_t lens[3] = {4, 0, 2};
    float out[12];
    const void *ins[2] = {in, lens};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    ck_assert(out[0] == 4 && out[3] == 1 && out[4] == 5 && out[8] == 10 && out[9] == 9);
    dmlcl_operator_release(op);
}
END_TEST

Suite *validation_suite(void)
{
    Suite *s = suite_create("validation");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, valid_fixture_passes);
    tcase_add_test(tc, null_pointers);
    tcase_add_test(tc, tensor_rules);
    tcase_add_test(tc, overflow_rejected);
    tcase_add_test(tc, operator_rules);
    tcase_add_test(tc, output_must_not_alias);
    tcase_add_test(tc, binding_rules);
    tcase_add_test(tc, host_buffer_over_device_limit);
    tcase_add_test(tc, tensor_size_in_bytes);
    tcase_add_test(tc, status_strings_and_contexts);
    tcase_add_test(tc, context_wraps_caller_objects);
    suite_add_tcase(s, tc);
    return s;
}
