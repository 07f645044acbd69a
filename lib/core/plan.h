/* What the planners share: the device limits they read, fast division and the NDRange of
 * a grid-stride loop. Planners are pure functions from (operator, sizes, strides, device
 * limits, overrides) to a plan: no OpenCL call and no environment, so they are unit-tested
 * directly (tests/check_reverse_planner.c, tests/check_resample1_planner.c). */
#ifndef DMLCL_CORE_PLAN_H
#define DMLCL_CORE_PLAN_H
#include "core/tensor.h"

/* What a planner needs to know about the device. */
typedef struct dmlcl__limits {
    size_t max_work_group_size;
    uint32_t compute_units;
    int is_cpu;
    /* Bytes in one of the compiler's vector registers: CPU kernels keep their vectors
     * within it (kernels/core/simd.cl says why). 0: 64, as on GPUs, whose compilers split any
     * vector without a change of ABI. */
    uint32_t simd_bytes;
    /* 32-bit registers a work-group may hold, where build options can cap each item's
     * (-cl-nv-maxrregcount); 0: no cap can be asked for. */
    uint32_t registers;
} dmlcl__limits;

/* Lanes of elem_bytes each in `regs` of a CPU compiler's vector registers, 2 to 16. */
static inline uint32_t dmlcl__simd_lanes(const dmlcl__limits *lim, uint32_t elem_bytes,
                                         uint32_t regs)
{
    const uint32_t bytes = lim->simd_bytes ? lim->simd_bytes : 64,
                   n = regs * bytes / elem_bytes;
    return n > 16 ? 16 : n < 2 ? 2 : n;
}

/* Results of at least this many bytes are beyond a CPU's caches: its kernels' stores may
 * go out non-temporal. */
#define DMLCL_NT_MIN_BYTES ((uint64_t)16 << 20)

/* Whether a CPU kernel's computed (not copied) results of `bytes` pay for non-temporal
 * stores: beyond the caches, and with vector registers of 32 bytes or more (with SSE's
 * 16, POCL, linear 1.5x fell from 9.0-11.5 to 7.3-7.7 GB/s with them). */
static inline int dmlcl__nt_stores_pay(const dmlcl__limits *lim, uint64_t bytes)
{
    const int wide = !lim->simd_bytes || lim->simd_bytes >= 32;
    return wide && bytes >= DMLCL_NT_MIN_BYTES;
}

/* ---- fast division (fastdiv.c) ---------------------------------------------------------
 * q = n / d for every n < 2^bits as t = mul_hi(n, mul); q = (t + ((n - t) >> sh1)) >> sh2
 * (Granlund & Montgomery): kernels get mul and sh1 | sh2 << 8 instead of dividing. */
typedef struct dmlcl__fastdiv {
    uint64_t mul;
    uint32_t sh1, sh2;
} dmlcl__fastdiv;
dmlcl__fastdiv dmlcl__fastdiv_make(uint64_t d, unsigned bits); /* d >= 1; bits 32 or 64 */
uint64_t dmlcl__fastdiv_apply(const dmlcl__fastdiv *f, uint64_t n, unsigned bits); /* host mirror */

/* Work-group and global size for a grid-stride loop over `items` elements. */
void dmlcl__plan_ndrange(uint64_t items, const dmlcl__limits *lim, size_t *global, size_t *local);

#endif
