/* RESAMPLE1's kernel layouts, each forced through $DMLCL_RESAMPLE_PLAN on the test
 * device and checked against the C reference (resample1_case.c): units of every size,
 * the 2-D row kernels with and without windows and pairs, the segment kernels, vector
 * loads along channels-last runs, 64-bit indices. */
#include "resample1_case.h"
#include "core/context.h" /* white-box: the device's FLOAT64 support */

/* Units along a pass-through inner run (channels-last input and output), forced with
 * $DMLCL_RESAMPLE_PLAN: a unit's inputs come as one vector load per corner where the run,
 * the strides and the binding offset are aligned (C = 8 and 16), and element by element
 * where not (C = 6, a binding offset of one element). Every data type, both modes. */
START_TEST(channels_last_vector_loads)
{
    static const char *const plans[] = {"rows=0,seg=0,v=4", "rows=0,seg=0,v=8"};
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8, I8, F64};
    static const uint32_t channels[] = {8, 16, 6};
    uint64_t rng = 0xc1a5;
    for (int n = 0; n < 12; n++) { /* every type under both plans, both modes; 16-bit linear */
        const dmlcl_tensor_data_type t = n < 10 ? types[n % 5] : n == 10 ? I16 : U16;
        if (t == F64 && !tu_context()->info.has_fp64)
            continue;
        setenv("DMLCL_RESAMPLE_PLAN", plans[n % 2], 1);
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = 4;
        c.type = t;
        c.mode = n % 4 < 2 || n >= 10 ? LINEAR : NEAREST;
        c.elem = dmlcl_data_type_size(t);
        const uint32_t ch = channels[n % 3];
        const uint32_t is[4] = {2, ch, 5, 6}, os[4] = {2, ch, 10, 9};
        memcpy(c.in_sizes, is, sizeof is);
        memcpy(c.out_sizes, os, sizeof os);
        for (int d = 0; d < 4; d++)
            c.scales[d] = (float)os[d] / (float)is[d];
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        tu_channels_last(4, c.in_sizes, c.in_str);
        tu_channels_last(4, c.out_sizes, c.out_str);
        c.in_off = n == 7 ? 1 : 0;
        dmlcl_operator *op = rc_make_op(&c, 0);
        ck_assert_msg(strstr(dmlcl_operator_plan(op), "inner=p") != NULL, "%s",
                      dmlcl_operator_plan(op));
        dmlcl_operator_release(op);
        rc_check_random(&rng, &c, n);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Every launch shape the planner can pick on any device, forced here through
 * $DMLCL_RESAMPLE_PLAN on the test device: the 2-D row kernels (GPUs' choice),
 * units of an odd size with partial units at every row's end, and the segment kernels
 * (CPUs' choice for nearest) with segments of 7 and 64. Rows of 100 and 33
 * outputs (not multiples of 4), a padded output with an odd binding offset (no vector
 * stores there) and a channels-last input. */
START_TEST(every_launch_shape)
{
    static const char *const plans[] = {"rows=1,rb=3", "rows=1,wg=32,win=1", "v=3,wg=32",
                                        "rows=0,seg=0,v=4", "seg=7", "seg=64,wg=32"};
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8};
    uint64_t rng = 0x5a9e;
    for (size_t pl = 0; pl < sizeof plans / sizeof plans[0]; pl++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[pl], 1);
        /* Half the cases per plan, the other half under its neighbour, which runs the same
         * kernel file: every type and mode in each kernel, both modes under each plan. */
        for (int n = (int)(pl % 2); n < 6; n += 2) {
            rcase c;
            memset(&c, 0, sizeof c);
            c.rank = 3;
            c.type = types[n % 3];
            c.mode = n < 3 ? LINEAR : NEAREST;
            c.elem = c.type == F32 ? 4 : c.type == F16 ? 2 : 1;
            const uint32_t is[3] = {2, 23, 47}, os[3] = {2, 40, n % 3 ? 100 : 33};
            memcpy(c.in_sizes, is, sizeof is);
            memcpy(c.out_sizes, os, sizeof os);
            c.scales[0] = 1;
            c.scales[1] = 40.0f / 23;
            c.scales[2] = (float)os[2] / 47;
            memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
            memcpy(c.opo, tu_pix_out, sizeof c.opo);
            if (n % 2)
                tu_channels_last(3, c.in_sizes, c.in_str);
            else
                tu_make_strides(&rng, TU_PACKED, 3, c.in_sizes, -1, c.in_str);
            tu_make_strides(&rng, n == 2 ? TU_PADDED : TU_PACKED, 3, c.out_sizes, -1,
                            c.out_str);
            c.out_off = n == 2 ? 1 : 0;
            if (pl < 2 && os[2] >= 64) {
                dmlcl_operator *op = rc_make_op(&c, 0);
                ck_assert_msg(strstr(dmlcl_operator_plan(op), "-rows") != NULL, "%s: %s",
                              plans[pl], dmlcl_operator_plan(op));
                dmlcl_operator_release(op);
            }
            rc_check_random(&rng, &c, n);
        }
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The 16-bit integers' loads and stores in the row kernel (vector stores of RV results)
 * and the segment kernel, each type in each (every_launch_shape's shapes, linear). */
START_TEST(sixteen_bit_rows_and_segments)
{
    static const char *const plans[] = {"rows=1", "rows=0,seg=7"};
    uint64_t rng = 0x1616;
    for (int n = 0; n < 4; n++) {
        setenv("DMLCL_RESAMPLE_PLAN", plans[n / 2], 1);
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = 3;
        c.type = n % 2 ? U16 : I16;
        c.mode = LINEAR;
        c.elem = 2;
        const uint32_t is[3] = {2, 23, 47}, os[3] = {2, 40, 100};
        memcpy(c.in_sizes, is, sizeof is);
        memcpy(c.out_sizes, os, sizeof os);
        c.scales[0] = 1;
        c.scales[1] = 40.0f / 23;
        c.scales[2] = 100.0f / 47;
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        tu_make_strides(&rng, TU_PACKED, 3, c.in_sizes, -1, c.in_str);
        tu_make_strides(&rng, TU_PACKED, 3, c.out_sizes, -1, c.out_str);
        dmlcl_operator *op = rc_make_op(&c, 0);
        ck_assert_msg(strstr(dmlcl_operator_plan(op), n < 2 ? "-rows" : "-seg") != NULL, "%s: %s",
                      plans[n / 2], dmlcl_operator_plan(op));
        dmlcl_operator_release(op);
        rc_check_random(&rng, &c, n);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* The row kernels' window (rows=1 forces them here; rv=4 keeps 4 outputs per item where
 * the planner takes 8, for an inner dimension upsampled 2x or more; rv=16 takes 16),
 * pixel-centre LINEAR: upsampling by 2
 * and 4 along the inner dimension, a volume, the inner dimension first among the
 * resampled ones (transposed output), a pass-through dimension between the resampled
 * ones (its index split off first: PASS_INNER), one resampled dimension only; output rows
 * in pairs sharing their window (H upsampled by 2 and by 4), and without; by 1.5 no window unless forced with win=1, where
 * only some items fit and the others take the corner path in the same launch. */
/* The case again with +Inf in every fifth input element (the float types): the kernels
 * sum a window or a unit without the choice per term only where that is exact, and an
 * Inf at a weight-0 corner (the clamped edges) must give the reference's Inf, not NaN. */
static void check_with_infinities(uint64_t *rng, const rcase *c, int n)
{
    if (c->type != F32 && c->type != F16)
        return;
    size_t in_bytes, out_bytes;
    unsigned char *in = rc_random_input(rng, c, &in_bytes);
    const uint32_t f32_inf = 0x7f800000u;
    const uint16_t f16_inf = 0x7c00u;
    for (size_t at = 0; at + c->elem <= in_bytes; at += 5 * (size_t)c->elem)
        memcpy(in + at, c->type == F32 ? (const void *)&f32_inf : (const void *)&f16_inf,
               c->elem);
    char what[64];
    snprintf(what, sizeof what, "case %d, with infinities", n);
    free(rc_run_case(c, in, 0, what, &out_bytes));
    free(in);
}

/* Channels-last pairs (the GPUs' units kernel, forced here with rows=0,seg=0): output
 * pixels that read the same corner pixels (nearest: the same pixel), up to 2 along W by 2
 * along H, share each corner's vector load. H and W by 2, by 3 and 1.5, one resampled
 * dimension (pairs in one), a run of 6 under units of 4 (vectors unaligned: each pixel's
 * own loads), a run of 12 under units of 8 (a partial unit), an odd input offset,
 * downsampling (no pairs) and pair=0, LINEAR (again with infinities) and nearest. */
START_TEST(channels_last_pairs)
{
    static const struct {
        uint32_t in[4], out[4], in_off;
        const char *plan, *want, *lacks;
    } cases[] = {
        {{2, 8, 5, 6}, {2, 8, 10, 12}, 0, "rows=0,seg=0,v=8", "-DPAIR_K=1 -DPAIR_K2=0", NULL},
        {{1, 8, 5, 6}, {1, 8, 15, 9}, 0, "rows=0,seg=0,v=8", "-DPAIR_K=1 -DPAIR_K2=0", NULL},
        {{2, 8, 5, 6}, {2, 8, 5, 12}, 0, "rows=0,seg=0,v=8", "-DPAIR_K=0", "PAIR_K2"},
        {{2, 6, 5, 6}, {2, 6, 10, 12}, 0, "rows=0,seg=0,v=4", "-DPAIR_K=1 -DPAIR_K2=0", NULL},
        {{2, 12, 5, 6}, {2, 12, 10, 12}, 0, "rows=0,seg=0,v=8", "-DPAIR_K2=0", NULL},
        {{2, 8, 5, 6}, {2, 8, 10, 12}, 1, "rows=0,seg=0,v=8", "-DPAIR_K2=0", NULL},
        {{2, 8, 10, 12}, {2, 8, 5, 6}, 0, "rows=0,seg=0,v=8", NULL, "PAIR_K"},
        {{2, 8, 5, 6}, {2, 8, 10, 12}, 0, "rows=0,seg=0,v=8,pair=0", NULL, "PAIR_K"},
    };
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8, I16};
    const size_t ncases = sizeof cases / sizeof cases[0];
    uint64_t rng = 0x9a15;
    for (size_t m = 0; m < 2 * ncases; m++) {
        const size_t n = m % ncases;
        setenv("DMLCL_RESAMPLE_PLAN", cases[n].plan, 1);
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = 4;
        c.type = types[m % 4];
        c.mode = m < ncases ? LINEAR : NEAREST;
        c.elem = dmlcl_data_type_size(c.type);
        memcpy(c.in_sizes, cases[n].in, sizeof cases[n].in);
        memcpy(c.out_sizes, cases[n].out, sizeof cases[n].out);
        for (int d = 0; d < 4; d++)
            c.scales[d] = (float)c.out_sizes[d] / (float)c.in_sizes[d];
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        tu_channels_last(4, c.in_sizes, c.in_str);
        tu_channels_last(4, c.out_sizes, c.out_str);
        c.in_off = cases[n].in_off;
        dmlcl_operator *op = rc_make_op(&c, 0);
        const char *plan = dmlcl_operator_plan(op);
        /* (Nearest 0.5x is a strided copy.) */
        ck_assert_msg(strstr(plan, c.mode == LINEAR ? "variant=linear " : "variant=gather ") ||
                          (c.mode == NEAREST && cases[n].lacks && strstr(plan, "variant=copy ")),
                      "case %zu: %s", m, plan);
        ck_assert_msg(!cases[n].want || strstr(plan, cases[n].want), "case %zu: %s", m, plan);
        ck_assert_msg(!cases[n].lacks || !strstr(plan, cases[n].lacks), "case %zu: %s", m, plan);
        dmlcl_operator_release(op);
        rc_check_random(&rng, &c, (int)m);
        if (c.mode == LINEAR)
            check_with_infinities(&rng, &c, (int)m);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Case n's plan: the row kernel named, with the window options want (NULL: none). */
static void check_window_plan(const rcase *c, size_t n, const char *kernel, const char *want)
{
    dmlcl_operator *op = rc_make_op(c, 0);
    const char *plan = dmlcl_operator_plan(op);
    ck_assert_msg(strstr(plan, kernel) != NULL, "case %zu: %s", n, plan);
    if (want)
        ck_assert_msg(strstr(plan, want) != NULL, "case %zu: %s", n, plan);
    else
        ck_assert_msg(strstr(plan, "-DWIN") == NULL, "case %zu: %s", n, plan);
    dmlcl_operator_release(op);
}

START_TEST(row_windows)
{
    static const struct {
        uint32_t rank, in[5], out[5];
        int transposed;
        const char *plan, *want;
    } cases[] = {
        {4, {1, 2, 9, 40}, {1, 2, 18, 80}, 0, "rows=1,rv=4", "-DWPAT=0x2110 -DWIN=4 -DPAIR_K=0"},
        {4, {1, 2, 9, 40}, {1, 2, 18, 80}, 0, "rows=1,pair=0,rv=4", "-DWIN=4'"},
        {4, {1, 2, 7, 40}, {1, 2, 28, 80}, 0, "rows=1,rv=4", "-DPAIR_K=0"},
        {4, {1, 1, 5, 17}, {1, 1, 20, 68}, 0, "rows=1,rv=4", "-DWPAT=0x1100 -DWIN=3"},
        {5, {1, 2, 5, 6, 40}, {1, 2, 10, 12, 80}, 0, "rows=1,rv=4", "-DWPAT=0x2110 -DWIN=4"},
        {3, {2, 40, 30}, {2, 80, 60}, 1, "rows=1,rv=4", "-DINNER_K=0"},
        {4, {2, 9, 3, 40}, {2, 18, 3, 80}, 0, "rows=1,rv=4", "-DPASS_INNER=1 -DWPAT=0x2110"},
        {3, {4, 6, 40}, {4, 6, 80}, 0, "rows=1,rv=4", "-DWPAT=0x2110 -DWIN=4"},
        {4, {1, 2, 9, 50}, {1, 2, 18, 75}, 0, "rows=1,win=1", "-DWIN="},
        {4, {1, 2, 9, 50}, {1, 2, 18, 75}, 0, "rows=1,rv=4", NULL},
        /* 8, 12 and 16 outputs per item (rv=N): wider windows, shared by more outputs;
         * 12 the default where columns repeat every 3 outputs (1.5x, the last item of 75
         * partial; 3x). */
        {4, {1, 2, 9, 50}, {1, 2, 18, 75}, 0, "rows=1",
         "-DWPAT=0x876654432210 -DWIN=10 -DRV=12 -DPAIR_K=0"},
        {4, {1, 2, 6, 40}, {1, 2, 18, 120}, 0, "rows=1", "-DWIN=6 -DRV=12"},
        /* 12 without the window: each output's own corners (the generic program that runs
         * while a 1.5x plan's window is compiled has this shape). */
        {4, {1, 2, 9, 50}, {1, 2, 18, 75}, 0, "rows=1,rv=12,win=0", NULL},
        {4, {1, 2, 9, 40}, {1, 2, 18, 80}, 0, "rows=1", /* 8: the default for 2x */
         "-DWPAT=0x43322110 -DWIN=6 -DRV=8 -DPAIR_K=0"},
        {4, {1, 2, 9, 44}, {1, 2, 18, 88}, 0, "rows=1,rv=16,pair=0",
         "-DWPAT=0x8776655443322110 -DWIN=10 -DRV=16'"},
        {5, {1, 2, 5, 6, 40}, {1, 2, 10, 12, 80}, 0, "rows=1,rv=8", "-DWIN=6 -DRV=8"},
        {4, {1, 2, 9, 50}, {1, 2, 18, 75}, 0, "rows=1,win=1,rv=8", "-DRV=8"},
        /* Blocks of consecutive rows per item (rb=N), the last block of each item's range
         * short, blocks across planes: groups of paired rows, single rows (a new plane
         * within a block), a volume (a new depth within a block), the corner path. */
        {4, {1, 2, 9, 40}, {1, 2, 18, 80}, 0, "rows=1,rv=4,rb=3", "-DPAIR_K=0 -DRB=3'"},
        {4, {1, 2, 7, 40}, {1, 2, 28, 80}, 0, "rows=1,pair=0,rb=5", "-DRV=8 -DRB=5'"},
        {5, {1, 2, 5, 6, 40}, {1, 2, 10, 12, 80}, 0, "rows=1,pair=0,rb=4", "-DRV=8 -DRB=4'"},
        {4, {1, 2, 9, 50}, {1, 2, 18, 75}, 0, "rows=1,rb=16", "-DRB=16"},
        /* Pairs in two dimensions (pair=2): up to 4 rows from one window load; D by 3
         * (groups of 1 and 2), a pass-through dimension between, blocks of groups, the
         * corner path beside the window (win=1 at 1.5), and an image (one pair slot). */
        {5, {1, 2, 5, 6, 40}, {1, 2, 10, 12, 80}, 0, "rows=1,rv=4,pair=2",
         "-DPAIR_K=1 -DPAIR_K2=0"},
        {5, {1, 2, 5, 7, 40}, {1, 2, 15, 14, 80}, 0, "rows=1,pair=2,rv=8",
         "-DRV=8 -DPAIR_K=1 -DPAIR_K2=0 -DRB=2 -DWPLAIN=1'"},
        {5, {2, 5, 3, 6, 40}, {2, 10, 3, 12, 80}, 0, "rows=1,pair=2,rb=3",
         "-DPAIR_K2=0 -DRB=3 -DWPLAIN=1'"},
        {5, {1, 2, 5, 6, 50}, {1, 2, 10, 12, 75}, 0, "rows=1,win=1,pair=2", "-DPAIR_K2=0"},
        {4, {1, 2, 9, 40}, {1, 2, 18, 80}, 0, "rows=1,pair=2", "-DPAIR_K=0 -DRB=2'"},
        /* A volume's default: 4 outputs per item, pairs in both outer dimensions, the
         * window's plain sum (redone with the choice where a result is not finite); the
         * choice alone (wplain=0); the plain sum for an image (wplain=1). */
        {5, {1, 2, 5, 6, 40}, {1, 2, 10, 12, 80}, 0, "rows=1",
         "-DWIN=4 -DPAIR_K=1 -DPAIR_K2=0 -DRB=2 -DWPLAIN=1'"},
        {5, {2, 5, 3, 7, 40}, {2, 15, 3, 14, 80}, 0, "rows=1,wplain=0", "-DPAIR_K2=0 -DRB=2'"},
        {4, {1, 2, 9, 40}, {1, 2, 18, 80}, 0, "rows=1,wplain=1", "-DPAIR_K=0 -DRB=2 -DWPLAIN=1'"},
    };
    static const dmlcl_tensor_data_type types[] = {F32, F16, U8};
    uint64_t rng = 0x3d1;
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        setenv("DMLCL_RESAMPLE_PLAN", cases[n].plan, 1);
        /* The types in turn, a case each: the window is the scale's, the loads and
         * stores the type's (each case and type is a program of its own). */
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = cases[n].rank;
        c.type = types[n % 3];
        c.mode = LINEAR;
        c.elem = c.type == F32 ? 4 : c.type == F16 ? 2 : 1;
        memcpy(c.in_sizes, cases[n].in, sizeof cases[n].in);
        memcpy(c.out_sizes, cases[n].out, sizeof cases[n].out);
        for (uint32_t d = 0; d < c.rank; d++)
            c.scales[d] = (float)c.out_sizes[d] / (float)c.in_sizes[d];
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        tu_make_strides(&rng, TU_PACKED, c.rank, c.in_sizes, -1, c.in_str);
        tu_make_strides(&rng, TU_PACKED, c.rank, c.out_sizes, -1, c.out_str);
        if (cases[n].transposed) { /* the output steps through dimension 1 fastest */
            c.out_str[1] = 1;
            c.out_str[2] = c.out_sizes[1];
        }
        check_window_plan(&c, n, "linear-rows", cases[n].want);
        rc_check_random(&rng, &c, (int)n);
        check_with_infinities(&rng, &c, (int)n);
    }
    /* The keys' ranges: a bad value is refused at creation, with the keys it takes. */
    static const char *const bad[] = {"win=2", "pair=3", "gpc=0", "gpc=4097", "rv=5", "slab=2147483649"};
    rcase c;
    memset(&c, 0, sizeof c);
    c.rank = 2, c.type = F32, c.mode = LINEAR, c.elem = 4;
    c.in_sizes[0] = c.in_sizes[1] = 2;
    c.out_sizes[0] = c.out_sizes[1] = 4;
    c.scales[0] = c.scales[1] = 2;
    tu_make_strides(&rng, TU_PACKED, 2, c.in_sizes, -1, c.in_str);
    tu_make_strides(&rng, TU_PACKED, 2, c.out_sizes, -1, c.out_str);
    for (size_t n = 0; n < sizeof bad / sizeof bad[0]; n++) {
        setenv("DMLCL_RESAMPLE_PLAN", bad[n], 1);
        dmlcl_tensor_desc ti, to;
        rc_descs(&c, &ti, &to);
        dmlcl_resample1_desc r1 = {&ti, &to, LINEAR, 2, c.scales, c.ipo, c.opo};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
        dmlcl_operator *op = NULL;
        tu_assert_fails(dmlcl_operator_create(tu_context(), &od, &op), DMLCL_INVALID_ARGUMENT,
                        "resample1: DMLCL_RESAMPLE_PLAN must be key=value pairs (v=1..64, "
                        "wg=1..4096, rows=0|1, seg=0..65536, win=0|1, pair=0|1|2, gpc=1..4096, "
                        "cpu=0..65536, nt=0|1, tp=0|1, rv=4|8|12|16, slab=0..2147483648, "
                        "rb=1..16, wplain=0|1, regs=0..255, xc=1..8)");
        ck_assert_ptr_null(op);
    }
    unsetenv("DMLCL_RESAMPLE_PLAN");
}
END_TEST

/* Nearest's row window (rows=1 forces the row kernel): an item's 8 outputs read WIN
 * consecutive input columns, loaded once a row, as 4-element vectors from the first
 * multiple of 4 (WPH: where unit 1's first column lies past one). Upsampled 2x, pixel
 * centres (WPH 0: one vector), the input shifted by 1 and 2 (WPH 3, the row's first item
 * clamped; WPH 2, single loads); rows of 41 (every second row off the vectors' alignment),
 * a binding offset of 1 (every row off it), an input whose rows are not contiguous (H
 * fastest: single loads), 1.5x with the window forced (some items fit, the rest read
 * their own columns), and win=0. */
START_TEST(nearest_row_windows)
{
    static const struct {
        uint32_t in[4], out[4];
        float in_offset;
        int in_off, h_fastest;
        dmlcl_tensor_data_type type;
        const char *plan, *want;
    } cases[] = {
        {{1, 2, 9, 40}, {1, 2, 18, 80}, 0.5f, 0, 0, F32, "rows=1", "-DWIN=4 -DWPH=0"},
        {{1, 2, 9, 40}, {1, 2, 18, 80}, 1.0f, 0, 0, F16, "rows=1", "-DWIN=5 -DWPH=3"},
        {{1, 2, 9, 40}, {1, 2, 18, 80}, 2.0f, 0, 0, I8, "rows=1", "-DWIN=5 -DWPH=2"},
        {{1, 2, 9, 41}, {1, 2, 18, 82}, 0.5f, 0, 0, U8, "rows=1", "-DWIN=4 -DWPH=0"},
        {{1, 2, 9, 40}, {1, 2, 18, 80}, 0.5f, 1, 0, F64, "rows=1", "-DWIN=4 -DWPH=0"},
        {{1, 2, 9, 40}, {1, 2, 18, 80}, 1.0f, 0, 1, F32, "rows=1", "-DWIN=5 -DWPH=3"},
        {{1, 2, 9, 80}, {1, 2, 18, 120}, 0.5f, 0, 0, F32, "rows=1,win=1", "-DWIN="},
        {{1, 2, 9, 40}, {1, 2, 18, 80}, 0.5f, 0, 0, F32, "rows=1,win=0", NULL},
    };
    uint64_t rng = 0x7e4;
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        setenv("DMLCL_RESAMPLE_PLAN", cases[n].plan, 1);
        rcase c;
        memset(&c, 0, sizeof c);
        c.rank = 4;
        c.type = cases[n].type;
        c.mode = NEAREST;
        c.elem = dmlcl_data_type_size(c.type);
        memcpy(c.in_sizes, cases[n].in, sizeof cases[n].in);
        memcpy(c.out_sizes, cases[n].out, sizeof cases[n].out);
        for (uint32_t d = 0; d < 4; d++)
            c.scales[d] = (float)c.out_sizes[d] / (float)c.in_sizes[d];
        memcpy(c.ipo, tu_pix_in, sizeof c.ipo);
        memcpy(c.opo, tu_pix_out, sizeof c.opo);
        c.ipo[3] = cases[n].in_offset;
        c.in_off = (size_t)cases[n].in_off;
        tu_make_strides(&rng, TU_PACKED, 4, c.in_sizes, -1, c.in_str);
        tu_make_strides(&rng, TU_PACKED, 4, c.out_sizes, -1, c.out_str);
        if (cases[n].h_fastest) { /* the input steps through H fastest, then W */
            c.in_str[2] = 1;
            c.in_str[3] = c.in_sizes[2];
        }
        check_window_plan(&c, n, "gather-rows", cases[n].want);
        rc_check_random(&rng, &c, (int)n);
    }
}
END_TEST

/* The 64-bit index kernels (forced: real 2^32-element tensors do not fit a test). */
START_TEST(index64_kernels)
{
    uint64_t rng = 0x64;
    dmlcl_test_resample_force_idx64(1);
    rcase probe = rc_random_case(&rng, 2, F32, LINEAR, 1);
    dmlcl_operator *op = rc_make_op(&probe, 0);
    ck_assert_ptr_nonnull(strstr(dmlcl_operator_plan(op), "-DIDX64=1"));
    dmlcl_operator_release(op);
    for (int n = 0; n < 6; n++) {
        rcase c = rc_random_case(&rng, (uint32_t)tu_range(&rng, 2, 5), n < 3 ? F16 : F32,
                              n % 2 ? LINEAR : NEAREST, 2);
        rc_check_random(&rng, &c, n);
    }
    dmlcl_test_resample_force_idx64(0);
}
END_TEST

/* DirectML's v0 equals RESAMPLE1 with offsets 0.5 / -0.5, bit for bit. */
Suite *resample1_layouts_suite(void)
{
    Suite *s = suite_create("resample1_layouts");
    TCase *tc = tcase_create("layouts");
    tcase_add_checked_fixture(tc, NULL, rc_forget_plan_override);
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, NULL, rc_report_exactness);
    tcase_add_test(tc, every_launch_shape);
    tcase_add_test(tc, channels_last_vector_loads);
    tcase_add_test(tc, sixteen_bit_rows_and_segments);
    tcase_add_test(tc, index64_kernels);
    suite_add_tcase(s, tc);
    /* The windows and row pairs are constants of the specialised programs. */
    TCase *rw = tcase_create("row_windows");
    tcase_add_checked_fixture(rw, NULL, rc_forget_plan_override);
    tcase_add_checked_fixture(rw, tu_specialize_sync, tu_specialize_restore);
    tcase_set_timeout(rw, 300);
    tcase_add_unchecked_fixture(rw, NULL, rc_report_exactness);
    tcase_add_test(rw, row_windows);
    tcase_add_test(rw, channels_last_pairs);
    tcase_add_test(rw, nearest_row_windows);
    suite_add_tcase(s, rw);
    return s;
}
