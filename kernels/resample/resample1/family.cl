/* RESAMPLE1's kernels: what their layouts share. A folder's family.cl is no program of its
 * own: the embed step (tools/embed_kernels.c) prepends it to every .cl program in its
 * folder and below, outermost first: here resample1_units.cl, resample1_rows.cl,
 * resample1_segments.cl and resample1_cpu_rows.cl each start with kernels/core/common.cl (at
 * run time), ../family.cl, then this file.
 * The host computed every coordinate in IEEE float32 (lib/resample/resample1/resample1_plan.c):
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
 * Layouts: units (resample1_units.cl), 2-D rows (resample1_rows.cl) and segments
 * for CPUs (resample1_segments.cl).
 *
 * Options: LINEAR 0/1, V (outputs per unit), INNER_RES (the inner dimension is resampled);
 * with LINEAR=1, DTYPE (dmlcl data type value) and K (the number of resampled dimensions:
 * the 2^K corners). Shapes are arguments. */

/* The arguments (resample1_args), one header with the host (resample1.c). */
#include "resample/resample1/args.h"

/* A unit's V outputs go out as one vector store where they are contiguous and aligned:
 * a store through a vector pointer, since vstoreV only promises element alignment and
 * GPU compilers split it into V scalar stores. (vloadV from the private array of results
 * is only a register move.) On CPUs only where V results fit one of the target's vector
 * registers (the planner's V does; a wider V forced by $DMLCL_RESAMPLE_PLAN takes the
 * element path): vloadV of more would change the builtin's ABI, and clang warns. */
#if defined(DMLCL_CPU) && defined(__AVX512F__)
#define VEC_REG_BYTES 64
#elif defined(DMLCL_CPU) && defined(__AVX__)
#define VEC_REG_BYTES 32
#elif defined(DMLCL_CPU)
#define VEC_REG_BYTES 16
#else
#define VEC_REG_BYTES 128 /* GPUs: any V */
#endif
#if (V == 2 || V == 4 || V == 8 || V == 16) && \
    V * (!LINEAR ? ELEM_BYTES : DTYPE == 9 ? 8 : 4) <= VEC_REG_BYTES
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
#if INNER_RES /* no pass-through dimension is inner */
        if (k >= (int)a->np)
#else
        if (k >= (int)a->np || k == (int)a->skip_p)
#endif
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

/* The element types' vector loads and stores of N elements to and from a private array. */
#if DTYPE == 9
#define STORE_VEC(N, p, r) (*(__global CAT(double, N) *)(p) = CAT(vload, N)(0, r))
#define LOAD_VEC(N, p, r) CAT(vstore, N)(*(__global const CAT(double, N) *)(p), 0, (r))
#elif DTYPE == 1
#define STORE_VEC(N, p, r) (*(__global CAT(float, N) *)(p) = CAT(vload, N)(0, r))
#define LOAD_VEC(N, p, r) CAT(vstore, N)(*(__global const CAT(float, N) *)(p), 0, (r))
#elif DTYPE == 2
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
#else /* the integers (ELEM_INT, ../family.cl) */
#define STORE_VEC(N, p, r)                                                                      \
    (*(__global CAT(ELEM_INT, N) *)(p) =                                                        \
         CAT(CAT(CAT(convert_, ELEM_INT), N), _sat_rte)(CAT(vload, N)(0, r)))
#define LOAD_VEC(N, p, r) \
    CAT(vstore, N)(CAT(convert_float, N)(*(__global const CAT(ELEM_INT, N) *)(p)), 0, (r))
#endif

/* The corner loops' term: ../family.cl's ADD_TERM, or, in a program with the row
 * kernels' window, the choice, for the window's terms and for the corner path beside it
 * (items the window does not fit), whose hoisted loads would take registers from the
 * window path (H200, linear 2x with pairs: 0.83 of copy with the choice, 0.57 with the
 * sum in the corner path alone). */
#if defined(WIN) && WIN
#define CORNER_TERM(acc, wt, v) ((wt) != 0 ? (acc) + (wt) * (v) : (acc))
#else
#define CORNER_TERM(acc, wt, v) ADD_TERM(acc, wt, v)
#endif

/* The plain sum, acc + wt * v without the choice per term, and when it is exact. With
 * every input it reads finite, a weight-0 term adds 0 * v = +-0, which changes no sum (no
 * sum is -0): the plain sum is the choice's result bit for bit. With an Inf or NaN among
 * them the plain result is Inf or NaN whatever the weights (Inf * w is Inf or NaN, and
 * NaN or Inf stays in the sum), so a finite plain result proves itself: the row kernels'
 * corner path (in the programs resample1_rows.cl's corners_results names) sums a row
 * plain, tests its results once, and redoes it with the choice in the rare non-finite
 * case (plain is a constant in each inlined copy). The integer types
 * are always finite. H200, linear 1.5x: 0.62 -> 0.67 of copy. The window path takes it
 * only with pairs in two dimensions (resample1_rows.cl's WPLAIN: trilinear 2x 0.58 ->
 * 0.61); elsewhere, and for channels-last, a second copy of the sum, chosen per row (by
 * the results, by the window's entries, or by the weights), cost more than the choice:
 * linear 2x 0.84 -> 0.55-0.58, trilinear 2x with 8 outputs per item and no pairs 0.49 ->
 * 0.29-0.36, channels-last 0.77 -> 0.76. */
#define TERM(plain, acc, wt, v) ((plain) ? (acc) + (wt) * (v) : CORNER_TERM(acc, wt, v))

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

#ifdef PAIR_K
#if PAIR_K == INNER_K || PAIR_K >= K
#error "PAIR_K must name an outer resampled slot"
#endif
#ifndef PAIR_K2
#define PAIR_K2 K /* no second pair slot: a slot no loop reaches */
#elif PAIR_K2 == INNER_K || PAIR_K2 >= PAIR_K
#error "PAIR_K2 must name an outer resampled slot below PAIR_K"
#endif
/* linear_dims for the pairs (lib/resample/resample1/resample1_plan.c's pick_pairs): slot
 * PAIR_K counts groups of 1 or 2 consecutive output rows (the units kernel's: pixels) with
 * the same lower input row, table rows {first output, outputs} from gtab (PAIR_K2's from
 * gtab2). Its lo and w are the first row's, w2[p] the second's (the first's again for a
 * single row), n2[p] the group's rows (p: 0 for PAIR_K, 1 for PAIR_K2); its step is taken
 * where either row's weight is not 0 (only a group's first row can have weight 0, and then
 * the second reads the upper row, in bounds): a weight-0 corner is dropped by the select
 * whatever it reads. */
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
        const int p = k == PAIR_K ? 0 : k == PAIR_K2 ? 1 : -1;
        if (p >= 0) {
            const uint2 g = tab[(idx_t)(p ? a->gtab2 : a->gtab) + i];
            o = (idx_t)g.x;
            r = tab[(idx_t)a->rtab[k] + o];
            w2[p] = as_float(tab[(idx_t)a->rtab[k] + o + (g.y - 1)].y);
            n2[p] = g.y;
        }
        lo[k] = (idx_t)r.x * (idx_t)a->rin[k];
        w[k] = as_float(r.y);
        const int step = w[k] != 0 || (p >= 0 && w2[p] != 0);
        hi[k] = step ? (idx_t)a->rin[k] : 0;
        *oo += o * (idx_t)a->rout[k];
    }
    return rem;
}
#endif

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
                         const idx_t *hi, const float *w, int plain)
{
    acc_t acc = 0;
#if K <= 3 /* unrolled up to 8 corners; more would bloat the code V times over */
#pragma unroll
#endif
    for (uint c = 0; c < (1u << K); c++) {
        idx_t off = io;
        const acc_t wt = corner(c, lo, hi, w, &off);
        const acc_t v = (acc_t)LOAD(in, off);
        acc = TERM(plain, acc, wt, v);
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
            res[j] = CORNER_TERM(res[j], wt, v[j]);
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
    return interpolate(in, io, lo_j, hi_j, w_j, 0);
#else
    return interpolate(in, io + x * (idx_t)a->inner_in, lo, hi, w, 0);
#endif
}
#endif
