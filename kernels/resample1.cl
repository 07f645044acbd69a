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
    ulong vec_ok;            /* 0: the output binding's base may be misaligned */
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
#define BITS_V CAT(uchar, V)
#elif ELEM_BYTES == 2
#define BITS_V CAT(ushort, V)
#elif ELEM_BYTES == 4
#define BITS_V CAT(uint, V)
#else
#define BITS_V CAT(ulong, V)
#endif
/* *p = the V elements of the private array r (same element type). */
#define STORE_BITS_V(p, r) (*(__global BITS_V *)(p) = CAT(vload, V)(0, r))

/* Whether the unit at output offset oo + x0 (binding offset out_off) can store a vector. */
static inline int vec_store_ok(const resample1_args *a, ulong out_off, idx_t oo, idx_t x0)
{
    return VEC_OK && a->vec_ok && a->inner_out == 1 && x0 + V <= (idx_t)a->inner_size &&
           (out_off + oo + x0) % V == 0;
}

static inline idx_t fdiv(idx_t n, ulong mul, ulong shr)
{
    const idx_t t = mul_hi(n, (idx_t)mul);
    return (t + ((n - t) >> (uint)(shr & 0xff))) >> (uint)(shr >> 8);
}

/* Peels the outer pass-through indices off rem (innermost first), adding their offsets.
 * The loops over dimensions run over all 8 slots, fully unrolled, so that every index into
 * the argument struct is a constant: a dynamic index makes GPU compilers copy the whole
 * struct into per-item private memory. */
static idx_t pass_dims(idx_t rem, const resample1_args *a, idx_t *io, idx_t *oo)
{
#pragma unroll
    for (int k = 7; k >= 0; k--) {
        if (k >= (int)a->np || (!INNER_RES && k == (int)a->inner_k))
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
    for (int k = 7; k >= 0; k--) {
        if (k >= (int)a->nr || (INNER_RES && k == (int)a->inner_k))
            continue;
        const idx_t q = fdiv(rem, a->rmul[k], a->rshr[k]), i = rem - q * (idx_t)a->rsize[k];
        rem = q;
        *io += (idx_t)tab[(idx_t)a->rtab[k] + i] * (idx_t)a->rin[k];
        *oo += i * (idx_t)a->rout[k];
    }
    return rem;
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
        if (a.pass_inner)
            gather_dims(pass_dims(row, &a, &io, &oo), &a, tab, &io, &oo);
        else
            pass_dims(gather_dims(row, &a, tab, &io, &oo), &a, &io, &oo);
        bits_t v[V];
#pragma unroll
        for (int j = 0; j < V; j++) {
            const idx_t x = x0 + j;
            if (x >= w)
                break;
#if INNER_RES
            const idx_t xi = (idx_t)tab[(idx_t)a.inner_tab + x];
#else
            const idx_t xi = x;
#endif
            v[j] = in[io + xi * (idx_t)a.inner_in];
        }
#if VEC_OK
        if (vec_store_ok(&a, out_off, oo, x0)) {
            STORE_BITS_V(out + oo + x0, v);
            continue;
        }
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            if (x0 + j < w)
                out[oo + (x0 + j) * (idx_t)a.inner_out] = v[j];
    }
}

#else /* LINEAR */

#if K < 1 || K > 8
#error "K must be 1..8"
#endif

/* Element type, accumulator, load and store. FLOAT16 and the 8-bit types compute in
 * float and round once on store (FLOAT16: to nearest even; INT8/UINT8: to nearest even,
 * saturated). FLOAT64 accumulates in double (weights come from the float tables). */
#if DTYPE == 9
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double elem_t;
typedef double acc_t;
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#define STORE_VEC(p, r) (*(__global CAT(double, V) *)(p) = CAT(vload, V)(0, r))
#elif DTYPE == 1
typedef float elem_t;
typedef float acc_t;
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#define STORE_VEC(p, r) (*(__global CAT(float, V) *)(p) = CAT(vload, V)(0, r))
#elif DTYPE == 2
typedef half elem_t; /* pointers only: vload_half/vstore_half are core, no cl_khr_fp16 */
typedef float acc_t;
#define LOAD(p, i) vload_half((size_t)(i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (size_t)(i), (p))
#define STORE_VEC(p, r) store_half_v((p), (r))
#if VEC_OK
/* Rounds in private memory, then one ushortV store of the bits. */
static inline void store_half_v(__global half *p, const float *r)
{
    ushort b[V];
    CAT(CAT(vstore_half, V), _rte)(CAT(vload, V)(0, r), 0, (__private half *)b);
    *(__global CAT(ushort, V) *)p = CAT(vload, V)(0, b);
}
#endif
#elif DTYPE == 8
typedef char elem_t;
typedef float acc_t;
#define LOAD(p, i) ((float)(p)[i])
#define STORE(p, i, v) ((p)[i] = convert_char_sat_rte(v))
#define STORE_VEC(p, r) \
    (*(__global CAT(char, V) *)(p) = CAT(CAT(convert_char, V), _sat_rte)(CAT(vload, V)(0, r)))
#elif DTYPE == 5
typedef uchar elem_t;
typedef float acc_t;
#define LOAD(p, i) ((float)(p)[i])
#define STORE(p, i, v) ((p)[i] = convert_uchar_sat_rte(v))
#define STORE_VEC(p, r) \
    (*(__global CAT(uchar, V) *)(p) = CAT(CAT(convert_uchar, V), _sat_rte)(CAT(vload, V)(0, r)))
#else
#error "unsupported DTYPE"
#endif

/* Peels the outer resampled indices off rem (innermost first): slot k gets the offset of
 * its lower neighbour and its weight. K is a compile-time count, so lo[] and w[] stay
 * in registers (the inner slot is filled per output instead). */
static idx_t linear_dims(idx_t rem, const resample1_args *a, __global const uint2 *tab,
                         idx_t *lo, float *w, idx_t *oo)
{
#pragma unroll
    for (int k = K - 1; k >= 0; k--) {
        lo[k] = 0;
        w[k] = 0;
        if (INNER_RES && k == (int)a->inner_k)
            continue;
        const idx_t q = fdiv(rem, a->rmul[k], a->rshr[k]), i = rem - q * (idx_t)a->rsize[k];
        rem = q;
        const uint2 r = tab[(idx_t)a->rtab[k] + i];
        lo[k] = (idx_t)r.x * (idx_t)a->rin[k];
        w[k] = as_float(r.y);
        *oo += i * (idx_t)a->rout[k];
    }
    return rem;
}

/* One output: corners in the reference's order (first resampled dimension = most
 * significant bit), weight = product over dimensions in order; a corner of weight 0 is
 * skipped, so its input is not read (and cannot turn the result into NaN). */
static acc_t interpolate(__global const elem_t *in, idx_t io, const idx_t *lo, const float *w,
                         const resample1_args *a)
{
    acc_t acc = 0;
    for (uint c = 0; c < (1u << K); c++) {
        acc_t wt = 1;
        idx_t off = io;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const uint bit = (c >> (K - 1 - k)) & 1u;
            const acc_t wk = (acc_t)w[k];
            wt = wt * (bit ? wk : (acc_t)1 - wk);
            off += lo[k] + (bit ? (idx_t)a->rin[k] : 0);
        }
        if (wt != 0)
            acc = acc + wt * (acc_t)LOAD(in, off);
    }
    return acc;
}

__kernel void resample1_linear(__global const elem_t *in, ulong in_off, __global elem_t *out,
                               ulong out_off, __global const uint2 *tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, w_in = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        const idx_t row = fdiv(u, a.chunks_mul, a.chunks_shr), x0 = (u - row * (idx_t)a.chunks) * V;
        idx_t io = 0, oo = 0, lo[K];
        float w[K];
        acc_t res[V];
        if (a.pass_inner)
            linear_dims(pass_dims(row, &a, &io, &oo), &a, tab, lo, w, &oo);
        else
            pass_dims(linear_dims(row, &a, tab, lo, w, &oo), &a, &io, &oo);
#pragma unroll
        for (int j = 0; j < V; j++) {
            const idx_t x = x0 + j;
            if (x >= w_in)
                break;
#if INNER_RES
            /* The inner slot: its row replaces lo/w[inner_k] (unrolled selects, no
             * dynamically indexed private arrays). */
            const uint2 r = tab[(idx_t)a.inner_tab + x];
            idx_t lo_j[K];
            float w_j[K];
#pragma unroll
            for (int k = 0; k < K; k++) {
                const int here = k == (int)a.inner_k;
                lo_j[k] = here ? (idx_t)r.x * (idx_t)a.inner_in : lo[k];
                w_j[k] = here ? as_float(r.y) : w[k];
            }
            res[j] = interpolate(in, io, lo_j, w_j, &a);
#else
            res[j] = interpolate(in, io + x * (idx_t)a.inner_in, lo, w, &a);
#endif
        }
#if VEC_OK
        if (vec_store_ok(&a, out_off, oo, x0)) {
            STORE_VEC(out + oo + x0, res);
            continue;
        }
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            if (x0 + j < w_in)
                STORE(out, oo + (x0 + j) * (idx_t)a.inner_out, res[j]);
    }
}
#endif
