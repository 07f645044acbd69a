/* The in-memory program cache: hits, misses, one compile per variant, build errors. */
#include "testutil.h"
#include <stdlib.h>
#include <string.h>

static dmlcl_status create_rs(dmlcl_context *c, uint32_t rows, uint32_t cols,
                              dmlcl_tensor_data_type type, dmlcl_operator **op)
{
    const uint32_t sizes[2] = {rows, cols}, len_sizes[2] = {rows, 1};
    dmlcl_tensor_desc ti = {type, 2, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 2, len_sizes, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    return dmlcl_operator_create(c, &od, op);
}

/* A fresh context: programs are cached per cl_context, so this one starts cold whatever
 * other suites compiled in the shared context. */
static dmlcl_context *fresh_context(void)
{
    dmlcl_context *c = NULL;
    tu_assert_ok(dmlcl_context_create_default(&c));
    return c;
}

START_TEST(same_variant_twice_is_a_memory_hit)
{
    dmlcl_context *c = fresh_context();
    dmlcl_cache_stats s0, s1, s2;
    dmlcl_operator *a = NULL, *b = NULL;
    dmlcl_cache_get_stats(&s0);
    tu_assert_ok(create_rs(c, 3, 4, DMLCL_TENSOR_DATA_TYPE_INT16, &a));
    dmlcl_cache_get_stats(&s1);
    ck_assert_uint_eq(s1.compiles - s0.compiles, 1);
    ck_assert_uint_eq(s1.memory_hits - s0.memory_hits, 0);
    tu_assert_ok(create_rs(c, 3, 4, DMLCL_TENSOR_DATA_TYPE_INT16, &b));
    dmlcl_cache_get_stats(&s2);
    ck_assert_uint_eq(s2.compiles - s1.compiles, 0);
    ck_assert_uint_eq(s2.memory_hits - s1.memory_hits, 1);
    ck_assert_uint_eq(s2.disk_hits - s0.disk_hits, 0); /* DMLCL_CACHE_DIR=off in tests */
    dmlcl_operator_release(a);
    dmlcl_operator_release(b);
    dmlcl_context_release(c);
}
END_TEST

/* Shapes are kernel arguments: 200 shapes of one variant compile exactly once. The
 * variant is pinned: on GPUs the planner picks lines or chunks by shape. */
START_TEST(two_hundred_shapes_one_compile)
{
    dmlcl_context *c = fresh_context();
    dmlcl_cache_stats s0, s1;
    setenv("DMLCL_RS_PLAN", "variant=generic", 1);
    dmlcl_cache_get_stats(&s0);
    for (uint32_t k = 0; k < 200; k++) {
        dmlcl_operator *op = NULL;
        tu_assert_ok(create_rs(c, 2 + k % 17, 3 + k, DMLCL_TENSOR_DATA_TYPE_UINT8, &op));
        dmlcl_operator_release(op);
    }
    dmlcl_cache_get_stats(&s1);
    unsetenv("DMLCL_RS_PLAN");
    ck_assert_uint_eq(s1.compiles - s0.compiles, 1);
    ck_assert_uint_eq(s1.memory_hits - s0.memory_hits, 199);
    dmlcl_context_release(c);
}
END_TEST

/* Different element widths are different programs; types of one width share one. */
START_TEST(variants_by_element_width)
{
    dmlcl_context *c = fresh_context();
    dmlcl_cache_stats s0, s1;
    dmlcl_operator *op = NULL;
    dmlcl_cache_get_stats(&s0);
    const dmlcl_tensor_data_type types[6] = {
        DMLCL_TENSOR_DATA_TYPE_FLOAT32, DMLCL_TENSOR_DATA_TYPE_INT32, DMLCL_TENSOR_DATA_TYPE_UINT32,
        DMLCL_TENSOR_DATA_TYPE_FLOAT64, DMLCL_TENSOR_DATA_TYPE_INT64, DMLCL_TENSOR_DATA_TYPE_UINT64};
    for (int i = 0; i < 6; i++) {
        tu_assert_ok(create_rs(c, 5, 7, types[i], &op));
        dmlcl_operator_release(op);
    }
    dmlcl_cache_get_stats(&s1);
    ck_assert_uint_eq(s1.compiles - s0.compiles, 2);
    ck_assert_uint_eq(s1.memory_hits - s0.memory_hits, 4);
    dmlcl_context_release(c);
}
END_TEST

/* A kernel that fails to compile: BUILD_ERROR with the head of the build log. The extra
 * options are part of the key, so the failure is not confused with the good program. */
START_TEST(build_error_reports_log)
{
    dmlcl_context *c = fresh_context();
    dmlcl_operator *op = (dmlcl_operator *)1;
    setenv("DMLCL_BUILD_OPTIONS", "-DRANK=no_such_symbol", 1); /* no -Werror: the log's head */
    dmlcl_status st = create_rs(c, 3, 4, DMLCL_TENSOR_DATA_TYPE_FLOAT32, &op);
    tu_build_options(NULL);
    ck_assert_msg(st == DMLCL_BUILD_ERROR, "got %s: %s", dmlcl_status_string(st), dmlcl_last_error());
    ck_assert_ptr_null(op);
    const char *msg = dmlcl_last_error();
    ck_assert_msg(strstr(msg, "clBuildProgram: CL_BUILD_PROGRAM_FAILURE building reverse_subsequences.cl") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "build log:") && strstr(msg, "no_such_symbol"), "%s", msg);
    tu_assert_ok(create_rs(c, 3, 4, DMLCL_TENSOR_DATA_TYPE_FLOAT32, &op));
    dmlcl_operator_release(op);
    dmlcl_context_release(c);
}
END_TEST

/* Operators from many threads racing on one cold variant all succeed and agree. */
typedef struct { dmlcl_context *c; int ok; } race_arg;

static void *race(void *p)
{
    race_arg *a = p;
    const uint32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, lens[2] = {4, 2};
    uint32_t out[8];
    const void *ins[2] = {in, lens};
    void *outs[1] = {out};
    dmlcl_operator *op = NULL;
    a->ok = create_rs(a->c, 2, 4, DMLCL_TENSOR_DATA_TYPE_UINT32, &op) == DMLCL_SUCCESS &&
            dmlcl_operator_execute_host(op, ins, outs) == DMLCL_SUCCESS && out[0] == 4 &&
            out[3] == 1 && out[4] == 6 && out[5] == 5 && out[7] == 8;
    dmlcl_operator_release(op);
    return NULL;
}

START_TEST(concurrent_creates_share_one_entry)
{
    dmlcl_context *c = fresh_context();
    pthread_t t[6];
    race_arg args[6];
    dmlcl_cache_stats s0, s1;
    dmlcl_cache_get_stats(&s0);
    for (int i = 0; i < 6; i++) {
        args[i] = (race_arg){c, 0};
        ck_assert_int_eq(pthread_create(&t[i], NULL, race, &args[i]), 0);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(t[i], NULL);
        ck_assert_msg(args[i].ok, "thread %d got a wrong result or an error", i);
    }
    dmlcl_cache_get_stats(&s1);
    /* Racing threads may each compile, but every create is a compile or a hit. */
    ck_assert_uint_eq((s1.compiles - s0.compiles) + (s1.memory_hits - s0.memory_hits), 6);
    ck_assert_uint_ge(s1.compiles - s0.compiles, 1);
    dmlcl_operator *op = NULL;
    tu_assert_ok(create_rs(c, 2, 4, DMLCL_TENSOR_DATA_TYPE_UINT32, &op));
    dmlcl_cache_stats s2;
    dmlcl_cache_get_stats(&s2);
    ck_assert_uint_eq(s2.memory_hits - s1.memory_hits, 1); /* one entry survived the race */
    dmlcl_operator_release(op);
    dmlcl_context_release(c);
}
END_TEST

Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("memory");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, same_variant_twice_is_a_memory_hit);
    tcase_add_test(tc, two_hundred_shapes_one_compile);
    tcase_add_test(tc, variants_by_element_width);
    tcase_add_test(tc, build_error_reports_log);
    tcase_add_test(tc, concurrent_creates_share_one_entry);
    suite_add_tcase(s, tc);
    return s;
}
