/* The RESAMPLE1 planner as pure functions: coordinate rows, dimension classification,
 * collapsing, variant choice. No OpenCL device involved. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "resample/resample1/resample1_plan.h"
#include "resample/taps/taps.h"
#include "reverse/plan.h"
#include "core/slab.h"
#include "plantensor.h"

static const dmlcl__limits gpu = {1024, 132, 0, 64, 0};
static const dmlcl__limits cpu = {4096, 2, 1, 64, 0}; /* AVX-512 */
static const dmlcl__limits avx2 = {4096, 2, 1, 32, 0};
static const dmlcl__limits sse = {4096, 2, 1, 16, 0};

/* A tensor by hand (tests/plantensor.h). */
static dmlcl__tensor tensor(uint32_t rank, const uint64_t *sizes, const uint64_t *strides,
                            dmlcl_tensor_data_type type, uint32_t elem)
{
    return plan_tensor(rank, sizes, strides, type, elem);
}

static const float half8[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
static const float mhalf8[8] = {-0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f};
static const float zero8[8] = {0};

static dmlcl__resample1_plan plan_f32(uint32_t rank, const uint64_t *in_sizes,
                                      const uint64_t *in_str, const uint64_t *out_sizes,
                                      const uint64_t *out_str, int linear, const float *scales,
                                      const float *ipo, const float *opo)
{
    dmlcl__tensor in = tensor(rank, in_sizes, in_str, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(rank, out_sizes, out_str, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p;
    dmlcl__resample1_plan_make(&in, &out, linear, scales, ipo, opo, &gpu, 0, &p);
    return p;
}

/* ---- coordinate rows --------------------------------------------------------------------- */

START_TEST(nearest_4_to_2_pixel_centre_picks_1_and_3)
{
    /* x = (o + 0.5) / 0.5 - 0.5 = 0.5 and 2.5: exact ties, rounded up. */
    ck_assert_float_eq(dmlcl__resample1_coord(0, 0.5f, 0.5f, -0.5f), 0.5f);
    ck_assert_float_eq(dmlcl__resample1_coord(1, 0.5f, 0.5f, -0.5f), 2.5f);
    ck_assert_uint_eq(dmlcl__resample1_nearest(0.5f, 4), 1);
    ck_assert_uint_eq(dmlcl__resample1_nearest(2.5f, 4), 3);
}
END_TEST

START_TEST(scale_3_pixel_centre_rows)
{
    /* 2 -> 6: x = (o + 0.5) / 3 - 0.5 = -1/3, 0, 1/3, 2/3, 1, 4/3 (0 and 1 exactly). */
    static const uint32_t expect[6] = {0, 0, 0, 1, 1, 1};
    for (uint32_t o = 0; o < 6; o++)
        ck_assert_uint_eq(dmlcl__resample1_nearest(dmlcl__resample1_coord(o, 3, 0.5f, -0.5f), 2),
                          expect[o]);
    ck_assert_float_eq(dmlcl__resample1_coord(1, 3, 0.5f, -0.5f), 0.0f);
    ck_assert_float_eq(dmlcl__resample1_coord(4, 3, 0.5f, -0.5f), 1.0f);
    ck_assert_float_eq(dmlcl__resample1_coord(7, 3, 0.5f, -0.5f), 2.0f);
    /* Ties with scale 3 (x = (o + 0.5) / 3, output offset -0.5 only): o = 1 gives 0.5. */
    ck_assert_float_eq(dmlcl__resample1_coord(1, 3, 0, -0.5f), 0.5f);
    ck_assert_uint_eq(dmlcl__resample1_nearest(0.5f, 5), 1);
    ck_assert_float_eq(dmlcl__resample1_coord(4, 3, 0, -0.5f), 1.5f);
    ck_assert_uint_eq(dmlcl__resample1_nearest(1.5f, 5), 2);
}
END_TEST

START_TEST(linear_rows_clamp_and_weights)
{
    float w;
    ck_assert_uint_eq(dmlcl__resample1_linear(-0.25f, 2, &w), 0);
    ck_assert_float_eq(w, 0);
    ck_assert_uint_eq(dmlcl__resample1_linear(0.25f, 2, &w), 0);
    ck_assert_float_eq(w, 0.25f);
    ck_assert_uint_eq(dmlcl__resample1_linear(0.75f, 2, &w), 0);
    ck_assert_float_eq(w, 0.75f);
    ck_assert_uint_eq(dmlcl__resample1_linear(1.25f, 2, &w), 1);
    ck_assert_float_eq(w, 0);
    ck_assert_uint_eq(dmlcl__resample1_linear(1.0f, 2, &w), 1); /* x = n - 1: i1 = i0 */
    ck_assert_float_eq(w, 0);
    ck_assert_uint_eq(dmlcl__resample1_linear(5.5f, 1, &w), 0); /* n = 1 */
    ck_assert_float_eq(w, 0);
}
END_TEST

START_TEST(extreme_scales_and_sizes)
{
    /* FLT_MAX maps every output to input 0; tiny scales send coordinates to +inf. */
    float x = dmlcl__resample1_coord(1000, FLT_MAX, 0.5f, -0.5f);
    ck_assert_uint_eq(dmlcl__resample1_nearest(x, 9), 0);
    x = dmlcl__resample1_coord(3, 1e-38f, 0, 0);
    ck_assert(x > 1e30f);
    ck_assert_uint_eq(dmlcl__resample1_nearest(x, 9), 8);
    float w;
    ck_assert_uint_eq(dmlcl__resample1_linear(x, 9, &w), 8);
    ck_assert_float_eq(w, 0);
    ck_assert_uint_eq(dmlcl__resample1_nearest(-1e30f, 9), 0);
    /* Sizes near 2^32 clamp in exact arithmetic: n - 1 is not a float. */
    const uint64_t n = 0xffffffffull;
    ck_assert_uint_eq(dmlcl__resample1_nearest(5e9f, n), n - 1);
    ck_assert_uint_eq(dmlcl__resample1_linear(4294967040.0f, n, &w), 4294967040u);
    ck_assert_float_eq(w, 0);
    ck_assert_uint_eq(dmlcl__resample1_linear(4294967296.0f, n, &w), n - 1);
}
END_TEST

/* ---- classification and collapsing ------------------------------------------------------- */

/* GPUs: a resampled inner dimension of at least 64 outputs runs the 2-D row kernels, 8
 * outputs per item for nearest and for LINEAR upsampled 2x or more along it, else 4
 * (lib/resample/resample1/resample1_plan.h's DMLCL_R1_ROWS_VEC); shorter rows, and CPUs,
 * do not. */
START_TEST(gpu_row_kernels)
{
    const uint64_t is[4] = {2, 3, 40, 50}, os[4] = {2, 3, 80, 100}, short_os[4] = {2, 3, 80, 60};
    const float sc[4] = {1, 1, 2, 2}, short_sc[4] = {1, 1, 2, 1.2f};
    for (int linear = 0; linear < 2; linear++) {
        dmlcl__resample1_plan p = plan_f32(4, is, NULL, os, NULL, linear, sc, half8, mhalf8);
        ck_assert_int_eq(p.rows_2d, 1);
        ck_assert_uint_eq(p.rv, 8);
        ck_assert_uint_eq(p.chunks, 13); /* 100 outputs in vectors of 8 */
        ck_assert_uint_eq(p.local2[0], 16);
        ck_assert_uint_eq(p.global2[0] % p.local2[0], 0);
        ck_assert_uint_eq(p.global2[0] * p.rv >= 100, 1);
        p = plan_f32(4, is, NULL, short_os, NULL, linear, short_sc, half8, mhalf8);
        ck_assert_int_eq(p.rows_2d, 0); /* rows of 60 */
        dmlcl__tensor in = tensor(4, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmlcl__tensor out = tensor(4, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmlcl__resample1_plan_make(&in, &out, linear, sc, half8, mhalf8, &cpu, 0, &p);
        ck_assert_int_eq(p.rows_2d, 0);
    }
}
END_TEST

/* The LINEAR row kernels' window: where an upsampled row's neighbouring outputs share
 * input columns in a pattern every sampled item fits (edges clamped), the pattern of
 * lower columns (a nibble per output) and the columns read; nothing where the pattern
 * drifts (1.5x, 10x), would not save loads (downsampling), or the kernels are not rows ones. */
START_TEST(linear_row_window)
{
    static const struct {
        uint64_t in, out;
        uint32_t wpat, win;
        int rv12;
    } cases[] = {
        {512, 1024, 0x2110, 4, 0}, {512, 2048, 0x1100, 3, 0}, {64, 512, 0x0000, 2, 0},
        {100, 1000, 0, 0, 0},      {512, 768, 0, 0, 1},       {1024, 512, 0, 0, 0},
        {2, 256, 0x0000, 2, 0},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        const uint64_t is[3] = {3, 10, cases[n].in}, os[3] = {3, 20, cases[n].out};
        const float sc[3] = {1, 2, (float)cases[n].out / (float)cases[n].in};
        dmlcl__resample1_plan p = plan_f32(3, is, NULL, os, NULL, 1, sc, half8, mhalf8);
        ck_assert_int_eq(p.rows_2d, 1);
        ck_assert_uint_eq(p.rv, cases[n].out >= 2 * cases[n].in ? 8 : cases[n].rv12 ? 12 : 4);
        dmlcl__tensor ti = tensor(3, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmlcl__tensor to = tensor(3, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmlcl__r1_tune t4; /* the table's windows are those of 4 outputs per item */
        ck_assert_int_eq(dmlcl__r1_tune_parse("rv=4", &t4), 0);
        dmlcl__resample1_plan_launch(&p, &ti, &to, &gpu, &t4, 0);
        ck_assert_msg(p.wpat == cases[n].wpat && p.win == cases[n].win,
                      "%llu -> %llu: wpat 0x%llx win %u", (unsigned long long)cases[n].in,
                      (unsigned long long)cases[n].out, (unsigned long long)p.wpat, p.win);
        if (p.win) {
            char want[40];
            snprintf(want, sizeof want, " -DWPAT=0x%llx -DWIN=%u", (unsigned long long)p.wpat,
                     p.win);
            ck_assert_ptr_nonnull(strstr(p.options, want));
        }
    }
    /* Off: CPUs' plans (no rows kernel), four resampled dimensions, win=0. Nearest has a
     * window of its own (nearest_row_window). */
    const uint64_t is[4] = {4, 5, 6, 512}, os[4] = {8, 10, 12, 1024};
    const float sc[4] = {2, 2, 2, 2};
    dmlcl__resample1_plan p = plan_f32(3, is + 1, NULL, os + 1, NULL, 1, sc, half8, mhalf8);
    /* A volume upsampled in D and H too: 4 per item, pairs in both (H200 trilinear 2x 0.58
     * of copy, 0.49 with 8 per item and no pairs); with D kept, an image: 8, pairs in H. */
    ck_assert_uint_eq(p.rv, 4);
    ck_assert_uint_eq(p.win, 4);
    ck_assert_int_eq(p.pair, 2);
    ck_assert_int_eq(p.wplain, 1); /* its window's plain sum (0.58 -> 0.61) */
    const float kept_d[4] = {2, 1, 2, 2};
    const uint64_t kept_os[4] = {8, 5, 12, 1024};
    p = plan_f32(3, is + 1, NULL, kept_os + 1, NULL, 1, kept_d + 1, half8, mhalf8);
    ck_assert_uint_eq(p.rv, 8);
    ck_assert_uint_eq(p.win, 6);
    ck_assert_int_eq(p.pair, 1);
    ck_assert_int_eq(p.wplain, 0);
    p = plan_f32(4, is, NULL, os, NULL, 1, sc, half8, mhalf8);
    ck_assert_uint_eq(p.win, 0);
    dmlcl__tensor in = tensor(3, is + 1, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(3, os + 1, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &cpu, 0, &p);
    ck_assert_uint_eq(p.win, 0);
    dmlcl__r1_tune t;
    ck_assert_int_eq(dmlcl__r1_tune_parse("win=0,gpc=16,rb=1", &t), 0);
    const uint64_t many_in[3] = {500, 6, 512}, many_out[3] = {1000, 12, 1024};
    in = tensor(3, many_in, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(3, many_out, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_uint_eq(p.win, 4); /* a volume paired in D and H: 4 per item */
    dmlcl__resample1_plan_launch(&p, &in, &out, &gpu, &t, 0);
    ck_assert_uint_eq(p.win, 0);
    ck_assert_uint_eq(p.global2[1] / p.local2[1], 132 * 16); /* one group per row of 1024 */
    /* Pairs: H 10 -> 20 groups rows {0, 1}, {2}, {3, 4}, ..., {17, 18}, {19}; off with
     * pair=0, with no window, and for a downsampled H. */
    const uint64_t img_in[3] = {3, 10, 512}, img_out[3] = {3, 20, 1024};
    in = tensor(3, img_in, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(3, img_out, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    const float img_sc[3] = {1, 2, 2};
    dmlcl__resample1_plan_make(&in, &out, 1, img_sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_int_eq(p.pair, 1);
    ck_assert_uint_eq(p.pair_k, 0);
    ck_assert_uint_eq(p.pair_groups, 20); /* the bound until the table is written */
    ck_assert_uint_eq(p.gtab, p.table_rows);
    ck_assert_uint_eq(p.table_bytes, (p.table_rows + 20) * 8);
    ck_assert_ptr_nonnull(strstr(p.options, " -DPAIR_K=0"));
    uint32_t *table = calloc(p.table_bytes, 1);
    dmlcl__resample1_fill(&p, table);
    ck_assert_uint_eq(p.pair_groups, 11);
    ck_assert_uint_eq(p.rdiv[0].mul, dmlcl__fastdiv_make(11, 32).mul);
    ck_assert_uint_eq(table[2 * p.gtab], 0); /* x = 0 (clamped) and 0.25: both row 0 */
    ck_assert_uint_eq(table[2 * p.gtab + 1], 2);
    ck_assert_uint_eq(table[2 * (p.gtab + 1)], 2); /* 0.75: row 0 too, a group of its own */
    ck_assert_uint_eq(table[2 * (p.gtab + 1) + 1], 1);
    ck_assert_uint_eq(table[2 * (p.gtab + 2)], 3); /* 1.25 and 1.75 */
    ck_assert_uint_eq(table[2 * (p.gtab + 2) + 1], 2);
    ck_assert_uint_eq(table[2 * (p.gtab + 10)], 19);
    ck_assert_uint_eq(table[2 * (p.gtab + 10) + 1], 1);
    free(table);
    ck_assert_int_eq(dmlcl__r1_tune_parse("pair=0", &t), 0);
    dmlcl__resample1_plan_launch(&p, &in, &out, &gpu, &t, 0);
    ck_assert_int_eq(p.pair, 0);
    ck_assert_uint_eq(p.table_bytes, p.table_rows * 8);
    ck_assert_uint_eq(p.pair_groups, 0);
    ck_assert_int_eq(dmlcl__r1_tune_parse("win=0", &t), 0);
    dmlcl__resample1_plan_launch(&p, &in, &out, &gpu, &t, 0);
    ck_assert_int_eq(p.pair, 0);
    const uint64_t down_out[3] = {3, 5, 1024};
    const float down_sc[3] = {1, 0.5f, 2};
    out = tensor(3, down_out, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, down_sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_uint_eq(p.win, 6);
    ck_assert_int_eq(p.pair, 0);
    /* Pairs in two dimensions, asked for: a volume's H 6 -> 12 (slot 1, split first) and D
     * 5 -> 10 (slot 0), each with its groups' table after the other's bound. */
    const uint64_t vol_in[3] = {5, 6, 512}, vol_out[3] = {10, 12, 1024};
    in = tensor(3, vol_in, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(3, vol_out, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_int_eq(dmlcl__r1_tune_parse("pair=2", &t), 0);
    dmlcl__resample1_plan_launch(&p, &in, &out, &gpu, &t, 0);
    ck_assert_int_eq(p.pair, 2);
    ck_assert_uint_eq(p.pair_k, 1);
    ck_assert_uint_eq(p.pair_k2, 0);
    ck_assert_uint_eq(p.gtab, p.table_rows);
    ck_assert_uint_eq(p.gtab2, p.table_rows + 12); /* after the first slot's bound */
    ck_assert_uint_eq(p.table_bytes, (p.table_rows + 12 + 10) * 8);
    ck_assert_ptr_nonnull(strstr(p.options, " -DPAIR_K=1 -DPAIR_K2=0"));
    table = calloc(p.table_bytes, 1);
    dmlcl__resample1_fill(&p, table);
    ck_assert_uint_eq(p.pair_groups, 7); /* {0, 1}, {2}, {3, 4}, ..., {9, 10}, {11} */
    ck_assert_uint_eq(p.pair_groups2, 6);
    ck_assert_uint_eq(p.rdiv[1].mul, dmlcl__fastdiv_make(7, 32).mul);
    ck_assert_uint_eq(p.rdiv[0].mul, dmlcl__fastdiv_make(6, 32).mul);
    ck_assert_uint_eq(table[2 * p.gtab2 + 1], 2);      /* D's rows 0 and 1 */
    ck_assert_uint_eq(table[2 * (p.gtab2 + 5)], 9);    /* and its last, alone */
    ck_assert_uint_eq(table[2 * (p.gtab2 + 5) + 1], 1);
    free(table);
    dmlcl__resample1_plan g;
    ck_assert_int_eq(dmlcl__resample1_plan_generic(&p, &in, &g), 1);
    ck_assert_int_eq(g.pair, 0); /* the generic program counts rows again */
    ck_assert_uint_eq(g.rdiv[0].mul, dmlcl__fastdiv_make(10, 32).mul);
    ck_assert_ptr_null(strstr(g.options, "PAIR"));
    ck_assert_int_eq(dmlcl__r1_tune_parse("win=2", &t), -1);
    ck_assert_int_eq(dmlcl__r1_tune_parse("pair=3", &t), -1);
    ck_assert_int_eq(dmlcl__r1_tune_parse("wplain=2", &t), -1);
    ck_assert_int_eq(dmlcl__r1_tune_parse("xc=0", &t), -1);
    ck_assert_int_eq(dmlcl__r1_tune_parse("xc=9", &t), -1);
    ck_assert_int_eq(dmlcl__r1_tune_parse("gpc=0", &t), -1);
}
END_TEST

/* Nearest's row window: 8 outputs per item read the columns of unit 1's pattern (a nibble
 * per output), loaded as 4-element vectors from the first multiple of 4 (wph: unit 1's
 * first column past one). Upsampled 2x with pixel centres, and the input shifted by one
 * column (the row's first item then fits clamped); none where the pattern drifts (3x,
 * 1.5x) or would not save loads (downsampling), nor on CPUs' plans. */
/* LINEAR rows whose inner columns repeat every 3 outputs (1.5x, 3x): no window of 4 or 8
 * outputs fits every item, one of 12 does, so an image takes 12 an item; a volume, or
 * rv=4 or win=0 given, keeps its 4 (8 for 3x). */
START_TEST(twelve_outputs_an_item)
{
    const uint64_t is[3] = {3, 10, 512}, os15[3] = {3, 15, 768}, os3[3] = {3, 30, 1536};
    const float sc15[3] = {1, 1.5f, 1.5f}, sc3[3] = {1, 3, 3};
    dmlcl__resample1_plan p = plan_f32(3, is, NULL, os15, NULL, 1, sc15, half8, mhalf8);
    ck_assert_uint_eq(p.rv, 12);
    ck_assert_uint_eq(p.win, 10);
    ck_assert_uint_eq(p.wpat, 0x876654432210u);
    ck_assert_ptr_nonnull(strstr(p.options, " -DRV=12"));
    p = plan_f32(3, is, NULL, os3, NULL, 1, sc3, half8, mhalf8);
    ck_assert_uint_eq(p.rv, 12);
    ck_assert_uint_eq(p.win, 6);
    /* 64 groups per compute unit down the rows (128 for LINEAR's others), where rows
     * outnumber them: 2 x 60000 rows of 64 items, 4 rows a group, 2 rows a block. */
    const uint64_t tall_is[3] = {2, 40000, 512}, tall_os[3] = {2, 60000, 768};
    p = plan_f32(3, tall_is, NULL, tall_os, NULL, 1, sc15, half8, mhalf8);
    ck_assert_uint_eq(p.rv, 12);
    ck_assert_uint_eq(p.local2[0] * p.local2[1], 256);
    ck_assert_uint_eq(p.global2[1], 132 * 64 / (p.global2[0] / p.local2[0]) * p.local2[1]);
    const uint64_t vis[4] = {2, 10, 10, 512}, vos[4] = {2, 15, 15, 768};
    const float vsc[4] = {1, 1.5f, 1.5f, 1.5f};
    p = plan_f32(4, vis, NULL, vos, NULL, 1, vsc, half8, mhalf8);
    ck_assert_uint_eq(p.rv, 4);
    dmlcl__tensor in = tensor(3, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(3, os15, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    static const char *const keep[] = {"rv=4", "win=0"};
    for (int n = 0; n < 2; n++) {
        dmlcl__r1_tune t;
        ck_assert_int_eq(dmlcl__r1_tune_parse(keep[n], &t), 0);
        dmlcl__resample1_plan_make(&in, &out, 1, sc15, half8, mhalf8, &gpu, 0, &p);
        dmlcl__resample1_plan_launch(&p, &in, &out, &gpu, &t, 0);
        ck_assert_uint_eq(p.rv, 4);
    }
}
END_TEST

START_TEST(nearest_row_window)
{
    static const struct {
        uint64_t in, out;
        float in_offset;
        uint32_t wpat, win, wph;
    } cases[] = {
        {512, 1024, 0.5f, 0x33221100, 4, 0}, {512, 1024, 1.0f, 0x43322110, 5, 3},
        {512, 2048, 0.5f, 0x11110000, 2, 2}, {512, 1536, 0.5f, 0, 0, 0},
        {512, 768, 0.5f, 0, 0, 0},           {1024, 400, 0.5f, 0, 0, 0},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        const uint64_t is[3] = {3, 10, cases[n].in}, os[3] = {3, 20, cases[n].out};
        const float sc[3] = {1, 2, (float)cases[n].out / (float)cases[n].in};
        const float ip[3] = {0.5f, 0.5f, cases[n].in_offset};
        dmlcl__resample1_plan p = plan_f32(3, is, NULL, os, NULL, 0, sc, ip, mhalf8);
        ck_assert_msg(p.rows_2d == 1, "case %zu: no row kernel", n);
        ck_assert_uint_eq(p.rv, 8);
        ck_assert_msg(p.wpat == cases[n].wpat && p.win == cases[n].win && p.wph == cases[n].wph,
                      "%llu -> %llu: wpat 0x%llx win %u wph %u", (unsigned long long)cases[n].in,
                      (unsigned long long)cases[n].out, (unsigned long long)p.wpat, p.win, p.wph);
        ck_assert_int_eq(p.pair, 0); /* H200: pairs of rows lost for nearest, 0.90 -> 0.84 */
        char want[64];
        snprintf(want, sizeof want, " -DWPAT=0x%llx -DWIN=%u -DWPH=%u",
                 (unsigned long long)p.wpat, p.win, p.wph);
        ck_assert_int_eq(strstr(p.options, want) != NULL, p.win != 0);
        ck_assert_int_eq(strstr(p.options, "-DWIN") != NULL, p.win != 0);
    }
    const uint64_t is[3] = {3, 10, 512}, os[3] = {3, 20, 1024};
    const float sc[3] = {1, 2, 2};
    dmlcl__tensor in = tensor(3, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(3, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p;
    dmlcl__resample1_plan_make(&in, &out, 0, sc, half8, mhalf8, &cpu, 0, &p);
    ck_assert_uint_eq(p.win, 0);
}
END_TEST

START_TEST(nchw_spatial_upsample_collapses_batch_and_channels)
{
    const uint64_t is[4] = {2, 3, 4, 5}, os[4] = {2, 3, 8, 10};
    const float sc[4] = {1, 1, 2, 2};
    dmlcl__resample1_plan p = plan_f32(4, is, NULL, os, NULL, 1, sc, half8, mhalf8);
    ck_assert_str_eq(p.variant, "linear");
    ck_assert_uint_eq(p.np, 1); /* N and C merged */
    ck_assert_uint_eq(p.psize[0], 6);
    ck_assert_uint_eq(p.pin[0], 20);
    ck_assert_uint_eq(p.pout[0], 80);
    ck_assert_uint_eq(p.nr, 2);
    ck_assert_uint_eq(p.rsize[0], 8);
    ck_assert_uint_eq(p.rsize[1], 10);
    ck_assert_uint_eq(p.rin[0], 5);
    ck_assert_uint_eq(p.rin[1], 1);
    ck_assert_uint_eq(p.rout[0], 10);
    ck_assert_uint_eq(p.rdim[0], 2);
    ck_assert_uint_eq(p.rtab[1], 8);
    ck_assert_uint_eq(p.table_rows, 18);
    ck_assert_uint_eq(p.table_bytes, 18 * 8);
    ck_assert_int_eq(p.pass_inner, 0);
    ck_assert_uint_eq(p.count, 480);
    ck_assert_str_eq(p.options, "-DLINEAR=1 -DDTYPE=1 -DELEM_BYTES=4 -DK=2 -DV=4 -DINNER_RES=1 -DINNER_K=1 -DIDX64=0");
    p = plan_f32(4, is, NULL, os, NULL, 0, sc, half8, mhalf8);
    ck_assert_str_eq(p.variant, "gather");
    ck_assert_uint_eq(p.table_bytes, 18 * 4);
    ck_assert_str_eq(p.options, "-DLINEAR=0 -DELEM_BYTES=4 -DV=8 -DINNER_RES=1 -DIDX64=0");
}
END_TEST

START_TEST(channels_last_makes_pass_through_inner)
{
    /* NCHW indices, NHWC memory: C has stride 1. */
    const uint64_t is[4] = {1, 3, 4, 5}, ist[4] = {60, 1, 15, 3};
    const uint64_t os[4] = {1, 3, 8, 10}, ost[4] = {240, 1, 30, 3};
    const float sc[4] = {1, 1, 2, 2};
    dmlcl__resample1_plan p = plan_f32(4, is, ist, os, ost, 1, sc, half8, mhalf8);
    ck_assert_uint_eq(p.np, 1);
    ck_assert_uint_eq(p.psize[0], 3);
    ck_assert_uint_eq(p.pin[0], 1);
    ck_assert_uint_eq(p.nr, 2);
    /* C is the inner dimension: a unit's outputs share H and W's corners and weights. */
    ck_assert_int_eq(p.inner_res, 0);
    ck_assert_uint_eq(p.inner_k, 0);
    ck_assert_uint_eq(p.inner_size, 3);
    ck_assert_int_eq(p.pass_inner, 0); /* then W (stride 3), a resampled dimension */
    ck_assert_uint_eq(p.units, 80);   /* 8 x 10 pixels, one chunk of 4 each */
    ck_assert_uint_eq(p.vec, 4);
    /* Upsampled H and W: pixels in pairs along both (W's slot first), whose corners' 4
     * inputs a unit loads once for up to 4 pixels; W groups of 10 -> 6, H of 8 -> 5. */
    ck_assert_int_eq(p.pair, 2);
    ck_assert_uint_eq(p.pair_k, 1);
    ck_assert_uint_eq(p.pair_k2, 0);
    ck_assert_ptr_nonnull(strstr(p.options, " -DPAIR_K=1 -DPAIR_K2=0"));
    uint32_t *table = calloc(p.table_bytes, 1);
    dmlcl__resample1_fill(&p, table);
    ck_assert_uint_eq(p.pair_groups, 6);
    ck_assert_uint_eq(p.pair_groups2, 5);
    free(table);
    /* Runs of 8 channels or more: units of 8 (each corner one vector load on GPUs) where
     * no pixels pair (downsampling, or pair=0); 4 where they do. */
    const uint64_t is16[4] = {1, 16, 8, 10}, ist16[4] = {1280, 1, 160, 16};
    const uint64_t os16[4] = {1, 16, 4, 5}, ost16[4] = {320, 1, 80, 16};
    const float half[4] = {1, 1, 0.5f, 0.5f};
    p = plan_f32(4, is16, ist16, os16, ost16, 1, half, half8, mhalf8);
    ck_assert_uint_eq(p.vec, 8);
    ck_assert_uint_eq(p.units, 40); /* 20 pixels, two chunks of 8 each */
    ck_assert_int_eq(p.pair, 0);
    p = plan_f32(4, os16, ost16, is16, ist16, 1, sc, half8, mhalf8);
    ck_assert_uint_eq(p.vec, 4);
    ck_assert_int_eq(p.pair, 2);
    dmlcl__tensor in = tensor(4, os16, ost16, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(4, is16, ist16, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__r1_tune t;
    ck_assert_int_eq(dmlcl__r1_tune_parse("pair=0", &t), 0);
    dmlcl__resample1_plan_launch(&p, &in, &out, &gpu, &t, 0);
    ck_assert_uint_eq(p.vec, 8);
    ck_assert_int_eq(p.pair, 0);
    /* Nearest too: units of 4 whose one load serves the group's pixels (group rows of 2
     * words after its 1-word coordinate rows). */
    p = plan_f32(4, os16, ost16, is16, ist16, 0, sc, half8, mhalf8);
    ck_assert_uint_eq(p.vec, 4);
    ck_assert_int_eq(p.pair, 2);
    ck_assert_uint_eq(p.gtab2, p.gtab + 2 * 10); /* W's bound: 10 groups of 2 words */
    ck_assert_uint_eq(p.table_bytes, (p.table_rows + 2 * (10 + 8)) * 4);
}
END_TEST

START_TEST(identity_dimensions_cost_nothing)
{
    /* Equal sizes, scale 1, offsets that cancel (0.5/-0.5, 0/0, 0.25/-0.25): no table. */
    const uint64_t s[3] = {4, 5, 6};
    const float sc[3] = {1, 1, 1}, ip[3] = {0.5f, 0, 0.25f}, op[3] = {-0.5f, 0, -0.25f};
    for (int linear = 0; linear < 2; linear++) {
        dmlcl__resample1_plan p = plan_f32(3, s, NULL, s, NULL, linear, sc, ip, op);
        ck_assert_str_eq(p.variant, "copy");
        ck_assert_uint_eq(p.nr, 0);
        ck_assert_uint_eq(p.np, 1); /* all three merged */
        ck_assert_uint_eq(p.psize[0], 120);
        ck_assert_uint_eq(p.table_bytes, 0);
        ck_assert_uint_eq(p.in_base, 0);
        ck_assert_str_eq(p.options, "-DLINEAR=0 -DELEM_BYTES=4 -DV=8 -DINNER_RES=0 -DIDX64=0");
        ck_assert_uint_eq(p.inner_size, 120);
        ck_assert_uint_eq(p.units, 15); /* a copy moves 8 elements per unit */
    }
    /* Offsets that cancel only as a sum (1.3f - 0.3f is one ulp below 1) are identity
     * too, as the spec says; RESAMPLE2's floor would be one index off there, so it keeps
     * the formula. */
    {
        const float ip3[3] = {0.3f, 0.3f, 0.3f}, op3[3] = {-0.3f, -0.3f, -0.3f};
        dmlcl__resample1_plan p = plan_f32(3, s, NULL, s, NULL, 1, sc, ip3, op3);
        ck_assert_str_eq(p.variant, "copy");
        ck_assert_uint_eq(p.in_base, 0);
        dmlcl__tensor in = tensor(3, s, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmlcl__resample1_plan_make_rule(&in, &in, 0, DMLCL__NEAREST_FLOOR, sc, ip3, op3, &gpu,
                                        0, &p);
        ck_assert_str_eq(p.variant, "gather");
    }
    /* Offsets that do not cancel make it a real resample (linear weights 0.25). */
    const float ip2[3] = {0.5f, 0.5f, 0.25f};
    dmlcl__resample1_plan p = plan_f32(3, s, NULL, s, NULL, 1, sc, ip2, op);
    ck_assert_uint_eq(p.nr, 1);
    ck_assert_uint_eq(p.rdim[0], 1);
}
END_TEST

START_TEST(affine_maps_become_strides)
{
    /* Nearest 4 -> 2 pixel-centre picks 1, 3: input offset 1, stride 2. */
    const uint64_t is[2] = {3, 4}, os[2] = {3, 2};
    const float sc[2] = {1, 0.5f};
    dmlcl__resample1_plan p = plan_f32(2, is, NULL, os, NULL, 0, sc, half8, mhalf8);
    ck_assert_str_eq(p.variant, "copy");
    ck_assert_uint_eq(p.in_base, 1);
    ck_assert_uint_eq(p.np, 1); /* {3} input stride 4 and {2} stride 2 merge: 6, stride 2 */
    ck_assert_uint_eq(p.psize[0], 6);
    ck_assert_uint_eq(p.pin[0], 2);
    ck_assert_uint_eq(p.pout[0], 1);
    /* The same in LINEAR has weights 0.5: resampled. */
    p = plan_f32(2, is, NULL, os, NULL, 1, sc, half8, mhalf8);
    ck_assert_uint_eq(p.nr, 1);
    /* LINEAR asymmetric 2x downsample lands on inputs (w = 0): a stride of 2. */
    p = plan_f32(2, is, NULL, os, NULL, 1, sc, zero8, zero8);
    ck_assert_str_eq(p.variant, "copy");
    ck_assert_uint_eq(p.in_base, 0);
    ck_assert_uint_eq(p.pin[0], 2);
    /* FLT_MAX and input size 1 map everything to input 0: stride 0 (broadcast). */
    const uint64_t is3[2] = {1, 7}, os3[2] = {5, 3};
    const float sc3[2] = {3.5f, FLT_MAX};
    p = plan_f32(2, is3, NULL, os3, NULL, 1, sc3, half8, mhalf8);
    ck_assert_str_eq(p.variant, "copy");
    ck_assert_uint_eq(p.np, 1); /* both stride 0: merged */
    ck_assert_uint_eq(p.psize[0], 15);
    ck_assert_uint_eq(p.pin[0], 0);
}
END_TEST

START_TEST(output_size_one_folds_into_base)
{
    /* Nearest 5 -> 1 with scale 1/5 pixel-centre: x = 0.5 / 0.2 - 0.5 = 2. */
    const uint64_t is[2] = {5, 3}, os[2] = {1, 3};
    const float sc[2] = {0.2f, 1};
    dmlcl__resample1_plan p = plan_f32(2, is, NULL, os, NULL, 0, sc, half8, mhalf8);
    ck_assert_str_eq(p.variant, "copy");
    ck_assert_uint_eq(p.in_base, 2 * 3);
    ck_assert_uint_eq(p.np, 1);
    ck_assert_uint_eq(p.psize[0], 3);
    /* LINEAR with a fractional coordinate keeps a size-1 resampled dimension. */
    const float ip[2] = {0.25f, 0.5f};
    p = plan_f32(2, is, NULL, os, NULL, 1, sc, ip, mhalf8);
    ck_assert_uint_eq(p.nr, 1);
    ck_assert_uint_eq(p.rsize[0], 1);
}
END_TEST

START_TEST(transposed_pass_dims_do_not_merge)
{
    const uint64_t s[3] = {3, 4, 2}, ist[3] = {1, 3, 12}, os[3] = {3, 4, 5};
    const float sc[3] = {1, 1, 2.5f};
    dmlcl__resample1_plan p = plan_f32(3, s, ist, os, NULL, 1, sc, half8, mhalf8);
    ck_assert_uint_eq(p.np, 2);
    ck_assert_uint_eq(p.nr, 1);
    /* output packed: the resampled dim is innermost */
    ck_assert_int_eq(p.inner_res, 1);
    ck_assert_uint_eq(p.inner_size, 5);
    ck_assert_uint_eq(p.chunks, 2);
    ck_assert_uint_eq(p.units, 24); /* 12 rows x 2 chunks */
    ck_assert_int_eq(p.pass_inner, 1);
}
END_TEST

START_TEST(rank_8_all_resampled)
{
    uint64_t is[8], os[8];
    float sc[8];
    for (int d = 0; d < 8; d++)
        is[d] = 2, os[d] = 3, sc[d] = 1.5f;
    dmlcl__resample1_plan p = plan_f32(8, is, NULL, os, NULL, 1, sc, half8, mhalf8);
    ck_assert_uint_eq(p.nr, 8);
    ck_assert_uint_eq(p.np, 0);
    ck_assert_uint_eq(p.table_rows, 3); /* eight identical dimensions share their rows */
    for (int k = 0; k < 8; k++)
        ck_assert_uint_eq(p.rtab[k], 0);
    ck_assert_ptr_nonnull(strstr(p.options, "-DK=8"));
}
END_TEST

/* Rows per item and step on GPUs (rb): 8 for nearest, 2 for LINEAR's paired rows (in one
 * dimension or two), 1 for a window without pairs, 4 without a window; the groups down the
 * rows cover the blocks, not the rows. */
START_TEST(rows_per_item)
{
    const uint64_t is[4] = {2, 3, 64, 512}, os[4] = {2, 3, 128, 1024};
    const float sc[4] = {1, 1, 2, 2}, sc125[4] = {1, 1, 1.25f, 1.25f};
    dmlcl__resample1_plan p = plan_f32(4, is, NULL, os, NULL, 0, sc, half8, mhalf8);
    ck_assert_uint_eq(p.rb, 8);
    ck_assert_uint_eq(p.global2[1] / p.local2[1], (6 * 128 / 8 + p.local2[1] - 1) / p.local2[1]);
    p = plan_f32(4, is, NULL, os, NULL, 1, sc, half8, mhalf8);
    ck_assert_int_eq(p.pair, 1);
    ck_assert_uint_eq(p.rb, 2);
    ck_assert_ptr_nonnull(strstr(p.options, " -DPAIR_K=0 -DRB=2"));
    const uint64_t vis[4] = {2, 32, 32, 32}, vos[4] = {2, 64, 64, 64};
    const float vsc[4] = {1, 2, 2, 2};
    p = plan_f32(4, vis, NULL, vos, NULL, 1, vsc, half8, mhalf8);
    ck_assert_int_eq(p.pair, 2);
    ck_assert_uint_eq(p.rb, 2);
    const float wsc[4] = {1, 1, 0.5f, 2}; /* H halved: a window, no pairs */
    const uint64_t wos[4] = {2, 32, 16, 64};
    p = plan_f32(4, vis, NULL, wos, NULL, 1, wsc, half8, mhalf8);
    ck_assert_uint_eq(p.win, 6);
    ck_assert_int_eq(p.pair, 0);
    ck_assert_uint_eq(p.rb, 1);
    ck_assert_ptr_null(strstr(p.options, "-DRB"));
    const uint64_t os125[4] = {2, 3, 80, 640}; /* columns repeat every 5 outputs: no window */
    p = plan_f32(4, is, NULL, os125, NULL, 1, sc125, half8, mhalf8);
    ck_assert_uint_eq(p.win, 0);
    ck_assert_uint_eq(p.rb, 4);
    ck_assert_ptr_nonnull(strstr(p.options, " -DRB=4"));
}
END_TEST

/* A cap on the row kernels' registers where the device takes one (an NVIDIA GPU's 65536
 * a group): for three groups of 256 per compute unit (80) on an image's window and pairs;
 * none for a volume's, which spills, nor where the device takes none; regs=N overrides. */
START_TEST(register_cap_where_the_device_takes_one)
{
    static const dmlcl__limits nv = {1024, 132, 0, 64, 65536};
    const uint64_t is[4] = {2, 3, 64, 512}, os[4] = {2, 3, 128, 1024};
    const float sc[4] = {1, 1, 2, 2};
    dmlcl__tensor in = tensor(4, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(4, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p;
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &nv, 0, &p);
    ck_assert_int_eq(p.pair, 1);
    ck_assert_uint_eq(p.local2[0] * p.local2[1], 256);
    ck_assert_uint_eq(p.regcap, 80);
    ck_assert_ptr_nonnull(strstr(p.options, " -cl-nv-maxrregcount=80"));
    dmlcl__resample1_plan g;
    ck_assert_int_eq(dmlcl__resample1_plan_generic(&p, &in, &g), 1);
    ck_assert_ptr_null(strstr(g.options, "maxrregcount"));
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_uint_eq(p.regcap, 0);
    ck_assert_ptr_null(strstr(p.options, "maxrregcount"));
    dmlcl__r1_tune t;
    ck_assert_int_eq(dmlcl__r1_tune_parse("regs=64", &t), 0);
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &nv, 0, &p);
    dmlcl__resample1_plan_launch(&p, &in, &out, &nv, &t, 0);
    ck_assert_ptr_nonnull(strstr(p.options, " -cl-nv-maxrregcount=64"));
    ck_assert_int_eq(dmlcl__r1_tune_parse("regs=0", &t), 0);
    dmlcl__resample1_plan_launch(&p, &in, &out, &nv, &t, 0);
    ck_assert_uint_eq(p.regcap, 0);
    ck_assert_int_eq(dmlcl__r1_tune_parse("regs=256", &t), -1);
    const uint64_t vis[4] = {2, 32, 32, 64}, vos[4] = {2, 64, 64, 128};
    const float vsc[4] = {1, 2, 2, 2};
    in = tensor(4, vis, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(4, vos, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, vsc, half8, mhalf8, &nv, 0, &p);
    ck_assert_int_eq(p.pair, 2);
    ck_assert_uint_eq(p.regcap, 0);
}
END_TEST

START_TEST(types_and_index_width)
{
    const uint64_t is[2] = {2, 2}, os[2] = {65536, 65536};
    const float sc[2] = {2, 2};
    dmlcl__tensor in = tensor(2, is, NULL, DMLCL_TENSOR_DATA_TYPE_UINT8, 1);
    dmlcl__tensor out = tensor(2, os, NULL, DMLCL_TENSOR_DATA_TYPE_UINT8, 1);
    dmlcl__resample1_plan p;
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_int_eq(p.idx64, 1); /* 2^32 outputs */
    ck_assert_str_eq(p.options, "-DLINEAR=1 -DDTYPE=5 -DELEM_BYTES=1 -DK=2 -DV=4 -DINNER_RES=1 "
                                "-DINNER_K=1 -DIDX64=1 -DNPS=0 -DPASS_INNER=0 -DRV=8 -DRB=4");
    const uint64_t os2[2] = {16, 16};
    out = tensor(2, os2, NULL, DMLCL_TENSOR_DATA_TYPE_UINT8, 1);
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_int_eq(p.idx64, 0);
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &gpu, 1, &p);
    ck_assert_int_eq(p.idx64, 1); /* forced (test hook) */
    /* A strided input whose span passes 2^32 elements needs 64-bit offsets. */
    const uint64_t ist[2] = {(uint64_t)1 << 32, 1};
    in = tensor(2, is, ist, DMLCL_TENSOR_DATA_TYPE_FLOAT16, 2);
    out = tensor(2, os2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT16, 2);
    dmlcl__resample1_plan_make(&in, &out, 0, sc, half8, mhalf8, &cpu, 0, &p);
    ck_assert_int_eq(p.idx64, 1);
    /* 2x nearest: lane j of a vector reads its first input + j / 2 (CPU row blocks). */
    ck_assert_str_eq(p.options, "-DLINEAR=0 -DELEM_BYTES=2 -DV=16 -DINNER_RES=1 -DIDX64=1 "
                                "-DCR_W=16 -DCR_PL=0x7766554433221100ul -DCR_PU=0x7766554433221100ul");
    /* CPU: the row blocks, one item per group (POCL compiles once per group size, so
     * once per variant, not per shape), 16 rows of one block, a row per item (16 items
     * per compute unit wanted); forced off, the segment kernels' fixed group of 64. */
    ck_assert_uint_eq(p.cpu_rows, 1);
    ck_assert_uint_eq(p.local, 1);
    ck_assert_uint_eq(p.units, 16);
    ck_assert_uint_eq(p.global, 16);
    dmlcl__r1_tune off;
    ck_assert_int_eq(dmlcl__r1_tune_parse("cpu=0", &off), 0);
    dmlcl__resample1_plan_launch(&p, &in, &out, &cpu, &off, 0);
    ck_assert_uint_eq(p.cpu_rows, 0);
    ck_assert_uint_eq(p.local, 64);
    ck_assert_uint_eq(p.global % 64, 0);
    ck_assert_uint_eq(p.units, 16); /* 16 rows of one 16-output unit */
    ck_assert_uint_eq(p.global, 64);
    /* Downsampling on 8 or more compute units: the segment kernels (the row blocks stop
     * scaling there), unless cpu=N forces the row blocks; 2 compute units: row blocks. */
    const uint64_t dis[2] = {64, 64}, dos[2] = {32, 32};
    const float half[2] = {0.5f, 0.5f};
    const dmlcl__limits cpu16 = {4096, 16, 1, 64, 0};
    dmlcl__tensor din = tensor(2, dis, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor dout = tensor(2, dos, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&din, &dout, 1, half, half8, mhalf8, &cpu16, 0, &p);
    ck_assert_uint_eq(p.cpu_rows, 0);
    ck_assert_uint_eq(p.seg, 32);
    dmlcl__r1_tune force;
    ck_assert_int_eq(dmlcl__r1_tune_parse("cpu=4", &force), 0);
    dmlcl__resample1_plan_launch(&p, &din, &dout, &cpu16, &force, 0);
    ck_assert_uint_eq(p.cpu_rows, 4);
    dmlcl__resample1_plan_make(&din, &dout, 1, half, half8, mhalf8, &cpu, 0, &p);
    ck_assert_uint_ne(p.cpu_rows, 0);
    /* Upsampling on 16 compute units: row blocks. */
    dmlcl__resample1_plan_make(&dout, &din, 1, sc, half8, mhalf8, &cpu16, 0, &p);
    ck_assert_uint_ne(p.cpu_rows, 0);
    dmlcl__limits tiny_cpu = {16, 2, 1, 64, 0};
    dmlcl__resample1_plan_make(&in, &out, 0, sc, half8, mhalf8, &tiny_cpu, 0, &p);
    dmlcl__resample1_plan_launch(&p, &in, &out, &tiny_cpu, &off, 0);
    ck_assert_uint_eq(p.local, 16);
    ck_assert_uint_eq(p.global % 16, 0);
    dmlcl__resample1_plan_make(&in, &out, 0, sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_uint_eq(p.local, 256);
}
END_TEST

/* The CPU row blocks' vectors are two of the compiler's registers, at most 16 lanes (no
 * builtin takes more than one: 16-lane vectors warned at every build where the target has
 * no AVX-512); lanes and patterns follow. */
START_TEST(cpu_lanes_follow_the_registers)
{
    const uint64_t is[2] = {8, 64}, os[2] = {16, 128}, ds[2] = {8, 32};
    const float up[2] = {2, 2}, down[2] = {1, 0.5f};
    dmlcl__tensor in = tensor(2, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(2, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor dout = tensor(2, ds, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p;
    dmlcl__resample1_plan_make(&in, &out, 1, up, half8, mhalf8, &avx2, 0, &p);
    ck_assert_uint_eq(p.cpu_w, 16); /* 16 floats in two 32-byte registers */
    ck_assert_uint_eq(p.vec, 8);    /* the units kernel's: one register */
    dmlcl__resample1_plan_make(&in, &out, 1, up, half8, mhalf8, &sse, 0, &p);
    ck_assert_uint_eq(p.cpu_w, 8);
    ck_assert_msg(strstr(p.options, "-DCR_W=8 -DCR_PL=0x32211000ul -DCR_PU=0x43322110ul "
                                    "-DCR_PL2=0x43322110ul ") != NULL, "%s", p.options);
    ck_assert_msg(strstr(p.options, "CR_WIN2") == NULL, "%s", p.options); /* 2x: one vector */
    /* 0.5x: 8 lanes read 16 inputs, a window of two vectors. */
    dmlcl__resample1_plan_make(&in, &dout, 1, down, half8, mhalf8, &sse, 0, &p);
    ck_assert_msg(strstr(p.options, "-DCR_W=8 -DCR_WIN2=1 -DCR_PL=0xeca86420ul") != NULL, "%s",
                  p.options);
    /* FLOAT64: 8 lanes of 8 bytes on AVX2, 4 on SSE. */
    in = tensor(2, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT64, 8);
    out = tensor(2, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT64, 8);
    dmlcl__resample1_plan_make(&in, &out, 1, up, half8, mhalf8, &avx2, 0, &p);
    ck_assert_uint_eq(p.cpu_w, 8);
    dmlcl__resample1_plan_make(&in, &out, 1, up, half8, mhalf8, &sse, 0, &p);
    ck_assert_uint_eq(p.cpu_w, 4);
    /* Nearest moves bits: 16 lanes of 2 bytes at most. */
    in = tensor(2, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT16, 2);
    out = tensor(2, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT16, 2);
    dmlcl__resample1_plan_make(&in, &out, 0, up, half8, mhalf8, &sse, 0, &p);
    ck_assert_uint_eq(p.cpu_w, 16);
}
END_TEST

/* The CPU row blocks' rows per item: 32 for rows of 1024, more for short rows (an item
 * holds DMLCL_R1_CPU_ITEM outputs), fewer where items would be under 16 per compute unit;
 * cpu=N as given. */
START_TEST(cpu_rows_per_item)
{
    const uint64_t is[4] = {128, 64, 64, 64}, os[4] = {128, 128, 128, 128};
    const uint64_t wis[3] = {8, 512, 512}, wos[3] = {8, 1024, 1024};
    const uint64_t sis[4] = {1, 4, 64, 64}, sos[4] = {1, 8, 128, 128};
    const float up3[4] = {1, 2, 2, 2}, up2[3] = {1, 2, 2};
    dmlcl__tensor in = tensor(4, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(4, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p;
    dmlcl__resample1_plan_make(&in, &out, 1, up3, half8, mhalf8, &avx2, 0, &p);
    ck_assert_uint_eq(p.cpu_rows, DMLCL_R1_CPU_ITEM / 128);
    ck_assert_uint_eq(p.units, 128 * 128 * 128 / p.cpu_rows);
    dmlcl__r1_tune t;
    ck_assert_int_eq(dmlcl__r1_tune_parse("cpu=32", &t), 0);
    dmlcl__resample1_plan_launch(&p, &in, &out, &avx2, &t, 0);
    ck_assert_uint_eq(p.cpu_rows, 32);
    in = tensor(3, wis, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(3, wos, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, up2, half8, mhalf8, &avx2, 0, &p);
    ck_assert_uint_eq(p.cpu_rows, 32);
    /* 8 x 128 rows of 128: 1024 rows, 32 items wanted on 2 compute units. */
    in = tensor(4, sis, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(4, sos, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, up3, half8, mhalf8, &avx2, 0, &p);
    ck_assert_uint_eq(p.cpu_rows, 32);
}
END_TEST

/* Outputs of 16 MiB and more (past the caches) go out with non-temporal stores on CPUs:
 * nearest in any type, linear where the kernel stores its accumulators' type (FLOAT32,
 * FLOAT64) and the vector registers are 32 bytes or more (not SSE's); nt=0|1 forces
 * either. */
START_TEST(cpu_non_temporal_stores)
{
    const uint64_t is[2] = {2048, 2048}, os[2] = {4096, 4096}, small[2] = {2048, 2047};
    const float up[2] = {2, 2};
    struct {
        dmlcl_tensor_data_type type;
        uint32_t elem;
        int linear;
        const uint64_t *out;
        int nt;
    } cases[] = {
        {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, 1, os, 1},
        {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, 1, small, 0}, /* 8 KiB short of 16 MiB */
        {DMLCL_TENSOR_DATA_TYPE_FLOAT64, 8, 1, os, 1},
        {DMLCL_TENSOR_DATA_TYPE_FLOAT16, 2, 1, os, 0},    /* converted as stored */
        {DMLCL_TENSOR_DATA_TYPE_UINT8, 1, 1, os, 0},      /* 16 MiB */
        {DMLCL_TENSOR_DATA_TYPE_UINT8, 1, 0, os, 1},
        {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, 0, small, 0},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        dmlcl__tensor in = tensor(2, is, NULL, cases[n].type, cases[n].elem);
        dmlcl__tensor out = tensor(2, cases[n].out, NULL, cases[n].type, cases[n].elem);
        dmlcl__resample1_plan p;
        dmlcl__resample1_plan_make(&in, &out, cases[n].linear, up, half8, mhalf8, &avx2, 0, &p);
        ck_assert_uint_ne(p.cpu_rows, 0);
        ck_assert_msg((strstr(p.options, "-DCR_NT=1") != NULL) == cases[n].nt, "case %zu: %s", n,
                      p.options);
        dmlcl__resample1_plan_make(&in, &out, cases[n].linear, up, half8, mhalf8, &sse, 0, &p);
        ck_assert_msg((strstr(p.options, "-DCR_NT=1") != NULL) == (cases[n].nt && !cases[n].linear),
                      "case %zu, SSE: %s", n, p.options);
    }
    dmlcl__tensor in = tensor(2, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(2, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p;
    dmlcl__r1_tune t;
    ck_assert_int_eq(dmlcl__r1_tune_parse("nt=0", &t), 0);
    dmlcl__resample1_plan_make(&in, &out, 1, up, half8, mhalf8, &avx2, 0, &p);
    dmlcl__resample1_plan_launch(&p, &in, &out, &avx2, &t, 0);
    ck_assert_msg(strstr(p.options, "-DCR_NT") == NULL, "%s", p.options);
}
END_TEST

/* Pairs of rows keep their weight products (-DCR_KEEP) where LINEAR rows with patterns
 * are short enough that a block's products fit DMLCL_R1_CPU_KEEP bytes: trilinear 2x's
 * rows of 128 floats (AVX2, SSE), 2-D rows up to 256 floats on AVX2 (16 vectors x 2
 * corners x 4 products x 64 bytes), not 272, not FLOAT64's trilinear rows (twice the
 * bytes), not nearest, not the generic plan (no patterns). */
START_TEST(cpu_keeps_products_on_short_rows)
{
    const uint64_t is3[4] = {4, 64, 64, 64}, os3[4] = {4, 128, 128, 128};
    const uint64_t is2[3] = {4, 64, 128}, os2[3] = {4, 128, 256};
    const uint64_t il2[3] = {4, 64, 136}, ol2[3] = {4, 128, 272};
    const float up3[4] = {1, 2, 2, 2}, up2[3] = {1, 2, 2};
    const char *keep = "-DCR_KEEP=8192";
    dmlcl__tensor in = tensor(4, is3, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(4, os3, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p, g;
    dmlcl__resample1_plan_make(&in, &out, 1, up3, half8, mhalf8, &avx2, 0, &p);
    ck_assert_msg(strstr(p.options, keep) != NULL, "%s", p.options);
    ck_assert_int_eq(dmlcl__resample1_plan_generic(&p, &in, &g), 1);
    ck_assert_msg(strstr(g.options, "CR_KEEP") == NULL, "%s", g.options);
    dmlcl__resample1_plan_make(&in, &out, 1, up3, half8, mhalf8, &sse, 0, &p);
    ck_assert_msg(strstr(p.options, keep) != NULL, "SSE: %s", p.options);
    dmlcl__resample1_plan_make(&in, &out, 0, up3, half8, mhalf8, &avx2, 0, &p);
    ck_assert_msg(strstr(p.options, "CR_KEEP") == NULL, "nearest: %s", p.options);
    in = tensor(4, is3, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT64, 8);
    out = tensor(4, os3, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT64, 8);
    dmlcl__resample1_plan_make(&in, &out, 1, up3, half8, mhalf8, &avx2, 0, &p);
    ck_assert_msg(strstr(p.options, "-DCR_W=8") != NULL && strstr(p.options, "CR_KEEP") == NULL,
                  "FLOAT64: %s", p.options);
    in = tensor(3, is2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(3, os2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, up2, half8, mhalf8, &avx2, 0, &p);
    ck_assert_msg(strstr(p.options, keep) != NULL, "rows of 256: %s", p.options);
    in = tensor(3, il2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(3, ol2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 1, up2, half8, mhalf8, &avx2, 0, &p);
    ck_assert_msg(strstr(p.options, "-DCR_PL") != NULL && strstr(p.options, "CR_KEEP") == NULL,
                  "rows of 272: %s", p.options);
}
END_TEST

/* Patterns only where they recur: 1.7x drifts from vector to vector (a program per such
 * scale would serve a few vectors a row), 2x and 1.5x repeat; the generic plan drops
 * them (and the GPUs' window and pairs) and reads the same table. */
START_TEST(patterns_recur_or_none)
{
    const uint64_t is[2] = {8, 300}, os17[2] = {16, 510}, os2[2] = {16, 600},
                   os15[2] = {16, 450};
    const float s17[2] = {2, 1.7f}, s2[2] = {2, 2}, s15[2] = {2, 1.5f};
    dmlcl__tensor in = tensor(2, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor o17 = tensor(2, os17, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor o2 = tensor(2, os2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor o15 = tensor(2, os15, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p, g;
    dmlcl__resample1_plan_make(&in, &o17, 1, s17, half8, mhalf8, &cpu, 0, &p);
    ck_assert_uint_ne(p.cpu_rows, 0);
    ck_assert_uint_eq(p.cpu_np, 0);
    ck_assert_int_eq(dmlcl__resample1_plan_generic(&p, &in, &g), 0); /* generic already */
    dmlcl__resample1_plan_make(&in, &o15, 1, s15, half8, mhalf8, &cpu, 0, &p);
    ck_assert_uint_ge(p.cpu_np, 3); /* three phases */
    dmlcl__resample1_plan_make(&in, &o2, 1, s2, half8, mhalf8, &cpu, 0, &p);
    ck_assert_uint_ge(p.cpu_np, 1);
    ck_assert_int_eq(dmlcl__resample1_plan_generic(&p, &in, &g), 1);
    ck_assert_uint_eq(g.cpu_np, 0);
    ck_assert_ptr_null(strstr(g.options, "CR_PL"));
    ck_assert_ptr_nonnull(strstr(g.options, "-DCR_W=16"));
    ck_assert_uint_eq(g.table_bytes, p.table_bytes);
    /* GPUs: the rows kernel's window and pairs go, the pair slot counts rows again. */
    dmlcl__resample1_plan_make(&in, &o2, 1, s2, half8, mhalf8, &gpu, 0, &p);
    ck_assert_uint_ne(p.win, 0);
    ck_assert_int_eq(dmlcl__resample1_plan_generic(&p, &in, &g), 1);
    ck_assert_uint_eq(g.win, 0);
    ck_assert_int_eq(g.pair, 0);
    ck_assert_ptr_null(strstr(g.options, "WPAT"));
    ck_assert_ptr_null(strstr(g.options, "PAIR_K"));
    for (uint32_t k = 0; k < g.nr; k++)
        ck_assert_uint_eq(g.rdiv[k].mul, dmlcl__fastdiv_make(g.rsize[k], 32).mul);
}
END_TEST

START_TEST(fill_writes_the_rows)
{
    /* 2x2 -> 4x4 pixel-centre: rows (0, 0), (0, .25), (0, .75), (1, 0) per dimension. */
    const uint64_t is[2] = {2, 2}, os[2] = {4, 4};
    const float sc[2] = {2, 2};
    dmlcl__tensor in = tensor(2, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(2, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p;
    dmlcl__resample1_plan_make(&in, &out, 1, sc, half8, mhalf8, &gpu, 0, &p);
    ck_assert_uint_eq(p.table_bytes, 32); /* the same map twice: one set of rows */
    ck_assert_uint_eq(p.rtab[0], 0);
    ck_assert_uint_eq(p.rtab[1], 0);
    uint32_t t[20];
    dmlcl__resample1_fill(&p, t);
    static const uint32_t idx[4] = {0, 0, 0, 1};
    static const float w[4] = {0, 0.25f, 0.75f, 0};
    for (int r = 0; r < 4; r++) {
        float got;
        memcpy(&got, &t[2 * r + 1], 4);
        ck_assert_uint_eq(t[2 * r], idx[r % 4]);
        ck_assert_float_eq(got, w[r % 4]);
    }
    dmlcl__resample1_plan_make(&in, &out, 0, sc, half8, mhalf8, &gpu, 0, &p);
    dmlcl__resample1_fill(&p, t);
    static const uint32_t near[4] = {0, 0, 1, 1};
    for (int r = 0; r < 4; r++)
        ck_assert_uint_eq(t[r], near[r % 4]);
    /* Different output sizes (or scales, or offsets): rows of their own, in order. */
    const uint64_t os2[2] = {4, 5};
    const float sc2[2] = {2, 2.5f};
    out = tensor(2, os2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make(&in, &out, 0, sc2, half8, mhalf8, &gpu, 0, &p);
    ck_assert_uint_eq(p.table_rows, 9);
    ck_assert_uint_eq(p.rtab[1], 4);
    dmlcl__resample1_fill(&p, t);
    static const uint32_t near5[5] = {0, 0, 1, 1, 1}; /* x = (o + 0.5) / 2.5 - 0.5 */
    for (int r = 0; r < 9; r++)
        ck_assert_uint_eq(t[r], r < 4 ? near[r] : near5[r - 4]);
}
END_TEST

/* The planner's own floor and ceil (no libm call) give libm's indices and weights: every
 * half-step from -40 to 40, values beside integers, 2^23 and beyond, huge, infinite and
 * NaN coordinates, and a sweep of float bit patterns. */
static void check_coordinate(float x)
{
    static const uint64_t sizes[4] = {1, 7, (uint64_t)1 << 24, (uint64_t)3 << 30};
    for (int k = 0; k < 4; k++) {
        const uint64_t n = sizes[k];
        const double top = (double)(n - 1);
        for (int rule = 0; rule < 3; rule++) {
            volatile float t = rule == DMLCL__NEAREST_HALF_UP ? x + 0.5f : x;
            float f = rule == DMLCL__NEAREST_CEIL ? ceilf(t) : floorf(t);
            uint32_t want = !(f > 0) ? 0 : (double)f >= top ? (uint32_t)(n - 1) : (uint32_t)f;
            ck_assert_msg(dmlcl__resample_nearest_rule(x, n, (dmlcl__nearest_rule)rule) == want,
                          "rule %d, x = %a, n = %llu", rule, (double)x, (unsigned long long)n);
        }
        float w, want_w = 0;
        uint32_t want = 0;
        if (x > 0 && (double)x < top)
            want = (uint32_t)floorf(x), want_w = x - floorf(x);
        else if (x > 0)
            want = (uint32_t)(n - 1);
        ck_assert_uint_eq(dmlcl__resample1_linear(x, n, &w), want);
        ck_assert_msg(w == want_w, "linear weight at x = %a", (double)x);
    }
}

START_TEST(coordinate_rounding_matches_libm)
{
    for (int h = -80; h <= 80; h++) {
        const float x = (float)h / 2;
        check_coordinate(x);
        check_coordinate(nextafterf(x, -INFINITY));
        check_coordinate(nextafterf(x, INFINITY));
    }
    const float special[] = {8388607.5f, 8388608.0f, 8388609.0f, 16777217.0f, 3e9f, 1e30f,
                             -8388608.5f, -1e30f, INFINITY, -INFINITY, NAN, -0.0f, FLT_MIN};
    for (size_t k = 0; k < sizeof special / sizeof special[0]; k++)
        check_coordinate(special[k]);
    for (uint64_t bits = 0; bits < ((uint64_t)1 << 32); bits += 65521u * 97) {
        uint32_t b = (uint32_t)bits;
        float x;
        memcpy(&x, &b, 4);
        check_coordinate(x);
    }
}
END_TEST

/* RESAMPLE2's rules: ceil (INCREASING) and floor (DECREASING), clamped; the rule is kept
 * in the plan, so affine detection and the table follow it (4 -> 2 pixel centres: x = 0.5
 * and 2.5 give 1, 3 with ceil, 0, 2 with floor: both still affine, step 2). */
START_TEST(resample2_nearest_rules)
{
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(0.5f, 4, DMLCL__NEAREST_CEIL), 1);
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(0.5f, 4, DMLCL__NEAREST_FLOOR), 0);
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(1.0f, 4, DMLCL__NEAREST_CEIL), 1);
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(-0.5f, 4, DMLCL__NEAREST_CEIL), 0);
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(-0.5f, 4, DMLCL__NEAREST_FLOOR), 0);
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(3.25f, 4, DMLCL__NEAREST_CEIL), 3);
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(3.25f, 4, DMLCL__NEAREST_FLOOR), 3);
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(2.5f, 4, DMLCL__NEAREST_HALF_UP), 3);
    ck_assert_uint_eq(dmlcl__resample_nearest_rule(1e30f, 9, DMLCL__NEAREST_FLOOR), 8);
    const uint64_t is[1] = {4}, os[1] = {2};
    const float sc[1] = {0.5f};
    dmlcl__tensor in = tensor(1, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(1, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan p;
    dmlcl__resample1_plan_make_rule(&in, &out, 0, DMLCL__NEAREST_FLOOR, sc, half8, mhalf8, &gpu,
                                    0, &p);
    ck_assert_int_eq(p.rule, DMLCL__NEAREST_FLOOR);
    ck_assert_uint_eq(p.nr, 0);
    ck_assert_uint_eq(p.in_base, 0); /* floor starts at 0 */
    ck_assert_uint_eq(p.pin[0], 2);
    dmlcl__resample1_plan_make_rule(&in, &out, 0, DMLCL__NEAREST_CEIL, sc, half8, mhalf8, &gpu, 0,
                                    &p);
    ck_assert_uint_eq(p.in_base, 1); /* ceil starts at 1 */
    /* 2 -> 3 with scale 1.5 (DirectML's gradient example): floor 0, 0, 1 is not affine. */
    const uint64_t is2[1] = {2}, os3[1] = {3};
    const float s15[1] = {1.5f};
    in = tensor(1, is2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(1, os3, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__resample1_plan_make_rule(&in, &out, 0, DMLCL__NEAREST_FLOOR, s15, half8, mhalf8, &gpu,
                                    0, &p);
    ck_assert_uint_eq(p.nr, 1);
    uint32_t t[3];
    dmlcl__resample1_fill(&p, t);
    ck_assert(t[0] == 0 && t[1] == 0 && t[2] == 1);
}
END_TEST


/* RESAMPLE3's antialiased rows, as the spec's comment in taps_tables.c states them (centre
 * c = x + 0.5, support 1 / scale, taps [trunc(c - support + 0.5), trunc(c + support +
 * 0.5)) clamped to the input, triangle weights in double normalized by their sum, stored
 * as float, zero weights trimmed from both ends), written out here on their own: the
 * planner's rows must equal them bit for bit, whole and in tiles. The planner reuses a
 * row's weights for the next row that lies alike between its taps; scales like 0.5 with
 * pixel centres make every inner row such a row, odd scales and offsets almost none. */
static uint64_t below(uint64_t *s, uint64_t n) /* splitmix64, then mod n */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) % n;
}

static void aa_reference(const dmlcl__taps_dim *p, uint64_t o, int64_t *first, uint32_t *count,
                         float *w)
{
    const double s = 1.0 / (double)p->scale;
    const int64_t n = (int64_t)p->n_src;
    double c = (double)dmlcl__resample1_coord(o, p->scale, p->in_offset, p->out_offset) + 0.5;
    double lo = c - s + 0.5, hi = c + s + 0.5;
    int64_t a = lo > 0 ? (lo < (double)n ? (int64_t)lo : n) : 0;
    int64_t b = hi > 0 ? (hi < (double)n ? (int64_t)hi : n) : 0;
    a = a > n - 1 ? n - 1 : a;
    b = b <= a ? a + 1 : b;
    double v[4096], total = 0;
    for (int64_t j = a; j < b; j++) {
        double x = 1 - fabs((double)j + 0.5 - c) * (double)p->scale;
        v[j - a] = x > 0 ? x : 0;
        total += v[j - a];
    }
    int64_t f = -1, l = -1;
    for (int64_t j = a; j < b; j++) {
        float x = total > 0 ? (float)(v[j - a] / total) : (j == a ? 1.0f : 0.0f);
        if (x != 0) {
            f = f < 0 ? j : f;
            l = j;
            w[j - f] = x;
        }
    }
    *first = f;
    *count = (uint32_t)(l - f + 1);
}

START_TEST(antialiased_rows_match_the_formula)
{
    static const float scales[] = {0.5f, 0.25f, 0.3f, 0.75f, 0.5f, 0.125f, 0.6f};
    static const float offsets[][2] = {{0.5f, -0.5f}, {0, 0}, {0.25f, 0.1f}, {-3, 7}};
    uint64_t rng = 0x5eed;
    for (int n = 0; n < 400; n++) {
        const float scale = scales[n % 7];
        const uint64_t n_src = 1 + below(&rng, 300) + (n % 5 == 0 ? 5000 : 0);
        uint64_t n_res = (uint64_t)floor((double)n_src * scale) + below(&rng, 3);
        n_res = n_res ? n_res : 1;
        const uint64_t res0 = n % 3 ? below(&rng, n_res) : 0;
        const uint64_t cnt = 1 + below(&rng, n_res - res0);
        dmlcl__taps_dim p = {n_res, n_src, scale, offsets[n % 4][0], offsets[n % 4][1],
                             res0, cnt, 0, n_src, 0, 0, 0};
        dmlcl__taps_table t = {0};
        ck_assert(dmlcl__taps_add_forward(&t, 1, &p));
        for (uint64_t r = 0; r < cnt; r++) {
            int64_t first;
            uint32_t count;
            float want[4096];
            aa_reference(&p, res0 + r, &first, &count, want);
            if (p.row_word == UINT64_MAX) { /* affine: one tap of weight 1 per row */
                ck_assert_msg(count == 1 && want[0] == 1.0f &&
                              first == (int64_t)(p.first + r * p.step), "case %d row %llu",
                              n, (unsigned long long)(res0 + r));
                continue;
            }
            const uint32_t *row = t.words + p.row_word + 3 * r;
            ck_assert_msg((int64_t)row[0] == first && row[1] == count,
                          "case %d row %llu: taps [%u, +%u), want [%lld, +%u)", n,
                          (unsigned long long)(res0 + r), row[0], row[1], (long long)first,
                          count);
            for (uint32_t k = 0; k < count; k++) {
                float got;
                memcpy(&got, &t.words[row[2] + 2 * k], 4);
                ck_assert_msg(memcmp(&got, &want[k], 4) == 0 && t.words[row[2] + 2 * k + 1] == 2,
                              "case %d row %llu tap %u: %.9g, want %.9g", n,
                              (unsigned long long)(res0 + r), k, got, want[k]);
            }
        }
        dmlcl__taps_table_free(&t);
    }
}
END_TEST


/* ---- slabs (core/slab.h): tensors past 2^31 elements run as launches of 32-bit offsets -- */

/* What RESAMPLE1's output range [a, b) of dimension d reads (lib/resample/tiles.c's forward
 * reads: the maps are monotone, so the ends' reads bound it). */
typedef struct {
    dmlcl__resample_axis ax[8];
} slab_maps;

static void map_reads(const void *ctx, uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                      uint64_t *hi)
{
    const slab_maps *m = ctx;
    float w;
    *lo = dmlcl__resample_axis_read(&m->ax[d], a, &w);
    const uint64_t last = dmlcl__resample_axis_read(&m->ax[d], b - 1, &w);
    *hi = last + 1 + (w != 0);
}

/* REVERSE_SUBSEQUENCES: the whole axis (ctx: the axis and its size), else the range. */
static void axis_reads(const void *ctx, uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                       uint64_t *hi)
{
    const uint64_t *ax = ctx;
    *lo = d == ax[0] ? 0 : a;
    *hi = d == ax[0] ? ax[1] : b;
}

/* The identity: each output index reads its own. */
static void id_reads(const void *ctx, uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                     uint64_t *hi)
{
    (void)ctx, (void)d;
    *lo = a, *hi = b;
}
static dmlcl__slab_reads_fn map_reads_id_ptr(void) { return id_reads; }

/* Reads of nothing along dimension 1's odd indices (RESAMPLE_GRAD1 of nearest 4 -> 2). */
static void gap_reads(const void *ctx, uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                      uint64_t *hi)
{
    (void)ctx;
    *lo = a, *hi = b;
    if (d == 1 && b - a == 1 && a % 2)
        *lo = *hi = 0;
}

static slab_maps linear_maps(uint32_t rank, const dmlcl__tensor *in, const dmlcl__tensor *out)
{
    slab_maps m;
    for (uint32_t d = 0; d < rank; d++)
        m.ax[d] = dmlcl__resample_axis_make(1, DMLCL__NEAREST_HALF_UP, in->whole[d],
                                            out->whole[d], (float)out->whole[d] / in->whole[d],
                                            0.5f, -0.5f);
    return m;
}

/* Every slab within the limit, and the slabs cover the output once: their elements add
 * up to the output's and each box lies within it, boxes in order without overlap along
 * each dimension's chunks. */
static void check_cover(const dmlcl__slabs *s, const dmlcl__tensor *in, const dmlcl__tensor *out,
                        dmlcl__slab_reads_fn reads, const void *ctx)
{
    uint64_t elements = 0;
    for (uint64_t i = 0; i < s->n; i++) {
        dmlcl__box ob, ib;
        dmlcl__slabs_box(s, in, out, reads, ctx, i, &ob, &ib);
        uint64_t e = 1, ospan = 1, ispan = 1;
        for (uint32_t d = 0; d < out->rank; d++) {
            ck_assert_uint_ge(ob.start[d], out->origin[d]);
            ck_assert_uint_le(ob.start[d] + ob.size[d], out->origin[d] + out->sizes[d]);
            ck_assert_uint_ge(ob.size[d], 1);
            ck_assert_uint_eq((ob.start[d] - out->origin[d]) % s->chunk[d], 0);
            ck_assert_uint_ge(ib.start[d], in->origin[d]);
            ck_assert_uint_le(ib.start[d] + ib.size[d], in->origin[d] + in->sizes[d]);
            e *= ob.size[d];
            ospan += (ob.size[d] - 1) * out->strides[d];
            ispan += (ib.size[d] - 1) * in->strides[d];
        }
        ck_assert_uint_lt(ospan, s->limit);
        ck_assert_uint_lt(ispan, s->limit);
        ck_assert_uint_le(ospan, s->out_span);
        ck_assert_uint_le(ispan, s->in_span);
        elements += e;
    }
    ck_assert_uint_eq(elements, out->elements);
}

/* The bench's linear2x-nchw at --mb 4096 (an output of 2^32 floats): three slabs of the
 * batch, each planning 32-bit kernels, where the whole needs 64-bit ones; at --mb 1024 no
 * cut. Channels-last alike. */
START_TEST(slabs_cut_the_batch)
{
    for (int cl = 0; cl < 2; cl++) {
        const uint64_t is[4] = {512, 8, 512, 512}, os[4] = {512, 8, 1024, 1024};
        const uint64_t ist[4] = {512 * 512 * 8, 1, 512 * 8, 8},
                       ost[4] = {1024 * 1024 * 8, 1, 1024 * 8, 8};
        dmlcl__tensor in = tensor(4, is, cl ? ist : NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        dmlcl__tensor out = tensor(4, os, cl ? ost : NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        slab_maps m = linear_maps(4, &in, &out);
        dmlcl__slabs s;
        dmlcl__slabs_plan(&in, &out, 0, DMLCL__SLAB_LIMIT, map_reads, &m, &s);
        ck_assert(s.over && s.split);
        ck_assert_uint_eq(s.n, 3);
        ck_assert_uint_eq(s.count[0], 3);
        ck_assert_uint_eq(s.chunk[0], 171);
        ck_assert_uint_eq(s.count[1] * s.count[2] * s.count[3], 1);
        check_cover(&s, &in, &out, map_reads, &m);
        char grid[64];
        dmlcl__slabs_grid_text(&s, grid, sizeof grid);
        ck_assert_str_eq(grid, "3x1x1x1");
        dmlcl__resample1_plan whole, part;
        dmlcl__resample1_plan_make(&in, &out, 1, (const float[]){1, 1, 2, 2}, half8, mhalf8,
                                   &gpu, 0, &whole);
        ck_assert_int_eq(whole.idx64, 1);
        for (uint64_t i = 0; i < s.n; i++) {
            dmlcl__box ob, ib;
            dmlcl__slabs_box(&s, &in, &out, map_reads, &m, i, &ob, &ib);
            dmlcl__tensor pi = in, po = out;
            dmlcl__tile_narrow(&pi, &ib);
            const uint64_t shift = dmlcl__tile_narrow(&po, &ob);
            ck_assert_uint_eq(shift, ob.start[0] * out.strides[0]);
            dmlcl__resample1_plan_make(&pi, &po, 1, (const float[]){1, 1, 2, 2}, half8, mhalf8,
                                       &gpu, 0, &part);
            ck_assert_int_eq(part.idx64, 0);
            ck_assert_ptr_nonnull(strstr(part.options, "-DIDX64=0"));
        }
        /* --mb 1024: 2^30 outputs, no slabs. */
        const uint64_t is1[4] = {128, 8, 512, 512}, os1[4] = {128, 8, 1024, 1024};
        in = tensor(4, is1, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        out = tensor(4, os1, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
        m = linear_maps(4, &in, &out);
        dmlcl__slabs_plan(&in, &out, 0, DMLCL__SLAB_LIMIT, map_reads, &m, &s);
        ck_assert(!s.over && !s.split);
        ck_assert_uint_eq(s.n, 1);
    }
}
END_TEST

/* Downsampling (big-linear: 8 GiB in, 2 GiB out): the input's span is over, so the cut
 * follows the input range each slab reads. */
START_TEST(slabs_follow_the_input)
{
    const uint64_t is[4] = {256, 8, 1024, 1024}, os[4] = {256, 8, 512, 512};
    dmlcl__tensor in = tensor(4, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(4, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    slab_maps m = linear_maps(4, &in, &out);
    dmlcl__slabs s;
    dmlcl__slabs_plan(&in, &out, 0, DMLCL__SLAB_LIMIT, map_reads, &m, &s);
    ck_assert(s.split);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_uint_eq(s.chunk[0], 128);
    check_cover(&s, &in, &out, map_reads, &m);
    /* A low limit (DMLCL_RESAMPLE_PLAN=slab=N, as the tests force it): the image's rows
     * are cut too, each slab's input rows the ones its output rows read. */
    const uint64_t is2[4] = {2, 3, 40, 40}, os2[4] = {2, 3, 20, 20};
    in = tensor(4, is2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(4, os2, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    m = linear_maps(4, &in, &out);
    dmlcl__slabs_plan(&in, &out, 0, 1000, map_reads, &m, &s);
    ck_assert(s.split);
    ck_assert_uint_gt(s.count[2], 1);
    check_cover(&s, &in, &out, map_reads, &m);
    /* Upsampling, channels-last, a low limit. */
    const uint64_t is3[4] = {2, 8, 9, 7}, os3[4] = {2, 8, 18, 14};
    const uint64_t ist[4] = {9 * 7 * 8, 1, 7 * 8, 8}, ost[4] = {18 * 14 * 8, 1, 14 * 8, 8};
    in = tensor(4, is3, ist, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    out = tensor(4, os3, ost, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    m = linear_maps(4, &in, &out);
    for (uint64_t limit = 100; limit <= 4000; limit += 300) {
        dmlcl__slabs_plan(&in, &out, 0, limit, map_reads, &m, &s);
        ck_assert_msg(s.split, "limit %llu: %s", (unsigned long long)limit, s.why);
        check_cover(&s, &in, &out, map_reads, &m);
    }
}
END_TEST

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Plans the 16 slabs of a [2^24, 64] nearest resample along dimension 0 (as lib/slabs.c's
 * parts do), their whole-dimension facts shared or not; returns the seconds it took. Scale
 * 1 with offset 0.25 is a pass-through for 2^24 - 1 rows: telling it reads every row. */
static double plan_parts(int shared, dmlcl__resample1_plan *last)
{
    const uint64_t sz[2] = {1u << 24, 64};
    const float sc[2] = {1, 1}, ipo[2] = {0.25f, 0.25f}, opo[2] = {0, 0};
    const dmlcl__tensor in = tensor(2, sz, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    const dmlcl__tensor out = in;
    dmlcl__whole_dims wd;
    memset(&wd, 0, sizeof wd);
    const double t0 = seconds();
    for (uint64_t k = 0; k < 16; k++) {
        dmlcl__box b = {{k << 20, 0}, {1u << 20, 64}};
        dmlcl__tensor pi = in, po = out;
        dmlcl__tile_narrow(&pi, &b);
        dmlcl__tile_narrow(&po, &b);
        dmlcl__resample1_plan_make_part(&pi, &po, 0, DMLCL__NEAREST_HALF_UP, sc, ipo, opo, &cpu,
                                        0, shared ? &wd : NULL, last);
    }
    return seconds() - t0;
}

/* Whether a whole dimension is a pass-through is the same for every slab: the first part
 * tells it, the others read it (1025 slabs of a [2^24, 2^17] resample took 56.6 s to
 * create, 0.4 s now), and their plans are the same. */
START_TEST(slab_parts_classify_the_whole_once)
{
    dmlcl__resample1_plan a, b;
    const double alone = plan_parts(0, &a), shared = plan_parts(1, &b);
    ck_assert_str_eq(a.options, b.options);
    ck_assert_uint_eq(a.nr, b.nr);
    ck_assert_uint_eq(a.np, b.np);
    ck_assert_msg(shared * 3 < alone, "shared %.3f s, each part alone %.3f s", shared, alone);
}
END_TEST

/* Every slab reads the whole input (ctx: its size; counts the calls). */
static void whole_reads(const void *ctx, uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                        uint64_t *hi)
{
    (void)d, (void)a, (void)b;
    uint64_t *n = (uint64_t *)ctx;
    n[1]++;
    *lo = 0, *hi = n[0];
}

/* An input range that does not shrink with the cut (just past the limit): the planner
 * still gives up after a bounded number of rounds, each a 16th or more of the chunk less
 * (63 thousand reads; one index less a round made 1.9 million). */
START_TEST(slabs_plan_in_few_rounds)
{
    const uint64_t is[1] = {DMLCL__SLAB_LIMIT + 1}, os[1] = {1000000};
    dmlcl__tensor in = tensor(1, is, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = tensor(1, os, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    uint64_t n[2] = {is[0], 0};
    dmlcl__slabs s;
    dmlcl__slabs_plan(&in, &out, 0, DMLCL__SLAB_LIMIT, whole_reads, n, &s);
    ck_assert(!s.split);
    ck_assert_str_eq(s.why, "a cut below the limit needs more than 4096 slabs");
    ck_assert_msg(n[1] < 100000, "%llu reads", (unsigned long long)n[1]);
}
END_TEST

/* REVERSE_SUBSEQUENCES: the axis stays whole. big-reverse-int8 (2^33 elements) in five
 * slabs of rows, each planning 32-bit kernels; a transposed input, whose every slab of
 * rows spans the whole input, and an axis over the limit are not cut (64-bit, said why). */
START_TEST(slabs_keep_the_axis)
{
    const uint64_t sz[2] = {(uint64_t)1 << 23, 1024}, lsz[2] = {(uint64_t)1 << 23, 1};
    dmlcl__tensor in = tensor(2, sz, NULL, DMLCL_TENSOR_DATA_TYPE_INT8, 1);
    dmlcl__tensor out = in;
    dmlcl__tensor len = tensor(2, lsz, NULL, DMLCL_TENSOR_DATA_TYPE_UINT32, 4);
    const uint64_t ax[2] = {1, 1024};
    dmlcl__slabs s;
    dmlcl__slabs_plan(&in, &out, 1u << 1, DMLCL__SLAB_LIMIT, axis_reads, ax, &s);
    ck_assert(s.split);
    ck_assert_uint_eq(s.n, 5);
    ck_assert_uint_eq(s.count[1], 1);
    check_cover(&s, &in, &out, axis_reads, ax);
    dmlcl__rs_plan p;
    dmlcl__rs_plan_make(&in, &len, &out, 1, &gpu, &p);
    ck_assert_int_eq(p.idx64, 1);
    for (uint64_t i = 0; i < s.n; i++) {
        dmlcl__box ob, ib;
        dmlcl__slabs_box(&s, &in, &out, axis_reads, ax, i, &ob, &ib);
        dmlcl__tensor po = out, pi, pl;
        dmlcl__tile_narrow(&po, &ob);
        const uint64_t at[2] = {ob.start[0], 0}, lat[2] = {ob.start[0], 0},
                       ls[2] = {ob.size[0], 1};
        dmlcl__tensor_view(&in, at, po.sizes, &pi);
        dmlcl__tensor_view(&len, lat, ls, &pl);
        dmlcl__rs_plan_make(&pi, &pl, &po, 1, &gpu, &p);
        ck_assert_int_eq(p.idx64, 0);
    }
    /* Transposed: rows cut, the input still spans the columns' stride times 1023. */
    const uint64_t tst[2] = {1, (uint64_t)1 << 23};
    dmlcl__tensor tin = tensor(2, sz, tst, DMLCL_TENSOR_DATA_TYPE_INT8, 1);
    dmlcl__slabs_plan(&tin, &out, 1u << 1, DMLCL__SLAB_LIMIT, axis_reads, ax, &s);
    ck_assert(s.over && !s.split);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_ptr_nonnull(strstr(s.why, "transposed"));
    /* Without the axis kept, the columns are cut too. */
    dmlcl__slabs_plan(&tin, &out, 0, DMLCL__SLAB_LIMIT, map_reads_id_ptr(), NULL, &s);
    ck_assert(s.split);
    ck_assert_uint_gt(s.count[1], 1);
    /* A kept axis longer than the limit. */
    const uint64_t one[1] = {(uint64_t)3 << 30}, ax1[2] = {0, (uint64_t)3 << 30};
    dmlcl__tensor line = tensor(1, one, NULL, DMLCL_TENSOR_DATA_TYPE_INT8, 1);
    dmlcl__slabs_plan(&line, &line, 1u, DMLCL__SLAB_LIMIT, axis_reads, ax1, &s);
    ck_assert(s.over && !s.split);
    ck_assert_ptr_nonnull(strstr(s.why, "cannot be cut"));
    /* More slabs than DMLCL__SLAB_MAX. */
    const uint64_t sq[2] = {1000, 1000};
    dmlcl__tensor big = tensor(2, sq, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__slabs_plan(&big, &big, 0, 100, map_reads_id_ptr(), NULL, &s);
    ck_assert(!s.split);
    ck_assert_ptr_nonnull(strstr(s.why, "4096"));
    /* slab=0: off. */
    dmlcl__slabs_plan(&tin, &out, 0, 0, map_reads_id_ptr(), NULL, &s);
    ck_assert(!s.over && !s.split);
}
END_TEST

/* A range that reads nothing (RESAMPLE_GRAD1's rows no forward output reads) reads the
 * input tile's first element there, so every part is a tile of the operator's tiles. */
START_TEST(slabs_of_rows_read_by_none)
{
    const uint64_t sz[2] = {4, 6};
    dmlcl__tensor in = tensor(2, sz, NULL, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    dmlcl__tensor out = in;
    in.origin[1] = 3, in.whole[1] = 20; /* tiles of larger tensors */
    out.origin[1] = 3, out.whole[1] = 20;
    dmlcl__slabs s;
    dmlcl__slabs_plan(&in, &out, 0, 2, gap_reads, NULL, &s);
    ck_assert(s.split);
    ck_assert_uint_eq(s.n, 24);
    for (uint64_t i = 0; i < s.n; i++) {
        dmlcl__box ob, ib;
        dmlcl__slabs_box(&s, &in, &out, gap_reads, NULL, i, &ob, &ib);
        ck_assert_uint_eq(ib.size[1], 1);
        ck_assert_uint_eq(ib.start[1], ob.start[1] % 2 ? 3 : ob.start[1]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("resample1_planner");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, nearest_4_to_2_pixel_centre_picks_1_and_3);
    tcase_add_test(tc, scale_3_pixel_centre_rows);
    tcase_add_test(tc, linear_rows_clamp_and_weights);
    tcase_add_test(tc, extreme_scales_and_sizes);
    suite_add_tcase(s, tc);
    tc = tcase_create("plan");
    tcase_add_test(tc, nchw_spatial_upsample_collapses_batch_and_channels);
    tcase_add_test(tc, gpu_row_kernels);
    tcase_add_test(tc, linear_row_window);
    tcase_add_test(tc, nearest_row_window);
    tcase_add_test(tc, twelve_outputs_an_item);
    tcase_add_test(tc, channels_last_makes_pass_through_inner);
    tcase_add_test(tc, identity_dimensions_cost_nothing);
    tcase_add_test(tc, affine_maps_become_strides);
    tcase_add_test(tc, output_size_one_folds_into_base);
    tcase_add_test(tc, transposed_pass_dims_do_not_merge);
    tcase_add_test(tc, rank_8_all_resampled);
    tcase_add_test(tc, rows_per_item);
    tcase_add_test(tc, register_cap_where_the_device_takes_one);
    tcase_add_test(tc, types_and_index_width);
    tcase_add_test(tc, cpu_lanes_follow_the_registers);
    tcase_add_test(tc, cpu_non_temporal_stores);
    tcase_add_test(tc, cpu_keeps_products_on_short_rows);
    tcase_add_test(tc, cpu_rows_per_item);
    tcase_add_test(tc, patterns_recur_or_none);
    tcase_add_test(tc, fill_writes_the_rows);
    tcase_add_test(tc, resample2_nearest_rules);
    tcase_add_test(tc, coordinate_rounding_matches_libm);
    tcase_add_test(tc, antialiased_rows_match_the_formula);
    suite_add_tcase(s, tc);
    tc = tcase_create("slabs");
    tcase_add_test(tc, slabs_cut_the_batch);
    tcase_add_test(tc, slabs_follow_the_input);
    tcase_add_test(tc, slabs_plan_in_few_rounds);
    tcase_add_test(tc, slab_parts_classify_the_whole_once);
    tcase_add_test(tc, slabs_keep_the_axis);
    tcase_add_test(tc, slabs_of_rows_read_by_none);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
