/* RESAMPLE_GRAD1: DirectML's example, hand-worked linear and 8-bit cases, randomized cases
 * (ranks 1-8, both modes and directions, FLOAT32/FLOAT16/FLOAT64/INT8/UINT8, strided and
 * broadcast layouts, guard bands) against a plain C scatter of the forward pass's weights,
 * and every validation rule. Compiles: the tap kernel once per data type (the 8-bit ones
 * are RESAMPLE3's programs too). */
#include "testutil.h"
#include "core/context.h" /* white-box: device limits for the FLOAT64 rule */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F32 DMLCL_TENSOR_DATA_TYPE_FLOAT32
#define F16 DMLCL_TENSOR_DATA_TYPE_FLOAT16
#define F64 DMLCL_TENSOR_DATA_TYPE_FLOAT64
#define I8 DMLCL_TENSOR_DATA_TYPE_INT8
#define U8 DMLCL_TENSOR_DATA_TYPE_UINT8
#define NEAREST DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
#define LINEAR DMLCL_INTERPOLATION_MODE_LINEAR
#define INC DMLCL_AXIS_DIRECTION_INCREASING
#define DEC DMLCL_AXIS_DIRECTION_DECREASING

void dmlcl_test_resample_force_idx64(int on); /* test hook exported by the library */


/* Packed arrays of type t through execute_host. */
static void grad_host(dmlcl_tensor_data_type t, uint32_t rank, const uint32_t *gs,
                      const uint32_t *os, int mode, int dir, const float *sc, const float *ipo,
                      const float *opo, const void *g, void *out)
{
    dmlcl_tensor_desc tg = {t, rank, gs, NULL, 0}, to = {t, rank, os, NULL, 0};
    dmlcl_resample_grad1_desc gd = {&tg, &to, (dmlcl_interpolation_mode)mode,
                                    (dmlcl_axis_direction)dir, rank, sc, ipo, opo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE_GRAD1, &gd};
    tu_run_host(&od, g, out);
}

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

/* ---- randomized against a forward-order scatter -------------------------------------------- */

typedef struct {
    uint32_t rank, elem;
    int mode, dir;
    dmlcl_tensor_data_type type;
    uint32_t gs[8], os[8], gstr[8], ostr[8]; /* g: forward output shape; o: forward input */
    float sc[8], ipo[8], opo[8];
} gcase;

static double gload(const gcase *c, const unsigned char *p)
{
    if (c->type == F32) { float v; memcpy(&v, p, 4); return v; }
    if (c->type == F64) { double v; memcpy(&v, p, 8); return v; }
    if (c->type == I8) return *(const int8_t *)p;
    if (c->type == U8) return *p;
    uint16_t h;
    memcpy(&h, p, 2);
    return tu_half_to_float(h);
}

/* 8-bit: round half to even (the default rounding mode), then saturate. */
static void gstore(const gcase *c, unsigned char *p, double v)
{
    if (c->type == I8) *(int8_t *)p = (int8_t)fmin(fmax(nearbyint(v), -128), 127);
    else if (c->type == U8) *p = (uint8_t)fmin(fmax(nearbyint(v), 0), 255);
    else if (c->type == F32) { float f = (float)v; memcpy(p, &f, 4); }
    else if (c->type == F64) memcpy(p, &v, 8);
    else { uint16_t h = tu_float_to_half((float)v); memcpy(p, &h, 2); }
}

/* The forward pass of one dimension, as the spec states it. */
static void forward_dim(const gcase *c, uint32_t d, uint32_t o, uint64_t *i0, uint64_t *i1,
                        float *w)
{
    float x = ((float)o - c->opo[d]) / c->sc[d] - c->ipo[d];
    uint64_t n = c->os[d];
    float top = (float)(n - 1);
    *w = 0;
    if (c->mode == NEAREST) {
        float f = c->dir == INC ? ceilf(x) : floorf(x);
        *i0 = *i1 = f < 0 ? 0 : f > top ? n - 1 : (uint64_t)f;
        return;
    }
    x = fminf(fmaxf(x, 0), top);
    *i0 = (uint64_t)floorf(x);
    *i1 = *i0 + 1 < n ? *i0 + 1 : n - 1;
    *w = x - floorf(x);
}

/* Scatter: every forward output (row-major), every corner (first dimension most
 * significant), acc[input] += weight * gradient; weights of 0 add nothing. */
static void scatter(const gcase *c, const unsigned char *g, double *accd, float *accf)
{
    uint32_t o[8] = {0};
    do {
        uint64_t i0[8], i1[8];
        float w[8];
        for (uint32_t d = 0; d < c->rank; d++)
            forward_dim(c, d, o[d], &i0[d], &i1[d], &w[d]);
        double gv = gload(c, g + tu_offset(c->rank, o, c->gstr) * c->elem);
        for (uint32_t k = 0; k < (1u << c->rank); k++) {
            float wf = 1;
            double wd = 1;
            uint64_t lin = 0;
            for (uint32_t d = 0; d < c->rank; d++) {
                int bit = (k >> (c->rank - 1 - d)) & 1;
                wf = wf * (bit ? w[d] : 1.0f - w[d]);
                wd = wd * (bit ? (double)w[d] : 1.0 - (double)w[d]);
                lin = lin * c->os[d] + (bit ? i1[d] : i0[d]);
            }
            if (c->type == F64 && wd != 0)
                accd[lin] = accd[lin] + wd * gv;
            else if (c->type != F64 && wf != 0)
                accf[lin] = accf[lin] + wf * (float)gv;
        }
    } while (tu_next_index(c->rank, c->gs, o));
}

static size_t g_outputs, g_inexact;

static dmlcl_status gcase_create(const gcase *c, dmlcl_operator **op)
{
    dmlcl_tensor_desc tg = {c->type, c->rank, c->gs, c->gstr, 0};
    dmlcl_tensor_desc to = {c->type, c->rank, c->os, c->ostr, 0};
    dmlcl_resample_grad1_desc gd = {&tg, &to, (dmlcl_interpolation_mode)c->mode,
                                    (dmlcl_axis_direction)c->dir, c->rank, c->sc, c->ipo, c->opo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE_GRAD1, &gd};
    return dmlcl_operator_create(tu_context(), &od, op);
}

static void check_gcase(uint64_t *rng, const gcase *c, int n)
{
    size_t g_span = tu_span(c->rank, c->gs, c->gstr), o_span = tu_span(c->rank, c->os, c->ostr);
    unsigned char *g = malloc(g_span * c->elem);
    /* 8-bit gradients small enough that most sums fit and some saturate. */
    int eight = c->type == I8 || c->type == U8;
    for (size_t k = 0; k < g_span; k++)
        gstore(c, g + k * c->elem, eight ? (double)tu_range(rng, 0, 24) - (c->type == I8) * 12
                                         : (double)tu_range(rng, 0, 20000) / 100 - 100);
    dmlcl_operator *op = NULL;
    tu_assert_ok(gcase_create(c, &op));
    tu_devbuf bi = tu_devbuf_new(g_span * c->elem, tu_range(rng, 0, 3) * c->elem, g);
    tu_devbuf bo = tu_devbuf_new(o_span * c->elem, tu_range(rng, 0, 3) * c->elem, NULL);
    dmlcl_buffer_binding ins[1] = {{bi.mem, bi.offset, 0}}, outs[1] = {{bo.mem, bo.offset, 0}};
    tu_assert_ok(dmlcl_operator_enqueue(op, ins, 1, outs, 1, 0, NULL, NULL));
    unsigned char *got = malloc(bo.bytes), *mark = calloc(bo.bytes, 1);
    tu_devbuf_read(&bo, got);
    size_t n_in = 1;
    for (uint32_t d = 0; d < c->rank; d++)
        n_in *= c->os[d];
    double *accd = calloc(n_in, sizeof *accd);
    float *accf = calloc(n_in, sizeof *accf);
    scatter(c, g, accd, accf);
    uint32_t i[8] = {0};
    size_t lin = 0;
    do {
        size_t at = bo.offset + tu_offset(c->rank, i, c->ostr) * c->elem;
        unsigned char want[8];
        gstore(c, want, c->type == F64 ? accd[lin] : (double)accf[lin]);
        double gv = gload(c, got + at), wv = gload(c, want), diff = fabs(gv - wv);
        double tol = c->type == F64 ? fabs(wv) * 1e-12 + 1e-12
                     : c->type == F16 ? fabs(wv) / 1024 + 1e-6
                     : eight ? 0 : fabs(wv) * 1e-6 + 1e-6;
        ck_assert_msg(diff <= tol, "case %d (rank %u, %s, %s, type %d, plan %s): element %zu is "
                      "%.9g, the scatter gives %.9g", n, c->rank, c->mode ? "linear" : "nearest",
                      c->dir == INC ? "INCREASING" : "DECREASING", c->type,
                      dmlcl_operator_plan(op), lin, gv, wv);
        g_outputs++;
        g_inexact += memcmp(got + at, want, c->elem) != 0;
        memset(mark + at, 1, c->elem);
        lin++;
    } while (tu_next_index(c->rank, c->os, i));
    for (size_t k = 0; k < bo.bytes; k++)
        ck_assert_msg(mark[k] || got[k] == TU_FILL, "case %d: byte %zu outside the tensor "
                      "changed to 0x%02x", n, k, got[k]);
    dmlcl_operator_release(op);
    tu_devbuf_free(&bi);
    tu_devbuf_free(&bo);
    free(g), free(got), free(mark), free(accd), free(accf);
}

static gcase random_gcase(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type, int mode)
{
    gcase c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.type = type;
    c.elem = dmlcl_data_type_size(type);
    c.mode = mode;
    c.dir = (int)tu_range(rng, 0, 1);
    uint32_t cap = rank <= 2 ? 14 : rank <= 4 ? 5 : 3;
    for (uint32_t d = 0; d < rank; d++) {
        c.os[d] = (uint32_t)tu_range(rng, 1, cap);
        c.gs[d] = (uint32_t)tu_range(rng, 1, cap);
        switch (tu_range(rng, 0, 4)) {
        case 0: c.sc[d] = (float)c.gs[d] / (float)c.os[d]; break;
        case 1: c.sc[d] = (float)tu_range(rng, 1, 6) / 2; break;
        case 2: c.sc[d] = 1; c.gs[d] = c.os[d]; break; /* identity: an affine dimension */
        case 3: c.sc[d] = 1.0f / (float)tu_range(rng, 2, 3); break;
        default: c.sc[d] = 0.2f + (float)tu_range(rng, 0, 100) / 31.0f;
        }
        int pix = (int)tu_range(rng, 0, 2);
        c.ipo[d] = pix == 0 ? 0.5f : pix == 1 ? 0 : (float)tu_range(rng, 0, 8) / 4 - 1;
        c.opo[d] = pix == 0 ? -0.5f : pix == 1 ? 0 : (float)tu_range(rng, 0, 8) / 4 - 1;
    }
    /* Input gradient: any layout, broadcast included; output gradient: no broadcast. */
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 3), rank, c.gs, -1, c.gstr);
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 2), rank, c.os, -1, c.ostr);
    return c;
}

/* The context's memo (lib/core/memo.h): a second operator with the same descriptor takes
 * its tap rows and table buffer from the memo; operators whose descriptors differ from it
 * in one input of a dimension's rows (an offset, the scale, the mode, the direction, a
 * size) must not, and each is checked against the scatter after the others filled it. */
static gcase memo_base(uint64_t *rng)
{
    gcase c = random_gcase(rng, 2, F32, 1);
    const uint32_t gs[2] = {10, 13}, os[2] = {5, 7};
    for (int d = 0; d < 2; d++) {
        c.gs[d] = gs[d], c.os[d] = os[d];
        c.sc[d] = (float)gs[d] / (float)os[d];
        c.ipo[d] = 0.5f, c.opo[d] = -0.5f;
    }
    tu_make_strides(rng, TU_PACKED, 2, c.gs, -1, c.gstr);
    tu_make_strides(rng, TU_PACKED, 2, c.os, -1, c.ostr);
    return c;
}

START_TEST(memo_shares_tables)
{
    uint64_t rng = 0x3E30;
    const dmlcl__memo *m = &tu_context()->memo;
    gcase base = memo_base(&rng);
    check_gcase(&rng, &base, 0);
    uint64_t hits = m->hits;
    check_gcase(&rng, &base, 1);
    ck_assert_uint_ge(m->hits, hits + 2); /* the rows (both dimensions alike) and the table */
    gcase v[6];
    for (int k = 0; k < 6; k++)
        v[k] = base;
    v[0].opo[1] = -0.25f;
    v[1].ipo[0] = 0.25f;
    v[2].sc[1] = 2.5f;
    v[3].mode = 0; /* nearest */
    v[4].mode = 0, v[4].dir = !base.dir;
    v[5].gs[1] = 12;
    tu_make_strides(&rng, TU_PACKED, 2, v[5].gs, -1, v[5].gstr);
    for (int k = 0; k < 6; k++)
        check_gcase(&rng, &v[k], 2 + k);
    for (int k = 5; k >= 0; k--) /* now every one from the memo, in another order */
        check_gcase(&rng, &v[k], 8 + k);
    check_gcase(&rng, &base, 14);
}
END_TEST

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

/* The operator's plan text for c (created and released here). */
static void grad_plan(const gcase *c, char *plan, size_t n)
{
    dmlcl_operator *op = NULL;
    tu_assert_ok(gcase_create(c, &op));
    snprintf(plan, n, "%s", dmlcl_operator_plan(op));
    dmlcl_operator_release(op);
}

/* N x C x H x W, packed, the forward pass scaling H and W by sh and sw (pixel centres). */
static gcase image_gcase(dmlcl_tensor_data_type type, int mode, const uint32_t os[4], float sh,
                         float sw)
{
    gcase c;
    memset(&c, 0, sizeof c);
    c.rank = 4;
    c.type = type;
    c.elem = dmlcl_data_type_size(type);
    c.mode = mode;
    c.dir = INC;
    memcpy(c.os, os, sizeof c.os[0] * 4);
    const float sc[4] = {1, 1, sh, sw};
    for (int d = 0; d < 4; d++) {
        c.sc[d] = sc[d];
        c.gs[d] = (uint32_t)floorf((float)os[d] * sc[d]);
    }
    memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
    memcpy(c.opo, tu_pix_out, sizeof c.opo);
    uint64_t rng = 1;
    tu_make_strides(&rng, TU_PACKED, 4, c.gs, -1, c.gstr);
    tu_make_strides(&rng, TU_PACKED, 4, c.os, -1, c.ostr);
    return c;
}

/* The overrides of the tests below never outlive them, even when a check fails midway. */
static void forget_plan_override(void)
{
    unsetenv("DMLCL_RESAMPLE_PLAN");
    dmlcl_test_resample_force_idx64(0);
}

/* The three kernel layouts, forced through $DMLCL_RESAMPLE_PLAN on the test device where
 * the columns apply (the innermost dimension, or the one just outside an innermost affine
 * one, is the last tabled one, with at most 8 taps per coordinate and 3 tabled
 * dimensions): the rows kernel (GPUs' choice) with groups of 64 and of 32 spanning rows of
 * 35 (several rows per group, items past a row's end), the segment kernel (CPUs' choice)
 * with segments of 16 (a partial one per row) and 256 (longer than the row), and the 1-D
 * kernels. Linear 2x (4 taps), nearest 3x and
 * 5x (up to 4 and 7 taps), channels-last (columns of W x C), then randomized cases. Where
 * the columns cannot apply (12 taps, 4 tabled dimensions), the layouts fall back to the
 * 1-D kernels; 3 tabled dimensions (volumes) take them. */
START_TEST(every_launch_shape)
{
    static const struct { const char *plan, *variant; } plans[] = {
        {"rows=1,seg=0", "variant=taps-rows"}, {"rows=1,seg=0,wg=32", "variant=taps-rows"},
        {"rows=1,seg=16", "variant=taps-seg"}, {"seg=256,wg=4", "variant=taps-seg"},
        {"rows=0", "variant=taps "}};
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8};
    const uint32_t os[4] = {2, 3, 9, 35};
    uint64_t rng = 0x7a95;
    char plan[320];
    for (size_t pl = 0; pl < sizeof plans / sizeof plans[0]; pl++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[pl].plan, 1);
        const char *want = plans[pl].variant;
        const struct { int mode; float s; int fits; } shapes[] = {
            {LINEAR, 2, 1}, {NEAREST, 3, 1}, {NEAREST, 5, 1}, {NEAREST, 12, 0}};
        for (int k = 0; k < 4; k++) {
            gcase c = image_gcase(types[k % 3], shapes[k].mode, os, 2, shapes[k].s);
            grad_plan(&c, plan, sizeof plan);
            ck_assert_msg(strstr(plan, shapes[k].fits ? want : "variant=taps ") != NULL,
                          "%s, scale %g: %s", plans[pl].plan, (double)shapes[k].s, plan);
            check_gcase(&rng, &c, k);
        }
        gcase t = image_gcase(F16, LINEAR, os, 2, 2); /* channels-last: columns of (W, C) */
        tu_channels_last(4, t.gs, t.gstr);
        tu_channels_last(4, t.os, t.ostr);
        grad_plan(&t, plan, sizeof plan);
        ck_assert_msg(strstr(plan, want) != NULL, "NHWC: %s", plan);
        check_gcase(&rng, &t, 4);
        t = image_gcase(F32, LINEAR, os, 2, 2);
        tu_make_strides(&rng, TU_TRANSPOSED, 4, t.os, -1, t.ostr);
        check_gcase(&rng, &t, 4);
        t = image_gcase(F32, LINEAR, os, 2, 2);
        t.sc[1] = 2;
        t.gs[1] = 6;
        tu_make_strides(&rng, TU_PACKED, 4, t.gs, -1, t.gstr);
        grad_plan(&t, plan, sizeof plan);
        ck_assert_msg(strstr(plan, want) != NULL, "3 tabled: %s", plan);
        check_gcase(&rng, &t, 5);
        t.sc[0] = 1.5f; /* and the batch: 4 tabled dimensions */
        t.gs[0] = 3;
        tu_make_strides(&rng, TU_PACKED, 4, t.gs, -1, t.gstr);
        grad_plan(&t, plan, sizeof plan);
        ck_assert_msg(strstr(plan, "variant=taps ") != NULL, "4 tabled: %s", plan);
        check_gcase(&rng, &t, 5);
        for (int n = 0; n < 9; n++) {
            gcase c = random_gcase(&rng, 1 + (uint32_t)n % 4, types[n % 3], n % 2);
            check_gcase(&rng, &c, 6 + n);
        }
    }
    setenv("DMLCL_RESAMPLE_PLAN", "rows=2", 1);
    gcase c = image_gcase(F32, LINEAR, os, 2, 2);
    dmlcl_operator *op = NULL;
    tu_assert_fails(gcase_create(&c, &op), DMLCL_INVALID_ARGUMENT,
                    "resample_grad1: DMLCL_RESAMPLE_PLAN must be key=value pairs");
    ck_assert_ptr_null(op);
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* c through execute_host with its strides (dense layouts: the arrays are the spans). */
static void run_strided(const gcase *c, const void *g, void *out)
{
    dmlcl_operator *op = NULL;
    tu_assert_ok(gcase_create(c, &op));
    const void *ins[1] = {g};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
}

/* The rows kernel's vector form for FLOAT32 channels-last (8 or 4 channels per item, one
 * vector load per tap), forced on the test device with v=8 ($DMLCL_RESAMPLE_PLAN): C = 8,
 * 4 and 12, a binding offset of one element (the scalar loop over the channels instead)
 * and C = 6 (no vector form); its results equal the scalar rows kernel's bit for bit. */
START_TEST(channels_last_vectors)
{
    static const uint32_t channels[] = {8, 4, 12, 8, 6};
    uint64_t rng = 0xcf32;
    char plan[320];
    for (int n = 0; n < 5; n++) {
        const uint32_t os[4] = {2, channels[n], 5, 35};
        gcase c = image_gcase(F32, n % 2 ? NEAREST : LINEAR, os, 2, 2);
        tu_channels_last(4, c.gs, c.gstr);
        tu_channels_last(4, c.os, c.ostr);
        setenv("DMLCL_RESAMPLE_PLAN", "rows=1,seg=0,v=8", 1);
        grad_plan(&c, plan, sizeof plan);
        char want[16];
        snprintf(want, sizeof want, "-DCV=%u", channels[n] % 8 == 0 ? 8 : channels[n] % 4 ? 1 : 4);
        ck_assert_msg(strstr(plan, want) != NULL, "C = %u: %s", channels[n], plan);
        size_t ng = (size_t)2 * channels[n] * c.gs[2] * c.gs[3], no = (size_t)2 * channels[n] * 5 * 35;
        float *g = malloc(ng * 4), *vec = malloc(no * 4), *ref = malloc(no * 4);
        for (size_t e = 0; e < ng; e++)
            g[e] = (float)tu_range(&rng, 0, 20000) / 97 - 100;
        /* The binding offset: tu_devbuf's random one (check_gcase), or packed via the host. */
        if (n == 3) {
            check_gcase(&rng, &c, n);
        } else {
            run_strided(&c, g, vec);
            setenv("DMLCL_RESAMPLE_PLAN", "rows=1,seg=0,v=1", 1);
            run_strided(&c, g, ref);
            ck_assert_msg(!memcmp(vec, ref, no * 4), "C = %u: vector and scalar rows differ",
                          channels[n]);
        }
        free(g), free(vec), free(ref);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The layouts sum the same terms in the same order: their results agree bit for bit
 * (the C scatter is only close: it adds a tap whose two corners share an index as two
 * products). Images, volumes (3 tabled dimensions), 1-D; FLOAT32, FLOAT16, FLOAT64. */
START_TEST(layouts_agree_bit_for_bit)
{
    static const char *const plans[] = {"rows=0", "rows=1,seg=0", "seg=16"};
    static const struct { uint32_t rank, gs[5], os[5]; float sc[5]; } shapes[] = {
        {4, {2, 3, 18, 70}, {2, 3, 9, 35}, {1, 1, 2, 2}},
        {5, {1, 2, 10, 12, 66}, {1, 2, 5, 4, 33}, {1, 1, 2, 3, 2}},
        {1, {150}, {40}, {3.75f}},
    };
    static const dmlcl_tensor_data_type types[] = {F32, F16, F64};
    uint64_t rng = 0xb17;
    for (int n = 0; n < 9; n++) {
        const int k = n % 3, mode = n < 6 ? LINEAR : NEAREST;
        const dmlcl_tensor_data_type t = types[n / 3 % 3];
        if (t == F64 && !tu_context()->info.has_fp64)
            continue;
        const size_t elem = dmlcl_data_type_size(t);
        size_t ng = 1, no = 1;
        for (uint32_t d = 0; d < shapes[k].rank; d++)
            ng *= shapes[k].gs[d], no *= shapes[k].os[d];
        unsigned char *g = malloc(ng * elem), *first = malloc(no * elem), *out = malloc(no * elem);
        for (size_t e = 0; e < ng; e++) {
            double v = (double)tu_range(&rng, 0, 20000) / 97 - 100;
            if (t == F32) { float f = (float)v; memcpy(g + e * 4, &f, 4); }
            else if (t == F64) memcpy(g + e * 8, &v, 8);
            else { uint16_t h = tu_float_to_half((float)v); memcpy(g + e * 2, &h, 2); }
        }
        for (int pl = 0; pl < 3; pl++) {
            setenv("DMLCL_RESAMPLE_PLAN", plans[pl], 1);
            grad_host(t, shapes[k].rank, shapes[k].gs, shapes[k].os, mode, INC, shapes[k].sc,
                      tu_pix_in, tu_pix_out, g, pl ? out : first);
            ck_assert_msg(!pl || !memcmp(first, out, no * elem), "shape %d, type %d, mode %d: "
                          "%s differs from %s", k, t, mode, plans[pl], plans[0]);
        }
        free(g), free(first), free(out);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Random elements of type t (8-bit: small, so that few sums saturate). */
static void fill_random(uint64_t *rng, dmlcl_tensor_data_type t, unsigned char *p, size_t n)
{
    for (size_t e = 0; e < n; e++) {
        double v = (double)tu_range(rng, 0, 20000) / 97 - 100;
        if (t == F32) { float f = (float)v; memcpy(p + e * 4, &f, 4); }
        else if (t == F64) memcpy(p + e * 8, &v, 8);
        else if (t == F16) { uint16_t h = tu_float_to_half((float)v); memcpy(p + e * 2, &h, 2); }
        else p[e] = (unsigned char)(t == I8 ? (int)tu_range(rng, 0, 40) - 20 : (int)tu_range(rng, 0, 40));
    }
}

/* The segment kernel's vector pattern (CPUs' default; tp=1 forces it on any device) sums
 * the same terms in the same order as its column-by-column loop (tp=0): the same bits, in
 * every data type, for images (odd widths: the rows' last vectors and the edges go column
 * by column), channels-last runs of 8 and 4 channels, segments of 512 and of 32 columns,
 * linear and nearest. The plan names the pattern. (Few cases: two compiles each.) */
START_TEST(tap_pattern_bit_for_bit)
{
    static const struct { uint32_t gs[4], os[4]; float sc[4]; int mode; } shapes[] = {
        {{1, 3, 74, 266}, {1, 3, 37, 133}, {1, 1, 2, 2}, LINEAR},
        {{1, 38, 74, 8}, {1, 19, 37, 8}, {1, 2, 2, 1}, LINEAR},
        {{2, 18, 82, 4}, {2, 9, 41, 4}, {1, 2, 2, 1}, LINEAR},
        {{1, 2, 30, 200}, {1, 2, 15, 100}, {1, 1, 2, 2}, NEAREST},
    };
    static const struct { int shape; dmlcl_tensor_data_type t; const char *on, *off; } cases[] = {
        {0, F32, "seg=512,tp=1", "seg=512,tp=0"}, {0, F16, "seg=32,tp=1", "seg=32,tp=0"},
        {0, F64, "seg=512,tp=1", "seg=512,tp=0"}, {0, I8, "seg=512,tp=1", "seg=512,tp=0"},
        {0, U8, "seg=32,tp=1", "seg=32,tp=0"},    {1, F32, "seg=512,tp=1", "seg=512,tp=0"},
        {2, F16, "seg=512,tp=1", "seg=512,tp=0"}, {3, F32, "seg=32,tp=1", "seg=32,tp=0"},
    };
    uint64_t rng = 0x7a9;
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        const int k = cases[n].shape;
        const dmlcl_tensor_data_type t = cases[n].t;
        if (t == F64 && !tu_context()->info.has_fp64)
            continue;
        const size_t elem = dmlcl_data_type_size(t);
        size_t ng = 1, no = 1;
        for (uint32_t d = 0; d < 4; d++)
            ng *= shapes[k].gs[d], no *= shapes[k].os[d];
        unsigned char *g = malloc(ng * elem), *a = malloc(no * elem), *b = malloc(no * elem);
        fill_random(&rng, t, g, ng);
        for (int v = 0; v < 2; v++) {
            setenv("DMLCL_RESAMPLE_PLAN", v ? cases[n].off : cases[n].on, 1);
            dmlcl_tensor_desc tg = {t, 4, shapes[k].gs, NULL, 0};
            dmlcl_tensor_desc to = {t, 4, shapes[k].os, NULL, 0};
            dmlcl_resample_grad1_desc gd = {&tg, &to, (dmlcl_interpolation_mode)shapes[k].mode,
                                            INC, 4, shapes[k].sc, tu_pix_in, tu_pix_out};
            dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE_GRAD1, &gd};
            dmlcl_operator *op = NULL;
            tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
            const char *plan = dmlcl_operator_plan(op);
            ck_assert_msg(strstr(plan, "variant=taps-seg") && (strstr(plan, "-DTP=") == NULL) == v,
                          "case %zu, %s: %s", n, v ? cases[n].off : cases[n].on, plan);
            dmlcl_operator_release(op);
            tu_run_host(&od, g, v ? b : a);
        }
        ck_assert_msg(!memcmp(a, b, no * elem), "case %zu (type %d): the vector pattern "
                      "changes the result", n, t);
        free(g), free(a), free(b);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The 64-bit index kernels (tensors past 2^32 elements), forced by the test hook on small
 * tensors: every layout. */
START_TEST(index64_kernels)
{
    uint64_t rng = 0x6464;
    const uint32_t os[4] = {2, 3, 9, 35};
    char plan[320];
    dmlcl_test_resample_force_idx64(1);
    static const char *const plans[] = {"rows=0", "rows=1,seg=0", "seg=16"};
    for (int pl = 0; pl < 3; pl++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[pl], 1);
        gcase c = image_gcase(F32, LINEAR, os, 2, 2);
        grad_plan(&c, plan, sizeof plan);
        ck_assert_msg(strstr(plan, "-DIDX64=1") != NULL, "%s", plan);
        check_gcase(&rng, &c, 0);
        for (int n = 0; n < 4; n++) {
            c = random_gcase(&rng, 1 + (uint32_t)n, n % 2 ? F16 : F32, n % 2);
            check_gcase(&rng, &c, 1 + n);
        }
    }
    dmlcl_test_resample_force_idx64(0);
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Same descriptor, same input: the same bits every time (no atomics). */
START_TEST(deterministic)
{
    uint64_t rng = 0xde7;
    gcase c = random_gcase(&rng, 2, F32, LINEAR);
    const uint32_t os[2] = {16, 16}, gs[2] = {64, 64};
    memcpy(c.os, os, sizeof os);
    memcpy(c.gs, gs, sizeof gs);
    c.sc[0] = c.sc[1] = 4;
    dmlcl_tensor_desc tg = {F32, 2, c.gs, NULL, 0}, to = {F32, 2, c.os, NULL, 0};
    dmlcl_resample_grad1_desc gd = {&tg, &to, LINEAR, INC, 2, c.sc, tu_pix_in, tu_pix_out};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE_GRAD1, &gd};
    dmlcl_operator *op;
    float *g = malloc(64 * 64 * 4), a[256], b[256];
    for (int k = 0; k < 64 * 64; k++)
        g[k] = (float)tu_range(&rng, 0, 1000000) / 997.0f - 500;
    const void *ins[1] = {g};
    void *outs[1] = {a};
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    for (int rep = 0; rep < 3; rep++) {
        outs[0] = b;
        tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
        ck_assert(!memcmp(a, b, sizeof a));
    }
    dmlcl_operator_release(op);
    free(g);
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
    dmlcl_operator *op = (dmlcl_operator *)1;
    dmlcl_status st = dmlcl_operator_create(tu_context(), &f->od, &op);
    if (st == DMLCL_SUCCESS)
        dmlcl_operator_release(op);
    else
        ck_assert_ptr_null(op);
    return st;
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
    GBAD(f, "resample_grad1: input_gradient_tensor data_type must be FLOAT32, FLOAT16, "
            "FLOAT64, INT8 or UINT8, got INT32");
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
    tcase_add_test(tc, int8_by_hand);
    tcase_add_loop_test(tc, randomized_against_scatter, 0, 10);
    tcase_add_test(tc, larger_cases);
    tcase_add_checked_fixture(tc, NULL, forget_plan_override);
    tcase_add_test(tc, every_launch_shape);
    tcase_add_test(tc, index64_kernels);
    tcase_add_test(tc, layouts_agree_bit_for_bit);
    tcase_add_test(tc, tap_pattern_bit_for_bit);
    tcase_add_test(tc, channels_last_vectors);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, memo_shares_tables);
    tcase_add_test(tc, validation);
    tcase_add_test(tc, allocation_failures);
    suite_add_tcase(s, tc);
    return s;
}
