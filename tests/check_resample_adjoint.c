/* RESAMPLE_GRAD1 as the exact transpose of its forward pass (<Ax, y> = <x, A^T y>), for every
 * coordinate rule the forward pass has: identity (scale 1, offsets that cancel in float32,
 * which the forward pass copies even where the formula lands an ulp off), integer up- and
 * downsampling, fractional scales, shifts, FLT_MAX, nearest's floor and ceil, LINEAR,
 * under every plan ($DMLCL_RESAMPLE_PLAN unset, rows=0, cpu=0,tp=0). F is RESAMPLE2 (or,
 * LINEAR, RESAMPLE1), G RESAMPLE_GRAD1 with the same fields. Two properties:
 *   - FLOAT64: <dy, F(x)> = <G(dy), x> to 1e-12 of the sum of the terms' magnitudes
 *     (<|dy|, F(|x|)>: the weights are >= 0) on random tensors;
 *   - small cases, every data type: G's matrix (G applied to unit vectors) equals the
 *     transpose of F's (F applied to unit vectors), bit for bit.
 * With the pattern kernels on (the default plan, on CPUs) each new scale of an inner
 * dimension is a new program, so there every dimension takes one of a few fixed maps per
 * kind; under the other plans every scale and offset is random. */
#include "grad1_case.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dmlcl_status forward_create(const gcase *c, int r1, dmlcl_operator **op)
{
    dmlcl_tensor_desc tx = {c->type, c->rank, c->os, c->ostr, 0};
    dmlcl_tensor_desc ty = {c->type, c->rank, c->gs, c->gstr, 0};
    const dmlcl_interpolation_mode m = (dmlcl_interpolation_mode)c->mode;
    dmlcl_resample1_desc d1 = {&tx, &ty, m, c->rank, c->sc, c->ipo, c->opo};
    dmlcl_resample2_desc d2 = {&tx, &ty, m, (dmlcl_axis_direction)c->dir, c->rank, c->sc,
                               c->ipo, c->opo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE2, &d2};
    if (r1)
        od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE1, &d1};
    return dmlcl_operator_create(tu_context(), &od, op);
}

/* One run of op on host arrays of `in_span` and `out_span` elements. */
static void run(dmlcl_operator *op, const void *in, void *out)
{
    const void *ins[1] = {in};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
}

static uint64_t elements(uint32_t rank, const uint32_t *sizes)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < rank; d++)
        n *= sizes[d];
    return n;
}

/* Element offsets of a shape's logical elements, in row-major order. */
static uint64_t *offsets_of(uint32_t rank, const uint32_t *sizes, const uint32_t *strides)
{
    uint64_t *off = malloc(elements(rank, sizes) * sizeof *off), k = 0;
    uint32_t i[8] = {0};
    do
        off[k++] = tu_offset(rank, i, strides);
    while (tu_next_index(rank, sizes, i));
    return off;
}

/* A map kind for one dimension: its scale, offsets and the forward output size. */
enum { K_IDENTITY, K_UP, K_DOWN, K_FRACTION, K_SHIFT, K_HUGE, K_KINDS };

static float random_offset(uint64_t *rng)
{
    return (float)tu_range(rng, 0, 2000) / 1000.0f - 1.0f; /* mostly inexact in float32 */
}

/* Dimension d of c: input size n_in, a map of `kind`; fixed: one of a few maps that the
 * pattern kernels see again and again (the default plan). */
static void random_dim(uint64_t *rng, gcase *c, uint32_t d, uint32_t n_in, int kind, int fixed)
{
    c->os[d] = n_in;
    int pix = (int)tu_range(rng, 0, 2);
    c->ipo[d] = pix == 0 ? 0.5f : pix == 1 ? 0 : random_offset(rng);
    c->opo[d] = pix == 0 ? -0.5f : pix == 1 ? 0 : random_offset(rng);
    switch (kind) {
    case K_IDENTITY: /* the forward pass copies (LINEAR); offsets that cancel in float32 */
        c->sc[d] = 1;
        c->ipo[d] = fixed || tu_range(rng, 0, 1) ? 0.3f : random_offset(rng);
        c->opo[d] = -c->ipo[d];
        c->gs[d] = n_in;
        break;
    case K_UP: /* 2x or 3x */
        c->sc[d] = fixed ? 2 : (float)tu_range(rng, 2, 3);
        if (fixed)
            c->ipo[d] = 0.5f, c->opo[d] = -0.5f;
        c->gs[d] = (uint32_t)(n_in * c->sc[d]) - (uint32_t)tu_range(rng, 0, 1);
        break;
    case K_DOWN: /* 1/2 or 1/3 */
        c->sc[d] = fixed ? 0.5f : 1.0f / (float)tu_range(rng, 2, 3);
        if (fixed)
            c->ipo[d] = 0.5f, c->opo[d] = -0.5f;
        c->gs[d] = (uint32_t)ceilf((float)n_in * c->sc[d]);
        break;
    case K_FRACTION:
        c->sc[d] = fixed ? 1.5f : 0.3f + (float)tu_range(rng, 0, 3700) / 1000.0f;
        if (fixed)
            c->ipo[d] = 0.5f, c->opo[d] = -0.5f;
        c->gs[d] = (uint32_t)fmaxf(1, roundf((float)n_in * c->sc[d]));
        break;
    case K_SHIFT: /* scale 1, offsets that do not cancel */
        c->sc[d] = 1;
        c->ipo[d] = fixed ? 0.25f : random_offset(rng);
        c->opo[d] = fixed ? 0 : random_offset(rng);
        c->gs[d] = n_in + (uint32_t)tu_range(rng, 0, 1);
        break;
    default: /* every output reads input 0 */
        c->sc[d] = FLT_MAX;
        c->gs[d] = (uint32_t)tu_range(rng, 1, 4);
    }
    c->gs[d] = c->gs[d] ? c->gs[d] : 1;
}

/* Strides of one of the layouts: packed, padded, permuted or channels-last. */
static void random_layout(uint64_t *rng, uint32_t rank, const uint32_t *sizes, uint32_t *str)
{
    int layout = (int)tu_range(rng, 0, rank >= 3 ? 3 : 2);
    if (layout == 3)
        tu_channels_last(rank, sizes, str);
    else
        tu_make_strides(rng, layout == 0 ? TU_PACKED : layout == 1 ? TU_PADDED : TU_TRANSPOSED,
                        rank, sizes, -1, str);
}

/* A case of rank 1..max_rank whose forward input and output hold at most `most` elements
 * each; fixed: every dimension takes one of the fixed maps. */
static gcase random_acase(uint64_t *rng, dmlcl_tensor_data_type type, uint32_t max_rank,
                          uint64_t most, int fixed)
{
    gcase c;
    do {
        memset(&c, 0, sizeof c);
        c.type = type;
        c.elem = dmlcl_data_type_size(type);
        c.rank = (uint32_t)tu_range(rng, 1, max_rank);
        c.mode = tu_range(rng, 0, 2) ? LINEAR : NEAREST;
        c.dir = (int)tu_range(rng, 0, 1);
        uint32_t cap = c.rank == 1 ? 24 : c.rank == 2 ? 9 : 5;
        for (uint32_t d = 0; d < c.rank; d++)
            random_dim(rng, &c, d, (uint32_t)tu_range(rng, 1, cap),
                       (int)tu_range(rng, 0, K_KINDS - 1), fixed);
        random_layout(rng, c.rank, c.os, c.ostr);
        random_layout(rng, c.rank, c.gs, c.gstr);
    } while (elements(c.rank, c.os) > most || elements(c.rank, c.gs) > most);
    return c;
}

/* Random values in [-1, 1] at the tensor's elements, 0 in the padding. */
static double *random_tensor(uint64_t *rng, uint64_t span, const uint64_t *off, uint64_t n)
{
    double *t = calloc(span, sizeof *t);
    for (uint64_t k = 0; k < n; k++)
        t[off[k]] = (double)tu_range(rng, 0, 1u << 20) / (1u << 19) - 1.0;
    return t;
}

static int plan_index; /* which of plans[] the loop test runs */
static const char *const plans[] = {NULL, "rows=0", "cpu=0,tp=0"};

static void set_plan(int i)
{
    if (plans[i])
        setenv("DMLCL_RESAMPLE_PLAN", plans[i], 1);
    else
        unsetenv("DMLCL_RESAMPLE_PLAN");
}

static void forget_plan(void)
{
    unsetenv("DMLCL_RESAMPLE_PLAN");
}

static size_t adjoint_cases, transpose_entries;

/* <dy, F(x)> = <G(dy), x> on FLOAT64, to 1e-12 of the sum of |terms|. */
static void check_adjoint(uint64_t *rng, const gcase *c, int r1, int n)
{
    dmlcl_operator *f = NULL, *g = NULL;
    tu_assert_ok(forward_create(c, r1, &f));
    tu_assert_ok(gcase_create(c, &g));
    const uint64_t nx = elements(c->rank, c->os), ny = elements(c->rank, c->gs);
    const uint64_t sx = tu_span(c->rank, c->os, c->ostr), sy = tu_span(c->rank, c->gs, c->gstr);
    uint64_t *ox = offsets_of(c->rank, c->os, c->ostr), *oy = offsets_of(c->rank, c->gs, c->gstr);
    double *x = random_tensor(rng, sx, ox, nx), *dy = random_tensor(rng, sy, oy, ny);
    double *y = calloc(sy, sizeof *y), *dx = calloc(sx, sizeof *dx);
    double *ax = calloc(sx, sizeof *ax), *ay = calloc(sy, sizeof *ay);
    run(f, x, y);
    run(g, dy, dx);
    for (uint64_t k = 0; k < nx; k++)
        ax[ox[k]] = fabs(x[ox[k]]);
    run(f, ax, ay); /* F(|x|): the weights are >= 0, so <|dy|, F(|x|)> sums |terms| */
    long double lhs = 0, rhs = 0, mag = 0;
    for (uint64_t k = 0; k < ny; k++) {
        lhs += (long double)dy[oy[k]] * y[oy[k]];
        mag += fabsl((long double)dy[oy[k]]) * ay[oy[k]];
    }
    for (uint64_t k = 0; k < nx; k++)
        rhs += (long double)dx[ox[k]] * x[ox[k]];
    ck_assert_msg(fabsl(lhs - rhs) <= 1e-12L * mag,
                  "case %d (plan %s, rank %u, %s, %s, forward %s; G: %s): <dy, F(x)> = %.17Lg, "
                  "<G(dy), x> = %.17Lg, sum of |terms| %.6Lg", n,
                  plans[plan_index] ? plans[plan_index] : "default", c->rank,
                  c->mode == LINEAR ? "linear" : "nearest", c->dir == INC ? "INC" : "DEC",
                  dmlcl_operator_plan(f), dmlcl_operator_plan(g), lhs, rhs, mag);
    adjoint_cases++;
    dmlcl_operator_release(f);
    dmlcl_operator_release(g);
    free(ox), free(oy), free(x), free(dy), free(y), free(dx), free(ax), free(ay);
}

/* F's matrix (ny x nx elements of c's type, row-major): F of the unit vectors of x. */
static unsigned char *forward_matrix(const gcase *c, int r1)
{
    dmlcl_operator *f = NULL;
    tu_assert_ok(forward_create(c, r1, &f));
    const uint64_t nx = elements(c->rank, c->os), ny = elements(c->rank, c->gs);
    const size_t e = c->elem;
    uint64_t *ox = offsets_of(c->rank, c->os, c->ostr), *oy = offsets_of(c->rank, c->gs, c->gstr);
    unsigned char *x = calloc(tu_span(c->rank, c->os, c->ostr), e),
                  *y = malloc(tu_span(c->rank, c->gs, c->gstr) * e), *fm = malloc(nx * ny * e),
                  one[8];
    gstore(c, one, 1);
    for (uint64_t j = 0; j < nx; j++) { /* column j */
        memcpy(x + ox[j] * e, one, e);
        run(f, x, y);
        memset(x + ox[j] * e, 0, e);
        for (uint64_t o = 0; o < ny; o++)
            memcpy(fm + (o * nx + j) * e, y + oy[o] * e, e);
    }
    dmlcl_operator_release(f);
    free(ox), free(oy), free(x), free(y);
    return fm;
}

/* G (c's RESAMPLE_GRAD1) of the unit vectors of dy against the transpose of fm: the
 * entries whose bytes differ; with `fail`, the first fails the test (n: the case). */
static uint64_t transpose_mismatches(const gcase *c, const unsigned char *fm, int fail, int n)
{
    dmlcl_operator *g = NULL;
    tu_assert_ok(gcase_create(c, &g));
    const uint64_t nx = elements(c->rank, c->os), ny = elements(c->rank, c->gs);
    const size_t e = c->elem;
    uint64_t *ox = offsets_of(c->rank, c->os, c->ostr), *oy = offsets_of(c->rank, c->gs, c->gstr);
    unsigned char *dy = calloc(tu_span(c->rank, c->gs, c->gstr), e),
                  *dx = malloc(tu_span(c->rank, c->os, c->ostr) * e), one[8];
    uint64_t differ = 0;
    gstore(c, one, 1);
    for (uint64_t o = 0; o < ny; o++) { /* row o of G's transpose */
        memcpy(dy + oy[o] * e, one, e);
        run(g, dy, dx);
        memset(dy + oy[o] * e, 0, e);
        for (uint64_t j = 0; j < nx; j++) {
            const unsigned char *want = fm + (o * nx + j) * e, *got = dx + ox[j] * e;
            differ += memcmp(want, got, e) != 0;
            tu_assert_each(!fail || !differ,
                           "case %d (plan %s, type %d, rank %u, %s, %s; G: %s): F[%llu][%llu] = "
                           "%.17g but G[%llu][%llu] = %.17g", n,
                           plans[plan_index] ? plans[plan_index] : "default", c->type, c->rank,
                           c->mode == LINEAR ? "linear" : "nearest", c->dir == INC ? "INC" : "DEC",
                           dmlcl_operator_plan(g), (unsigned long long)o, (unsigned long long)j,
                           gload(c, want), (unsigned long long)j, (unsigned long long)o,
                           gload(c, got));
            transpose_entries++;
        }
    }
    dmlcl_operator_release(g);
    free(ox), free(oy), free(dy), free(dx);
    return differ;
}

/* G's matrix equals F's transpose, every element's bytes. */
static void check_transpose(const gcase *c, int r1, int n)
{
    unsigned char *fm = forward_matrix(c, r1);
    transpose_mismatches(c, fm, 1, n);
    free(fm);
}

/* The case: a scale-1 dimension with offsets 0.3 / -0.3 is copied by the forward
 * pass, so its gradient is the incoming one, whatever the plan and type. */
START_TEST(cancelling_offsets_are_identity)
{
    static const dmlcl_tensor_data_type types[] = {F64, F32};
    for (int pl = 0; pl < 3; pl++) {
        plan_index = pl;
        set_plan(pl);
        for (int t = 0; t < 2; t++) {
            gcase c;
            memset(&c, 0, sizeof c);
            c.rank = 1, c.type = types[t], c.elem = dmlcl_data_type_size(types[t]);
            c.mode = LINEAR, c.dir = INC;
            c.os[0] = c.gs[0] = 4, c.ostr[0] = c.gstr[0] = 1;
            c.sc[0] = 1, c.ipo[0] = 0.3f, c.opo[0] = -0.3f;
            unsigned char x[32], y[32], dy[32], dx[32];
            for (int k = 0; k < 4; k++)
                gstore(&c, x + k * c.elem, k + 1), gstore(&c, dy + k * c.elem, 1);
            dmlcl_operator *f = NULL, *g = NULL;
            tu_assert_ok(forward_create(&c, 1, &f));
            tu_assert_ok(gcase_create(&c, &g));
            run(f, x, y);
            run(g, dy, dx);
            ck_assert_msg(!memcmp(x, y, 4 * c.elem), "forward: not a copy");
            for (int k = 0; k < 4; k++)
                ck_assert_msg(gload(&c, dx + k * c.elem) == 1, "plan %s, type %d: dx[%d] = %.17g",
                              plans[pl] ? plans[pl] : "default", c.type, k,
                              gload(&c, dx + k * c.elem));
            ck_assert_msg(strstr(dmlcl_operator_plan(g), "tabled=0"), "G: %s",
                          dmlcl_operator_plan(g)); /* a plain stride, as the forward pass */
            dmlcl_operator_release(f);
            dmlcl_operator_release(g);
            check_transpose(&c, 1, -1);
        }
    }
}
END_TEST

/* RESAMPLE1's nearest rounds half up, floor(x + 0.5); RESAMPLE_GRAD1 has only
 * RESAMPLE2's floor and ceil, so it has no exact backward pass of it (the bindings refuse
 * one): the same offsets give other indices, and moving the input offset by 0.5 to mimic
 * it (DECREASING with in - 0.5, INCREASING with in + 0.5) rounds differently in float32.
 * Scale 3, offsets -0.7 / -1.4, 8 -> 24: output 13 reads input 5 (x + 0.5 = 5.9999995),
 * DECREASING with -1.2 gives 6; INCREASING with -0.2 moves the ties x + 0.5 = k. */
START_TEST(nearest_half_up_has_no_exact_backward)
{
    gcase c;
    memset(&c, 0, sizeof c);
    c.rank = 1, c.type = F32, c.elem = 4, c.mode = NEAREST;
    c.os[0] = 8, c.gs[0] = 24, c.ostr[0] = c.gstr[0] = 1;
    c.sc[0] = 3, c.ipo[0] = -0.7f, c.opo[0] = -1.4f;
    unsigned char *fm = forward_matrix(&c, 1);
    const float in = c.ipo[0];
    const struct { int dir; float ipo; } tries[] = {
        {DEC, in}, {INC, in}, {DEC, in - 0.5f}, {INC, in + 0.5f}};
    for (int t = 0; t < 4; t++) {
        c.dir = tries[t].dir;
        c.ipo[0] = tries[t].ipo;
        ck_assert_msg(transpose_mismatches(&c, fm, 0, t) > 0, "try %d is the transpose", t);
    }
    free(fm);
}
END_TEST

/* Random FLOAT64 cases: the inner products, and the transpose on the small ones. */
START_TEST(adjoint_float64)
{
    plan_index = _i;
    set_plan(_i);
    uint64_t rng = 0xad701 + (uint64_t)_i;
    for (int n = 0; n < 15; n++) {
        gcase c = random_acase(&rng, F64, 4, n % 3 ? 48 : 600, plans[_i] == NULL);
        int r1 = c.mode == LINEAR && tu_range(&rng, 0, 1);
        check_adjoint(&rng, &c, r1, n);
        if (n % 3)
            check_transpose(&c, r1, n);
    }
}
END_TEST

/* The other data types: G's matrix is F's transpose, bit for bit (both round the same
 * product of the same weights once). Ranks up to 2 and one 8-bit type (INT8 runs UINT8's
 * code), so that few programs are built for them. */
START_TEST(transpose_every_type)
{
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8};
    plan_index = _i;
    set_plan(_i);
    uint64_t rng = 0x7a5e + (uint64_t)_i;
    for (int n = 0; n < 9; n++) {
        gcase c = random_acase(&rng, types[n % 3], 2, 40, plans[_i] == NULL);
        check_transpose(&c, c.mode == LINEAR && tu_range(&rng, 0, 1), n);
    }
}
END_TEST

static dmlcl_cache_stats before;

static void count_compiles(void)
{
    dmlcl_cache_get_stats(&before);
}

static void report(void)
{
    dmlcl_cache_stats after;
    dmlcl_cache_get_stats(&after);
    printf("resample_adjoint: %zu inner-product cases, %zu transpose entries compared, "
           "%llu programs compiled\n", adjoint_cases, transpose_entries,
           (unsigned long long)(after.compiles - before.compiles));
}

Suite *resample_adjoint_suite(void)
{
    Suite *s = suite_create("resample_adjoint");
    TCase *tc = tcase_create("adjoint");
    tcase_set_timeout(tc, 600);
    tcase_add_checked_fixture(tc, NULL, forget_plan);
    tcase_add_unchecked_fixture(tc, count_compiles, report);
    tcase_add_test(tc, cancelling_offsets_are_identity);
    tcase_add_test(tc, nearest_half_up_has_no_exact_backward);
    tcase_add_loop_test(tc, adjoint_float64, 0, 3);
    tcase_add_loop_test(tc, transpose_every_type, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}
