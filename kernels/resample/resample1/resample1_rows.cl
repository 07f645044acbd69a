/* RESAMPLE1's 2-D row layout (resample1/family.cl): dimension 0 along the row, dimension 1
 * over rows. */

/* Outputs per item of the 2-D row kernels (lib/resample/resample1/resample1_plan.h's DMLCL_R1_ROWS_VEC):
 * LINEAR 4 (one 16-byte store for FLOAT32) unless the option RV says 8 or 16 (the plan's
 * rv: more outputs share more of the window's columns), nearest 8. Measured on an H200: linear 2x
 * 0.42 of copy with 4, 0.41 with 8 (downsampling 0.98 and 0.52); nearest 2x 0.40 with 4,
 * 0.73 with 8, 0.66 with 16. */
#ifndef RV
#if LINEAR
#define RV 4 /* -DRV=8 or 16: the plan's rv (rv=N in $DMLCL_RESAMPLE_PLAN) */
#else
#define RV 8
#endif
#endif
#if RV != 4 && RV != 8 && RV != 16 && !(LINEAR && RV == 12)
#error "RV must be 4, 8 or 16 (LINEAR: or 12)"
#endif
/* Consecutive rows per item and step (the plan's rb; LINEAR pairs: groups of rows), the
 * loop over them unrolled: an item's rows share the input rows its loads bring into the
 * cache, and each row's loads are independent of the others'. */
#ifndef RB
#define RB 1
#endif
/* The row loop: rows in blocks of RB, blocks in grid stride down the range's dimension 1
 * (the plan keeps rows + global size * RB below the index type's range). */
#ifdef DMLCL_CPU
#define UNROLL_RB
#else
#define UNROLL_RB _Pragma("unroll")
#endif
/* (The one-trip loop declares rr; a `continue` in the body goes on to the next row.) */
#define FOR_ROWS(rr, rows)                                                                     \
    for (idx_t b_ = (idx_t)get_global_id(1) * RB; b_ < (rows);                                 \
         b_ += (idx_t)get_global_size(1) * RB)                                                 \
        UNROLL_RB for (int i_ = 0; i_ < RB; i_++)                                              \
            for (idx_t rr = b_ + (idx_t)i_, once_ = 1; once_ && rr < (rows); once_ = 0)

#if LINEAR && DTYPE == 2 && RV != 4 && RV != 12 && !(VEC_OK && V == RV)
DEFINE_STORE_HALF(RV) /* FLOAT16's vector store of a row's RV results (family.cl) */
#endif

/* The window (WIN, WPAT: lib/resample/resample1/resample1_plan.c's pick_window).
 * Neighbouring outputs of an upsampled row share input columns: linear 2x reads 4 columns
 * for 4 outputs, not 8. An item whose outputs fit loads WIN consecutive columns (LINEAR: of
 * each outer corner) once per row and picks output j's (lower) column at window entry
 * PAT(j), LINEAR's upper one next to it; the entries are constants after unrolling, so
 * the window lives in registers. H200, linear 2x NCHW: 0.44 of copy with 16 loads per item
 * and row, 0.66 with 8. */
#ifndef WIN
#define WIN 0
#define WPAT 0
#endif
#if WIN
#if !INNER_RES || (LINEAR && K > 3)
#error "the window needs a resampled inner dimension and at most 3 resampled ones"
#endif
#define PAT(j) ((int)(((ulong)(WPAT) >> (4 * (j))) & 15))

/* Whether outputs with (LINEAR: lower) columns i0 read columns base + PAT(j), clamped to
 * the row of n as the window loads them. LINEAR's upper column, the window's next, is then
 * i0 + 1 too: only i0 = n - 1 clamps it, and there the weight is 0. */
static int window_fits_at(const uint *i0, long base, long n)
{
    int ok = 1;
#pragma unroll
    for (int j = 0; j < RV; j++)
        ok &= clamp(base + PAT(j), 0L, n - 1) == (long)i0[j];
    return ok;
}

/* The window's first column (anchored at the last output, else the first: edges clamp
 * one or the other), or 0 where the outputs do not fit. The host checked a sample of
 * items; each checks itself, so a misfit costs speed, never a wrong result. */
static int window_start(const uint *i0, long n, long *base)
{
    *base = (long)i0[RV - 1] - PAT(RV - 1);
    if (window_fits_at(i0, *base, n))
        return 1;
    *base = (long)i0[0] - PAT(0);
    return window_fits_at(i0, *base, n);
}
#endif

#if !LINEAR
/* An item's RV gathered elements v, to output row oo: one vector store where it can (on
 * CPUs, where they fit a register), else those within the row. */
static inline void store_gathered(__global bits_t *out, ulong out_off, const resample1_args *a,
                                  idx_t oo, idx_t x0, const bits_t *v)
{
#if RV * ELEM_BYTES <= VEC_REG_BYTES /* CPUs: a register at most (family.cl) */
    if (vec_store_ok(a, out_off, oo, x0, RV)) {
        STORE_BITS(RV, out + oo + x0, v);
        return;
    }
#endif
#pragma unroll
    for (int j = 0; j < RV; j++)
        if (x0 + j < (idx_t)a->inner_size)
            out[oo + (x0 + j) * (idx_t)a->inner_out] = v[j];
}

#if WIN
/* The window's columns from p, its first (WPH elements past a multiple of 4, whole within
 * the row): single loads up to the next multiple, 4-element vector loads, single loads
 * after them. H200, nearest 2x NCHW (one vector of 4 for 8 outputs, not 8 loads): 0.90 ->
 * 0.92-0.93 of copy. */
#ifndef WPH
#define WPH 0
#endif
#define WHEAD ((4 - WPH) % 4)
#define WBODY (WIN > WHEAD ? (WIN - WHEAD) / 4 * 4 : 0)
static inline void window_vectors(__global const bits_t *p, bits_t *win)
{
#pragma unroll
    for (int t = 0; t < WIN; t++) {
        if (t < WHEAD || t >= WHEAD + WBODY)
            win[t] = p[t];
        else if ((t - WHEAD) % 4 == 0)
            CAT(vstore, 4)(*(__global const CAT(BITS_BASE, 4) *)(p + t), 0, win + t);
    }
}

/* resample1_gather_rows for an item whose columns fit the window at base (window_start). */
static void gather_window(__global const bits_t *in, ulong in_off, __global bits_t *out,
                          ulong out_off, __global const uint *tab, const resample1_args *a,
                          idx_t x0, long base)
{
    const long n = (long)a->inner_nin;
    /* Vector loads where the window's columns are consecutive elements: unclamped. */
    const int vec = a->inner_in == 1 && base >= 0 && base + WIN <= n;
    idx_t col[WIN];
#pragma unroll
    for (int t = 0; t < WIN; t++)
        col[t] = (idx_t)clamp(base + t, 0L, n - 1) * (idx_t)a->inner_in;
    const idx_t rows = (idx_t)a->rows;
    FOR_ROWS(r, rows) {
        idx_t io = 0, oo = 0;
        outer_gather(r, a, tab, &io, &oo);
        bits_t win[WIN], v[RV];
        if (vec && (((uint)in_off + (uint)io + (uint)base) & 3u) == WPH) {
            window_vectors(in + io + base, win);
        } else {
#pragma unroll
            for (int t = 0; t < WIN; t++)
                win[t] = in[io + col[t]];
        }
#pragma unroll
        for (int j = 0; j < RV; j++)
            v[j] = win[PAT(j)];
        store_gathered(out, out_off, a, oo, x0, v);
    }
}
#endif

/* Resampled inner dimension: a 2-D range, dimension 0 along the row (RV outputs per item,
 * neighbouring items on neighbouring vectors: coalesced), dimension 1 over rows (looping).
 * An item reads its inner table rows once and reuses them for every row it visits; per row
 * it pays only the outer coordinates. The planner's choice on GPUs for a resampled inner
 * dimension. */
__kernel void resample1_gather_rows(__global const bits_t *in, ulong in_off,
                                    __global bits_t *out, ulong out_off,
                                    __global const uint *tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t w = (idx_t)a.inner_size, x0 = (idx_t)get_global_id(0) * RV;
    if (x0 >= w)
        return;
    uint xi[RV]; /* input columns along the inner dimension (clamped past the row's end) */
#pragma unroll
    for (int j = 0; j < RV; j++)
        xi[j] = tab[(idx_t)a.inner_tab + min(x0 + j, w - 1)];
#if WIN
    long base;
    if (window_start(xi, (long)a.inner_nin, &base)) {
        gather_window(in, in_off, out, out_off, tab, &a, x0, base);
        return;
    }
#endif
    idx_t xo[RV]; /* their offsets */
#pragma unroll
    for (int j = 0; j < RV; j++)
        xo[j] = (idx_t)xi[j] * (idx_t)a.inner_in;
    const idx_t rows = (idx_t)a.rows;
    FOR_ROWS(r, rows) {
        idx_t io = 0, oo = 0;
        outer_gather(r, &a, tab, &io, &oo);
        bits_t v[RV];
#pragma unroll
        for (int j = 0; j < RV; j++)
            v[j] = in[io + xo[j]];
        store_gathered(out, out_off, &a, oo, x0, v);
    }
}

#else /* LINEAR */

/* One row of a row kernel item's RV outputs, each from its own corner loads: the inner
 * slot's offset, step and weight are the item's (xlo, xhi, xw). */
static void corners_row(__global const elem_t *in, idx_t io, const idx_t *lo, const idx_t *hi,
                        const float *w, const idx_t *xlo, const idx_t *xhi, const float *xw,
                        acc_t *res, int plain)
{
#pragma unroll
    for (int j = 0; j < RV; j++) {
        idx_t lo_j[K], hi_j[K];
        float w_j[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int here = k == INNER_K;
            lo_j[k] = here ? xlo[j] : lo[k];
            hi_j[k] = here ? xhi[j] : hi[k];
            w_j[k] = here ? xw[j] : w[k];
        }
        res[j] = interpolate(in, io, lo_j, hi_j, w_j, plain);
    }
}

/* corners_row, the plain sum where it is exact (family.cl's TERM), in programs without the
 * window and with at most 2 resampled dimensions: elsewhere the second copy of the sum
 * made the whole kernel slower, window path included (H200, trilinear 2x on 4 GiB tiles:
 * 5.0 -> 9.8 ms). */
static inline void corners_results(__global const elem_t *in, idx_t io, const idx_t *lo,
                                   const idx_t *hi, const float *w, const idx_t *xlo,
                                   const idx_t *xhi, const float *xw, acc_t *res)
{
#if !(defined(WIN) && WIN) && K <= 2
    corners_row(in, io, lo, hi, w, xlo, xhi, xw, res, 1);
    if (!plain_exact(res, RV))
#endif
        corners_row(in, io, lo, hi, w, xlo, xhi, xw, res, 0);
}

/* A row kernel item's RV results: one vector store where it can (on CPUs, where RV results
 * fit a register: family.cl's VEC_REG_BYTES; 12 as three of 4), else those within the
 * row. */
static inline void store_row(__global elem_t *out, ulong out_off, const resample1_args *a,
                             idx_t oo, idx_t x0, const acc_t *res)
{
#if RV == 12 && 4 * (DTYPE == 9 ? 8 : 4) <= VEC_REG_BYTES
    if (vec_store_ok(a, out_off, oo, x0, 4) && x0 + RV <= (idx_t)a->inner_size) {
#pragma unroll
        for (int q = 0; q < RV; q += 4)
            STORE_VEC(4, out + oo + x0 + q, res + q);
        return;
    }
#elif RV != 12 && RV * (DTYPE == 9 ? 8 : 4) <= VEC_REG_BYTES
    if (vec_store_ok(a, out_off, oo, x0, RV)) {
        STORE_VEC(RV, ADDR_STEP(__global elem_t, out, oo + x0), res);
        return;
    }
#endif
#pragma unroll
    for (int j = 0; j < RV; j++)
        if (x0 + j < (idx_t)a->inner_size)
            STORE(out, oo + (x0 + j) * (idx_t)a->inner_out, res[j]);
}

#if WIN
/* Corner c's bit of the inner slot, and its index among the outer corners (c without it). */
#define INNER_BIT(c) (((c) >> (K - 1 - INNER_K)) & 1u)
#define OUTER(c) ((((c) >> (K - INNER_K)) << (K - 1 - INNER_K)) | \
                  ((c) & ((1u << (K - 1 - INNER_K)) - 1u)))

/* corners_row from the window, in two steps (pairs of rows share the first): each outer
 * corner's columns loaded once (the inner slot's lo and hi are 0, so corner() gives the
 * outer offset alone), then every output's terms in interpolate()'s order with its
 * arithmetic: the same bits. */
typedef acc_t window_t[1 << (K - 1)][WIN];

/* col: the window's column offsets, then (col[WIN]) its first column where the columns are
 * consecutive elements, else NO_RUN. With at most 2 resampled dimensions a row's loads
 * then step from one address by constants (H100, linear 1.5x 0.90 -> 0.92-0.93 of copy,
 * with ADDR_STEP's binding). A volume keeps the offsets: the choice between the two, made
 * per outer corner, kept its window's loads from being in flight together (trilinear 2x
 * 0.83 -> 0.76). */
#define NO_RUN ((idx_t)-1)
static inline void window_load(__global const elem_t *in, idx_t io, const idx_t *lo,
                               const idx_t *hi, const float *w, const idx_t *col, window_t win)
{
#pragma unroll
    for (uint c = 0; c < (1u << K); c++) {
        if (INNER_BIT(c))
            continue;
        idx_t off = io;
        corner(c, lo, hi, w, &off);
#if K <= 2
        if (col[WIN] != NO_RUN) {
            __global const elem_t *run = ADDR_STEP(__global const elem_t, in, off + col[WIN]);
#pragma unroll
            for (int t = 0; t < WIN; t++)
                win[OUTER(c)][t] = (acc_t)LOAD(run, t);
            continue;
        }
#endif
        __global const elem_t *row = in + off;
#pragma unroll
        for (int t = 0; t < WIN; t++)
            win[OUTER(c)][t] = (acc_t)LOAD(row, col[t]);
    }
}

/* The window's sum: the choice per term, or with WPLAIN (the plan's wplain) the plain sum,
 * redone with the choice where a result is not finite (family.cl's TERM says why that is
 * exact). H200, trilinear 2x with pairs in two dimensions: 0.58-0.59 -> 0.61-0.62 of copy
 * (linear 2x with pairs in one: 0.84 either way; trilinear with 8 outputs per item and
 * no pairs: 0.49 -> 0.32, the second copy's registers). */
#ifndef WPLAIN
#define WPLAIN 0
#endif

static inline void window_row(window_t win, const idx_t *lo, const idx_t *hi, const float *w,
                              const float *xw, acc_t *res, int plain)
{
#pragma unroll
    for (int j = 0; j < RV; j++) {
        float w_j[K];
#pragma unroll
        for (int k = 0; k < K; k++)
            w_j[k] = k == INNER_K ? xw[j] : w[k];
        acc_t acc = 0;
#pragma unroll
        for (uint c = 0; c < (1u << K); c++) {
            idx_t unused = 0;
            const acc_t wt = corner(c, lo, hi, w_j, &unused);
            const acc_t v = win[OUTER(c)][PAT(j) + INNER_BIT(c)];
            acc = TERM(plain, acc, wt, v);
        }
        res[j] = acc;
    }
}

/* A row's results from the window. */
static inline void window_results(window_t win, const idx_t *lo, const idx_t *hi,
                                  const float *w, const float *xw, acc_t *res)
{
    window_row(win, lo, hi, w, xw, res, WPLAIN);
#if WPLAIN
    if (!plain_exact(res, RV))
        window_row(win, lo, hi, w, xw, res, 0);
#endif
}

#ifdef PAIR_K
/* One output row of a pair step: from the window (use_win) or its own corner loads. */
static inline void pair_row(__global const elem_t *in, __global elem_t *out, ulong out_off,
                            const resample1_args *a, idx_t io, idx_t oo, idx_t x0,
                            const idx_t *lo, const idx_t *hi, const float *w,
                            const idx_t *xlo, const idx_t *xhi, const float *xw,
                            window_t win, int use_win)
{
    acc_t res[RV];
    if (use_win)
        window_results(win, lo, hi, w, xw, res);
    else
        corners_results(in, io, lo, hi, w, xlo, xhi, xw, res);
    store_row(out, out_off, a, oo, x0, res);
}

/* The n rows (1 or 2) of a PAIR_K group at oo: the first with w as it is, the second with
 * w_second along PAIR_K (w as it was again on return, for the next group of the step). */
static inline void pair_rows(__global const elem_t *in, __global elem_t *out, ulong out_off,
                             const resample1_args *a, idx_t io, idx_t oo, idx_t x0,
                             const idx_t *lo, const idx_t *hi, float *w, float w_second,
                             uint n, const idx_t *xlo, const idx_t *xhi, const float *xw,
                             window_t win, int use_win)
{
    pair_row(in, out, out_off, a, io, oo, x0, lo, hi, w, xlo, xhi, xw, win, use_win);
    if (n < 2)
        return;
    const float w_first = w[PAIR_K];
    w[PAIR_K] = w_second;
    pair_row(in, out, out_off, a, io, oo + (idx_t)a->rout[PAIR_K], x0, lo, hi, w, xlo, xhi,
             xw, win, use_win);
    w[PAIR_K] = w_first;
}

/* A pair step of the rows kernel: both rows from one window load (use_win, a constant
 * at each call) or each from its own corner loads (an item the window does not fit). */
static inline void pair_step(__global const elem_t *in, __global elem_t *out, ulong out_off,
                             const resample1_args *a, __global const uint2 *tab, idx_t rr,
                             idx_t x0, const idx_t *col, const idx_t *xlo, const idx_t *xhi,
                             const float *xw, int use_win)
{
    idx_t io = 0, oo = 0, lo[K], hi[K];
    float w[K], w2[2] = {0, 0};
    uint n2[2] = {1, 1};
    if (PASS_FIRST(a))
        pair_dims(pass_dims(rr, a, &io, &oo), a, tab, lo, hi, w, w2, n2, &oo);
    else
        pass_dims(pair_dims(rr, a, tab, lo, hi, w, w2, n2, &oo), a, &io, &oo);
    window_t win;
    if (use_win)
        window_load(in, io, lo, hi, w, col, win);
    pair_rows(in, out, out_off, a, io, oo, x0, lo, hi, w, w2[0], n2[0], xlo, xhi, xw, win,
              use_win);
#if PAIR_K2 < K
    if (n2[1] < 2)
        return;
    /* The second slot's second row, with each of the first slot's. */
    w[PAIR_K2] = w2[1];
    pair_rows(in, out, out_off, a, io, oo + (idx_t)a->rout[PAIR_K2], x0, lo, hi, w, w2[0],
              n2[0], xlo, xhi, xw, win, use_win);
#endif
}
#endif
#endif

/* The 2-D row layout of resample1_gather_rows for LINEAR: an item keeps its RV inner rows
 * (offset, step, weight; or its window's columns) in registers across the rows it visits.
 * One loop per path, so that neither holds the other's registers: on an H200 the rows
 * kernel with both in one loop took 54 registers (half the threads resident). */
__kernel void resample1_linear_rows(__global const elem_t *in, ulong in_off,
                                    __global elem_t *out, ulong out_off,
                                    __global const uint2 *tab, resample1_args a)
{
    /* The binding offsets on the addresses (common.cl's ADDR_STEP). H100, two rounds
     * against the pointer steps: trilinear 2x 0.83 -> 0.85 of copy, linear 1.5x 0.90 ->
     * 0.92-0.93 (with the window's runs above), linear 2x 0.92 either way. */
    in = ADDR_STEP(__global const elem_t, in, in_off);
    out = ADDR_STEP(__global elem_t, out, out_off);
    const idx_t w_in = (idx_t)a.inner_size, x0 = (idx_t)get_global_id(0) * RV;
    if (x0 >= w_in)
        return;
    idx_t xlo[RV], xhi[RV];
    uint xi[RV];
    float xw[RV];
#pragma unroll
    for (int j = 0; j < RV; j++) {
        const uint2 r = tab[(idx_t)a.inner_tab + min(x0 + j, w_in - 1)];
        xi[j] = r.x;
        xlo[j] = (idx_t)r.x * (idx_t)a.inner_in;
        xw[j] = as_float(r.y);
        xhi[j] = xw[j] != 0 ? (idx_t)a.inner_in : 0;
    }
    const idx_t rows = (idx_t)a.rows;
#if WIN
    long base;
    if (window_start(xi, (long)a.inner_nin, &base)) {
        idx_t col[WIN + 1];
#pragma unroll
        for (int t = 0; t < WIN; t++)
            col[t] = (idx_t)clamp(base + t, 0L, (long)a.inner_nin - 1) * (idx_t)a.inner_in;
        const int run = a.inner_in == 1 && base >= 0 && base + WIN <= (long)a.inner_nin;
        col[WIN] = run ? (idx_t)base : NO_RUN;
        FOR_ROWS(rr, rows) {
#ifdef PAIR_K
            pair_step(in, out, out_off, &a, tab, rr, x0, col, xlo, xhi, xw, 1);
#else
            idx_t io = 0, oo = 0, lo[K], hi[K];
            float w[K];
            window_t win;
            acc_t res[RV];
            outer_linear(rr, &a, tab, &io, &oo, lo, hi, w);
            window_load(in, io, lo, hi, w, col, win);
            window_results(win, lo, hi, w, xw, res);
            store_row(out, out_off, &a, oo, x0, res);
#endif
        }
        return;
    }
#endif
    FOR_ROWS(rr, rows) {
#ifdef PAIR_K
        pair_step(in, out, out_off, &a, tab, rr, x0, NULL, xlo, xhi, xw, 0);
        continue;
#endif
        idx_t io = 0, oo = 0, lo[K], hi[K];
        float w[K];
        acc_t res[RV];
        outer_linear(rr, &a, tab, &io, &oo, lo, hi, w);
        corners_results(in, io, lo, hi, w, xlo, xhi, xw, res);
        store_row(out, out_off, &a, oo, x0, res);
    }
}
#endif
