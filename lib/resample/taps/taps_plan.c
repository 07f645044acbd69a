/* The tap engine's launch plan (taps_plan.h): which kernel layout (the 1-D kernels, the
 * rows kernel on GPUs, the segment kernel on CPUs), its NDRange, the channels per item, the
 * segment kernel's lane pattern, the index width and the build options. Pure: no OpenCL
 * call (tests/check_taps_planner.c). */
#include "resample/taps/taps_plan.h"
#include <stdio.h>
#include <string.h>

void dmlcl__taps_plan_init(dmlcl__taps_plan *p, const dmlcl__tensor *src,
                           const dmlcl__tensor *res)
{
    (void)src;
    memset(p, 0, sizeof *p);
    p->args.count = res->elements;
    p->args.rank = res->rank;
    for (uint32_t d = 0; d < 8; d++)
        p->args.rsize[d] = 1;
    p->tp[0] = -1;
}

void dmlcl__taps_plan_dim(dmlcl__taps_plan *p, const dmlcl__tensor *src,
                          const dmlcl__tensor *res, uint32_t d, const dmlcl__taps_dim *dim)
{
    taps_args *a = &p->args;
    a->rsize[d] = res->sizes[d];
    a->rstr[d] = res->strides[d];
    if (dim->row_word == UINT64_MAX) { /* affine: a stride, its first index in the base */
        p->src_base += dim->first * src->strides[d];
        a->sstr[d] = dim->step * src->strides[d];
        a->rtab[d] = ~(dmlcl__arg)0;
    } else {
        a->sstr[d] = src->strides[d];
        a->rtab[d] = dim->row_word;
        a->nt++;
    }
}

/* The dimension longer than 1 with the smallest result stride, other than `skip`; -1 if
 * none. */
static int innermost(const taps_args *a, int skip)
{
    int b = -1;
    for (int d = 0; d < (int)a->rank; d++)
        if (d != skip && a->rsize[d] > 1 && (b < 0 || a->rstr[d] <= a->rstr[b]))
            b = d;
    return b;
}

/* The most taps of any row of tabled dimension d (at least 1). */
static uint32_t most_taps(const taps_args *a, const dmlcl__taps_table *t, int d)
{
    uint32_t most = 1;
    for (uint64_t x = 0; x < a->rsize[d]; x++) {
        uint32_t n = t->words[a->rtab[d] + 3 * x + 1];
        most = n > most ? n : most;
    }
    return most;
}

/* The rows kernel's KF: the most taps of any row of its outer tabled dimension f (the one
 * nearest b), rounded up to 1, 2, 4 or 8; 0 for more than 8 (a loop to each row's count). */
static uint32_t outer_tap_bound(const taps_args *a, const dmlcl__taps_table *t)
{
    int f = -1;
    for (unsigned d = 0; d < a->rank; d++)
        if (a->rtab[d] != ~(dmlcl__arg)0 && d != a->inner)
            f = (int)d;
    const uint32_t kf = f >= 0 ? most_taps(a, t, f) : 1;
    return kf <= 1 ? 1 : kf <= 2 ? 2 : kf <= 4 ? 4 : kf <= 8 ? 8 : 0;
}

/* The rows kernel's columns: the innermost dimension if it is tabled, else (channels-last)
 * the innermost affine dimension c inside the next one. That tabled dimension b must be
 * the last tabled one (so that its taps run innermost, as in the other kernels), with at
 * most 8 taps per coordinate and at most 3 tabled dimensions. Returns b's tap bound KB (1,
 * 2, 4 or 8; 0 = the rows kernel does not apply). */
static unsigned rows_taps(dmlcl__taps_plan *p, const dmlcl__taps_table *t)
{
    taps_args *a = &p->args;
    int b = innermost(a, -1), c = 8;
    if (b >= 0 && a->rtab[b] == ~(dmlcl__arg)0) {
        c = b;
        b = innermost(a, c);
    }
    if (b < 0 || a->nt > 3 || a->rtab[b] == ~(dmlcl__arg)0)
        return 0;
    for (int d = b + 1; d < (int)a->rank; d++)
        if (a->rtab[d] != ~(dmlcl__arg)0)
            return 0;
    uint32_t most = most_taps(a, t, b);
    if (most > 8)
        return 0;
    a->inner = (dmlcl__arg)b;
    a->cdim = (dmlcl__arg)c;
    a->nc = c < 8 ? a->rsize[c] : 1;
    a->nx = a->rsize[b] * a->nc;
    a->rows = a->count / a->nx;
    a->btab = a->rtab[b];
    a->bstr = a->sstr[b];
    a->bres = a->rstr[b];
    a->csrc = c < 8 ? a->sstr[c] : 0;
    a->cres = c < 8 ? a->rstr[c] : 0;
    return most <= 1 ? 1 : most <= 2 ? 2 : most <= 4 ? 4 : 8;
}

/* FLOAT32 channels-last on the rows kernel: runs of 4 contiguous channels in both
 * tensors (8 with v=8 in $DMLCL_RESAMPLE_PLAN), every other stride and the fixed source
 * offset a multiple of that, become one item each (-DCV: one vector load per tap). v=1
 * turns it off; v=N > 1 allows it on CPUs, for the tests. On an H200 the backward pass of
 * linear 2x NHWC (C = 8) went from 4.4 ms to 2.9 ms with runs of 8, and to 2.2 ms with
 * runs of 4 (two items a pixel: 4 taps' vectors in flight hold half the registers). */
static void pick_cv(dmlcl__taps_plan *p, const dmlcl__tensor *src, const dmlcl__limits *lim,
                    const dmlcl__r1_tune *tune)
{
    taps_args *a = &p->args;
    p->cv = 1;
    if (src->type != DMLCL_TENSOR_DATA_TYPE_FLOAT32 || a->cdim >= 8 || a->csrc != 1 ||
        a->cres != 1 || (tune->vec ? tune->vec == 1 : lim->is_cpu))
        return;
    unsigned cv = tune->vec >= 8 && a->nc % 8 == 0 ? 8 : a->nc % 4 == 0 ? 4 : 1;
    for (uint32_t d = 0; d < a->rank; d++)
        if (d != a->cdim && (a->sstr[d] % cv || a->rstr[d] % cv))
            cv = 1;
    if (cv == 1 || p->src_base % cv)
        return;
    p->cv = cv;
    a->nc /= cv;
    a->nx /= cv;
}

/* Groups down the rows for a 2-D launch of groups0 x local2 items: 64 per compute unit in
 * all (gpc=N in $DMLCL_RESAMPLE_PLAN: N; at most 65535, NVIDIA's limit), each item looping
 * over the rest. On an H200, 16 groups per unit ran the backward pass of linear 2x in 5.1
 * ms, 64 in 4.5, 256 in 4.4. */
static void rows_groups(dmlcl__taps_plan *p, const dmlcl__limits *lim,
                        const dmlcl__r1_tune *tune, uint64_t groups0)
{
    const uint64_t gpc = tune->gpc ? tune->gpc : 64;
    uint64_t want1 = (uint64_t)lim->compute_units * gpc / groups0;
    uint64_t need1 = (p->args.rows + p->local2[1] - 1) / p->local2[1];
    uint64_t groups1 = need1 < want1 ? need1 : want1;
    groups1 = groups1 < 1 ? 1 : groups1 > 65535 ? 65535 : groups1;
    p->global2[0] = (size_t)(groups0 * p->local2[0]);
    p->global2[1] = (size_t)(groups1 * p->local2[1]);
    p->rows_2d = 1;
}

/* Column x's first tap's source offset, as the kernel's column_taps computes it. */
static uint64_t column_first(const taps_args *a, const dmlcl__taps_table *t, uint64_t x)
{
    uint64_t xb = x / a->nc, xc = x - xb * a->nc;
    return (uint64_t)t->words[a->btab + 3 * xb] * a->bstr + xc * a->csrc;
}

/* Vector v's w lane offsets into p (each below 2w, the window); 0 if they do not fit. */
static int vector_offsets(const taps_args *a, const dmlcl__taps_table *t, uint64_t v,
                          unsigned w, int *off)
{
    int ok = 1;
    uint64_t b = column_first(a, t, v * w);
    for (unsigned l = 0; l < w; l++) {
        uint64_t o = column_first(a, t, v * w + l);
        ok &= o >= b && o - b < 2 * w;
        off[l] = ok ? (int)(o - b) : 0;
    }
    return ok;
}

/* The segment kernel's pattern (TP): the lane offsets (ob[x0 + l] - ob[x0], each below
 * 2 tpw) that most of up to 16 whole vectors of tpw columns share, where that is at least
 * half of them; else p->tp[0] = -1. Of patterns as common, a later vector's: a row's
 * first vector has its first column clamped (rows of two vectors, GRAD1 of linear 2x,
 * took 0, 1, 3, 5, .. and then gathered every other vector). The kernel checks every
 * vector against it (and every tap), so this only picks. */
static void pick_tp(dmlcl__taps_plan *p, const dmlcl__taps_table *t)
{
    const taps_args *a = &p->args;
    const unsigned w = p->tpw;
    p->tp[0] = -1;
    uint64_t nv = a->nx / w;
    if (p->segt % w || nv == 0)
        return;
    uint64_t step = nv > 16 ? nv / 16 : 1, best = 0, seen = (nv + step - 1) / step;
    int cand[16];
    for (uint64_t v = 0; v < nv; v += step) {
        int off[16];
        if (!vector_offsets(a, t, v, w, off))
            continue;
        /* Count the vectors sampled with this pattern (a scan; at most 16 x 16). */
        uint64_t same = 0;
        for (uint64_t u = 0; u < nv; u += step) {
            uint64_t c = column_first(a, t, u * w), l = 0;
            while (l < w && column_first(a, t, u * w + l) == c + (uint64_t)off[l])
                l++;
            same += l == w;
        }
        if (same >= best) /* a tie: the later vector's, further from the row's start */
            best = same, memcpy(cand, off, sizeof cand);
        if (best * 2 > seen)
            break; /* a majority already */
    }
    if (best * 2 < seen)
        return;
    memcpy(p->tp, cand, sizeof cand);
}

/* The rows kernel's columns per item (its XC): where one channel per column and an outer
 * tap bound (KF) let a row's outer taps serve them all. H200, `dmlcl bench --mb 1024`
 * (xc=1 / 2 / 4 / 8): antialias 0.5x 0.43 / 0.54-0.55 / 0.37 / 0.21 of copy, GRAD1 of
 * linear 2x 0.43 / 0.57 / 0.40 / 0.23 (4 and 8: registers). H100, GRAD1 of trilinear 2x
 * (three tabled dimensions, xc=1 / 2 / 3): 0.28 / 0.35 / 0.30, backward/forward 2.98x /
 * 2.38x / 2.74x. */
static unsigned pick_xc(const dmlcl__taps_plan *p, const dmlcl__taps_table *t,
                        const dmlcl__limits *lim, const dmlcl__r1_tune *tune)
{
    if (p->cv > 1 || !outer_tap_bound(&p->args, t))
        return 1;
    /* Volumes share two outer dimensions' taps among the columns: four an item. GRAD1 of
     * trilinear 2x, backward/forward with xc=2 / 4: H200 2.39x / 2.21x, H100 2.39x /
     * 2.17x (xc=4 on images: GRAD1 of linear 2x 1.25x -> 1.75x, antialias 0.72 -> 0.50
     * of copy, H100). */
    return tune->xc ? tune->xc : lim->is_cpu ? 1 : p->args.nt == 3 ? 4 : 2;
}

/* The column kernels where they apply, with at least 32 columns ($DMLCL_RESAMPLE_PLAN's
 * rows=1: any; rows=0: never). GPUs: the rows kernel, a group of up to 256 items spanning
 * the columns (or several rows where they are few), each item reusing its register-held
 * taps down the rows (the backward pass of linear 2x on an H200: 11.1 ms with the 1-D
 * kernel, 4.5 ms). CPUs (or seg=N): the segment kernel, 512 columns per item, at most
 * 512 (2-core POCL: 0.33 GB/s with the 1-D kernel, 0.64 rows, 2.2 segments of 64, 3.2 of
 * 256; with the vector pattern and row blocks the backward pass of linear 2x ran 7.3 GB/s
 * with segments of 256, 10.0 of 512, 9.0 of 1024: a whole source row per item streams).
 * Returns KB, 0 for the 1-D kernels. */
static unsigned plan_rows(dmlcl__taps_plan *p, const dmlcl__taps_table *t,
                          const dmlcl__tensor *src, const dmlcl__limits *lim,
                          const dmlcl__r1_tune *tune)
{
    int want = tune->rows != 0;
    unsigned kb = want ? rows_taps(p, t) : 0;
    if (!kb || (tune->rows < 0 && p->args.nx < 32))
        return 0;
    size_t wg = tune->wg ? tune->wg : lim->is_cpu ? 64 : 256, l0 = 1;
    if (lim->max_work_group_size && wg > lim->max_work_group_size)
        wg = lim->max_work_group_size;
    int seg = tune->seg >= 0 ? tune->seg : lim->is_cpu ? 512 : 0;
    if (seg) {
        /* Segments: items of seg columns, groups of 8 items down the rows (one POCL
         * compile), rows shared out as for the rows kernel. */
        p->segt = (unsigned)(seg < 512 ? seg : 512);
        p->local2[0] = 1;
        p->local2[1] = wg < 8 ? wg : 8;
        rows_groups(p, lim, tune, (p->args.nx + p->segt - 1) / p->segt);
        p->tp[0] = -1;
        /* Lanes of the accumulators: float, double for FLOAT64. */
        p->tpw = dmlcl__simd_lanes(lim, src->elem_size == 8 ? 8 : 4, 2);
        if (tune->tp != 0 && (tune->tp > 0 || lim->is_cpu))
            pick_tp(p, t);
        return kb;
    }
    pick_cv(p, src, lim, tune);
    p->xc = pick_xc(p, t, lim, tune);
    const uint64_t items = (p->args.nx + p->xc - 1) / p->xc;
    while (l0 < wg && l0 < items)
        l0 *= 2;
    p->local2[0] = l0;
    p->local2[1] = wg / l0 ? wg / l0 : 1;
    rows_groups(p, lim, tune, (items + l0 - 1) / l0);
    return kb;
}

/* The kernels' multiply-high division by n (kernels/core/common.cl's fdiv). */
static void set_div(uint64_t n, int idx64, dmlcl__arg *mul, dmlcl__arg *shr)
{
    dmlcl__fastdiv f = dmlcl__fastdiv_make(n, idx64 ? 64 : 32);
    *mul = f.mul;
    *shr = f.sh1 | (dmlcl__arg)f.sh2 << 8;
}

/* The 1-D kernels' NDRange (the rows kernel's is set already); index width and the
 * multiply-high divisors. Returns IDX64. */
static int plan_1d(dmlcl__taps_plan *p, const dmlcl__tensor *src, const dmlcl__tensor *res,
                   const dmlcl__limits *lim, int force_idx64)
{
    dmlcl__plan_ndrange(p->args.count, lim, &p->global, &p->local);
    if (lim->is_cpu) {
        /* POCL compiles once per work-group size: a fixed group, as RESAMPLE1 does. */
        size_t wg = lim->max_work_group_size < 64 ? lim->max_work_group_size : 64;
        p->local = wg ? wg : 1;
        p->global = (p->global + p->local - 1) / p->local * p->local;
    }
    const uint64_t lim32 = (uint64_t)1 << 32;
    /* The rows kernel's items past the inner dimension's end compute offsets they never
     * store to; wrapping there is harmless. */
    uint64_t items = p->args.count + (p->rows_2d ? p->global2[1] : p->global);
    int idx64 = items >= lim32 || src->span >= lim32 || res->span >= lim32 || force_idx64;
    taps_args *a = &p->args;
    for (int d = 0; d < 8; d++)
        set_div(a->rsize[d], idx64, &a->rmul[d], &a->rshr[d]);
    set_div(a->nc ? a->nc : 1, idx64, &a->cmul, &a->cshr);
    return idx64;
}

/* The rows kernel's outer loop as build options: the rank (RS), the column dimensions it
 * skips (BDIM, CDIM) and which dimensions are tabled (TMASK), so that it unrolls to the
 * dimensions there are and no branch depends on the arguments (otherwise GPU compilers
 * keep all 8 slots' fields in registers across the row loop); and KF, the most taps of
 * any row of the outer tabled dimension f (0: more than 8, a loop to each row's count).
 * Images with several columns an item (XC): BRUN where each column's KB taps can be KB
 * consecutive source elements, b's source stride 1 and its source rows at least KB long
 * (taps.cl's column_taps; volumes lost with it). */
static void rows_options(const taps_args *a, const dmlcl__taps_table *t, unsigned xc,
                         unsigned kb, const dmlcl__tensor *src, char *buf, size_t cap)
{
    unsigned mask = 0;
    for (unsigned d = 0; d < a->rank; d++)
        mask |= (unsigned)(a->rtab[d] != ~(dmlcl__arg)0) << d;
    int n = snprintf(buf, cap, " -DRS=%u -DBDIM=%u -DCDIM=%u -DTMASK=0x%x -DKF=%u",
                     (unsigned)a->rank, (unsigned)a->inner, (unsigned)a->cdim, mask,
                     outer_tap_bound(a, t));
    const int run = a->nt == 2 && a->bstr == 1 && src->sizes[a->inner] >= kb;
    if (xc > 1 && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " -DXC=%u%s", xc, run ? " -DBRUN=1" : "");
}

/* " -DTPW=w -DTP=a,b,...": the w lane offsets (each 0..31) without w snprintf calls. */
static void tp_options(const int *tp, unsigned w, char *out)
{
    char *s = out + sprintf(out, " -DTPW=%u -DTP=", w);
    for (unsigned l = 0; l < w; l++) {
        const int v = tp[l] < 0 ? 0 : tp[l] > 99 ? 99 : tp[l];
        if (l)
            *s++ = ',';
        if (v >= 10)
            *s++ = (char)('0' + v / 10);
        *s++ = (char)('0' + v % 10);
    }
    *s = 0;
}

/* The segment kernel's non-temporal stores (SEGNT): FLOAT32 results where they pay
 * (dmlcl__nt_stores_pay, as for RESAMPLE1's CR_NT; $DMLCL_RESAMPLE_PLAN's nt=0|1
 * decides), where the kernel writes whole 64-byte lines of a row: writing a line
 * then costs no read of it first. In the pattern's program only, so that the generic one
 * serves every size. The 2-core host (AVX2, `--mb 128`, alternating with plain stores,
 * ratio to copy): five rounds of 5 runs, GRAD1 of linear 2x 0.42-0.48 -> 0.49-0.54,
 * channels-last 0.55-0.60 -> 0.62-0.67; four of 9 runs, 0.43-0.47 -> 0.46-0.52 and
 * 0.54-0.60 -> 0.55-0.66 (a noisy host: three more rounds of 5 runs showed linear 2x the
 * same either way). */
static int pick_seg_nt(const dmlcl__taps_plan *p, const dmlcl__tensor *res,
                       const dmlcl__limits *lim, const dmlcl__r1_tune *tune)
{
    if (!p->segt || p->tp[0] < 0 || res->type != DMLCL_TENSOR_DATA_TYPE_FLOAT32)
        return 0;
    return tune->nt >= 0 ? tune->nt
                         : dmlcl__nt_stores_pay(lim, p->args.count * res->elem_size);
}

void dmlcl__taps_plan_launch(dmlcl__taps_plan *p, const dmlcl__taps_table *t,
                             const dmlcl__tensor *src, const dmlcl__tensor *res,
                             const dmlcl__limits *lim, const dmlcl__r1_tune *tune,
                             int force_idx64)
{
    p->tp[0] = -1;
    const unsigned kb = plan_rows(p, t, src, lim, tune);
    p->kb = kb;
    p->args.sspan = src->span - p->src_base;
    p->idx64 = plan_1d(p, src, res, lim, force_idx64);
    char rows[96] = "", tp[96] = "";
    if (kb && p->rows_2d && !p->segt) /* GPUs' rows kernel (CPUs keep fewer programs) */
        rows_options(&p->args, t, p->xc, kb, src, rows, sizeof rows);
    if (kb && p->segt && p->tp[0] >= 0)
        tp_options(p->tp, p->tpw, tp);
    p->seg_nt = pick_seg_nt(p, res, lim, tune); /* with a pattern: kb > 0 */
    if (p->seg_nt)
        strcat(tp, " -DSEGNT=1");
    snprintf(p->options, sizeof p->options,
             "-DDTYPE=%d -DELEM_BYTES=%u -DIDX64=%d -DNT2=%d -DNT3=%d -DKB=%u -DSEGT=%u -DCV=%u%s",
             (int)src->type, src->elem_size, p->idx64, p->args.nt == 2,
             kb && p->args.nt == 3, kb, p->segt, p->cv ? p->cv : 1, rows);
    /* The pattern's program (lib/core/specialize.h): the generic one where there is none. */
    snprintf(p->options_tp, sizeof p->options_tp, "%.*s%s",
             (int)(sizeof p->options_tp - sizeof tp), p->options, tp);
    p->kernel = p->segt ? "resample_taps_seg" : p->rows_2d ? "resample_taps_rows"
                                                           : "resample_taps";
}
