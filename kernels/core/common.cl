/* Prepended at run time (lib/core/cache.c) to every dmlcl kernel program, before the
 * family.cl files the embed step put in front of it (tools/embed_kernels.c). Build
 * options select the variant:
 *   ELEM_BYTES  1/2/4/8: element width (operators that only move bits use unsigned ints)
 *   IDX64       0/1: 32- or 64-bit index arithmetic (64 only where a tensor needs it)
 *   DMLCL_CPU   defined on CPU devices (lib/core/cache.c) */

/* A partial unroll of a loop whose trip count is known at run time only: on GPUs it keeps
 * several loads in flight; POCL's pipeline cannot unroll such loops and warns. */
#ifdef DMLCL_CPU
#define UNROLL_4
#else
#define UNROLL_4 _Pragma("unroll 4")
#endif

/* The pointer p (of type T *) stepped by n elements as integer arithmetic on its address.
 * NVIDIA's compiler folds a pointer step by a 64-bit binding offset into every later index:
 * each load and store then pays 64-bit adds and shifts (4 instructions, SASS of sm_90);
 * from an address made this way a 32-bit index costs one multiply-add, and a constant one
 * nothing (the load's immediate offset). Not everywhere a gain: the kernels that use it
 * say where it was measured. */
#define ADDR_STEP(T, p, n) ((T *)((ulong)(p) + (ulong)(n) * sizeof(*(p))))

#if IDX64
typedef ulong idx_t;
#else
typedef uint idx_t;
#endif

#if ELEM_BYTES == 1
typedef uchar bits_t;
#elif ELEM_BYTES == 2
typedef ushort bits_t;
#elif ELEM_BYTES == 4
typedef uint bits_t;
#elif ELEM_BYTES == 8
typedef ulong bits_t;
#endif

/* n / d with d's (mul, sh1 | sh2 << 8) from the host (lib/core/fastdiv.c): a multiply-high and
 * two shifts instead of a divide (tens of instructions on GPUs). */
static inline idx_t fdiv(idx_t n, ulong mul, ulong shr)
{
    const idx_t t = mul_hi(n, (idx_t)mul);
    return (t + ((n - t) >> (uint)(shr & 0xff))) >> (uint)(shr >> 8);
}
