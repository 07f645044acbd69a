/* A folder's family.cl is no program of its own: the embed step (tools/embed_kernels.c)
 * prepends it to every .cl program in its folder and in the folders below, outermost
 * first, and kernels/core/common.cl comes before them all at run time (lib/core/cache.c).
 * So every program under lib/resample/ (taps/taps.cl; the resample1_ files, after
 * resample1/family.cl) starts with this file: what the RESAMPLE family's kernels share.
 * With the option DTYPE (dmlcl data type value; absent where a kernel only moves bits),
 * the element type, the accumulator and their loads and stores. */

/* a * b + c rounds twice, as in the C reference the tests compare with. */
#pragma OPENCL FP_CONTRACT OFF

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#ifdef DTYPE
/* Element type, accumulator, load and store. FLOAT16 and the 8- and 16-bit integers
 * compute in float and round once on store (FLOAT16: to nearest even; the integers: to
 * nearest even, saturated). FLOAT64 accumulates in double (weights come from the float
 * tables). The 32-bit integers only move (nearest): no DTYPE. */
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
#elif DTYPE == 8 || DTYPE == 5 || DTYPE == 7 || DTYPE == 4
/* The integer types (INT8, UINT8, INT16, UINT16): float holds every value exactly, so
 * the one rounding is the store's. ELEM_INT names the type for its vectors and converts. */
#if DTYPE == 8
#define ELEM_INT char
#elif DTYPE == 5
#define ELEM_INT uchar
#elif DTYPE == 7
#define ELEM_INT short
#else
#define ELEM_INT ushort
#endif
typedef ELEM_INT elem_t;
typedef float acc_t;
#define LOAD(p, i) ((float)(p)[i])
#define STORE(p, i, v) ((p)[i] = CAT(CAT(convert_, ELEM_INT), _sat_rte)(v))
#else
#error "unsupported DTYPE"
#endif

/* acc plus the term wt * v, where a weight of 0 adds nothing (not even the NaN of 0 * Inf),
 * as acc + (wt != 0 ? wt * v : 0) rather than a choice between acc + wt * v and acc. The
 * same bits: every sum starts at +0, so none is -0, and x + 0 is x for every other x (a
 * NaN stays the NaN an earlier sum made). GPU compilers turn a choice one of whose
 * operands is a load into a branch around the load (LLVM's select sinking); the sum form
 * keeps the loads of a unit's corners ahead of their terms. Measured on an H200 where the
 * corners are loaded per output (interpolate, interpolate_vec): linear 1.5x 0.49 -> 0.56
 * of copy, linear 2x channels-last 0.72 -> 0.77. Programs with the row kernels' window
 * keep the choice (resample1/family.cl's CORNER_TERM), as do the tap kernels: there the
 * sum form measured 0.83 -> 0.57 (linear 2x) and 0.38 -> 0.36 (antialias). */
#define ADD_TERM(acc, wt, v) ((acc) + ((wt) != 0 ? (wt) * (v) : (acc_t)0))

/* Whether a plain sum's n results (every term added, a weight-0 one too) are exact: all
 * finite, the integer types always (resample1/family.cl's TERM says why that suffices). */
#if DTYPE == 1 || DTYPE == 2 || DTYPE == 9
#define FINITE(x) (isfinite(x) != 0)
#else
#define FINITE(x) 1
#endif
static inline int plain_exact(const acc_t *r, int n)
{
    int ok = 1;
#pragma unroll
    for (int j = 0; j < n; j++)
        ok &= FINITE(r[j]);
    return ok;
}
#endif
