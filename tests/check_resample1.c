/* RESAMPLE1 and RESAMPLE (v0) as the spec states them: hand-worked cases (ties, the
 * pixel-centre example, the ONNX coordinate modes), then randomized cases against a plain
 * C float32 reference with guard bands (resample1_case.c). The kernel layouts forced one
 * by one: check_resample1_layouts.c; every validation rule: check_resample1_validation.c.
 * Compile budget: every distinct build-options string is a JIT compile, so the randomized
 * cases are grouped by (data type, mode) and keep K (resampled dimensions) within 1..3;
 * K 4..8 and the 64-bit index kernels get one test each. */
#include "resample1_case.h"
#include "core/context.h" /* white-box: the context's memo */

/* ---- hand-worked cases ---------------------------------------------------------------------- */

/* 1-D or 2-D FLOAT32 on host arrays through execute_host (testutil.c). */
#define run_f32 tu_resample1_f32

static void expect_f32(const float *got, const float *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        ck_assert_msg(fabsf(got[i] - want[i]) <= 1e-6f, "%s: out[%d] = %.9g, expected %.9g",
                      what, i, got[i], want[i]);
}

START_TEST(nearest_4_to_2_pixel_centre_picks_1_and_3)
{
    const uint32_t is[1] = {4}, os[1] = {2};
    const float sc[1] = {0.5f}, in[4] = {10, 20, 30, 40}, want[2] = {20, 40};
    float out[2];
    run_f32(1, is, os, NEAREST, sc, tu_pix_in, tu_pix_out, in, out);
    expect_f32(out, want, 2, "4->2");
}
END_TEST

START_TEST(scale_3_pixel_centre)
{
    const uint32_t is[1] = {2}, os[1] = {6}, is3[1] = {3}, os9[1] = {9}, is6[1] = {6}, os2[1] = {2};
    const float s3[1] = {3}, in[2] = {0, 3};
    float out[9];
    /* x = (o + 0.5) / 3 - 0.5 = -1/3, 0, 1/3, 2/3, 1, 4/3 */
    const float nearest[6] = {0, 0, 0, 3, 3, 3}, linear[6] = {0, 0, 1, 2, 3, 3};
    run_f32(1, is, os, NEAREST, s3, tu_pix_in, tu_pix_out, in, out);
    expect_f32(out, nearest, 6, "2->6 nearest");
    run_f32(1, is, os, LINEAR, s3, tu_pix_in, tu_pix_out, in, out);
    ck_assert(out[1] == 0 && out[4] == 3); /* x = 0 and 1 exactly: no drift */
    for (int i = 0; i < 6; i++)
        ck_assert_msg(fabsf(out[i] - linear[i]) <= 1e-6f, "2->6 linear out[%d] = %.9g", i, out[i]);
    /* Exact ties with scale 3: x = (o + 0.5) / 3 (output offset only) is 0.5 at o = 1 and
     * 1.5 at o = 4; ties round up. */
    const float in3[3] = {10, 20, 30}, ties[9] = {10, 20, 20, 20, 30, 30, 30, 30, 30};
    const float off_out[1] = {-0.5f};
    run_f32(1, is3, os9, NEAREST, s3, rc_zeros, off_out, in3, out);
    expect_f32(out, ties, 9, "3->9 ties");
    /* Down by 3 with scale 1/3 (a float just above 1/3): pixel centres 1 and 4. */
    const float third[1] = {1.0f / 3}, in6[6] = {0, 1, 2, 3, 4, 5}, down[2] = {1, 4};
    run_f32(1, is6, os2, NEAREST, third, tu_pix_in, tu_pix_out, in6, out);
    expect_f32(out, down, 2, "6->2");
}
END_TEST

START_TEST(pixel_centre_2x2_to_4x4_linear)
{
    const uint32_t is[2] = {2, 2}, os[2] = {4, 4};
    const float sc[2] = {2, 2}, in[4] = {1, 2, 3, 4};
    const float want[16] = {1,   1.25f, 1.75f, 2,    1.5f, 1.75f, 2.25f, 2.5f,
                            2.5f, 2.75f, 3.25f, 3.5f, 3,    3.25f, 3.75f, 4};
    float out[16];
    run_f32(2, is, os, LINEAR, sc, tu_pix_in, tu_pix_out, in, out);
    expect_f32(out, want, 16, "2x2->4x4");
}
END_TEST

/* doc/operators.md's table: ONNX Resize coordinate_transformation_mode as scales and offsets. */
START_TEST(onnx_half_pixel)
{
    /* x = (o + 0.5) / scale - 0.5: input offset 0.5, output offset -0.5. */
    const uint32_t is[1] = {4}, os[1] = {8};
    const float sc[1] = {2}, in[4] = {1, 2, 3, 4};
    const float want[8] = {1, 1.25f, 1.75f, 2.25f, 2.75f, 3.25f, 3.75f, 4};
    float out[8];
    run_f32(1, is, os, LINEAR, sc, tu_pix_in, tu_pix_out, in, out);
    expect_f32(out, want, 8, "half_pixel");
}
END_TEST

START_TEST(onnx_align_corners)
{
    /* x = o * (in - 1) / (out - 1): scale (out - 1) / (in - 1), offsets 0 and 0. */
    const uint32_t is[1] = {3}, os[1] = {5};
    const float sc[1] = {(5.0f - 1) / (3 - 1)}, in[3] = {1, 2, 4};
    const float want[5] = {1, 1.5f, 2, 3, 4};
    float out[5];
    run_f32(1, is, os, LINEAR, sc, rc_zeros, rc_zeros, in, out);
    expect_f32(out, want, 5, "align_corners");
}
END_TEST

START_TEST(onnx_asymmetric)
{
    /* x = o / scale: offsets 0 and 0. */
    const uint32_t is[1] = {4}, os[1] = {8};
    const float sc[1] = {2}, in[4] = {1, 2, 3, 4};
    const float want[8] = {1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4};
    float out[8];
    run_f32(1, is, os, LINEAR, sc, rc_zeros, rc_zeros, in, out);
    expect_f32(out, want, 8, "asymmetric");
}
END_TEST

START_TEST(onnx_pytorch_half_pixel)
{
    /* half_pixel, except x = 0 where the output size is 1: offsets 0 and 0 there. */
    const uint32_t is[2] = {2, 4}, os[2] = {1, 8};
    const float sc[2] = {0.5f, 2}, ipo[2] = {0, 0.5f}, opo[2] = {0, -0.5f};
    const float in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float want[8] = {1, 1.25f, 1.75f, 2.25f, 2.75f, 3.25f, 3.75f, 4};
    float out[8];
    run_f32(2, is, os, LINEAR, sc, ipo, opo, in, out);
    expect_f32(out, want, 8, "pytorch_half_pixel");
    /* half_pixel would sample between the rows (x = 0.5 / 0.5 - 0.5 = 0.5): 3, 3.25, ... */
    run_f32(2, is, os, LINEAR, sc, tu_pix_in, tu_pix_out, in, out);
    ck_assert_float_eq_tol(out[0], 3, 1e-6f);
}
END_TEST

START_TEST(onnx_tf_half_pixel_for_nn)
{
    /* x = (o + 0.5) / scale: input offset 0, output offset -0.5. */
    const uint32_t is[1] = {3}, os[1] = {6};
    const float sc[1] = {2}, opo[1] = {-0.5f}, in[3] = {10, 20, 30};
    const float want[6] = {10, 20, 20, 30, 30, 30};
    float out[6];
    run_f32(1, is, os, NEAREST, sc, rc_zeros, opo, in, out);
    expect_f32(out, want, 6, "tf_half_pixel_for_nn");
}
END_TEST

/* FLOAT16 computes in float and rounds once; 8-bit linear rounds half to even. */
START_TEST(float16_and_8_bit_rounding)
{
    const uint32_t is[2] = {5, 2}, os[2] = {5, 3};
    const float sc[2] = {1, 2}; /* dimension 1: x = o / 2, midpoints at o = 1 */
    dmlcl_tensor_desc ti = {I8, 2, is, NULL, 0}, to = {I8, 2, os, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 2, sc, rc_zeros, rc_zeros};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    dmlcl_operator *op;
    const int8_t i8[10] = {0, 1, 1, 2, -1, -2, -3, -2, 126, 127};
    const int8_t w8[15] = {0, 0, 1, 1, 2, 2, -1, -2, -2, -3, -2, -2, 126, 126, 127};
    int8_t o8[15];
    const void *ins[1] = {i8};
    void *outs[1] = {o8};
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
    for (int i = 0; i < 15; i++)
        ck_assert_msg(o8[i] == w8[i], "INT8 out[%d] = %d, expected %d", i, o8[i], w8[i]);
    ti.data_type = to.data_type = U8;
    const uint8_t u8[10] = {0, 1, 1, 2, 254, 255, 3, 4, 0, 255};
    const uint8_t wu[15] = {0, 0, 1, 1, 2, 2, 254, 254, 255, 3, 4, 4, 0, 128, 255};
    uint8_t ou[15];
    ins[0] = u8;
    outs[0] = ou;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
    for (int i = 0; i < 15; i++)
        ck_assert_msg(ou[i] == wu[i], "UINT8 out[%d] = %d, expected %d", i, ou[i], wu[i]);
    /* FLOAT16: 1 and 2 (2x pixel-centre) give 1, 1.25, 1.75, 2 exactly. */
    const uint32_t hs[1] = {2}, hos[1] = {4};
    const float hsc[1] = {2};
    dmlcl_tensor_desc hi = {F16, 1, hs, NULL, 0}, ho = {F16, 1, hos, NULL, 0};
    dmlcl_resample1_desc hd = {&hi, &ho, LINEAR, 1, hsc, tu_pix_in, tu_pix_out};
    od.desc = &hd;
    const uint16_t h_in[2] = {0x3c00, 0x4000}, h_want[4] = {0x3c00, 0x3d00, 0x3f00, 0x4000};
    uint16_t h_out[4];
    ins[0] = h_in;
    outs[0] = h_out;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(h_out[i], h_want[i]);
}
END_TEST

/* The 16-bit integers round and saturate as the 8-bit ones (ties to even: 2.5 -> 2,
 * -2.5 -> -2, 65534.5 -> 65534); the 32-bit ones move, bit for bit, values that float32
 * cannot hold (2^24 + 1, the extremes). */
START_TEST(integers_16_and_32_bit)
{
    const uint32_t is[2] = {3, 2}, os[2] = {3, 3};
    const float sc[2] = {1, 2}; /* dimension 1: x = o / 2, midpoints at o = 1 */
    dmlcl_tensor_desc ti = {I16, 2, is, NULL, 0}, to = {I16, 2, os, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 2, sc, rc_zeros, rc_zeros};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    const int16_t i16[6] = {2, 3, -3, -2, 32766, 32767};
    const int16_t w16[9] = {2, 2, 3, -3, -2, -2, 32766, 32766, 32767};
    int16_t o16[9];
    tu_run_host(&od, i16, o16);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(o16[i] == w16[i], "INT16 out[%d] = %d, expected %d", i, o16[i], w16[i]);
    ti.data_type = to.data_type = U16;
    const uint16_t u16[6] = {1, 2, 65534, 65535, 0, 65535};
    const uint16_t wu[9] = {1, 2, 2, 65534, 65534, 65535, 0, 32768, 65535};
    uint16_t ou[9];
    tu_run_host(&od, u16, ou);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(ou[i] == wu[i], "UINT16 out[%d] = %u, expected %u", i, ou[i], wu[i]);
    rd.interpolation_mode = NEAREST;
    ti.data_type = to.data_type = I32;
    const int32_t i32[6] = {16777217, -16777217, INT32_MIN, INT32_MAX, 1, -1};
    const int32_t w32[9] = {16777217, -16777217, -16777217, INT32_MIN, INT32_MAX, INT32_MAX,
                            1, -1, -1};
    int32_t o32[9];
    tu_run_host(&od, i32, o32);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(o32[i] == w32[i], "INT32 out[%d] = %d, expected %d", i, o32[i], w32[i]);
    ti.data_type = to.data_type = U32;
    const uint32_t v32[6] = {16777217, UINT32_MAX, 0, 4294967293u, 7, 16777219};
    const uint32_t wv[9] = {16777217, UINT32_MAX, UINT32_MAX, 0, 4294967293u, 4294967293u,
                            7, 16777219, 16777219};
    uint32_t ov[9];
    tu_run_host(&od, v32, ov);
    for (int i = 0; i < 9; i++)
        ck_assert_msg(ov[i] == wv[i], "UINT32 out[%d] = %u, expected %u", i, ov[i], wv[i]);
}
END_TEST

/* Nearest moves bits (NaN payloads, -0); linear never reads a corner of weight 0. */
START_TEST(special_values)
{
    const uint32_t is[1] = {3}, os[1] = {5};
    const float sc[1] = {2}; /* x = o / 2 (offsets 0): outputs 0, 2, 4 land on inputs */
    float in[3] = {1, INFINITY, 3}, out[5];
    run_f32(1, is, os, LINEAR, sc, rc_zeros, rc_zeros, in, out);
    ck_assert(out[0] == 1 && isinf(out[2]) && out[4] == 3);
    ck_assert(isinf(out[1]) && isinf(out[3]));
    uint32_t nan_bits = 0x7fc12345u, negz = 0x80000000u, got[5];
    memcpy(&in[0], &nan_bits, 4);
    memcpy(&in[2], &negz, 4);
    run_f32(1, is, os, NEAREST, sc, rc_zeros, rc_zeros, in, (float *)got);
    ck_assert_uint_eq(got[0], nan_bits); /* x = 0 */
    ck_assert_uint_eq(got[4], negz);     /* x = 2 */
}
END_TEST

/* The same rule in every LINEAR kernel (forced here on the test device): the row kernels
 * with and without their window, the units, and the device's own choice. Rows of 65
 * inputs, Inf at every odd one, upsampled 2x with offsets 0: output 2i lands on input i
 * (weight 0 on its upper corner) and must be input i exactly: 2k, or Inf, not NaN (the
 * kernels read a weight-0 corner at the lower one's place, so there 0 * Inf would be). */
START_TEST(weight_zero_corners_in_every_kernel)
{
    static const char *const plans[] = {"rows=1,win=0", "rows=1,win=1", "rows=0,seg=0,v=4",
                                        ""};
    const uint32_t is[2] = {2, 65}, os[2] = {2, 130};
    const float sc[2] = {1, 2};
    float in[130], out[260];
    for (int i = 0; i < 130; i++)
        in[i] = i % 65 % 2 ? INFINITY : (float)(i % 65);
    for (size_t pl = 0; pl < sizeof plans / sizeof plans[0]; pl++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[pl], 1);
        run_f32(2, is, os, LINEAR, sc, rc_zeros, rc_zeros, in, out);
        for (int r = 0; r < 2; r++)
            for (int i = 0; i < 65; i++)
                ck_assert_msg(out[130 * r + 2 * i] == in[i], "%s: out[%d][%d] = %g", plans[pl],
                              r, 2 * i, (double)out[130 * r + 2 * i]);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* A corner weight is the product of its factors, and a product can underflow to 0 where
 * no factor is 0: here every weight is (o + 1) * 2^-60 (scale 2^60, input offset -2^-60),
 * so the upper corner's three factors make at most 2^-180: 0. That corner adds nothing,
 * not its 0 * Inf: where the kernels sum without the choice per term, the Inf must send
 * the unit back to the choice. */
START_TEST(underflowed_corner_weight_adds_nothing)
{
    static const char *const plans[] = {"rows=1,win=0", "rows=1,win=1", "rows=1,win=1,pair=1",
                                        "rows=1,win=1,pair=2", "rows=0,seg=0,v=4", ""};
    const uint32_t is[3] = {2, 2, 2}, os[3] = {2, 2, 64};
    const float sc[3] = {0x1p60f, 0x1p60f, 0x1p60f};
    const float off_in[3] = {-0x1p-60f, -0x1p-60f, -0x1p-60f};
    /* and channels-last: three resampled dimensions outside a pass-through run */
    const uint32_t cl[4] = {2, 2, 2, 4};
    const float sc_cl[4] = {0x1p60f, 0x1p60f, 0x1p60f, 1};
    const float off_cl[4] = {-0x1p-60f, -0x1p-60f, -0x1p-60f, 0};
    float in3[8], in4[32], out3[256], out4[32];
    for (int i = 0; i < 8; i++)
        in3[i] = i == 7 ? INFINITY : 1; /* {1, 1, 1} */
    for (int i = 0; i < 32; i++)
        in4[i] = i >= 28 ? INFINITY : 1; /* {1, 1, 1, *} */
    for (size_t pl = 0; pl < sizeof plans / sizeof plans[0]; pl++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[pl], 1);
        run_f32(3, is, os, LINEAR, sc, off_in, rc_zeros, in3, out3);
        for (int i = 0; i < 256; i++)
            ck_assert_msg(out3[i] == 1, "%s: out[%d] = %g, not 1", plans[pl], i, (double)out3[i]);
        run_f32(4, cl, cl, LINEAR, sc_cl, off_cl, rc_zeros, in4, out4);
        for (int i = 0; i < 32; i++)
            ck_assert_msg(out4[i] == 1, "%s, channels-last: out[%d] = %g, not 1", plans[pl], i,
                          (double)out4[i]);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

START_TEST(resample_v0_is_pixel_centre)
{
    const uint32_t is[2] = {2, 2}, os[2] = {4, 4};
    const float sc[2] = {2, 2}, in[4] = {1, 2, 3, 4};
    float out[16];
    dmlcl_tensor_desc ti = {F32, 2, is, NULL, 0}, to = {F32, 2, os, NULL, 0};
    dmlcl_resample_desc rd = {&ti, &to, LINEAR, 2, sc};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE, &rd};
    dmlcl_operator *op;
    const void *ins[1] = {in};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
    const float want[4] = {1, 1.25f, 1.75f, 2};
    expect_f32(out, want, 4, "RESAMPLE v0");
}
END_TEST

START_TEST(plan_names_the_variant)
{
    const uint32_t s[3] = {2, 3, 4}, os[3] = {2, 6, 4};
    const float one[3] = {1, 1, 1}, up[3] = {1, 2, 1};
    dmlcl_tensor_desc ti = {F32, 3, s, NULL, 0}, to = {F32, 3, s, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 3, one, tu_pix_in, tu_pix_out};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    dmlcl_operator *op;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "variant=copy")); /* -seg on CPUs */
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "resampled=0 pass=1"));
    float in[24], out[48];
    for (int i = 0; i < 24; i++)
        in[i] = (float)i * 0.5f - 3;
    const void *ins[1] = {in};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs)); /* no table buffer at all */
    ck_assert(!memcmp(in, out, sizeof in));
    dmlcl_operator_release(op);
    to.sizes = os;
    rd.scales = up;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "variant=linear")); /* -seg on CPUs */
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "resampled=1 pass=2"));
    dmlcl_operator_release(op);
    rd.interpolation_mode = NEAREST;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "variant=gather"));
    dmlcl_operator_release(op);
}
END_TEST

START_TEST(randomized_against_reference)
{
    dmlcl_tensor_data_type type = rc_all_types[_i / 2];
    int mode = _i % 2;
    uint64_t rng = 0x7e5a0000u + (uint64_t)_i;
    int n = 0;
    for (uint32_t rank = 1; rank <= 8; rank++)
        for (int rep = 0; rep < 3; rep++, n++) {
            uint32_t res = (uint32_t)tu_range(&rng, 1, rank < 3 ? rank : 3);
            rcase c = rc_random_case(&rng, rank, type, mode, res);
            rc_check_random(&rng, &c, n);
        }
}
END_TEST

/* 4, 6 and 8 resampled dimensions (16, 64 and 256 corners), FLOAT32: the corner loop is
 * the same code for every K (each K is a program of its own, up to 3 s to compile). */
START_TEST(many_resampled_dimensions)
{
    uint64_t rng = 0x8a11;
    for (uint32_t k = 4; k <= 8; k += 2) {
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = 8;
        c.type = F32;
        c.mode = LINEAR;
        c.elem = 4;
        for (uint32_t d = 0; d < 8; d++) {
            int res = d < k;
            c.in_sizes[d] = (uint32_t)tu_range(&rng, 1, 2) + (res ? 1 : 0);
            c.out_sizes[d] = res ? (uint32_t)tu_range(&rng, 2, 3) : c.in_sizes[d];
            c.scales[d] = res ? 1.5f : 1;
            c.ipo[d] = 0.5f;
            c.opo[d] = res ? -0.25f : -0.5f; /* resampled: x = (o + 0.25) / 1.5 - 0.5 */
        }
        rc_random_layout(&rng, 8, c.in_sizes, 1, c.in_str);
        rc_random_layout(&rng, 8, c.out_sizes, 0, c.out_str);
        rc_check_random(&rng, &c, (int)k);
    }
}
END_TEST

/* Larger than the work-item count, so every work-item loops (grid stride). */
START_TEST(larger_images)
{
    uint64_t rng = 0x1a7e;
    for (int mode = 0; mode < 2; mode++) {
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = 3;
        c.type = F32;
        c.mode = mode;
        c.elem = 4;
        const uint32_t is[3] = {3, 61, 47}, os[3] = {3, 128, 33};
        memcpy(c.in_sizes, is, sizeof is);
        memcpy(c.out_sizes, os, sizeof os);
        c.scales[0] = 1;
        c.scales[1] = 128.0f / 61;
        c.scales[2] = 33.0f / 47;
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        tu_channels_last(3, c.in_sizes, c.in_str);
        tu_make_strides(&rng, TU_PADDED, 3, c.out_sizes, -1, c.out_str);
        rc_check_random(&rng, &c, mode);
    }
}
END_TEST

START_TEST(resample_v0_equals_resample1)
{
    uint64_t rng = 0x7e50;
    for (int n = 0; n < 12; n++) {
        rcase c = rc_random_case(&rng, (uint32_t)tu_range(&rng, 1, 4), rc_all_types[n % 5],
                              n % 2 ? LINEAR : NEAREST, 2);
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        size_t in_bytes, b0, b1;
        unsigned char *in = rc_random_input(&rng, &c, &in_bytes);
        unsigned char *o1 = rc_run_case(&c, in, 0, "RESAMPLE1", &b1);
        unsigned char *o0 = rc_run_case(&c, in, 1, "RESAMPLE", &b0);
        ck_assert_uint_eq(b0, b1);
        ck_assert_msg(!memcmp(o0, o1, b0), "case %d: RESAMPLE and RESAMPLE1 differ", n);
        free(in), free(o0), free(o1);
    }
}
END_TEST

/* The context's memo (lib/core/memo.h): the same descriptor again takes its plans and
 * table from the memo; descriptors that differ in one value the table depends
 * on (an offset, a scale, the mode, a size) each match the reference after the others
 * filled it, and again once all of them are in it. */
START_TEST(memo_shares_tables)
{
    uint64_t rng = 0x3e31;
    const dmlcl__memo *m = &tu_context()->memo;
    rcase v[5];
    v[0] = rc_random_case(&rng, 3, F32, LINEAR, 2);
    v[1] = v[0], v[2] = v[0], v[3] = v[0], v[4] = v[0];
    v[1].opo[v[0].rank - 1] += 0.25f;
    const uint32_t last = v[0].rank - 1;
    v[2].scales[last] = (float)v[0].out_sizes[last] / (float)v[0].in_sizes[last] + 0.5f;
    v[3].mode = NEAREST;
    v[4].out_sizes[v[0].rank - 1] += 1;
    rc_random_layout(&rng, v[4].rank, v[4].out_sizes, 0, v[4].out_str);
    rc_check_random(&rng, &v[0], 0);
    const uint64_t hits = m->hits;
    rc_check_random(&rng, &v[0], 1);
    ck_assert_uint_gt(m->hits, hits);
    for (int round = 0; round < 2; round++)
        for (int k = 1; k < 5; k++)
            rc_check_random(&rng, &v[k], 2 + 5 * round + k);
}
END_TEST

uint64_t dmlcl_test_resample_plans(void); /* the library's test hook: plans made */

/* The memo keeps an operator's plans under everything they are a function of: the same
 * descriptor again is not planned again and computes as the first did; the planner
 * variable's overrides are part of that, so the descriptor under an override is planned
 * anew, with the override's launch shape, and then comes from the memo too. */
START_TEST(memo_spares_the_planner)
{
    uint64_t rng = 0x91a3;
    const rcase c = rc_random_case(&rng, 3, F32, LINEAR, 2);
    rc_check_random(&rng, &c, 0);
    const uint64_t plans = dmlcl_test_resample_plans();
    rc_check_random(&rng, &c, 1);
    ck_assert_uint_eq(dmlcl_test_resample_plans() - plans, 0);
    setenv("DMLCL_RESAMPLE_PLAN", "rows=0,seg=0,v=3", 1);
    for (int n = 0; n < 2; n++) {
        dmlcl_operator *op = rc_make_op(&c, 0);
        ck_assert_msg(strstr(dmlcl_operator_plan(op), " vec=3 ") != NULL, "%s",
                      dmlcl_operator_plan(op));
        ck_assert_uint_eq(dmlcl_test_resample_plans() - plans, 1);
        dmlcl_operator_release(op);
    }
    rc_check_random(&rng, &c, 2);
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

Suite *resample1_suite(void)
{
    Suite *s = suite_create("resample1");
    TCase *tc = tcase_create("spec");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, nearest_4_to_2_pixel_centre_picks_1_and_3);
    tcase_add_test(tc, scale_3_pixel_centre);
    tcase_add_test(tc, pixel_centre_2x2_to_4x4_linear);
    tcase_add_test(tc, onnx_half_pixel);
    tcase_add_test(tc, onnx_align_corners);
    tcase_add_test(tc, onnx_asymmetric);
    tcase_add_test(tc, onnx_pytorch_half_pixel);
    tcase_add_test(tc, onnx_tf_half_pixel_for_nn);
    tcase_add_test(tc, float16_and_8_bit_rounding);
    tcase_add_test(tc, integers_16_and_32_bit);
    tcase_add_test(tc, special_values);
    tcase_add_test(tc, weight_zero_corners_in_every_kernel);
    tcase_add_test(tc, underflowed_corner_weight_adds_nothing);
    tcase_add_test(tc, resample_v0_is_pixel_centre);
    tcase_add_test(tc, plan_names_the_variant);
    suite_add_tcase(s, tc);
    tc = tcase_create("randomized");
    tcase_add_checked_fixture(tc, NULL, rc_forget_plan_override);
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, NULL, rc_report_exactness);
    tcase_add_loop_test(tc, randomized_against_reference, 0, 10);
    tcase_add_test(tc, many_resampled_dimensions);
    tcase_add_test(tc, larger_images);
    tcase_add_test(tc, resample_v0_equals_resample1);
    tcase_add_test(tc, memo_shares_tables);
    tcase_add_test(tc, memo_spares_the_planner);
    suite_add_tcase(s, tc);
    return s;
}
