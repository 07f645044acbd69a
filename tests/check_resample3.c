/* RESAMPLE3: antialiased linear downsampling (PyTorch's antialias=True, align_corners=False)
 * on hand-computed cases, randomized cases against an independent C reference (weights
 * from the formula over every input index, ranks 1-8, all five data types, strides, guard
 * bands), "no effect" cases (upsampling, nearest, antialiased = 0) against RESAMPLE2, and
 * validation. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static dmlcl_operator *make3(uint32_t rank, dmlcl_tensor_data_type type, const uint32_t *is,
                             const uint32_t *istr, const uint32_t *os, const uint32_t *ostr,
                             int mode, int aa, const float *sc, const float *ipo,
                             const float *opo)
{
    dmlcl_tensor_desc ti = {type, rank, is, istr, 0}, to = {type, rank, os, ostr, 0};
    dmlcl_resample3_desc rd = {&ti, &to, (dmlcl_interpolation_mode)mode, INC, rank, sc, ipo,
                               opo, aa};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE3, &rd};
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    return op;
}

static void run3(uint32_t rank, const uint32_t *is, const uint32_t *os, int mode, int aa,
                 const float *sc, const float *in, float *out)
{
    dmlcl_operator *op = make3(rank, F32, is, NULL, os, NULL, mode, aa, sc, tu_pix_in, tu_pix_out);
    const void *ins[1] = {in};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
}

static void expect(const float *got, const float *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        tu_assert_each(fabsf(got[i] - want[i]) <= 1e-5f * (1 + fabsf(want[i])),
                       "%s: out[%d] = %.9g, expected %.9g", what, i, got[i], want[i]);
}

/* 4 -> 2, scale 0.5: centres 1 and 3, support 2. Row 0: taps 0..2 with 0.75, 0.75, 0.25
 * (/1.75); row 1: taps 1..3 with 0.25, 0.75, 0.75. Input {0, 7, 14, 21} -> {5, 16}
 * (plain linear would give {3.5, 17.5}). 6 -> 2, scale 1/3: centres 1.5 and 4.5, support 3;
 * row 0: taps 0..4 with 2/3, 1, 2/3, 1/3, 0 (/(8/3)); input {0, 8, ..., 40} -> {10, 30}. */
START_TEST(hand_computed)
{
    const uint32_t is4[1] = {4}, is6[1] = {6}, os2[1] = {2};
    const float half[1] = {0.5f}, third[1] = {1.0f / 3};
    const float in4[4] = {0, 7, 14, 21}, in6[6] = {0, 8, 16, 24, 32, 40};
    const float want4[2] = {5, 16}, plain4[2] = {3.5f, 17.5f}, want6[2] = {10, 30};
    float out[4];
    run3(1, is4, os2, LINEAR, 1, half, in4, out);
    expect(out, want4, 2, "4->2 antialiased");
    run3(1, is4, os2, LINEAR, 0, half, in4, out);
    expect(out, plain4, 2, "4->2 plain");
    run3(1, is6, os2, LINEAR, 1, third, in6, out);
    expect(out, want6, 2, "6->2 antialiased");
    /* The 16-bit integers: the same filter (weights 3/7, 3/7, 1/7 and 1/7, 3/7, 3/7),
     * rounded to nearest on the store. */
    dmlcl_tensor_desc ti = {I16, 1, is4, NULL, 0}, to = {I16, 1, os2, NULL, 0};
    dmlcl_resample3_desc rd = {&ti, &to, LINEAR, INC, 1, half, tu_pix_in, tu_pix_out, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE3, &rd};
    const int16_t i16[4] = {-32768, -32768, 700, 7000}; /* -27986.86, -1381.14 */
    int16_t o16[2];
    tu_run_host(&od, i16, o16);
    ck_assert_msg(o16[0] == -27987 && o16[1] == -1381, "INT16 4->2 antialiased: got %d, %d",
                  o16[0], o16[1]);
    ti.data_type = to.data_type = U16;
    const uint16_t u16[4] = {65535, 65535, 65535, 0}; /* 65535, 37448.57 */
    uint16_t ou[2];
    tu_run_host(&od, u16, ou);
    ck_assert_msg(ou[0] == 65535 && ou[1] == 37449, "UINT16 4->2 antialiased: got %u, %u",
                  ou[0], ou[1]);
    /* Separable: in[r][c] = a[r] + b[c] gives aa(a)[r] + aa(b)[c] (weights sum to 1). */
    const uint32_t is2[2] = {4, 6}, os22[2] = {2, 2};
    const float sc2[2] = {0.5f, 1.0f / 3};
    float in2[24];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 6; c++)
            in2[r * 6 + c] = in4[r] + in6[c];
    const float want2[4] = {15, 35, 26, 46};
    run3(2, is2, os22, LINEAR, 1, sc2, in2, out);
    expect(out, want2, 4, "4x6->2x2 antialiased");
    /* Mixed: rows downsampled (antialiased), columns upsampled 2 -> 4 (plain linear:
     * 1, 1.25, 1.75, 2 for inputs 1, 2). */
    const uint32_t ism[2] = {4, 2}, osm[2] = {2, 4};
    const float scm[2] = {0.5f, 2};
    float inm[8], outm[8];
    for (int r = 0; r < 4; r++)
        inm[r * 2] = in4[r] + 1, inm[r * 2 + 1] = in4[r] + 2;
    const float wantm[8] = {6, 6.25f, 6.75f, 7, 17, 17.25f, 17.75f, 18};
    run3(2, ism, osm, LINEAR, 1, scm, inm, outm);
    expect(outm, wantm, 8, "mixed");
}
END_TEST

/* ---- no effect: bit-identical to RESAMPLE2 -------------------------------------------------- */

START_TEST(no_effect_cases)
{
    uint64_t rng = 0x3a3;
    const uint32_t is[2] = {5, 7}, os_up[2] = {9, 12}, os_dn[2] = {3, 4};
    float in[35], a[108], b[108];
    for (int k = 0; k < 35; k++)
        in[k] = (float)tu_range(&rng, 0, 10000) / 100 - 50;
    const float up[2] = {9.0f / 5, 12.0f / 7}, dn[2] = {3.0f / 5, 4.0f / 7};
    struct { const uint32_t *os; const float *sc; int mode, aa; } cases[4] = {
        {os_up, up, LINEAR, 1}, /* upsampling */
        {os_dn, dn, NEAREST, 1}, /* nearest */
        {os_dn, dn, LINEAR, 0}, /* antialiased = 0 */
        {os_up, up, NEAREST, 1}};
    for (int n = 0; n < 4; n++) {
        dmlcl_tensor_desc ti = {F32, 2, is, NULL, 0}, to = {F32, 2, cases[n].os, NULL, 0};
        dmlcl_resample2_desc r2 = {&ti, &to, (dmlcl_interpolation_mode)cases[n].mode, INC, 2,
                                   cases[n].sc, tu_pix_in, tu_pix_out};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE2, &r2};
        dmlcl_operator *op;
        const void *ins[1] = {in};
        void *outs[1] = {a};
        tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
        tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
        dmlcl_operator_release(op);
        run3(2, is, cases[n].os, cases[n].mode, cases[n].aa, cases[n].sc, in, b);
        size_t count = (size_t)cases[n].os[0] * cases[n].os[1];
        ck_assert_msg(!memcmp(a, b, count * 4), "case %d differs from RESAMPLE2", n);
    }
    /* The plan says which path ran. */
    dmlcl_operator *op = make3(2, F32, is, NULL, os_dn, NULL, LINEAR, 1, dn, tu_pix_in, tu_pix_out);
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "variant=taps tabled=2"));
    dmlcl_operator_release(op);
    op = make3(2, F32, is, NULL, os_up, NULL, LINEAR, 1, up, tu_pix_in, tu_pix_out);
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "variant=linear"));
    dmlcl_operator_release(op);
}
END_TEST

/* ---- randomized against an independent reference -------------------------------------------- */

typedef struct {
    uint32_t rank, elem;
    dmlcl_tensor_data_type type;
    uint32_t is[8], os[8], istr[8], ostr[8];
    float sc[8], ipo[8], opo[8];
} case3;

static double load3(const case3 *c, const unsigned char *p)
{
    switch (c->type) {
    case F32: { float v; memcpy(&v, p, 4); return v; }
    case F64: { double v; memcpy(&v, p, 8); return v; }
    case I8: return *(const int8_t *)p;
    case U8: return *p;
    default: {
        uint16_t h;
        memcpy(&h, p, 2);
        int e = (h >> 10) & 31, m = h & 1023;
        double v = e == 0 ? ldexp(m, -24) : ldexp(m | 1024, e - 25);
        return (h & 0x8000) ? -v : v;
    }
    }
}

/* Inputs: small integers, exact in every type. */
static void store3(const case3 *c, unsigned char *p, int v)
{
    switch (c->type) {
    case F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case F64: { double d = v; memcpy(p, &d, 8); break; }
    case I8: *(int8_t *)p = (int8_t)v; break;
    case U8: *p = (uint8_t)(v + 100); break;
    default: { /* |v| <= 100: exact in FLOAT16 */
        uint16_t h = 0;
        if (v) {
            int a = abs(v), e = 0;
            while ((a >> e) > 1)
                e++;
            h = (uint16_t)(((e + 15) << 10) | (((a << 10) >> e) & 1023));
            if (v < 0)
                h |= 0x8000;
        }
        memcpy(p, &h, 2);
    }
    }
}

/* Weights of every input index of dimension d for output o (double, from the definition:
 * downsampling: the widened triangle, normalized over the taps inside the input; else
 * RESAMPLE1's linear weights on the clamped coordinate). */
static void ref_weights(const case3 *c, uint32_t d, uint32_t o, double *w)
{
    uint32_t n = c->is[d];
    float x = ((float)o - c->opo[d]) / c->sc[d] - c->ipo[d];
    memset(w, 0, n * sizeof *w);
    if (c->sc[d] >= 1) {
        float xc = fminf(fmaxf(x, 0), (float)(n - 1)), f = floorf(xc);
        uint32_t i0 = (uint32_t)f;
        w[i0] += 1.0 - (double)(xc - f);
        if (xc - f != 0)
            w[i0 + 1] += (double)(xc - f);
        return;
    }
    double ctr = (double)x + 0.5, s = c->sc[d], total = 0;
    for (uint32_t j = 0; j < n; j++) {
        double v = 1 - fabs(j + 0.5 - ctr) * s;
        w[j] = v > 0 ? v : 0;
        total += w[j];
    }
    if (total == 0) { /* the sample lies entirely outside: the edge element */
        w[ctr < 0.5 ? 0 : n - 1] = 1;
        return;
    }
    for (uint32_t j = 0; j < n; j++)
        w[j] /= total;
}

static double reference3(const case3 *c, const unsigned char *in, const uint32_t *o)
{
    static double w[8][64];
    for (uint32_t d = 0; d < c->rank; d++) {
        tu_assert_each(c->is[d] <= 64, "%u weights in a line", c->is[d]); /* w's room */
        ref_weights(c, d, o[d], w[d]);
    }
    double acc = 0;
    uint32_t i[8] = {0};
    do {
        double wt = 1;
        for (uint32_t d = 0; d < c->rank; d++)
            wt *= w[d][i[d]];
        if (wt != 0)
            acc += wt * load3(c, in + tu_offset(c->rank, i, c->istr) * c->elem);
    } while (tu_next_index(c->rank, c->is, i));
    return acc;
}

static size_t r3_outputs;

static void check3(uint64_t *rng, const case3 *c, int n)
{
    size_t in_span = tu_span(c->rank, c->is, c->istr), out_span = tu_span(c->rank, c->os, c->ostr);
    unsigned char *in = malloc(in_span * c->elem);
    for (size_t k = 0; k < in_span; k++)
        store3(c, in + k * c->elem, (int)tu_range(rng, 0, 200) - 100);
    dmlcl_operator *op = make3(c->rank, c->type, c->is, c->istr, c->os, c->ostr, LINEAR, 1,
                               c->sc, c->ipo, c->opo);
    tu_devbuf bi = tu_devbuf_new(in_span * c->elem, tu_range(rng, 0, 3) * c->elem, in);
    tu_devbuf bo = tu_devbuf_new(out_span * c->elem, tu_range(rng, 0, 3) * c->elem, NULL);
    dmlcl_buffer_binding ins[1] = {{bi.mem, bi.offset, 0}}, outs[1] = {{bo.mem, bo.offset, 0}};
    tu_assert_ok(dmlcl_operator_enqueue(op, ins, 1, outs, 1, 0, NULL, NULL));
    unsigned char *got = malloc(bo.bytes), *mark = calloc(bo.bytes, 1);
    tu_devbuf_read(&bo, got);
    uint32_t o[8] = {0};
    do {
        size_t at = bo.offset + tu_offset(c->rank, o, c->ostr) * c->elem;
        double g = load3(c, got + at), r = reference3(c, in, o);
        /* The tap weights are float32 for every type (FLOAT64 included, as RESAMPLE1's
         * linear weights): with inputs up to 100, about 1e-5 absolute. */
        double tol = c->type == F64 ? 1e-4 : c->type == F16 ? fabs(r) / 1024 + 1e-3
                     : c->type == F32 ? 1e-4 : 1.0; /* 8-bit: rounding of a near-tie */
        tu_assert_each(fabs(g - r) <= tol, "case %d (rank %u, type %d, plan %s): output at byte "
                       "%zu is %.9g, the reference %.9g", n, c->rank, c->type,
                       dmlcl_operator_plan(op), at - bo.offset, g, r);
        memset(mark + at, 1, c->elem);
        r3_outputs++;
    } while (tu_next_index(c->rank, c->os, o));
    for (size_t k = 0; k < bo.bytes; k++)
        tu_assert_each(mark[k] || got[k] == TU_FILL, "case %d: byte %zu outside the tensor "
                       "changed", n, k);
    dmlcl_operator_release(op);
    tu_devbuf_free(&bi);
    tu_devbuf_free(&bo);
    free(in), free(got), free(mark);
}

static case3 random_case3(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type)
{
    case3 c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.type = type;
    c.elem = dmlcl_data_type_size(type);
    uint32_t cap = rank <= 2 ? 24 : rank <= 4 ? 6 : 3;
    for (uint32_t d = 0; d < rank; d++) {
        c.is[d] = (uint32_t)tu_range(rng, 1, cap);
        uint32_t kind = (uint32_t)tu_range(rng, 0, 3);
        if (kind == 0) { /* identity */
            c.os[d] = c.is[d];
            c.sc[d] = 1;
        } else if (kind == 1) { /* upsampling */
            c.os[d] = c.is[d] + (uint32_t)tu_range(rng, 0, 4);
            c.sc[d] = (float)c.os[d] / (float)c.is[d];
        } else { /* downsampling, to size or by a free scale */
            c.os[d] = (uint32_t)tu_range(rng, 1, c.is[d]);
            c.sc[d] = kind == 2 ? (float)c.os[d] / (float)c.is[d]
                                : 0.15f + (float)tu_range(rng, 0, 80) / 100;
        }
        int pix = (int)tu_range(rng, 0, 3);
        c.ipo[d] = pix ? 0.5f : (float)tu_range(rng, 0, 4) / 4 - 0.5f;
        c.opo[d] = pix ? -0.5f : (float)tu_range(rng, 0, 4) / 4 - 0.5f;
    }
    /* Make sure something is downsampled. */
    uint32_t d = (uint32_t)tu_range(rng, 0, rank - 1);
    if (c.sc[d] >= 1 && c.is[d] > 1) {
        c.os[d] = (uint32_t)tu_range(rng, 1, c.is[d] - 1);
        c.sc[d] = (float)c.os[d] / (float)c.is[d];
    }
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 3), rank, c.is, -1, c.istr);
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 2), rank, c.os, -1, c.ostr);
    return c;
}

/* _i: data type. */
START_TEST(randomized_against_reference)
{
    static const dmlcl_tensor_data_type types[5] = {F32, F16, F64, I8, U8};
    uint64_t rng = 0x3a3a0000u + (uint64_t)_i;
    int n = 0;
    for (uint32_t rank = 1; rank <= 8; rank++)
        for (int rep = 0; rep < (rank <= 3 ? 4 : 2); rep++, n++) {
            case3 c = random_case3(&rng, rank, types[_i]);
            check3(&rng, &c, n);
        }
}
END_TEST

static void report3(void)
{
    printf("resample3: %zu antialiased outputs checked against the reference\n", r3_outputs);
}

/* ---- validation ------------------------------------------------------------------------------- */

START_TEST(validation)
{
    uint32_t is[2] = {4, 4}, os[2] = {2, 2};
    float sc[2] = {0.5f, 0.5f};
    dmlcl_tensor_desc ti = {F32, 2, is, NULL, 0}, to = {F32, 2, os, NULL, 0};
    dmlcl_resample3_desc rd = {&ti, &to, LINEAR, INC, 2, sc, tu_pix_in, tu_pix_out, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE3, &rd};
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    dmlcl_operator_release(op);
    rd.antialiased = 2;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample3: antialiased must be 0 or 1, got 2");
    ck_assert_ptr_null(op);
    rd.antialiased = 1;
    rd.rounding_direction = (dmlcl_axis_direction)3;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample3: rounding_direction must be 0 (INCREASING) or 1 (DECREASING), "
                    "got 3");
    rd.rounding_direction = INC;
    sc[0] = 0;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample3: scales[0] must be finite and > 0, got 0");
    sc[0] = 0.5f;
    ti.data_type = to.data_type = DMLCL_TENSOR_DATA_TYPE_INT64;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample3: input_tensor data_type must be FLOAT32, FLOAT16, FLOAT64, INT8, "
                    "UINT8, INT16, UINT16, INT32 or UINT32, got INT64");
    ti.data_type = to.data_type = I32; /* antialiased or not, LINEAR computes */
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample3: data_type INT32 takes interpolation_mode 0 (NEAREST_NEIGHBOR) "
                    "only, got 1 (LINEAR)");
    ti.data_type = to.data_type = F32;
    rd.output_pixel_offsets = NULL;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample3: output_pixel_offsets is NULL");
    rd.output_pixel_offsets = tu_pix_out;
    rd.dimension_count = 1;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample3: dimension_count must equal the tensors' dimension_count (2), "
                    "got 1");
    rd.dimension_count = 2;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_fails(dmlcl_operator_enqueue(op, NULL, 0, NULL, 0, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "resample3: expects 1 input and 1 output bindings");
    dmlcl_operator_release(op);
    rd.antialiased = 0; /* the RESAMPLE2 path names the operator too */
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_fails(dmlcl_operator_enqueue(op, NULL, 0, NULL, 0, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "resample3: expects 1 input and 1 output bindings");
    dmlcl_operator_release(op);
}
END_TEST

static void forget_plan_override(void)
{
    unsetenv("DMLCL_RESAMPLE_PLAN");
}

/* Every tap kernel layout, forced through $DMLCL_RESAMPLE_PLAN: the rows kernel (groups of
 * 64 and of 32), the segment kernel (segments of 5 and 256) and the 1-D kernels, on an antialiased 2x downsampling of 60 x 64 columns
 * (the rows kernel's case: 4 taps per column) and on randomized cases. Groups of 32 run
 * the randomized cases of groups of 64 again: the group size is no compile constant, so
 * they compile no program of their own. */
START_TEST(every_launch_shape)
{
    static const struct { const char *plan, *variant; } plans[] = {
        {"rows=1,seg=0", "variant=taps-rows"}, {"rows=1,seg=0,wg=32", "variant=taps-rows"},
        {"rows=1,seg=0,xc=3", "-DXC=3"}, /* 3 columns an item, the last item's partly dead */
        {"seg=5", "variant=taps-seg"}, {"seg=256", "variant=taps-seg"},
        {"rows=0", "variant=taps "}};
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8};
    uint64_t rng = 0x3a3b, groups_of_64 = 0;
    for (size_t pl = 0; pl < sizeof plans / sizeof plans[0]; pl++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[pl].plan, 1);
        case3 c;
        memset(&c, 0, sizeof c);
        c.rank = 3;
        c.type = F32;
        c.elem = 4;
        const uint32_t is[3] = {2, 60, 64}, os[3] = {2, 30, 32}; /* reference3: <= 64 */
        const float sc[3] = {1, 0.5f, 0.5f};
        memcpy(c.is, is, sizeof is), memcpy(c.os, os, sizeof os), memcpy(c.sc, sc, sizeof sc);
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        tu_make_strides(&rng, TU_PACKED, 3, c.is, -1, c.istr);
        tu_make_strides(&rng, TU_PADDED, 3, c.os, -1, c.ostr);
        dmlcl_operator *op = make3(3, F32, c.is, c.istr, c.os, c.ostr, LINEAR, 1, c.sc, c.ipo,
                                   c.opo);
        ck_assert_msg(strstr(dmlcl_operator_plan(op), plans[pl].variant) != NULL, "%s: %s",
                      plans[pl].plan, dmlcl_operator_plan(op));
        dmlcl_operator_release(op);
        check3(&rng, &c, 0);
        if (pl == 0)
            groups_of_64 = rng;
        uint64_t case_rng = pl == 1 ? groups_of_64 : rng;
        for (int n = 0; n < 9; n++) {
            c = random_case3(&case_rng, 1 + (uint32_t)n % 3, types[n % 3]);
            check3(&case_rng, &c, 1 + n);
        }
        if (pl != 1)
            rng = case_rng;
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

Suite *resample3_suite(void)
{
    Suite *s = suite_create("resample3");
    TCase *tc = tcase_create("resample3");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, NULL, report3);
    tcase_add_test(tc, hand_computed);
    tcase_add_test(tc, no_effect_cases);
    tcase_add_loop_test(tc, randomized_against_reference, 0, 5);
    tcase_add_checked_fixture(tc, NULL, forget_plan_override);
    tcase_add_test(tc, every_launch_shape);
    tcase_add_test(tc, validation);
    suite_add_tcase(s, tc);
    return s;
}
