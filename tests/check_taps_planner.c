/* The tap engine's launch plan (lib/resample/taps/taps_plan.c) as a pure function: the
 * kernel layout, the NDRange, the channels per item, the segment kernel's pattern and the
 * build options for RESAMPLE_GRAD1 tables built on the host (taps_tables.c). No OpenCL. */
#include <check.h>
#include <string.h>
#include "resample/taps/taps_plan.h"
#include "plantensor.h"

static const dmlcl__limits gpu = {1024, 132, 0, 64, 0};
static const dmlcl__limits cpu = {4096, 2, 1, 64, 0}; /* AVX-512 */

/* RESAMPLE_GRAD1, LINEAR, half-pixel offsets (antialias 0): the result is the forward
 * input (res_sizes), the source the forward output (src_sizes, each res_sizes x scale);
 * antialias 1: RESAMPLE3's antialiased filter, the source the input (res_sizes / scales),
 * the result its output. NULL strides: packed. The tables go into *t (the caller frees
 * them). */
static void plan_taps(dmlcl__taps_plan *p, dmlcl__taps_table *t, uint32_t rank,
                      const uint64_t *res_sizes, const uint64_t *res_str,
                      const uint64_t *src_str, const float *scales,
                      const dmlcl__limits *lim, const char *tune_text, int force_idx64,
                      int antialias)
{
    uint64_t src_sizes[8];
    for (uint32_t d = 0; d < rank; d++)
        src_sizes[d] = antialias ? (uint64_t)((float)res_sizes[d] / scales[d] + 0.5f)
                                 : (uint64_t)((float)res_sizes[d] * scales[d]);
    const dmlcl__tensor src = plan_tensor(rank, src_sizes, src_str,
                                          DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    const dmlcl__tensor res = plan_tensor(rank, res_sizes, res_str,
                                          DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4);
    memset(t, 0, sizeof *t);
    dmlcl__taps_plan_init(p, &src, &res);
    for (uint32_t d = 0; d < rank; d++) {
        dmlcl__taps_dim dim = {res_sizes[d], src_sizes[d], scales[d], 0.5f, -0.5f,
                               0, res_sizes[d], 0, src_sizes[d], 0, 0, 0};
        if (!dmlcl__taps_affine(!antialias, 1, DMLCL__NEAREST_HALF_UP, antialias, &dim, 0,
                                NULL))
            ck_assert(antialias ? dmlcl__taps_add_forward(t, 1, &dim)
                                : dmlcl__taps_add_grad(t, 1, DMLCL__NEAREST_HALF_UP, &dim));
        dmlcl__taps_plan_dim(p, &src, &res, d, &dim);
    }
    dmlcl__r1_tune tune;
    ck_assert_int_eq(dmlcl__r1_tune_parse(tune_text, &tune), 0);
    dmlcl__taps_plan_launch(p, t, &src, &res, lim, &tune, force_idx64);
}

static void plan_grad(dmlcl__taps_plan *p, dmlcl__taps_table *t, uint32_t rank,
                      const uint64_t *res_sizes, const uint64_t *res_str,
                      const uint64_t *src_str, const float *scales,
                      const dmlcl__limits *lim, const char *tune_text, int force_idx64)
{
    plan_taps(p, t, rank, res_sizes, res_str, src_str, scales, lim, tune_text, force_idx64, 0);
}

static const uint64_t nchw[4] = {1, 3, 64, 64};
static const float up2[4] = {1, 1, 2, 2};

/* CPUs: the segment kernel, 512 columns per item at most, groups of 8 items down the rows;
 * linear 2x's backward pass reads every other source column: the pattern 0, 2, ..., 30. */
START_TEST(cpu_segments_and_their_pattern)
{
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &cpu, "", 0);
    ck_assert_uint_eq(p.args.nt, 2);
    ck_assert_uint_eq(p.args.inner, 3);
    ck_assert_uint_eq(p.args.nx, 64);
    ck_assert_uint_eq(p.args.rows, 3 * 64);
    ck_assert(p.rows_2d && p.kb >= 1);
    ck_assert_uint_eq(p.segt, 512);
    ck_assert_uint_eq(p.local2[0], 1);
    ck_assert_uint_eq(p.local2[1], 8);
    ck_assert_str_eq(p.kernel, "resample_taps_seg");
    ck_assert_uint_eq(p.tpw, 16); /* two 64-byte registers of floats, at most 16 */
    for (int l = 0; l < 16; l++)
        ck_assert_int_eq(p.tp[l], 2 * l);
    ck_assert_ptr_nonnull(strstr(p.options, "-DSEGT=512"));
    ck_assert_ptr_null(strstr(p.options, "-DTP="));
    ck_assert_ptr_nonnull(strstr(p.options_tp, " -DTPW=16 -DTP=0,2,4,6,8,10,12,14,16,"));
    ck_assert_int_eq(strncmp(p.options_tp, p.options, strlen(p.options)), 0);
    dmlcl__taps_table_free(&t);
}
END_TEST

/* Rows of two vectors (volumes of 32^3 results): the first vector's first column is
 * clamped (its lanes 0, 1, 3, 5, ..), the second follows 0, 2, 4, ..: a tie, which the
 * later vector's pattern wins (the kernel redoes the first vector's edge column alone). */
START_TEST(cpu_pattern_of_short_rows_not_from_the_edge)
{
    static const uint64_t vol[5] = {1, 2, 32, 32, 32};
    static const float up2x3[5] = {1, 1, 2, 2, 2};
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 5, vol, NULL, NULL, up2x3, &cpu, "", 0);
    ck_assert_uint_eq(p.args.nx, 32);
    ck_assert_uint_eq(p.tpw, 16);
    for (int l = 0; l < 16; l++)
        ck_assert_int_eq(p.tp[l], 2 * l);
    dmlcl__taps_table_free(&t);
}
END_TEST

/* tp=0: no pattern, so the pattern's program is the generic one. */
START_TEST(cpu_pattern_off_by_override)
{
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &cpu, "tp=0", 0);
    ck_assert_uint_eq(p.segt, 512);
    ck_assert_int_lt(p.tp[0], 0);
    ck_assert_str_eq(p.options_tp, p.options);
    dmlcl__taps_table_free(&t);
}
END_TEST

/* CPUs: results of 16 MiB or more in FLOAT32 go out as non-temporal stores (SEGNT), in
 * the pattern's program only; not below that size, not with 16-byte registers (SSE), not
 * with nt=0; nt=1 asks for them at any size. */
START_TEST(cpu_non_temporal_stores_beyond_the_caches)
{
    static const uint64_t big[4] = {1, 4, 1024, 1024}; /* 16 MiB of results */
    static const dmlcl__limits sse = {4096, 2, 1, 16, 0};
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, big, NULL, NULL, up2, &cpu, "", 0);
    ck_assert_int_eq(p.seg_nt, 1);
    ck_assert_ptr_nonnull(strstr(p.options_tp, " -DSEGNT=1"));
    ck_assert_ptr_null(strstr(p.options, "SEGNT"));
    dmlcl__taps_table_free(&t);
    static const uint64_t below[4] = {1, 4, 1024, 1023};
    plan_grad(&p, &t, 4, below, NULL, NULL, up2, &cpu, "", 0);
    ck_assert_int_eq(p.seg_nt, 0);
    ck_assert_ptr_null(strstr(p.options_tp, "SEGNT"));
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, big, NULL, NULL, up2, &sse, "", 0);
    ck_assert_int_eq(p.seg_nt, 0);
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, big, NULL, NULL, up2, &cpu, "nt=0", 0);
    ck_assert_ptr_null(strstr(p.options_tp, "SEGNT"));
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &cpu, "nt=1", 0);
    ck_assert_ptr_nonnull(strstr(p.options_tp, " -DSEGNT=1"));
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &cpu, "nt=1,tp=0", 0); /* no pattern */
    ck_assert_int_eq(p.seg_nt, 0);
    ck_assert_str_eq(p.options_tp, p.options);
    dmlcl__taps_table_free(&t);
}
END_TEST

/* GPUs: the rows kernel, two columns an item (x and x + the range's width: a row's outer
 * taps serve both), a group spanning the 32 items of the 64 columns (a power of two, 256
 * items in all), its outer loop unrolled to the plan's dimensions by build options;
 * xc=1 gives one column an item, 64 items across. */
START_TEST(gpu_rows_kernel)
{
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &gpu, "", 0);
    ck_assert(p.rows_2d);
    ck_assert_uint_eq(p.segt, 0);
    ck_assert_str_eq(p.kernel, "resample_taps_rows");
    ck_assert_uint_eq(p.xc, 2);
    ck_assert_uint_eq(p.local2[0], 32);
    ck_assert_uint_eq(p.local2[1], 8);
    ck_assert_uint_eq(p.global2[0], 32);
    ck_assert_uint_eq(p.global2[1] % 8, 0);
    ck_assert_uint_eq(p.cv, 1); /* channels-first: no channel vectors */
    ck_assert_ptr_nonnull(strstr(p.options, " -DRS=4 -DBDIM=3 -DCDIM=8 -DTMASK=0xc -DKF="));
    ck_assert_ptr_nonnull(strstr(p.options, " -DXC=2 -DBRUN=1"));
    ck_assert_str_eq(p.options_tp, p.options);
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &gpu, "xc=1", 0);
    ck_assert_uint_eq(p.xc, 1);
    ck_assert_uint_eq(p.local2[0], 64);
    ck_assert_uint_eq(p.global2[0], 64);
    ck_assert_ptr_null(strstr(p.options, "-DXC"));
    ck_assert_ptr_null(strstr(p.options, "-DBRUN"));
    dmlcl__taps_table_free(&t);
    /* A volume (three tabled dimensions): four columns an item, the outer two's taps
     * decoded once per row for all (GRAD1 of trilinear 2x: 2.39x its forward pass with
     * two, 2.17-2.21x with four, H100 and H200). */
    const uint64_t vol[5] = {1, 2, 16, 16, 64};
    const float up3[5] = {1, 1, 2, 2, 2};
    plan_grad(&p, &t, 5, vol, NULL, NULL, up3, &gpu, "", 0);
    ck_assert_uint_eq(p.xc, 4);
    ck_assert_ptr_nonnull(strstr(p.options, "-DNT3=1"));
    ck_assert_ptr_nonnull(strstr(p.options, " -DTMASK=0x1c -DKF=4 -DXC=4"));
    ck_assert_ptr_null(strstr(p.options, "-DBRUN")); /* volumes keep the offsets */
    dmlcl__taps_table_free(&t);
}
END_TEST

/* BRUN (a column's taps as KB consecutive source elements) only where they fit: not with
 * source rows shorter than KB (3 -> 2 columns antialiased at scale 0.58: 3 taps, so KB 4,
 * in a row of 3), nor with a source stride other than 1 along b. */
START_TEST(gpu_runs_of_taps_where_they_fit)
{
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    const uint64_t out[4] = {1, 3, 32, 2};
    const float down[4] = {1, 1, 0.5f, 0.58f};
    plan_taps(&p, &t, 4, out, NULL, NULL, down, &gpu, "rows=1", 0, 1);
    ck_assert_uint_eq(p.kb, 4);
    ck_assert_ptr_nonnull(strstr(p.options, " -DXC=2"));
    ck_assert_ptr_null(strstr(p.options, "-DBRUN"));
    dmlcl__taps_table_free(&t);
    const uint64_t wide[4] = {1, 3, 32, 64};
    plan_taps(&p, &t, 4, wide, NULL, NULL, down, &gpu, "rows=1", 0, 1);
    ck_assert_uint_eq(p.kb, 4);
    ck_assert_ptr_nonnull(strstr(p.options, " -DXC=2 -DBRUN=1"));
    dmlcl__taps_table_free(&t);
    const uint64_t strided[4] = {3 * 128 * 128 * 2, 128 * 128 * 2, 128 * 2, 2};
    plan_grad(&p, &t, 4, nchw, NULL, strided, up2, &gpu, "", 0);
    ck_assert_ptr_nonnull(strstr(p.options, " -DXC=2"));
    ck_assert_ptr_null(strstr(p.options, "-DBRUN"));
    dmlcl__taps_table_free(&t);
}
END_TEST

/* Groups down the rows: 64 per compute unit (columns in one group), each item looping
 * over the rest; gpc=N sets N. */
START_TEST(gpu_groups_per_compute_unit)
{
    static const uint64_t tall[4] = {1, 128, 1024, 64}; /* 131072 rows of 64 columns */
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, tall, NULL, NULL, up2, &gpu, "", 0);
    ck_assert_uint_eq(p.global2[0], p.local2[0]);
    ck_assert_uint_eq(p.global2[1], 132 * 64 * p.local2[1]);
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, tall, NULL, NULL, up2, &gpu, "gpc=16", 0);
    ck_assert_uint_eq(p.global2[1], 132 * 16 * p.local2[1]);
    dmlcl__taps_table_free(&t);
}
END_TEST

/* FLOAT32 channels-last on GPUs: runs of 4 channels become one item each (-DCV=4), of 8
 * where v=8 asks. */
START_TEST(gpu_channels_last_vectors)
{
    const uint64_t sizes[4] = {1, 8, 64, 64}; /* N, C, H, W */
    const uint64_t res_str[4] = {64 * 64 * 8, 1, 64 * 8, 8};
    const uint64_t src_str[4] = {128 * 128 * 8, 1, 128 * 8, 8};
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, sizes, res_str, src_str, up2, &gpu, "", 0);
    ck_assert(p.rows_2d);
    ck_assert_uint_eq(p.args.inner, 3);
    ck_assert_uint_eq(p.args.cdim, 1);
    ck_assert_uint_eq(p.cv, 4);
    ck_assert_uint_eq(p.xc, 1); /* a column's channels are its vector */
    ck_assert_uint_eq(p.args.nc, 2);
    ck_assert_uint_eq(p.args.nx, 128);
    ck_assert_ptr_nonnull(strstr(p.options, "-DCV=4"));
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, sizes, res_str, src_str, up2, &gpu, "v=8", 0);
    ck_assert_uint_eq(p.cv, 8);
    ck_assert_uint_eq(p.args.nc, 1);
    ck_assert_uint_eq(p.args.nx, 64);
    ck_assert_ptr_nonnull(strstr(p.options, "-DCV=8"));
    dmlcl__taps_table_free(&t);
}
END_TEST

/* More than 3 tabled dimensions, or rows=0: the 1-D kernels, a fixed group of 64 on CPUs. */
START_TEST(one_dimensional_kernels)
{
    const uint64_t sizes[4] = {4, 4, 16, 16};
    const float all2[4] = {2, 2, 2, 2};
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, sizes, NULL, NULL, all2, &cpu, "", 0);
    ck_assert_uint_eq(p.args.nt, 4);
    ck_assert(!p.rows_2d && p.kb == 0);
    ck_assert_str_eq(p.kernel, "resample_taps");
    ck_assert_uint_eq(p.local, 64);
    ck_assert_uint_eq(p.global % 64, 0);
    ck_assert_ptr_nonnull(strstr(p.options, "-DKB=0 -DSEGT=0"));
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &gpu, "rows=0", 0);
    ck_assert(!p.rows_2d && p.kb == 0);
    ck_assert_str_eq(p.kernel, "resample_taps");
    ck_assert_ptr_nonnull(strstr(p.options, "-DNT2=1"));
    dmlcl__taps_table_free(&t);
}
END_TEST

/* 32-bit index arithmetic unless a tensor or the forcing hook needs 64. */
START_TEST(index_width)
{
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &gpu, "", 0);
    ck_assert_int_eq(p.idx64, 0);
    ck_assert_ptr_nonnull(strstr(p.options, "-DIDX64=0"));
    ck_assert_uint_eq(p.args.rmul[3] != 0, 1);
    dmlcl__taps_table_free(&t);
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &gpu, "", 1);
    ck_assert_int_eq(p.idx64, 1);
    ck_assert_ptr_nonnull(strstr(p.options, "-DIDX64=1"));
    dmlcl__taps_table_free(&t);
}
END_TEST

/* An identity dimension is affine: a stride, no rows; the tabled ones point at their rows. */
START_TEST(affine_dimensions_are_strides)
{
    dmlcl__taps_plan p;
    dmlcl__taps_table t;
    plan_grad(&p, &t, 4, nchw, NULL, NULL, up2, &gpu, "", 0);
    ck_assert_uint_eq(p.args.rtab[0], ~(dmlcl__arg)0);
    ck_assert_uint_eq(p.args.rtab[1], ~(dmlcl__arg)0);
    ck_assert_uint_eq(p.args.sstr[1], 128 * 128);
    ck_assert_uint_eq(p.args.rtab[2], 0);
    ck_assert_uint_lt(p.args.rtab[3], t.n);
    ck_assert_uint_eq(p.src_base, 0);
    ck_assert_uint_eq(p.args.sspan, 3 * 128 * 128);
    dmlcl__taps_table_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("taps_planner");
    TCase *tc = tcase_create("launch");
    tcase_add_test(tc, cpu_segments_and_their_pattern);
    tcase_add_test(tc, cpu_pattern_of_short_rows_not_from_the_edge);
    tcase_add_test(tc, cpu_pattern_off_by_override);
    tcase_add_test(tc, cpu_non_temporal_stores_beyond_the_caches);
    tcase_add_test(tc, gpu_rows_kernel);
    tcase_add_test(tc, gpu_runs_of_taps_where_they_fit);
    tcase_add_test(tc, gpu_groups_per_compute_unit);
    tcase_add_test(tc, gpu_channels_last_vectors);
    tcase_add_test(tc, one_dimensional_kernels);
    tcase_add_test(tc, index_width);
    tcase_add_test(tc, affine_dimensions_are_strides);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
