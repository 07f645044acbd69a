/* Tiles and the halo query ("past one device"): for random descriptors and output boxes,
 * dmlcl_operator_input_box() is the smallest box holding every input element a plain C
 * reference of the spec reads; a tile created with exactly that input box reproduces the
 * whole run bit for bit, for every operator, data type and split (one-element tiles and
 * splits along several dimensions at once); bad tiles and boxes are refused with messages
 * naming the field and the rule. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* ---- a random case of the RESAMPLE family ------------------------------------------------ */

typedef struct tcase {
    dmlcl_operator_type type; /* RESAMPLE, RESAMPLE1, RESAMPLE2, RESAMPLE3, RESAMPLE_GRAD1 */
    uint32_t rank;
    int mode, dir, aa;
    dmlcl_tensor_data_type dtype;
    /* Logical sizes of the data input and the output (GRAD1: the incoming gradient, shaped
     * like the forward output, and the outgoing one, like the forward input). */
    uint32_t in[8], out[8];
    float scales[8], ipo[8], opo[8];
} tcase;

static const dmlcl_operator_type kinds[5] = {
    DMLCL_OPERATOR_RESAMPLE, DMLCL_OPERATOR_RESAMPLE1, DMLCL_OPERATOR_RESAMPLE2,
    DMLCL_OPERATOR_RESAMPLE3, DMLCL_OPERATOR_RESAMPLE_GRAD1};

static float pick_scale(uint64_t *rng)
{
    static const float s[] = {0.25f, 1.0f / 3, 0.4f, 0.5f, 0.6f, 0.75f, 1,
                              1.25f, 1.5f, 2,     2.5f, 3,    4};
    return s[tu_range(rng, 0, sizeof s / sizeof s[0] - 1)];
}

static tcase random_case(uint64_t *rng, uint32_t max_rank, uint32_t max_size)
{
    tcase c;
    memset(&c, 0, sizeof c);
    c.type = kinds[tu_range(rng, 0, 4)];
    c.rank = (uint32_t)tu_range(rng, 1, max_rank);
    c.mode = (int)tu_range(rng, 0, 1);
    c.dir = (int)tu_range(rng, 0, 1);
    c.aa = c.type == DMLCL_OPERATOR_RESAMPLE3 && tu_range(rng, 0, 3) != 0;
    c.dtype = F32;
    int centres = c.type == DMLCL_OPERATOR_RESAMPLE || tu_range(rng, 0, 1);
    for (uint32_t d = 0; d < c.rank; d++) {
        uint32_t fwd_in = (uint32_t)tu_range(rng, 1, max_size);
        float s = pick_scale(rng);
        uint32_t fwd_out = (uint32_t)floorf((float)fwd_in * s);
        if (fwd_out == 0 || tu_range(rng, 0, 4) == 0) /* sizes need not follow the scale */
            fwd_out = (uint32_t)tu_range(rng, 1, max_size);
        c.scales[d] = s;
        c.ipo[d] = centres ? 0.5f : (float)tu_range(rng, 0, 8) / 4 - 1;
        c.opo[d] = centres ? -0.5f : (float)tu_range(rng, 0, 8) / 4 - 1;
        c.in[d] = c.type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? fwd_out : fwd_in;
        c.out[d] = c.type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? fwd_in : fwd_out;
    }
    return c;
}

/* Every descriptor struct the family has, filled from the case; tensors given. */
typedef struct {
    dmlcl_resample_desc r0;
    dmlcl_resample1_desc r1;
    dmlcl_resample2_desc r2;
    dmlcl_resample3_desc r3;
    dmlcl_resample_grad1_desc g1;
    dmlcl_operator_desc od;
} descs;

static void make_desc(const tcase *c, const dmlcl_tensor_desc *ti, const dmlcl_tensor_desc *to,
                      descs *ds)
{
    dmlcl_interpolation_mode m = (dmlcl_interpolation_mode)c->mode;
    dmlcl_axis_direction dir = (dmlcl_axis_direction)c->dir;
    ds->r0 = (dmlcl_resample_desc){ti, to, m, c->rank, c->scales};
    ds->r1 = (dmlcl_resample1_desc){ti, to, m, c->rank, c->scales, c->ipo, c->opo};
    ds->r2 = (dmlcl_resample2_desc){ti, to, m, dir, c->rank, c->scales, c->ipo, c->opo};
    ds->r3 = (dmlcl_resample3_desc){ti, to, m, dir, c->rank, c->scales, c->ipo, c->opo, c->aa};
    ds->g1 = (dmlcl_resample_grad1_desc){ti, to, m, dir, c->rank, c->scales, c->ipo, c->opo};
    ds->od.type = c->type;
    ds->od.desc = c->type == DMLCL_OPERATOR_RESAMPLE    ? (const void *)&ds->r0
                  : c->type == DMLCL_OPERATOR_RESAMPLE1 ? (const void *)&ds->r1
                  : c->type == DMLCL_OPERATOR_RESAMPLE2 ? (const void *)&ds->r2
                  : c->type == DMLCL_OPERATOR_RESAMPLE3 ? (const void *)&ds->r3
                                                        : (const void *)&ds->g1;
}

/* ---- the reference: which input indices one output coordinate reads, per dimension ------
 * Written from the spec (doc/operators.md, dmlcl.h's comments), not from the library: the
 * forward map x = ((float)o - opo) / scale - ipo; nearest's index; linear's lower corner
 * and, where its weight is not 0, the upper one; the antialiased filter's taps of nonzero
 * weight. A dimension's reads, times the other dimensions', are the element's reads. */

static uint32_t ref_nearest(const tcase *c, float x, uint32_t n)
{
    float f = c->type == DMLCL_OPERATOR_RESAMPLE || c->type == DMLCL_OPERATOR_RESAMPLE1
                  ? floorf(x + 0.5f)
              : c->dir == 0 ? ceilf(x)
                            : floorf(x);
    return f <= 0 ? 0 : f >= (float)(n - 1) ? n - 1 : (uint32_t)f;
}

/* Forward reads of output coordinate o in dimension d (input size n): [*lo, *hi]. */
static void ref_forward(const tcase *c, uint32_t d, uint32_t o, uint32_t n, uint32_t *lo,
                        uint32_t *hi)
{
    float x = ((float)o - c->opo[d]) / c->scales[d] - c->ipo[d];
    int widened = c->type == DMLCL_OPERATOR_RESAMPLE3 && c->aa && c->mode == LINEAR &&
                  c->scales[d] < 1;
    if (c->mode == NEAREST) {
        *lo = *hi = ref_nearest(c, x, n);
    } else if (!widened) {
        float xc = fminf(fmaxf(x, 0), (float)(n - 1));
        *lo = (uint32_t)floorf(xc);
        *hi = xc - floorf(xc) != 0 ? *lo + 1 : *lo;
    } else { /* the triangle filter widened to 1 / scale, taps of nonzero weight */
        double ctr = (double)x + 0.5, sup = 1.0 / (double)c->scales[d], total = 0;
        int64_t a = (int64_t)fmax(ctr - sup + 0.5, 0), b = (int64_t)fmax(ctr + sup + 0.5, 0);
        a = a > (int64_t)n - 1 ? (int64_t)n - 1 : a;
        b = b > (int64_t)n ? (int64_t)n : b <= a ? a + 1 : b;
        for (int64_t j = a; j < b; j++)
            total += fmax(0, 1 - fabs((double)j + 0.5 - ctr) * c->scales[d]);
        *lo = UINT32_MAX, *hi = 0;
        for (int64_t j = a; j < b; j++) {
            double v = fmax(0, 1 - fabs((double)j + 0.5 - ctr) * c->scales[d]);
            float w = total > 0 ? (float)(v / total) : j == a ? 1.0f : 0.0f;
            if (w != 0) {
                *lo = *lo < (uint32_t)j ? *lo : (uint32_t)j;
                *hi = (uint32_t)j;
            }
        }
    }
}

/* Whether output coordinate o of dimension d reads input coordinate i. GRAD1: output i
 * (the forward input) reads incoming gradient o where the forward output o read i. */
static int ref_reads(const tcase *c, uint32_t d, uint32_t out_coord, uint32_t in_coord)
{
    uint32_t lo, hi;
    if (c->type == DMLCL_OPERATOR_RESAMPLE_GRAD1) {
        ref_forward(c, d, in_coord, c->out[d], &lo, &hi);
        return out_coord >= lo && out_coord <= hi;
    }
    ref_forward(c, d, out_coord, c->in[d], &lo, &hi);
    return in_coord >= lo && in_coord <= hi;
}

/* The smallest box holding every input element that the outputs of [ostart, ostart +
 * osize) read: elementwise over the output box, then over the inputs. */
static void ref_box(const tcase *c, const uint32_t *ostart, const uint32_t *osize,
                    uint32_t *istart, uint32_t *isize)
{
    uint32_t lo[8], hi[8];
    int any = 1;
    for (uint32_t d = 0; d < c->rank; d++) {
        lo[d] = UINT32_MAX, hi[d] = 0;
        for (uint32_t o = ostart[d]; o < ostart[d] + osize[d]; o++)
            for (uint32_t i = 0; i < c->in[d]; i++)
                if (ref_reads(c, d, o, i)) {
                    lo[d] = i < lo[d] ? i : lo[d];
                    hi[d] = i > hi[d] ? i : hi[d];
                }
        any &= lo[d] != UINT32_MAX && osize[d] > 0;
    }
    for (uint32_t d = 0; d < c->rank; d++) {
        istart[d] = any ? lo[d] : 0;
        isize[d] = any ? hi[d] - lo[d] + 1 : 0;
    }
}

static void random_box(uint64_t *rng, uint32_t rank, const uint32_t *sizes, uint32_t *start,
                       uint32_t *size)
{
    for (uint32_t d = 0; d < rank; d++) {
        start[d] = (uint32_t)tu_range(rng, 0, sizes[d] - 1);
        size[d] = (uint32_t)tu_range(rng, 1, sizes[d] - start[d]);
    }
}

static dmlcl_status input_box(const tcase *c, const uint32_t *os, const uint32_t *osz,
                              uint32_t *is, uint32_t *isz)
{
    dmlcl_tensor_desc ti = {c->dtype, c->rank, c->in, NULL, 0};
    dmlcl_tensor_desc to = {c->dtype, c->rank, c->out, NULL, 0};
    descs ds;
    make_desc(c, &ti, &to, &ds);
    return dmlcl_operator_input_box(&ds.od, os, osz, is, isz);
}

/* 600 random descriptors of every operator, three boxes each, against the reference. */
START_TEST(halo_is_the_smallest_box)
{
    uint64_t rng = 0x7115 + (uint64_t)_i;
    for (int n = 0; n < 600; n++) {
        tcase c = random_case(&rng, 4, 13);
        for (int b = 0; b < 3; b++) {
            uint32_t os[8], osz[8], is[8], isz[8], ws[8], wsz[8];
            random_box(&rng, c.rank, c.out, os, osz);
            tu_assert_ok(input_box(&c, os, osz, is, isz));
            ref_box(&c, os, osz, ws, wsz);
            for (uint32_t d = 0; d < c.rank; d++)
                tu_assert_each(is[d] == ws[d] && isz[d] == wsz[d],
                               "case %d (op %d, rank %u, mode %d, dir %d, aa %d) dim %u: box "
                               "[%u, +%u) of %u outputs reads [%u, +%u) of %u, dmlcl says "
                               "[%u, +%u)", n, (int)c.type, c.rank, c.mode, c.dir, c.aa, d,
                               os[d], osz[d], c.out[d], ws[d], wsz[d], c.in[d], is[d], isz[d]);
        }
    }
}
END_TEST

/* A box with a size of 0 reads nothing; the whole output reads what the operator reads. */
START_TEST(halo_empty_and_whole)
{
    tcase c;
    memset(&c, 0, sizeof c);
    c.type = DMLCL_OPERATOR_RESAMPLE1, c.rank = 2, c.mode = LINEAR, c.dtype = F32;
    c.in[0] = 4, c.in[1] = 6, c.out[0] = 8, c.out[1] = 12;
    for (int d = 0; d < 2; d++)
        c.scales[d] = 2, c.ipo[d] = 0.5f, c.opo[d] = -0.5f;
    uint32_t os[2] = {3, 0}, osz[2] = {0, 12}, is[2] = {9, 9}, isz[2] = {9, 9};
    tu_assert_ok(input_box(&c, os, osz, is, isz));
    ck_assert(is[0] == 0 && is[1] == 0 && isz[0] == 0 && isz[1] == 0);
    /* Pixel-centre linear 2x, x = (o + 0.5) / 2 - 0.5: the whole output reads the whole
     * input; rows 2..3 (x = 0.75, 1.25) read rows 0..2; column 11 (x = 5.25, clamped to 5
     * with weight 0 on column 6, which does not exist) only column 5. */
    uint32_t all[2] = {8, 12}, zero[2] = {0, 0};
    tu_assert_ok(input_box(&c, zero, all, is, isz));
    ck_assert(is[0] == 0 && isz[0] == 4 && is[1] == 0 && isz[1] == 6);
    uint32_t s2[2] = {2, 11}, z2[2] = {2, 1};
    tu_assert_ok(input_box(&c, s2, z2, is, isz));
    ck_assert_msg(is[0] == 0 && isz[0] == 3 && is[1] == 5 && isz[1] == 1,
                  "got [%u,+%u) x [%u,+%u)", is[0], isz[0], is[1], isz[1]);
}
END_TEST

START_TEST(halo_rejects_bad_boxes)
{
    tcase c;
    memset(&c, 0, sizeof c);
    c.type = DMLCL_OPERATOR_RESAMPLE2, c.rank = 2, c.mode = NEAREST, c.dtype = F32;
    c.in[0] = c.in[1] = 4, c.out[0] = c.out[1] = 8;
    for (int d = 0; d < 2; d++)
        c.scales[d] = 2, c.ipo[d] = 0.5f, c.opo[d] = -0.5f;
    uint32_t os[2] = {6, 0}, osz[2] = {3, 8}, is[2], isz[2];
    tu_assert_fails(input_box(&c, os, osz, is, isz), DMLCL_INVALID_ARGUMENT,
                    "resample2: output box start[0] + sizes[0] (6 + 3) must be <= the "
                    "output_tensor's sizes[0] (8)");
    os[0] = 0;
    tu_assert_fails(input_box(&c, NULL, osz, is, isz), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_input_box: output_start is NULL");
    tu_assert_fails(input_box(&c, os, osz, is, NULL), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_input_box: input_sizes is NULL");
    c.scales[1] = -1; /* the operator's own rules hold */
    tu_assert_fails(input_box(&c, os, osz, is, isz), DMLCL_INVALID_ARGUMENT,
                    "resample2: scales[1] must be finite and > 0, got -1");
    tu_assert_fails(dmlcl_operator_input_box(NULL, os, osz, is, isz), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_input_box: desc is NULL");
}
END_TEST

/* ---- the halo of any map, in constant time ------------------------------------------------ */

/* A float of any mantissa in [2^lo, 2^hi). */
static float any_float(uint64_t *rng, int lo, int hi)
{
    return ldexpf(1 + (float)tu_range(rng, 0, (1u << 23) - 1) / (1u << 23),
                  (int)tu_range(rng, (uint64_t)(lo + 64), (uint64_t)(hi + 63)) - 64);
}

/* random_case with scales and offsets of any mantissa (the float steps land anywhere, not
 * on quarters): tiny and huge scales, offsets that push every output past an edge. */
static tcase any_map_case(uint64_t *rng)
{
    tcase c = random_case(rng, 3, 13);
    for (uint32_t d = 0; d < c.rank; d++) {
        int wide = tu_range(rng, 0, 7) == 0;
        c.scales[d] = wide ? any_float(rng, -24, 24) : any_float(rng, -3, 3);
        if (c.type == DMLCL_OPERATOR_RESAMPLE)
            continue; /* its offsets are the pixel centres' */
        c.ipo[d] = (tu_range(rng, 0, 1) ? 1 : -1) * any_float(rng, -8, wide ? 30 : 3);
        c.opo[d] = (tu_range(rng, 0, 1) ? 1 : -1) * any_float(rng, -8, wide ? 30 : 3);
    }
    return c;
}

/* The box as the union of what each output coordinate reads on its own: per dimension,
 * one-coordinate boxes along it (the others whole), the element-by-element answer. */
static void union_box(const tcase *c, const uint32_t *os, const uint32_t *osz, uint32_t *is,
                      uint32_t *isz)
{
    int any = 1;
    uint32_t lo[8], hi[8];
    for (uint32_t d = 0; d < c->rank; d++) {
        uint32_t s[8], z[8], bs[8], bz[8];
        memcpy(s, os, sizeof s), memcpy(z, osz, sizeof z);
        lo[d] = UINT32_MAX, hi[d] = 0, z[d] = 1;
        for (s[d] = os[d]; s[d] < os[d] + osz[d]; s[d]++) {
            tu_assert_ok(input_box(c, s, z, bs, bz));
            if (bz[d] > 0)
                lo[d] = bs[d] < lo[d] ? bs[d] : lo[d], hi[d] = bs[d] + bz[d] > hi[d] ? bs[d] + bz[d] : hi[d];
        }
        any &= lo[d] < hi[d];
    }
    for (uint32_t d = 0; d < c->rank; d++)
        is[d] = any ? lo[d] : 0, isz[d] = any ? hi[d] - lo[d] : 0;
}

/* The box of a range of outputs comes from its first and last coordinates alone (the map
 * is monotone): for any scale and offsets it is the element-by-element union and the
 * spec's smallest box, for every operator, mode, rounding direction and antialiasing. */
START_TEST(halo_of_any_map_is_the_union)
{
    uint64_t rng = 0xb0c5 + (uint64_t)_i;
    for (int n = 0; n < 800; n++) {
        tcase c = any_map_case(&rng);
        for (int b = 0; b < 3; b++) {
            uint32_t os[8], osz[8], is[8], isz[8], us[8], usz[8], ws[8], wsz[8];
            random_box(&rng, c.rank, c.out, os, osz);
            tu_assert_ok(input_box(&c, os, osz, is, isz));
            union_box(&c, os, osz, us, usz);
            ref_box(&c, os, osz, ws, wsz);
            for (uint32_t d = 0; d < c.rank; d++)
                tu_assert_each(is[d] == us[d] && isz[d] == usz[d] && is[d] == ws[d] &&
                                   isz[d] == wsz[d],
                               "case %d (op %d, mode %d, dir %d, aa %d, scale %a, offsets %a "
                               "%a) dim %u: box [%u, +%u) of %u outputs: dmlcl [%u, +%u), "
                               "union [%u, +%u), spec [%u, +%u) of %u", n, (int)c.type,
                               c.mode, c.dir, c.aa, (double)c.scales[d], (double)c.ipo[d],
                               (double)c.opo[d], d, os[d], osz[d], c.out[d], is[d], isz[d],
                               us[d], usz[d], ws[d], wsz[d], c.in[d]);
        }
    }
}
END_TEST

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One long dimension (a seismic trace, an audio signal) of 3e9 outputs: every box query,
 * the whole output included, takes a few map evaluations, not one per output (20 s each
 * when it visited them). 10 ms is far above what it takes, even under sanitizers. */
START_TEST(halo_of_a_long_dimension_is_quick)
{
    static const struct {
        dmlcl_operator_type type;
        int mode, dir, aa;
        uint32_t in, out;
        float scale, ipo, opo;
        uint32_t whole_start, whole_size; /* what the whole output reads */
    } cases[] = {
        {DMLCL_OPERATOR_RESAMPLE1, LINEAR, 0, 0, 1500000000u, 3000000000u, 2, 0.5f, -0.5f,
         0, 1500000000u},
        {DMLCL_OPERATOR_RESAMPLE1, NEAREST, 0, 0, 1500000000u, 3000000000u, 2, 0.5f, -0.5f,
         0, 1500000000u},
        /* A fuzzer's: every output clamps to the one input element. */
        {DMLCL_OPERATOR_RESAMPLE1, LINEAR, 0, 0, 1, 2358021260u, 4.77e27f, 2.76e23f, 4.52e27f,
         0, 1},
        {DMLCL_OPERATOR_RESAMPLE2, NEAREST, 1, 0, 1000000000u, 3000000000u, 3, 0, 0, 0,
         1000000000u},
        {DMLCL_OPERATOR_RESAMPLE3, LINEAR, 0, 1, 4000000000u, 3000000000u, 0.75f, 0.5f, -0.5f,
         0, 4000000000u},
        /* Windows of 2e9 taps each. */
        {DMLCL_OPERATOR_RESAMPLE3, LINEAR, 0, 1, 4000000000u, 3000000000u, 1e-9f, 0.5f, -0.5f,
         0, 4000000000u},
        {DMLCL_OPERATOR_RESAMPLE_GRAD1, LINEAR, 0, 0, 1500000000u, 3000000000u, 0.5f, 0.5f,
         -0.5f, 0, 1500000000u},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tcase c;
        memset(&c, 0, sizeof c);
        c.type = cases[k].type, c.rank = 1, c.mode = cases[k].mode, c.dir = cases[k].dir;
        c.aa = cases[k].aa, c.dtype = F32, c.in[0] = cases[k].in, c.out[0] = cases[k].out;
        c.scales[0] = cases[k].scale, c.ipo[0] = cases[k].ipo, c.opo[0] = cases[k].opo;
        const uint32_t n = c.out[0];
        const uint32_t boxes[5][2] = {{0, n}, {0, n / 2}, {n / 2, n - n / 2}, {n - 1000, 1000},
                                      {2000000000u, 1}};
        for (int b = 0; b < 5; b++) {
            uint32_t is, isz;
            const double t0 = seconds();
            tu_assert_ok(input_box(&c, &boxes[b][0], &boxes[b][1], &is, &isz));
            const double ms = (seconds() - t0) * 1e3;
            ck_assert_msg(ms < 10, "case %zu box [%u, +%u): %.1f ms", k, boxes[b][0],
                          boxes[b][1], ms);
            ck_assert_msg(b > 0 || (is == cases[k].whole_start && isz == cases[k].whole_size),
                          "case %zu: the whole output reads [%u, +%u)", k, is, isz);
        }
    }
}
END_TEST

/* ---- tiles reproduce the whole run ---------------------------------------------------- */

static uint32_t elem_size(dmlcl_tensor_data_type t)
{
    return dmlcl_data_type_size(t);
}

/* Random bytes that are finite values of the type (FLOAT16: no NaN / Inf patterns). */
static void random_fill(uint64_t *rng, dmlcl_tensor_data_type t, unsigned char *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        double v = (double)tu_range(rng, 0, 2000000) / 1000 - 1000;
        switch (t) {
        case F32: { float f = (float)v; memcpy(p + 4 * i, &f, 4); break; }
        case F64: memcpy(p + 8 * i, &v, 8); break;
        case F16: { uint16_t h = tu_float_to_half((float)(v / 16)); memcpy(p + 2 * i, &h, 2); break; }
        default: p[i] = (unsigned char)tu_rand(rng); break;
        }
    }
}

/* Copies box [start, start + size) of a packed tensor of `sizes` into (from, if back) a
 * tensor of the box's sizes laid out with strides. */
static void copy_box(uint32_t rank, uint32_t es, const uint32_t *sizes, const unsigned char *whole,
                     const uint32_t *start, const uint32_t *size, const uint32_t *strides,
                     unsigned char *tile, int back, unsigned char *whole_out)
{
    uint32_t idx[8] = {0};
    uint32_t wstr[8];
    uint64_t s = 1;
    for (int d = (int)rank - 1; d >= 0; d--)
        wstr[d] = (uint32_t)s, s *= sizes[d];
    do {
        uint64_t w = 0, t = 0;
        for (uint32_t d = 0; d < rank; d++)
            w += (uint64_t)(start[d] + idx[d]) * wstr[d], t += (uint64_t)idx[d] * strides[d];
        if (back)
            memcpy(whole_out + w * es, tile + t * es, es);
        else
            memcpy(tile + t * es, whole + w * es, es);
    } while (tu_next_index(rank, size, idx));
}

/* The tile's operator; with `whole` (the descriptor of the whole tensors), made as a layer
 * makes it: from the library's copy of whole, given each tile's box and strides. */
static dmlcl_operator *create_tile(const tcase *c, const dmlcl_operator_desc *whole,
                                   const uint32_t *is, const uint32_t *isz,
                                   const uint32_t *istr, const uint32_t *os,
                                   const uint32_t *osz, const uint32_t *ostr)
{
    dmlcl_operator *op = NULL;
    if (whole) {
        dmlcl_operator_desc *copy = NULL;
        tu_assert_ok(dmlcl_operator_desc_copy(whole, &copy));
        dmlcl_tile_box bin = {is, isz, istr}, bout = {os, osz, ostr};
        tu_assert_ok(dmlcl_operator_create_tile_box(tu_context(), copy, &bin, &bout, &op));
        dmlcl_operator_desc_free(copy);
        return op;
    }
    dmlcl_tensor_desc ti = {c->dtype, c->rank, isz, istr, 0};
    dmlcl_tensor_desc to = {c->dtype, c->rank, osz, ostr, 0};
    dmlcl_tile_desc tin = {c->rank, c->in, is}, tout = {c->rank, c->out, os};
    descs ds;
    make_desc(c, &ti, &to, &ds);
    tu_assert_ok(dmlcl_operator_create_tile(tu_context(), &ds.od, &tin, &tout, &op));
    return op;
}

/* Cut points of one dimension into up to 3 parts (one-element parts likely on short
 * dimensions): fills cuts[0..parts], returns parts. */
static uint32_t random_cuts(uint64_t *rng, uint32_t n, uint32_t *cuts)
{
    uint32_t parts = (uint32_t)tu_range(rng, 1, n < 3 ? n : 3);
    cuts[0] = 0;
    cuts[parts] = n;
    for (uint32_t p = 1; p < parts; p++) {
        uint32_t lo = cuts[p - 1] + 1, hi = n - (parts - p);
        cuts[p] = (uint32_t)tu_range(rng, lo, hi);
    }
    return parts;
}

static size_t tiles_run;

/* Runs the case whole, then on every tile of a random grid (input tile = the halo box,
 * padded strides on odd tiles), and compares the tiles' outputs with the whole's bytes. */
static void check_split(const tcase *c, uint64_t *rng)
{
    const uint32_t es = elem_size(c->dtype);
    uint64_t nin = 1, nout = 1;
    for (uint32_t d = 0; d < c->rank; d++)
        nin *= c->in[d], nout *= c->out[d];
    unsigned char *in = malloc(nin * es), *want = malloc(nout * es), *got = malloc(nout * es);
    random_fill(rng, c->dtype, in, nin);
    dmlcl_tensor_desc wi = {c->dtype, c->rank, c->in, NULL, 0};
    dmlcl_tensor_desc wo = {c->dtype, c->rank, c->out, NULL, 0};
    descs ds;
    make_desc(c, &wi, &wo, &ds);
    dmlcl_operator *whole = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &ds.od, &whole));
    const void *ins[1] = {in};
    void *outs[1] = {want};
    tu_assert_ok(dmlcl_operator_execute_host(whole, ins, outs));
    dmlcl_operator_release(whole);
    memset(got, 0xEE, nout * es);

    uint32_t cuts[8][4], parts[8], t[8] = {0};
    for (uint32_t d = 0; d < c->rank; d++)
        parts[d] = random_cuts(rng, c->out[d], cuts[d]);
    uint32_t count = 0;
    do {
        uint32_t os[8], osz[8], is[8], isz[8], istr[8], ostr[8];
        for (uint32_t d = 0; d < c->rank; d++)
            os[d] = cuts[d][t[d]], osz[d] = cuts[d][t[d] + 1] - os[d];
        tu_assert_ok(input_box(c, os, osz, is, isz));
        if (isz[0] == 0) { /* reads nothing (GRAD1: no forward output reads the box) */
            for (uint32_t d = 0; d < c->rank; d++)
                is[d] = 0, isz[d] = 1;
        }
        tu_make_strides(rng, count % 2 ? TU_PADDED : TU_PACKED, c->rank, isz, -1, istr);
        tu_make_strides(rng, count % 3 == 1 ? TU_PADDED : TU_PACKED, c->rank, osz, -1, ostr);
        unsigned char *ti = calloc(tu_span(c->rank, isz, istr), es);
        unsigned char *to = calloc(tu_span(c->rank, osz, ostr), es);
        copy_box(c->rank, es, c->in, in, is, isz, istr, ti, 0, NULL);
        /* every third tile as a layer makes it, from the whole descriptor */
        dmlcl_operator *op =
            create_tile(c, count % 3 == 2 ? &ds.od : NULL, is, isz, istr, os, osz, ostr);
        const void *tins[1] = {ti};
        void *touts[1] = {to};
        tu_assert_ok(dmlcl_operator_execute_host(op, tins, touts));
        dmlcl_operator_release(op);
        copy_box(c->rank, es, c->out, NULL, os, osz, ostr, to, 1, got);
        free(ti);
        free(to);
        count++;
    } while (tu_next_index(c->rank, parts, t));
    for (uint64_t i = 0; i < nout; i++)
        tu_assert_each(!memcmp(got + i * es, want + i * es, es),
                       "op %d rank %u mode %d dir %d aa %d type %d: output element %llu of "
                       "the tiles differs from the whole run", (int)c->type, c->rank, c->mode,
                       c->dir, c->aa, (int)c->dtype, (unsigned long long)i);
    tiles_run += count;
    free(in);
    free(want);
    free(got);
}

/* Every operator of the family, all five data types, random grids. */
START_TEST(tiles_match_the_whole_run)
{
    static const dmlcl_tensor_data_type types[5] = {F32, F16, F64, I8, U8};
    uint64_t rng = 0x711E5 + (uint64_t)_i;
    for (int n = 0; n < 4; n++) { /* 5 x 4 cases: every type under 4 seeds */
        tcase c = random_case(&rng, 3, 9);
        c.dtype = types[(n + _i) % 5];
        check_split(&c, &rng);
    }
}
END_TEST

/* The shapes the MPI example splits: a resampled outer dimension cut into slabs, with
 * antialiased 0.5x, linear 2x and its gradient, and one-element slabs. */
START_TEST(tiles_slabs_of_a_field)
{
    uint64_t rng = 0x51AB;
    static const dmlcl_operator_type ops[4] = {DMLCL_OPERATOR_RESAMPLE1, DMLCL_OPERATOR_RESAMPLE1,
                                               DMLCL_OPERATOR_RESAMPLE3,
                                               DMLCL_OPERATOR_RESAMPLE_GRAD1};
    static const float sc[4] = {2, 0.5f, 0.5f, 2};
    static const int modes[4] = {LINEAR, NEAREST, LINEAR, LINEAR};
    for (int k = 0; k < 4; k++) {
        tcase c;
        memset(&c, 0, sizeof c);
        c.type = ops[k], c.rank = 3, c.mode = modes[k], c.aa = 1, c.dtype = F32;
        for (uint32_t d = 0; d < 3; d++) {
            uint32_t fin = d == 0 ? 7 : 10, fout = (uint32_t)((float)fin * sc[k]);
            c.scales[d] = sc[k], c.ipo[d] = 0.5f, c.opo[d] = -0.5f;
            c.in[d] = c.type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? fout : fin;
            c.out[d] = c.type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? fin : fout;
        }
        for (int rep = 0; rep < 2; rep++)
            check_split(&c, &rng);
    }
}
END_TEST

/* ---- REVERSE_SUBSEQUENCES: tiles along any dimension but the axis ------------------------ */

START_TEST(reverse_tiles_match_the_whole_run)
{
    uint64_t rng = 0x2E7;
    const uint32_t sizes[3] = {5, 4, 6}, axis = 2;
    const uint32_t lsz[3] = {5, 4, 1};
    uint32_t data[120], lengths[20], want[120], got[120];
    for (int i = 0; i < 120; i++)
        data[i] = (uint32_t)i;
    for (int i = 0; i < 20; i++)
        lengths[i] = (uint32_t)tu_range(&rng, 0, 7);
    dmlcl_tensor_desc t = {DMLCL_TENSOR_DATA_TYPE_UINT32, 3, sizes, NULL, 0};
    dmlcl_tensor_desc l = {DMLCL_TENSOR_DATA_TYPE_UINT32, 3, lsz, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&t, &l, &t, axis};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    const void *ins[2] = {data, lengths};
    void *outs[1] = {want};
    dmlcl_operator *op;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
    /* Output tile rows [1, 4) x columns [1, 3), input tile one larger on each side. */
    const uint32_t os[3] = {1, 1, 0}, osz[3] = {3, 2, 6}, is[3] = {0, 0, 0}, isz[3] = {5, 4, 6};
    uint32_t ibox[3], iboxsz[3];
    tu_assert_ok(dmlcl_operator_input_box(&od, os, osz, ibox, iboxsz));
    ck_assert(ibox[0] == 1 && iboxsz[0] == 3 && ibox[1] == 1 && iboxsz[1] == 2 &&
              ibox[2] == 0 && iboxsz[2] == 6);
    const uint32_t ilsz[3] = {5, 4, 1};
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_UINT32, 3, isz, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 3, ilsz, NULL, 0};
    dmlcl_tensor_desc to = {DMLCL_TENSOR_DATA_TYPE_UINT32, 3, osz, NULL, 0};
    dmlcl_reverse_subsequences_desc td = {&ti, &tl, &to, axis};
    dmlcl_operator_desc tod = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &td};
    dmlcl_tile_desc tin = {3, sizes, is}, tout = {3, sizes, os};
    tu_assert_ok(dmlcl_operator_create_tile(tu_context(), &tod, &tin, &tout, &op));
    void *touts[1] = {got};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, touts));
    dmlcl_operator_release(op);
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 2; b++)
            for (uint32_t x = 0; x < 6; x++)
                ck_assert_uint_eq(got[(a * 2 + b) * 6 + x],
                                  want[((a + 1) * 4 + b + 1) * 6 + x]);
    /* The same tile from the whole descriptor, as a layer makes it: the lengths follow the
     * input's box, 1 long on the axis. */
    ck_assert_ptr_eq(dmlcl_operator_desc_tensor(&od, 2), &l);
    dmlcl_tile_box bin = {is, isz, NULL}, bout = {os, osz, NULL};
    memset(got, 0, sizeof got);
    tu_assert_ok(dmlcl_operator_create_tile_box(tu_context(), &od, &bin, &bout, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, touts));
    dmlcl_operator_release(op);
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 2; b++)
            for (uint32_t x = 0; x < 6; x++)
                ck_assert_uint_eq(got[(a * 2 + b) * 6 + x],
                                  want[((a + 1) * 4 + b + 1) * 6 + x]);
    /* A tile that cuts the axis is refused. */
    const uint32_t cut[3] = {3, 2, 4};
    dmlcl_tensor_desc tc = {DMLCL_TENSOR_DATA_TYPE_UINT32, 3, cut, NULL, 0};
    td.output_tensor = &tc;
    tu_assert_fails(dmlcl_operator_create_tile(tu_context(), &tod, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT,
                    "reverse_subsequences: output_tile must span the whole axis 2 (start 0, "
                    "size 6), got start 0 and size 4");
}
END_TEST

/* ---- bad tiles ------------------------------------------------------------------------ */

START_TEST(bad_tiles_are_refused)
{
    const uint32_t in[2] = {4, 6}, out[2] = {8, 12}, tin_sz[2] = {2, 6}, tout_sz[2] = {4, 12};
    const float sc[2] = {2, 2};
    dmlcl_tensor_desc ti = {F32, 2, tin_sz, NULL, 0}, to = {F32, 2, tout_sz, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 2, sc, tu_pix_in, tu_pix_out};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    const uint32_t s0[2] = {0, 0}, s2[2] = {2, 0}, s4[2] = {4, 0}, s3[2] = {3, 0};
    dmlcl_tile_desc tin = {2, in, s0}, tout = {2, out, s0};
    dmlcl_operator *op = NULL;
    dmlcl_context *ctx = tu_context();
    /* Output rows 0..3 read input rows 0..2 (x = 1.25 for row 3): a tile of 2 is short. */
    tu_assert_fails(dmlcl_operator_create_tile(ctx, &od, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT,
                    "resample1: input_tile covers [0, 2) of dimension 0, but the output "
                    "tile reads [0, 3) (see dmlcl_operator_input_box)");
    tout.start = s4; /* rows 4..7 read 1..3 */
    tin.start = s2;
    tu_assert_fails(dmlcl_operator_create_tile(ctx, &od, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT, "input_tile covers [2, 4) of dimension 0, but the "
                    "output tile reads [1, 4)");
    tin.start = s3; /* 3 + 2 > 4 */
    tu_assert_fails(dmlcl_operator_create_tile(ctx, &od, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT,
                    "resample1: input_tile start[0] + input_tensor sizes[0] (3 + 2) must be "
                    "<= logical_sizes[0] (4)");
    tin.start = s0;
    tin.dimension_count = 3;
    tu_assert_fails(dmlcl_operator_create_tile(ctx, &od, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT,
                    "resample1: input_tile dimension_count must equal input_tensor's (2), got 3");
    tin.dimension_count = 2;
    tout.logical_sizes = NULL;
    tu_assert_fails(dmlcl_operator_create_tile(ctx, &od, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT, "resample1: output_tile logical_sizes is NULL");
    tout.logical_sizes = out;
    tout.start = NULL;
    tu_assert_fails(dmlcl_operator_create_tile(ctx, &od, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT, "resample1: output_tile start is NULL");
    const uint32_t zero_log[2] = {0, 12};
    tout.start = s0;
    tout.logical_sizes = zero_log;
    tu_assert_fails(dmlcl_operator_create_tile(ctx, &od, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT,
                    "resample1: output_tile logical_sizes[0] must be >= 1, got 0");
    ck_assert_ptr_null(op);
    /* The operator's rules still come first and name their fields. */
    tout.logical_sizes = out;
    rd.scales = NULL;
    tu_assert_fails(dmlcl_operator_create_tile(ctx, &od, &tin, &tout, &op),
                    DMLCL_INVALID_ARGUMENT, "resample1: scales is NULL");
}
END_TEST

/* ---- descriptors held by layers ------------------------------------------------------ */

START_TEST(held_descriptors_are_deep_and_checked)
{
    const uint32_t in[2] = {4, 6}, out[2] = {8, 12};
    float sc[2] = {2, 2};
    dmlcl_tensor_desc ti = {F32, 2, in, NULL, 0}, to = {F32, 2, out, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 2, sc, tu_pix_in, tu_pix_out};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    dmlcl_operator_desc *copy = NULL;
    tu_assert_ok(dmlcl_operator_desc_copy(&od, &copy));
    /* The copy holds its own tensors and arrays: the caller's may change or go. */
    sc[0] = 3;
    const dmlcl_tensor_desc *ci = dmlcl_operator_desc_tensor(copy, 0);
    const dmlcl_tensor_desc *co = dmlcl_operator_desc_tensor(copy, 1);
    ck_assert(ci != &ti && co != &to && ci->sizes != in && ci->sizes[1] == 6 && co->sizes[0] == 8);
    ck_assert(((const dmlcl_resample1_desc *)copy->desc)->scales[0] == 2);
    ck_assert_ptr_null(dmlcl_operator_desc_tensor(copy, 2)); /* no lengths */
    const uint32_t s0[2] = {0, 0}, s2[2] = {2, 0}, sz[2] = {2, 6}, osz[2] = {4, 12};
    dmlcl_tile_box bin = {s0, sz, NULL}, bout = {s0, osz, NULL};
    dmlcl_operator *op = NULL;
    dmlcl_context *ctx = tu_context();
    /* The tile's rules are dmlcl_operator_create_tile's, named as there. */
    tu_assert_fails(dmlcl_operator_create_tile_box(ctx, copy, &bin, &bout, &op),
                    DMLCL_INVALID_ARGUMENT,
                    "resample1: input_tile covers [0, 2) of dimension 0, but the output "
                    "tile reads [0, 3) (see dmlcl_operator_input_box)");
    bin.start = s2;
    tu_assert_fails(dmlcl_operator_create_tile_box(ctx, copy, &bin, &bout, &op),
                    DMLCL_INVALID_ARGUMENT, "input_tile covers [2, 4) of dimension 0");
    tu_assert_fails(dmlcl_operator_create_tile_box(ctx, copy, NULL, &bout, &op),
                    DMLCL_INVALID_ARGUMENT, "dmlcl_operator_create_tile_box: input is NULL");
    bout.sizes = NULL;
    tu_assert_fails(dmlcl_operator_create_tile_box(ctx, copy, &bin, &bout, &op),
                    DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_create_tile_box: output->sizes is NULL");
    ck_assert_ptr_null(op);
    dmlcl_operator_desc_free(copy);
    dmlcl_operator_desc_free(NULL);
    /* What cannot be copied is refused, naming why. */
    od.type = (dmlcl_operator_type)99;
    tu_assert_fails(dmlcl_operator_desc_copy(&od, &copy), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_desc_copy: desc->type 99 is not an operator type");
    ck_assert_ptr_null(copy);
    ck_assert_ptr_null(dmlcl_operator_desc_tensor(&od, 0));
    od.type = DMLCL_OPERATOR_RESAMPLE1;
    rd.input_tensor = NULL;
    tu_assert_fails(dmlcl_operator_desc_copy(&od, &copy), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_desc_copy: resample1's tensor 0 is NULL");
    rd.input_tensor = &ti;
    rd.dimension_count = 99;
    tu_assert_fails(dmlcl_operator_desc_copy(&od, &copy), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_desc_copy: resample1's arrays hold 99 values, over the "
                    "most dimensions");
}
END_TEST

static void report(void)
{
    printf("tiles: %zu tile runs matched their whole runs bit for bit\n", tiles_run);
}

Suite *tiles_suite(void)
{
    Suite *s = suite_create("tiles");
    TCase *tc = tcase_create("tiles");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, halo_is_the_smallest_box, 0, 2);
    tcase_add_test(tc, halo_empty_and_whole);
    tcase_add_test(tc, halo_rejects_bad_boxes);
    tcase_add_loop_test(tc, halo_of_any_map_is_the_union, 0, 2);
    tcase_add_test(tc, halo_of_a_long_dimension_is_quick);
    tcase_add_loop_test(tc, tiles_match_the_whole_run, 0, 5);
    tcase_add_test(tc, tiles_slabs_of_a_field);
    tcase_add_test(tc, reverse_tiles_match_the_whole_run);
    tcase_add_test(tc, bad_tiles_are_refused);
    tcase_add_test(tc, held_descriptors_are_deep_and_checked);
    tcase_add_unchecked_fixture(tc, NULL, report);
    suite_add_tcase(s, tc);
    return s;
}
