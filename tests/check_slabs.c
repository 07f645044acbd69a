/* Slabs (lib/core/slab.h, lib/slabs.c): tensors whose offsets pass 2^31 elements run as
 * several launches of 32-bit arithmetic, each over a slab of the output and the input
 * range it reads. Real ones do not fit a test device, so $DMLCL_RESAMPLE_PLAN /
 * $DMLCL_RS_PLAN's slab=N lowers the bound to a few hundred elements and every operator
 * kind runs split: NCHW and channels-last, up- and downsampling, trilinear, antialiased
 * taps, RESAMPLE_GRAD1 (its output's slabs read ranges of the incoming gradient, some
 * reading nothing), REVERSE_SUBSEQUENCES (the axis whole), a transposed input no cut fits
 * (the 64-bit fallback), tiles. Each run is compared bit for bit with the unsplit run
 * (every byte of the output buffers, guard bands included), and randomized cases under
 * the lowered bound against the C references (tests/resample1_case.c, grad1_case.c,
 * reverse_case.c). */
#include "core/context.h"
#include "grad1_case.h"
#include "resample1_case.h"
#include "reverse_case.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one operator, run whole and in slabs ------------------------------------------------ */

typedef struct scase {
    const char *what;
    dmlcl_operator_desc od;
    uint32_t n_in;
    dmlcl_tensor_desc in[2], out;
    const dmlcl_tile_desc *tile_in, *tile_out;
    const char *env;  /* the family's planner variable */
    const char *slab; /* its value for the split run */
    int fallback;     /* no cut fits: "slabs=0", 64-bit */
    const char *shows; /* NULL, or what the split plan's text must hold */
} scase;

/* Test hook exported by the library: the cl_kernels its creations have made so far. */
uint64_t dmlcl_test_kernels_created(void);

static uint64_t elems(const dmlcl_tensor_desc *t)
{
    return tu_span(t->dimension_count, t->sizes, t->strides);
}

/* Input i's bytes: floats of small integers and halves (every type), or lengths. */
static unsigned char *make_input(uint64_t *rng, const scase *c, uint32_t i, size_t *bytes)
{
    const dmlcl_tensor_desc *t = &c->in[i];
    const size_t e = dmlcl_data_type_size(t->data_type), n = elems(t);
    unsigned char *p = malloc(n * e);
    for (size_t k = 0; k < n; k++) {
        const int v = (int)tu_range(rng, 0, 200) - 100;
        switch (t->data_type) {
        case F32: { float f = (float)v / 2; memcpy(p + k * 4, &f, 4); break; }
        case F16: { uint16_t h = tu_float_to_half((float)v / 2); memcpy(p + k * 2, &h, 2); break; }
        case DMLCL_TENSOR_DATA_TYPE_UINT32: {
            uint32_t l = (uint32_t)tu_range(rng, 0, 40);
            memcpy(p + k * 4, &l, 4);
            break;
        }
        default: p[k * e] = (unsigned char)v; break;
        }
    }
    *bytes = n * e;
    return p;
}

/* Runs c with env set to `plan` (NULL: unset) through dmlcl_operator_enqueue on guard-banded
 * buffers at odd element offsets; returns the whole output buffer, its plan text and the
 * kernels its creation made. */
static unsigned char *run(const scase *c, unsigned char *const *in, const size_t *in_bytes,
                          const char *plan, size_t *bytes, char *plan_text, size_t cap,
                          uint64_t *kernels)
{
    if (plan)
        ck_assert_int_eq(setenv(c->env, plan, 1), 0);
    else
        unsetenv(c->env);
    dmlcl_operator *op = NULL;
    const uint64_t made = dmlcl_test_kernels_created();
    dmlcl_status st = c->tile_out ? dmlcl_operator_create_tile(tu_context(), &c->od, c->tile_in,
                                                                c->tile_out, &op)
                                  : dmlcl_operator_create(tu_context(), &c->od, &op);
    *kernels = dmlcl_test_kernels_created() - made;
    unsetenv(c->env);
    ck_assert_msg(st == DMLCL_SUCCESS, "%s (%s): %s", c->what, plan ? plan : "whole",
                  dmlcl_last_error());
    snprintf(plan_text, cap, "%s", dmlcl_operator_plan(op));
    tu_devbuf bi[2];
    dmlcl_buffer_binding ins[2], outs[1];
    for (uint32_t i = 0; i < c->n_in; i++) {
        const size_t e = dmlcl_data_type_size(c->in[i].data_type);
        bi[i] = tu_devbuf_new(in_bytes[i], (1 + 2 * i) * e, in[i]);
        ins[i] = (dmlcl_buffer_binding){bi[i].mem, bi[i].offset, 0};
    }
    const size_t oe = dmlcl_data_type_size(c->out.data_type);
    tu_devbuf bo = tu_devbuf_new(elems(&c->out) * oe, 3 * oe, NULL);
    outs[0] = (dmlcl_buffer_binding){bo.mem, bo.offset, 0};
    /* With an event (the parts' marker) where the plan is split, waited on. */
    cl_event done = NULL;
    st = dmlcl_operator_enqueue(op, ins, c->n_in, outs, 1, 0, NULL, &done);
    ck_assert_msg(st == DMLCL_SUCCESS, "%s: %s", c->what, dmlcl_last_error());
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    unsigned char *got = malloc(bo.bytes);
    tu_devbuf_read(&bo, got);
    *bytes = bo.bytes;
    dmlcl_operator_release(op);
    for (uint32_t i = 0; i < c->n_in; i++)
        tu_devbuf_free(&bi[i]);
    tu_devbuf_free(&bo);
    return got;
}

/* The split run equals the whole one byte for byte, and its plan says how it ran. */
static void split_equals_whole(uint64_t *rng, const scase *c)
{
    unsigned char *in[2];
    size_t in_bytes[2], wb, sb;
    for (uint32_t i = 0; i < c->n_in; i++)
        in[i] = make_input(rng, c, i, &in_bytes[i]);
    char wplan[1024], splan[1024];
    uint64_t wk, sk;
    unsigned char *whole = run(c, in, in_bytes, NULL, &wb, wplan, sizeof wplan, &wk);
    unsigned char *split = run(c, in, in_bytes, c->slab, &sb, splan, sizeof splan, &sk);
    ck_assert_msg(strncmp(wplan, "slabs=", 6) != 0, "%s: the whole run is split: %s", c->what,
                  wplan);
    unsigned long long n = 0;
    ck_assert_msg(sscanf(splan, "slabs=%llu", &n) == 1, "%s: plan %s", c->what, splan);
    if (c->fallback)
        ck_assert_msg(n == 0 && strstr(splan, "64-bit indices"),
                      "%s: expected the 64-bit fallback, plan %s", c->what, splan);
    else
        ck_assert_msg(n > 1 && strstr(splan, "-DIDX64=0"), "%s: expected slabs, plan %s",
                      c->what, splan);
    ck_assert_msg(!c->shows || strstr(splan, c->shows), "%s: expected %s in plan %s", c->what,
                  c->shows, splan);
    /* One kernel, however many parts: they share the cl_kernel of the first. */
    ck_assert_msg(wk == 1 && sk == wk, "%s: the whole creation made %llu cl_kernels, the "
                  "split one (%llu parts) %llu", c->what, (unsigned long long)wk, n,
                  (unsigned long long)sk);
    ck_assert_uint_eq(wb, sb);
    for (size_t k = 0; k < wb; k++)
        tu_assert_each(whole[k] == split[k], "%s (plan %s): byte %zu is 0x%02x, the whole run's "
                       "0x%02x", c->what, splan, k, split[k], whole[k]);
    for (uint32_t i = 0; i < c->n_in; i++)
        free(in[i]);
    free(whole), free(split);
}

/* ---- the cases ---------------------------------------------------------------------------- */

static const float pix_in[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
static const float pix_out[8] = {-0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f};

/* Strides of sizes: packed, or channels-last (dimension 1 innermost) where cl. */
static void strides_of(uint32_t rank, const uint32_t *sizes, int cl, uint32_t *str)
{
    if (cl && rank >= 3) {
        tu_channels_last(rank, sizes, str);
        return;
    }
    uint32_t step = 1;
    for (int d = (int)rank - 1; d >= 0; d--)
        str[d] = step, step *= sizes[d];
}

/* The storage one case needs: sizes, strides, scales, descriptors. */
typedef struct {
    uint32_t is[8], os[8], istr[8], ostr[8], ls[8], lstr[8];
    float sc[8];
    dmlcl_resample1_desc r1;
    dmlcl_resample3_desc r3;
    dmlcl_resample_grad1_desc g1;
    dmlcl_reverse_subsequences_desc rv;
    uint32_t tlog_in[8], tlog_out[8], tstart_in[8], tstart_out[8];
    dmlcl_tile_desc tin, tout;
} store;

/* A RESAMPLE-family case: type (RESAMPLE1, RESAMPLE3 antialiased or RESAMPLE_GRAD1), the
 * forward sizes fwd_in -> fwd_out, mode, layout (0 packed, 1 channels-last, 2 the data
 * input transposed). */
static scase resample_case(store *s, const char *what, dmlcl_operator_type type, uint32_t rank,
                           const uint32_t *fwd_in, const uint32_t *fwd_out, int mode,
                           int layout, const char *slab)
{
    scase c;
    memset(&c, 0, sizeof c);
    c.what = what;
    c.n_in = 1;
    c.env = "DMLCL_RESAMPLE_PLAN";
    c.slab = slab;
    const int grad = type == DMLCL_OPERATOR_RESAMPLE_GRAD1;
    for (uint32_t d = 0; d < rank; d++) {
        s->is[d] = grad ? fwd_out[d] : fwd_in[d];
        s->os[d] = grad ? fwd_in[d] : fwd_out[d];
        s->sc[d] = (float)fwd_out[d] / (float)fwd_in[d];
    }
    strides_of(rank, s->is, layout == 1, s->istr);
    strides_of(rank, s->os, layout == 1, s->ostr);
    if (layout == 2) { /* the data input transposed: dimension 0 innermost */
        uint32_t step = 1;
        for (uint32_t d = 0; d < rank; d++)
            s->istr[d] = step, step *= s->is[d];
    }
    c.in[0] = (dmlcl_tensor_desc){F32, rank, s->is, s->istr, 0};
    c.out = (dmlcl_tensor_desc){F32, rank, s->os, s->ostr, 0};
    const dmlcl_interpolation_mode m = (dmlcl_interpolation_mode)mode;
    if (type == DMLCL_OPERATOR_RESAMPLE1) {
        s->r1 = (dmlcl_resample1_desc){&c.in[0], &c.out, m, rank, s->sc, pix_in, pix_out};
        c.od = (dmlcl_operator_desc){type, &s->r1};
    } else if (type == DMLCL_OPERATOR_RESAMPLE3) {
        s->r3 = (dmlcl_resample3_desc){&c.in[0], &c.out, m, INC, rank, s->sc, pix_in, pix_out, 1};
        c.od = (dmlcl_operator_desc){type, &s->r3};
    } else {
        s->g1 = (dmlcl_resample_grad1_desc){&c.in[0], &c.out, m, INC, rank, s->sc, pix_in,
                                            pix_out};
        c.od = (dmlcl_operator_desc){type, &s->g1};
    }
    return c;
}

/* The descriptors point into c: fixed after a copy. */
static void fix(scase *c, store *s)
{
    if (c->od.type == DMLCL_OPERATOR_RESAMPLE1)
        s->r1.input_tensor = &c->in[0], s->r1.output_tensor = &c->out;
    else if (c->od.type == DMLCL_OPERATOR_RESAMPLE3)
        s->r3.input_tensor = &c->in[0], s->r3.output_tensor = &c->out;
    else if (c->od.type == DMLCL_OPERATOR_RESAMPLE_GRAD1)
        s->g1.input_gradient_tensor = &c->in[0], s->g1.output_gradient_tensor = &c->out;
    else {
        s->rv.input_tensor = &c->in[0];
        s->rv.sequence_lengths_tensor = &c->in[1];
        s->rv.output_tensor = &c->out;
    }
}

/* Every RESAMPLE-family kind split with a bound of a few hundred elements. */
START_TEST(resample_split_equals_whole)
{
    uint64_t rng = 0x51ab;
    static const struct {
        const char *what;
        dmlcl_operator_type type;
        uint32_t rank, in[5], out[5];
        int mode, layout;
        const char *slab;
    } cases[] = {
        {"linear 2x NCHW", DMLCL_OPERATOR_RESAMPLE1, 4, {2, 3, 9, 13}, {2, 3, 18, 26}, 1, 0,
         "slab=300"},
        {"linear 2x channels-last", DMLCL_OPERATOR_RESAMPLE1, 4, {2, 8, 9, 7}, {2, 8, 18, 14},
         1, 1, "slab=500"},
        /* The GPUs' layouts forced on the test device: the 2-D rows kernels (window and
         * pairs) and the units. */
        {"linear 2x NCHW, rows kernels", DMLCL_OPERATOR_RESAMPLE1, 4, {2, 3, 9, 40},
         {2, 3, 18, 80}, 1, 0, "slab=2000,rows=1,win=1,pair=1"},
        {"linear 2x channels-last, units", DMLCL_OPERATOR_RESAMPLE1, 4, {2, 8, 9, 7},
         {2, 8, 18, 14}, 1, 1, "slab=500,rows=0,seg=0,cpu=0,v=8"},
        {"trilinear 2x, rows kernels", DMLCL_OPERATOR_RESAMPLE1, 5, {1, 2, 5, 6, 40},
         {1, 2, 10, 12, 80}, 1, 0, "slab=4000,rows=1,rv=8"},
        {"trilinear 2x, rows kernels, pairs in two dimensions", DMLCL_OPERATOR_RESAMPLE1, 5,
         {1, 2, 5, 6, 40}, {1, 2, 10, 12, 80}, 1, 0, "slab=4000,rows=1,pair=2"},
        {"GRAD1 of linear 2x, rows kernel", DMLCL_OPERATOR_RESAMPLE_GRAD1, 4, {2, 3, 9, 40},
         {2, 3, 18, 80}, 1, 0, "slab=2000,rows=1,seg=0"},
        {"nearest 2x NCHW", DMLCL_OPERATOR_RESAMPLE1, 4, {2, 3, 9, 13}, {2, 3, 18, 26}, 0, 0,
         "slab=200"},
        {"nearest 2x channels-last", DMLCL_OPERATOR_RESAMPLE1, 4, {1, 8, 9, 7}, {1, 8, 18, 14},
         0, 1, "slab=300"},
        {"linear 0.5x (the input over)", DMLCL_OPERATOR_RESAMPLE1, 4, {2, 3, 20, 24},
         {2, 3, 10, 12}, 1, 0, "slab=400"},
        {"linear 1.5x, rows cut", DMLCL_OPERATOR_RESAMPLE1, 3, {2, 10, 12}, {2, 15, 18}, 1, 0,
         "slab=100"},
        {"trilinear 2x", DMLCL_OPERATOR_RESAMPLE1, 5, {1, 2, 5, 6, 7}, {1, 2, 10, 12, 14}, 1, 0,
         "slab=700"},
        {"linear 2x, transposed input", DMLCL_OPERATOR_RESAMPLE1, 3, {3, 6, 5}, {3, 12, 10}, 1,
         2, "slab=100"},
        {"antialiased 0.5x", DMLCL_OPERATOR_RESAMPLE3, 4, {2, 3, 20, 24}, {2, 3, 10, 12}, 1, 0,
         "slab=400"},
        {"antialiased 0.4x channels-last", DMLCL_OPERATOR_RESAMPLE3, 4, {1, 8, 15, 10},
         {1, 8, 6, 4}, 1, 1, "slab=400"},
        {"GRAD1 of linear 2x", DMLCL_OPERATOR_RESAMPLE_GRAD1, 4, {2, 3, 9, 13}, {2, 3, 18, 26},
         1, 0, "slab=300"},
        {"GRAD1 of linear 2x channels-last", DMLCL_OPERATOR_RESAMPLE_GRAD1, 4, {2, 8, 5, 7},
         {2, 8, 10, 14}, 1, 1, "slab=400"},
        {"GRAD1 of trilinear 2x", DMLCL_OPERATOR_RESAMPLE_GRAD1, 5, {1, 2, 4, 5, 6},
         {1, 2, 8, 10, 12}, 1, 0, "slab=700"},
        /* nearest 4 -> 2 (pixel centres read 1 and 3): rows 0 and 2 read by none. */
        {"GRAD1 of nearest 0.5x, rows read by none", DMLCL_OPERATOR_RESAMPLE_GRAD1, 3,
         {2, 12, 8}, {2, 6, 4}, 0, 0, "slab=4"},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        store s;
        memset(&s, 0, sizeof s);
        scase c = resample_case(&s, cases[n].what, cases[n].type, cases[n].rank, cases[n].in,
                                cases[n].out, cases[n].mode, cases[n].layout, cases[n].slab);
        fix(&c, &s);
        split_equals_whole(&rng, &c);
    }
}
END_TEST

/* A transposed input no cut of the output's rows fits (each slab's input spans the
 * whole): the operator runs whole with 64-bit indices and says so. */
START_TEST(transposed_input_falls_back)
{
    uint64_t rng = 0xfa11;
    store s;
    memset(&s, 0, sizeof s);
    const uint32_t in[2] = {40, 30}, out[2] = {40, 30};
    scase c = resample_case(&s, "nearest identity, transposed, rows kept", DMLCL_OPERATOR_RESAMPLE1,
                            2, in, out, 0, 2, "slab=1000");
    fix(&c, &s);
    /* Resampled along both dimensions, every slab can be cut smaller: a reverse along
     * axis 1 keeps its lines whole, which a transposed input spreads over the whole. */
    c.n_in = 2;
    c.env = "DMLCL_RS_PLAN";
    s.ls[0] = 40, s.ls[1] = 1;
    strides_of(2, s.ls, 0, s.lstr);
    c.in[1] = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_UINT32, 2, s.ls, s.lstr, 0};
    s.rv = (dmlcl_reverse_subsequences_desc){NULL, NULL, NULL, 1};
    c.od = (dmlcl_operator_desc){DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &s.rv};
    c.what = "reverse, transposed input";
    c.fallback = 1;
    fix(&c, &s);
    split_equals_whole(&rng, &c);
}
END_TEST

/* REVERSE_SUBSEQUENCES: rows, the axis outer with broadcast lengths, int8 and fp16. */
START_TEST(reverse_split_equals_whole)
{
    uint64_t rng = 0x4e5e;
    static const struct {
        uint32_t rank, axis, sizes[3];
        dmlcl_tensor_data_type type;
        int broadcast;
        const char *slab;
    } cases[] = {
        {2, 1, {37, 40}, F32, 0, "slab=200"},
        {2, 1, {37, 40}, F32, 0, "slab=200,variant=chunks"}, /* the GPUs' variants */
        {3, 0, {12, 5, 9}, F32, 1, "slab=520,variant=generic"},
        {2, 1, {64, 33}, I8, 0, "slab=100"},
        {3, 0, {12, 5, 9}, F16, 1, "slab=520"},
        {3, 1, {4, 16, 7}, F32, 0, "slab=120"},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        store s;
        memset(&s, 0, sizeof s);
        scase c;
        memset(&c, 0, sizeof c);
        c.what = "reverse";
        c.n_in = 2;
        c.env = "DMLCL_RS_PLAN";
        c.slab = cases[n].slab;
        const uint32_t rank = cases[n].rank, axis = cases[n].axis;
        for (uint32_t d = 0; d < rank; d++) {
            s.is[d] = cases[n].sizes[d];
            s.ls[d] = d == axis ? 1 : s.is[d];
        }
        strides_of(rank, s.is, 0, s.istr);
        strides_of(rank, s.is, 0, s.ostr);
        strides_of(rank, s.ls, 0, s.lstr);
        if (cases[n].broadcast) /* one length per middle index */
            for (uint32_t d = 0; d < rank; d++)
                s.lstr[d] = d == 1 ? 1 : 0;
        c.in[0] = (dmlcl_tensor_desc){cases[n].type, rank, s.is, s.istr, 0};
        c.in[1] = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_UINT32, rank, s.ls, s.lstr, 0};
        c.out = (dmlcl_tensor_desc){cases[n].type, rank, s.is, s.ostr, 0};
        s.rv = (dmlcl_reverse_subsequences_desc){NULL, NULL, NULL, axis};
        c.od = (dmlcl_operator_desc){DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &s.rv};
        fix(&c, &s);
        split_equals_whole(&rng, &c);
    }
}
END_TEST

/* A tile of a larger tensor, split: the slabs are boxes of the logical tensors, within
 * the tiles. */
START_TEST(tiles_split_equal_whole)
{
    uint64_t rng = 0x711e;
    store s;
    memset(&s, 0, sizeof s);
    /* Logical: {2, 3, 16, 20} -> {2, 3, 32, 40}, linear 2x; the output tile rows 5..24,
     * columns 7..38 of channels 1..2, the input tile the box it reads. */
    const uint32_t lin[4] = {2, 3, 16, 20}, lout[4] = {2, 3, 32, 40};
    const uint32_t ostart[4] = {0, 1, 5, 7}, osz[4] = {2, 2, 20, 32};
    uint32_t istart[4], isz[4];
    dmlcl_tensor_desc ti = {F32, 4, lin, NULL, 0}, to = {F32, 4, lout, NULL, 0};
    float sc[4] = {1, 1, 2, 2};
    dmlcl_resample1_desc whole = {&ti, &to, LINEAR, 4, sc, pix_in, pix_out};
    dmlcl_operator_desc wod = {DMLCL_OPERATOR_RESAMPLE1, &whole};
    tu_assert_ok(dmlcl_operator_input_box(&wod, ostart, osz, istart, isz));
    scase c;
    memset(&c, 0, sizeof c);
    c.what = "a tile of linear 2x";
    c.n_in = 1;
    c.env = "DMLCL_RESAMPLE_PLAN";
    c.slab = "slab=300";
    memcpy(s.is, isz, sizeof isz);
    memcpy(s.os, osz, sizeof osz);
    memcpy(s.sc, sc, sizeof sc);
    strides_of(4, s.is, 0, s.istr);
    strides_of(4, s.os, 0, s.ostr);
    memcpy(s.tlog_in, lin, sizeof lin);
    memcpy(s.tlog_out, lout, sizeof lout);
    memcpy(s.tstart_in, istart, sizeof istart);
    memcpy(s.tstart_out, ostart, sizeof ostart);
    s.tin = (dmlcl_tile_desc){4, s.tlog_in, s.tstart_in};
    s.tout = (dmlcl_tile_desc){4, s.tlog_out, s.tstart_out};
    c.tile_in = &s.tin;
    c.tile_out = &s.tout;
    c.in[0] = (dmlcl_tensor_desc){F32, 4, s.is, s.istr, 0};
    c.out = (dmlcl_tensor_desc){F32, 4, s.os, s.ostr, 0};
    s.r1 = (dmlcl_resample1_desc){NULL, NULL, LINEAR, 4, s.sc, pix_in, pix_out};
    c.od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE1, &s.r1};
    fix(&c, &s);
    split_equals_whole(&rng, &c);
}
END_TEST

/* ---- randomized cases under a lowered bound against the C references --------------------- */

static void forget_overrides(void)
{
    unsetenv("DMLCL_RESAMPLE_PLAN");
    unsetenv("DMLCL_RS_PLAN");
}

START_TEST(resample1_slabs_against_reference)
{
    uint64_t rng = 0x5eed51ab;
    for (int n = 0; n < 12; n++) {
        rcase c = rc_random_case(&rng, (uint32_t)tu_range(&rng, 2, 4), n % 3 ? F32 : F16,
                                 n % 2 ? LINEAR : NEAREST, 2);
        char plan[32];
        snprintf(plan, sizeof plan, "slab=%u", (unsigned)tu_range(&rng, 8, 120));
        setenv("DMLCL_RESAMPLE_PLAN", plan, 1);
        rc_check_random(&rng, &c, n);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

START_TEST(grad1_slabs_against_reference)
{
    uint64_t rng = 0x9ad51ab;
    for (int n = 0; n < 10; n++) {
        gcase c = random_gcase(&rng, (uint32_t)tu_range(&rng, 2, 3), F32, n % 2 ? LINEAR : NEAREST);
        char plan[32];
        snprintf(plan, sizeof plan, "slab=%u", (unsigned)tu_range(&rng, 8, 80));
        setenv("DMLCL_RESAMPLE_PLAN", plan, 1);
        check_gcase(&rng, &c, n);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

START_TEST(reverse_slabs_against_reference)
{
    uint64_t rng = 0x7e51ab;
    for (int n = 0; n < 10; n++) {
        reverse_case c;
        memset(&c, 0, sizeof c);
        c.rank = (uint32_t)tu_range(&rng, 2, 3);
        c.axis = (uint32_t)tu_range(&rng, 0, c.rank - 1);
        c.type = n % 2 ? F32 : I8;
        c.elem = dmlcl_data_type_size(c.type);
        c.len_type = DMLCL_TENSOR_DATA_TYPE_UINT32;
        c.len_bytes = 4;
        for (uint32_t d = 0; d < c.rank; d++) {
            c.sizes[d] = (uint32_t)tu_range(&rng, 2, 12);
            c.len_sizes[d] = d == c.axis ? 1 : c.sizes[d];
        }
        tu_make_strides(&rng, (tu_layout)tu_range(&rng, 0, 2), c.rank, c.sizes, -1, c.in_str);
        tu_make_strides(&rng, (tu_layout)tu_range(&rng, 0, 1), c.rank, c.sizes, -1, c.out_str);
        tu_make_strides(&rng, TU_PACKED, c.rank, c.len_sizes, -1, c.len_str);
        const size_t in_span = tu_span(c.rank, c.sizes, c.in_str),
                     len_span = tu_span(c.rank, c.len_sizes, c.len_str),
                     out_span = tu_span(c.rank, c.sizes, c.out_str);
        unsigned char *in = malloc(in_span * c.elem), *lens = malloc(len_span * 4);
        for (size_t k = 0; k < in_span * c.elem; k++)
            in[k] = (unsigned char)tu_rand(&rng);
        for (size_t k = 0; k < len_span; k++) {
            uint32_t l = (uint32_t)tu_range(&rng, 0, c.sizes[c.axis] + 2);
            memcpy(lens + k * 4, &l, 4);
        }
        char plan[32];
        snprintf(plan, sizeof plan, "slab=%u", (unsigned)tu_range(&rng, 16, 60));
        setenv("DMLCL_RS_PLAN", plan, 1);
        dmlcl_tensor_desc ti = {c.type, c.rank, c.sizes, c.in_str, 0};
        dmlcl_tensor_desc tl = {c.len_type, c.rank, c.len_sizes, c.len_str, 0};
        dmlcl_tensor_desc to = {c.type, c.rank, c.sizes, c.out_str, 0};
        dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &to, c.axis};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
        dmlcl_operator *op = NULL;
        tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
        unsetenv("DMLCL_RS_PLAN");
        unsigned char *got = malloc(out_span * c.elem), *want = malloc(out_span * c.elem);
        memset(got, TU_FILL, out_span * c.elem);
        memset(want, TU_FILL, out_span * c.elem);
        const void *ins[2] = {in, lens};
        void *outs[1] = {got};
        tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
        reverse_reference(&c, in, lens, want);
        ck_assert_msg(!memcmp(got, want, out_span * c.elem), "case %d (plan %s) differs from "
                      "the reference", n, dmlcl_operator_plan(op));
        dmlcl_operator_release(op);
        free(in), free(lens), free(got), free(want);
    }
}
END_TEST

/* slab=0 turns slabs off; the key is refused out of range like any other. */
START_TEST(slab_override)
{
    const uint32_t sizes[2] = {20, 20};
    dmlcl_tensor_desc t = {F32, 2, sizes, NULL, 0};
    const float sc[2] = {1, 1};
    dmlcl_resample1_desc r1 = {&t, &t, LINEAR, 2, sc, rc_zeros, rc_zeros};
    dmlcl_tensor_desc o = t;
    r1.output_tensor = &o;
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
    dmlcl_operator *op = NULL;
    setenv("DMLCL_RESAMPLE_PLAN", "slab=0", 1);
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    ck_assert_msg(strncmp(dmlcl_operator_plan(op), "slabs=", 6), "%s", dmlcl_operator_plan(op));
    dmlcl_operator_release(op);
    setenv("DMLCL_RESAMPLE_PLAN", "slab=50", 1);
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    ck_assert_msg(!strncmp(dmlcl_operator_plan(op), "slabs=", 6), "%s", dmlcl_operator_plan(op));
    dmlcl_operator_release(op);
    op = NULL;
    setenv("DMLCL_RESAMPLE_PLAN", "slab=2147483649", 1);
    tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                    "slab=0..2147483648");
    ck_assert_ptr_null(op);
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Test hooks exported by the library: the classes' checks and the planner variables' reads
 * so far. */
uint64_t dmlcl_test_op_checks(void);
uint64_t dmlcl_test_override_reads(void);

/* One creation checks its operator and reads its planner variable once, however many
 * slabs it is made of: the parts take what the whole operator's check found. */
START_TEST(one_check_per_creation)
{
    const uint32_t sizes[2] = {20, 20};
    dmlcl_tensor_desc t = {F32, 2, sizes, NULL, 0};
    const float sc[2] = {1, 1};
    dmlcl_resample1_desc r1 = {&t, &t, LINEAR, 2, sc, rc_zeros, rc_zeros};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
    static const char *const plans[2] = {"slab=0", "slab=50"};
    for (int i = 0; i < 2; i++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[i], 1);
        dmlcl_operator *op = NULL;
        const uint64_t checks = dmlcl_test_op_checks(), reads = dmlcl_test_override_reads();
        tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
        const char *plan = dmlcl_operator_plan(op);
        if (i) /* 400 elements in slabs of at most 50: eight parts or more */
            ck_assert_msg(strtoull(plan + strlen("slabs="), NULL, 10) >= 8, "%s", plan);
        ck_assert_uint_eq(dmlcl_test_op_checks() - checks, 1);
        ck_assert_uint_eq(dmlcl_test_override_reads() - reads, 1);
        dmlcl_operator_release(op);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

uint64_t dmlcl_test_resample_plans(void);

/* A split operator created again takes every part's plans and table from the context's
 * memo: the first creation plans each part once, the second none of them. */
START_TEST(split_operator_again_plans_nothing)
{
    const uint32_t sizes[2] = {20, 20};
    dmlcl_tensor_desc t = {F32, 2, sizes, NULL, 0};
    const float sc[2] = {1, 1}, off[2] = {0.25f, 0};
    dmlcl_resample1_desc r1 = {&t, &t, LINEAR, 2, sc, off, rc_zeros};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
    setenv("DMLCL_RESAMPLE_PLAN", "slab=50", 1);
    for (int i = 0; i < 2; i++) {
        dmlcl_operator *op = NULL;
        const uint64_t plans = dmlcl_test_resample_plans();
        tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
        const char *plan = dmlcl_operator_plan(op);
        const uint64_t parts = strtoull(plan + strlen("slabs="), NULL, 10);
        ck_assert_msg(parts >= 8, "%s", plan);
        ck_assert_uint_eq(dmlcl_test_resample_plans() - plans, i ? 0 : parts);
        dmlcl_operator_release(op);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The parts of one operator share their planner's sampled searches where they read the
 * same (a cut along a dimension the searches do not read): with the specialised
 * programs, which compile the searches' results in (the rows kernels' window and pairs,
 * the CPU row blocks' lane patterns), the parts still compute the whole's bits. */
START_TEST(parts_share_their_searches)
{
    uint64_t rng = 0x5ea4;
    static const struct {
        const char *what;
        uint32_t rank, in[5], out[5];
        const char *slab, *shows;
    } cases[] = {
        {"linear 2x NCHW, rows kernels", 4, {3, 3, 6, 40}, {3, 3, 12, 80},
         "slab=3000,rows=1,win=1,pair=1", "-DPAIR_K="},
        {"linear 2x NCHW, CPU row blocks", 4, {3, 3, 6, 64}, {3, 3, 12, 128}, "slab=5000",
         "-DCR_PL="},
        {"trilinear 2x, CPU row blocks", 5, {3, 2, 3, 4, 32}, {3, 2, 6, 8, 64}, "slab=7000",
         "-DCR_PL="},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        /* The row blocks are CPUs' kernels: a GPU's planner never takes them. */
        if (strstr(cases[n].what, "CPU row blocks") && !tu_context()->info.is_cpu)
            continue;
        store s;
        memset(&s, 0, sizeof s);
        scase c = resample_case(&s, cases[n].what, DMLCL_OPERATOR_RESAMPLE1, cases[n].rank,
                                cases[n].in, cases[n].out, 1, 0, cases[n].slab);
        c.shows = cases[n].shows;
        fix(&c, &s);
        split_equals_whole(&rng, &c);
    }
}
END_TEST

/* ---- one split operator run from several threads at once ------------------------------- */

typedef struct {
    dmlcl_operator *op;
    const float *in, *want;
    size_t out_n;
    int bad;
    char error[256];
} runner;

static void *run_repeatedly(void *arg)
{
    runner *r = arg;
    float *got = malloc(r->out_n * sizeof *got);
    for (int i = 0; i < 20 && !r->bad; i++) {
        const void *ins[1] = {r->in};
        void *outs[1] = {got};
        memset(got, 0xff, r->out_n * sizeof *got);
        if (dmlcl_operator_execute_host(r->op, ins, outs) != DMLCL_SUCCESS)
            r->bad = 1, snprintf(r->error, sizeof r->error, "%s", dmlcl_last_error());
        else if (memcmp(got, r->want, r->out_n * sizeof *got))
            r->bad = 1, snprintf(r->error, sizeof r->error, "run %d differs from the whole's", i);
    }
    free(got);
    return NULL;
}

/* The parts' one cl_kernel takes each launch's buffers as arguments: four threads running
 * one split operator at once, each on its own arrays, each get the whole run's bytes (the
 * operator's lock keeps one run's arguments from another's launches). */
START_TEST(threads_run_one_split_operator)
{
    const uint32_t is[4] = {2, 3, 9, 13}, os[4] = {2, 3, 18, 26};
    const float sc[4] = {1, 1, 2, 2};
    dmlcl_tensor_desc ti = {F32, 4, is, NULL, 0}, to = {F32, 4, os, NULL, 0};
    dmlcl_resample1_desc r1 = {&ti, &to, LINEAR, 4, sc, pix_in, pix_out};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
    enum { IN_N = 2 * 3 * 9 * 13, OUT_N = 2 * 3 * 18 * 26, THREADS = 4 };
    static float in[IN_N], want[OUT_N];
    for (int k = 0; k < IN_N; k++)
        in[k] = (float)(k % 37) / 4;
    dmlcl_operator *whole = NULL, *split = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &whole));
    const void *ins[1] = {in};
    void *outs[1] = {want};
    tu_assert_ok(dmlcl_operator_execute_host(whole, ins, outs));
    dmlcl_operator_release(whole);
    setenv("DMLCL_RESAMPLE_PLAN", "slab=300", 1);
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &split));
    unsetenv("DMLCL_RESAMPLE_PLAN");
    ck_assert_msg(strtoull(dmlcl_operator_plan(split) + strlen("slabs="), NULL, 10) >= 4, "%s",
                  dmlcl_operator_plan(split));
    pthread_t t[THREADS];
    runner r[THREADS];
    for (int i = 0; i < THREADS; i++) {
        r[i] = (runner){split, in, want, OUT_N, 0, ""};
        ck_assert_int_eq(pthread_create(&t[i], NULL, run_repeatedly, &r[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        ck_assert_msg(!r[i].bad, "thread %d: %s", i, r[i].error);
    dmlcl_operator_release(split);
}
END_TEST

Suite *slabs_suite(void)
{
    Suite *s = suite_create("slabs");
    TCase *tc = tcase_create("slabs");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, NULL, forget_overrides);
    tcase_add_test(tc, resample_split_equals_whole);
    tcase_add_test(tc, transposed_input_falls_back);
    tcase_add_test(tc, reverse_split_equals_whole);
    tcase_add_test(tc, tiles_split_equal_whole);
    tcase_add_test(tc, resample1_slabs_against_reference);
    tcase_add_test(tc, grad1_slabs_against_reference);
    tcase_add_test(tc, reverse_slabs_against_reference);
    tcase_add_test(tc, slab_override);
    tcase_add_test(tc, one_check_per_creation);
    tcase_add_test(tc, split_operator_again_plans_nothing);
    tcase_add_test(tc, threads_run_one_split_operator);
    suite_add_tcase(s, tc);
    TCase *sp = tcase_create("specialised");
    tcase_set_timeout(sp, 300);
    tcase_add_checked_fixture(sp, tu_specialize_sync, tu_specialize_restore);
    tcase_add_checked_fixture(sp, NULL, forget_overrides);
    tcase_add_test(sp, parts_share_their_searches);
    suite_add_tcase(s, sp);
    return s;
}
