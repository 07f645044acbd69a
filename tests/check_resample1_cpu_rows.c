/* RESAMPLE1's CPU row blocks (kernels/resample/resample1/resample1_cpu_rows.cl), POCL's
 * choice for a contiguous output row, forced on any device and compared with the C
 * reference bit for bit. */
#include "resample1_case.h"
#include "core/context.h" /* white-box: the device's FLOAT64 support */
#include <stdlib.h>

/* The CPU row blocks (kernels/resample/resample1/resample1_cpu_rows.cl), forced with cpu=3 (3 rows per item,
 * so items split the rows and pair some; rows=0,seg=256 so that GPUs plan them too; every
 * other case with non-temporal stores, nt=1, on its 64-byte aligned rows): the vector path
 * where a row's vectors follow one pattern (2x, 4x, align-corners and asymmetric 2x,
 * whose even outputs have weight 0; 0.5x from a window of two vectors; nearest keeps one
 * pattern, and 0.75x cycles through several),
 * output by output where not (0.3x; 1.5x in two vectors of three) and at the rows' ends (rows of 80, 600: partial vectors and blocks;
 * LINEAR's last whole vector from a window that ends with the input row),
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
        {4, {1, 2, 6, 130}, {1, 2, 3, 97}, NEAREST, 0, 0, NULL}, /* one pattern serves a third */
        {4, {1, 2, 6, 130}, {1, 2, 3, 39}, LINEAR, 0, 0, NULL},
        {3, {3, 5, 40}, {3, 5, 80}, LINEAR, 0, 0, "-DCR_PL="},
        {5, {1, 2, 3, 4, 40}, {1, 2, 6, 8, 80}, LINEAR, 0, 0, "-DCR_PL="},
        {4, {1, 8, 5, 7}, {1, 8, 10, 14}, LINEAR, 1, 0, "INNER_RES=0"},
        {4, {1, 16, 5, 7}, {1, 16, 9, 20}, LINEAR, 1, 0, "INNER_RES=0"},
        {4, {2, 6, 5, 7}, {2, 6, 10, 14}, LINEAR, 1, 0, "INNER_RES=0"},
        {4, {1, 12, 3, 9}, {1, 12, 6, 6}, NEAREST, 1, 0, "INNER_RES=0"},
        {4, {1, 8, 5, 7}, {1, 8, 10, 14}, NEAREST, 1, 0, "INNER_RES=0"},
        /* Rows of two vectors, three resampled dimensions: the last vector's window ends
         * with the input row (lane 0 at 7 in it), not lane by lane. */
        {4, {1, 3, 4, 16}, {1, 6, 8, 32}, LINEAR, 0, 0, "-DCR_PL3=0xfeeddccbbaa99887ul"},
        /* Runs of 8 channels two positions at a time (13: and one alone): nearest in
         * FLOAT64 with non-temporal stores, linear in FLOAT32 and FLOAT16. */
        {4, {1, 8, 5, 7}, {1, 8, 9, 13}, NEAREST, 1, 0, "INNER_RES=0"},
        {4, {1, 8, 5, 7}, {1, 8, 9, 13}, LINEAR, 1, 0, "INNER_RES=0"},
        {4, {2, 8, 5, 7}, {2, 8, 11, 13}, LINEAR, 1, 0, "INNER_RES=0"},
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
        dmlcl_operator *op = rc_make_op(&c, 0);
        const char *plan = dmlcl_operator_plan(op);
        ck_assert_msg(strstr(plan, "-cpu-rows") != NULL, "case %zu: %s", n, plan);
        /* The wanted patterns are of 16 lanes (AVX-512's floats); with fewer lanes to a
         * register, some pattern (tests/check_resample1_planner.c checks those). */
        const char *lanes = strstr(plan, "-DCR_W=");
        const int w16 = lanes && atoi(lanes + 7) == 16;
        if (cases[n].want && !w16 && strstr(cases[n].want, "-DCR_P"))
            ck_assert_msg(strstr(plan, "-DCR_PL") != NULL, "case %zu: %s", n, plan);
        else if (cases[n].want)
            ck_assert_msg(strstr(plan, cases[n].want) != NULL, "case %zu: %s", n, plan);
        else
            ck_assert_msg(strstr(plan, "-DCR_PL") == NULL, "case %zu: %s", n, plan);
        dmlcl_operator_release(op);
        if (tu_compile_only())
            continue;
        const size_t inexact = rc_case_inexact;
        rc_check_random(&rng, &c, (int)n);
        ck_assert_msg(rc_case_inexact == inexact, "case %zu, type %d: %zu outputs not "
                      "bit-identical", n, t, rc_case_inexact - inexact);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* A LINEAR case of rank 4 at pixel centres (scales out / in), packed or channels-last,
 * under $DMLCL_RESAMPLE_PLAN as the caller set it: the plan is the row blocks and holds
 * `want`, and the outputs match the C reference bit for bit. */
static void linear_row_case(uint64_t *rng, int n, const uint32_t *in, const uint32_t *out,
                            int channels_last, dmlcl_tensor_data_type type, const char *want)
{
    rcase c;
    memset(&c, 0, sizeof c);
    c.rank = 4;
    c.type = type;
    c.mode = LINEAR;
    c.elem = dmlcl_data_type_size(type);
    memcpy(c.in_sizes, in, 4 * sizeof *in);
    memcpy(c.out_sizes, out, 4 * sizeof *out);
    for (uint32_t d = 0; d < 4; d++)
        c.scales[d] = (float)c.out_sizes[d] / (float)c.in_sizes[d];
    memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
    memcpy(c.opo, tu_pix_out, sizeof c.opo);
    if (channels_last) {
        tu_channels_last(4, c.in_sizes, c.in_str);
        tu_channels_last(4, c.out_sizes, c.out_str);
    } else {
        tu_make_strides(rng, TU_PACKED, 4, c.in_sizes, -1, c.in_str);
        tu_make_strides(rng, TU_PACKED, 4, c.out_sizes, -1, c.out_str);
    }
    dmlcl_operator *op = rc_make_op(&c, 0);
    const char *plan = dmlcl_operator_plan(op);
    ck_assert_msg(strstr(plan, "-cpu-rows") != NULL && strstr(plan, want) != NULL,
                  "case %d: %s", n, plan);
    dmlcl_operator_release(op);
    if (tu_compile_only())
        return;
    const size_t inexact = rc_case_inexact;
    rc_check_random(rng, &c, n);
    ck_assert_msg(rc_case_inexact == inexact, "case %d: %zu outputs not bit-identical", n,
                  rc_case_inexact - inexact);
}

/* The 16-bit integers' row blocks, converted as loaded and rounded and saturated as
 * stored by halves (CR_LOADH, CR_STOREH): a resampled row (INT16) and runs of 8 channels
 * (UINT16), linear, against the C reference bit for bit. */
START_TEST(sixteen_bit_row_blocks)
{
    static const uint32_t in[4] = {1, 2, 5, 37}, out[4] = {1, 2, 10, 74},
                          cin[4] = {1, 8, 5, 7}, cout[4] = {1, 8, 10, 14};
    uint64_t rng = 0xc916;
    setenv("DMLCL_RESAMPLE_PLAN", "rows=0,seg=256,cpu=3", 1);
    linear_row_case(&rng, 0, in, out, 0, I16, "");
    linear_row_case(&rng, 1, cin, cout, 1, U16, "");
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Non-temporal stores, the default for FLOAT32 and FLOAT64 outputs of 16 MiB and more
 * (forced here with nt=1), on rows that start 64-byte aligned so that the vectors go out
 * non-temporal: three resampled dimensions (row pairs, the vector path) and runs of 8
 * channels (two positions a vector where the lanes allow, the weights' selects left out
 * inside the image), against the C reference bit for bit. */
START_TEST(non_temporal_row_blocks)
{
    static const uint32_t in[4] = {1, 3, 4, 16}, out[4] = {1, 6, 8, 32}, /* rows: 128 bytes */
                          cin[4] = {1, 8, 5, 8}, cout[4] = {1, 8, 10, 16}; /* 512, 1024 */
    uint64_t rng = 0x17e4;
    setenv("DMLCL_RESAMPLE_PLAN", "rows=0,seg=256,cpu=3,nt=1", 1);
    linear_row_case(&rng, 0, in, out, 0, F32, "-DCR_NT=1");
    linear_row_case(&rng, 1, cin, cout, 1, F32, "-DCR_NT=1");
    if (tu_context()->info.has_fp64)
        linear_row_case(&rng, 2, cin, cout, 1, F64, "-DCR_NT=1");
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Channels-last rows whose pairs of positions read alike (their weights, and the
 * distances between their inputs, the same from pair to pair) take the pairs' weight
 * products once per row: 2x (rows of 1200 positions, two blocks, the second one alike
 * from its first pair on), 2/3x (three inputs from pair to pair), runs of 8 channels and
 * of 4 (two positions a vector where a register holds 8 lanes: FLOAT64 on AVX2, FLOAT32
 * on SSE), items of 3 rows (pairs of rows and single ones), against the C reference bit
 * for bit. */
START_TEST(channels_last_pairs_alike)
{
    static const struct {
        uint32_t in[4], out[4];
        dmlcl_tensor_data_type type;
    } cases[] = {
        {{1, 8, 4, 600}, {1, 8, 8, 1200}, F32},
        {{1, 8, 5, 60}, {1, 8, 10, 40}, F16},
        {{1, 4, 4, 40}, {1, 4, 8, 80}, F32},
        {{1, 4, 4, 40}, {1, 4, 8, 80}, F64},
    };
    uint64_t rng = 0xa11e;
    setenv("DMLCL_RESAMPLE_PLAN", "rows=0,seg=256,cpu=3,nt=1", 1);
    for (int n = 0; n < (int)(sizeof cases / sizeof cases[0]); n++)
        if (cases[n].type != F64 || tu_context()->info.has_fp64)
            linear_row_case(&rng, n, cases[n].in, cases[n].out, 1, cases[n].type, "INNER_RES=0");
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Pairs of rows on short rows keep their weight products from pair to pair (CR_KEEP) and
 * must make them again wherever the two rows' weights change: 3x in one outer dimension
 * (pairs of rows cycle through its weights), 2x in the other, and items of 40 rows, so
 * that an item crosses planes (the slower dimension's weights change too), against the C
 * reference bit for bit. (The layouts' cases build the kept products for the other CPU
 * targets: short rows in pairs.) */
START_TEST(kept_products_follow_the_weights)
{
    static const uint32_t in[4] = {1, 3, 5, 24}, out[4] = {1, 6, 15, 48};
    uint64_t rng = 0x6e7b;
    setenv("DMLCL_RESAMPLE_PLAN", "rows=0,seg=256,cpu=40", 1);
    linear_row_case(&rng, 0, in, out, 0, F32, "-DCR_KEEP=");
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The weight-0 rule on the lane patterns' vectors (the specialised program): 2x with
 * offsets 0 in both resampled dimensions, so output 2i lands on input i with its upper
 * corner's weight 0, and Inf at every odd input along the row, so a sum that added that
 * corner would turn output 2i into NaN: it must be input i exactly (i or Inf), every odd
 * output Inf. Rows of 64 inputs (whole vectors on the patterns), 3 rows per item (pairs
 * and single rows). */
START_TEST(inf_beside_weight_zero)
{
    const uint32_t is[3] = {2, 3, 64}, os[3] = {2, 6, 128};
    const float sc[3] = {1, 2, 2};
    static float in[2 * 3 * 64], out[2 * 6 * 128];
    for (int i = 0; i < 2 * 3 * 64; i++)
        in[i] = i % 2 ? INFINITY : (float)(i % 64);
    setenv("DMLCL_RESAMPLE_PLAN", "rows=0,seg=256,cpu=3", 1);
    tu_resample1_f32(3, is, os, LINEAR, sc, rc_zeros, rc_zeros, in, out);
    unsetenv("DMLCL_RESAMPLE_PLAN");
    if (tu_compile_only())
        return;
    for (int r = 0; r < 2 * 6; r++)
        for (int x = 0; x < 128; x++) {
            const float got = out[128 * r + x], want = x % 2 ? INFINITY : in[x / 2];
            tu_assert_each(got == want, "row %d, out[%d] = %g, not %g", r, x, (double)got,
                           (double)want);
        }
}
END_TEST

/* Random scales and offsets along the row (make check's other suites run the generic
 * programs): the specialised row blocks, whatever lane pattern a scale gives, against
 * the C reference bit for bit. Four programs: each scale is one. */
START_TEST(random_scales)
{
    static const dmlcl_tensor_data_type types[] = {F32, U8, F16};
    uint64_t rng = 0x5ca1e;
    setenv("DMLCL_RESAMPLE_PLAN", "rows=0,seg=256,cpu=2", 1);
    for (int n = 0; n < 4; n++) {
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = 3;
        c.type = types[n % 3];
        c.mode = n % 2 ? NEAREST : LINEAR;
        c.elem = dmlcl_data_type_size(c.type);
        c.in_sizes[0] = 2, c.out_sizes[0] = 2, c.scales[0] = 1;
        c.in_sizes[1] = (uint32_t)tu_range(&rng, 2, 6);
        c.in_sizes[2] = (uint32_t)tu_range(&rng, 20, 90);
        for (uint32_t d = 1; d < 3; d++) {
            c.scales[d] = 0.3f + (float)tu_range(&rng, 0, 1000) / 250.0f;
            c.out_sizes[d] = (uint32_t)((float)c.in_sizes[d] * c.scales[d]) + 1;
            rc_random_offsets(&rng, 3, &c.ipo[d], &c.opo[d]);
        }
        c.ipo[0] = 0.5f, c.opo[0] = -0.5f;
        tu_make_strides(&rng, TU_PACKED, 3, c.in_sizes, -1, c.in_str);
        tu_make_strides(&rng, TU_PACKED, 3, c.out_sizes, -1, c.out_str);
        dmlcl_operator *op = rc_make_op(&c, 0);
        ck_assert_msg(strstr(dmlcl_operator_plan(op), "-cpu-rows") != NULL, "case %d: %s", n,
                      dmlcl_operator_plan(op));
        dmlcl_operator_release(op);
        if (tu_compile_only())
            continue;
        const size_t inexact = rc_case_inexact;
        rc_check_random(&rng, &c, n);
        ck_assert_msg(rc_case_inexact == inexact, "case %d: %zu outputs not bit-identical", n,
                      rc_case_inexact - inexact);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

Suite *resample1_cpu_rows_suite(void)
{
    Suite *s = suite_create("resample1_cpu_rows");
    TCase *tc = tcase_create("layouts");
    tcase_add_checked_fixture(tc, NULL, rc_forget_plan_override);
    tcase_add_checked_fixture(tc, tu_specialize_sync, tu_specialize_restore);
    tcase_set_timeout(tc, 300);
    tcase_set_tags(tc, "targets"); /* tests/targets_test.sh builds these for other CPUs */
    tcase_add_test(tc, cpu_row_blocks);
    tcase_add_test(tc, sixteen_bit_row_blocks);
    tcase_add_test(tc, non_temporal_row_blocks);
    tcase_add_test(tc, channels_last_pairs_alike);
    tcase_add_test(tc, inf_beside_weight_zero);
    suite_add_tcase(s, tc);
    TCase *rs = tcase_create("random_scales");
    tcase_add_checked_fixture(rs, NULL, rc_forget_plan_override);
    tcase_add_checked_fixture(rs, tu_specialize_sync, tu_specialize_restore);
    tcase_add_test(rs, random_scales);
    tcase_add_test(rs, kept_products_follow_the_weights);
    suite_add_tcase(s, rs);
    return s;
}
