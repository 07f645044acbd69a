/* Every scale at once: a scale or offset never seen before compiles nothing on the
 * caller's path once its family, layout, type and mode have their generic program
 * (lib/core/specialize.h). The specialised program, built in the background, takes over
 * at an execution after it is ready and computes the same bits; random scales compile a
 * bounded number of programs. make check runs with DMLCL_SPECIALIZE=off; these tests
 * set the mode themselves. */
#include "testutil.h"
#include <stdlib.h>
#include <string.h>

void dmlcl_test_wait_builds(dmlcl_context *c); /* test hook (lib/core/specialize.h) */

static const float pix_in[4] = {0.5f, 0.5f, 0.5f, 0.5f}, pix_out[4] = {-0.5f, -0.5f, -0.5f, -0.5f};

typedef struct image {
    uint32_t in[4], out[4];
    float scales[4], ipo[4], opo[4];
    dmlcl_tensor_desc ti, to;
    dmlcl_resample1_desc rd;
    dmlcl_operator_desc od;
} image;

/* A linear FLOAT32 image case: (1, 2, h, w) by scales (1, 1, sy, sx), offsets given. */
static void image_case(image *m, uint32_t h, uint32_t w, float sy, float sx, float off)
{
    memset(m, 0, sizeof *m);
    const uint32_t in[4] = {1, 2, h, w};
    const float sc[4] = {1, 1, sy, sx};
    for (int d = 0; d < 4; d++) {
        m->in[d] = in[d];
        m->scales[d] = sc[d];
        m->out[d] = d < 2 ? in[d] : (uint32_t)(in[d] * sc[d]) ? (uint32_t)(in[d] * sc[d]) : 1;
        m->ipo[d] = pix_in[d] + (d >= 2 ? off : 0);
        m->opo[d] = pix_out[d];
    }
    m->ti = (dmlcl_tensor_desc){F32, 4, m->in, NULL, 0};
    m->to = (dmlcl_tensor_desc){F32, 4, m->out, NULL, 0};
    m->rd = (dmlcl_resample1_desc){&m->ti, &m->to, LINEAR, 4, m->scales, m->ipo, m->opo};
    m->od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE1, &m->rd};
}

static size_t count(const uint32_t *s) { return (size_t)s[0] * s[1] * s[2] * s[3]; }

static float *random_input(const image *m)
{
    float *x = malloc(count(m->in) * sizeof *x);
    uint64_t rng = 0x5bec;
    for (size_t i = 0; i < count(m->in); i++)
        x[i] = (float)tu_range(&rng, 0, 1 << 20) / 1024.0f - 512.0f;
    return x;
}

static void run(dmlcl_operator *op, const float *x, float *y)
{
    const void *ins[1] = {x};
    void *outs[1] = {y};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
}

/* A new regular scale (3x, offset 0.25: no other test's) starts on the generic program,
 * compiling nothing, and gets its pattern at a later execution; both give the bits of the
 * synchronous build. A second operator of the scale then takes the pattern at once. */
START_TEST(generic_first_then_specialised)
{
    image m;
    image_case(&m, 6, 80, 3, 3, 0.25f);
    float *x = random_input(&m), *want = malloc(count(m.out) * 4), *got = malloc(count(m.out) * 4);
    setenv("DMLCL_SPECIALIZE", "off", 1); /* the generic program, compiled here */
    tu_run_host(&m.od, x, want);
    setenv("DMLCL_SPECIALIZE", "background", 1);
    dmlcl_cache_stats s0, s1;
    dmlcl_cache_get_stats(&s0);
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &m.od, &op));
    dmlcl_cache_get_stats(&s1);
    const char *plan = dmlcl_operator_plan(op);
    ck_assert_msg(s1.compiles == s0.compiles, "creation compiled %llu programs",
                  (unsigned long long)(s1.compiles - s0.compiles));
    ck_assert_msg(strstr(plan, "-cpu-rows") == NULL || strstr(plan, "specialised=building"),
                  "%s", plan);
    ck_assert_msg(strstr(plan, "-DCR_PL") == NULL, "%s", plan);
    run(op, x, got);
    ck_assert_msg(!memcmp(got, want, count(m.out) * 4), "the generic program's bits differ");
    dmlcl_test_wait_builds(tu_context());
    run(op, x, got); /* takes the specialised program */
    plan = dmlcl_operator_plan(op);
    if (strstr(plan, "-cpu-rows")) /* the CPU row blocks have a pattern for 3x */
        ck_assert_msg(strstr(plan, "-DCR_PL") && !strstr(plan, "building"), "%s", plan);
    ck_assert_msg(!memcmp(got, want, count(m.out) * 4), "the specialised program's bits differ");
    dmlcl_operator_release(op);
    /* Built: the next operator of this scale takes it at creation, from memory. */
    tu_assert_ok(dmlcl_operator_create(tu_context(), &m.od, &op));
    plan = dmlcl_operator_plan(op);
    ck_assert_msg(strstr(plan, "building") == NULL, "%s", plan);
    run(op, x, got);
    ck_assert_msg(!memcmp(got, want, count(m.out) * 4), "the second operator's bits differ");
    dmlcl_operator_release(op);
    free(x), free(want), free(got);
}
END_TEST

/* 100 random scales in (0.25, 4) with random pixel offsets, on one image: each is created
 * and run at once, and the programs compiled stay within the generic one plus the bound
 * of specialised ones per generic program (most random scales have no recurring pattern
 * and are served by the generic program alone). */
START_TEST(random_scales_compile_a_bounded_number)
{
    setenv("DMLCL_SPECIALIZE", "background", 1);
    image m;
    image_case(&m, 24, 64, 2, 2, 0);
    float *x = random_input(&m), *y = malloc(4 * 24 * 64 * 16 * 2 * sizeof *y);
    uint64_t rng = 0x5ca1e;
    dmlcl_cache_stats s0, s1;
    dmlcl_cache_get_stats(&s0);
    for (int n = 0; n < 100; n++) {
        const float s = 0.25f + (float)tu_range(&rng, 1, 3749) / 1000.0f;
        const float off = (float)tu_range(&rng, 0, 1000) / 1000.0f - 0.5f;
        image_case(&m, 24, 64, s, s, off);
        dmlcl_operator *op = NULL;
        tu_assert_ok(dmlcl_operator_create(tu_context(), &m.od, &op));
        run(op, x, y);
        dmlcl_operator_release(op);
    }
    dmlcl_test_wait_builds(tu_context());
    dmlcl_cache_get_stats(&s1);
    /* One generic program (this image's layout, FLOAT32, LINEAR), perhaps compiled here,
     * and at most DMLCL__SPEC_PER_GENERIC (8) specialised ones. */
    ck_assert_msg(s1.compiles - s0.compiles <= 9, "100 random scales compiled %llu programs",
                  (unsigned long long)(s1.compiles - s0.compiles));
    free(x), free(y);
}
END_TEST

/* A bad $DMLCL_SPECIALIZE is an error naming the variable and its values. */
START_TEST(bad_mode_is_an_error)
{
    image m;
    image_case(&m, 6, 80, 2, 2, 0);
    setenv("DMLCL_SPECIALIZE", "later", 1);
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_operator_create(tu_context(), &m.od, &op);
    if (st == DMLCL_SUCCESS) { /* this device plans no specialised program for 2x */
        dmlcl_operator_release(op);
        return;
    }
    ck_assert_int_eq(st, DMLCL_INVALID_ARGUMENT);
    ck_assert_msg(strstr(dmlcl_last_error(), "DMLCL_SPECIALIZE='later': must be background, "
                                             "sync or off"), "%s", dmlcl_last_error());
    ck_assert_ptr_null(op);
}
END_TEST

Suite *specialize_suite(void)
{
    Suite *s = suite_create("specialize");
    TCase *tc = tcase_create("specialize");
    tcase_set_timeout(tc, 300);
    /* Each test sets its mode; the fixture saves make check's and puts it back. */
    tcase_add_checked_fixture(tc, tu_specialize_sync, tu_specialize_restore);
    tcase_add_test(tc, generic_first_then_specialised);
    tcase_add_test(tc, random_scales_compile_a_bounded_number);
    tcase_add_test(tc, bad_mode_is_an_error);
    suite_add_tcase(s, tc);
    return s;
}
