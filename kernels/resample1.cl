/* RESAMPLE1. The host computed every coordinate in IEEE float32 (lib/resample1_plan.c):
 * each resampled dimension has one table row per output coordinate, NEAREST {input
 * index}, LINEAR {i0, weight bits} with i1 = i0 + 1 whenever the weight is not 0.
 * Pass-through dimensions (identity, constant, integer downsampling: affine maps) are
 * plain strides. So the kernels divide by nothing and nearest is an exact gather.
 * Extra options: LINEAR 0/1; with LINEAR=1, DTYPE (dmlcl data type value) and K (the
 * number of resampled dimensions: the 2^K corners). Shapes are arguments. */

/* a * b + c rounds twice, as in the C reference the tests compare with. */
#pragma OPENCL FP_CONTRACT OFF

/* Mirrors the host's resample1_args (all 64-bit fields: no padding surprises). */
typedef struct {
    ulong count;      /* output elements */
    ulong np, nr;     /* pass-through and resampled dimensions */
    ulong pass_inner; /* 1: the pass-through group varies fastest */
    ulong psize[8], pin[8], pout[8];          /* pass-through: size, input/output stride */
    ulong rsize[8], rin[8], rout[8], rtab[8]; /* resampled: size, strides, first table row */
} resample1_args;

/* Peels the pass-through indices off rem (innermost first) and adds their offsets. */
static idx_t pass_dims(idx_t rem, const resample1_args *a, idx_t *io, idx_t *oo)
{
    for (int k = (int)a->np - 1; k >= 0; k--) {
        const idx_t s = (idx_t)a->psize[k], i = rem % s;
        rem /= s;
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
    for (int k = (int)a->nr - 1; k >= 0; k--) {
        const idx_t s = (idx_t)a->rsize[k], i = rem % s;
        rem /= s;
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
    const idx_t count = (idx_t)a.count;
    for (idx_t g = (idx_t)get_global_id(0); g < count; g += (idx_t)get_global_size(0)) {
        idx_t io = 0, oo = 0;
        if (a.pass_inner)
            gather_dims(pass_dims(g, &a, &io, &oo), &a, tab, &io, &oo);
        else
            pass_dims(gather_dims(g, &a, tab, &io, &oo), &a, &io, &oo);
        out[oo] = in[io];
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
#elif DTYPE == 1
typedef float elem_t;
typedef float acc_t;
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#elif DTYPE == 2
typedef half elem_t; /* pointers only: vload_half/vstore_half are core, no cl_khr_fp16 */
typedef float acc_t;
#define LOAD(p, i) vload_half((size_t)(i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (size_t)(i), (p))
#elif DTYPE == 8
typedef char elem_t;
typedef float acc_t;
#define LOAD(p, i) ((float)(p)[i])
#define STORE(p, i, v) ((p)[i] = convert_char_sat_rte(v))
#elif DTYPE == 5
typedef uchar elem_t;
typedef float acc_t;
#define LOAD(p, i) ((float)(p)[i])
#define STORE(p, i, v) ((p)[i] = convert_uchar_sat_rte(v))
#else
#error "unsupported DTYPE"
#endif

/* Peels the K resampled indices off rem (innermost first): slot k gets the offset of
 * its lower neighbour and its weight. K is a compile-time count, so lo[] and w[] stay
 * in registers. */
static idx_t linear_dims(idx_t rem, const resample1_args *a, __global const uint2 *tab,
                         idx_t *lo, float *w, idx_t *oo)
{
#pragma unroll
    for (int k = K - 1; k >= 0; k--) {
        const idx_t s = (idx_t)a->rsize[k], i = rem % s;
        rem /= s;
        const uint2 r = tab[(idx_t)a->rtab[k] + i];
        lo[k] = (idx_t)r.x * (idx_t)a->rin[k];
        w[k] = as_float(r.y);
        *oo += i * (idx_t)a->rout[k];
    }
    return rem;
}

__kernel void resample1_linear(__global const elem_t *in, ulong in_off, __global elem_t *out,
                               ulong out_off, __global const uint2 *tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t count = (idx_t)a.count;
    for (idx_t g = (idx_t)get_global_id(0); g < count; g += (idx_t)get_global_size(0)) {
        idx_t io = 0, oo = 0, lo[K];
        float w[K];
        if (a.pass_inner)
            linear_dims(pass_dims(g, &a, &io, &oo), &a, tab, lo, w, &oo);
        else
            pass_dims(linear_dims(g, &a, tab, lo, w, &oo), &a, &io, &oo);
        /* Corners in the reference's order (first resampled dimension = most significant
         * bit), weight = product over dimensions in order; a corner of weight 0 is
         * skipped, so its input is not read (and cannot turn the result into NaN). */
        acc_t acc = 0;
        for (uint c = 0; c < (1u << K); c++) {
            acc_t wt = 1;
            idx_t off = io;
#pragma unroll
            for (int k = 0; k < K; k++) {
                const uint bit = (c >> (K - 1 - k)) & 1u;
                const acc_t wk = (acc_t)w[k];
                wt = wt * (bit ? wk : (acc_t)1 - wk);
                off += lo[k] + (bit ? (idx_t)a.rin[k] : 0);
            }
            if (wt != 0)
                acc = acc + wt * (acc_t)LOAD(in, off);
        }
        STORE(out, oo, acc);
    }
}
#endif
