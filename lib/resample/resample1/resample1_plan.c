/* RESAMPLE1 planner: host-side coordinate tables, dimension classification and collapsing,
 * variant choice. Pure C: no OpenCL calls (tests/check_resample1_planner.c). */
#include "resample/resample1/resample1_plan.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One dimension's map (coord.h's axis, of the logical sizes) and where the tiles start (0
 * for whole tensors): coordinates are computed from global indices, so a tile's rows are
 * the whole run's, shifted to the input tile's first element. */
typedef struct {
    dmlcl__resample_axis ax;
    uint64_t o0, i0;
} dim_fn;

static dim_fn whole_fn(const dmlcl__tensor *in, const dmlcl__tensor *out, uint32_t d, int linear,
                       dmlcl__nearest_rule rule, const float *scales, const float *in_offsets,
                       const float *out_offsets)
{
    return (dim_fn){dmlcl__resample_axis_make(linear, rule, in->whole[d], out->whole[d],
                                              scales[d], in_offsets[d], out_offsets[d]),
                    0, 0};
}

/* One table row: the input index and (LINEAR) the weight of index + 1. */
static uint32_t row(const dim_fn *f, uint64_t o, float *w)
{
    const uint32_t i = dmlcl__resample_axis_read(&f->ax, o + f->o0, w);
    return (uint32_t)(i - f->i0); /* the halo check keeps it within the input tile */
}

/* Resampled slot k's map. */
static dim_fn slot_fn(const dmlcl__resample1_plan *p, uint32_t k)
{
    return (dim_fn){p->rax[k], p->ro0[k], p->ri0[k]};
}

/* A dimension is pass-through when its rows are index = first + o * step, all weights 0. */
typedef struct { int affine; uint64_t first, step; } dim_map;

/* Appends a pass-through dimension, merged into the previous one when both tensors step
 * through the pair as one dimension. */
static void add_pass(dmlcl__resample1_plan *p, uint64_t size, uint64_t in_str, uint64_t out_str)
{
    uint32_t k = p->np;
    if (k > 0 && p->pin[k - 1] == in_str * size && p->pout[k - 1] == out_str * size) {
        p->psize[k - 1] *= size;
        p->pin[k - 1] = in_str;
        p->pout[k - 1] = out_str;
        return;
    }
    p->psize[k] = size;
    p->pin[k] = in_str;
    p->pout[k] = out_str;
    p->np++;
}

static void launch(dmlcl__resample1_plan *p, const dmlcl__tensor *in, const dmlcl__tensor *out,
                   const dmlcl__limits *lim, const dmlcl__r1_tune *tune, int force_idx64,
                   dmlcl__whole_dims *wd);

void dmlcl__resample1_plan_make(const dmlcl__tensor *in, const dmlcl__tensor *out, int linear,
                                const float *scales, const float *in_offsets,
                                const float *out_offsets, const dmlcl__limits *lim,
                                int force_idx64, dmlcl__resample1_plan *p)
{
    dmlcl__resample1_plan_make_rule(in, out, linear, DMLCL__NEAREST_HALF_UP, scales, in_offsets,
                                    out_offsets, lim, force_idx64, p);
}

/* Resampled dimension k's first table row: an earlier resampled dimension's where that
 * one maps the same sizes with the same scale and offsets (an image's H and W, usually),
 * whose rows are then shared, else a new row at the table's end. Halves the table and
 * the time to build it in the common case. */
static uint64_t shared_rows(const dmlcl__resample1_plan *p, uint32_t k, const dmlcl__tensor *in,
                            const float *scales, const float *in_offsets,
                            const float *out_offsets)
{
    const uint32_t d = p->rdim[k];
    for (uint32_t j = 0; j < k; j++) {
        const uint32_t e = p->rdim[j];
        if (p->rsize[j] == p->rsize[k] && in->sizes[e] == in->sizes[d] &&
            scales[e] == scales[d] && in_offsets[e] == in_offsets[d] &&
            out_offsets[e] == out_offsets[d] && p->rax[j].n_in == p->rax[k].n_in &&
            p->ro0[j] == p->ro0[k] && p->ri0[j] == p->ri0[k])
            return p->rtab[j];
    }
    return p->table_rows;
}

void dmlcl__resample1_plan_make_rule(const dmlcl__tensor *in, const dmlcl__tensor *out,
                                     int linear, dmlcl__nearest_rule rule, const float *scales,
                                     const float *in_offsets, const float *out_offsets,
                                     const dmlcl__limits *lim, int force_idx64,
                                     dmlcl__resample1_plan *p)
{
    dmlcl__resample1_plan_make_part(in, out, linear, rule, scales, in_offsets, out_offsets, lim,
                                    force_idx64, NULL, p);
}

void dmlcl__resample1_plan_make_part(const dmlcl__tensor *in, const dmlcl__tensor *out,
                                     int linear, dmlcl__nearest_rule rule, const float *scales,
                                     const float *in_offsets, const float *out_offsets,
                                     const dmlcl__limits *lim, int force_idx64,
                                     dmlcl__whole_dims *wd, dmlcl__resample1_plan *p)
{
    memset(p, 0, sizeof *p);
    p->rule = rule;
    for (uint32_t d = 0; d < in->rank; d++) {
        uint64_t n_out = out->sizes[d];
        /* Classified on the whole dimension, so that a tile computes as the whole does. */
        dim_fn f = whole_fn(in, out, d, linear, rule, scales, in_offsets, out_offsets);
        dim_map m = {0, 0, 0};
        m.affine = dmlcl__resample_whole_affine(&f.ax, out->whole[d], d, wd, &m.first, &m.step);
        if (m.affine) {
            /* The tile's first row, relative to the input tile's first element. */
            p->in_base += (m.first + out->origin[d] * m.step - in->origin[d]) * in->strides[d];
            if (n_out > 1)
                add_pass(p, n_out, m.step * in->strides[d], out->strides[d]);
            continue;
        }
        uint32_t k = p->nr++;
        p->rsize[k] = n_out;
        p->rin[k] = in->strides[d];
        p->rout[k] = out->strides[d];
        p->rdim[k] = d;
        p->rnin[k] = in->sizes[d];
        p->rax[k] = f.ax;
        p->ro0[k] = out->origin[d];
        p->ri0[k] = in->origin[d];
        p->rtab[k] = shared_rows(p, k, in, scales, in_offsets, out_offsets);
        if (p->rtab[k] == p->table_rows)
            p->table_rows += n_out;
    }
    p->linear = linear && p->nr > 0; /* LINEAR with nothing resampled is a strided copy */
    p->variant = p->nr == 0 ? "copy" : p->linear ? "linear" : "gather";
    p->table_bytes = p->table_rows * DMLCL_RESAMPLE1_WORDS(p->linear) * 4;
    p->count = out->elements;
    launch(p, in, out, lim, NULL, force_idx64, wd);
}

/* The inner dimension: the one the output steps through fastest (ties: the first), so
 * neighbouring work-items write neighbouring outputs. */
static void pick_inner(dmlcl__resample1_plan *p)
{
    uint64_t best = UINT64_MAX;
    p->inner_res = 0;
    p->inner_k = DMLCL_MAXDIM; /* virtual: nothing to iterate */
    p->inner_size = 1;
    p->inner_in = p->inner_out = p->inner_tab = p->inner_nin = 0;
    for (uint32_t k = 0; k < p->np; k++)
        if (p->pout[k] < best) {
            best = p->pout[k];
            p->inner_res = 0, p->inner_k = k;
            p->inner_size = p->psize[k], p->inner_in = p->pin[k], p->inner_out = p->pout[k];
        }
    for (uint32_t k = 0; k < p->nr; k++)
        if (p->rsize[k] > 1 && p->rout[k] < best) {
            best = p->rout[k];
            p->inner_res = 1, p->inner_k = k;
            p->inner_size = p->rsize[k], p->inner_in = p->rin[k], p->inner_out = p->rout[k];
            p->inner_tab = p->rtab[k];
            p->inner_nin = p->rnin[k];
        }
}

/* Among the outer dimensions, split off first whichever group (pass-through or
 * resampled) holds the fastest-varying one. */
static int pass_is_inner(const dmlcl__resample1_plan *p)
{
    uint64_t best = UINT64_MAX;
    int pass = 1;
    for (uint32_t k = 0; k < p->np; k++)
        if ((p->inner_res || k != p->inner_k) && p->pout[k] < best)
            best = p->pout[k], pass = 1;
    for (uint32_t k = 0; k < p->nr; k++)
        if ((!p->inner_res || k != p->inner_k) && p->rsize[k] > 1 && p->rout[k] < best)
            best = p->rout[k], pass = 0;
    return pass;
}

static uint32_t pair_slot(const dmlcl__resample1_plan *p, uint32_t below);
static uint64_t group_rows(const uint32_t *i0, uint64_t n, uint32_t stride, uint32_t *groups);

/* Whether n lower rows (2 words apart) pair up: some do (forced), or a quarter fewer steps. */
static int rows_pair_up(const uint32_t *rows, uint64_t n, int forced)
{
    const uint64_t groups = group_rows(rows, n, 2, NULL);
    return groups < n && (forced || 4 * groups <= 3 * n);
}

/* Whether slot k's whole map pairs up its outputs (pairs save a quarter of the steps),
 * judged on its first 64 outputs, not on this plan's part of it: the outputs per item
 * that go with pairs are chosen before pick_pairs judges the part's own rows, and every
 * part of a slabs operator or tile must choose alike (to share the generic program). */
static int axis_pairs_up(const dmlcl__resample1_plan *p, uint32_t k)
{
    uint32_t rows[2 * 64];
    float w;
    const uint64_t n = p->rax[k].n_out < 64 ? p->rax[k].n_out : 64;
    for (uint64_t o = 0; o < n; o++)
        rows[2 * o] = dmlcl__resample_axis_read(&p->rax[k], o, &w);
    return rows_pair_up(rows, n, 0);
}

/* Whether a volume's rows pair in two dimensions by default: three resampled dimensions
 * (the window's most), both outer ones pairing up, unless DMLCL_RESAMPLE_PLAN's pair asks
 * for fewer (launch_rows then takes 4 outputs per item). */
static int pairs_in_two(const dmlcl__resample1_plan *p, const dmlcl__r1_tune *t)
{
    if (p->nr != 3 || (t && t->pair >= 0 && t->pair < 2))
        return 0;
    const uint32_t k = pair_slot(p, DMLCL_MAXDIM);
    const uint32_t k2 = k == DMLCL_MAXDIM ? k : pair_slot(p, k);
    return k2 != DMLCL_MAXDIM && axis_pairs_up(p, k) && axis_pairs_up(p, k2);
}

/* Whether the units kernel will pair a channels-last run's pixels (pick_pairs with
 * unit_pairs): a pass-through inner run, at most two resampled dimensions, the outer one
 * split first pairing up, unless pair=0. */
static int unit_pairs_ahead(const dmlcl__resample1_plan *p, const dmlcl__r1_tune *t)
{
    if (p->inner_res || p->nr > 2 || (t && t->pair == 0))
        return 0;
    const uint32_t k = pair_slot(p, DMLCL_MAXDIM);
    return k != DMLCL_MAXDIM && axis_pairs_up(p, k);
}

/* GPUs' outputs per unit: 8 for nearest; for LINEAR 4 along a resampled inner dimension
 * and 8 along a pass-through run of at least 8 (channels-last: each corner's 8 inputs are
 * then one vector load; on an H200 linear 2x NHWC went from 0.44 of copy with 4 to 0.66),
 * but 4 where the units pair pixels (each corner's 4 inputs serve up to 4 pixels: linear
 * 2x NHWC 0.77 -> 0.84-0.86 of copy; 0.47 with 8, 0.59 with 4 and no pairs), nearest too
 * (one load for up to 4 pixels: nearest 2x NHWC 0.72 -> 0.90; 0.45 with 8). */
static uint32_t gpu_vec(const dmlcl__resample1_plan *p, const dmlcl__r1_tune *t)
{
    if (unit_pairs_ahead(p, t))
        return 4;
    if (!p->linear)
        return 8;
    return !p->inner_res && p->inner_size >= 8 ? 8 : 4;
}

/* GPUs: 256-wide groups, 256 of them per compute unit before items loop (grid stride);
 * units of gpu_vec() outputs, which amortise the outer coordinates (H200: nearest 2x 0.57
 * of copy at 8 against 0.38 at 4; linear 2x 0.30 at 4, 0.26 at 8). CPUs
 * (POCL): a fixed group of 64, since POCL compiles once per group size and a size left to
 * the runtime would follow the shape; 16 outputs per unit (a register's worth, on AVX-512)
 * give its per-item loop a longer inner run. */
static void launch_shape(dmlcl__resample1_plan *p, const dmlcl__limits *lim,
                         const dmlcl__r1_tune *t, uint32_t elem_size)
{
    p->rows_2d = 0;
    /* CPUs: a register of the private results (float, double for FLOAT64), 16 at most. */
    const uint32_t cpu_vec = dmlcl__simd_lanes(lim, elem_size == 8 ? 8 : 4, 1);
    p->vec = t && t->vec ? t->vec : lim->is_cpu ? cpu_vec : gpu_vec(p, t);
    p->chunks = (p->inner_size + p->vec - 1) / p->vec;
    p->units = p->count / p->inner_size * p->chunks;
    size_t wg_max = lim->max_work_group_size ? lim->max_work_group_size : 1;
    size_t wg = t && t->wg ? t->wg : lim->is_cpu ? 64 : 256;
    wg = wg < wg_max ? wg : wg_max;
    /* CPUs: enough items for every unit, so each runs its loop once (POCL then handles
     * the items of a group together: nearest 2x 1.5x faster than with 16 groups per
     * core looping). */
    /* GPUs: groups per compute unit. H200, channels-last 2x with pairs (dmlcl bench --mb
     * 1024 and 4096, two rounds), gpc = 64 / 128 / 256 / 512 / 1024: nearest 0.92 / 0.93 /
     * 0.94 / 0.93-0.94 / 0.90-0.93 of copy (0.89 at 32, its default before); linear 0.86 /
     * 0.88-0.89 / 0.90 / 0.90-0.91 / 0.89-0.90 (128 before). */
    uint64_t waves = lim->is_cpu ? (1u << 30) : t && t->gpc ? t->gpc : 256;
    uint64_t cap = (uint64_t)(lim->compute_units ? lim->compute_units : 1) * wg * waves;
    uint64_t g = p->units < cap ? p->units : cap;
    p->local = wg;
    p->global = (size_t)((g + wg - 1) / wg * wg);
    if (p->global == 0)
        p->global = wg;
}

static uint32_t find_window(const dmlcl__resample1_plan *p, unsigned RV, int forced,
                            uint64_t *pat, uint32_t *first);

/* Whether an image's LINEAR rows take 12 outputs per item: where the inner dimension's
 * columns repeat every 3 outputs (1.5x, 3x), no window of 4 or 8 outputs fits every item
 * but one of 12 does (1.5x: 12 outputs from 10 columns a row). H200, linear 1.5x NCHW
 * (dmlcl bench, two rounds): 0.67 -> 0.80-0.81 of copy at 1 GiB, 0.68 -> 0.84 at 4 GiB; 12
 * with pairs off 0.65-0.68, without the register cap of pairs (rows_blocks) 0.59-0.63. */
static int twelve_fits(const dmlcl__resample1_plan *p, const dmlcl__r1_tune *t)
{
    uint64_t pat;
    uint32_t lo;
    return p->linear && p->nr <= 2 && !(t && (t->rv >= 0 || t->win == 0)) &&
           !find_window(p, p->rv, 0, &pat, &lo) && find_window(p, 12, 0, &pat, &lo);
}

/* GPUs, resampled inner dimension of at least 64 outputs: the 2-D row kernels, 4 outputs
 * per item for LINEAR (one 16-byte store for FLOAT32), 8 for nearest (fixed in the kernel
 * source, so that the row kernels share the unit kernels' program), a 256-item group
 * spanning the row (or several rows where it is short), at most 65535 groups down the
 * rows (NVIDIA's limit), items looping over the rest. */
static void launch_rows(dmlcl__resample1_plan *p, const dmlcl__limits *lim,
                        const dmlcl__r1_tune *t)
{
    /* GPUs' choice: on an H200 the row kernels took linear 2x from 0.31 to 0.35 of copy
     * (downsampling 0.80 to 0.93) and, with 8 outputs per item, nearest 2x from 0.70
     * (units of 8 with their table rows as one vector load) to 0.73. */
    int want = t && t->rows >= 0 ? t->rows : !lim->is_cpu;
    p->rv = DMLCL_R1_ROWS_VEC(p->linear);
    if (!want || !p->inner_res || p->inner_size < 64)
        return;
    p->rows_2d = 1;
    /* LINEAR: 4, 8 or 16 outputs per item (rv=N): more outputs share more of the window's
     * columns (2x: 4 loads per outer corner for 4 outputs, 6 for 8, 10 for 16). H200
     * (tools/bench/gpu_sweep.sh, 1 and 4 GiB): an inner dimension upsampled 2x or more
     * takes 8 (linear 2x 0.72 -> 0.75 of copy, 16: 0.52); less than 2x keeps 4 (1.5x 0.49,
     * 0.37 with 8; 0.5x 0.95, 0.50 with 8). A volume whose two outer resampled dimensions
     * both pair up keeps 4 and pairs in both (pick_pairs): H200 trilinear 2x 0.58-0.59 of
     * copy at 1 and 4 GiB, against 0.49 with 8 and no pairs, 0.50-0.53 with 8 and pairs in
     * both, 0.48 with 4 and pairs in one. */
    if (p->linear && t && t->rv >= 0)
        p->rv = DMLCL_R1_RV(t->rv);
    else if (p->linear && p->inner_size >= 2 * p->inner_nin)
        p->rv = pairs_in_two(p, t) ? 4 : 8;
    if (twelve_fits(p, t))
        p->rv = 12;
    const unsigned rv = p->rv;
    p->chunks = (p->inner_size + rv - 1) / rv;
    p->units = p->count / p->inner_size * p->chunks;
    /* Groups of 512 for nearest: H200 nearest 2x 0.87 -> 0.88 of copy at 1 GiB (0.89 at
     * 4 GiB), rounding DECREASING 0.82 -> 0.87 (0.88); linear 2x drops with 512 (0.74 ->
     * 0.70), so it keeps 256. */
    size_t wg = t && t->wg ? t->wg : lim->is_cpu ? 64 : p->linear ? 256 : 512;
    if (lim->max_work_group_size && wg > lim->max_work_group_size)
        wg = lim->max_work_group_size;
    size_t l0 = 1;
    while (l0 < wg && l0 < p->chunks)
        l0 *= 2;
    p->local2[0] = l0;
    p->local2[1] = wg / l0 ? wg / l0 : 1;
    p->global2[0] = (size_t)((p->chunks + l0 - 1) / l0 * l0);
}

/* The row kernels' rows per item and step (rb), once the window and the pairs are known,
 * and so the groups down the rows (1 for every other plan). H200, 1 GiB, rb=1 / 2 / 4 / 8
 * (`dmlcl bench` under DMLCL_RESAMPLE_PLAN=rb=N): nearest 2x 0.88 / 0.86 / 0.86 / 0.90 of
 * copy (rounding 0.87 / 0.84 / 0.83 / 0.89); linear 2x with pairs 0.75 / 0.83 / 0.81 /
 * 0.75; trilinear 2x (window, no pairs) 0.49 / 0.49 / 0.49 / 0.41; linear 1.5x (no window)
 * 0.56 / 0.61 / 0.62 / -; linear 0.5x 0.97 / 0.90-0.93 / 0.96 / 0.97-0.98 (two sweeps of
 * kernel versions since dropped, which did not change its rb=1 kernel). */
static uint32_t default_rb(const dmlcl__resample1_plan *p)
{
    if (!p->linear)
        return 8;
    return p->win ? (p->pair ? 2 : 1) : 4;
}

/* LINEAR row kernels' registers per item, where the device takes a cap: left to
 * themselves, GPU compilers give the window and pair kernels all they can use (H200 linear
 * 2x with pairs: 127-128, two groups of 256 per compute unit). Capped for three groups
 * (80 on an H200), that kernel ran at 0.90-0.91 of copy instead of 0.83-0.84 (a cap of
 * 64 or 72: 0.90, 88 or 96: 0.83-0.84); a volume's (122) spills under any cap that gains
 * a group (0.17-0.38 with its plain sum), and the kernels without pairs hold 64 already;
 * 12 outputs an item take 187 without a cap (twelve_fits). */
static uint32_t reg_cap(const dmlcl__resample1_plan *p, const dmlcl__limits *lim,
                        const dmlcl__r1_tune *t)
{
    if (!lim->registers || !p->rows_2d || !p->linear)
        return 0;
    if (t && t->regs >= 0)
        return (uint32_t)t->regs;
    if (p->pair != 1 && p->rv != 12)
        return 0;
    const uint64_t items = (uint64_t)p->local2[0] * p->local2[1];
    const uint64_t cap = lim->registers / (3 * items) / 8 * 8; /* allocated in 8s */
    return cap >= 32 && cap < 255 ? (uint32_t)cap : 0;
}

static void rows_blocks(dmlcl__resample1_plan *p, const dmlcl__limits *lim,
                        const dmlcl__r1_tune *t)
{
    p->wplain = 0;
    p->regcap = 0;
    if (!p->rows_2d) {
        p->rb = 1;
        return;
    }
    p->rb = t && t->rb ? t->rb : default_rb(p);
    /* The window's plain sum with pairs in two dimensions only (resample1_rows.cl's
     * WPLAIN has the figures). */
    p->wplain = p->win && (t && t->wplain >= 0 ? t->wplain : p->pair == 2);
    p->regcap = reg_cap(p, lim, t);
    const uint64_t groups0 = p->global2[0] / p->local2[0], rows = p->count / p->inner_size;
    /* Groups per compute unit down the rows. H200 (gpc=32 / 64 / 128 / 256 / 496): nearest
     * 2x 0.79 / 0.81 / 0.83 / 0.85 / 0.88 of copy; linear 2x 0.63 / 0.66 / 0.68 / 0.69 /
     * 0.68, but linear 0.5x 0.91 / 0.97 / 0.96 / 0.91 / 0.83. 12 outputs an item take 64:
     * linear 1.5x at 1 GiB 0.80-0.81 with 128, 0.82-0.83 with 64 or 32, 0.81-0.82 with 96
     * (0.84 at 4 GiB with 64, 96 or 128, three rounds). */
    uint64_t gpc = t && t->gpc ? t->gpc : p->linear ? (p->rv == 12 ? 64 : 128) : 512;
    uint64_t want1 = (uint64_t)(lim->compute_units ? lim->compute_units : 1) * gpc / groups0;
    const uint64_t blocks = (rows + p->rb - 1) / p->rb;
    uint64_t need1 = (blocks + p->local2[1] - 1) / p->local2[1];
    uint64_t groups1 = need1 < want1 ? need1 : want1;
    groups1 = groups1 < 1 ? 1 : groups1 > 65535 ? 65535 : groups1;
    p->global2[1] = (size_t)(groups1 * p->local2[1]);
}

/* The window of the LINEAR row kernels. Output j of an item (x0 + j, the row's last
 * output past its end, as the kernel reads the table) fits window start `base` when its
 * lower column is column base + PAT(j), window columns clamped to the row as the kernel
 * loads them. Its upper column, the window's next, is then right too: only a lower
 * column of n - 1 clamps it, and that one's weight is 0. */
#define WIN_PAT(pat, j) ((int64_t)(((pat) >> (4 * (j))) & 15))
static int window_fits_at(const uint32_t *i0, uint64_t pat, unsigned rv, int64_t base,
                          uint64_t n)
{
    for (unsigned j = 0; j < rv; j++) {
        int64_t c = base + WIN_PAT(pat, j);
        c = c < 0 ? 0 : c > (int64_t)n - 1 ? (int64_t)n - 1 : c;
        if (c != (int64_t)i0[j])
            return 0;
    }
    return 1;
}

/* LINEAR resampled slot k's lower input index for output o (its table row's first word). */
static uint32_t lower_index(const dmlcl__resample1_plan *p, uint32_t k, uint64_t o)
{
    float w;
    const dim_fn f = slot_fn(p, k);
    return row(&f, o, &w);
}

/* The inner rows of unit u; returns whether its outputs fit the window anchored at their
 * last output or at their first (the kernel tries both, in that order). */
static int window_fits(const dmlcl__resample1_plan *p, unsigned RV, uint64_t u, uint64_t pat)
{
    uint32_t i0[DMLCL_R1_ROWS_VEC_MAX];
    for (unsigned j = 0; j < RV; j++)
        i0[j] = lower_index(p, p->inner_k,
                            u * RV + j < p->inner_size ? u * RV + j : p->inner_size - 1);
    const uint64_t n = p->rnin[p->inner_k];
    return window_fits_at(i0, pat, RV, (int64_t)i0[RV - 1] - WIN_PAT(pat, RV - 1), n) ||
           window_fits_at(i0, pat, RV, (int64_t)i0[0] - WIN_PAT(pat, 0), n);
}

/* Unit 1's columns relative to its first give the pattern; the window is used where it is
 * shorter than the loads it replaces (LINEAR: 2 * RV corners, nearest: RV) and every
 * sampled unit (all of them up to 64, else 64 spread from the first to the last) fits it,
 * so that no warp splits between the two paths. H200: linear 2x NCHW 0.44 of copy without,
 * 0.66 with; trilinear 2x 0.22 and 0.42. Nearest's window is loaded as 4-element vectors
 * from unit 1's alignment (wph), which rows of a multiple of 4 keep. */
static uint32_t find_window(const dmlcl__resample1_plan *p, unsigned RV, int forced,
                            uint64_t *pat, uint32_t *first)
{
    const uint64_t chunks = (p->inner_size + RV - 1) / RV;
    if (chunks < 3)
        return 0;
    uint32_t i0[DMLCL_R1_ROWS_VEC_MAX], lo = UINT32_MAX, hi = 0;
    for (unsigned j = 0; j < RV; j++) {
        i0[j] = lower_index(p, p->inner_k, RV + j);
        lo = i0[j] < lo ? i0[j] : lo;
        hi = i0[j] > hi ? i0[j] : hi;
    }
    /* Entries are nibbles: a window of at most 16 columns. */
    const uint32_t win = hi - lo + (p->linear ? 2 : 1);
    if (win >= (p->linear ? 2 : 1) * RV || win > 16)
        return 0;
    *pat = 0;
    for (unsigned j = 0; j < RV; j++)
        *pat |= (uint64_t)(i0[j] - lo) << (4 * j);
    const uint64_t samples = chunks < 64 ? chunks : 64;
    for (uint64_t s = 0; s < samples && !forced; s++)
        if (!window_fits(p, RV, s * (chunks - 1) / (samples - 1), *pat))
            return 0;
    *first = lo;
    return win;
}

/* The row kernels' window for the plan's RV, where one applies (above). */
static void pick_window(dmlcl__resample1_plan *p, const dmlcl__r1_tune *t)
{
    p->wpat = p->win = p->wph = 0;
    int want = t && t->win >= 0 ? t->win : 1;
    if (!want || !p->rows_2d || !p->inner_res || (p->linear && p->nr > 3))
        return;
    uint64_t pat;
    uint32_t lo;
    const uint32_t win = find_window(p, p->rv, t && t->win == 1, &pat, &lo);
    if (!win)
        return;
    p->wpat = pat;
    p->win = win;
    p->wph = p->linear ? 0 : lo % 4;
}

/* The pairs' slot: the outer resampled dimension the row split peels first (the highest
 * slot below `below` but a resampled inner one); DMLCL_MAXDIM if none. */
static uint32_t pair_slot(const dmlcl__resample1_plan *p, uint32_t below)
{
    for (uint32_t k = below < p->nr ? below : p->nr; k-- > 0;)
        if (!p->inner_res || k != p->inner_k)
            return k;
    return DMLCL_MAXDIM;
}

/* Whether the units kernel pairs pixels (resample1_units.cl's pair_unit, pair_gather): a
 * pass-through inner run (channels-last), up to two resampled dimensions (LINEAR: whose
 * corners, 4 vectors of V, stay in registers). */
static int unit_pairs(const dmlcl__resample1_plan *p)
{
    return !p->rows_2d && !p->seg && !p->cpu_rows && !p->inner_res && p->nr <= 2;
}

/* Table rows per group of pairs ({first output, outputs}: 2 words; LINEAR's rows are 2
 * words, nearest's 1). */
static uint64_t group_span(const dmlcl__resample1_plan *p)
{
    return 2 / DMLCL_RESAMPLE1_WORDS(p->linear);
}

/* Groups the lower input rows i0[0..n) (a resampled dimension's table rows, `stride` words
 * each) into runs of at most 2 equal ones; writes each group's {first output, outputs} to
 * groups (if not NULL); returns the count. */
static uint64_t group_rows(const uint32_t *i0, uint64_t n, uint32_t stride, uint32_t *groups)
{
    uint64_t count = 0, start = 0;
    for (uint64_t o = 0; o < n; o++) {
        if (o > start && i0[stride * o] == i0[stride * start] && o - start < 2) {
            if (groups)
                groups[2 * (count - 1) + 1] = 2;
            continue;
        }
        start = o;
        if (groups)
            groups[2 * count] = (uint32_t)o, groups[2 * count + 1] = 1;
        count++;
    }
    return count;
}

/* Whether slot k's first 64 outputs pair up: some (forced) or a quarter fewer steps. */
static int pairs_up(const dmlcl__resample1_plan *p, uint32_t k, int forced)
{
    uint32_t rows[2 * 64];
    const uint64_t n = p->rsize[k] < 64 ? p->rsize[k] : 64;
    for (uint64_t o = 0; o < n; o++)
        rows[2 * o] = lower_index(p, k, o);
    return rows_pair_up(rows, n, forced);
}

/* Output rows in pairs where the window applies and, judging by the first 64 outputs,
 * pairs save at least a quarter of the steps (an upsampled outer dimension): the two rows
 * share every window load. The groups themselves are counted and written with the table
 * (dmlcl__resample1_fill), which has the rows; until then pair_groups is their bound, the
 * dimension's size. H200: linear 2x 0.68 -> 0.72 of copy, trilinear 2x 0.41 -> 0.46 (a
 * probe kernel of linear 2x: 0.81 with the window, 0.92 with pairs). */
static void pick_pairs(dmlcl__resample1_plan *p, const dmlcl__r1_tune *t)
{
    p->pair = 0;
    p->pair_groups = p->pair_groups2 = 0;
    p->gtab = p->gtab2 = p->table_rows;
    /* Row kernels below 3 resampled dimensions, pairs in one: linear 2x 0.75 of copy with,
     * 0.72 without. A volume pairs in two dimensions with 4 outputs per item (launch_rows
     * chose it so; H200 trilinear 2x 0.58-0.59, one window load for up to 4 output rows)
     * and in none with 8 (0.49; 0.41 pairing one). The units kernel pairs in both where
     * the whole map pairs up (LINEAR: gpu_vec then took 4 for them). */
    const int units = unit_pairs(p), forced = t && t->pair >= 1;
    int want = t && t->pair >= 0 ? t->pair
               : units       ? 2 * unit_pairs_ahead(p, t)
               : p->nr < 3   ? 1
               : p->rv > 4   ? 0
                             : 2;
    uint32_t k = pair_slot(p, DMLCL_MAXDIM);
    if (!want || !((p->win && p->linear) || units) || k == DMLCL_MAXDIM ||
        !pairs_up(p, k, forced))
        return;
    p->pair = 1;
    p->pair_k = k;
    p->pair_groups = p->rsize[k]; /* the bounds until the table is written */
    uint32_t k2 = pair_slot(p, k);
    if (want < 2 || k2 == DMLCL_MAXDIM || !pairs_up(p, k2, forced))
        return;
    p->pair = 2;
    p->pair_k2 = k2;
    p->pair_groups2 = p->rsize[k2];
    p->gtab2 = p->gtab + p->pair_groups * group_span(p);
}

/* Channels-last on CPUs: the inner dimension a pass-through run shorter than a segment,
 * the next fastest-varying one resampled. Segments then run along that one, want outputs
 * per unit in all; the outer dimensions are the rest. */
static int seg2(dmlcl__resample1_plan *p, uint64_t want)
{
    if (p->inner_res || p->inner_k >= p->np || p->inner_size >= want)
        return 0;
    uint64_t best = UINT64_MAX;
    uint32_t k2 = DMLCL_MAXDIM;
    for (uint32_t k = 0; k < p->nr; k++)
        if (p->rsize[k] > 1 && p->rout[k] < best)
            best = p->rout[k], k2 = k;
    if (k2 == DMLCL_MAXDIM)
        return 0;
    p->seg2 = 1;
    p->inner2_k = k2;
    p->size2 = p->rsize[k2];
    p->in2 = p->rin[k2];
    p->out2 = p->rout[k2];
    p->tab2 = p->rtab[k2];
    uint64_t pos = want / p->inner_size;
    p->seg = pos < p->size2 ? pos : p->size2;
    p->chunks = (p->size2 + p->seg - 1) / p->seg;
    p->units = p->count / (p->inner_size * p->size2) * p->chunks;
    p->global = (size_t)((p->units + p->local - 1) / p->local * p->local);
    /* Outer order: whichever group holds the fastest-varying dimension left. */
    uint64_t fast = UINT64_MAX;
    p->pass_inner = 1;
    for (uint32_t k = 0; k < p->np; k++)
        if (k != p->inner_k && p->pout[k] < fast)
            fast = p->pout[k], p->pass_inner = 1;
    for (uint32_t k = 0; k < p->nr; k++)
        if (k != k2 && p->rsize[k] > 1 && p->rout[k] < fast)
            fast = p->rout[k], p->pass_inner = 0;
    return 1;
}

/* CPUs: the *_seg kernels, units of up to 256 outputs along the inner dimension (long
 * enough for the vectorised loop, short enough to balance the cores). POCL, 2 cores:
 * nearest 2x 2.4x, linear 2x 1.5x and trilinear 2x 2x faster than units of 16. */
static void launch_seg(dmlcl__resample1_plan *p, const dmlcl__limits *lim,
                       const dmlcl__r1_tune *t)
{
    p->seg = 0;
    p->seg2 = 0;
    int want = t && t->seg >= 0 ? t->seg : lim->is_cpu ? 256 : 0;
    if (!want || p->rows_2d)
        return;
    if (seg2(p, (uint64_t)want))
        return;
    p->seg = (uint64_t)want < p->inner_size ? (uint64_t)want : p->inner_size;
    p->chunks = (p->inner_size + p->seg - 1) / p->seg;
    p->units = p->count / p->inner_size * p->chunks;
    size_t wg = p->local;
    p->global = (size_t)((p->units + wg - 1) / wg * wg);
}

/* The CPU row blocks' patterns (INNER_RES=1, kernels/resample/resample1/resample1_cpu_rows.cl): where the
 * mapping puts the outputs of vector v (outputs Wv..Wv+W-1 for W = cpu_w lanes, away from
 * the edges, sizes and tiles aside) relative to their first lower input, one nibble per
 * lane in *pl (the 5th bits in *high, the upper inputs' from bit 16); returns 0 where they
 * span more than the window's 2W inputs (a pattern of 0, every lane the same input, is
 * one).
 * *pu: the upper inputs. It depends only on the mapping and the input's step, so shapes
 * share the program; the kernel checks each vector against it. n_in: the input size the
 * coordinates clamp to (a large one: no clamp at the end; the whole's: that edge's, and
 * then the window ends with the row, lane 0 at its offset in it: the kernel loads no
 * element past the row's span). */
static int cpu_pattern(const dmlcl__resample1_plan *p, uint64_t v, uint64_t n_in, int at_end,
                       uint64_t *pl, uint64_t *pu, uint32_t *high)
{
    const uint32_t k = p->inner_k, W = p->cpu_w;
    uint64_t lo[16], up[16];
    *pl = *pu = 0;
    *high = 0;
    for (unsigned j = 0; j < W; j++) {
        const float x = dmlcl__resample1_coord(W * v + j, p->rax[k].scale, p->rax[k].in_offset,
                                               p->rax[k].out_offset);
        float w = 0;
        lo[j] = (p->linear ? dmlcl__resample1_linear(x, n_in, &w)
                           : dmlcl__resample_nearest_rule(x, n_in, p->rule)) * p->inner_in;
        up[j] = lo[j] + (w != 0 ? p->inner_in : 0);
    }
    const uint64_t a = at_end ? (p->cpu_span > W ? p->cpu_span - W : 0) : lo[0];
    for (unsigned j = 0; j < W; j++) {
        if (lo[j] < a || up[j] - a >= 2 * W || lo[j] < lo[0])
            return 0;
        *pl |= ((lo[j] - a) & 15) << (4 * j);
        *pu |= ((up[j] - a) & 15) << (4 * j);
        *high |= ((lo[j] - a) >> 4) << j | ((up[j] - a) >> 4) << (16 + j);
    }
    return 1;
}

/* Whether the patterns serve at least half of the row's whole vectors (all of them up to
 * 64, else 64 spread over the row), the last one counted as its own pattern's. Where they
 * do not (a scale like 1.7, whose phases drift from vector to vector), the specialised
 * program would buy a few vectors per row, and every such scale would be a program: the
 * generic one serves them all (lib/core/specialize.h). */
static int cpu_patterns_recur(dmlcl__resample1_plan *p, uint64_t whole)
{
    const uint64_t big = (uint64_t)1 << 31, samples = whole < 64 ? whole : 64;
    uint64_t served = 0, by[DMLCL_R1_CPU_PATTERNS] = {0};
    for (uint64_t s = 0; s < samples; s++) {
        const uint64_t v = samples > 1 ? s * (whole - 1) / (samples - 1) : 0;
        const int last = v == whole - 1 && p->cpu_np && p->linear && p->ro0[p->inner_k] == 0 &&
                         p->rnin[p->inner_k] == p->rax[p->inner_k].n_in;
        uint64_t pl, pu;
        uint32_t high;
        if (!cpu_pattern(p, v, last ? p->rnin[p->inner_k] : big, last, &pl, &pu, &high))
            continue;
        for (uint32_t i = 0; i < p->cpu_np; i++)
            if (p->cpu_pl[i] == pl && p->cpu_pu[i] == pu && p->cpu_high[i] == high) {
                served++;
                by[i]++;
                break;
            }
    }
    /* Nearest keeps the pattern that serves most: its vectors pick from every pattern's
     * window where there are several (AVX2, nearest 2x with edge rounding, whose first
     * vector has its own pattern: 62 -> 24 GB/s with two). */
    uint32_t best = 0;
    for (uint32_t i = 1; i < p->cpu_np; i++)
        best = by[i] > by[best] ? i : best;
    if (!p->linear && p->cpu_np > 1) {
        p->cpu_pl[0] = p->cpu_pl[best];
        p->cpu_pu[0] = p->cpu_pu[best];
        p->cpu_high[0] = p->cpu_high[best];
        p->cpu_np = 1;
        served = by[best];
    }
    return samples > 0 && 2 * served >= samples;
}

/* Up to DMLCL_R1_CPU_PATTERNS distinct patterns, from vectors 0 (the row's start, clamped
 * at the edge; sizes aside), 1, 2 and 3 (a scale of 1.5 cycles through three) and, where
 * room is left, the row's last whole vector clamped at the input's end, its window ending
 * with the row (the interior patterns' window would pass the row's end there). Without
 * it the last vector of every row goes lane by lane (LINEAR: 2 x 2^(K-1) loads a lane;
 * trilinear 2x 64^3 -> 128^3, rows of 8 vectors: 9.4 -> 12.0 GB/s with it, 2-core POCL).
 * Not for nearest: its lane-by-lane vector is 16 loads, and a second pattern makes each
 * vector pick from both windows (nearest 2x 33 -> 21 GB/s). */
static void cpu_patterns(dmlcl__resample1_plan *p)
{
    const uint32_t k = p->inner_k;
    const uint64_t big = (uint64_t)1 << 31, whole = p->inner_size / p->cpu_w;
    p->cpu_np = 0;
    for (uint64_t c = 0; c <= DMLCL_R1_CPU_PATTERNS && p->cpu_np < DMLCL_R1_CPU_PATTERNS; c++) {
        /* The last candidate: the last whole vector of a whole (untiled) row. */
        const int last = c == DMLCL_R1_CPU_PATTERNS;
        if (last && (!p->linear || whole == 0 || p->ro0[k] != 0 || p->rnin[k] != p->rax[k].n_in))
            break;
        const uint64_t v = last ? whole - 1 : c;
        uint64_t pl, pu;
        uint32_t high;
        int seen = !cpu_pattern(p, v, last ? p->rnin[k] : big, last, &pl, &pu, &high);
        for (uint32_t i = 0; i < p->cpu_np; i++)
            seen |= p->cpu_pl[i] == pl && p->cpu_pu[i] == pu && p->cpu_high[i] == high;
        if (seen)
            continue;
        p->cpu_pl[p->cpu_np] = pl;
        p->cpu_pu[p->cpu_np] = pu;
        p->cpu_high[p->cpu_np++] = high;
    }
    if (!cpu_patterns_recur(p, whole))
        p->cpu_np = 0;
}

/* Whether some pattern's lane reads cpu_w or more inputs past the vector's first: the
 * window is then two vectors. */
static int cpu_window2(const dmlcl__resample1_plan *p)
{
    int two = 0;
    for (uint32_t i = 0; i < p->cpu_np; i++)
        for (uint32_t j = 0; j < p->cpu_w; j++) {
            const uint64_t lo = (p->cpu_pl[i] >> (4 * j) & 15) | (p->cpu_high[i] >> j & 1) << 4,
                           up = (p->cpu_pu[i] >> (4 * j) & 15) |
                                (p->cpu_high[i] >> (16 + j) & 1) << 4;
            two |= lo >= p->cpu_w || up >= p->cpu_w;
        }
    return two;
}

/* Whether the resampled dimensions read at least twice as many inputs as they write
 * outputs (downsampling). */
static int reads_dominate(const dmlcl__resample1_plan *p)
{
    double in = 1, out = 1;
    for (uint32_t k = 0; k < p->nr; k++)
        in *= (double)p->rnin[k], out *= (double)p->rsize[k];
    return in >= 2 * out;
}

/* CPUs: the row blocks, where the segment kernels were chosen (or forced with cpu=N)
 * and the output's row is contiguous (channels-last: the channels contiguous in the
 * input too); LINEAR also needs the row's resampled slot last (see the kernel). Rows per
 * item: 32, more where a row's block is short, so that an item holds DMLCL_R1_CPU_ITEM
 * outputs (its table reads and lane checks, and the unpaired rows at its ends, paid over
 * more rows: AVX2, trilinear 2x's rows of 128, 0.25-0.27 -> 0.30-0.31 of memcpy with 128
 * rows an item), fewer where that leaves under 16 items per compute unit.
 * Not where the reads dominate on 8 or more compute units: there the row blocks stop
 * scaling with the cores (linear 0.5x, 256 MiB: 2 cores 22.8 GB/s with row blocks, 11.9
 * with segments; 16 cores 21-24 GB/s with row blocks of 2 to 32 rows, 39 with segments,
 * POCL 5.0 on a 16-core Xeon), so the segment kernels stay. */
static void launch_cpu_rows(dmlcl__resample1_plan *p, const dmlcl__limits *lim,
                            const dmlcl__r1_tune *t, uint32_t elem_size)
{
    p->cpu_rows = 0;
    p->cpu_np = 0;
    const int forced = t && (t->rows >= 0 || t->seg >= 0 || t->vec || t->wg);
    const int want = t && t->cpu >= 0 ? t->cpu : lim->is_cpu && !forced ? 32 : 0;
    if (!want || p->nr == 0 || p->rows_2d)
        return;
    if (!(t && t->cpu > 0) && lim->compute_units >= 8 && reads_dominate(p))
        return;
    uint64_t n, flat;
    if (p->inner_res && p->inner_out == 1)
        n = flat = p->inner_size;
    else if (p->seg2 && p->inner_in == 1 && p->inner_out == 1 && p->out2 == p->inner_size)
        n = p->size2, flat = p->inner_size * p->size2;
    else
        return;
    if (p->linear && (p->inner_res ? p->inner_k : p->inner2_k) != p->nr - 1)
        return;
    const uint64_t rows = p->count / flat, blocks = (n + DMLCL_R1_CPU_BLOCK - 1) /
                                                    DMLCL_R1_CPU_BLOCK;
    const uint64_t block_outputs = (n < DMLCL_R1_CPU_BLOCK ? n : DMLCL_R1_CPU_BLOCK) * (flat / n);
    uint64_t per = (uint64_t)want;
    while (!(t && t->cpu > 0) && per < 1024 && per * block_outputs < DMLCL_R1_CPU_ITEM)
        per *= 2;
    const uint64_t min_items = 16 * (uint64_t)(lim->compute_units ? lim->compute_units : 1);
    while (!(t && t->cpu > 0) && per > 1 && blocks * ((rows + per - 1) / per) < min_items)
        per /= 2;
    p->cpu_rows = per;
    /* LINEAR stores non-temporal only from FLOAT32 and FLOAT64 (the kernel's CR_NT), and
     * only with registers of 32 bytes or more: with SSE's 16 (POCL_KERNELLIB_NAME=sse2,
     * --mb 128, 3 alternating rounds) linear 1.5x fell from 9.0-11.5 to 7.3-7.7 GB/s with
     * them, linear 0.5x the same either way. Nearest: any register width. */
    const uint64_t out_bytes = p->count * elem_size;
    const int nt_pay = p->linear ? elem_size >= 4 && dmlcl__nt_stores_pay(lim, out_bytes)
                                 : out_bytes >= DMLCL_NT_MIN_BYTES;
    p->cpu_nt = t && t->nt >= 0 ? t->nt : nt_pay;
    p->cpu_span = p->inner_res ? (p->inner_nin - 1) * p->inner_in + 1 : 0;
    /* Lanes of the accumulators (LINEAR: float, double for FLOAT64) or of the elements:
     * two registers (the kernel's CR_W says why). */
    p->cpu_w = dmlcl__simd_lanes(lim, p->linear ? (elem_size == 8 ? 8 : 4) : elem_size, 2);
    p->seg = 0; /* the patterns (inner resampled): searched() */
    p->chunks = blocks;
    p->units = blocks * ((rows + per - 1) / per);
    p->local = 1;
    p->global = (size_t)p->units;
}

/* Everything the sampled searches (pick_window, pick_pairs, cpu_patterns) read, and what
 * they found: the parts of a slabs operator share it (core/slab.h's search). */
typedef struct {
    int win, pair; /* the tune's (-2: no tune) */
    int rows_2d, linear, inner_res, cpu_rows, unit_pairs;
    dmlcl__nearest_rule rule;
    uint32_t nr, inner_k, rv, cpu_w;
    uint64_t chunks, inner_size, inner_in, cpu_span;
    dmlcl__resample_axis rax[DMLCL_MAXDIM];
    uint64_t ro0[DMLCL_MAXDIM], ri0[DMLCL_MAXDIM], rnin[DMLCL_MAXDIM], rsize[DMLCL_MAXDIM];
} search_key;

typedef struct {
    search_key key;
    uint64_t wpat, pair_groups, pair_groups2;
    uint32_t win, wph, pair_k, pair_k2, cpu_np;
    int pair;
    uint64_t cpu_pl[DMLCL_R1_CPU_PATTERNS], cpu_pu[DMLCL_R1_CPU_PATTERNS];
    uint32_t cpu_high[DMLCL_R1_CPU_PATTERNS];
} search_found;
_Static_assert(2 * sizeof(search_found) <= sizeof(((dmlcl__whole_dims *)0)->search),
               "dmlcl__whole_dims' search too small");

static void search_key_of(const dmlcl__resample1_plan *p, const dmlcl__r1_tune *t,
                          search_key *k)
{
    memset(k, 0, sizeof *k); /* padding too: keys compare as bytes */
    k->win = t ? t->win : -2;
    k->pair = t ? t->pair : -2;
    k->rows_2d = p->rows_2d, k->linear = p->linear, k->inner_res = p->inner_res;
    k->cpu_rows = p->cpu_rows != 0, k->rule = p->rule, k->unit_pairs = unit_pairs(p);
    k->nr = p->nr, k->inner_k = p->inner_k, k->rv = p->rv, k->cpu_w = p->cpu_w;
    k->chunks = p->chunks, k->inner_size = p->inner_size, k->inner_in = p->inner_in;
    k->cpu_span = p->cpu_span;
    for (uint32_t j = 0; j < p->nr; j++) {
        k->rax[j] = p->rax[j];
        k->ro0[j] = p->ro0[j], k->ri0[j] = p->ri0[j];
        k->rnin[j] = p->rnin[j], k->rsize[j] = p->rsize[j];
    }
}

/* The window, the row pairs and the CPU lane patterns: searched, or the last part's where
 * it read the same (wd: the parts' shared facts, NULL: none). Runs after launch_seg and
 * launch_cpu_rows, which leave what pick_window reads alone where it applies (the row
 * kernels) and need none of its results. */
static void searched(dmlcl__resample1_plan *p, const dmlcl__r1_tune *t, dmlcl__whole_dims *wd)
{
    search_key k;
    const unsigned slot = t != NULL; /* the planner's own choice, or the overrides' */
    search_found *f = wd ? (search_found *)wd->search.bytes + slot : NULL;
    if (wd)
        search_key_of(p, t, &k);
    if (wd && (wd->searched >> slot & 1) && !memcmp(&f->key, &k, sizeof k)) {
        p->wpat = f->wpat, p->win = f->win, p->wph = f->wph;
        p->pair = f->pair, p->pair_k = f->pair_k, p->pair_groups = f->pair_groups;
        p->pair_k2 = f->pair_k2, p->pair_groups2 = f->pair_groups2;
        p->gtab = p->table_rows;
        p->gtab2 = p->gtab + (p->pair == 2 ? p->pair_groups * group_span(p) : 0);
        p->cpu_np = f->cpu_np;
        memcpy(p->cpu_pl, f->cpu_pl, sizeof p->cpu_pl);
        memcpy(p->cpu_pu, f->cpu_pu, sizeof p->cpu_pu);
        memcpy(p->cpu_high, f->cpu_high, sizeof p->cpu_high);
        return;
    }
    pick_window(p, t);
    pick_pairs(p, t);
    if (p->cpu_rows && p->inner_res)
        cpu_patterns(p);
    if (!wd)
        return;
    f->key = k;
    f->wpat = p->wpat, f->win = p->win, f->wph = p->wph;
    f->pair = p->pair, f->pair_k = p->pair_k, f->pair_groups = p->pair_groups;
    f->pair_k2 = p->pair_k2, f->pair_groups2 = p->pair_groups2;
    f->cpu_np = p->cpu_np;
    memcpy(f->cpu_pl, p->cpu_pl, sizeof f->cpu_pl);
    memcpy(f->cpu_pu, p->cpu_pu, sizeof f->cpu_pu);
    memcpy(f->cpu_high, p->cpu_high, sizeof f->cpu_high);
    wd->searched |= 1u << slot;
}

static void format_options(dmlcl__resample1_plan *p, const dmlcl__tensor *in);

/* The steps the row split takes along resampled slot k: its outputs, or a pair slot's
 * groups of them. */
static uint64_t slot_steps(const dmlcl__resample1_plan *p, uint32_t k)
{
    if (p->pair && k == p->pair_k)
        return p->pair_groups;
    if (p->pair == 2 && k == p->pair_k2)
        return p->pair_groups2;
    return p->rsize[k];
}

static void launch(dmlcl__resample1_plan *p, const dmlcl__tensor *in, const dmlcl__tensor *out,
                   const dmlcl__limits *lim, const dmlcl__r1_tune *tune, int force_idx64,
                   dmlcl__whole_dims *wd)
{
    pick_inner(p);
    p->pass_inner = pass_is_inner(p);
    launch_shape(p, lim, tune, in->elem_size);
    launch_rows(p, lim, tune);
    launch_seg(p, lim, tune);
    launch_cpu_rows(p, lim, tune, in->elem_size);
    searched(p, tune, wd);
    rows_blocks(p, lim, tune);
    const uint64_t groups = p->pair_groups + p->pair_groups2;
    p->table_bytes = (p->table_rows * DMLCL_RESAMPLE1_WORDS(p->linear) + 2 * groups) * 4;
    /* 32-bit indices while every offset relative to a binding, the grid-stride unit
     * (plus the global size), a unit's last output and the table rows stay below 2^32. */
    const uint64_t lim32 = (uint64_t)1 << 32;
    p->idx64 = force_idx64 || p->units + p->global >= lim32 || p->count >= lim32 ||
               (uint64_t)p->global2[0] * p->rv >= lim32 ||
               p->count / p->inner_size + (uint64_t)p->global2[1] * p->rb >= lim32 ||
               p->inner_size + p->vec >= lim32 || in->span >= lim32 || out->span >= lim32 ||
               p->table_rows + groups * group_span(p) >= lim32;
    unsigned bits = p->idx64 ? 64 : 32;
    p->chunks_div = dmlcl__fastdiv_make(p->chunks, bits);
    for (uint32_t k = 0; k < p->np; k++)
        p->pdiv[k] = dmlcl__fastdiv_make(p->psize[k], bits);
    for (uint32_t k = 0; k < p->nr; k++)
        p->rdiv[k] = dmlcl__fastdiv_make(slot_steps(p, k), bits);
    format_options(p, in);
}

void dmlcl__resample1_plan_launch(dmlcl__resample1_plan *p, const dmlcl__tensor *in,
                                  const dmlcl__tensor *out, const dmlcl__limits *lim,
                                  const dmlcl__r1_tune *tune, int force_idx64)
{
    launch(p, in, out, lim, tune, force_idx64, NULL);
}

void dmlcl__resample1_plan_launch_part(dmlcl__resample1_plan *p, const dmlcl__tensor *in,
                                       const dmlcl__tensor *out, const dmlcl__limits *lim,
                                       const dmlcl__r1_tune *tune, int force_idx64,
                                       dmlcl__whole_dims *wd)
{
    launch(p, in, out, lim, tune, force_idx64, wd);
}

/* Whether the CPU row blocks' pairs of rows keep their weight products from pair to pair
 * (the kernel's CR_KEEP): LINEAR along a resampled row with patterns, outer dimensions
 * resampled (rows pair up), where a block's products fit DMLCL_R1_CPU_KEEP bytes: rows of
 * at most 128 floats on AVX2 with three resampled dimensions. There a term costs a load,
 * not a multiply (AVX2, trilinear 2x, --mb 128, alternating: 0.27-0.31 -> 0.34-0.45 of
 * memcpy); longer rows would spill the products out of the L1 cache. */
static int cpu_keep(const dmlcl__resample1_plan *p, uint32_t acc_bytes)
{
    if (!p->cpu_rows || !p->linear || !p->inner_res || !p->cpu_np || p->nr < 2)
        return 0;
    const uint64_t n = p->inner_size < DMLCL_R1_CPU_BLOCK ? p->inner_size : DMLCL_R1_CPU_BLOCK;
    const uint64_t vectors = (n + p->cpu_w - 1) / p->cpu_w, corners = 1ull << (p->nr - 1);
    return vectors * corners * 4 * p->cpu_w * acc_bytes <= DMLCL_R1_CPU_KEEP;
}

/* The plan's build options (p->options): its variant. */
static void format_options(dmlcl__resample1_plan *p, const dmlcl__tensor *in)
{
    /* Row kernels: the outer loops unroll to the dimensions there are (NPS, NRS), not to
     * all 8 slots, in the one order the plan has (PASS_INNER); the compiler otherwise
     * keeps every slot's argument fields in registers across the row loop (H200: the
     * linear rows kernel took 54-66 registers, half the threads resident). */
    char rows[512] = "";
    if (p->rows_2d && p->linear)
        snprintf(rows, sizeof rows, " -DNPS=%u -DPASS_INNER=%d", p->np, p->pass_inner);
    else if (p->rows_2d)
        snprintf(rows, sizeof rows, " -DNPS=%u -DNRS=%u -DPASS_INNER=%d -DINNER_K=%u", p->np,
                 p->nr, p->pass_inner, p->inner_k);
    if (p->win)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DWPAT=0x%llx -DWIN=%u",
                 (unsigned long long)p->wpat, p->win);
    if (p->win && !p->linear)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DWPH=%u", p->wph);
    if (p->rows_2d && p->rv != DMLCL_R1_ROWS_VEC(p->linear))
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DRV=%u", p->rv);
    if (p->pair)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DPAIR_K=%u", p->pair_k);
    if (p->pair == 2)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DPAIR_K2=%u", p->pair_k2);
    if (p->rows_2d && p->rb > 1)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DRB=%u", p->rb);
    if (p->wplain)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DWPLAIN=1");
    /* Non-temporal stores for outputs beyond the caches (16 MiB). POCL, 2 cores, same
     * runs: nearest 2x NCHW 1.00 -> 1.30 and 0.92 -> 1.15 of memcpy; LINEAR, AVX2, --mb
     * 128, alternating runs on a shared host: linear 2x NCHW 0.55-0.65 -> 0.81-0.87,
     * channels-last 0.63-0.99 -> 1.01-1.11, linear 1.5x 0.45-0.63 -> 0.77-0.97. (An
     * earlier kernel, at trilinear 2x 4.5 GB/s, lost with them.) */
    if (p->cpu_rows)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DCR_W=%u%s", p->cpu_w,
                 cpu_window2(p) ? " -DCR_WIN2=1" : "");
    if (p->cpu_rows && p->cpu_nt)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DCR_NT=1");
    for (uint32_t i = 0; p->cpu_rows && i < p->cpu_np; i++) {
        const char *const sfxs[DMLCL_R1_CPU_PATTERNS] = {"", "2", "3", "4"};
        const char *sfx = sfxs[i];
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows),
                 " -DCR_PL%s=0x%llxul -DCR_PU%s=0x%llxul", sfx,
                 (unsigned long long)p->cpu_pl[i], sfx, (unsigned long long)p->cpu_pu[i]);
        if (p->cpu_high[i])
            snprintf(rows + strlen(rows), sizeof rows - strlen(rows),
                     " -DCR_PLH%s=0x%x -DCR_PUH%s=0x%x", sfx, p->cpu_high[i] & 0xffff, sfx,
                     p->cpu_high[i] >> 16);
    }
    if (cpu_keep(p, in->type == DMLCL_TENSOR_DATA_TYPE_FLOAT64 ? 8 : 4))
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows), " -DCR_KEEP=%u",
                 DMLCL_R1_CPU_KEEP);
    /* The register cap goes before the layout's options (tests match their end). */
    char cap[32] = "";
    if (p->regcap)
        snprintf(cap, sizeof cap, " -cl-nv-maxrregcount=%u", p->regcap);
    if (p->linear)
        snprintf(p->options, sizeof p->options,
                 "-DLINEAR=1 -DDTYPE=%d -DELEM_BYTES=%u -DK=%u -DV=%u -DINNER_RES=%d "
                 "-DINNER_K=%d -DIDX64=%d%s%s",
                 (int)in->type, in->elem_size, p->nr, p->vec, p->inner_res,
                 p->inner_res ? (int)p->inner_k : p->seg2 ? (int)p->inner2_k : -1, p->idx64,
                 cap, rows);
    else
        snprintf(p->options, sizeof p->options,
                 "-DLINEAR=0 -DELEM_BYTES=%u -DV=%u -DINNER_RES=%d -DIDX64=%d%s", in->elem_size,
                 p->vec, p->inner_res, p->idx64, rows);
}

int dmlcl__resample1_plan_generic(const dmlcl__resample1_plan *p, const dmlcl__tensor *in,
                                  dmlcl__resample1_plan *g)
{
    if (!p->cpu_np && !p->win && !p->pair)
        return 0;
    *g = *p;
    g->cpu_np = 0;
    g->wpat = g->win = g->wph = 0;
    g->wplain = 0;
    g->regcap = 0;
    g->pair = 0; /* the slots count their rows again, not their groups */
    for (uint32_t k = 0; k < g->nr; k++)
        g->rdiv[k] = dmlcl__fastdiv_make(g->rsize[k], g->idx64 ? 64 : 32);
    format_options(g, in);
    return 1;
}

/* Pair slot k's groups, written from table row gtab (room for the bound, its size, zeroed
 * first); returns their count, and the row split divides by it from now on. */
static uint64_t fill_groups(dmlcl__resample1_plan *p, uint32_t k, uint64_t gtab,
                            uint32_t *table)
{
    const uint32_t words = DMLCL_RESAMPLE1_WORDS(p->linear);
    memset(table + gtab * words, 0, p->rsize[k] * 2 * 4);
    const uint64_t groups = group_rows(table + p->rtab[k] * words, p->rsize[k], words,
                                       table + gtab * words);
    p->rdiv[k] = dmlcl__fastdiv_make(groups, p->idx64 ? 64 : 32);
    return groups;
}

void dmlcl__resample1_fill(dmlcl__resample1_plan *p, uint32_t *table)
{
    const uint32_t words = DMLCL_RESAMPLE1_WORDS(p->linear);
    for (uint32_t k = 0; k < p->nr; k++) {
        const dim_fn f = slot_fn(p, k);
        int shared = 0;
        for (uint32_t j = 0; j < k; j++)
            shared |= p->rtab[j] == p->rtab[k];
        if (shared)
            continue; /* an earlier dimension's rows: written already */
        uint32_t *t = table + p->rtab[k] * words;
        for (uint64_t o = 0; o < p->rsize[k]; o++, t += words) {
            float w;
            t[0] = row(&f, o, &w);
            if (p->linear)
                memcpy(&t[1], &w, sizeof w);
        }
    }
    if (p->pair)
        p->pair_groups = fill_groups(p, p->pair_k, p->gtab, table);
    if (p->pair == 2)
        p->pair_groups2 = fill_groups(p, p->pair_k2, p->gtab2, table);
}
