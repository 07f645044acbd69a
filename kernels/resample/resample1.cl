/* RESAMPLE1. The host computed every coordinate in IEEE float32 (lib/resample1_plan.c):
 * each resampled dimension has one table row per output coordinate, NEAREST {input
 * index}, LINEAR {i0, weight bits} with i1 = i0 + 1 whenever the weight is not 0.
 * Pass-through dimensions (identity, constant, integer downsampling: affine maps) are
 * plain strides. So the kernels divide by nothing and nearest is an exact gather.
 *
 * Work unit: V consecutive outputs along the "inner" dimension (the output's fastest-
 * varying one, pass-through or resampled). The other ("outer") coordinates are split off
 * the unit number once per unit with multiply-high divisions, so their cost and their
 * table reads are shared by V outputs; only the inner coordinate changes in the V loop.
 * Work-items loop over units (grid stride): measured on an H200, one unit per item
 * without the loop ran up to 25% slower.
 *
 * Options: LINEAR 0/1, V (outputs per unit), INNER_RES (the inner dimension is resampled);
 * with LINEAR=1, DTYPE (dmlcl data type value) and K (the number of resampled dimensions:
 * the 2^K corners). Shapes are arguments. */

/* a * b + c rounds twice, as in the C reference the tests compare with. */
#pragma OPENCL FP_CONTRACT OFF

/* Mirrors the host's r1_args (all 64-bit fields: no padding surprises). The inner
 * dimension is entry inner_k of its list (pass-through or resampled); the outer loops
 * skip it. mul/shr: multiply-high division by the size (lib/fastdiv.c). */
typedef struct {
    ulong units;             /* outer rows x chunks of V */
    ulong chunks, chunks_mul, chunks_shr;
    ulong np, nr;            /* pass-through and resampled dimensions */
    ulong pass_inner;        /* 1: among the outer ones, pass-through varies fastest */
    ulong inner_k, inner_size, inner_in, inner_out, inner_tab;
    ulong inner_nin;         /* a resampled inner dimension's input size */
    ulong gtab;              /* PAIR_K: table row of the first group of rows */
    ulong vec_ok, vec_in;    /* 0: the output's / input's buffer base may be misaligned */
    ulong rows;              /* outer rows (units / chunks) */
    ulong seg;               /* outputs per unit of the *_seg kernels */
    ulong skip_p, skip_r;    /* list entries the outer loops skip (8: none) */
    ulong size2, in2, out2, tab2; /* *_seg2: the second inner dimension (resampled) */
    ulong psize[8], pin[8], pout[8], pmul[8], pshr[8];
    ulong rsize[8], rin[8], rout[8], rtab[8], rmul[8], rshr[8];
} resample1_args;

/* A unit's V outputs go out as one vector store where they are contiguous and aligned:
 * a store through a vector pointer, since vstoreV only promises element alignment and
 * GPU compilers split it into V scalar stores. (vloadV from the private array of results
 * is only a register move.) */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#if V == 2 || V == 4 || V == 8 || V == 16
#define VEC_OK 1
#else
#define VEC_OK 0
#endif
#if ELEM_BYTES == 1
#define BITS_BASE uchar
#elif ELEM_BYTES == 2
#define BITS_BASE ushort
#elif ELEM_BYTES == 4
#define BITS_BASE uint
#else
#define BITS_BASE ulong
#endif
/* *p = the N elements of the private array r (same element type). */
#define STORE_BITS(N, p, r) (*(__global CAT(BITS_BASE, N) *)(p) = CAT(vload, N)(0, r))

/* Outputs per item of the 2-D row kernels, a constant of the source (lib/plan.h's
 * DMLCL_R1_ROWS_VEC), not an option, so that they share the program of the unit kernels:
 * LINEAR 4 (one 16-byte store for FLOAT32), nearest 8. Measured on an H200: linear 2x
 * 0.42 of copy with 4, 0.41 with 8 (downsampling 0.98 and 0.52); nearest 2x 0.40 with 4,
 * 0.73 with 8, 0.66 with 16. */
#if LINEAR
#define RV 4
#else
#define RV 8
#endif

/* Whether n outputs at output offset oo + x0 (binding offset out_off) can go out as one
 * vector store. */
static inline int vec_store_ok(const resample1_args *a, ulong out_off, idx_t oo, idx_t x0,
                               int n)
{
    return a->vec_ok && a->inner_out == 1 && x0 + n <= (idx_t)a->inner_size &&
           (out_off + oo + x0) % n == 0;
}

/* Whether a unit's V inputs from element offset off (binding offset in_off) of a pass-through
 * inner dimension can be read as one vector load: contiguous and aligned. */
static inline int vec_load_ok(const resample1_args *a, ulong in_off, idx_t off)
{
    return a->vec_in && a->inner_in == 1 && (in_off + off) % V == 0;
}

/* Unit u of a segment kernel: returns its outer row; [*s, *e) is its stretch of the
 * n-long dimension it walks. */
static inline idx_t seg_range(idx_t u, const resample1_args *a, idx_t n, idx_t *s, idx_t *e)
{
    const idx_t row = fdiv(u, a->chunks_mul, a->chunks_shr);
    *s = (u - row * (idx_t)a->chunks) * (idx_t)a->seg;
    *e = min(*s + (idx_t)a->seg, n);
    return row;
}

/* Slots the outer loops unroll to: the pass-through and (nearest) resampled dimensions
 * the row kernels' plans have, else all 8. */
#ifndef NPS
#define NPS 8
#endif
#ifndef NRS
#define NRS 8
#endif
/* Which group the outer loops split off first (PASS_INNER), and the resampled slot they
 * skip (nearest: INNER_K): build options where the row kernels' plans fix them, so that
 * the loop over rows holds neither order's nor the skipped slot's fields. */
#ifdef PASS_INNER
#define PASS_FIRST(a) PASS_INNER
#else
#define PASS_FIRST(a) ((a)->pass_inner)
#endif

/* Peels the outer pass-through indices off rem (innermost first), adding their offsets.
 * The loops over dimensions run over the NPS slots, fully unrolled, so that every index
 * into the argument struct is a constant: a dynamic index makes GPU compilers copy the
 * whole struct into per-item private memory. */
static idx_t pass_dims(idx_t rem, const resample1_args *a, idx_t *io, idx_t *oo)
{
#pragma unroll
    for (int k = NPS - 1; k >= 0; k--) {
        if (k >= (int)a->np || (!INNER_RES && k == (int)a->skip_p)) /* INNER_RES: none */
            continue;
        const idx_t q = fdiv(rem, a->pmul[k], a->pshr[k]), i = rem - q * (idx_t)a->psize[k];
        rem = q;
        *io += i * (idx_t)a->pin[k];
        *oo += i * (idx_t)a->pout[k];
    }
    return rem;
}

#if !LINEAR
/* Nearest neighbour (and any copy): moves bits, so only the element width matters. */
static idx_t gather_dims(idx_t rem, const resample1_args *a, __global const uint *tab,
                         idx_t *io, idx_t *oo)
{
#pragma unroll
    for (int k = NRS - 1; k >= 0; k--) {
#ifdef INNER_K
        if (k >= (int)a->nr || k == INNER_K)
#else
        if (k >= (int)a->nr || k == (int)a->skip_r)
#endif
            continue;
        const idx_t q = fdiv(rem, a->rmul[k], a->rshr[k]), i = rem - q * (idx_t)a->rsize[k];
        rem = q;
        *io += (idx_t)tab[(idx_t)a->rtab[k] + i] * (idx_t)a->rin[k];
        *oo += i * (idx_t)a->rout[k];
    }
    return rem;
}

/* The offsets of outer row `row`, the faster-varying group split off first. */
static inline void outer_gather(idx_t row, const resample1_args *a, __global const uint *tab,
                                idx_t *io, idx_t *oo)
{
    if (PASS_FIRST(a))
        gather_dims(pass_dims(row, a, io, oo), a, tab, io, oo);
    else
        pass_dims(gather_dims(row, a, tab, io, oo), a, io, oo);
}

/* One output's input element, x along the inner dimension. */
static inline bits_t gather_one(__global const bits_t *in, __global const uint *tab,
                                const resample1_args *a, idx_t io, idx_t x)
{
#if INNER_RES
    const idx_t xi = (idx_t)tab[(idx_t)a->inner_tab + x];
#else
    const idx_t xi = x;
#endif
    return in[io + xi * (idx_t)a->inner_in];
}

__kernel void resample1_gather(__global const bits_t *in, ulong in_off, __global bits_t *out,
                               ulong out_off, __global const uint *tab, resample1_args a)
{
    in += in_off; /* binding and pass-through offsets as 64-bit pointer steps */
    out += out_off;
    const idx_t units = (idx_t)a.units, w = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        const idx_t row = fdiv(u, a.chunks_mul, a.chunks_shr), x0 = (u - row * (idx_t)a.chunks) * V;
        idx_t io = 0, oo = 0;
        outer_gather(row, &a, tab, &io, &oo);
        if (x0 + V > w) { /* the row's last, partial unit */
            for (int j = 0; j < V && x0 + j < w; j++)
                out[oo + (x0 + j) * (idx_t)a.inner_out] = gather_one(in, tab, &a, io, x0 + j);
            continue;
        }
        /* A whole unit: no guards between the loads, so all V table reads and then all V
         * input reads are in flight together (a guard per output serialises them). */
        bits_t v[V];
#if INNER_RES && VEC_OK
        /* The V table rows as one vector load where aligned (on an H200 nearest 2x went
         * from 0.58 to 0.70 of copy: the load instructions are the limit). */
        if ((a.inner_tab + x0) % V == 0) {
            uint ti[V];
            CAT(vstore, V)(*(__global const CAT(uint, V) *)(tab + (idx_t)a.inner_tab + x0), 0, ti);
#pragma unroll
            for (int j = 0; j < V; j++)
                v[j] = in[io + (idx_t)ti[j] * (idx_t)a.inner_in];
        } else
#elif VEC_OK
        /* A pass-through inner run (channels-last): one vector load where aligned. */
        if (vec_load_ok(&a, in_off, io + x0))
            CAT(vstore, V)(*(__global const CAT(BITS_BASE, V) *)(in + io + x0), 0, v);
        else
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            v[j] = gather_one(in, tab, &a, io, x0 + j);
#if VEC_OK
        if (vec_store_ok(&a, out_off, oo, x0, V)) {
            STORE_BITS(V, out + oo + x0, v);
            continue;
        }
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            out[oo + (x0 + j) * (idx_t)a.inner_out] = v[j];
    }
}

/* CPUs: units of a.seg outputs (a whole row where it is short) walked by a plain loop,
 * which the compiler vectorises (gathers from the table and the input, contiguous stores)
 * where an unrolled unit of V outputs stays scalar. */
__kernel void resample1_gather_seg(__global const bits_t *restrict in, ulong in_off,
                                   __global bits_t *restrict out, ulong out_off,
                                   __global const uint *restrict tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, w = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        idx_t xs, xe;
        const idx_t row = seg_range(u, &a, w, &xs, &xe);
        idx_t io = 0, oo = 0;
        outer_gather(row, &a, tab, &io, &oo);
        __global bits_t *o = out + oo;
        if (a.inner_out == 1)
            for (idx_t x = xs; x < xe; x++)
                o[x] = gather_one(in, tab, &a, io, x);
        else
            for (idx_t x = xs; x < xe; x++)
                o[x * (idx_t)a.inner_out] = gather_one(in, tab, &a, io, x);
    }
}

/* CPUs, channels-last: the inner dimension is a short pass-through run (the channels)
 * and the next one is resampled. A unit is a segment of a.seg positions along that second
 * dimension, each position a contiguous run of the inner one: one table read per
 * position, then a plain copy loop. */
__kernel void resample1_gather_seg2(__global const bits_t *restrict in, ulong in_off,
                                    __global bits_t *restrict out, ulong out_off,
                                    __global const uint *restrict tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, n2 = (idx_t)a.size2;
    const idx_t c_n = (idx_t)a.inner_size, c_in = (idx_t)a.inner_in, c_out = (idx_t)a.inner_out;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        idx_t ps, pe;
        const idx_t row = seg_range(u, &a, n2, &ps, &pe);
        idx_t io = 0, oo = 0;
        outer_gather(row, &a, tab, &io, &oo);
        for (idx_t q = ps; q < pe; q++) {
            __global const bits_t *i = in + io + (idx_t)tab[(idx_t)a.tab2 + q] * (idx_t)a.in2;
            __global bits_t *o = out + oo + q * (idx_t)a.out2;
            for (idx_t c = 0; c < c_n; c++)
                o[c * c_out] = i[c * c_in];
        }
    }
}

/* Resampled inner dimension: a 2-D range, dimension 0 along the row (RV outputs per item,
 * neighbouring items on neighbouring vectors: coalesced), dimension 1 over rows (looping).
 * An item reads its inner table rows once and reuses them for every row it visits; per row
 * it pays only the outer coordinates. The planner's choice for LINEAR on GPUs; for
 * nearest only on request (rows=1 in $DMLCL_RESAMPLE_PLAN): the H200 ran nearest faster
 * as units of 8. */
__kernel void resample1_gather_rows(__global const bits_t *in, ulong in_off,
                                    __global bits_t *out, ulong out_off,
                                    __global const uint *tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t w = (idx_t)a.inner_size, x0 = (idx_t)get_global_id(0) * RV;
    if (x0 >= w)
        return;
    idx_t xo[RV]; /* input offsets along the inner dimension (clamped past the row's end) */
#pragma unroll
    for (int j = 0; j < RV; j++)
        xo[j] = (idx_t)tab[(idx_t)a.inner_tab + min(x0 + j, w - 1)] * (idx_t)a.inner_in;
    const idx_t rows = (idx_t)a.rows;
    for (idx_t r = (idx_t)get_global_id(1); r < rows; r += (idx_t)get_global_size(1)) {
        idx_t io = 0, oo = 0;
        outer_gather(r, &a, tab, &io, &oo);
        bits_t v[RV];
#pragma unroll
        for (int j = 0; j < RV; j++)
            v[j] = in[io + xo[j]];
        if (vec_store_ok(&a, out_off, oo, x0, RV)) {
            STORE_BITS(RV, out + oo + x0, v);
            continue;
        }
#pragma unroll
        for (int j = 0; j < RV; j++)
            if (x0 + j < w)
                out[oo + (x0 + j) * (idx_t)a.inner_out] = v[j];
    }
}

#else /* LINEAR */

#if K < 1 || K > 8
#error "K must be 1..8"
#endif
/* INNER_K: the inner dimension's slot among the K resampled ones (-1: pass-through), a
 * build option so that filling its slot per output costs no selects. */
#if INNER_RES && (INNER_K < 0 || INNER_K >= K)
#error "INNER_K must name a resampled slot"
#endif
/* With INNER_RES=0, INNER_K >= 0 names the slot of resample1_linear_seg2's second inner
 * dimension. */

/* Element type, accumulator, load and store. FLOAT16 and the 8-bit types compute in
 * float and round once on store (FLOAT16: to nearest even; INT8/UINT8: to nearest even,
 * saturated). FLOAT64 accumulates in double (weights come from the float tables). */
#if DTYPE == 9
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double elem_t;
typedef double acc_t;
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#define STORE_VEC(N, p, r) (*(__global CAT(double, N) *)(p) = CAT(vload, N)(0, r))
#define LOAD_VEC(N, p, r) CAT(vstore, N)(*(__global const CAT(double, N) *)(p), 0, (r))
#elif DTYPE == 1
typedef float elem_t;
typedef float acc_t;
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#define STORE_VEC(N, p, r) (*(__global CAT(float, N) *)(p) = CAT(vload, N)(0, r))
#define LOAD_VEC(N, p, r) CAT(vstore, N)(*(__global const CAT(float, N) *)(p), 0, (r))
#elif DTYPE == 2
typedef half elem_t; /* pointers only: vload_half/vstore_half are core, no cl_khr_fp16 */
typedef float acc_t;
#define LOAD(p, i) vload_half((size_t)(i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (size_t)(i), (p))
#define STORE_VEC(N, p, r) CAT(store_half_v, N)((p), (r))
/* Rounds in private memory, then one ushortN store of the bits. */
#define DEFINE_STORE_HALF(N)                                                                  \
    static inline void CAT(store_half_v, N)(__global half *p, const float *r)                 \
    {                                                                                         \
        ushort b[N];                                                                          \
        CAT(CAT(vstore_half, N), _rte)(CAT(vload, N)(0, r), 0, (__private half *)b);          \
        *(__global CAT(ushort, N) *)p = CAT(vload, N)(0, b);                                  \
    }
DEFINE_STORE_HALF(4)
#if VEC_OK && V != 4
DEFINE_STORE_HALF(V)
#endif
/* One ushortN load of the bits, then converted in private memory. */
#define LOAD_VEC(N, p, r) CAT(load_half_v, N)((p), (r))
#if VEC_OK
static inline void CAT(load_half_v, V)(__global const half *p, float *r)
{
    ushort b[V];
    CAT(vstore, V)(*(__global const CAT(ushort, V) *)p, 0, b);
    CAT(vstore, V)(CAT(vload_half, V)(0, (__private const half *)b), 0, r);
}
#endif
#elif DTYPE == 8
typedef char elem_t;
typedef float acc_t;
#define LOAD(p, i) ((float)(p)[i])
#define STORE(p, i, v) ((p)[i] = convert_char_sat_rte(v))
#define STORE_VEC(N, p, r) \
    (*(__global CAT(char, N) *)(p) = CAT(CAT(convert_char, N), _sat_rte)(CAT(vload, N)(0, r)))
#define LOAD_VEC(N, p, r) \
    CAT(vstore, N)(CAT(convert_float, N)(*(__global const CAT(char, N) *)(p)), 0, (r))
#elif DTYPE == 5
typedef uchar elem_t;
typedef float acc_t;
#define LOAD(p, i) ((float)(p)[i])
#define STORE(p, i, v) ((p)[i] = convert_uchar_sat_rte(v))
#define STORE_VEC(N, p, r) \
    (*(__global CAT(uchar, N) *)(p) = CAT(CAT(convert_uchar, N), _sat_rte)(CAT(vload, N)(0, r)))
#define LOAD_VEC(N, p, r) \
    CAT(vstore, N)(CAT(convert_float, N)(*(__global const CAT(uchar, N) *)(p)), 0, (r))
#else
#error "unsupported DTYPE"
#endif

/* Peels the outer resampled indices off rem (innermost first): slot k gets the offset of
 * its lower neighbour, the step to its upper one (0 where the weight is 0, so that corner
 * reads the lower one again: in bounds at the edge) and its weight. K is a compile-time
 * count, so the slots stay in registers (the inner slot is filled per output instead). */
static idx_t linear_dims(idx_t rem, const resample1_args *a, __global const uint2 *tab,
                         idx_t *lo, idx_t *hi, float *w, idx_t *oo)
{
#pragma unroll
    for (int k = K - 1; k >= 0; k--) {
        lo[k] = hi[k] = 0;
        w[k] = 0;
        if (k == INNER_K) /* the host's skip_r (-1: none to skip) */
            continue;
        const idx_t q = fdiv(rem, a->rmul[k], a->rshr[k]), i = rem - q * (idx_t)a->rsize[k];
        rem = q;
        const uint2 r = tab[(idx_t)a->rtab[k] + i];
        lo[k] = (idx_t)r.x * (idx_t)a->rin[k];
        w[k] = as_float(r.y);
        hi[k] = w[k] != 0 ? (idx_t)a->rin[k] : 0;
        *oo += i * (idx_t)a->rout[k];
    }
    return rem;
}

/* The offsets, corner steps and weights of outer row `row` (see outer_gather). */
static inline void outer_linear(idx_t row, const resample1_args *a, __global const uint2 *tab,
                                idx_t *io, idx_t *oo, idx_t *lo, idx_t *hi, float *w)
{
    if (PASS_FIRST(a))
        linear_dims(pass_dims(row, a, io, oo), a, tab, lo, hi, w, oo);
    else
        pass_dims(linear_dims(row, a, tab, lo, hi, w, oo), a, io, oo);
}

/* One output: corners in the reference's order (first resampled dimension = most
 * significant bit), weight = product over dimensions in order. A corner of weight 0 adds
 * nothing (so an Inf or NaN there cannot turn the result into NaN); its load still
 * happens, from an in-bounds address, so that no branch separates the 2^K loads and
 * they are all in flight together. */
/* Corner c's weight and (added to *off) input offset. */
static inline acc_t corner(uint c, const idx_t *lo, const idx_t *hi, const float *w, idx_t *off)
{
    acc_t wt = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
        const uint bit = (c >> (K - 1 - k)) & 1u;
        const acc_t wk = (acc_t)w[k];
        const acc_t f = bit ? wk : (acc_t)1 - wk;
        wt = k == 0 ? f : wt * f; /* the product from 1, less its exact first step */
        *off += lo[k] + (bit ? hi[k] : 0);
    }
    return wt;
}

static acc_t interpolate(__global const elem_t *in, idx_t io, const idx_t *lo,
                         const idx_t *hi, const float *w)
{
    acc_t acc = 0;
#if K <= 3 /* unrolled up to 8 corners; more would bloat the code V times over */
#pragma unroll
#endif
    for (uint c = 0; c < (1u << K); c++) {
        idx_t off = io;
        const acc_t wt = corner(c, lo, hi, w, &off);
        const acc_t v = (acc_t)LOAD(in, off);
        acc = wt != 0 ? acc + wt * v : acc;
    }
    return acc;
}

#if !INNER_RES && VEC_OK
/* A unit of V outputs along a pass-through inner run (channels-last): every output has the
 * same corners and weights, so each corner's V inputs come as one vector load where
 * every corner is aligned; the same terms in the same order as interpolate(). */
static int interpolate_vec(__global const elem_t *in, ulong in_off, const resample1_args *a,
                           idx_t io, const idx_t *lo, const idx_t *hi, const float *w,
                           acc_t *res)
{
    idx_t m = io; /* every corner aligned: io and every step a multiple of V */
#pragma unroll
    for (int k = 0; k < K; k++)
        m |= lo[k] | hi[k];
    if (!vec_load_ok(a, in_off, 0) || m % V != 0)
        return 0;
#pragma unroll
    for (int j = 0; j < V; j++)
        res[j] = 0;
#if K <= 3
#pragma unroll
#endif
    for (uint c = 0; c < (1u << K); c++) {
        idx_t off = io;
        const acc_t wt = corner(c, lo, hi, w, &off);
        acc_t v[V];
        LOAD_VEC(V, in + off, v);
#pragma unroll
        for (int j = 0; j < V; j++)
            res[j] = wt != 0 ? res[j] + wt * v[j] : res[j];
    }
    return 1;
}
#endif

/* One output, x along the inner dimension: its table row (resampled) or stride (pass-
 * through) completes the outer slots. */
static inline acc_t linear_one(__global const elem_t *in, __global const uint2 *tab,
                               const resample1_args *a, idx_t io, const idx_t *lo,
                               const idx_t *hi, const float *w, idx_t x)
{
#if INNER_RES
    /* The inner slot's row replaces slot inner_k (unrolled selects, no dynamically
     * indexed private arrays). */
    const uint2 r = tab[(idx_t)a->inner_tab + x];
    const float wx = as_float(r.y);
    idx_t lo_j[K], hi_j[K];
    float w_j[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        const int here = k == INNER_K;
        lo_j[k] = here ? (idx_t)r.x * (idx_t)a->inner_in : lo[k];
        hi_j[k] = here ? (wx != 0 ? (idx_t)a->inner_in : 0) : hi[k];
        w_j[k] = here ? wx : w[k];
    }
    return interpolate(in, io, lo_j, hi_j, w_j);
#else
    return interpolate(in, io + x * (idx_t)a->inner_in, lo, hi, w);
#endif
}

__kernel void resample1_linear(__global const elem_t *in, ulong in_off, __global elem_t *out,
                               ulong out_off, __global const uint2 *tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, w_in = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        const idx_t row = fdiv(u, a.chunks_mul, a.chunks_shr), x0 = (u - row * (idx_t)a.chunks) * V;
        idx_t io = 0, oo = 0, lo[K], hi[K];
        float w[K];
        outer_linear(row, &a, tab, &io, &oo, lo, hi, w);
        if (x0 + V > w_in) { /* the row's last, partial unit */
            for (int j = 0; j < V && x0 + j < w_in; j++)
                STORE(out, oo + (x0 + j) * (idx_t)a.inner_out,
                      linear_one(in, tab, &a, io, lo, hi, w, x0 + j));
            continue;
        }
        /* A whole unit: no guards, so its loads overlap (see resample1_gather). */
        acc_t res[V];
#if !INNER_RES && VEC_OK
        if (!interpolate_vec(in, in_off, &a, io + x0, lo, hi, w, res))
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            res[j] = linear_one(in, tab, &a, io, lo, hi, w, x0 + j);
#if VEC_OK
        if (vec_store_ok(&a, out_off, oo, x0, V)) {
            STORE_VEC(V, out + oo + x0, res);
            continue;
        }
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            STORE(out, oo + (x0 + j) * (idx_t)a.inner_out, res[j]);
    }
}

/* One row of a row kernel item's RV outputs, each from its own corner loads: the inner
 * slot's offset, step and weight are the item's (xlo, xhi, xw). */
static void corners_row(__global const elem_t *in, idx_t io, const idx_t *lo, const idx_t *hi,
                        const float *w, const idx_t *xlo, const idx_t *xhi, const float *xw,
                        acc_t *res)
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
        res[j] = interpolate(in, io, lo_j, hi_j, w_j);
    }
}

/* A row kernel item's RV results: one vector store where it can, else those within the row. */
static inline void store_row(__global elem_t *out, ulong out_off, const resample1_args *a,
                             idx_t oo, idx_t x0, const acc_t *res)
{
    if (vec_store_ok(a, out_off, oo, x0, RV)) {
        STORE_VEC(RV, out + oo + x0, res);
        return;
    }
#pragma unroll
    for (int j = 0; j < RV; j++)
        if (x0 + j < (idx_t)a->inner_size)
            STORE(out, oo + (x0 + j) * (idx_t)a->inner_out, res[j]);
}

/* The window (WIN, WPAT: lib/resample1_plan.c's pick_window). Neighbouring outputs of an
 * upsampled row share input columns: 2x reads 4 columns for 4 outputs, not 8. An item
 * whose outputs fit loads each outer corner's WIN consecutive columns once per row and
 * picks output j's lower column at window entry PAT(j), the upper one next to it; the
 * entries are constants after unrolling, so the window lives in registers. H200, linear
 * 2x NCHW: 0.44 of copy with 16 loads per item and row, 0.66 with 8. */
#ifndef WIN
#define WIN 0
#define WPAT 0
#endif
#if WIN
#if !INNER_RES || K > 3
#error "the window needs a resampled inner dimension and at most 3 resampled ones"
#endif
#define PAT(j) ((int)((WPAT >> (4 * (j))) & 15))
/* Corner c's bit of the inner slot, and its index among the outer corners (c without it). */
#define INNER_BIT(c) (((c) >> (K - 1 - INNER_K)) & 1u)
#define OUTER(c) ((((c) >> (K - INNER_K)) << (K - 1 - INNER_K)) | \
                  ((c) & ((1u << (K - 1 - INNER_K)) - 1u)))

/* Whether outputs with lower columns i0 read columns base + PAT(j), clamped to the row of
 * n as the window loads them. The upper column, the window's next, is then i0 + 1 too:
 * only i0 = n - 1 clamps it, and there the weight is 0. */
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

/* corners_row from the window, in two steps (pairs of rows share the first): each outer
 * corner's columns loaded once (the inner slot's lo and hi are 0, so corner() gives the
 * outer offset alone), then every output's terms in interpolate()'s order with its
 * arithmetic: the same bits. */
typedef acc_t window_t[1 << (K - 1)][WIN];

static inline void window_load(__global const elem_t *in, idx_t io, const idx_t *lo,
                               const idx_t *hi, const float *w, const idx_t *col, window_t win)
{
#pragma unroll
    for (uint c = 0; c < (1u << K); c++) {
        if (INNER_BIT(c))
            continue;
        idx_t off = io;
        corner(c, lo, hi, w, &off);
        __global const elem_t *row = in + off;
#pragma unroll
        for (int t = 0; t < WIN; t++)
            win[OUTER(c)][t] = (acc_t)LOAD(row, col[t]);
    }
}

static inline void window_row(window_t win, const idx_t *lo, const idx_t *hi, const float *w,
                              const float *xw, acc_t *res)
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
            acc = wt != 0 ? acc + wt * v : acc;
        }
        res[j] = acc;
    }
}

#ifdef PAIR_K
#if PAIR_K == INNER_K || PAIR_K >= K
#error "PAIR_K must name an outer resampled slot"
#endif
/* linear_dims for the pairs (lib/resample1_plan.c's pick_pairs): slot PAIR_K counts groups
 * of 1 or 2 consecutive output rows with the same lower input row, table rows {first
 * output, outputs} from gtab. Its lo and w are the first row's, *w2 the second's (the
 * first's again for a single row); its step is taken where either row's weight is not 0
 * (only a group's first row can have weight 0, and then the second reads the upper row,
 * in bounds): a weight-0 corner is dropped by the select whatever it reads. */
static idx_t pair_dims(idx_t rem, const resample1_args *a, __global const uint2 *tab,
                       idx_t *lo, idx_t *hi, float *w, float *w2, uint *n2, idx_t *oo)
{
#pragma unroll
    for (int k = K - 1; k >= 0; k--) {
        lo[k] = hi[k] = 0;
        w[k] = 0;
        if (k == INNER_K)
            continue;
        const idx_t q = fdiv(rem, a->rmul[k], a->rshr[k]), i = rem - q * (idx_t)a->rsize[k];
        rem = q;
        idx_t o = i;
        uint2 r = tab[(idx_t)a->rtab[k] + i];
        if (k == PAIR_K) {
            const uint2 g = tab[(idx_t)a->gtab + i];
            o = (idx_t)g.x;
            r = tab[(idx_t)a->rtab[k] + o];
            *w2 = as_float(tab[(idx_t)a->rtab[k] + o + (g.y - 1)].y);
            *n2 = g.y;
        }
        lo[k] = (idx_t)r.x * (idx_t)a->rin[k];
        w[k] = as_float(r.y);
        const int step = k == PAIR_K ? w[k] != 0 || *w2 != 0 : w[k] != 0;
        hi[k] = step ? (idx_t)a->rin[k] : 0;
        *oo += o * (idx_t)a->rout[k];
    }
    return rem;
}

/* A pair step of the rows kernel: both rows from one window load (use_win, a constant
 * at each call) or each from its own corner loads (an item the window does not fit). */
static inline void pair_step(__global const elem_t *in, __global elem_t *out, ulong out_off,
                             const resample1_args *a, __global const uint2 *tab, idx_t rr,
                             idx_t x0, const idx_t *col, const idx_t *xlo, const idx_t *xhi,
                             const float *xw, int use_win)
{
    idx_t io = 0, oo = 0, lo[K], hi[K];
    float w[K], w2 = 0;
    uint n2 = 1;
    if (PASS_FIRST(a))
        pair_dims(pass_dims(rr, a, &io, &oo), a, tab, lo, hi, w, &w2, &n2, &oo);
    else
        pass_dims(pair_dims(rr, a, tab, lo, hi, w, &w2, &n2, &oo), a, &io, &oo);
    acc_t res[RV];
    if (use_win) {
        window_t win;
        window_load(in, io, lo, hi, w, col, win);
        window_row(win, lo, hi, w, xw, res);
        store_row(out, out_off, a, oo, x0, res);
        if (n2 < 2)
            return;
        w[PAIR_K] = w2;
        window_row(win, lo, hi, w, xw, res);
    } else {
        corners_row(in, io, lo, hi, w, xlo, xhi, xw, res);
        store_row(out, out_off, a, oo, x0, res);
        if (n2 < 2)
            return;
        w[PAIR_K] = w2;
        corners_row(in, io, lo, hi, w, xlo, xhi, xw, res);
    }
    store_row(out, out_off, a, oo + (idx_t)a->rout[PAIR_K], x0, res);
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
    in += in_off;
    out += out_off;
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
        idx_t col[WIN];
#pragma unroll
        for (int t = 0; t < WIN; t++)
            col[t] = (idx_t)clamp(base + t, 0L, (long)a.inner_nin - 1) * (idx_t)a.inner_in;
        for (idx_t rr = (idx_t)get_global_id(1); rr < rows; rr += (idx_t)get_global_size(1)) {
#ifdef PAIR_K
            pair_step(in, out, out_off, &a, tab, rr, x0, col, xlo, xhi, xw, 1);
#else
            idx_t io = 0, oo = 0, lo[K], hi[K];
            float w[K];
            window_t win;
            acc_t res[RV];
            outer_linear(rr, &a, tab, &io, &oo, lo, hi, w);
            window_load(in, io, lo, hi, w, col, win);
            window_row(win, lo, hi, w, xw, res);
            store_row(out, out_off, &a, oo, x0, res);
#endif
        }
        return;
    }
#endif
    for (idx_t rr = (idx_t)get_global_id(1); rr < rows; rr += (idx_t)get_global_size(1)) {
#ifdef PAIR_K
        pair_step(in, out, out_off, &a, tab, rr, x0, NULL, xlo, xhi, xw, 0);
        continue;
#endif
        idx_t io = 0, oo = 0, lo[K], hi[K];
        float w[K];
        acc_t res[RV];
        outer_linear(rr, &a, tab, &io, &oo, lo, hi, w);
        corners_row(in, io, lo, hi, w, xlo, xhi, xw, res);
        store_row(out, out_off, &a, oo, x0, res);
    }
}

/* resample1_gather_seg's layout for LINEAR (CPUs). */
__kernel void resample1_linear_seg(__global const elem_t *restrict in, ulong in_off,
                                   __global elem_t *restrict out, ulong out_off,
                                   __global const uint2 *restrict tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, w_in = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        idx_t xs, xe;
        const idx_t row = seg_range(u, &a, w_in, &xs, &xe);
        idx_t io = 0, oo = 0, lo[K], hi[K];
        float w[K];
        outer_linear(row, &a, tab, &io, &oo, lo, hi, w);
        __global elem_t *o = out + oo;
        if (a.inner_out == 1)
            for (idx_t x = xs; x < xe; x++)
                STORE(o, x, linear_one(in, tab, &a, io, lo, hi, w, x));
        else
            for (idx_t x = xs; x < xe; x++)
                STORE(o, x * (idx_t)a.inner_out, linear_one(in, tab, &a, io, lo, hi, w, x));
    }
}

#if !INNER_RES && INNER_K >= 0
/* resample1_gather_seg2's layout for LINEAR: per position, the second dimension's row
 * fills slot INNER_K; the channels then share every corner offset and weight. */
__kernel void resample1_linear_seg2(__global const elem_t *restrict in, ulong in_off,
                                    __global elem_t *restrict out, ulong out_off,
                                    __global const uint2 *restrict tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, n2 = (idx_t)a.size2;
    const idx_t c_n = (idx_t)a.inner_size, c_in = (idx_t)a.inner_in, c_out = (idx_t)a.inner_out;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        idx_t ps, pe;
        const idx_t row = seg_range(u, &a, n2, &ps, &pe);
        idx_t io = 0, oo = 0, lo[K], hi[K];
        float w[K];
        outer_linear(row, &a, tab, &io, &oo, lo, hi, w);
        for (idx_t q = ps; q < pe; q++) {
            const uint2 r = tab[(idx_t)a.tab2 + q];
            lo[INNER_K] = (idx_t)r.x * (idx_t)a.in2;
            w[INNER_K] = as_float(r.y);
            hi[INNER_K] = w[INNER_K] != 0 ? (idx_t)a.in2 : 0;
            __global elem_t *o = out + oo + q * (idx_t)a.out2;
            for (idx_t c = 0; c < c_n; c++)
                STORE(o, c * c_out, interpolate(in, io + c * c_in, lo, hi, w));
        }
    }
}
#endif
#endif
