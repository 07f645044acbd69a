/* RESAMPLE1 and RESAMPLE (v0) as the spec states them: hand-worked cases (ties, the
 * pixel-centre example, the ONNX coordinate modes), then randomized cases against a plain
 * C float32 reference with guard bands, then every validation rule with its message.
 * Compile budget: every distinct build-options string is a JIT compile, so the randomized
 * cases are grouped by (data type, mode) and keep K (resampled dimensions) within 1..3;
 * K 4..8 and the 64-bit index kernels get one test each. */
#include "testutil.h"
#include "internal.h" /* white-box: device limits, to test the FLOAT64 and table-size rules */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dmlcl_test_resample_force_idx64(int on); /* test hooks exported by the library */
uint64_t dmlcl_test_fail_alloc_after(uint64_t n);
int64_t dmlcl_test_live_allocations(void);

#define F32 DMLCL_TENSOR_DATA_TYPE_FLOAT32
#define F16 DMLCL_TENSOR_DATA_TYPE_FLOAT16
#define F64 DMLCL_TENSOR_DATA_TYPE_FLOAT64
#define I8 DMLCL_TENSOR_DATA_TYPE_INT8
#define U8 DMLCL_TENSOR_DATA_TYPE_UINT8
#define NEAREST DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
#define LINEAR DMLCL_INTERPOLATION_MODE_LINEAR

static const float zeros[8] = {0};

/* ---- one case: descriptors, the C reference, the device run ------------------------------ */

typedef struct rcase {
    uint32_t rank, elem;
    int mode;
    dmlcl_tensor_data_type type;
    uint32_t in_sizes[8], out_sizes[8], in_str[8], out_str[8];
    float scales[8], ipo[8], opo[8];
    size_t in_off, out_off; /* extra element offsets of the bindings */
} rcase;

static double load(const rcase *c, const unsigned char *in, uint64_t off)
{
    const unsigned char *p = in + off * c->elem;
    switch (c->type) {
    case F32: { float v; memcpy(&v, p, 4); return v; }
    case F16: { uint16_t v; memcpy(&v, p, 2); return tu_half_to_float(v); }
    case F64: { double v; memcpy(&v, p, 8); return v; }
    case I8: return (double)*(const int8_t *)p;
    default: return (double)*p;
    }
}

static void store(const rcase *c, unsigned char *p, double v)
{
    switch (c->type) {
    case F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case F16: { uint16_t h = tu_float_to_half((float)v); memcpy(p, &h, 2); break; }
    case F64: memcpy(p, &v, 8); break;
    case I8: { /* round half to even, saturate */
        float r = rintf((float)v);
        *(int8_t *)p = (int8_t)(r < -128 ? -128 : r > 127 ? 127 : r);
        break;
    }
    default: {
        float r = rintf((float)v);
        *p = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        break;
    }
    }
}

/* The spec's formula for one output element, written out plainly. */
static void reference_element(const rcase *c, const unsigned char *in, const uint32_t *o,
                              unsigned char *dst)
{
    uint64_t i0[8], i1[8];
    float w[8];
    for (uint32_t d = 0; d < c->rank; d++) {
        float x = ((float)o[d] - c->opo[d]) / c->scales[d] - c->ipo[d];
        float top = (float)(c->in_sizes[d] - 1);
        if (c->mode == NEAREST) {
            float f = floorf(x + 0.5f);
            i0[d] = f < 0 ? 0 : f > top ? c->in_sizes[d] - 1 : (uint64_t)f;
        } else {
            x = fminf(fmaxf(x, 0), top);
            i0[d] = (uint64_t)floorf(x);
            i1[d] = i0[d] + 1 < c->in_sizes[d] ? i0[d] + 1 : c->in_sizes[d] - 1;
            w[d] = x - floorf(x);
        }
    }
    if (c->mode == NEAREST) {
        uint64_t off = 0;
        for (uint32_t d = 0; d < c->rank; d++)
            off += i0[d] * c->in_str[d];
        memcpy(dst, in + off * c->elem, c->elem);
        return;
    }
    /* Corners with the first dimension as the most significant bit; weight = product in
     * dimension order; corners of weight 0 add nothing (dmlcl does not read them). */
    float accf = 0;
    double accd = 0;
    for (uint32_t k = 0; k < (1u << c->rank); k++) {
        float wf = 1;
        double wd = 1;
        uint64_t off = 0;
        for (uint32_t d = 0; d < c->rank; d++) {
            int bit = (k >> (c->rank - 1 - d)) & 1;
            wf = wf * (bit ? w[d] : 1.0f - w[d]);
            wd = wd * (bit ? (double)w[d] : 1.0 - (double)w[d]);
            off += (bit ? i1[d] : i0[d]) * c->in_str[d];
        }
        if (c->type == F64 && wd != 0)
            accd = accd + wd * load(c, in, off);
        else if (c->type != F64 && wf != 0)
            accf = accf + wf * (float)load(c, in, off);
    }
    store(c, dst, c->type == F64 ? accd : (double)accf);
}

/* Largest allowed difference from the reference (nearest: none, bit for bit). */
static int close_enough(const rcase *c, const unsigned char *got, const unsigned char *want,
                        int *bit_exact)
{
    *bit_exact = !memcmp(got, want, c->elem);
    if (*bit_exact)
        return 1;
    if (c->mode == NEAREST)
        return 0;
    double g = load(c, got, 0), r = load(c, want, 0), diff = fabs(g - r);
    switch (c->type) {
    case F32: return diff <= 2 * (nextafterf(fabsf((float)r), INFINITY) - fabsf((float)r)) + 1e-6;
    case F16: return diff <= fabs(r) / 1024 + 1e-6; /* one FLOAT16 ulp */
    case F64: return diff <= fabs(r) * 1e-12 + 1e-12;
    default: return diff <= 1; /* a float sum within 2 ulp can round to the other side */
    }
}

static void descs(const rcase *c, dmlcl_tensor_desc *ti, dmlcl_tensor_desc *to)
{
    *ti = (dmlcl_tensor_desc){c->type, c->rank, c->in_sizes, c->in_str, 0};
    *to = (dmlcl_tensor_desc){c->type, c->rank, c->out_sizes, c->out_str, 0};
}

static dmlcl_operator *make_op(const rcase *c, int v0)
{
    dmlcl_tensor_desc ti, to;
    descs(c, &ti, &to);
    dmlcl_resample1_desc r1 = {&ti, &to, (dmlcl_interpolation_mode)c->mode, c->rank,
                               c->scales, c->ipo, c->opo};
    dmlcl_resample_desc r0 = {&ti, &to, (dmlcl_interpolation_mode)c->mode, c->rank, c->scales};
    dmlcl_operator_desc od = {v0 ? DMLCL_OPERATOR_RESAMPLE : DMLCL_OPERATOR_RESAMPLE1,
                              v0 ? (const void *)&r0 : (const void *)&r1};
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_operator_create(tu_context(), &od, &op);
    ck_assert_msg(st == DMLCL_SUCCESS, "create: %s", dmlcl_last_error());
    return op;
}

static size_t case_outputs, case_inexact; /* linear outputs not bit-identical to the reference */

/* Runs a case through dmlcl_operator_enqueue with guard-banded, offset bindings; returns
 * the whole output buffer (guards included) and checks every byte of it. */
static unsigned char *run_case(const rcase *c, const unsigned char *in, int v0, const char *what,
                               size_t *bytes)
{
    size_t in_span = tu_span(c->rank, c->in_sizes, c->in_str);
    size_t out_span = tu_span(c->rank, c->out_sizes, c->out_str);
    dmlcl_operator *op = make_op(c, v0);
    tu_devbuf bi = tu_devbuf_new(in_span * c->elem, c->in_off * c->elem, in);
    tu_devbuf bo = tu_devbuf_new(out_span * c->elem, c->out_off * c->elem, NULL);
    dmlcl_buffer_binding ins[1] = {{bi.mem, bi.offset, 0}};
    dmlcl_buffer_binding outs[1] = {{bo.mem, bo.offset, out_span * c->elem}};
    dmlcl_status st = dmlcl_operator_enqueue(op, ins, 1, outs, 1, 0, NULL, NULL);
    ck_assert_msg(st == DMLCL_SUCCESS, "%s: %s", what, dmlcl_last_error());
    unsigned char *got = malloc(bo.bytes), *want = malloc(bo.bytes), *elem = calloc(bo.bytes, 1);
    tu_devbuf_read(&bo, got);
    memset(want, TU_FILL, bo.bytes);
    uint32_t o[8] = {0};
    do {
        size_t at = bo.offset + tu_offset(c->rank, o, c->out_str) * c->elem;
        reference_element(c, in, o, want + at);
        memset(elem + at, 1, c->elem);
        int exact;
        ck_assert_msg(close_enough(c, got + at, want + at, &exact),
                      "%s (rank %u, %s, type %d, plan %s): output at byte %zu is %g, the "
                      "reference %g", what, c->rank, c->mode ? "linear" : "nearest", c->type,
                      dmlcl_operator_plan(op), at - bo.offset, load(c, got + at, 0),
                      load(c, want + at, 0));
        case_outputs++;
        case_inexact += !exact;
    } while (tu_next_index(c->rank, c->out_sizes, o));
    for (size_t k = 0; k < bo.bytes; k++)
        ck_assert_msg(elem[k] || got[k] == TU_FILL,
                      "%s (plan %s): byte %zu outside the tensor changed to 0x%02x", what,
                      dmlcl_operator_plan(op), k, got[k]);
    dmlcl_operator_release(op);
    tu_devbuf_free(&bi);
    tu_devbuf_free(&bo);
    free(want);
    free(elem);
    *bytes = bo.bytes;
    return got;
}

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
    run_f32(1, is3, os9, NEAREST, s3, zeros, off_out, in3, out);
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

/* The README's table: ONNX Resize coordinate_transformation_mode as scales and offsets. */
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
    run_f32(1, is, os, LINEAR, sc, zeros, zeros, in, out);
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
    run_f32(1, is, os, LINEAR, sc, zeros, zeros, in, out);
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
    run_f32(1, is, os, NEAREST, sc, zeros, opo, in, out);
    expect_f32(out, want, 6, "tf_half_pixel_for_nn");
}
END_TEST

/* FLOAT16 computes in float and rounds once; 8-bit linear rounds half to even. */
START_TEST(float16_and_8_bit_rounding)
{
    const uint32_t is[2] = {5, 2}, os[2] = {5, 3};
    const float sc[2] = {1, 2}; /* dimension 1: x = o / 2, midpoints at o = 1 */
    dmlcl_tensor_desc ti = {I8, 2, is, NULL, 0}, to = {I8, 2, os, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 2, sc, zeros, zeros};
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

/* Nearest moves bits (NaN payloads, -0); linear never reads a corner of weight 0. */
START_TEST(special_values)
{
    const uint32_t is[1] = {3}, os[1] = {5};
    const float sc[1] = {2}; /* x = o / 2 (offsets 0): outputs 0, 2, 4 land on inputs */
    float in[3] = {1, INFINITY, 3}, out[5];
    run_f32(1, is, os, LINEAR, sc, zeros, zeros, in, out);
    ck_assert(out[0] == 1 && isinf(out[2]) && out[4] == 3);
    ck_assert(isinf(out[1]) && isinf(out[3]));
    uint32_t nan_bits = 0x7fc12345u, negz = 0x80000000u, got[5];
    memcpy(&in[0], &nan_bits, 4);
    memcpy(&in[2], &negz, 4);
    run_f32(1, is, os, NEAREST, sc, zeros, zeros, in, (float *)got);
    ck_assert_uint_eq(got[0], nan_bits); /* x = 0 */
    ck_assert_uint_eq(got[4], negz);     /* x = 2 */
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

/* ---- randomized cases against the reference ---------------------------------------------- */

static const dmlcl_tensor_data_type all_types[5] = {F32, F16, F64, I8, U8};

/* Sizes: at most a few hundred elements whatever the rank. */
static uint32_t size_cap(uint32_t rank)
{
    return rank <= 2 ? 20 : rank == 3 ? 8 : rank <= 5 ? 4 : 3;
}

static float random_scale(uint64_t *rng, uint32_t n_in, uint32_t n_out)
{
    switch (tu_range(rng, 0, 6)) {
    case 0: case 1: return (float)n_out / (float)n_in;
    case 2: return 1;
    case 3: return FLT_MAX;
    case 4: return (float)tu_range(rng, 2, 3);
    case 5: return 1.0f / (float)tu_range(rng, 2, 3);
    default: return 0.2f + (float)tu_range(rng, 0, 1000) / 300.0f; /* non-integer */
    }
}

/* Offset families: 0 pixel-centre (0.5/-0.5), 1 zero (0/0), 2 mixed per dimension. */
static void random_offsets(uint64_t *rng, int family, float *ip, float *op)
{
    int f = family < 2 ? family : (int)tu_range(rng, 0, 3);
    switch (f) {
    case 0: *ip = 0.5f, *op = -0.5f; break;
    case 1: *ip = 0, *op = 0; break;
    case 2: *ip = 0, *op = -0.5f; break;
    default:
        *ip = (float)tu_range(rng, 0, 12) / 4 - 1.5f;
        *op = (float)tu_range(rng, 0, 12) / 4 - 1.5f;
    }
}

static void random_layout(uint64_t *rng, uint32_t rank, const uint32_t *sizes, int is_input,
                          uint32_t *strides)
{
    uint32_t pick = (uint32_t)tu_range(rng, 0, is_input ? 4 : 3);
    if (pick == 4 || (pick == 3 && !is_input)) { /* channels-last */
        if (rank >= 3) {
            tu_channels_last(rank, sizes, strides);
            return;
        }
        pick = TU_TRANSPOSED;
    }
    tu_make_strides(rng, (tu_layout)pick, rank, sizes, -1, strides);
}

/* A random case with `res` resampled-looking dimensions; the others are pass-through
 * kinds (identity with cancelling offsets, or input size 1), so a LINEAR case compiles
 * the kernel for K <= res. */
static rcase random_case(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type, int mode,
                         uint32_t res)
{
    rcase c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.type = type;
    c.mode = mode;
    c.elem = dmlcl_data_type_size(type);
    int family = (int)tu_range(rng, 0, 2);
    uint32_t cap = size_cap(rank), is_res[8] = {0};
    for (uint32_t k = 0; k < res; k++)
        is_res[tu_range(rng, 0, rank - 1)] = 1;
    for (uint32_t d = 0; d < rank; d++) {
        c.in_sizes[d] = (uint32_t)tu_range(rng, 1, cap);
        if (is_res[d]) {
            c.out_sizes[d] = (uint32_t)tu_range(rng, 1, cap);
            c.scales[d] = random_scale(rng, c.in_sizes[d], c.out_sizes[d]);
            random_offsets(rng, family, &c.ipo[d], &c.opo[d]);
        } else if (tu_range(rng, 0, 3) == 0) { /* input size 1: every output reads it */
            c.in_sizes[d] = 1;
            c.out_sizes[d] = (uint32_t)tu_range(rng, 1, cap);
            c.scales[d] = random_scale(rng, 1, c.out_sizes[d]);
            random_offsets(rng, family, &c.ipo[d], &c.opo[d]);
        } else { /* identity */
            c.out_sizes[d] = c.in_sizes[d];
            c.scales[d] = 1;
            float a = family == 0 ? 0.5f : family == 1 ? 0 : (float)tu_range(rng, 0, 4) / 4;
            c.ipo[d] = a;
            c.opo[d] = -a;
        }
    }
    random_layout(rng, rank, c.in_sizes, 1, c.in_str);
    random_layout(rng, rank, c.out_sizes, 0, c.out_str);
    c.in_off = tu_range(rng, 0, 3);
    c.out_off = tu_range(rng, 0, 3);
    return c;
}

static unsigned char *random_input(uint64_t *rng, const rcase *c, size_t *bytes)
{
    size_t n = tu_span(c->rank, c->in_sizes, c->in_str);
    unsigned char *in = malloc(n * c->elem);
    for (size_t k = 0; k < n; k++) {
        double v = (double)tu_range(rng, 0, 2000000) / 10000.0 - 100; /* [-100, 100] */
        switch (c->type) {
        case I8: v = (double)((int)tu_range(rng, 0, 255) - 128); break;
        case U8: v = (double)tu_range(rng, 0, 255); break;
        default: break;
        }
        store(c, in + k * c->elem, v);
    }
    *bytes = n * c->elem;
    return in;
}

static void check_random(uint64_t *rng, const rcase *c, int n)
{
    size_t in_bytes, out_bytes;
    unsigned char *in = random_input(rng, c, &in_bytes);
    char what[64];
    snprintf(what, sizeof what, "case %d", n);
    free(run_case(c, in, 0, what, &out_bytes));
    free(in);
}

/* Each (type, mode) pair: ranks 1..8, five cases each, K within 1..3. */
START_TEST(randomized_against_reference)
{
    dmlcl_tensor_data_type type = all_types[_i / 2];
    int mode = _i % 2;
    uint64_t rng = 0x7e5a0000u + (uint64_t)_i;
    int n = 0;
    for (uint32_t rank = 1; rank <= 8; rank++)
        for (int rep = 0; rep < 5; rep++, n++) {
            uint32_t res = (uint32_t)tu_range(&rng, 1, rank < 3 ? rank : 3);
            rcase c = random_case(&rng, rank, type, mode, res);
            check_random(&rng, &c, n);
        }
}
END_TEST

/* 4..8 resampled dimensions (16..256 corners), FLOAT32. */
START_TEST(many_resampled_dimensions)
{
    uint64_t rng = 0x8a11;
    for (uint32_t k = 4; k <= 8; k++) {
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
        random_layout(&rng, 8, c.in_sizes, 1, c.in_str);
        random_layout(&rng, 8, c.out_sizes, 0, c.out_str);
        check_random(&rng, &c, (int)k);
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
        check_random(&rng, &c, mode);
    }
}
END_TEST

/* Units along a pass-through inner run (channels-last input and output), forced with
 * $DMLCL_RESAMPLE_PLAN: a unit's inputs come as one vector load per corner where the run,
 * the strides and the binding offset are aligned (C = 8 and 16), and element by element
 * where not (C = 6, a binding offset of one element). Every data type, both modes. */
START_TEST(channels_last_vector_loads)
{
    static const char *const plans[] = {"rows=0,seg=0,v=4", "rows=0,seg=0,v=8"};
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8, I8, F64};
    static const uint32_t channels[] = {8, 16, 6};
    uint64_t rng = 0xc1a5;
    for (int n = 0; n < 20; n++) {
        const dmlcl_tensor_data_type t = types[n % 5];
        if (t == F64 && !tu_context()->info.has_fp64)
            continue;
        setenv("DMLCL_RESAMPLE_PLAN", plans[n % 2], 1);
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = 4;
        c.type = t;
        c.mode = n % 4 < 2 ? LINEAR : NEAREST;
        c.elem = dmlcl_data_type_size(t);
        const uint32_t ch = channels[n % 3];
        const uint32_t is[4] = {2, ch, 5, 6}, os[4] = {2, ch, 10, 9};
        memcpy(c.in_sizes, is, sizeof is);
        memcpy(c.out_sizes, os, sizeof os);
        for (int d = 0; d < 4; d++)
            c.scales[d] = (float)os[d] / (float)is[d];
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        tu_channels_last(4, c.in_sizes, c.in_str);
        tu_channels_last(4, c.out_sizes, c.out_str);
        c.in_off = n == 7 ? 1 : 0;
        dmlcl_operator *op = make_op(&c, 0);
        ck_assert_msg(strstr(dmlcl_operator_plan(op), "inner=p") != NULL, "%s",
                      dmlcl_operator_plan(op));
        dmlcl_operator_release(op);
        check_random(&rng, &c, n);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The CPU row blocks (kernels/resample1_cpu_rows.cl), forced with cpu=3 (3 rows per item,
 * so items split the rows and pair some; rows=0,seg=256 so that GPUs plan them too; every
 * other case with non-temporal stores, nt=1, on its 64-byte aligned rows): the vector path
 * where a row's vectors follow one pattern (2x, 4x, align-corners and asymmetric 2x,
 * whose even outputs have weight 0; 0.5x and 0.75x from a window of two vectors),
 * output by output where not (0.3x; 1.5x in two vectors of three) and at the rows' ends (rows of 80, 600: partial vectors and blocks),
 * 1 to 3 resampled dimensions, channels-last runs of 8, 16, 6 and 12 channels, both
 * modes, odd binding offsets; the data types in turn (each case is a program: POCL
 * compiles for a second or so). LINEAR is bit-identical to the reference, like the
 * other kernels. */
START_TEST(cpu_row_blocks)
{
    static const struct {
        uint32_t rank, in[5], out[5];
        int mode, channels_last, offsets; /* offsets: 0 pixel centre, 1 align corners, 2 zero */
        const char *want;
    } cases[] = {
        {4, {1, 2, 5, 40}, {1, 2, 10, 80}, LINEAR, 0, 0, "-DCR_PL2=0x8776655443322110ul"},
        {4, {1, 2, 5, 40}, {1, 2, 10, 80}, NEAREST, 0, 0, "-DCR_PL=0x7766554433221100ul"},
        {4, {2, 1, 3, 300}, {2, 1, 7, 600}, LINEAR, 0, 0, "-DCR_PL="},
        {4, {1, 2, 4, 40}, {1, 2, 8, 160}, LINEAR, 0, 0, "-DCR_PL="},
        {4, {1, 2, 4, 40}, {1, 2, 8, 160}, NEAREST, 0, 0, "-DCR_PL="},
        {4, {1, 2, 5, 33}, {1, 2, 9, 65}, LINEAR, 0, 1, "-DCR_PL="},
        {4, {1, 2, 5, 40}, {1, 2, 10, 80}, LINEAR, 0, 2, "-DCR_PL="},
        {4, {1, 2, 6, 100}, {1, 2, 9, 150}, LINEAR, 0, 0, "-DCR_PL="}, /* 1 vector in 3 */
        {4, {1, 2, 6, 130}, {1, 2, 3, 65}, LINEAR, 0, 0, "-DCR_PLH=0xff00 -DCR_PUH=0xff00"},
        {4, {1, 2, 6, 130}, {1, 2, 3, 97}, NEAREST, 0, 0, "-DCR_PLH="},
        {4, {1, 2, 6, 130}, {1, 2, 3, 39}, LINEAR, 0, 0, NULL},
        {3, {3, 5, 40}, {3, 5, 80}, LINEAR, 0, 0, "-DCR_PL="},
        {5, {1, 2, 3, 4, 40}, {1, 2, 6, 8, 80}, LINEAR, 0, 0, "-DCR_PL="},
        {4, {1, 8, 5, 7}, {1, 8, 10, 14}, LINEAR, 1, 0, "INNER_RES=0"},
        {4, {1, 16, 5, 7}, {1, 16, 9, 20}, LINEAR, 1, 0, "INNER_RES=0"},
        {4, {2, 6, 5, 7}, {2, 6, 10, 14}, LINEAR, 1, 0, "INNER_RES=0"},
        {4, {1, 12, 3, 9}, {1, 12, 6, 6}, NEAREST, 1, 0, "INNER_RES=0"},
        {4, {1, 8, 5, 7}, {1, 8, 10, 14}, NEAREST, 1, 0, "INNER_RES=0"},
    };
    static const dmlcl_tensor_data_type types[] = {F32, F16, I8, U8, F64};
    uint64_t rng = 0xc9b1;
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        setenv("DMLCL_RESAMPLE_PLAN", n % 2 ? "rows=0,seg=256,cpu=3,nt=1" : "rows=0,seg=256,cpu=3",
               1);
        int t = (int)(n % 5);
        if (types[t] == F64 && !tu_context()->info.has_fp64)
            t = 0;
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = cases[n].rank;
        c.type = types[t];
        c.mode = cases[n].mode;
        c.elem = dmlcl_data_type_size(c.type);
        memcpy(c.in_sizes, cases[n].in, sizeof cases[n].in);
        memcpy(c.out_sizes, cases[n].out, sizeof cases[n].out);
        for (uint32_t d = 0; d < c.rank; d++) {
            const float i = (float)c.in_sizes[d], o = (float)c.out_sizes[d];
            c.scales[d] = cases[n].offsets == 1 && i > 1 ? (o - 1) / (i - 1) : o / i;
            c.ipo[d] = cases[n].offsets ? 0 : tu_pix_in[d];
            c.opo[d] = cases[n].offsets ? 0 : tu_pix_out[d];
        }
        if (cases[n].channels_last) {
            tu_channels_last(c.rank, c.in_sizes, c.in_str);
            tu_channels_last(c.rank, c.out_sizes, c.out_str);
        } else {
            tu_make_strides(&rng, TU_PACKED, c.rank, c.in_sizes, -1, c.in_str);
            tu_make_strides(&rng, TU_PACKED, c.rank, c.out_sizes, -1, c.out_str);
        }
        c.in_off = (size_t)(n + t) % 3;
        c.out_off = (size_t)t % 2;
        dmlcl_operator *op = make_op(&c, 0);
        const char *plan = dmlcl_operator_plan(op);
        ck_assert_msg(strstr(plan, "-cpu-rows") != NULL, "case %zu: %s", n, plan);
        if (cases[n].want)
            ck_assert_msg(strstr(plan, cases[n].want) != NULL, "case %zu: %s", n, plan);
        else
            ck_assert_msg(strstr(plan, "-DCR_PL") == NULL, "case %zu: %s", n, plan);
        dmlcl_operator_release(op);
        const size_t inexact = case_inexact;
        check_random(&rng, &c, (int)n);
        ck_assert_msg(case_inexact == inexact, "case %zu, type %d: %zu outputs not "
                      "bit-identical", n, t, case_inexact - inexact);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* every_launch_shape's override must not outlive it, even when a check fails midway. */
static void forget_plan_override(void)
{
    unsetenv("DMLCL_RESAMPLE_PLAN");
}

/* Every launch shape the planner can pick on any device, forced here through
 * $DMLCL_RESAMPLE_PLAN on the test device: the 2-D row kernels (GPUs' choice),
 * units of an odd size with partial units at every row's end, and the segment kernels
 * (CPUs' choice for nearest) with segments of 7 and 64. Rows of 100 and 33
 * outputs (not multiples of 4), a padded output with an odd binding offset (no vector
 * stores there) and a channels-last input. */
START_TEST(every_launch_shape)
{
    static const char *const plans[] = {"rows=1", "rows=1,wg=32,win=1", "v=3,wg=32",
                                        "rows=0,seg=0,v=4", "seg=7", "seg=64,wg=32"};
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8};
    uint64_t rng = 0x5a9e;
    for (size_t pl = 0; pl < sizeof plans / sizeof plans[0]; pl++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[pl], 1);
        for (int n = 0; n < 6; n++) {
            rcase c;
            memset(&c, 0, sizeof c);
            c.rank = 3;
            c.type = types[n % 3];
            c.mode = n < 3 ? LINEAR : NEAREST;
            c.elem = c.type == F32 ? 4 : c.type == F16 ? 2 : 1;
            const uint32_t is[3] = {2, 23, 47}, os[3] = {2, 40, n % 2 ? 100 : 33};
            memcpy(c.in_sizes, is, sizeof is);
            memcpy(c.out_sizes, os, sizeof os);
            c.scales[0] = 1;
            c.scales[1] = 40.0f / 23;
            c.scales[2] = (float)os[2] / 47;
            memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
            memcpy(c.opo, tu_pix_out, sizeof c.opo);
            if (n % 2)
                tu_channels_last(3, c.in_sizes, c.in_str);
            else
                tu_make_strides(&rng, TU_PACKED, 3, c.in_sizes, -1, c.in_str);
            tu_make_strides(&rng, n == 2 ? TU_PADDED : TU_PACKED, 3, c.out_sizes, -1,
                            c.out_str);
            c.out_off = n == 2 ? 1 : 0;
            if (pl < 2 && os[2] >= 64) {
                dmlcl_operator *op = make_op(&c, 0);
                ck_assert_msg(strstr(dmlcl_operator_plan(op), "-rows") != NULL, "%s: %s",
                              plans[pl], dmlcl_operator_plan(op));
                dmlcl_operator_release(op);
            }
            check_random(&rng, &c, n);
        }
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The row kernels' window (rows=1 forces them here), pixel-centre LINEAR: upsampling by 2
 * and 4 along the inner dimension, a volume, the inner dimension first among the
 * resampled ones (transposed output), a pass-through dimension between the resampled
 * ones (its index split off first: PASS_INNER), one resampled dimension only; output rows
 * in pairs sharing their window (H upsampled by 2 and by 4), and without; by 1.5 no window unless forced with win=1, where
 * only some items fit and the others take the corner path in the same launch. */
START_TEST(row_windows)
{
    static const struct {
        uint32_t rank, in[5], out[5];
        int transposed;
        const char *plan, *want;
    } cases[] = {
        {4, {1, 2, 9, 40}, {1, 2, 18, 80}, 0, "rows=1", "-DWPAT=0x2110 -DWIN=4 -DPAIR_K=0"},
        {4, {1, 2, 9, 40}, {1, 2, 18, 80}, 0, "rows=1,pair=0", "-DWIN=4'"},
        {4, {1, 2, 7, 40}, {1, 2, 28, 80}, 0, "rows=1", "-DPAIR_K=0"},
        {4, {1, 1, 5, 17}, {1, 1, 20, 68}, 0, "rows=1", "-DWPAT=0x1100 -DWIN=3"},
        {5, {1, 2, 5, 6, 40}, {1, 2, 10, 12, 80}, 0, "rows=1", "-DWPAT=0x2110 -DWIN=4"},
        {3, {2, 40, 30}, {2, 80, 60}, 1, "rows=1", "-DINNER_K=0"},
        {4, {2, 9, 3, 40}, {2, 18, 3, 80}, 0, "rows=1", "-DPASS_INNER=1 -DWPAT=0x2110"},
        {3, {4, 6, 40}, {4, 6, 80}, 0, "rows=1", "-DWPAT=0x2110 -DWIN=4"},
        {4, {1, 2, 9, 50}, {1, 2, 18, 75}, 0, "rows=1,win=1", "-DWIN="},
        {4, {1, 2, 9, 50}, {1, 2, 18, 75}, 0, "rows=1", NULL},
    };
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8};
    uint64_t rng = 0x3d1;
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        setenv("DMLCL_RESAMPLE_PLAN", cases[n].plan, 1);
        for (int t = 0; t < 3; t++) {
            rcase c;
            memset(&c, 0, sizeof c);
            c.rank = cases[n].rank;
            c.type = types[t];
            c.mode = LINEAR;
            c.elem = c.type == F32 ? 4 : c.type == F16 ? 2 : 1;
            memcpy(c.in_sizes, cases[n].in, sizeof cases[n].in);
            memcpy(c.out_sizes, cases[n].out, sizeof cases[n].out);
            for (uint32_t d = 0; d < c.rank; d++)
                c.scales[d] = (float)c.out_sizes[d] / (float)c.in_sizes[d];
            memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
            memcpy(c.opo, tu_pix_out, sizeof c.opo);
            tu_make_strides(&rng, TU_PACKED, c.rank, c.in_sizes, -1, c.in_str);
            tu_make_strides(&rng, TU_PACKED, c.rank, c.out_sizes, -1, c.out_str);
            if (cases[n].transposed) { /* the output steps through dimension 1 fastest */
                c.out_str[1] = 1;
                c.out_str[2] = c.out_sizes[1];
            }
            dmlcl_operator *op = make_op(&c, 0);
            const char *plan = dmlcl_operator_plan(op);
            ck_assert_msg(strstr(plan, "linear-rows") != NULL, "case %zu: %s", n, plan);
            if (cases[n].want)
                ck_assert_msg(strstr(plan, cases[n].want) != NULL, "case %zu: %s", n, plan);
            else
                ck_assert_msg(strstr(plan, "-DWIN") == NULL, "case %zu: %s", n, plan);
            dmlcl_operator_release(op);
            check_random(&rng, &c, (int)n);
        }
    }
    /* The keys' ranges: a bad value is refused at creation, with the keys it takes. */
    static const char *const bad[] = {"win=2", "pair=2", "gpc=0", "gpc=4097"};
    rcase c;
    memset(&c, 0, sizeof c);
    c.rank = 2, c.type = F32, c.mode = LINEAR, c.elem = 4;
    c.in_sizes[0] = c.in_sizes[1] = 2;
    c.out_sizes[0] = c.out_sizes[1] = 4;
    c.scales[0] = c.scales[1] = 2;
    tu_make_strides(&rng, TU_PACKED, 2, c.in_sizes, -1, c.in_str);
    tu_make_strides(&rng, TU_PACKED, 2, c.out_sizes, -1, c.out_str);
    for (size_t n = 0; n < sizeof bad / sizeof bad[0]; n++) {
        setenv("DMLCL_RESAMPLE_PLAN", bad[n], 1);
        dmlcl_tensor_desc ti, to;
        descs(&c, &ti, &to);
        dmlcl_resample1_desc r1 = {&ti, &to, LINEAR, 2, c.scales, c.ipo, c.opo};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
        dmlcl_operator *op = NULL;
        tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                        "resample1: DMLCL_RESAMPLE_PLAN must be key=value pairs (v=1..64, "
                        "wg=1..4096, rows=0|1, seg=0..65536, win=0|1, pair=0|1, gpc=1..4096, "
                        "cpu=0..65536, nt=0|1)");
        ck_assert_ptr_null(op);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The 64-bit index kernels (forced: real 2^32-element tensors do not fit a test). */
START_TEST(index64_kernels)
{
    uint64_t rng = 0x64;
    dmlcl_test_resample_force_idx64(1);
    rcase probe = random_case(&rng, 2, F32, LINEAR, 1);
    dmlcl_operator *op = make_op(&probe, 0);
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "-DIDX64=1"));
    dmlcl_operator_release(op);
    for (int n = 0; n < 6; n++) {
        rcase c = random_case(&rng, (uint32_t)tu_range(&rng, 2, 5), n < 3 ? F16 : F32,
                              n % 2 ? LINEAR : NEAREST, 2);
        check_random(&rng, &c, n);
    }
    dmlcl_test_resample_force_idx64(0);
}
END_TEST

/* DirectML's v0 equals RESAMPLE1 with offsets 0.5 / -0.5, bit for bit. */
START_TEST(resample_v0_equals_resample1)
{
    uint64_t rng = 0x7e50;
    for (int n = 0; n < 12; n++) {
        rcase c = random_case(&rng, (uint32_t)tu_range(&rng, 1, 4), all_types[n % 5],
                              n % 2 ? LINEAR : NEAREST, 2);
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        size_t in_bytes, b0, b1;
        unsigned char *in = random_input(&rng, &c, &in_bytes);
        unsigned char *o1 = run_case(&c, in, 0, "RESAMPLE1", &b1);
        unsigned char *o0 = run_case(&c, in, 1, "RESAMPLE", &b0);
        ck_assert_uint_eq(b0, b1);
        ck_assert_msg(!memcmp(o0, o1, b0), "case %d: RESAMPLE and RESAMPLE1 differ", n);
        free(in), free(o0), free(o1);
    }
}
END_TEST

static void report_exactness(void)
{
    printf("resample1: %zu outputs checked against the C reference, %zu not bit-identical\n",
           case_outputs, case_inexact);
}

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
    dmlcl_operator *op = (dmlcl_operator *)1; /* must come back NULL on failure */
    dmlcl_status st = dmlcl_operator_create(tu_context(), &f->od, &op);
    if (st == DMLCL_SUCCESS)
        dmlcl_operator_release(op);
    else
        ck_assert_ptr_null(op);
    return st;
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
    f.in.data_type = f.out.data_type = DMLCL_TENSOR_DATA_TYPE_INT32;
    BAD(f, "resample1: input_tensor data_type must be FLOAT32, FLOAT16, FLOAT64, INT8 or UINT8, "
           "got INT32");
    vfix_init(&f, 0);
    f.in.data_type = f.out.data_type = DMLCL_TENSOR_DATA_TYPE_UINT16;
    BAD(f, "got UINT16");
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
    f.in.data_type = f.out.data_type = DMLCL_TENSOR_DATA_TYPE_INT16;
    BAD(f, "resample: input_tensor data_type must be FLOAT32, FLOAT16, FLOAT64, INT8 or UINT8");
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
    tcase_add_test(tc, special_values);
    tcase_add_test(tc, resample_v0_is_pixel_centre);
    tcase_add_test(tc, plan_names_the_variant);
    suite_add_tcase(s, tc);
    tc = tcase_create("randomized");
    tcase_add_checked_fixture(tc, NULL, forget_plan_override);
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, NULL, report_exactness);
    tcase_add_loop_test(tc, randomized_against_reference, 0, 10);
    tcase_add_test(tc, many_resampled_dimensions);
    tcase_add_test(tc, larger_images);
    tcase_add_test(tc, every_launch_shape);
    tcase_add_test(tc, row_windows);
    tcase_add_test(tc, channels_last_vector_loads);
    tcase_add_test(tc, cpu_row_blocks);
    tcase_add_test(tc, index64_kernels);
    tcase_add_test(tc, resample_v0_equals_resample1);
    suite_add_tcase(s, tc);
    tc = tcase_create("validation");
    tcase_add_test(tc, validation_tensors_and_types);
    tcase_add_test(tc, validation_arrays);
    tcase_add_test(tc, validation_v0);
    tcase_add_test(tc, validation_bindings);
    tcase_add_test(tc, validation_device_limits);
    tcase_add_test(tc, allocation_failures);
    suite_add_tcase(s, tc);
    return s;
}
