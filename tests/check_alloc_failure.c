/* Allocation failure: every library allocation of one context create + operator create +
 * run + release is made to fail in turn. Each must end in DMLCL_OUT_OF_MEMORY (or, where
 * the library can do without the memory, success with a correct result), never a crash,
 * and leave no library allocation behind. */
#include "testutil.h"
#include <string.h>

/* Test hooks exported by the library (not in the public header). */
uint64_t dmlcl_test_fail_alloc_after(uint64_t n);
int64_t dmlcl_test_live_allocations(void);

static const uint32_t sizes[2] = {3, 5}, len_sizes[2] = {3, 1};
/* Interleaved output strides force the exact alias check, which allocates a bitmap. */
static const uint32_t out_strides[2] = {1, 3};

/* The whole lifecycle; returns the first failing status. */
static dmlcl_status lifecycle(int check_result)
{
    const int16_t in[15] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    const uint32_t lens[3] = {5, 2, 0};
    int16_t out[15];
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_INT16, 2, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 2, len_sizes, NULL, 0};
    dmlcl_tensor_desc to = {DMLCL_TENSOR_DATA_TYPE_INT16, 2, sizes, out_strides, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &to, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_context *c = NULL;
    dmlcl_operator *op = NULL;
    const void *ins[2] = {in, lens};
    void *outs[1] = {out};
    /* A new cl_context each time, so the cache's insert paths run (and can fail) too. */
    dmlcl_status st = dmlcl_context_create_default(&c);
    if (!st)
        st = dmlcl_operator_create(c, &od, &op);
    if (!st)
        st = dmlcl_operator_execute_host(op, ins, outs);
    if (!st && check_result) {
        const int16_t expect[15] = {4, 3, 2, 1, 0, 6, 5, 7, 8, 9, 10, 11, 12, 13, 14};
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 5; k++)
                ck_assert_int_eq(out[r + 3 * k], expect[r * 5 + k]);
    }
    dmlcl_operator_release(op);
    dmlcl_context_release(c);
    return st;
}

START_TEST(every_allocation_fails_cleanly)
{
    tu_context(); /* the shared context lives on: create it before counting */
    int64_t live0 = dmlcl_test_live_allocations();
    dmlcl_test_fail_alloc_after(0);
    ck_assert_int_eq(lifecycle(1), DMLCL_SUCCESS);
    uint64_t total = dmlcl_test_fail_alloc_after(0);
    ck_assert_uint_ge(total, 3);
    ck_assert_int_eq(dmlcl_test_live_allocations(), live0);
    int ooms = 0;
    for (uint64_t n = 1; n <= total; n++) {
        dmlcl_test_fail_alloc_after(n);
        dmlcl_status st = lifecycle(1);
        dmlcl_test_fail_alloc_after(0);
        ck_assert_msg(st == DMLCL_SUCCESS || st == DMLCL_OUT_OF_MEMORY,
                      "allocation %llu of %llu failing gave %s: %s", (unsigned long long)n,
                      (unsigned long long)total, dmlcl_status_string(st), dmlcl_last_error());
        if (st == DMLCL_OUT_OF_MEMORY) {
            ooms++;
            ck_assert_msg(strstr(dmlcl_last_error(), "out of host memory") != NULL, "%s",
                          dmlcl_last_error());
        }
        ck_assert_msg(dmlcl_test_live_allocations() == live0,
                      "allocation %llu failing leaked %lld allocations", (unsigned long long)n,
                      (long long)(dmlcl_test_live_allocations() - live0));
    }
    ck_assert_int_ge(ooms, 3); /* context, operator, plan at least */
}
END_TEST

Suite *alloc_failure_suite(void)
{
    Suite *s = suite_create("alloc_failure");
    TCase *tc = tcase_create("every allocation");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_allocation_fails_cleanly);
    suite_add_tcase(s, tc);
    return s;
}
