/* The REVERSE_SUBSEQUENCES planner as a pure function: no OpenCL device involved. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "reverse/plan.h"
#include "plantensor.h"

static const dmlcl__limits gpu = {1024, 132, 0, 64, 0};
static const dmlcl__limits cpu = {4096, 2, 1, 64, 0};

/* A tensor by hand (tests/plantensor.h); the reverse planner ignores the type. */
static dmlcl__tensor tensor(uint32_t rank, const uint64_t *sizes, const uint64_t *strides,
                            uint32_t elem)
{
    return plan_tensor(rank, sizes, strides, DMLCL_TENSOR_DATA_TYPE_UINT8, elem);
}

static const dmlcl__rs_tune force_generic = {DMLCL_RS_GENERIC, 0, 0, 0};
static const dmlcl__rs_tune force_lines = {DMLCL_RS_LINES, 0, 0, 0};
static const dmlcl__rs_tune force_chunks = {DMLCL_RS_CHUNKS, 0, 0, 0};
static const dmlcl__rs_tune force_tile = {DMLCL_RS_TILE, 0, 0, 0};

/* Elements of `elem` bytes, packed UINT32 lengths and output; tune may be NULL. */
static dmlcl__rs_plan plan_e(uint32_t rank, const uint64_t *sizes, const uint64_t *in_strides,
                             uint32_t axis, const dmlcl__limits *lim, uint32_t elem,
                             const dmlcl__rs_tune *tune)
{
    uint64_t ls[8];
    memcpy(ls, sizes, rank * sizeof *ls);
    ls[axis] = 1;
    dmlcl__tensor in = tensor(rank, sizes, in_strides, elem), len = tensor(rank, ls, NULL, 4),
                  out = tensor(rank, sizes, NULL, elem);
    dmlcl__rs_plan p;
    if (tune)
        dmlcl__rs_plan_make_tuned(&in, &len, &out, axis, lim, tune, &p);
    else
        dmlcl__rs_plan_make(&in, &len, &out, axis, lim, &p);
    return p;
}

static dmlcl__rs_plan plan(uint32_t rank, const uint64_t *sizes, const uint64_t *in_strides,
                           uint32_t axis, const dmlcl__limits *lim)
{
    return plan_e(rank, sizes, in_strides, axis, lim, 4, NULL);
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
    ck_assert_int_eq(p.variant, DMLCL_RS_CHUNKS);
    ck_assert_str_eq(p.options,
                     "-DELEM_BYTES=4 -DLEN_BYTES=4 -DRANK=3 -DIDX64=0 -DVARIANT=2 -DAXIS_LAST=1");
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
    ck_assert_str_eq(p.options,
                     "-DELEM_BYTES=4 -DLEN_BYTES=4 -DRANK=8 -DIDX64=0 -DVARIANT=0 -DAXIS_LAST=0");
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
    /* 2^32 - 65536 elements: one per work unit (GENERIC), index + global size would wrap;
     * CHUNKS has a quarter as many units and stays 32-bit. */
    const uint64_t t[2] = {65535, 65536};
    p = plan_e(2, t, NULL, 1, &gpu, 4, &force_generic);
    ck_assert_int_eq(p.variant, DMLCL_RS_GENERIC);
    ck_assert_int_eq(p.idx64, 1);
    p = plan(2, t, NULL, 1, &gpu);
    ck_assert_int_eq(p.variant, DMLCL_RS_CHUNKS);
    ck_assert_int_eq(p.idx64, 0);
    const uint64_t u[2] = {32768, 65536};
    p = plan_e(2, u, NULL, 1, &gpu, 4, &force_generic);
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
    ck_assert_int_eq(p.variant, DMLCL_RS_LINES);
    ck_assert_uint_eq(p.local, 1);
    ck_assert_uint_eq(p.global, 16); /* 8 items per compute unit */
    const uint64_t tiny[1] = {3};
    p = plan(1, tiny, NULL, 0, &gpu);
    ck_assert_uint_eq(p.global, 256);
    dmlcl__limits small = {64, 4, 0, 64, 0};
    p = plan(2, s, NULL, 1, &small);
    ck_assert_uint_eq(p.local, 64);
    /* CPUs, GENERIC: one group size whatever the shape (POCL compiles per group size). */
    const uint64_t odd[3] = {7, 3, 13};
    for (int k = 0; k < 2; k++) {
        p = plan_e(k ? 3 : 2, k ? odd : s, NULL, 1, &cpu, 4, &force_generic);
        ck_assert_int_eq(p.variant, DMLCL_RS_GENERIC);
        ck_assert_uint_eq(p.local, 64);
        ck_assert_uint_eq(p.global % 64, 0);
    }
    /* No items: one whole group, never a global size below the group's. */
    size_t g = 0, l = 0;
    dmlcl__plan_ndrange(0, &cpu, &g, &l);
    ck_assert_uint_eq(l, 64);
    ck_assert_uint_eq(g, 64);
}
END_TEST

/* The variant follows the device and the layout of the line (innermost collapsed dim). */
START_TEST(variant_from_device_and_layout)
{
    const uint64_t rows[2] = {100, 1024}, outer[3] = {512, 64, 32}, tr[2] = {1, 100};
    dmlcl__rs_plan p = plan(2, rows, NULL, 1, &gpu);
    ck_assert_int_eq(p.variant, DMLCL_RS_CHUNKS);
    ck_assert_int_eq(p.axis_last, 1);
    ck_assert_uint_eq(p.vec, 4);
    ck_assert_uint_eq(p.segs, 256);
    ck_assert_uint_eq(p.units, 100 * 256);
    p = plan(3, outer, NULL, 0, &gpu); /* the line is the contiguous inner dim, not the axis */
    ck_assert_int_eq(p.variant, DMLCL_RS_CHUNKS);
    ck_assert_int_eq(p.axis_last, 0);
    p = plan(2, rows, tr, 1, &gpu); /* column-major input: the line is strided */
    ck_assert_int_eq(p.variant, DMLCL_RS_TILE);
    ck_assert_int_eq(p.axis_last, 1);
    p = plan(2, rows, tr, 1, &cpu); /* CPUs: blocks of 16 rows by 512 line elements */
    ck_assert_int_eq(p.variant, DMLCL_RS_BLOCKS);
    ck_assert_uint_eq(p.seg_len, 512);
    ck_assert_uint_eq(p.segs, 2);
    ck_assert_uint_eq(p.ptiles, 7); /* 100 rows: 6 blocks of 16 and one of 4 */
    ck_assert_uint_eq(p.units, 14);
    ck_assert_uint_eq(p.local, 1);
    ck_assert_uint_eq(p.global * p.per_item >= p.units, 1);
    const uint64_t few[2] = {7, 1024}, tr_few[2] = {1, 7}; /* fewer rows than a tile wants */
    p = plan(2, few, tr_few, 1, &cpu); /* and than a block: lines */
    ck_assert_int_eq(p.variant, DMLCL_RS_LINES);
    p = plan(2, few, tr_few, 1, &gpu);
    ck_assert_int_eq(p.variant, DMLCL_RS_GENERIC);
    ck_assert_ptr_nonnull(strstr(p.options, "-DAXIS_LAST=0")); /* GENERIC: one program */
    p = plan(2, rows, tr, 0, &gpu); /* the axis is not the line */
    ck_assert_int_eq(p.variant, DMLCL_RS_GENERIC);
    const uint64_t short_rows[2] = {100, 8}; /* int8 lines shorter than a 16-byte vector */
    p = plan_e(2, short_rows, NULL, 1, &gpu, 1, NULL);
    ck_assert_int_eq(p.variant, DMLCL_RS_GENERIC);
    p = plan_e(2, short_rows, NULL, 1, &gpu, 2, NULL); /* fp16: 8 elements per vector */
    ck_assert_int_eq(p.variant, DMLCL_RS_CHUNKS);
    ck_assert_uint_eq(p.vec, 8);
}
END_TEST

/* Overrides are honoured where they apply and ignored where they do not. */
START_TEST(tuning_overrides)
{
    const uint64_t rows[2] = {100, 1024}, tr[2] = {1, 100};
    dmlcl__rs_plan p = plan_e(2, rows, NULL, 1, &gpu, 4, &force_lines);
    ck_assert_int_eq(p.variant, DMLCL_RS_LINES);
    p = plan_e(2, rows, NULL, 1, &cpu, 4, &force_chunks);
    ck_assert_int_eq(p.variant, DMLCL_RS_CHUNKS);
    p = plan_e(2, rows, tr, 1, &gpu, 4, &force_chunks); /* strided line: not applicable */
    ck_assert_int_eq(p.variant, DMLCL_RS_TILE);
    p = plan_e(2, rows, NULL, 1, &gpu, 4, &force_tile); /* contiguous line: not applicable */
    ck_assert_int_eq(p.variant, DMLCL_RS_CHUNKS);
    p = plan_e(2, rows, tr, 1, &cpu, 4, &force_tile);
    ck_assert_int_eq(p.variant, DMLCL_RS_TILE);
    dmlcl__rs_tune t = {-1, 128, 2, 0};
    const uint64_t many_rows[2] = {10000, 1024};
    p = plan_e(2, many_rows, NULL, 1, &gpu, 4, &t);
    ck_assert_uint_eq(p.local, 128);
    ck_assert_uint_eq(p.global, (size_t)132 * 128 * 2);
    ck_assert_int_eq(dmlcl__rs_tune_parse("variant=lines,wg=64,waves=3", &t), 0);
    ck_assert_int_eq(t.variant, DMLCL_RS_LINES);
    ck_assert_uint_eq(t.wg, 64);
    ck_assert_uint_eq(t.waves, 3);
    ck_assert_int_eq(dmlcl__rs_tune_parse("", &t), 0);
    ck_assert_int_eq(t.variant, -1);
    ck_assert_int_eq(dmlcl__rs_tune_parse(NULL, &t), 0);
    ck_assert_int_eq(dmlcl__rs_tune_parse("variant=fast", &t), -1);
    ck_assert_int_eq(dmlcl__rs_tune_parse("wg=0", &t), -1);
    ck_assert_int_eq(dmlcl__rs_tune_parse("wg=64;waves=2", &t), -1);
    ck_assert_int_eq(dmlcl__rs_tune_parse("colour=red", &t), -1);
    ck_assert_int_eq(dmlcl__rs_tune_parse("cpi=2", &t), -1);
    /* One syntax for every override (lib/core/overrides.c): numbers are whole values. */
    ck_assert_int_eq(dmlcl__rs_tune_parse("wg=64x", &t), -1);
    ck_assert_int_eq(dmlcl__rs_tune_parse("waves=1048577", &t), -1);
}
END_TEST

/* LINES: a few items per core, each a contiguous block; few long lines are split. */
START_TEST(lines_split_long_lines)
{
    const uint64_t two[2] = {2, 1 << 20};
    dmlcl__rs_plan p = plan(2, two, NULL, 1, &cpu);
    ck_assert_int_eq(p.variant, DMLCL_RS_LINES);
    ck_assert_uint_eq(p.segs, 8);
    ck_assert_uint_eq(p.seg_len, (1 << 20) / 8);
    ck_assert_uint_eq(p.units, 16);
    ck_assert_uint_eq(p.per_item, 1);
    ck_assert_uint_eq(p.global, 16);
    const uint64_t many[2] = {1000, 1000};
    p = plan(2, many, NULL, 0, &cpu);
    ck_assert_uint_eq(p.segs, 1);
    ck_assert_uint_eq(p.units, 1000);
    ck_assert_uint_eq(p.per_item, 63); /* ceil(1000 / 16) */
    ck_assert_uint_eq(p.global, 16);
    const uint64_t short_few[2] = {3, 100}; /* short lines are never split below 4096 */
    p = plan(2, short_few, NULL, 1, &cpu);
    ck_assert_uint_eq(p.segs, 1);
    ck_assert_uint_eq(p.global, 3);
}
END_TEST

/* TILE: the rows (contiguous in the input) move next to the line; one unit per tile of
 * 32 x 32, the line's tiles innermost; groups of 128 unless tuned, whole rows of 32. */
START_TEST(tile_moves_rows_next_to_the_line)
{
    /* {rows 100 (contiguous in the input), 5, line 70 (the axis, stride 100)}, packed
     * output: nothing merges, and the rows go from first to next to the line. */
    const uint64_t s[3] = {100, 5, 70}, st[3] = {1, 7000, 100};
    dmlcl__rs_plan p = plan(3, s, st, 2, &gpu);
    ck_assert_int_eq(p.variant, DMLCL_RS_TILE);
    ck_assert_uint_eq(p.rank, 3);
    ck_assert_uint_eq(p.axis, 2);
    ck_assert_uint_eq(p.sizes[0], 5);
    ck_assert_uint_eq(p.in_str[0], 7000);
    ck_assert_uint_eq(p.out_str[0], 70);
    ck_assert_uint_eq(p.len_str[0], 1);
    ck_assert_uint_eq(p.sizes[1], 100);
    ck_assert_uint_eq(p.in_str[1], 1);
    ck_assert_uint_eq(p.out_str[1], 350);
    ck_assert_uint_eq(p.len_str[1], 5);
    ck_assert_uint_eq(p.ptiles, 4);
    ck_assert_uint_eq(p.segs, 3);
    ck_assert_uint_eq(p.units, 5 * 4 * 3);
    ck_assert_uint_eq(p.local, 128);
    ck_assert_uint_eq(p.global, 60 * 128);
    dmlcl__rs_tune t = {DMLCL_RS_TILE, 100, 1, 0};
    p = plan_e(3, s, st, 2, &gpu, 4, &t); /* wg rounded down to whole rows of 32 */
    ck_assert_uint_eq(p.local, 96);
    ck_assert_uint_eq(p.global, 60 * 96);
    dmlcl__limits narrow = {16, 4, 0, 64, 0}; /* groups narrower than a tile's row */
    p = plan(3, s, st, 2, &narrow);
    ck_assert_int_eq(p.variant, DMLCL_RS_GENERIC);
}
END_TEST

/* Division by invariants: exact for every dividend below 2^bits. */
START_TEST(fastdiv_is_exact)
{
    static const uint64_t ds[] = {1, 2, 3, 5, 7, 10, 641, 1024, 1025, 65535, 65536, 65537,
                                  0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu};
    uint64_t rng = 42;
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
        for (unsigned bits = 32; bits <= 64; bits += 32) {
            dmlcl__fastdiv f = dmlcl__fastdiv_make(ds[i], bits);
            uint64_t top = bits == 32 ? 0xffffffffu : UINT64_MAX;
            uint64_t ns[8] = {0, 1, ds[i] - 1, ds[i], ds[i] + 1, top, top - 1, top / ds[i] * ds[i]};
            for (int k = 0; k < 8 + 2000; k++) {
                uint64_t n =
                    k < 8 ? ns[k] : (rng = rng * 6364136223846793005ull + 1442695040888963407ull);
                if (bits == 32)
                    n &= 0xffffffffu;
                ck_assert_msg(dmlcl__fastdiv_apply(&f, n, bits) == n / ds[i],
                              "%llu / %llu (%u bits)", (unsigned long long)n,
                              (unsigned long long)ds[i], bits);
            }
        }
    dmlcl__fastdiv big = dmlcl__fastdiv_make((uint64_t)1 << 40 | 12345, 64);
    ck_assert_uint_eq(dmlcl__fastdiv_apply(&big, UINT64_MAX, 64),
                      UINT64_MAX / ((uint64_t)1 << 40 | 12345));
    dmlcl__fastdiv huge = dmlcl__fastdiv_make(UINT64_MAX - 2, 64); /* s = 64 */
    ck_assert_uint_eq(dmlcl__fastdiv_apply(&huge, UINT64_MAX, 64), 1);
    ck_assert_uint_eq(dmlcl__fastdiv_apply(&huge, UINT64_MAX - 3, 64), 0);
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
    tcase_add_test(tc, variant_from_device_and_layout);
    tcase_add_test(tc, tuning_overrides);
    tcase_add_test(tc, lines_split_long_lines);
    tcase_add_test(tc, tile_moves_rows_next_to_the_line);
    tcase_add_test(tc, fastdiv_is_exact);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
