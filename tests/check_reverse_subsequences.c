/* REVERSE_SUBSEQUENCES as the spec states it: the reference examples verbatim, then
 * randomized cases against a plain C reference, with guard bands. */
#include "reverse_case.h"
#include <stdlib.h>
#include <string.h>

static const uint32_t ex_sizes[4] = {1, 1, 3, 4};
static const float ex_in[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static void run_example(uint32_t axis, const uint32_t *len_sizes, const uint32_t *lengths,
                        const float *expect)
{
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, ex_sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 4, len_sizes, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, axis};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    float out[12] = {0};
    const void *ins[2] = {ex_in, lengths};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
    for (int i = 0; i < 12; i++)
        tu_assert_each(out[i] == expect[i], "out[%d] = %g, expected %g", i, out[i], expect[i]);
}

START_TEST(reference_example_1)
{
    static const uint32_t len_sizes[4] = {1, 1, 3, 1}, lengths[3] = {2, 4, 3};
    static const float expect[12] = {2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12};
    run_example(3, len_sizes, lengths, expect);
}
END_TEST

START_TEST(reference_example_2)
{
    static const uint32_t len_sizes[4] = {1, 1, 1, 4}, lengths[4] = {2, 3, 1, 0};
    static const float expect[12] = {5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12};
    run_example(2, len_sizes, lengths, expect);
}
END_TEST

/* FLOAT16 payloads, NaNs and signed zeros: the operator moves bits. */
START_TEST(moves_bits_unchanged)
{
    const uint32_t sizes[1] = {6}, len_sizes[1] = {1};
    const uint16_t in[6] = {0x7e01, 0x8000, 0x0000, 0xfc00, 0x7c00, 0x7fff};
    const uint64_t len[1] = {6};
    uint16_t out[6];
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT16, 1, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT64, 1, len_sizes, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, 0};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    const void *ins[2] = {in, len};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
    for (int i = 0; i < 6; i++)
        ck_assert_uint_eq(out[i], in[5 - i]);
}
END_TEST

/* ---- randomized cases against the C reference --------------------------------------- */

static const dmlcl_tensor_data_type all_types[11] = {
    DMLCL_TENSOR_DATA_TYPE_FLOAT32, DMLCL_TENSOR_DATA_TYPE_FLOAT16, DMLCL_TENSOR_DATA_TYPE_UINT32,
    DMLCL_TENSOR_DATA_TYPE_UINT16,  DMLCL_TENSOR_DATA_TYPE_UINT8,   DMLCL_TENSOR_DATA_TYPE_INT32,
    DMLCL_TENSOR_DATA_TYPE_INT16,   DMLCL_TENSOR_DATA_TYPE_INT8,    DMLCL_TENSOR_DATA_TYPE_FLOAT64,
    DMLCL_TENSOR_DATA_TYPE_UINT64,  DMLCL_TENSOR_DATA_TYPE_INT64};

/* Sizes with at most ~600 elements whatever the rank. */
static void random_shape(uint64_t *rng, reverse_case *c)
{
    uint64_t budget = 600;
    for (uint32_t d = 0; d < c->rank; d++) {
        uint64_t cap = budget >= 2 ? (c->rank <= 3 ? 12 : 4) : 1;
        c->sizes[d] = (uint32_t)tu_range(rng, 1, cap);
        budget /= c->sizes[d];
    }
    memcpy(c->len_sizes, c->sizes, sizeof c->sizes);
    c->len_sizes[c->axis] = 1;
}

/* Lengths cover 0, 1, n, > n, random, and (UINT64) values above 2^32. */
static uint64_t random_length(uint64_t *rng, uint32_t n, int wide)
{
    switch (tu_range(rng, 0, 6)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return n;
    case 3: return n + tu_range(rng, 1, 5);
    case 4: return wide ? ((uint64_t)1 << 40) + 3 : 0xffffffffu;
    default: return tu_range(rng, 0, n);
    }
}

static reverse_case random_case(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type)
{
    reverse_case c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.axis = (uint32_t)tu_range(rng, 0, rank - 1);
    c.type = type;
    c.elem = dmlcl_data_type_size(type);
    c.len_type = tu_range(rng, 0, 1) ? DMLCL_TENSOR_DATA_TYPE_UINT64 : DMLCL_TENSOR_DATA_TYPE_UINT32;
    c.len_bytes = dmlcl_data_type_size(c.len_type);
    random_shape(rng, &c);
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, TU_LAYOUT_COUNT - 1), rank, c.sizes, -1, c.in_str);
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, TU_LAYOUT_COUNT - 1), rank, c.len_sizes, -1,
                    c.len_str);
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, TU_TRANSPOSED), rank, c.sizes, -1, c.out_str);
    c.in_off = tu_range(rng, 0, 3);
    c.len_off = tu_range(rng, 0, 3);
    c.out_off = tu_range(rng, 0, 3);
    return c;
}

static void fill_random(uint64_t *rng, unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        p[k] = (unsigned char)tu_rand(rng);
}

static void fill_lengths(uint64_t *rng, const reverse_case *c, unsigned char *lens, size_t span)
{
    for (size_t k = 0; k < span; k++) {
        uint64_t v = random_length(rng, c->sizes[c->axis], c->len_bytes == 8);
        if (c->len_bytes == 8)
            memcpy(lens + k * 8, &v, 8);
        else {
            uint32_t w = (uint32_t)v;
            memcpy(lens + k * 4, &w, 4);
        }
    }
}

/* Runs one case through dmlcl_operator_enqueue with guard-banded, offset bindings and
 * compares every byte of the output buffer: tensor elements against the reference, all
 * other bytes (guards, padding between elements) against the fill pattern. */
static void run_case(uint64_t *rng, const reverse_case *c, int n)
{
    size_t in_span = tu_span(c->rank, c->sizes, c->in_str);
    size_t len_span = tu_span(c->rank, c->len_sizes, c->len_str);
    size_t out_span = tu_span(c->rank, c->sizes, c->out_str);
    unsigned char *in = malloc(in_span * c->elem), *lens = malloc(len_span * c->len_bytes);
    fill_random(rng, in, in_span * c->elem);
    fill_lengths(rng, c, lens, len_span);
    dmlcl_tensor_desc ti = {c->type, c->rank, c->sizes, c->in_str, 0};
    dmlcl_tensor_desc tl = {c->len_type, c->rank, c->len_sizes, c->len_str, 0};
    dmlcl_tensor_desc to = {c->type, c->rank, c->sizes, c->out_str, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &to, c->axis};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_operator_create(tu_context(), &od, &op);
    ck_assert_msg(st == DMLCL_SUCCESS, "case %d: %s", n, dmlcl_last_error());

    tu_devbuf bi = tu_devbuf_new(in_span * c->elem, c->in_off * c->elem, in);
    tu_devbuf bl = tu_devbuf_new(len_span * c->len_bytes, c->len_off * c->len_bytes, lens);
    tu_devbuf bo = tu_devbuf_new(out_span * c->elem, c->out_off * c->elem, NULL);
    dmlcl_buffer_binding ins[2] = {{bi.mem, bi.offset, 0}, {bl.mem, bl.offset, 0}};
    dmlcl_buffer_binding outs[1] = {{bo.mem, bo.offset, out_span * c->elem}};
    st = dmlcl_operator_enqueue(op, ins, 2, outs, 1, 0, NULL, NULL);
    ck_assert_msg(st == DMLCL_SUCCESS, "case %d: %s", n, dmlcl_last_error());

    unsigned char *got = malloc(bo.bytes), *want = malloc(bo.bytes);
    tu_devbuf_read(&bo, got);
    memset(want, TU_FILL, bo.bytes);
    reverse_reference(c, in, lens, want + bo.offset);
    for (size_t k = 0; k < bo.bytes; k++)
        tu_assert_each(got[k] == want[k],
                       "case %d (rank %u axis %u elem %u len %u, plan %s): byte %zu of the output "
                       "buffer is 0x%02x, expected 0x%02x", n, c->rank, c->axis, c->elem,
                       c->len_bytes, dmlcl_operator_plan(op), k, got[k], want[k]);
    dmlcl_operator_release(op);
    tu_devbuf_free(&bi);
    tu_devbuf_free(&bl);
    tu_devbuf_free(&bo);
    free(in), free(lens), free(got), free(want);
}

/* Every data type x every rank, several layouts and axes each (fixed seed per rank). */
START_TEST(randomized_against_reference)
{
    uint32_t rank = (uint32_t)_i;
    uint64_t rng = 0x5eed0000u + rank;
    int n = 0;
    for (int t = 0; t < 11; t++)
        for (int rep = 0; rep < 3; rep++, n++) {
            reverse_case c = random_case(&rng, rank, all_types[t]);
            run_case(&rng, &c, n);
        }
}
END_TEST

/* Lengths 0, 1, n and > n on one line, both length types, explicitly. */
START_TEST(length_edge_values)
{
    const uint32_t sizes[2] = {6, 5}, len_sizes[2] = {6, 1};
    const int32_t in[30] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,
                            15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29};
    const uint64_t lens64[6] = {0, 1, 5, 6, 1ull << 40, 3};
    const uint32_t lens32[6] = {0, 1, 5, 6, 0xffffffffu, 3};
    static const int32_t expect[30] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  14, 13, 12, 11,
                                       10, 19, 18, 17, 16, 15, 24, 23, 22, 21, 20, 27, 26, 25,
                                       28, 29};
    for (int wide = 0; wide < 2; wide++) {
        int32_t out[30];
        dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL, 0};
        dmlcl_tensor_desc tl = {wide ? DMLCL_TENSOR_DATA_TYPE_UINT64 : DMLCL_TENSOR_DATA_TYPE_UINT32,
                                2, len_sizes, NULL, 0};
        dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, 1};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
        dmlcl_operator *op = NULL;
        const void *ins[2] = {in, wide ? (const void *)lens64 : (const void *)lens32};
        void *outs[1] = {out};
        tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
        tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
        dmlcl_operator_release(op);
        for (int i = 0; i < 30; i++)
            tu_assert_each(out[i] == expect[i], "%s lengths: out[%d] = %d, expected %d",
                           wide ? "UINT64" : "UINT32", i, out[i], expect[i]);
    }
}
END_TEST

/* execute_host on a padded output keeps the caller's padding bytes. */
START_TEST(execute_host_preserves_padding)
{
    const uint32_t sizes[2] = {2, 3}, out_str[2] = {5, 1}, len_sizes[2] = {2, 1};
    const uint8_t in[6] = {1, 2, 3, 4, 5, 6};
    const uint32_t lens[2] = {3, 2};
    uint8_t out[9];
    memset(out, 0xEE, sizeof out);
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_UINT8, 2, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 2, len_sizes, NULL, 0};
    dmlcl_tensor_desc to = {DMLCL_TENSOR_DATA_TYPE_UINT8, 2, sizes, out_str, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &to, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    const void *ins[2] = {in, lens};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
    const uint8_t expect[9] = {3, 2, 1, 0xEE, 0xEE, 5, 4, 6, 0xEE};
    for (int i = 0; i < 9; i++)
        ck_assert_uint_eq(out[i], expect[i]);
}
END_TEST

Suite *reverse_subsequences_suite(void)
{
    Suite *s = suite_create("reverse_subsequences");
    TCase *tc = tcase_create("spec");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, reference_example_1);
    tcase_add_test(tc, reference_example_2);
    tcase_add_test(tc, moves_bits_unchanged);
    tcase_add_test(tc, length_edge_values);
    tcase_add_test(tc, execute_host_preserves_padding);
    tcase_add_loop_test(tc, randomized_against_reference, 1, 9);
    suite_add_tcase(s, tc);
    return s;
}
