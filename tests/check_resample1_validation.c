/* RESAMPLE1's and RESAMPLE's (v0) validation: status and message for every rule, device
 * limits, allocation failures. */
#include "resample1_case.h"
#include "core/context.h" /* white-box: device limits, to test the FLOAT64 and table-size rules */

/* ---- validation: status and message for every rule --------------------------------------- */

typedef struct {
    uint32_t in_sizes[2], out_sizes[2], out_str[2];
    float scales[2], ipo[2], opo[2];
    dmlcl_tensor_desc in, out;
    dmlcl_resample1_desc r1;
    dmlcl_resample_desc r0;
    dmlcl_operator_desc od;
} vfix;

static void vfix_init(vfix *f, int v0)
{
    memset(f, 0, sizeof *f);
    f->in_sizes[0] = f->in_sizes[1] = 2;
    f->out_sizes[0] = f->out_sizes[1] = 4;
    f->scales[0] = f->scales[1] = 2;
    f->ipo[0] = f->ipo[1] = 0.5f;
    f->opo[0] = f->opo[1] = -0.5f;
    f->in = (dmlcl_tensor_desc){F32, 2, f->in_sizes, NULL, 0};
    f->out = (dmlcl_tensor_desc){F32, 2, f->out_sizes, NULL, 0};
    f->r1 = (dmlcl_resample1_desc){&f->in, &f->out, LINEAR, 2, f->scales, f->ipo, f->opo};
    f->r0 = (dmlcl_resample_desc){&f->in, &f->out, LINEAR, 2, f->scales};
    f->od = (dmlcl_operator_desc){v0 ? DMLCL_OPERATOR_RESAMPLE : DMLCL_OPERATOR_RESAMPLE1,
                                  v0 ? (const void *)&f->r0 : (const void *)&f->r1};
}

static dmlcl_status vcreate(vfix *f)
{
    return tu_create_release(&f->od);
}

#define BAD(f, needle) tu_assert_fails(vcreate(&(f)), DMLCL_INVALID_ARGUMENT, needle)

START_TEST(validation_tensors_and_types)
{
    vfix f;
    vfix_init(&f, 0);
    tu_assert_ok(vcreate(&f));
    f.r1.input_tensor = NULL;
    BAD(f, "resample1: input_tensor is NULL");
    vfix_init(&f, 0);
    f.r1.output_tensor = NULL;
    BAD(f, "resample1: output_tensor is NULL");
    vfix_init(&f, 0);
    f.in_sizes[1] = 0;
    BAD(f, "resample1: input_tensor sizes[1] must be >= 1, got 0");
    vfix_init(&f, 0);
    f.out.dimension_count = 9;
    BAD(f, "resample1: output_tensor dimension_count must be 1..8, got 9");
    vfix_init(&f, 0);
    f.out.dimension_count = 1;
    BAD(f, "resample1: output_tensor dimension_count must equal input_tensor's (2), got 1");
    vfix_init(&f, 0);
    f.r1.dimension_count = 3;
    BAD(f, "resample1: dimension_count must equal the tensors' dimension_count (2), got 3");
    vfix_init(&f, 0);
    f.out.data_type = F16;
    BAD(f, "resample1: output_tensor data_type must equal input_tensor's (FLOAT32), got FLOAT16");
    vfix_init(&f, 0);
    f.in.data_type = f.out.data_type = DMLCL_TENSOR_DATA_TYPE_INT64;
    BAD(f, "resample1: input_tensor data_type must be FLOAT32, FLOAT16, FLOAT64, INT8, UINT8, "
           "INT16, UINT16, INT32 or UINT32, got INT64");
    vfix_init(&f, 0);
    f.in.data_type = f.out.data_type = DMLCL_TENSOR_DATA_TYPE_UINT64;
    BAD(f, "got UINT64");
    /* The 32-bit integers are nearest only: float32 would round them. */
    vfix_init(&f, 0);
    f.r1.interpolation_mode = LINEAR;
    f.in.data_type = f.out.data_type = I32;
    BAD(f, "resample1: data_type INT32 takes interpolation_mode 0 (NEAREST_NEIGHBOR) only, got 1 "
           "(LINEAR): LINEAR computes in float32, which holds 32-bit integers exactly only up to "
           "2^24");
    f.in.data_type = f.out.data_type = U32;
    BAD(f, "resample1: data_type UINT32 takes interpolation_mode 0 (NEAREST_NEIGHBOR) only");

    vfix_init(&f, 0);
    f.r1.interpolation_mode = (dmlcl_interpolation_mode)2;
    BAD(f, "resample1: interpolation_mode must be 0 (NEAREST_NEIGHBOR) or 1 (LINEAR), got 2");
    vfix_init(&f, 0);
    f.out_str[0] = 0;
    f.out_str[1] = 1;
    f.out.strides = f.out_str;
    BAD(f, "resample1: output_tensor strides[0] is 0");
    vfix_init(&f, 0);
    f.in.total_tensor_size_in_bytes = 15;
    BAD(f, "resample1: input_tensor total_tensor_size_in_bytes must be 0 or >= 16, got 15");
}
END_TEST

START_TEST(validation_arrays)
{
    vfix f;
    vfix_init(&f, 0);
    f.r1.scales = NULL;
    BAD(f, "resample1: scales is NULL (it needs 2 values)");
    vfix_init(&f, 0);
    f.r1.input_pixel_offsets = NULL;
    BAD(f, "resample1: input_pixel_offsets is NULL");
    vfix_init(&f, 0);
    f.r1.output_pixel_offsets = NULL;
    BAD(f, "resample1: output_pixel_offsets is NULL");
    const float bad_scales[5] = {0, -1, NAN, INFINITY, -INFINITY};
    const char *const shown[5] = {"got 0", "got -1", "got nan", "got inf", "got -inf"};
    for (int i = 0; i < 5; i++) {
        vfix_init(&f, 0);
        f.scales[1] = bad_scales[i];
        char msg[96];
        snprintf(msg, sizeof msg, "resample1: scales[1] must be finite and > 0, %s", shown[i]);
        BAD(f, msg);
    }
    vfix_init(&f, 0);
    f.ipo[0] = NAN;
    BAD(f, "resample1: input_pixel_offsets[0] must be finite, got nan");
    vfix_init(&f, 0);
    f.opo[1] = -INFINITY;
    BAD(f, "resample1: output_pixel_offsets[1] must be finite, got -inf");
    /* Legal extremes: FLT_MAX and tiny scales, offsets far out. */
    vfix_init(&f, 0);
    f.scales[0] = FLT_MAX;
    f.scales[1] = FLT_MIN;
    f.ipo[0] = -1e30f;
    tu_assert_ok(vcreate(&f));
}
END_TEST

/* The output shape for scales: floor(float32(n) x float32(s)), under the operators' rules. */
START_TEST(validation_output_sizes)
{
    const uint32_t in[3] = {10, 3, 4000000000u};
    const float scales[3] = {0.7f, 1.5f, 1.0f};
    uint32_t out[3] = {0, 0, 0};
    tu_assert_ok(dmlcl_resample_output_sizes(3, in, scales, out));
    ck_assert_uint_eq(out[0], 7); /* float32: 10 x 0.7f is 7; in double, 6.99... gives 6 */
    ck_assert_uint_eq(out[1], 4);
    ck_assert_uint_eq(out[2], 4000000000u);
    const char *name = "dmlcl_resample_output_sizes: ";
    char msg[160];
#define BAD_SIZES(call, rule)                                                                   \
    do {                                                                                       \
        snprintf(msg, sizeof msg, "%s%s", name, rule);                                         \
        tu_assert_fails(call, DMLCL_INVALID_ARGUMENT, msg);                                    \
    } while (0)
    BAD_SIZES(dmlcl_resample_output_sizes(0, in, scales, out),
              "input dimension_count must be 1..8, got 0");
    BAD_SIZES(dmlcl_resample_output_sizes(9, in, scales, out),
              "input dimension_count must be 1..8, got 9");
    BAD_SIZES(dmlcl_resample_output_sizes(2, NULL, scales, out), "input sizes is NULL");
    const uint32_t empty[2] = {3, 0};
    BAD_SIZES(dmlcl_resample_output_sizes(2, empty, scales, out),
              "input sizes[1] must be >= 1, got 0");
    BAD_SIZES(dmlcl_resample_output_sizes(2, in, NULL, out), "scales is NULL (it needs 2 values)");
    const float negative[2] = {1, -2};
    BAD_SIZES(dmlcl_resample_output_sizes(2, in, negative, out),
              "scales[1] must be finite and > 0, got -2");
    BAD_SIZES(dmlcl_resample_output_sizes(2, in, scales, NULL), "output_sizes is NULL");
    /* Rounds to 0; overflows uint32 (4e9 x 1.5 = 6e9; FLT_MAX gives inf). Nothing written. */
    const float small[2] = {0.05f, 1}, large[3] = {1, 1, 1.5f}, huge[1] = {FLT_MAX};
    out[0] = 99;
    BAD_SIZES(dmlcl_resample_output_sizes(2, in, small, out),
              "output size of dimension 0 is floor(10 x 0.05) = 0, outside 1 to 4294967295");
    ck_assert_uint_eq(out[0], 99);
    BAD_SIZES(dmlcl_resample_output_sizes(3, in, large, out),
              "output size of dimension 2 is floor(4000000000 x 1.5) = 6000000000, outside 1 "
              "to 4294967295");
    BAD_SIZES(dmlcl_resample_output_sizes(1, in + 2, huge, out),
              "output size of dimension 0 is floor(4000000000 x 3.40282e+38) = inf, outside");
#undef BAD_SIZES
}
END_TEST

START_TEST(validation_v0)
{
    vfix f;
    vfix_init(&f, 1);
    tu_assert_ok(vcreate(&f));
    f.r0.scale_count = 1;
    BAD(f, "resample: scale_count must equal the tensors' dimension_count (2), got 1");
    vfix_init(&f, 1);
    f.r0.scales = NULL;
    BAD(f, "resample: scales is NULL (it needs 2 values)");
    vfix_init(&f, 1);
    f.scales[0] = 0;
    BAD(f, "resample: scales[0] must be finite and > 0, got 0");
    vfix_init(&f, 1);
    f.in.data_type = f.out.data_type = DMLCL_TENSOR_DATA_TYPE_INT64;
    BAD(f, "resample: input_tensor data_type must be FLOAT32, FLOAT16, FLOAT64, INT8, UINT8, "
           "INT16, UINT16, INT32 or UINT32, got INT64");
    vfix_init(&f, 1);
    f.r0.interpolation_mode = LINEAR;
    f.in.data_type = f.out.data_type = U32;
    BAD(f, "resample: data_type UINT32 takes interpolation_mode 0 (NEAREST_NEIGHBOR) only");
    vfix_init(&f, 1);
    f.r0.interpolation_mode = (dmlcl_interpolation_mode)-1;
    BAD(f, "resample: interpolation_mode must be 0 (NEAREST_NEIGHBOR) or 1 (LINEAR), got -1");
}
END_TEST

START_TEST(validation_bindings)
{
    vfix f;
    vfix_init(&f, 0);
    dmlcl_operator *op;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &f.od, &op));
    tu_devbuf a = tu_devbuf_new(64, 0, NULL), b = tu_devbuf_new(64, 0, NULL);
    dmlcl_buffer_binding in[1] = {{a.mem, a.offset, 12}}, out[1] = {{b.mem, b.offset, 0}};
    tu_assert_fails(dmlcl_operator_enqueue(op, in, 1, out, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "resample1: inputs[0] holds 12 bytes from offset 64, "
                                            "the tensor needs 16");
    in[0] = (dmlcl_buffer_binding){a.mem, a.offset, 0};
    out[0] = (dmlcl_buffer_binding){a.mem, a.offset + 8, 0};
    tu_assert_fails(dmlcl_operator_enqueue(op, in, 1, out, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "resample1: outputs[0] overlaps inputs[0]");
    tu_assert_fails(dmlcl_operator_enqueue(op, in, 2, out, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "resample1: expects 1 input and 1 output bindings");
    dmlcl_operator_release(op);
    tu_devbuf_free(&a);
    tu_devbuf_free(&b);
}
END_TEST

/* Device-dependent rules, by lowering this device's limits for a moment. */
START_TEST(validation_device_limits)
{
    vfix f;
    vfix_init(&f, 0);
    dmlcl__device_info *info = &tu_context()->info, saved = *info;
    f.in.data_type = f.out.data_type = F64;
    tu_assert_ok(vcreate(&f));
    info->has_fp64 = 0;
    tu_assert_fails(vcreate(&f), DMLCL_UNSUPPORTED,
                    "resample1: data_type FLOAT64 needs cl_khr_fp64, which the device");
    f.in.data_type = DMLCL_TENSOR_DATA_TYPE_INT32; /* invalid arguments are reported first */
    BAD(f, "resample1: output_tensor data_type must equal input_tensor's (INT32), got FLOAT64");
    *info = saved;
    vfix_init(&f, 0);
    info->max_mem_alloc = 16; /* the 2x2 -> 4x4 linear tables: 4 rows (H's, shared by W) */
    tu_assert_fails(vcreate(&f), DMLCL_UNSUPPORTED,
                    "resample1: the coordinate tables need 32 bytes, more than the device's "
                    "CL_DEVICE_MAX_MEM_ALLOC_SIZE (16)");
    *info = saved;
}
END_TEST

/* Every library allocation of create + run + release fails in turn: a clean
 * DMLCL_OUT_OF_MEMORY (or success), never a crash or a leak. */
START_TEST(allocation_failures)
{
    const uint32_t is[2] = {2, 2}, os[2] = {4, 4};
    const float sc[2] = {2, 2}, in[4] = {1, 2, 3, 4};
    float out[16];
    dmlcl_tensor_desc ti = {F32, 2, is, NULL, 0}, to = {F32, 2, os, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 2, sc, tu_pix_in, tu_pix_out};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    uint64_t total = tu_alloc_failures(&od, in, out);
    ck_assert_uint_ge(total, 3); /* operator, plan, tables */
}
END_TEST

Suite *resample1_validation_suite(void)
{
    Suite *s = suite_create("resample1_validation");
    TCase *tc = tcase_create("validation");
    tcase_add_test(tc, validation_tensors_and_types);
    tcase_add_test(tc, validation_arrays);
    tcase_add_test(tc, validation_output_sizes);
    tcase_add_test(tc, validation_v0);
    tcase_add_test(tc, validation_bindings);
    tcase_add_test(tc, validation_device_limits);
    tcase_add_test(tc, allocation_failures);
    suite_add_tcase(s, tc);
    return s;
}
