/* The CPU row blocks' vectors, patterns and window (#included by resample1_cpu_rows.cl;
 * the embed step inlines it there, so it is no program of its own): the lanes per vector
 * (CR_W) and their types' widths, the planner's input patterns as constant lane masks
 * (CR_PL..., CR_PU...), the lane picks from a window of one or two vector loads (CR_PICK),
 * and the check of a vector against the patterns (cr_kind). */

/* CR_W (the planner's): lanes per vector, two of the compiler's vector registers of the
 * lanes' type (the accumulators for LINEAR, the elements' bits for nearest), at most 16:
 * 16 floats on AVX-512 and AVX2, 8 on SSE. No builtin is called with or returns a vector
 * wider than a register: that changes the call's ABI, and clang warns at every build
 * (kernels/core/simd.cl). So the lanes are picked with __builtin_shufflevector (an operator, no
 * call), private arrays move through pointers, and the types that convert as they load
 * call their builtins on halves, CR_C lanes, one register. Vectors of two registers keep
 * the speed of the 16-lane vectors AVX2 had before (2-core AVX2, --mb 128: nearest 2x
 * with edge rounding 45-51 GB/s with them, 30-32 with vectors of one register). */
#ifndef CR_W
#error "the row blocks need CR_W, the lanes per vector"
#endif
#if CR_W == 16
#define CR_C 8
#elif CR_W == 8
#define CR_C 4
#elif CR_W == 4
#define CR_C 2
#elif CR_W == 2
#define CR_C 1
#else
#error "CR_W must be 2, 4, 8 or 16"
#endif
/* CR_C (channels-last, INNER_RES=0): half a vector, a run's channels per vector where two
 * positions share one. Vector types of N lanes of T: CR_VN(T, N), T itself for N = 1. */
#define CR_CAT_(a, b) a##b
#define CR_CAT(a, b) CR_CAT_(a, b)
#define CR_V1(T) T
#define CR_V2(T) CR_CAT(T, 2)
#define CR_V4(T) CR_CAT(T, 4)
#define CR_V8(T) CR_CAT(T, 8)
#define CR_V16(T) CR_CAT(T, 16)
#define CR_VN(T, N) CAT(CR_V, N)(T)
#define CR_XB 1024              /* outputs (INNER_RES=0: positions) per block */
#define CR_NV (CR_XB / CR_W)    /* vectors per block */

/* CR_NT (the planner's, for outputs larger than the caches): 64-byte vectors go out as
 * non-temporal stores where the output row is 64-byte aligned, so that writing a line
 * costs no read of it first (half the memory traffic of an upsampled output); the item
 * ends with a fence, as memcpy's streaming stores do. */
#ifndef CR_NT
#define CR_NT 0
#endif
#define CR_NT_STORE(T, v, p) __builtin_nontemporal_store((v), (__global T *)(p))

/* The patterns as constant masks: lane j's input is the vector's first + nibble j of P
 * + 16 x bit j of H (CR_PLH, CR_PUH: where the inputs span more than 16), each below
 * 2 CR_W, the window's length, as the planner makes them. Up to four
 * patterns (CR_PL, CR_PL2, CR_PL3, CR_PL4 with their PU, PLH, PUH): a row's first vector
 * (clamped at the edge) and, in its interior, a scale like 1.5 puts the vectors' inputs
 * in three phases, one pattern each. */
#ifndef CR_PLH
#define CR_PLH 0
#endif
#ifndef CR_PUH
#define CR_PUH 0
#endif
#ifndef CR_PU
#define CR_PU 0
#endif
#ifdef CR_PL4
#define CR_NP 4
#elif defined(CR_PL3)
#define CR_NP 3
#elif defined(CR_PL2)
#define CR_NP 2
#elif defined(CR_PL)
#define CR_NP 1
#else
#define CR_NP 0 /* no pattern: every vector lane by lane */
#define CR_PL 0
#endif
#ifndef CR_PL2
#define CR_PL2 0
#define CR_PU2 0
#endif
#ifndef CR_PL3
#define CR_PL3 0
#define CR_PU3 0
#endif
#ifndef CR_PL4
#define CR_PL4 0
#define CR_PU4 0
#endif
#ifndef CR_PLH4
#define CR_PLH4 0
#endif
#ifndef CR_PUH4
#define CR_PUH4 0
#endif
#ifndef CR_PLH2
#define CR_PLH2 0
#endif
#ifndef CR_PUH2
#define CR_PUH2 0
#endif
#ifndef CR_PLH3
#define CR_PLH3 0
#endif
#ifndef CR_PUH3
#define CR_PUH3 0
#endif
/* The window: one vector or, where some input is CR_W or more past the first (the
 * planner's CR_WIN2), two. */
#ifndef CR_WIN2
#define CR_WIN2 0
#endif
#define CR_WIN (CR_WIN2 ? 2 * CR_W : CR_W)
#define CR_LANE(P, H, j) ((((P) >> (4 * (j))) & 15) | ((((H) >> (j)) & 1) << 4))
#define CR_L2(P, H, j) CR_LANE(P, H, j), CR_LANE(P, H, (j) + 1)
#define CR_L4(P, H, j) CR_L2(P, H, j), CR_L2(P, H, (j) + 2)
#define CR_L8(P, H, j) CR_L4(P, H, j), CR_L4(P, H, (j) + 4)
#define CR_L16(P, H, j) CR_L8(P, H, j), CR_L8(P, H, (j) + 8)
#define CR_LANES(P, H) CAT(CR_L, CR_W)(P, H, 0)
/* Lane picks from the window at p (one vector or two). */
#if CR_WIN > CR_W
#define CR_PICK(LOADF, p, P, H) __builtin_shufflevector(LOADF(p), LOADF((p) + CR_W), CR_LANES(P, H))
#else
#define CR_PICK(LOADF, p, P, H) __builtin_shufflevector(LOADF(p), LOADF(p), CR_LANES(P, H))
#endif

/* Whether a vector's lower inputs lo[j] and (upper) upper ones lo[j] + st[j] follow
 * pattern (pl, plh; pu, puh) from *base, the window within the row of span inputs. */
static inline int cr_fits(const idx_t *lo, const idx_t *st, idx_t span, int upper, ulong pl,
                          ulong plh, ulong pu, ulong puh, idx_t *base)
{
    const idx_t first = (idx_t)CR_LANE(pl, plh, 0);
    if (lo[0] < first || lo[0] - first + CR_WIN > span)
        return 0;
    *base = lo[0] - first;
    int ok = 1;
    for (int j = 0; j < CR_W; j++)
        ok &= lo[j] == *base + (idx_t)CR_LANE(pl, plh, j) &&
              (!upper || lo[j] + st[j] == *base + (idx_t)CR_LANE(pu, puh, j));
    return ok;
}

/* The pattern a vector follows (1..CR_NP), or 0. */
static inline int cr_kind(const idx_t *lo, const idx_t *st, idx_t span, int upper, idx_t *base)
{
    if (CR_NP >= 1 && cr_fits(lo, st, span, upper, CR_PL, CR_PLH, CR_PU, CR_PUH, base))
        return 1;
    if (CR_NP >= 2 && cr_fits(lo, st, span, upper, CR_PL2, CR_PLH2, CR_PU2, CR_PUH2, base))
        return 2;
    if (CR_NP >= 3 && cr_fits(lo, st, span, upper, CR_PL3, CR_PLH3, CR_PU3, CR_PUH3, base))
        return 3;
    if (CR_NP >= 4 && cr_fits(lo, st, span, upper, CR_PL4, CR_PLH4, CR_PU4, CR_PUH4, base))
        return 4;
    return 0;
}
