/* RESAMPLE2: RESAMPLE1 with a nearest rounding direction (INCREASING = ceil(x),
 * DECREASING = floor(x)). doc/operators.md's ONNX nearest-mode table row by row, DirectML's
 * 2x2 -> 1x3 example, randomized nearest cases against a C reference with guard bands,
 * linear = RESAMPLE1 bit for bit, and the validation messages. RESAMPLE2 runs RESAMPLE1's
 * kernels with the same build options, so this suite compiles nothing new. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const float zeros[8] = {0};

/* FLOAT32 packed host arrays through execute_host. */
static void run2(uint32_t rank, const uint32_t *is, const uint32_t *os, int mode, int dir,
                 const float *sc, const float *ipo, const float *opo, const float *in, float *out)
{
    dmlcl_tensor_desc ti = {F32, rank, is, NULL, 0}, to = {F32, rank, os, NULL, 0};
    dmlcl_resample2_desc rd = {&ti, &to, (dmlcl_interpolation_mode)mode,
                               (dmlcl_axis_direction)dir, rank, sc, ipo, opo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE2, &rd};
    tu_run_host(&od, in, out);
}

static void expect(const float *got, const float *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        tu_assert_each(got[i] == want[i], "%s: out[%d] = %g, expected %g", what, i, got[i],
                       want[i]);
}

/* 4 -> 16 with scale 4 and asymmetric coordinates: x = o / 4 = 0, 0.25, 0.5, ... 3.75, so
 * the four ONNX modes differ (ties at .5, and .25/.75 between floor and ceil). */
START_TEST(onnx_nearest_modes)
{
    const uint32_t is[1] = {4}, os[1] = {16};
    const float sc[1] = {4}, in[4] = {0, 1, 2, 3};
    const float plus_half[1] = {0.5f}, minus_half[1] = {-0.5f};
    float out[16];
    /* x:       0  .25 .5 .75  1 1.25 1.5 1.75  2 2.25 2.5 2.75  3 3.25 3.5 3.75 */
    const float floor_[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
    const float ceil_[16] = {0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3};
    const float prefer_floor[16] = {0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3};
    const float prefer_ceil[16] = {0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3};
    /* round_prefer_floor = INCREASING with input offset + 0.5: ceil(x - 0.5). */
    run2(1, is, os, NEAREST, INC, sc, plus_half, zeros, in, out);
    expect(out, prefer_floor, 16, "round_prefer_floor");
    /* round_prefer_ceil = DECREASING with input offset - 0.5: floor(x + 0.5). */
    run2(1, is, os, NEAREST, DEC, sc, minus_half, zeros, in, out);
    expect(out, prefer_ceil, 16, "round_prefer_ceil");
    run2(1, is, os, NEAREST, DEC, sc, zeros, zeros, in, out);
    expect(out, floor_, 16, "floor");
    run2(1, is, os, NEAREST, INC, sc, zeros, zeros, in, out);
    expect(out, ceil_, 16, "ceil");
}
END_TEST

/* The same four rows with half_pixel coordinates (offsets 0.5 / -0.5, the ONNX default),
 * 4 -> 8: x = (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, ..., 3.25; no ties, so the two
 * round_prefer modes agree, floor and ceil do not. Input offsets: 0.5 + 0.5 and 0.5 - 0.5. */
START_TEST(onnx_nearest_modes_half_pixel)
{
    const uint32_t is[1] = {4}, os[1] = {8};
    const float sc[1] = {2}, in[4] = {0, 1, 2, 3}, one[1] = {1.0f};
    float out[8];
    const float rounded[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    const float floor_[8] = {0, 0, 0, 1, 1, 2, 2, 3}; /* floor(-0.25) clamps to 0 */
    const float ceil_[8] = {0, 1, 1, 2, 2, 3, 3, 3};
    run2(1, is, os, NEAREST, INC, sc, one, tu_pix_out, in, out);
    expect(out, rounded, 8, "half_pixel round_prefer_floor");
    run2(1, is, os, NEAREST, DEC, sc, zeros, tu_pix_out, in, out);
    expect(out, rounded, 8, "half_pixel round_prefer_ceil");
    run2(1, is, os, NEAREST, DEC, sc, tu_pix_in, tu_pix_out, in, out);
    expect(out, floor_, 8, "half_pixel floor");
    run2(1, is, os, NEAREST, INC, sc, tu_pix_in, tu_pix_out, in, out);
    expect(out, ceil_, 8, "half_pixel ceil");
}
END_TEST

/* DirectML's RESAMPLE_GRAD1 example runs this forward pass: 2x2 -> 1x3, scales {0.5, 1.5},
 * pixel-centre offsets, DECREASING. Rows: x = 0.5 -> 0; columns: x = -1/6, 0.5, 7/6 ->
 * 0, 0, 1. INCREASING picks row 1 and columns 0, 1, 2 -> clamp 1. */
START_TEST(directml_example_forward)
{
    const uint32_t is[2] = {2, 2}, os[2] = {1, 3};
    const float sc[2] = {0.5f, 1.5f}, in[4] = {1, 2, 3, 4};
    const float dec[3] = {1, 1, 2}, inc[3] = {3, 4, 4};
    float out[3];
    run2(2, is, os, NEAREST, DEC, sc, tu_pix_in, tu_pix_out, in, out);
    expect(out, dec, 3, "DECREASING");
    run2(2, is, os, NEAREST, INC, sc, tu_pix_in, tu_pix_out, in, out);
    expect(out, inc, 3, "INCREASING");
}
END_TEST

/* ---- randomized nearest against a C reference ------------------------------------------- */

typedef struct {
    uint32_t rank, elem;
    int dir;
    dmlcl_tensor_data_type type;
    uint32_t is[8], os[8], istr[8], ostr[8];
    float sc[8], ipo[8], opo[8];
} case2;

static uint64_t ref_index(const case2 *c, uint32_t d, uint32_t o)
{
    float x = ((float)o - c->opo[d]) / c->sc[d] - c->ipo[d];
    float f = c->dir == INC ? ceilf(x) : floorf(x);
    return f < 0 ? 0 : f > (float)(c->is[d] - 1) ? c->is[d] - 1 : (uint64_t)f;
}

static void check_case(uint64_t *rng, const case2 *c, int mode, int n)
{
    size_t in_span = tu_span(c->rank, c->is, c->istr), out_span = tu_span(c->rank, c->os, c->ostr);
    unsigned char *in = malloc(in_span * c->elem);
    for (size_t k = 0; k < in_span * c->elem; k++)
        in[k] = (unsigned char)tu_rand(rng);
    dmlcl_tensor_desc ti = {c->type, c->rank, c->is, c->istr, 0};
    dmlcl_tensor_desc to = {c->type, c->rank, c->os, c->ostr, 0};
    dmlcl_resample2_desc rd = {&ti, &to, (dmlcl_interpolation_mode)mode,
                               (dmlcl_axis_direction)c->dir, c->rank, c->sc, c->ipo, c->opo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE2, &rd};
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_devbuf bi = tu_devbuf_new(in_span * c->elem, tu_range(rng, 0, 3) * c->elem, in);
    tu_devbuf bo = tu_devbuf_new(out_span * c->elem, tu_range(rng, 0, 3) * c->elem, NULL);
    dmlcl_buffer_binding ins[1] = {{bi.mem, bi.offset, 0}}, outs[1] = {{bo.mem, bo.offset, 0}};
    tu_assert_ok(dmlcl_operator_enqueue(op, ins, 1, outs, 1, 0, NULL, NULL));
    unsigned char *got = malloc(bo.bytes), *want = malloc(bo.bytes);
    tu_devbuf_read(&bo, got);
    memset(want, TU_FILL, bo.bytes);
    uint32_t o[8] = {0};
    do {
        uint64_t off = 0;
        for (uint32_t d = 0; d < c->rank; d++)
            off += ref_index(c, d, o[d]) * c->istr[d];
        memcpy(want + bo.offset + tu_offset(c->rank, o, c->ostr) * c->elem, in + off * c->elem,
               c->elem);
    } while (tu_next_index(c->rank, c->os, o));
    for (size_t k = 0; k < bo.bytes; k++)
        tu_assert_each(got[k] == want[k], "case %d (rank %u, %s, plan %s): byte %zu is 0x%02x, "
                       "expected 0x%02x", n, c->rank, c->dir == INC ? "INCREASING" : "DECREASING",
                       dmlcl_operator_plan(op), k, got[k], want[k]);
    dmlcl_operator_release(op);
    tu_devbuf_free(&bi);
    tu_devbuf_free(&bo);
    free(in), free(got), free(want);
}

static case2 random_case2(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type)
{
    case2 c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.type = type;
    c.elem = dmlcl_data_type_size(type);
    c.dir = (int)tu_range(rng, 0, 1);
    uint32_t cap = rank <= 2 ? 12 : rank <= 4 ? 5 : 3;
    for (uint32_t d = 0; d < rank; d++) {
        c.is[d] = (uint32_t)tu_range(rng, 1, cap);
        c.os[d] = (uint32_t)tu_range(rng, 1, cap);
        switch (tu_range(rng, 0, 3)) {
        case 0: c.sc[d] = (float)c.os[d] / (float)c.is[d]; break;
        case 1: c.sc[d] = (float)tu_range(rng, 1, 4) / 2; break; /* ties */
        case 2: c.sc[d] = 1; c.os[d] = c.is[d]; break;
        default: c.sc[d] = 0.3f + (float)tu_range(rng, 0, 100) / 37.0f;
        }
        c.ipo[d] = (float)tu_range(rng, 0, 8) / 4 - 1;
        c.opo[d] = (float)tu_range(rng, 0, 8) / 4 - 1;
    }
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 2), rank, c.is, -1, c.istr);
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 2), rank, c.os, -1, c.ostr);
    return c;
}

START_TEST(randomized_nearest)
{
    static const dmlcl_tensor_data_type types[4] = {F32, DMLCL_TENSOR_DATA_TYPE_FLOAT16,
                                                    DMLCL_TENSOR_DATA_TYPE_UINT8,
                                                    DMLCL_TENSOR_DATA_TYPE_FLOAT64};
    uint64_t rng = 0x2e5a2;
    int n = 0;
    for (uint32_t rank = 1; rank <= 8; rank++)
        for (int rep = 0; rep < 6; rep++, n++) {
            case2 c = random_case2(&rng, rank, types[n % 4]);
            check_case(&rng, &c, NEAREST, n);
        }
}
END_TEST

/* Both directions through the CPU row blocks (forced with cpu=3, as in RESAMPLE1's
 * cpu_row_blocks): 2x and 4x rows whose vectors take one pattern, 1.5x rows where only
 * some do, half-pixel and zero offsets, channels-last; bit for bit. */
START_TEST(cpu_row_blocks_directions)
{
    static const struct { uint32_t is, os; int channels_last; float off; } rows[] = {
        {40, 80, 0, 0.5f}, {40, 160, 0, 0}, {100, 150, 0, 0.5f}, {9, 18, 1, 0.5f},
    };
    static const dmlcl_tensor_data_type types[] = {F32, DMLCL_TENSOR_DATA_TYPE_UINT8,
                                                   DMLCL_TENSOR_DATA_TYPE_FLOAT16};
    uint64_t rng = 0xc0e5;
    setenv("DMLCL_RESAMPLE_PLAN", "rows=0,seg=256,cpu=3", 1);
    int n = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (int dir = 0; dir < 2; dir++, n++) {
            case2 c;
            memset(&c, 0, sizeof c);
            c.rank = 4;
            c.type = types[n % 3];
            c.elem = dmlcl_data_type_size(c.type);
            c.dir = dir ? DEC : INC;
            const uint32_t is[4] = {1, rows[r].channels_last ? 8 : 2, 5, rows[r].is};
            const uint32_t os[4] = {1, is[1], 9, rows[r].os};
            for (int d = 0; d < 4; d++) {
                c.is[d] = is[d], c.os[d] = os[d];
                c.sc[d] = (float)os[d] / (float)is[d];
                c.ipo[d] = rows[r].off;
                c.opo[d] = -rows[r].off;
            }
            if (rows[r].channels_last) {
                tu_channels_last(4, c.is, c.istr);
                tu_channels_last(4, c.os, c.ostr);
            } else {
                tu_make_strides(&rng, TU_PACKED, 4, c.is, -1, c.istr);
                tu_make_strides(&rng, TU_PACKED, 4, c.os, -1, c.ostr);
            }
            check_case(&rng, &c, NEAREST, n);
        }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* LINEAR ignores the direction: bit-identical to RESAMPLE1. */
START_TEST(linear_equals_resample1)
{
    uint64_t rng = 0x2e5a3;
    for (int n = 0; n < 6; n++) {
        case2 c = random_case2(&rng, (uint32_t)tu_range(&rng, 1, 3), F32);
        for (uint32_t d = 0; d < c.rank; d++)
            c.istr[d] = c.ostr[d] = 0; /* packed */
        size_t ni = tu_span(c.rank, c.is, NULL), no = tu_span(c.rank, c.os, NULL);
        float *in = malloc(ni * 4), *o1 = malloc(no * 4), *o2 = malloc(no * 4);
        for (size_t k = 0; k < ni; k++)
            in[k] = (float)tu_range(&rng, 0, 10000) / 100 - 50;
        dmlcl_tensor_desc ti = {F32, c.rank, c.is, NULL, 0}, to = {F32, c.rank, c.os, NULL, 0};
        dmlcl_resample1_desc r1 = {&ti, &to, LINEAR, c.rank, c.sc, c.ipo, c.opo};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
        dmlcl_operator *op;
        const void *ins[1] = {in};
        void *outs[1] = {o1};
        tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
        tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
        dmlcl_operator_release(op);
        for (int dir = 0; dir < 2; dir++) {
            run2(c.rank, c.is, c.os, LINEAR, dir, c.sc, c.ipo, c.opo, in, o2);
            ck_assert_msg(!memcmp(o1, o2, no * 4), "case %d direction %d differs", n, dir);
        }
        free(in), free(o1), free(o2);
    }
}
END_TEST

/* ---- validation ------------------------------------------------------------------------------- */

START_TEST(validation)
{
    uint32_t is[2] = {2, 2}, os[2] = {4, 4};
    float sc[2] = {2, 2};
    dmlcl_tensor_desc ti = {F32, 2, is, NULL, 0}, to = {F32, 2, os, NULL, 0};
    dmlcl_resample2_desc rd = {&ti, &to, NEAREST, INC, 2, sc, tu_pix_in, tu_pix_out};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE2, &rd};
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    dmlcl_operator_release(op);
    rd.rounding_direction = (dmlcl_axis_direction)2;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample2: rounding_direction must be 0 (INCREASING) or 1 (DECREASING), "
                    "got 2");
    ck_assert_ptr_null(op);
    rd.rounding_direction = (dmlcl_axis_direction)-1;
    rd.interpolation_mode = LINEAR; /* checked for linear too */
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample2: rounding_direction must be 0 (INCREASING) or 1 (DECREASING), "
                    "got -1");
    rd.rounding_direction = DEC;
    rd.scales = NULL;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample2: scales is NULL (it needs 2 values)");
    rd.scales = sc;
    rd.dimension_count = 1;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample2: dimension_count must equal the tensors' dimension_count (2), "
                    "got 1");
    rd.dimension_count = 2;
    rd.interpolation_mode = (dmlcl_interpolation_mode)5;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample2: interpolation_mode must be 0 (NEAREST_NEIGHBOR) or 1 (LINEAR), "
                    "got 5");
    rd.interpolation_mode = NEAREST;
    rd.input_tensor = NULL;
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "resample2: input_tensor is NULL");
    rd.input_tensor = &ti;
    /* Enqueue messages name the operator too. */
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    tu_assert_fails(dmlcl_operator_enqueue(op, NULL, 0, NULL, 0, 0, NULL, NULL),
                    DMLCL_INVALID_ARGUMENT, "resample2: expects 1 input and 1 output bindings");
    dmlcl_operator_release(op);
}
END_TEST

Suite *resample2_suite(void)
{
    Suite *s = suite_create("resample2");
    TCase *tc = tcase_create("resample2");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, onnx_nearest_modes);
    tcase_add_test(tc, onnx_nearest_modes_half_pixel);
    tcase_add_test(tc, directml_example_forward);
    tcase_add_test(tc, randomized_nearest);
    tcase_add_test(tc, cpu_row_blocks_directions);
    tcase_add_test(tc, linear_equals_resample1);
    tcase_add_test(tc, validation);
    suite_add_tcase(s, tc);
    return s;
}
