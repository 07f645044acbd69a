/* The REVERSE_SUBSEQUENCES planner as a pure function: no OpenCL device involved. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"

static const dmlcl__limits gpu = {1024, 132, 0};
static const dmlcl__limits cpu = {4096, 2, 1};

/* A packed (or strided) tensor by hand, as dmlcl__tensor_check would produce it. */
static dmlcl__tensor tensor(uint32_t rank, const uint64_t *sizes, const uint64_t *strides,
                            uint32_t elem)
{
    dmlcl__tensor t;
    memset(&t, 0, sizeof t);
    t.rank = rank;
    t.elem_size = elem;
    t.elements = 1;
    t.span = 1;
    uint64_t packed = 1;
    for (int d = (int)rank - 1; d >= 0; d--) {
        t.sizes[d] = sizes[d];
        t.strides[d] = strides ? strides[d] : packed;
        packed *= sizes[d];
    }
    for (uint32_t d = 0; d < rank; d++) {
        t.elements *= t.sizes[d];
        t.span += (t.sizes[d] - 1) * t.strides[d];
    }
    return t;
}

static dmlcl__rs_plan plan(uint32_t rank, const uint64_t *sizes, const uint64_t *in_strides,
                           uint32_t axis, const dmlcl__limits *lim)
{
    uint64_t ls[8];
    memcpy(ls, sizes, rank * sizeof *ls);
    ls[axis] = 1;
    dmlcl__tensor in = tensor(rank, sizes, in_strides, 4), len = tensor(rank, ls, NULL, 4),
                  out = tensor(rank, sizes, NULL, 4);
    dmlcl__rs_plan p;
    dmlcl__rs_plan_make(&in, &len, &out, axis, lim, &p);
    return p;
}

START_TEST(spec_example_collapses_to_rows)
{
    const uint64_t s[4] = {1, 1, 3, 4};
    dmlcl__rs_plan p = plan(4, s, NULL, 3, &gpu);
    ck_assert_uint_eq(p.rank, 3); /* rank class 3: {1, 3, 4}, axis last */
    ck_assert_uint_eq(p.axis, 2);
    ck_assert_uint_eq(p.sizes[0], 1);
    ck_assert_uint_eq(p.sizes[1], 3);
    ck_assert_uint_eq(p.sizes[2], 4);
    ck_assert_uint_eq(p.in_str[1], 4);
    ck_assert_uint_eq(p.len_str[1], 1);
    ck_assert_uint_eq(p.count, 12);
    ck_assert_str_eq(p.options, "-DELEM_BYTES=4 -DLEN_BYTES=4 -DRANK=3 -DIDX64=0");
}
END_TEST

START_TEST(merges_outer_and_inner_around_axis)
{
    const uint64_t s[5] = {2, 3, 4, 5, 6};
    dmlcl__rs_plan p = plan(5, s, NULL, 2, &gpu);
    ck_assert_uint_eq(p.rank, 3);
    ck_assert_uint_eq(p.axis, 1);
    ck_assert_uint_eq(p.sizes[0], 6);
    ck_assert_uint_eq(p.sizes[1], 4);
    ck_assert_uint_eq(p.sizes[2], 30);
    ck_assert_uint_eq(p.in_str[0], 120);
    ck_assert_uint_eq(p.in_str[1], 30);
    ck_assert_uint_eq(p.len_str[0], 30); /* lengths {2,3,1,5,6}: packed stride of dim 1 */
    ck_assert_uint_eq(p.len_str[1], 0);
}
END_TEST

START_TEST(never_merges_across_the_axis)
{
    const uint64_t s[3] = {4, 5, 6};
    dmlcl__rs_plan p = plan(3, s, NULL, 1, &gpu);
    ck_assert_uint_eq(p.rank, 3);
    ck_assert_uint_eq(p.axis, 1);
    ck_assert_uint_eq(p.sizes[0] * p.sizes[1] * p.sizes[2], 120);
    ck_assert_uint_eq(p.sizes[1], 5);
}
END_TEST

START_TEST(transposed_input_keeps_dimensions)
{
    const uint64_t s[4] = {2, 3, 4, 5}, tr[4] = {1, 2, 6, 24}; /* column-major */
    dmlcl__rs_plan p = plan(4, s, tr, 0, &gpu);
    ck_assert_uint_eq(p.rank, 8); /* 4 dims do not merge: rank class 8 */
    ck_assert_uint_eq(p.axis, 4);
    for (int d = 0; d < 4; d++)
        ck_assert_uint_eq(p.sizes[d], 1);
    ck_assert_uint_eq(p.in_str[7], 24);
    ck_assert_str_eq(p.options, "-DELEM_BYTES=4 -DLEN_BYTES=4 -DRANK=8 -DIDX64=0");
}
END_TEST

START_TEST(broadcast_dims_of_size_one_dropped)
{
    const uint64_t s[6] = {1, 7, 1, 1, 9, 1};
    dmlcl__rs_plan p = plan(6, s, NULL, 4, &gpu);
    ck_assert_uint_eq(p.rank, 3);
    ck_assert_uint_eq(p.sizes[1], 7);
    ck_assert_uint_eq(p.sizes[2], 9);
    ck_assert_uint_eq(p.axis, 2);
    /* Axis of size 1 is kept (a copy): sizes {7, 1} */
    const uint64_t t[2] = {7, 1};
    p = plan(2, t, NULL, 1, &gpu);
    ck_assert_uint_eq(p.sizes[p.axis], 1);
    ck_assert_uint_eq(p.count, 7);
}
END_TEST

START_TEST(large_tensors_use_64_bit_indices)
{
    const uint64_t s[2] = {65536, 65536};
    dmlcl__rs_plan p = plan(2, s, NULL, 1, &gpu);
    ck_assert_int_eq(p.idx64, 1);
    ck_assert_ptr_nonnull(strstr(p.options, "-DIDX64=1"));
    const uint64_t t[2] = {65535, 65536};
    p = plan(2, t, NULL, 1, &gpu);
    ck_assert_int_eq(p.idx64, 1); /* 2^32 - 65536 elements: index + global size would wrap */
    const uint64_t u[2] = {32768, 65536};
    p = plan(2, u, NULL, 1, &gpu);
    ck_assert_int_eq(p.idx64, 0);
}
END_TEST

START_TEST(ndrange_from_device_limits)
{
    const uint64_t s[2] = {1000, 1000};
    dmlcl__rs_plan p = plan(2, s, NULL, 1, &gpu);
    ck_assert_uint_eq(p.local, 256);
    ck_assert_uint_eq(p.global % 256, 0);
    ck_assert_uint_le(p.global, (size_t)132 * 256 * 32);
    p = plan(2, s, NULL, 1, &cpu);
    ck_assert_uint_eq(p.local, 0);
    ck_assert_uint_ge(p.global, 1);
    const uint64_t tiny[1] = {3};
    p = plan(1, tiny, NULL, 0, &gpu);
    ck_assert_uint_eq(p.global, 256);
    dmlcl__limits small = {64, 4, 0};
    p = plan(2, s, NULL, 1, &small);
    ck_assert_uint_eq(p.local, 64);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("planner");
    TCase *tc = tcase_create("reverse_subsequences");
    tcase_add_test(tc, spec_example_collapses_to_rows);
    tcase_add_test(tc, merges_outer_and_inner_around_axis);
    tcase_add_test(tc, never_merges_across_the_axis);
    tcase_add_test(tc, transposed_input_keeps_dimensions);
    tcase_add_test(tc, broadcast_dims_of_size_one_dropped);
    tcase_add_test(tc, large_tensors_use_64_bit_indices);
    tcase_add_test(tc, ndrange_from_device_limits);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
