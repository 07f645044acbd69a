/* RESAMPLE_GRAD1: DirectML's example, hand-worked linear and 8-bit cases, randomized cases
 * (ranks 1-8, both modes and directions, FLOAT32/FLOAT16/FLOAT64/INT8/UINT8, strided and
 * broadcast layouts, guard bands) against a plain C scatter of the forward pass's weights,
 * and every validation rule. Compiles: the tap kernel once per data type (the 8-bit ones
 * are RESAMPLE3's programs too). */
#include "grad1_case.h"
#include "core/context.h" /* white-box: device limits for the FLOAT64 rule */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>




/* DirectML's example: forward 2x2 -> 1x3 nearest, scales {0.5, 1.5}, pixel-centre
 * offsets, DECREASING (forward columns 0, 0, 1 of row 0: tests/check_resample2.c). */
START_TEST(directml_example)
{
    const uint32_t gs[2] = {1, 3}, os[2] = {2, 2};
    const float sc[2] = {0.5f, 1.5f}, g[3] = {4, 5, 6}, want[4] = {9, 6, 0, 0};
    float out[4];
    grad_host(F32, 2, gs, os, NEAREST, DEC, sc, tu_pix_in, tu_pix_out, g, out);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(out[i] == want[i], "out[%d] = %g, expected %g", i, out[i], want[i]);
    /* As DirectML writes it: 4-D, sizes {1,1,1,3} -> {1,1,2,2}. */
    const uint32_t gs4[4] = {1, 1, 1, 3}, os4[4] = {1, 1, 2, 2};
    const float sc4[4] = {1, 1, 0.5f, 1.5f};
    grad_host(F32, 4, gs4, os4, NEAREST, DEC, sc4, tu_pix_in, tu_pix_out, g, out);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(out[i] == want[i], "4-D out[%d] = %g, expected %g", i, out[i], want[i]);
}
END_TEST

/* Forward 2 -> 4 linear, pixel centres: x = -0.25, 0.25, 0.75, 1.25 clamp to 0, .25, .75, 1:
 * out = {a, .75a + .25b, .25a + .75b, b}. Gradient {1, 2, 3, 4}:
 * a gets 1 + 1.5 + 0.75 = 3.25, b gets 0.5 + 2.25 + 4 = 6.75. */
START_TEST(linear_by_hand)
{
    const uint32_t gs[1] = {4}, os[1] = {2};
    const float sc[1] = {2}, g[4] = {1, 2, 3, 4};
    float out[2];
    grad_host(F32, 1, gs, os, LINEAR, INC, sc, tu_pix_in, tu_pix_out, g, out);
    ck_assert_float_eq(out[0], 3.25f);
    ck_assert_float_eq(out[1], 6.75f);
    /* Downsampling 4 -> 1 by nearest: only the input read gets it, the rest 0. 4 -> 2 with
     * pixel centres reads inputs 1 and 3 (x = 0.5, 2.5; DECREASING: 0 and 2). */
    const uint32_t gs2[1] = {2}, os4[1] = {4};
    const float half[1] = {0.5f}, g2[2] = {7, 8};
    float out4[4];
    grad_host(F32, 1, gs2, os4, NEAREST, INC, half, tu_pix_in, tu_pix_out, g2, out4);
    ck_assert(out4[0] == 0 && out4[1] == 7 && out4[2] == 0 && out4[3] == 8);
    grad_host(F32, 1, gs2, os4, NEAREST, DEC, half, tu_pix_in, tu_pix_out, g2, out4);
    ck_assert(out4[0] == 7 && out4[1] == 0 && out4[2] == 8 && out4[3] == 0);
}
END_TEST

/* The device's tap table holds each tap's weight itself for the float accumulators and
 * {w, code} for FLOAT64 (lib/resample/taps/taps.h): a FLOAT32 and a FLOAT64 operator of
 * one shape in one context share no table, whichever is created first (a shape of its own
 * for each order: rank 1, then 2 with a leading 1). Forward 3 -> 6 linear, pixel centres:
 * x = -0.25 (clamped to 0), 0.25, 0.75, 1.25, 1.75, 2.25 (clamped to 2); gradient {1, ...,
 * 6}: 1 + 2 (0.75) + 3 (0.25), 2 (0.25) + 3 (0.75) + 4 (0.75) + 5 (0.25), 4 (0.25) + 5
 * (0.75) + 6. */
START_TEST(float_and_double_tables_apart)
{
    const uint32_t gs[2] = {1, 6}, os[2] = {1, 3};
    const float sc[2] = {1, 2}, g[6] = {1, 2, 3, 4, 5, 6}, want[3] = {3.25f, 7, 10.75f};
    const double gd[6] = {1, 2, 3, 4, 5, 6};
    for (int first = 0; first < 2; first++) {
        const uint32_t rank = 1 + (uint32_t)first, d = 2 - rank; /* the trailing dimensions */
        float out[3] = {0};
        double outd[3] = {0};
        for (int k = 0; k < 2; k++) {
            if (k == first)
                grad_host(F32, rank, gs + d, os + d, LINEAR, INC, sc + d, tu_pix_in, tu_pix_out,
                          g, out);
            else
                grad_host(F64, rank, gs + d, os + d, LINEAR, INC, sc + d, tu_pix_in, tu_pix_out,
                          gd, outd);
        }
        for (int i = 0; i < 3; i++)
            ck_assert_msg(out[i] == want[i] && outd[i] == (double)want[i],
                          "%s created first: FLOAT32 %g, FLOAT64 %g at %d, expected %g",
                          first ? "FLOAT64" : "FLOAT32", out[i], outd[i], i, want[i]);
    }
}
END_TEST

/* INT8/UINT8: the sum is float, rounded half to even and saturated once, on the store.
 * Forward 1 -> 4 nearest: input 0 gets all four gradients. Linear 2 -> 4 (weights as in
 * linear_by_hand): gradient {1, 2, 0, 0} gives a = 1 + 1.5 = 2.5, b = 0.5. */
START_TEST(int8_by_hand)
{
    const uint32_t gs[1] = {4}, os1[1] = {1}, os2[1] = {2};
    const float four[1] = {4}, two[1] = {2};
    static const struct {
        dmlcl_tensor_data_type type;
        int8_t g[4];
        int want;
        const char *why;
    } sums[4] = {
        {I8, {100, 50, -60, 1}, 91, "150 passes 127 on the way: no saturation before the store"},
        {I8, {100, 50, -20, 1}, 127, "131 saturates to 127"},
        {I8, {-100, -50, 20, -1}, -128, "-131 saturates to -128"},
        {U8, {(int8_t)200, 100, 0, 0}, 255, "300 saturates to 255"},
    };
    for (int k = 0; k < 4; k++) {
        uint8_t out[1];
        grad_host(sums[k].type, 1, gs, os1, NEAREST, INC, four, tu_pix_in, tu_pix_out, sums[k].g, out);
        int got = sums[k].type == I8 ? (int8_t)out[0] : out[0];
        ck_assert_msg(got == sums[k].want, "%s: got %d", sums[k].why, got);
    }
    const int8_t g[4] = {1, 2, 0, 0}, neg[4] = {-1, -2, 0, 0};
    int8_t out[2];
    grad_host(I8, 1, gs, os2, LINEAR, INC, two, tu_pix_in, tu_pix_out, g, out);
    ck_assert_msg(out[0] == 2 && out[1] == 0, "2.5, 0.5 round half to even to 2, 0; got %d, %d",
                  out[0], out[1]);
    grad_host(I8, 1, gs, os2, LINEAR, INC, two, tu_pix_in, tu_pix_out, neg, out);
    ck_assert_msg(out[0] == -2 && out[1] == 0, "-2.5, -0.5 round to -2, 0; got %d, %d", out[0],
                  out[1]);
    uint8_t u[2];
    grad_host(U8, 1, gs, os2, LINEAR, INC, two, tu_pix_in, tu_pix_out, g, u);
    ck_assert_msg(u[0] == 2 && u[1] == 0, "UINT8: got %d, %d", u[0], u[1]);
}
END_TEST

/* The 16-bit integers as the 8-bit ones: one rounding and saturation, on the store. */
START_TEST(int16_by_hand)
{
    const uint32_t gs[1] = {4}, os1[1] = {1}, os2[1] = {2};
    const float four[1] = {4}, two[1] = {2};
    static const struct {
        dmlcl_tensor_data_type type;
        int32_t g[4];
        int32_t want;
        const char *why;
    } sums[4] = {
        {I16, {30000, 5000, -6000, 1}, 29001, "35000 passes 32767 on the way"},
        {I16, {30000, 5000, -2000, 1}, 32767, "33001 saturates to 32767"},
        {I16, {-30000, -5000, 2000, -1}, -32768, "-33001 saturates to -32768"},
        {U16, {60000, 10000, 0, 0}, 65535, "70000 saturates to 65535"},
    };
    for (int k = 0; k < 4; k++) {
        uint16_t g[4], out[1];
        for (int i = 0; i < 4; i++)
            g[i] = (uint16_t)sums[k].g[i];
        grad_host(sums[k].type, 1, gs, os1, NEAREST, INC, four, tu_pix_in, tu_pix_out, g, out);
        const int32_t got = sums[k].type == I16 ? (int16_t)out[0] : out[0];
        ck_assert_msg(got == sums[k].want, "%s: got %d", sums[k].why, got);
    }
    const int16_t g[4] = {1, 2, 0, 0}, neg[4] = {-1, -2, 0, 0};
    int16_t out[2];
    grad_host(I16, 1, gs, os2, LINEAR, INC, two, tu_pix_in, tu_pix_out, neg, out);
    ck_assert_msg(out[0] == -2 && out[1] == 0, "-2.5, -0.5 round to -2, 0; got %d, %d", out[0],
                  out[1]);
    uint16_t u[2];
    grad_host(U16, 1, gs, os2, LINEAR, INC, two, tu_pix_in, tu_pix_out, g, u);
    ck_assert_msg(u[0] == 2 && u[1] == 0, "UINT16: got %u, %u", u[0], u[1]);
}
END_TEST

/* ---- randomized against a forward-order scatter -------------------------------------------- */

/* _i: type (F32, F16, F64, I8, U8) x mode. */
START_TEST(randomized_against_scatter)
{
    static const dmlcl_tensor_data_type types[5] = {F32, F16, F64, I8, U8};
    dmlcl_tensor_data_type type = types[_i / 2];
    int mode = _i % 2;
    uint64_t rng = 0x96AD0000u + (uint64_t)_i;
    int n = 0;
    for (uint32_t rank = 1; rank <= 8; rank++)
        for (int rep = 0; rep < (rank <= 4 ? 5 : 2); rep++, n++) {
            gcase c = random_gcase(&rng, rank, type, mode);
            check_gcase(&rng, &c, n);
        }
}
END_TEST

/* The 16-bit integers, both modes: a few ranks (the kernels are the other types', with
 * the 16-bit loads and stores). */
START_TEST(int16_against_scatter)
{
    uint64_t rng = 0x9616;
    for (int n = 0; n < 8; n++) {
        gcase c = random_gcase(&rng, 2 + (uint32_t)(n / 2) % 3, n % 2 ? U16 : I16, n / 4);
        check_gcase(&rng, &c, n);
    }
}
END_TEST

/* Larger than the work-item count, and upsampling far enough that rows hold many taps. */
START_TEST(larger_cases)
{
    uint64_t rng = 0x96AD;
    for (int mode = 0; mode < 2; mode++) {
        gcase c;
        memset(&c, 0, sizeof c);
        c.rank = 3;
        c.type = F32;
        c.elem = 4;
        c.mode = mode;
        c.dir = mode;
        const uint32_t os[3] = {3, 37, 29}, gs[3] = {3, 150, 20};
        memcpy(c.os, os, sizeof os);
        memcpy(c.gs, gs, sizeof gs);
        c.sc[0] = 1;
        c.sc[1] = 150.0f / 37;
        c.sc[2] = 20.0f / 29;
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        tu_make_strides(&rng, TU_TRANSPOSED, 3, c.gs, -1, c.gstr);
        tu_make_strides(&rng, TU_PADDED, 3, c.os, -1, c.ostr);
        check_gcase(&rng, &c, mode);
    }
}
END_TEST

static void report(void)
{
    printf("resample_grad1: %zu elements checked against the scatter, %zu not bit-identical\n",
           g_outputs, g_inexact);
}

/* ---- validation --------------------------------------------------------------------------- */

typedef struct {
    uint32_t gs[2], os[2], ostr[2];
    float sc[2], ipo[2], opo[2];
    dmlcl_tensor_desc g, o;
    dmlcl_resample_grad1_desc gd;
    dmlcl_operator_desc od;
} gfix;

static void gfix_init(gfix *f)
{
    memset(f, 0, sizeof *f);
    f->gs[0] = f->gs[1] = 4;
    f->os[0] = f->os[1] = 2;
    f->sc[0] = f->sc[1] = 2;
    memcpy(f->ipo, tu_pix_in, sizeof f->ipo);
    memcpy(f->opo, tu_pix_out, sizeof f->opo);
    f->g = (dmlcl_tensor_desc){F32, 2, f->gs, NULL, 0};
    f->o = (dmlcl_tensor_desc){F32, 2, f->os, NULL, 0};
    f->gd = (dmlcl_resample_grad1_desc){&f->g, &f->o, LINEAR, INC, 2, f->sc, f->ipo, f->opo};
    f->od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE_GRAD1, &f->gd};
}

static dmlcl_status gcreate(gfix *f)
{
    return tu_create_release(&f->od);
}

#define GBAD(f, needle) tu_assert_fails(gcreate(&(f)), DMLCL_INVALID_ARGUMENT, needle)

START_TEST(validation)
{
    gfix f;
    gfix_init(&f);
    tu_assert_ok(gcreate(&f));
    f.gd.input_gradient_tensor = NULL;
    GBAD(f, "resample_grad1: input_gradient_tensor is NULL");
    gfix_init(&f);
    f.gd.output_gradient_tensor = NULL;
    GBAD(f, "resample_grad1: output_gradient_tensor is NULL");
    gfix_init(&f);
    f.os[1] = 0;
    GBAD(f, "resample_grad1: output_gradient_tensor sizes[1] must be >= 1, got 0");
    gfix_init(&f);
    f.o.dimension_count = 1;
    GBAD(f, "resample_grad1: output_gradient_tensor dimension_count must equal "
            "input_gradient_tensor's (2), got 1");
    gfix_init(&f);
    f.gd.dimension_count = 3;
    GBAD(f, "resample_grad1: dimension_count must equal the tensors' dimension_count (2), got 3");
    gfix_init(&f);
    f.o.data_type = F16;
    GBAD(f, "resample_grad1: output_gradient_tensor data_type must equal "
            "input_gradient_tensor's (FLOAT32), got FLOAT16");
    gfix_init(&f);
    f.g.data_type = f.o.data_type = DMLCL_TENSOR_DATA_TYPE_INT32;
    f.gd.interpolation_mode = NEAREST; /* nearest too: the gradients are summed */
    GBAD(f, "resample_grad1: input_gradient_tensor data_type must be FLOAT32, FLOAT16, "
            "FLOAT64, INT8, UINT8, INT16 or UINT16, got INT32 (gradients are summed in float32, "
            "which holds 32-bit integers exactly only up to 2^24)");
    f.g.data_type = f.o.data_type = DMLCL_TENSOR_DATA_TYPE_UINT32;
    GBAD(f, "got UINT32 (gradients are summed in float32");
    f.g.data_type = f.o.data_type = DMLCL_TENSOR_DATA_TYPE_INT64;
    GBAD(f, "resample_grad1: input_gradient_tensor data_type must be FLOAT32, FLOAT16, "
            "FLOAT64, INT8, UINT8, INT16 or UINT16, got INT64");
    gfix_init(&f);
    f.gd.interpolation_mode = (dmlcl_interpolation_mode)2;
    GBAD(f, "resample_grad1: interpolation_mode must be 0 (NEAREST_NEIGHBOR) or 1 (LINEAR), "
            "got 2");
    gfix_init(&f);
    f.gd.rounding_direction = (dmlcl_axis_direction)7;
    GBAD(f, "resample_grad1: rounding_direction must be 0 (INCREASING) or 1 (DECREASING), got 7");
    gfix_init(&f);
    f.gd.scales = NULL;
    GBAD(f, "resample_grad1: scales is NULL (it needs 2 values)");
    gfix_init(&f);
    f.sc[1] = -2;
    GBAD(f, "resample_grad1: scales[1] must be finite and > 0, got -2");
    gfix_init(&f);
    f.gd.input_pixel_offsets = NULL;
    GBAD(f, "resample_grad1: input_pixel_offsets is NULL");
    gfix_init(&f);
    f.opo[0] = NAN;
    GBAD(f, "resample_grad1: output_pixel_offsets[0] must be finite, got nan");
    gfix_init(&f);
    f.ostr[0] = 0;
    f.ostr[1] = 1;
    f.o.strides = f.ostr;
    GBAD(f, "resample_grad1: output_gradient_tensor strides[0] is 0");
    /* FLOAT64 without cl_khr_fp64. */
    gfix_init(&f);
    f.g.data_type = f.o.data_type = F64;
    dmlcl__device_info *info = &tu_context()->info, saved = *info;
    info->has_fp64 = 0;
    tu_assert_fails(gcreate(&f), DMLCL_UNSUPPORTED,
                    "resample_grad1: data_type FLOAT64 needs cl_khr_fp64");
    *info = saved;
    /* Tap tables the device cannot hold are refused before the host allocates them: 4x4 ->
     * 2x2 needs at least 3 x 2 + 2 x 4 = 14 words (the second dimension shares the rows). */
    gfix_init(&f);
    info->max_mem_alloc = 40;
    tu_assert_fails(gcreate(&f), DMLCL_UNSUPPORTED,
                    "resample_grad1: the tap tables need at least 56 bytes, more than the "
                    "device's CL_DEVICE_MAX_MEM_ALLOC_SIZE (40)");
    /* An identity dimension costs no rows, however long (found without building any). */
    f.gs[1] = f.os[1] = 1000000;
    f.sc[1] = 1;
    info->max_mem_alloc = 72; /* the first dimension's table: 6 row words, 6 taps */
    tu_assert_ok(gcreate(&f));
    *info = saved;
    /* Bindings: the input gradient first. */
    gfix_init(&f);
    dmlcl_operator *op;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &f.od, &op));
    tu_devbuf a = tu_devbuf_new(64, 0, NULL), b = tu_devbuf_new(16, 0, NULL);
    dmlcl_buffer_binding in[1] = {{b.mem, b.offset, 16}}, out[1] = {{a.mem, a.offset, 0}};
    tu_assert_fails(dmlcl_operator_enqueue(op, in, 1, out, 1, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "resample_grad1: inputs[0] holds 16 bytes from "
                                            "offset 64, the tensor needs 64");
    dmlcl_operator_release(op);
    tu_devbuf_free(&a);
    tu_devbuf_free(&b);
}
END_TEST

/* Every library allocation of create + run + release fails in turn (the tap tables grow
 * by realloc): a clean DMLCL_OUT_OF_MEMORY or success, never a crash or a leak. */
uint64_t dmlcl_test_fail_alloc_after(uint64_t n);
int64_t dmlcl_test_live_allocations(void);

START_TEST(allocation_failures)
{
    const uint32_t gs[2] = {6, 40}, os[2] = {3, 20};
    const float sc[2] = {2, 2};
    float g[240], out[60];
    for (int k = 0; k < 240; k++)
        g[k] = (float)k;
    for (int kind = 0; kind < 2; kind++) { /* RESAMPLE_GRAD1, RESAMPLE3 antialiased */
        dmlcl_tensor_desc tg = {F32, 2, gs, NULL, 0}, to = {F32, 2, os, NULL, 0};
        dmlcl_resample_grad1_desc gd = {&tg, &to, LINEAR, INC, 2, sc, tu_pix_in, tu_pix_out};
        const float half[2] = {0.5f, 0.5f};
        dmlcl_resample3_desc r3 = {&tg, &to, LINEAR, INC, 2, half, tu_pix_in, tu_pix_out, 1};
        dmlcl_operator_desc od = {kind ? DMLCL_OPERATOR_RESAMPLE3 : DMLCL_OPERATOR_RESAMPLE_GRAD1,
                                  kind ? (const void *)&r3 : (const void *)&gd};
        uint64_t total = tu_alloc_failures(&od, g, out);
        ck_assert_uint_ge(total, 3); /* operator, plan, table */
    }
}
END_TEST

Suite *resample_grad1_suite(void)
{
    Suite *s = suite_create("resample_grad1");
    TCase *tc = tcase_create("resample_grad1");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, NULL, report);
    tcase_add_test(tc, directml_example);
    tcase_add_test(tc, linear_by_hand);
    tcase_add_test(tc, float_and_double_tables_apart);
    tcase_add_test(tc, int8_by_hand);
    tcase_add_test(tc, int16_by_hand);
    tcase_add_loop_test(tc, randomized_against_scatter, 0, 10);
    tcase_add_test(tc, int16_against_scatter);
    tcase_add_test(tc, larger_cases);
    tcase_add_test(tc, validation);
    tcase_add_test(tc, allocation_failures);
    suite_add_tcase(s, tc);
    return s;
}
