/* Every REVERSE_SUBSEQUENCES kernel variant the planner can pick (lib/reverse/plan.h), forced one
 * after the other through $DMLCL_RS_PLAN on the test device, on randomized cases aimed at
 * each variant's paths: contiguous lines around vector multiples, misaligned bindings and
 * rows, mirrored segments at every alignment, broadcast and per-element lengths, lines
 * split into segments, grid-stride loops. Every byte of the output buffer is compared
 * with a plain C reference (guard bands and padding included). */
#include "reverse_case.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dmlcl_tensor_data_type widths[4] = {
    DMLCL_TENSOR_DATA_TYPE_UINT8, DMLCL_TENSOR_DATA_TYPE_FLOAT16, DMLCL_TENSOR_DATA_TYPE_FLOAT32,
    DMLCL_TENSOR_DATA_TYPE_INT64};

static void packed(uint32_t rank, const uint32_t *sizes, uint32_t *strides)
{
    uint32_t step = 1;
    for (int d = (int)rank - 1; d >= 0; d--) {
        strides[d] = step;
        step *= sizes[d];
    }
}

/* Line lengths near multiples of every vector width (16 bytes of 1..8-byte elements). */
static uint32_t line_length(uint64_t *rng)
{
    static const uint32_t near[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 32, 33, 47,
                                    48, 64, 64, 65, 96, 128};
    return tu_range(rng, 0, 3) ? near[tu_range(rng, 0, sizeof near / sizeof near[0] - 1)]
                               : (uint32_t)tu_range(rng, 1, 100);
}

/* Shape families; lengths packed unless the family says otherwise. */
/* Families 0..5 below; 6: ranks 4..max_rank, padded input and output (the dims do not
 * merge: rank class 8) with a contiguous line of at least 4, random lengths layout. */
static void make_shape(uint64_t *rng, reverse_case *c, uint32_t max_rank)
{
    int family = max_rank > 3 ? 6 : (int)tu_range(rng, 0, 5);
    switch (family) {
    case 0: /* rows, the axis last (CHUNKS with AXIS_LAST) */
    case 1: /* rows with padded row strides: some rows start unaligned */
        c->rank = 2;
        c->axis = 1;
        c->sizes[0] = (uint32_t)tu_range(rng, 1, 9);
        c->sizes[1] = line_length(rng);
        break;
    case 2: /* the axis outside a contiguous line, lengths broadcast along the line */
    case 3: /* ... or one length per line element */
        c->rank = 3;
        c->axis = (uint32_t)tu_range(rng, 0, 1);
        c->sizes[0] = (uint32_t)tu_range(rng, 1, 7);
        c->sizes[1] = (uint32_t)tu_range(rng, 1, 6);
        c->sizes[2] = line_length(rng);
        break;
    case 4: /* few long lines: LINES splits them into segments */
        c->rank = 2;
        c->axis = (uint32_t)tu_range(rng, 0, 1);
        c->sizes[c->axis] = (uint32_t)tu_range(rng, 4097, 9000);
        c->sizes[1 - c->axis] = (uint32_t)tu_range(rng, 1, 2);
        break;
    default: /* anything: rank 1..5, random layouts */
        c->rank = family == 6 ? (uint32_t)tu_range(rng, 4, max_rank)
                              : (uint32_t)tu_range(rng, 1, max_rank);
        c->axis = (uint32_t)tu_range(rng, 0, c->rank - 1);
        for (uint32_t d = 0; d < c->rank; d++)
            c->sizes[d] = (uint32_t)tu_range(rng, 1, c->rank <= 2 ? 20 : 5);
    }
    memcpy(c->len_sizes, c->sizes, sizeof c->sizes);
    c->len_sizes[c->axis] = 1;
    packed(c->rank, c->sizes, c->in_str);
    packed(c->rank, c->sizes, c->out_str);
    packed(c->rank, c->len_sizes, c->len_str);
    if (family == 1) {
        uint32_t pad_in = (uint32_t)tu_range(rng, 0, 5), pad_out = (uint32_t)tu_range(rng, 0, 5);
        c->in_str[0] = c->sizes[1] + pad_in;
        c->out_str[0] = c->sizes[1] + pad_out;
    } else if (family == 2) {
        c->len_str[2] = 0;
    } else if (family == 6) {
        c->sizes[c->rank - 1] = (uint32_t)tu_range(rng, 4, 9);
        memcpy(c->len_sizes, c->sizes, sizeof c->sizes);
        c->len_sizes[c->axis] = 1;
        tu_make_strides(rng, TU_PADDED, c->rank, c->sizes, -1, c->in_str);
        tu_make_strides(rng, TU_PADDED, c->rank, c->sizes, -1, c->out_str);
        tu_make_strides(rng, (tu_layout)tu_range(rng, 0, TU_LAYOUT_COUNT - 1), c->rank,
                        c->len_sizes, -1, c->len_str);
    } else if (family == 5) {
        tu_make_strides(rng, (tu_layout)tu_range(rng, 0, TU_LAYOUT_COUNT - 1), c->rank, c->sizes,
                        -1, c->in_str);
        tu_make_strides(rng, (tu_layout)tu_range(rng, 0, TU_LAYOUT_COUNT - 1), c->rank,
                        c->len_sizes, -1, c->len_str);
        tu_make_strides(rng, (tu_layout)tu_range(rng, 0, TU_TRANSPOSED), c->rank, c->sizes, -1,
                        c->out_str);
    }
}

/* TILE's family: the axis last and strided in the input, where one of the other dims
 * (random) is packed innermost and the rest follow in random order with padding; rows
 * and lines across the 32-element tile edges; output packed or padded, lengths in any
 * layout. */
static void make_tile_shape(uint64_t *rng, reverse_case *c)
{
    c->rank = (uint32_t)tu_range(rng, 2, 3);
    c->axis = c->rank - 1;
    for (uint32_t d = 0; d < c->rank; d++)
        c->sizes[d] = (uint32_t)tu_range(rng, 1, c->rank == 2 ? 70 : 40);
    if (tu_range(rng, 0, 1))
        c->sizes[c->axis] = line_length(rng);
    memcpy(c->len_sizes, c->sizes, sizeof c->sizes);
    c->len_sizes[c->axis] = 1;
    uint32_t order[3] = {0, 1, 2}, inner = (uint32_t)tu_range(rng, 0, c->rank - 2);
    order[0] = inner, order[inner] = 0; /* innermost first */
    if (c->rank == 3 && tu_range(rng, 0, 1)) {
        uint32_t t = order[1];
        order[1] = order[2], order[2] = t;
    }
    uint32_t step = 1;
    for (uint32_t k = 0; k < c->rank; k++) {
        c->in_str[order[k]] = step;
        step *= c->sizes[order[k]] + (uint32_t)tu_range(rng, 0, 2);
    }
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 1), c->rank, c->sizes, -1, c->out_str);
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, TU_LAYOUT_COUNT - 1), c->rank,
                    c->len_sizes, -1, c->len_str);
}

/* lean 1: UINT32 lengths and ranks up to 3 only, so fewer programs to compile;
 * lean 2: FLOAT32, UINT64 lengths, ranks 4 and 5 only; lean 3: TILE's family, UINT32. */
static reverse_case random_case(uint64_t *rng, int lean)
{
    reverse_case c;
    memset(&c, 0, sizeof c);
    c.type = lean == 2 ? DMLCL_TENSOR_DATA_TYPE_FLOAT32 : widths[tu_range(rng, 0, 3)];
    c.elem = dmlcl_data_type_size(c.type);
    /* Mostly UINT32 lengths: each combination of options is a program to compile. */
    c.len_type = lean == 2 ? DMLCL_TENSOR_DATA_TYPE_UINT64 : DMLCL_TENSOR_DATA_TYPE_UINT32;
    c.len_bytes = dmlcl_data_type_size(c.len_type);
    if (lean == 3)
        make_tile_shape(rng, &c);
    else
        make_shape(rng, &c, lean == 2 ? 5 : 3);
    /* Aligned bindings half the time, so that whole aligned vectors occur often. */
    c.in_off = tu_range(rng, 0, 1) ? 0 : tu_range(rng, 0, 17);
    c.out_off = tu_range(rng, 0, 1) ? 0 : tu_range(rng, 0, 17);
    c.len_off = tu_range(rng, 0, 3);
    return c;
}

/* Lengths 0, 1, n, > n, above 2^32 (UINT64) or 2^32 - 1, and random; so every alignment
 * of the mirrored segment occurs. */
static uint64_t random_length(uint64_t *rng, uint32_t n, int wide)
{
    switch (tu_range(rng, 0, 7)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return n;
    case 3: return n + tu_range(rng, 1, 20);
    case 4: return wide ? ((uint64_t)1 << 36) + 1 : 0xffffffffu;
    default: return tu_range(rng, 0, n);
    }
}

/* Runs one case under the current $DMLCL_RS_PLAN; returns 1 when the plan used `variant`.
 * Lengths random, or line k's k where by_line is set. */
static int run_case(uint64_t *rng, const reverse_case *c, const char *variant, int n,
                    int by_line)
{
    size_t in_span = tu_span(c->rank, c->sizes, c->in_str);
    size_t len_span = tu_span(c->rank, c->len_sizes, c->len_str);
    size_t out_span = tu_span(c->rank, c->sizes, c->out_str);
    unsigned char *in = malloc(in_span * c->elem), *lens = malloc(len_span * c->len_bytes);
    for (size_t k = 0; k < in_span * c->elem; k++)
        in[k] = (unsigned char)tu_rand(rng);
    for (size_t k = 0; k < len_span; k++) {
        uint64_t v = by_line ? k : random_length(rng, c->sizes[c->axis], c->len_bytes == 8);
        if (c->len_bytes == 8)
            memcpy(lens + k * 8, &v, 8);
        else {
            uint32_t w = (uint32_t)v;
            memcpy(lens + k * 4, &w, 4);
        }
    }
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
    dmlcl_buffer_binding ins[2] = {{bi.mem, bi.offset, in_span * c->elem}, {bl.mem, bl.offset, 0}};
    dmlcl_buffer_binding outs[1] = {{bo.mem, bo.offset, out_span * c->elem}};
    st = dmlcl_operator_enqueue(op, ins, 2, outs, 1, 0, NULL, NULL);
    ck_assert_msg(st == DMLCL_SUCCESS, "case %d: %s", n, dmlcl_last_error());

    unsigned char *got = malloc(bo.bytes), *want = malloc(bo.bytes);
    tu_devbuf_read(&bo, got);
    memset(want, TU_FILL, bo.bytes);
    reverse_reference(c, in, lens, want + bo.offset);
    char sizes[96] = "";
    for (uint32_t d = 0; d < c->rank; d++)
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%u", d ? "x" : "",
                 c->sizes[d]);
    for (size_t k = 0; k < bo.bytes; k++)
        tu_assert_each(
            got[k] == want[k],
            "forced %s, case %d (sizes %s axis %u elem %u len %u, offsets in %zu out %zu, "
            "plan %s): byte %zu of the output buffer is 0x%02x, expected 0x%02x",
            variant, n, sizes, c->axis, c->elem, c->len_bytes, c->in_off, c->out_off,
            dmlcl_operator_plan(op), k, got[k], want[k]);
    char tag[32];
    snprintf(tag, sizeof tag, "variant=%s ", variant);
    int used = strstr(dmlcl_operator_plan(op), tag) != NULL;
    dmlcl_operator_release(op);
    tu_devbuf_free(&bi);
    tu_devbuf_free(&bl);
    tu_devbuf_free(&bo);
    free(in), free(lens), free(got), free(want);
    return used;
}

/* Each forced plan with its number of cases (each new combination of build options is a
 * program to compile, so the secondary settings get fewer). */
static const struct {
    const char *plan;
    int cases, lean;
} forced[] = {
    {"variant=generic", 50, 1},
    {"variant=lines", 40, 1}, /* the default on CPUs: check_reverse_subsequences.c has all ranks */
    {"variant=chunks", 100, 1},
    {"variant=chunks,wg=16,waves=1", 24, 1}, /* few work-items: each loops over many chunks */
    {"variant=generic,wg=16,waves=1", 12, 1},
    {"variant=generic", 12, 2}, /* ranks 4..5 (rank class 8), UINT64 lengths */
    {"variant=chunks", 12, 2},
    {"variant=tile", 60, 3},
    {"variant=tile,wg=32,waves=1", 12, 3}, /* one row of items: each loops over the tile */
    {"variant=blocks", 40, 3},
    {"variant=blocks,seg=5", 20, 3}, /* lines in segments, across the blocks' vectors */
};

/* `_i` picks the forced plan; the same seed gives every variant the same cases. */
START_TEST(forced_variant_against_reference)
{
    const char *force = forced[_i].plan;
    char variant[16];
    sscanf(force, "variant=%15[a-z]", variant);
    ck_assert_int_eq(setenv("DMLCL_RS_PLAN", force, 1), 0);
    uint64_t rng = 0x7a1a7a5eedull;
    int used = 0, cases = forced[_i].cases;
    for (int n = 0; n < cases; n++) {
        reverse_case c = random_case(&rng, forced[_i].lean);
        used += run_case(&rng, &c, variant, n, 0);
    }
    unsetenv("DMLCL_RS_PLAN");
    /* CHUNKS applies to contiguous lines only; most families have them (TILE's all). */
    ck_assert_msg(used >= cases / 2, "%s ran in only %d of %d cases", force, used, cases);
}
END_TEST

/* CHUNKS on aligned rows of 64 elements of 1, 2 and 4 bytes, row k reversing its first k
 * (0 to 64, then more than the row): L at every place in a 16-byte chunk, the chunk
 * holding it (its mirrored part from the row's start, the rest kept) included. */
START_TEST(chunks_at_every_length)
{
    static const dmlcl_tensor_data_type types[3] = {
        DMLCL_TENSOR_DATA_TYPE_UINT8, DMLCL_TENSOR_DATA_TYPE_FLOAT16,
        DMLCL_TENSOR_DATA_TYPE_FLOAT32};
    reverse_case c;
    memset(&c, 0, sizeof c);
    c.type = types[_i];
    c.elem = dmlcl_data_type_size(c.type);
    c.len_type = DMLCL_TENSOR_DATA_TYPE_UINT32;
    c.len_bytes = 4;
    c.rank = 2;
    c.axis = 1;
    c.sizes[0] = 70;
    c.sizes[1] = 64;
    memcpy(c.len_sizes, c.sizes, sizeof c.sizes);
    c.len_sizes[1] = 1;
    packed(2, c.sizes, c.in_str);
    packed(2, c.sizes, c.out_str);
    packed(2, c.len_sizes, c.len_str);
    ck_assert_int_eq(setenv("DMLCL_RS_PLAN", "variant=chunks", 1), 0);
    uint64_t rng = 64;
    const int used = run_case(&rng, &c, "chunks", 0, 1);
    unsetenv("DMLCL_RS_PLAN");
    ck_assert_msg(used, "rows of 64 elements did not run as CHUNKS");
}
END_TEST

START_TEST(bad_override_is_reported)
{
    const uint32_t sizes[1] = {4}, ls[1] = {1};
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 1, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 1, ls, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, 0};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    ck_assert_int_eq(setenv("DMLCL_RS_PLAN", "variant=turbo", 1), 0);
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "DMLCL_RS_PLAN must be key=value pairs");
    ck_assert_int_eq(setenv("DMLCL_RS_PLAN", "variant=blocks,seg=0", 1), 0); /* 1 at least */
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "seg=1..1073741824) separated by commas, got \"variant=blocks,seg=0\"");
    unsetenv("DMLCL_RS_PLAN");
    ck_assert_ptr_null(op);
}
END_TEST

Suite *reverse_variants_suite(void)
{
    Suite *s = suite_create("reverse_variants");
    TCase *tc = tcase_create("forced");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, forced_variant_against_reference, 0,
                        (int)(sizeof forced / sizeof forced[0]));
    tcase_add_loop_test(tc, chunks_at_every_length, 0, 3);
    tcase_add_test(tc, bad_override_is_reported);
    suite_add_tcase(s, tc);
    return s;
}
