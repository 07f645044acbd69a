/* Separable weighted gathers with a variable number of taps per dimension: RESAMPLE_GRAD1
 * (each input element gathers the forward outputs that read it: deterministic, no atomics)
 * and RESAMPLE3's antialiased linear filter. The host built, per "tabled" dimension, one
 * row per result coordinate, {first source index, tap count, word offset of the taps},
 * and per tap {float bits of w, code}: the tap weight is (code & 1 ? 1 - w : 0) +
 * (code & 2 ? w : 0), so that 1 - w is computed in the accumulator type exactly as the
 * forward pass does (lib/resample/taps/taps_tables.c). Other dimensions are affine with weight 1
 * (plain strides). The result is the sum over the product of the tabled dimensions' taps,
 * first dimension slowest, of (product of the tap weights in dimension order) x source:
 * the order in which a forward scatter would add them, so sums are reproducible.
 * Options: DTYPE (dmlcl data type value), IDX64, NT2 (exactly two tabled dimensions: a
 * loop nest of scalars), KB (1/2/4/8: also compile the column kernels, rows and segments,
 * whose inner rows have at most KB taps), NT3 (three tabled dimensions: the column
 * kernels' second outer one), SEGT (columns per item of the segment kernel), CV (FLOAT32
 * channels-last: channels per item of the rows kernel, one vector load per tap), TP (the
 * segment kernel's pattern: TPW lane offsets, see there), SEGNT (its non-temporal
 * stores). Shapes and tables are arguments. */

/* The arguments (taps_args), one header with the host (taps.c). */
#include "resample/taps/args.h"

/* Element types: ../family.cl, prepended by the embed step. */

/* Splits dimension d's coordinate i off the flat index *rem (which becomes the rest) and
 * adds its result offset to *oo; affine, adds its source offset to *base and returns NULL;
 * tabled, returns its row of the table. Scalars, not the struct: see the NT2 kernel. */
static inline __global const uint *split(idx_t *rem, idx_t *oo, idx_t *base, ulong mul,
                                         ulong shr, ulong size, ulong rstr, ulong sstr,
                                         ulong rtab, __global const uint *tab)
{
    const idx_t q = fdiv(*rem, mul, shr), i = *rem - q * (idx_t)size;
    *rem = q;
    *oo += i * (idx_t)rstr;
    if (rtab == ~(ulong)0) {
        *base += i * (idx_t)sstr;
        return 0;
    }
    return tab + (idx_t)rtab + 3 * i;
}
#define SPLIT(d) split(&rem, &oo, &base, a.rmul[d], a.rshr[d], a.rsize[d], a.rstr[d], a.sstr[d], \
                       a.rtab[d], tab)

/* A tap's weight from its table entry {w, code}. FLOAT64 computes it in double, with
 * selects, not branches (the tap loops stay straight-line): (code & 1 ? 1 - w : 0) +
 * (code & 2 ? w : 0). The float accumulators read it as the host computed it in float
 * (lib/resample/taps/taps.h's dmlcl__taps_bake): the same bits, one load a tap and no
 * decoding. H100, two rounds against the decoding: GRAD1 of trilinear 2x 0.38 -> 0.43 of
 * copy, of linear 2x 2315 -> 2374-2379 GB/s, antialias 0.5x 0.74-0.77 -> 0.77-0.78. */
static acc_t tap_weight(uint2 e)
{
#if DTYPE == 9
    const acc_t w = (acc_t)as_float(e.x), lo = (acc_t)1 - w;
    const acc_t both = lo + w;
    return e.y == 1u ? lo : e.y == 2u ? w : e.y == 3u ? both : (acc_t)0;
#else
    return as_float(e.x);
#endif
}

#ifndef NT2
#define NT2 0
#endif
#ifndef NT3
#define NT3 0 /* three tabled dimensions: the column kernels' outer dimension s */
#endif

#if NT2
/* Exactly two tabled dimensions (image resampling): scalars only, two plain loops. */
__kernel void resample_taps(__global const elem_t *src, ulong src_off, __global elem_t *dst,
                            ulong dst_off, __global const uint *tab, taps_args a)
{
    src += src_off;
    dst += dst_off;
    const idx_t count = (idx_t)a.count;
    for (idx_t g = (idx_t)get_global_id(0); g < count; g += (idx_t)get_global_size(0)) {
        idx_t rem = g, base = 0, oo = 0, stra = 0, strb = 0;
        uint fa = 0, ca = 0, ea = 0, fb = 0, cb = 0, eb = 0;
        int inner = 1; /* the first tabled dimension met from the innermost is b */
        /* All 8 slots, unrolled: constant indices keep the argument struct out of
         * per-item private memory on GPUs. */
#pragma unroll
        for (int d = 7; d >= 0; d--) {
            if (d >= (int)a.rank)
                continue;
            __global const uint *row = SPLIT(d);
            if (!row)
                continue;
            if (inner) {
                fb = row[0], cb = row[1], eb = row[2], strb = (idx_t)a.sstr[d];
                inner = 0;
            } else {
                fa = row[0], ca = row[1], ea = row[2], stra = (idx_t)a.sstr[d];
            }
        }
        acc_t acc = 0;
        for (uint ja = 0; ja < ca; ja++) {
            const acc_t wa = (acc_t)1 * tap_weight(vload2(ja, tab + ea));
            idx_t off = base + (idx_t)(fa + ja) * stra + (idx_t)fb * strb;
            /* Every tap's source is in bounds, so it is read whatever its weight and the
             * weight-0 ones are dropped by a select, not a branch: unrolled, the loads of
             * several taps are in flight at once. */
UNROLL_4
            for (uint jb = 0; jb < cb; jb++, off += strb) {
                const acc_t wt = wa * tap_weight(vload2(jb, tab + eb));
                const acc_t v = (acc_t)LOAD(src, off);
                acc = wt != 0 ? acc + wt * v : acc;
            }
        }
        STORE(dst, oo, acc);
    }
}
#else
__kernel void resample_taps(__global const elem_t *src, ulong src_off, __global elem_t *dst,
                            ulong dst_off, __global const uint *tab, taps_args a)
{
    src += src_off;
    dst += dst_off;
    const idx_t count = (idx_t)a.count;
    const int nt = (int)a.nt;
    for (idx_t g = (idx_t)get_global_id(0); g < count; g += (idx_t)get_global_size(0)) {
        idx_t rem = g, base = 0, oo = 0;
        uint first[8], cnt[8], eoff[8], j[8];
        idx_t str[8];
        int k = nt, empty = 0;
        for (int d = (int)a.rank - 1; d >= 0; d--) {
            __global const uint *row = SPLIT(d);
            if (!row)
                continue;
            k--;
            first[k] = row[0];
            cnt[k] = row[1];
            eoff[k] = row[2];
            str[k] = (idx_t)a.sstr[d];
            j[k] = 0;
            empty |= row[1] == 0;
        }
        /* Prefix products over the outer tabled dimensions (pw[t] = 1 x w_0 x ... x w_t,
         * the same left-to-right product as the reference), recomputed only from the
         * dimension that stepped; the innermost one runs as a tight loop. (A variant with
         * every array index a compile-time constant ran slower on an H200.) */
        acc_t acc = 0, pw[8];
        idx_t po[8];
        const int last = nt - 1;
        int from = 0;
        if (nt == 0 && !empty)
            acc = acc + (acc_t)1 * (acc_t)LOAD(src, base);
        while (nt > 0 && !empty) {
            for (int t = from; t < last; t++) {
                const acc_t pw0 = t ? pw[t - 1] : (acc_t)1;
                const idx_t po0 = t ? po[t - 1] : base;
                pw[t] = pw0 * tap_weight(vload2(0, tab + eoff[t] + 2 * j[t]));
                po[t] = po0 + (idx_t)(first[t] + j[t]) * str[t];
            }
            const acc_t wl = last ? pw[last - 1] : (acc_t)1;
            __global const uint *e = tab + eoff[last];
            const idx_t step = str[last];
            idx_t off = (last ? po[last - 1] : base) + (idx_t)first[last] * step;
UNROLL_4
            for (uint jl = 0; jl < cnt[last]; jl++, off += step) {
                const acc_t wt = wl * tap_weight(vload2(jl, e));
                const acc_t v = (acc_t)LOAD(src, off); /* in bounds; see the NT2 kernel */
                acc = wt != 0 ? acc + wt * v : acc;    /* weight 0 adds nothing, not even NaN */
            }
            int t = last - 1;
            for (; t >= 0; t--) {
                if (++j[t] < cnt[t])
                    break;
                j[t] = 0;
            }
            empty = t < 0;
            from = t;
        }
        STORE(dst, oo, acc);
    }
}
#endif

#ifndef KB
#define KB 0
#endif

#if KB
/* Column x of the rows and segment kernels: a coordinate of the inner tabled dimension b
 * (and, channels-last, of the affine dimension c inside it). Its KB tap weights and source
 * offsets into wb/ob (taps past the row's count: weight 0, reading the row's first source
 * element, in bounds, dropped by the select), and returns its result offset.
 * BRUN (the rows kernel's, where the planner found b's source stride 1 and its source rows
 * at least KB long): the KB taps are the consecutive elements from max(0, fb + cb - KB), in
 * bounds, the row's cb taps at their end or (a row's first columns) their start, weight 0
 * at the others, and ob[0] alone is set. The same terms in the same order, with weight-0
 * terms before or after them: the same bits (row_sum says why a weight-0 term changes no
 * sum). */
#ifndef CV
#define CV 1
#endif
#ifndef BRUN
#define BRUN 0
#endif
static inline idx_t column_taps(idx_t x, const taps_args *a, __global const uint *tab,
                                acc_t *wb, idx_t *ob)
{
    /* CV > 1: x is a group of CV channels (nc counts groups). */
    const idx_t xb = fdiv(x, a->cmul, a->cshr), xc = (x - xb * (idx_t)a->nc) * CV;
    __global const uint *rb = tab + (idx_t)a->btab + 3 * xb;
    const uint fb = rb[0], cb = rb[1], eb = rb[2];
#if BRUN
    const uint first = fb + cb >= KB ? fb + cb - KB : 0, skip = fb - first;
#pragma unroll
    for (uint j = 0; j < KB; j++) {
        const int tap = j >= skip && j - skip < cb;
        wb[j] = tap ? tap_weight(vload2(tap ? j - skip : 0, tab + eb)) : (acc_t)0;
    }
    ob[0] = (idx_t)first + xc * (idx_t)a->csrc;
#else
#pragma unroll
    for (uint j = 0; j < KB; j++) {
        wb[j] = j < cb ? tap_weight(vload2(j, tab + eb)) : (acc_t)0;
        ob[j] = (idx_t)(fb + (j < cb ? j : 0)) * (idx_t)a->bstr + xc * (idx_t)a->csrc;
    }
#endif
    return xb * (idx_t)a->bres + xc * (idx_t)a->cres;
}

/* Row r of the rows and segment kernels: its other coordinates' source offset (affine
 * ones) and result offset, and the taps of up to two outer tabled dimensions, s (slower)
 * and f (faster); a missing one is a single tap of weight 1 at offset 0. */
typedef struct {
    idx_t base, oo;          /* source and result offsets */
    uint s0, sn, se, f0, fn, fe; /* first source index, tap count, word offset of the taps */
    idx_t sstr, fstr;        /* source strides */
    int has_s, has_f;
} outer_row;

/* The rows kernel's plans fix the rank (RS), the column dimensions (BDIM, CDIM) and the
 * tabled ones (TMASK) as build options: the loop then unrolls to the dimensions there are
 * and the compiler keeps no other slot's fields in registers across the row loop. */
#ifdef RS
#define SKIP_DIM(a, d) ((d) == BDIM || (d) == CDIM)
#define TABLED(a, d) ((TMASK >> (d)) & 1)
#else
#define RS 8
#define SKIP_DIM(a, d) ((d) >= (int)(a)->rank || (d) == (int)(a)->inner || (d) == (int)(a)->cdim)
#define TABLED(a, d) ((a)->rtab[d] != ~(ulong)0)
#endif

static inline outer_row row_split(idx_t r, const taps_args *a, __global const uint *tab)
{
    outer_row o = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0};
    idx_t rem = r;
#pragma unroll
    for (int d = RS - 1; d >= 0; d--) {
        if (SKIP_DIM(a, d))
            continue;
        __global const uint *row = split(&rem, &o.oo, &o.base, a->rmul[d], a->rshr[d],
                                         a->rsize[d], a->rstr[d], a->sstr[d],
                                         TABLED(a, d) ? a->rtab[d] : ~(ulong)0, tab);
        if (!row)
            continue;
#if NT3
        if (o.has_f) /* the second met from the inside is the slower one */
            o.s0 = row[0], o.sn = row[1], o.se = row[2], o.sstr = (idx_t)a->sstr[d], o.has_s = 1;
        else
#endif
            o.f0 = row[0], o.fn = row[1], o.fe = row[2], o.fstr = (idx_t)a->sstr[d], o.has_f = 1;
    }
    return o;
}

/* Outer tap j of dimension s (or f, given s's weight ws and offset): the weight, 1 x w_s x
 * w_f in dimension order as the 1-D kernels multiply, and the source offset. */
static inline acc_t s_tap(const outer_row *o, uint j, __global const uint *tab, idx_t *off)
{
#if NT3
    *off = o->base + (idx_t)(o->s0 + j) * o->sstr;
    return o->has_s ? (acc_t)1 * tap_weight(vload2(j, tab + o->se)) : (acc_t)1;
#else
    *off = o->base; /* no dimension s: compiled out (a faster 2-D kernel on an H200) */
    return (acc_t)1;
#endif
}

static inline acc_t f_tap(const outer_row *o, uint j, __global const uint *tab, acc_t ws,
                          idx_t *off)
{
    *off += (idx_t)(o->f0 + j) * o->fstr;
    return o->has_f ? ws * tap_weight(vload2(j, tab + o->fe)) : ws;
}

/* The rows kernel's loop over f's taps unrolled to KF (a build option: the most any row
 * has), so that all of a row's loads are in flight together: taps past the row's count
 * weigh 0 and read its first source row (in bounds; the sum drops them) and the table's
 * first words, chosen by address, not by a branch around the loads (which GPU compilers
 * made of a choice between a tap and 0: each tap's loads then waited for the last's;
 * H200 antialias 0.5x 0.38 -> 0.43 of copy, GRAD1 of linear 2x 0.37 -> 0.43). Not for
 * CV > 1, whose taps' vectors all in flight cost more than the wait (GRAD1 channels-last
 * 0.43 -> 0.36, 48 registers). */
#ifndef KF
#define KF 0
#endif
static inline acc_t f_tap_kf(const outer_row *o, uint j, __global const uint *tab, acc_t ws,
                             idx_t *off)
{
#if CV > 1
    if (j < o->fn)
        return f_tap(o, j, tab, ws, off);
    *off += (idx_t)o->f0 * o->fstr;
    return 0;
#else
    const int in = j < o->fn;
    *off += (idx_t)(o->f0 + (in ? j : 0)) * o->fstr;
    const __global uint *e = tab + (in ? (idx_t)o->fe + 2 * (idx_t)j : 0);
    const acc_t w = o->has_f ? ws * tap_weight(vload2(0, e)) : ws;
    return in ? w : (acc_t)0;
#endif
}

#if CV > 1
#if DTYPE != 1
#error "CV > 1 needs FLOAT32"
#endif
#endif

/* The CV channels at p into v: one vector load where the binding allows (cv_ok). */
static inline void load_cv(__global const elem_t *p, ulong cv_ok, acc_t *v)
{
#if CV > 1
    if (cv_ok) {
        CAT(vstore, CV)(*(__global const CAT(float, CV) *)p, 0, v);
        return;
    }
#endif
#pragma unroll
    for (int c = 0; c < CV; c++)
        v[c] = (acc_t)LOAD(p, c);
}

static inline void store_cv(__global elem_t *p, ulong cv_ok, const acc_t *v)
{
#if CV > 1
    if (cv_ok) {
        *(__global CAT(float, CV) *)p = CAT(vload, CV)(0, v);
        return;
    }
#endif
#pragma unroll
    for (int c = 0; c < CV; c++)
        STORE(p, c, v[c]);
}

/* One row's CV sums for the rows kernel's column (taps wb, offsets ob): plain (every term
 * added), or with the choice per term, a weight-0 term adding nothing (not even the NaN
 * of 0 x Inf). With every value read finite the two are the same bits (a weight-0 term
 * adds +-0, and a sum from +0 is never -0), and an Inf or NaN read makes the plain sum
 * Inf or NaN, so the kernel sums plain and redoes a row whose sums are not finite. GPU
 * compilers turn the choice into a branch around each tap's load (NVIDIA's PTX: a branch
 * per tap), which keeps the loads from being in flight together. */
static inline void row_sum(__global const elem_t *src, ulong cv_ok,
                           __global const uint *tab, const outer_row *o, const acc_t *wb,
                           const idx_t *ob, acc_t *acc, int plain)
{
#pragma unroll
    for (int c = 0; c < CV; c++)
        acc[c] = 0;
    for (uint js = 0; js < o->sn; js++) {
        idx_t offs;
        const acc_t ws = s_tap(o, js, tab, &offs);
#if KF
#pragma unroll
        for (uint jf = 0; jf < KF; jf++) {
            idx_t off = offs;
            const acc_t wa = f_tap_kf(o, jf, tab, ws, &off);
#else
        for (uint jf = 0; jf < o->fn; jf++) {
            idx_t off = offs;
            const acc_t wa = f_tap(o, jf, tab, ws, &off);
#endif
#pragma unroll
            for (int j = 0; j < KB; j++) {
                const acc_t wt = wa * wb[j];
                acc_t v[CV];
                load_cv(src + off + ob[j], cv_ok, v);
#pragma unroll
                for (int c = 0; c < CV; c++)
                    acc[c] = plain || wt != 0 ? acc[c] + wt * v[c] : acc[c];
            }
        }
    }
}

/* XC columns per item of the rows kernel (the plan's xc): x, x + the range's width, ...,
 * each with its own taps, so that a row's outer taps (f's and s's weights and source
 * rows: table reads, decoding, the row's split) serve XC results. One channel per column,
 * f unrolled (KF). */
#ifndef XC
#define XC 1
#endif
#if BRUN && (XC < 2 || CV > 1 || NT3)
#error "BRUN needs XC > 1, CV 1 and two tabled dimensions"
#endif
#if XC > 1
#if CV > 1 || !KF
#error "XC > 1 needs CV 1 and KF"
#endif
/* One column's terms for one outer s tap, from the row's f taps (weights wa, source
 * offsets oa) and its own (wb, ob), added to acc: row_sum's terms in its order, plain or
 * with the choice. */
static inline acc_t column_sum(__global const elem_t *src, const acc_t *wa, const idx_t *oa,
                               const acc_t *wb, const idx_t *ob, acc_t acc, int plain)
{
#pragma unroll
    for (uint jf = 0; jf < KF; jf++) {
#if BRUN
        /* The column's taps are KB consecutive elements (column_taps): one address a row,
         * the taps its constant steps. */
        __global const elem_t *run = ADDR_STEP(__global const elem_t, src, oa[jf] + ob[0]);
#endif
#pragma unroll
        for (int j = 0; j < KB; j++) {
            const acc_t wt = wa[jf] * wb[j];
#if BRUN
            const acc_t v = (acc_t)LOAD(run, j);
#else
            const acc_t v = (acc_t)LOAD(src + oa[jf] + ob[j], 0);
#endif
            acc = plain || wt != 0 ? acc + wt * v : acc;
        }
    }
    return acc;
}

#if NT3
/* The XC columns' sums over s's taps, each s tap's f taps decoded once for all of them;
 * redone together where one is not finite (row_sum says why that is exact). */
static inline void columns_s(__global const elem_t *src, __global const uint *tab,
                             const outer_row *o, acc_t (*wb)[KB], idx_t (*ob)[KB],
                             acc_t *acc, int plain)
{
#pragma unroll
    for (int k = 0; k < XC; k++)
        acc[k] = 0;
    for (uint js = 0; js < o->sn; js++) {
        idx_t offs;
        const acc_t ws = s_tap(o, js, tab, &offs);
        acc_t wa[KF];
        idx_t oa[KF];
#pragma unroll
        for (uint jf = 0; jf < KF; jf++) {
            oa[jf] = offs;
            wa[jf] = f_tap_kf(o, jf, tab, ws, &oa[jf]);
        }
#pragma unroll
        for (int k = 0; k < XC; k++)
            acc[k] = column_sum(src, wa, oa, wb[k], ob[k], acc[k], plain);
    }
}
#endif

static void rows_columns(__global const elem_t *src, __global elem_t *dst,
                         __global const uint *tab, const taps_args *a, idx_t x, idx_t rows)
{
    const idx_t gx = (idx_t)get_global_size(0);
    acc_t wb[XC][KB];
    idx_t ob[XC][KB], ox[XC];
    int live[XC];
#pragma unroll
    for (int k = 0; k < XC; k++) {
        const idx_t xk = x + (idx_t)k * gx;
        live[k] = xk < (idx_t)a->nx;
        ox[k] = column_taps(live[k] ? xk : 0, a, tab, wb[k], ob[k]);
    }
    for (idx_t r = (idx_t)get_global_id(1); r < rows; r += (idx_t)get_global_size(1)) {
        const outer_row o = row_split(r, a, tab);
#if NT3
        acc_t acc[XC];
        columns_s(src, tab, &o, wb, ob, acc, 1);
        if (!plain_exact(acc, XC))
            columns_s(src, tab, &o, wb, ob, acc, 0);
#pragma unroll
        for (int k = 0; k < XC; k++)
            if (live[k])
                STORE(dst, o.oo + ox[k], acc[k]);
#else
        acc_t wa[KF];
        idx_t oa[KF];
#pragma unroll
        for (uint jf = 0; jf < KF; jf++) { /* s_tap without s: weight 1, offset base */
            oa[jf] = o.base;
            wa[jf] = f_tap_kf(&o, jf, tab, (acc_t)1, &oa[jf]);
        }
#pragma unroll
        for (int k = 0; k < XC; k++) {
            acc_t acc = column_sum(src, wa, oa, wb[k], ob[k], 0, 1);
            if (!plain_exact(&acc, 1))
                acc = column_sum(src, wa, oa, wb[k], ob[k], 0, 0);
            if (live[k])
                STORE(dst, o.oo + ox[k], acc);
        }
#endif
    }
}
#endif

/* One column an item (XC 1) down the rows; cv_ok a constant at each call (load_cv). */
static inline void rows_column(__global const elem_t *src, __global elem_t *dst,
                               __global const uint *tab, const taps_args *a, idx_t x,
                               idx_t rows, ulong cv_ok)
{
    const int live = x < (idx_t)a->nx;
    acc_t wb[KB];
    idx_t ob[KB];
    const idx_t ox = column_taps(live ? x : 0, a, tab, wb, ob);
    for (idx_t r = (idx_t)get_global_id(1); r < rows; r += (idx_t)get_global_size(1)) {
        const outer_row o = row_split(r, a, tab);
        acc_t acc[CV];
        row_sum(src, cv_ok, tab, &o, wb, ob, acc, 1);
        if (!plain_exact(acc, CV))
            row_sum(src, cv_ok, tab, &o, wb, ob, acc, 0);
        if (live)
            store_cv(dst + o.oo + ox, cv_ok, acc);
    }
}

/* Rows layout (GPUs): work-item x owns one column and keeps its taps in registers across
 * every row it visits (dimension 1 of the range, grid-stride); a row's other coordinates,
 * and the outer tabled dimension a's taps, are the same for the whole group, so their
 * table reads are broadcasts. CV > 1 (FLOAT32 channels-last): a column is a run of CV
 * channels with the same taps, each tap one vector load, each result one vector store. The
 * arithmetic is the NT2 kernel's, term for term (per channel): the same bits. */
__kernel void resample_taps_rows(__global const elem_t *src, ulong src_off,
                                 __global elem_t *dst, ulong dst_off, __global const uint *tab,
                                 taps_args a)
{
#if BRUN
    /* ADDR_STEP's binding with BRUN's runs: H100, two rounds, GRAD1 of linear 2x 2256 ->
     * 2315 GB/s, antialias 0.5x 1988 -> 2007. */
    src = ADDR_STEP(__global const elem_t, src, src_off);
    dst = ADDR_STEP(__global elem_t, dst, dst_off);
#else
    /* Pointer steps elsewhere: volumes (three tabled dimensions) with ADDR_STEP's binding
     * ran GRAD1 of trilinear 2x at 0.24 of copy (0.30 with BRUN too) against 0.38 (H100). */
    src += src_off;
    dst += dst_off;
#endif
    const idx_t x = (idx_t)get_global_id(0);
    const idx_t rows = (idx_t)a.rows;
#if XC > 1
    rows_columns(src, dst, tab, &a, x, rows);
#elif CV > 1
    /* The binding's choice between vector and element loads, made once: made per tap it
     * was predicated, and each tap issued both (H100, two rounds: GRAD1 channels-last
     * 2223 -> 2481 GB/s). */
    if (a.cv_ok)
        rows_column(src, dst, tab, &a, x, rows, 1);
    else
        rows_column(src, dst, tab, &a, x, rows, 0);
#else
    rows_column(src, dst, tab, &a, x, rows, 0);
#endif
}

#ifndef SEGT
#define SEGT 0
#endif
#if SEGT
/* Segment layout (CPUs): work-item s owns SEGT consecutive columns, their taps in private
 * arrays (column fastest), and loops over rows; per row and outer tap the loop over its
 * columns is a plain loop the compiler vectorises (gathers from the source). The same
 * terms in the same order as the rows kernel: the same bits.
 * TP (the planner's, CPUs): the segment's vectors of TPW columns (x0 a multiple of TPW;
 * TPW lanes fill two of the compiler's vector registers, at most 16, and no builtin takes
 * or returns more than one: see resample1_cpu_rows.cl's CR_W) whose source
 * offsets follow TP for every tap j (ob[j][x0 + l] = ob[j][x0] + TP[l], each TP[l] <
 * 2 TPW: downsampling by 2 and the backward pass of upsampling by 2 give 0, 2, 4, ..) read
 * each tap's TPW sources as two vector loads and one constant shuffle, where the
 * 2 TPW-element window lies within the source (a.sspan); the kernel checks every vector,
 * redoes a vector's few straying lanes alone (tp_fit) and takes the others column by
 * column. The lanes pick the elements the scalar loop reads
 * (or, where the tap's weight is 0, another element of the window: the select drops it,
 * as it drops the scalar loop's) and compute the same terms in the same order: the same
 * bits. */
#ifdef TP
/* FLOAT32 and FLOAT64 (and the private accumulators and weights) move through pointers to
 * vectors of element alignment: one unaligned vector instruction each (POCL splits vload16
 * and vstore16 into pieces), as in resample1_cpu_rows.cl. */
#if TPW != 2 && TPW != 4 && TPW != 8 && TPW != 16
#error "TPW must be 2, 4, 8 or 16"
#endif
#define TP_V TPW
#if DTYPE == 9
typedef CAT(double, TPW) tp_acc;
typedef CAT(ulong, TPW) tp_mask;
typedef tp_acc tp_u16 __attribute__((aligned(8)));
#define TP_LOAD(p) (*(__global const tp_u16 *)(p))
#elif DTYPE == 1
typedef CAT(float, TPW) tp_acc;
typedef CAT(uint, TPW) tp_mask;
typedef tp_acc tp_u16 __attribute__((aligned(4)));
#define TP_LOAD(p) (*(__global const tp_u16 *)(p))
#else /* converted as loaded, by halves: no builtin takes a vector wider than a register */
typedef CAT(float, TPW) tp_acc;
typedef CAT(uint, TPW) tp_mask;
#if TPW == 16
#define TP_HALF(p) CAT(TP_LOADN, 8)(p)
#elif TPW == 8
#define TP_HALF(p) CAT(TP_LOADN, 4)(p)
#else
#define TP_HALF(p) CAT(TP_LOADN, 2)(p)
#endif
#if DTYPE == 2
#define TP_LOADN8(p) vload_half8(0, p)
#define TP_LOADN4(p) vload_half4(0, p)
#define TP_LOADN2(p) vload_half2(0, p)
#else
#define TP_LOADN8(p) convert_float8(vload8(0, p))
#define TP_LOADN4(p) convert_float4(vload4(0, p))
#define TP_LOADN2(p) convert_float2(vload2(0, p))
#endif
#define TP_LOAD(p) ((tp_acc)(TP_HALF(p), TP_HALF((p) + TPW / 2)))
#endif
#if DTYPE != 9 && DTYPE != 1
typedef tp_acc tp_u16 __attribute__((aligned(4)));
#endif
#define TP_PRIV(p) (*(tp_u16 *)(p))
#endif
/* Column x's terms for the outer tap (wa, s) added to u, as the scalar loop adds them. */
#define SEG_LANE(u, x)                                                                         \
    do {                                                                                       \
        _Pragma("unroll") for (int j = 0; j < KB; j++)                                         \
        {                                                                                      \
            const acc_t wt = wa * wb[j][x];                                                    \
            const acc_t v = (acc_t)LOAD(s, ob[j][x]);                                          \
            u = wt != 0 ? u + wt * v : u;                                                      \
        }                                                                                      \
    } while (0)
/* The segment kernel's outer taps of row o in order: the statements run with the tap's
 * weight wa and its source row s (at offset off). */
#define SEG_OUTER_TAPS(...)                                                                    \
    for (uint js = 0; js < o.sn; js++) {                                                       \
        idx_t offs;                                                                            \
        const acc_t ws = s_tap(&o, js, tab, &offs);                                            \
        for (uint jf = 0; jf < o.fn; jf++) {                                                   \
            idx_t off = offs;                                                                  \
            const acc_t wa = f_tap(&o, jf, tab, ws, &off);                                     \
            __global const elem_t *s = src + off;                                              \
            __VA_ARGS__                                                                        \
        }                                                                                      \
    }
/* SEG_OUTER_TAPS from the row's kept taps (ow, oof: no of them) where it kept them (pre). */
#define ROW_OUTER_TAPS(...)                                                                    \
    do {                                                                                       \
        if (pre) {                                                                             \
            for (int k = 0; k < no; k++) {                                                     \
                const acc_t wa = ow[k];                                                        \
                const idx_t off = oof[k];                                                      \
                __global const elem_t *s = src + off;                                          \
                __VA_ARGS__                                                                    \
            }                                                                                  \
        } else {                                                                               \
            SEG_OUTER_TAPS(__VA_ARGS__);                                                       \
        }                                                                                      \
    } while (0)
#ifdef TP
/* The pattern read from reference lane ref of the vector at x0: each tap's window starts
 * at base[j] (the lane's source less its TP entry), and bad gets the lanes whose sources
 * are not the window's (a weight-0 tap may read any element: the select drops it). */
static inline uint tp_fit_ref(const acc_t (*wb)[SEGT], const idx_t (*ob)[SEGT], int x0,
                              int ref, long *base)
{
    const tp_mask mask = (tp_mask)(TP);
    uint bad = 0;
#pragma unroll
    for (int j = 0; j < KB; j++) {
        base[j] = (long)ob[j][x0 + ref] - (long)mask[ref];
        for (int l = 0; l < TP_V; l++)
            if ((long)ob[j][x0 + l] - base[j] != (long)mask[l] && wb[j][x0 + l] != 0)
                bad |= 1u << l;
    }
    return bad;
}

/* Vector x0's windows: 0 where it takes its lanes one by one (TP_GATHER), else 1 + the end
 * of its windows past the row's offset, lo their lowest start (negative where a window
 * starts before the row: the caller checks both against the source). The reference lane
 * is the first, else the last where fewer lanes stray from it: a row's first vector, its
 * first column's taps clamped, follows the pattern from its last lane but for that
 * column (channels-last: its C lanes), which the kernel then redoes alone (bad: at most
 * half the lanes, each a lane of a gather's cost). Volumes' rows of 64 had a quarter of
 * their vectors gathered (2-core AMD EPYC, GRAD1 of trilinear 2x 0.19-0.20 -> 0.26-0.36
 * of copy; of linear 2x a tenth of the time went there). */
enum { TP_MAXBAD = TP_V / 2 };
static inline long tp_fit(const acc_t (*wb)[SEGT], const idx_t (*ob)[SEGT], int x0,
                          long *base, long *lo, uint *bad)
{
    *bad = tp_fit_ref(wb, ob, x0, 0, base);
    if (popcount(*bad) > TP_MAXBAD) {
        long last[KB];
        const uint bl = tp_fit_ref(wb, ob, x0, TP_V - 1, last);
        if (popcount(bl) < popcount(*bad)) {
            *bad = bl;
#pragma unroll
            for (int j = 0; j < KB; j++)
                base[j] = last[j];
        }
    }
    if (popcount(*bad) > TP_MAXBAD) {
        *bad = 0;
        return 0;
    }
    long end = base[0] + 2 * TP_V;
    *lo = base[0];
#pragma unroll
    for (int j = 1; j < KB; j++) {
        end = max(end, base[j] + 2 * TP_V);
        *lo = min(*lo, base[j]);
    }
    return 1 + end;
}

/* The segment kernel's vector at column x: tap j's TP_V sources are VAL(j) (p: the tap's
 * first source). */
#define TP_VECTOR(VAL)                                                                         \
    do {                                                                                       \
        _Pragma("unroll") for (int j = 0; j < KB; j++)                                         \
        {                                                                                      \
            const tp_acc wt = wa * TP_PRIV(&wb[j][x]);                                         \
            __global const elem_t *p = s + base[vi][j];                                        \
            const tp_acc val = VAL(j);                                                         \
            t = wt != (tp_acc)0 ? t + wt * val : t; /* select() is a call */                  \
        }                                                                                      \
    } while (0)
#define TP_PICK(j) __builtin_shufflevector(TP_LOAD(p), TP_LOAD(p + TP_V), TP)
/* Outer tap (wa, s at off) of vector vi: two loads and a shuffle per tap where the
 * vector follows the pattern and its window lies in the source, else lane by lane. */
#define TP_TAP                                                                                 \
    do {                                                                                       \
        if (fit[vi] && (long)off + lo[vi] >= 0 && (long)off + fit[vi] - 1 <= sspan)            \
            TP_VECTOR(TP_PICK);                                                                \
        else                                                                                   \
            TP_VECTOR(TP_GATHER);                                                              \
    } while (0)
/* Other vectors: the lanes' sources one by one into a private vector (scalar loads, not a
 * gather: gathers are slow on the 2-core host's AMD EPYC), the arithmetic as a vector.
 * Through a private array the caller passes: no function returns a vector wider than a
 * register (see TPW). */
static inline void tp_gather(__global const elem_t *s, const idx_t *o, acc_t *v)
{
#pragma clang loop vectorize(disable)
    for (int l = 0; l < TP_V; l++)
        v[l] = (acc_t)LOAD(s, o[l]);
}
#define TP_GATHER(j) (tp_gather(s, &ob[j][x], lanes), TP_PRIV(lanes))
#endif
__kernel void resample_taps_seg(__global const elem_t *restrict src, ulong src_off,
                                __global elem_t *restrict dst, ulong dst_off,
                                __global const uint *restrict tab, taps_args a)
{
    src += src_off;
    dst += dst_off;
    const idx_t c0 = (idx_t)get_global_id(0) * SEGT;
    if (c0 >= (idx_t)a.nx)
        return;
    const int n = (int)min((idx_t)SEGT, (idx_t)a.nx - c0);
    acc_t wb[KB][SEGT], acc[SEGT];
    idx_t ob[KB][SEGT], ox[SEGT];
    for (int x = 0; x < n; x++) {
        acc_t w[KB];
        idx_t o[KB];
        ox[x] = column_taps(c0 + x, &a, tab, w, o);
#pragma unroll
        for (int j = 0; j < KB; j++)
            wb[j][x] = w[j], ob[j][x] = o[j];
    }
    int contig = 1;
    for (int x = 0; x < n; x++)
        contig &= ox[x] == ox[0] + x;
#ifdef TP
    /* Per vector: its windows (tp_fit), whether it follows the pattern (fit 0: no), and
     * the lanes to redo one by one (bad). */
    long fit[SEGT / TP_V], lo[SEGT / TP_V], base[SEGT / TP_V][KB];
    uint bad[SEGT / TP_V];
    const int nv = n / TP_V;
    for (int v = 0; v < nv; v++)
        fit[v] = tp_fit(wb, ob, v * TP_V, base[v], &lo[v], &bad[v]);
    const long sspan = (long)a.sspan;
#endif
    /* A block of consecutive rows per item: neighbouring rows share source rows (the
     * taps of the outer dimensions), read once from memory while they are in the caches
     * (POCL runs a group's items one after another). */
    const idx_t rows = (idx_t)a.rows, per = (rows + (idx_t)get_global_size(1) - 1) /
                                           (idx_t)get_global_size(1);
    const idx_t r0 = (idx_t)get_global_id(1) * per, r1 = min(r0 + per, rows);
    for (idx_t r = r0; r < r1; r++) {
        const outer_row o = row_split(r, &a, tab);
        int x0 = 0;
#ifdef TP
        /* The row's outer taps once, in SEG_OUTER_TAPS's order (up to TP_MAXO of them; the
         * table reads and weight products would otherwise be made again for every vector),
         * then vector by vector, each with all its taps (its sum in a register). */
        enum { TP_MAXO = 16 };
        acc_t ow[TP_MAXO];
        idx_t oof[TP_MAXO];
        int no = 0;
        const int pre = o.sn * o.fn <= TP_MAXO;
        if (pre)
            SEG_OUTER_TAPS(ow[no] = wa; oof[no] = off; no++;);
        for (int vi = 0; vi < nv; vi++) {
            const int x = vi * TP_V;
            tp_acc t = 0;
            acc_t lanes[TP_V]; /* TP_GATHER's */
            ROW_OUTER_TAPS(TP_TAP;);
            TP_PRIV(acc + x) = t;
            for (uint b = bad[vi]; b; b &= b - 1) { /* the scalar loop's sum, its order */
                const int xl = x + (int)ctz(b);
                acc_t u = 0;
                ROW_OUTER_TAPS(SEG_LANE(u, xl););
                acc[xl] = u;
            }
        }
        x0 = nv * TP_V;
#endif
        for (int x = x0; x < n; x++)
            acc[x] = 0;
        SEG_OUTER_TAPS(for (int x = x0; x < n; x++) { SEG_LANE(acc[x], x); });
        if (contig) { /* consecutive outputs: a loop of plain stores, not a scatter */
            __global elem_t *d = dst + o.oo + ox[0];
            int x = 0;
#if SEGNT && DTYPE == 1 && defined(TP)
            /* SEGNT (the planner's, FLOAT32 results beyond the caches): from a row that
             * starts a 64-byte line, its vectors as non-temporal stores, which write a
             * line without reading it first (the rest: plain stores). Through TP's
             * pointer types, not vload16: no builtin returns more than a register. */
            if (((ulong)d & 63) == 0)
                for (; x + TP_V <= n; x += TP_V)
                    __builtin_nontemporal_store(TP_PRIV(acc + x), (__global tp_acc *)(d + x));
#endif
            for (; x < n; x++)
                STORE(d, x, acc[x]);
        } else {
            for (int x = 0; x < n; x++)
                STORE(dst, o.oo + ox[x], acc[x]);
        }
    }
#if SEGNT
    write_mem_fence(CLK_GLOBAL_MEM_FENCE); /* as memcpy's streaming stores end */
#endif
}
#endif
#endif
