/* RESAMPLE_GRAD1's kernel layouts, each forced through $DMLCL_RESAMPLE_PLAN and compared
 * with the scatter or with each other bit for bit (the rows, segment and 1-D kernels, the
 * segment kernel's vector pattern, channels-last vectors, 64-bit indices), run to run
 * determinism, and the context's memo of tap rows. */
#include "grad1_case.h"
#include "core/context.h" /* white-box: the context's memo */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dmlcl_test_resample_force_idx64(int on); /* test hooks exported by the library */
uint64_t dmlcl_test_resample_plans(void);

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
 * with segments of 16 on rows of 35 (a partial one per row) and on rows of 9 (longer than
 * the row; groups of 4 items), and the 1-D kernels. Linear 2x (4 taps), nearest 3x and
 * 5x (up to 4 and 7 taps), channels-last (columns of W x C), then randomized cases. Where
 * the columns cannot apply (12 taps, 4 tabled dimensions), the layouts fall back to the
 * 1-D kernels; 3 tabled dimensions (volumes) take them. The second plan of a pair changes
 * the group size (a local size) and the rows' width (an argument), not the segment's
 * length (a compile constant): it compiles no program of its own. */
START_TEST(every_launch_shape)
{
    static const struct { const char *plan, *variant; uint32_t width; } plans[] = {
        {"rows=1,seg=0", "variant=taps-rows", 35}, {"rows=1,seg=0,wg=32", "variant=taps-rows", 35},
        {"rows=1,seg=16", "variant=taps-seg", 35}, {"rows=1,seg=16,wg=4", "variant=taps-seg", 9},
        {"rows=0", "variant=taps ", 35}};
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8};
    uint64_t rng = 0x7a95, pair_rng = rng;
    char plan[320];
    for (size_t pl = 0; pl < sizeof plans / sizeof plans[0]; pl++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[pl].plan, 1);
        const char *want = plans[pl].variant;
        const uint32_t os[4] = {2, 3, 9, plans[pl].width};
        const struct { int mode; float s; int fits; } shapes[] = {
            {LINEAR, 2, 1}, {NEAREST, 3, 1}, {NEAREST, 5, 1}, {NEAREST, 12, 0}};
        /* The second plan of a pair (another group size or segment: the same kernel)
         * takes every other shape. */
        for (int k = 0; k < 4; k += 1 + (int)(pl % 2)) {
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
        /* Four random cases per kernel, their ranks, types and modes turning with the
         * kernel (each case compiles a program or two: 9 per layout took 10 s); the second
         * plan of a pair runs the first's cases again, at its group size or segment. */
        if (pl % 2 == 0)
            pair_rng = rng;
        uint64_t case_rng = pair_rng;
        for (int n = 0; n < 4; n++) {
            const int r = n + (int)(pl - pl % 2);
            gcase c = random_gcase(&case_rng, 1 + (uint32_t)r % 4, types[r % 3], r % 2);
            check_gcase(&case_rng, &c, 6 + n);
        }
    }
    const uint32_t os[4] = {2, 3, 9, 35};
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
 * products). Images, volumes (3 tabled dimensions), 1-D; FLOAT32, FLOAT16, FLOAT64; the
 * rows kernel with one column an item and with the GPUs' default (xc=2 for images, 4 for
 * volumes: XCS). */
#define XCS "rows=1,seg=0,xc="
START_TEST(layouts_agree_bit_for_bit)
{
    static const char *const plans[] = {"rows=0", "rows=1,seg=0", "seg=16", XCS};
    static const struct { uint32_t rank, gs[5], os[5]; float sc[5]; } shapes[] = {
        {4, {2, 3, 18, 70}, {2, 3, 9, 35}, {1, 1, 2, 2}},
        {5, {1, 2, 10, 12, 66}, {1, 2, 5, 4, 33}, {1, 1, 2, 3, 2}},
        {1, {150}, {40}, {3.75f}},
    };
    static const dmlcl_tensor_data_type types[] = {F32, F16, F64};
    uint64_t rng = 0xb17;
    for (int n = 0; n < 13; n++) {
        /* Cases 9-12 again LINEAR with +Inf in every fifth element: a weight-0 tap (past a
         * row's count, or at a clamped edge) must drop it, not turn the sum into NaN. */
        const int inf = n >= 9, k = n % 3, mode = n < 6 || inf ? LINEAR : NEAREST;
        const dmlcl_tensor_data_type t = inf ? (n < 12 ? F32 : F16) : types[n / 3 % 3];
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
        const uint32_t f32_inf = 0x7f800000u;
        const uint16_t f16_inf = 0x7c00u;
        for (size_t e = 0; inf && e < ng; e += 5)
            memcpy(g + e * elem, t == F32 ? (const void *)&f32_inf : (const void *)&f16_inf, elem);
        for (int pl = 0; pl < 4; pl++) {
            char plan[32];
            snprintf(plan, sizeof plan, "%s%s", plans[pl], pl < 3 ? "" : k == 1 ? "4" : "2");
            setenv("DMLCL_RESAMPLE_PLAN", plan, 1);
            grad_host(t, shapes[k].rank, shapes[k].gs, shapes[k].os, mode, INC, shapes[k].sc,
                      tu_pix_in, tu_pix_out, g, pl ? out : first);
            ck_assert_msg(!pl || !memcmp(first, out, no * elem), "shape %d, type %d, mode %d: "
                          "%s differs from %s", k, t, mode, plan, plans[0]);
        }
        free(g), free(first), free(out);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Random elements of type t (integers: small, so that few sums saturate). */
static void fill_random(uint64_t *rng, dmlcl_tensor_data_type t, unsigned char *p, size_t n)
{
    const size_t elem = dmlcl_data_type_size(t);
    for (size_t e = 0; e < n; e++) {
        double v = (double)tu_range(rng, 0, 20000) / 97 - 100, lo, hi;
        if (t == F32) { float f = (float)v; memcpy(p + e * 4, &f, 4); }
        else if (t == F64) memcpy(p + e * 8, &v, 8);
        else if (t == F16) { uint16_t h = tu_float_to_half((float)v); memcpy(p + e * 2, &h, 2); }
        else if (tu_int_range(t, &lo, &hi))
            tu_int_store(t, p + e * elem, (double)tu_range(rng, 0, 40) - (lo < 0) * 20);
    }
}

/* The segment kernel's vector pattern (CPUs' default; tp=1 forces it on any device) sums
 * the same terms in the same order as its column-by-column loop (tp=0): the same bits, in
 * every data type, for images (odd widths: the rows' last vectors and the edges go column
 * by column), channels-last runs of 8 and 4 channels, segments of 512 and of 32 columns,
 * linear and nearest; volumes with rows of 32, whose first and last vectors each hold an
 * edge column that the vector redoes alone (the first from its last lane's pattern), with
 * the outer taps kept per row (4 x 4) or not (8 x 8); and with the pattern's non-temporal
 * stores (nt=1: rows of 133 floats, some starting a 64-byte line, most not). The plan
 * names the pattern. (Few cases: two compiles each, and tests/targets_test.sh builds them
 * for two more targets; each type comes once.) */
START_TEST(tap_pattern_bit_for_bit)
{
    static const struct { uint32_t gs[4], os[4]; float sc[4]; int mode; } shapes[] = {
        {{1, 3, 74, 266}, {1, 3, 37, 133}, {1, 1, 2, 2}, LINEAR},
        {{1, 38, 74, 8}, {1, 19, 37, 8}, {1, 2, 2, 1}, LINEAR},
        {{2, 18, 82, 4}, {2, 9, 41, 4}, {1, 2, 2, 1}, LINEAR},
        {{1, 2, 30, 200}, {1, 2, 15, 100}, {1, 1, 2, 2}, NEAREST},
        {{1, 10, 12, 64}, {1, 5, 6, 32}, {1, 2, 2, 2}, LINEAR},
        {{1, 20, 24, 64}, {1, 5, 6, 32}, {1, 4, 4, 2}, LINEAR},
    };
    /* inf: every fifth gradient element +Inf: a tap of weight 0 adds nothing, not the NaN
     * of 0 x Inf, in the pattern's vectors as in the plain loop (a vector summed without
     * the choice per term fails here). */
    static const struct { int shape; dmlcl_tensor_data_type t; const char *on, *off; int inf; } cases[] = {
        {0, F32, "seg=512,tp=1", "seg=512,tp=0", 0}, {0, F16, "seg=32,tp=1", "seg=32,tp=0", 0},
        {0, U8, "seg=32,tp=1", "seg=32,tp=0", 0},    {1, F64, "seg=512,tp=1", "seg=512,tp=0", 0},
        {2, I8, "seg=512,tp=1", "seg=512,tp=0", 0},  {3, F32, "seg=32,tp=1", "seg=32,tp=0", 0},
        {0, I16, "seg=32,tp=1", "seg=32,tp=0", 0},   {2, U16, "seg=512,tp=1", "seg=512,tp=0", 0},
        {0, F32, "seg=512,tp=1", "seg=512,tp=0", 1}, {1, F16, "seg=32,tp=1", "seg=32,tp=0", 1},
        {0, F32, "seg=512,tp=1,nt=1", "seg=512,tp=0", 0},
        {4, F32, "seg=512,tp=1", "seg=512,tp=0", 0}, {5, F16, "seg=32,tp=1", "seg=32,tp=0", 0},
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
        const uint32_t f32_inf = 0x7f800000u;
        const uint16_t f16_inf = 0x7c00u;
        for (size_t e = 0; cases[n].inf && e < ng; e += 5)
            memcpy(g + e * elem, t == F32 ? (const void *)&f32_inf : (const void *)&f16_inf, elem);
        /* Built only (tests/targets_test.sh, other CPU targets): the pattern's programs,
         * whose vectors are the target's; the plain segment kernel (tp=0) has none and is
         * built and run on the host's target here. */
        for (int v = 0; v < 2 - tu_compile_only(); v++) {
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
            const int nt = !v && strstr(cases[n].on, "nt=1");
            ck_assert_msg((strstr(plan, "-DSEGNT=1") != NULL) == nt, "case %zu: %s", n, plan);
            dmlcl_operator_release(op);
            if (!tu_compile_only())
                tu_run_host(&od, g, v ? b : a);
        }
        ck_assert_msg(tu_compile_only() || !memcmp(a, b, no * elem), "case %zu (type %d): the vector pattern "
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

/* The context's memo (lib/core/memo.h): a second operator with the same descriptor takes
 * its plan and table buffer from the memo, and is not planned again; operators whose
 * descriptors differ from it in one input of a dimension's rows (an offset, the scale,
 * the mode, the direction, a size) must not: each is planned and checked against the
 * scatter after the others filled it, then again from the memo. */
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
    uint64_t hits = m->hits, plans = dmlcl_test_resample_plans();
    check_gcase(&rng, &base, 1);
    ck_assert_uint_ge(m->hits, hits + 1);
    ck_assert_uint_eq(dmlcl_test_resample_plans() - plans, 0);
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
    for (int k = 0; k < 6; k++) {
        plans = dmlcl_test_resample_plans();
        check_gcase(&rng, &v[k], 2 + k);
        ck_assert_uint_eq(dmlcl_test_resample_plans() - plans, 1);
    }
    plans = dmlcl_test_resample_plans();
    for (int k = 5; k >= 0; k--) /* now every one from the memo, in another order */
        check_gcase(&rng, &v[k], 8 + k);
    ck_assert_uint_eq(dmlcl_test_resample_plans() - plans, 0);
    check_gcase(&rng, &base, 14);
}
END_TEST

static void report(void)
{
    printf("resample_grad1_layouts: %zu elements checked against the scatter (both suites), "
           "%zu not bit-identical\n", g_outputs, g_inexact);
}

Suite *resample_grad1_layouts_suite(void)
{
    Suite *s = suite_create("resample_grad1_layouts");
    TCase *tc = tcase_create("resample_grad1_layouts");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, NULL, report);
    tcase_add_checked_fixture(tc, NULL, forget_plan_override);
    tcase_add_test(tc, every_launch_shape);
    tcase_add_test(tc, index64_kernels);
    tcase_add_test(tc, layouts_agree_bit_for_bit);
    tcase_add_test(tc, channels_last_vectors);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, memo_shares_tables);
    /* A case of its own: tests/targets_test.sh builds it for other CPU targets. */
    TCase *tp = tcase_create("tap_pattern");
    tcase_set_timeout(tp, 300);
    tcase_add_checked_fixture(tp, NULL, forget_plan_override);
    tcase_add_checked_fixture(tp, tu_specialize_sync, tu_specialize_restore);
    tcase_set_tags(tp, "targets"); /* tests/targets_test.sh builds these for other CPUs */
    tcase_add_test(tp, tap_pattern_bit_for_bit);
    suite_add_tcase(s, tp);
    suite_add_tcase(s, tc);
    return s;
}
