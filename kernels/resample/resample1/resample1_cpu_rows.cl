/* CPUs (POCL): RESAMPLE1 in row blocks. Uses the family's arguments, tables and helpers
 * (family.cl: outer_linear, outer_gather, corner, LOAD, STORE).
 *
 * An item takes a block of one row (the output's fastest-varying dimension and, for a
 * channels-last run, the resampled dimension next to it: CR_XB outputs or positions) in
 * a.seg consecutive rows. It reads the block's table rows once, keeping each output's
 * input offsets and weight in private memory; per row it steps the outer coordinates
 * (cr_row), then writes the block with vector loads and stores:
 *   INNER_RES=1 (the inner dimension resampled, contiguous in the output): vectors of
 *     CR_W outputs. Where the planner found that a vector's inputs follow one pattern
 *     (CR_PL: lane j's lower input is the vector's first input + nibble j; CR_PU its upper
 *     one), as upsampling gives every vector but those at a row's ends, the vector's CR_W
 *     inputs come as one vector load and the lanes pick theirs with constant shuffles
 *     (one permute each); the kernel checks every vector and takes other vectors output
 *     by output.
 *   INNER_RES=0 (resample1_*_seg2's layout: a short pass-through run, channels, of stride
 *     1 in the input and the output, inside a resampled dimension): per position the
 *     run's corners are CR_C-wide vector loads, the position's weights shared.
 *
 * LINEAR: the same terms in the same order with the same arithmetic as interpolate()
 * (corners in the reference's order, weight = product in slot order, a term added only
 * where its weight is not 0): bit-identical to the other kernels. That needs the slot of
 * the resampled dimension along the row last (INNER_K = K - 1), so that its factor is the
 * last of each product: (product of the outer factors) * its factor is the same product.
 * The planner checks.
 *
 * Arguments (resample1_args): chunks (blocks per row; units = blocks x groups of rows),
 * seg (rows per item), rows, inner_nin (INNER_RES=1: the input row's span in elements). */

/* Lanes per vector, the patterns and the window: resample1_cpu_lanes.cl. */
#include "resample1_cpu_lanes.cl"

/* INNER_RES=1: the block's CR_XB outputs (clamped to the row); INNER_RES=0: its positions.
 * Table row, input step of the resampled dimension and the block's length. */
#if INNER_RES
#define CR_TAB(a) ((idx_t)(a).inner_tab)
#define CR_STEP(a) ((idx_t)(a).inner_in)
#define CR_LEN(a) ((idx_t)(a).inner_size)
#else
#define CR_TAB(a) ((idx_t)(a).tab2)
#define CR_STEP(a) ((idx_t)(a).in2)
#define CR_LEN(a) ((idx_t)(a).size2)
#endif

/* This item's block (*b0: its first output or position) and rows [*r0, *r1); 0 if the
 * item has none. */
static inline int cr_item(const resample1_args *a, idx_t *b0, idx_t *r0, idx_t *r1, int *nl,
                          int *nv)
{
    const idx_t u = (idx_t)get_global_id(0);
    if (u >= (idx_t)a->units)
        return 0;
    const idx_t g = fdiv(u, a->chunks_mul, a->chunks_shr);
    *r0 = g * (idx_t)a->seg;
    *r1 = min(*r0 + (idx_t)a->seg, (idx_t)a->rows);
    *b0 = (u - g * (idx_t)a->chunks) * CR_XB;
    *nl = (int)min((idx_t)CR_XB, CR_LEN(*a) - *b0); /* in the row */
    *nv = (*nl + CR_W - 1) / CR_W;
    return 1;
}


#if LINEAR
#if !INNER_RES && INNER_K < 0
#error "the row blocks of a pass-through run need its resampled dimension (INNER_K)"
#endif
#if INNER_K != K - 1
#error "the row blocks need the resampled slot along the row last (INNER_K = K - 1)"
#endif

/* cr_acc: CR_W accumulators, cr_acch: half as many (CR_C). FLOAT32 and FLOAT64 move
 * through pointers to vectors of element alignment: one unaligned vector instruction each
 * (POCL splits vload16 / vstore16 into pieces). The others convert to float as they load:
 * CR_LOADH / CR_STOREH move CR_C of them (CR_C >= 2 where the lanes are floats). */
#if DTYPE == 9
#define CR_ACC double
#else
#define CR_ACC float
#endif
typedef CR_VN(CR_ACC, CR_W) cr_acc;
typedef CR_VN(CR_ACC, CR_C) cr_acch;
#if DTYPE == 9 || DTYPE == 1
typedef cr_acc cr_uv __attribute__((aligned(ELEM_BYTES)));
typedef cr_acch cr_uh __attribute__((aligned(ELEM_BYTES)));
typedef cr_acc cr_av __attribute__((aligned(CR_W * ELEM_BYTES)));
#define CR_LOAD(p) (*(__global const cr_uv *)(p))
#define CR_STORE(v, p) (*(__global cr_uv *)(p) = (v))
#define CR_LOADH(p) (*(__global const cr_uh *)(p))
#define CR_STOREH(v, p) (*(__global cr_uh *)(p) = (v))
#else
#undef CR_NT
#define CR_NT 0
#endif
#if DTYPE == 2
#define CR_LOADH(p) CAT(vload_half, CR_C)(0, (p))
#define CR_STOREH(v, p) CAT(CAT(vstore_half, CR_C), _rte)((v), 0, (p))
#elif defined(ELEM_INT) /* the integers (../family.cl) */
#define CR_LOADH(p) CAT(convert_float, CR_C)(CAT(vload, CR_C)(0, (p)))
#define CR_STOREH(v, p) CAT(vstore, CR_C)(CAT(CAT(convert_, CR_VN(ELEM_INT, CR_C)), _sat_rte)(v), 0, (p))
#endif
#if DTYPE != 9 && DTYPE != 1 /* a vector as its halves, each one register */
#define CR_LOAD(p) ((cr_acc)(CR_LOADH(p), CR_LOADH((p) + CR_C)))
#define CR_STORE(v, p)                                                                         \
    do {                                                                                       \
        const cr_acc v_ = (v);                                                                 \
        CR_STOREH(v_.lo, (p));                                                                 \
        CR_STOREH(v_.hi, (p) + CR_C);                                                          \
    } while (0)
#endif
/* The accumulators' vectors in private arrays (element alignment). */
#if DTYPE == 9
typedef cr_acc cr_pv __attribute__((aligned(8)));
#else
typedef cr_acc cr_pv __attribute__((aligned(4)));
#endif

#define NOC (1 << (K - 1)) /* outer corners */

/* One output from its offsets and weight, corners from coff/cw (interpolate()'s terms). */
static inline acc_t cr_one(__global const elem_t *in, const idx_t *coff, const acc_t *cw,
                           idx_t lo, idx_t st, float w)
{
    const acc_t g0 = (acc_t)1 - (acc_t)w, g1 = (acc_t)w;
    acc_t acc = 0;
#pragma unroll
    for (int oc = 0; oc < NOC; oc++) {
        const acc_t wt0 = cw[oc] * g0, wt1 = cw[oc] * g1;
        const acc_t x0 = (acc_t)LOAD(in, coff[oc] + lo), x1 = (acc_t)LOAD(in, coff[oc] + lo + st);
        acc = wt0 != 0 ? acc + wt0 * x0 : acc;
        acc = wt1 != 0 ? acc + wt1 * x1 : acc;
    }
    return acc;
}

/* The rows' outer coordinates: the dimension split off the row number first (the
 * fastest-varying outer one) advances by one per row, so between its wraps a row costs
 * one table read and one product per corner (a resampled dimension) or one add
 * (pass-through), not every outer dimension's division, table read and corner product
 * (AVX2, trilinear 2x's rows of 128: 18 % of the kernel's samples). cr_base holds what
 * the rows up to the next wrap share; cr_row makes one row from it. */
typedef struct {
    idx_t rest[NOC]; /* the outer corners' input offsets without the fast dimension's */
    acc_t pre[NOC];  /* their weights' product over the slots before it (all: pass-through) */
    idx_t oo;        /* the output offset without the fast dimension's */
    idx_t r0, j0, n; /* a row, its index in the fast dimension, that dimension's size */
} cr_base;

#define CR_NONE (-1 - NPS) /* no outer dimension */
/* The fast dimension: slot s >= 0 of the resampled ones (K - 2: INNER_K = K - 1), or
 * -1 - p for pass-through slot p (pass_dims' first), or CR_NONE. */
static inline int cr_fast(const resample1_args *a)
{
    int p = -1;
#pragma unroll
    for (int k = 0; k < NPS; k++)
#if INNER_RES
        if (k < (int)a->np)
#else
        if (k < (int)a->np && k != (int)a->skip_p)
#endif
            p = k;
#if K >= 2
    return p >= 0 && PASS_FIRST(a) ? -1 - p : K - 2;
#else
    return p >= 0 ? -1 - p : CR_NONE;
#endif
}

/* The base of the rows from `row` on (the divisions and every table read). */
static inline void cr_start(idx_t row, int fast, const resample1_args *a,
                            __global const uint2 *tab, cr_base *b)
{
    idx_t io = 0, lo[K], hi[K];
    float w[K];
    b->oo = 0;
    outer_linear(row, a, tab, &io, &b->oo, lo, hi, w);
    b->r0 = row;
    b->j0 = 0;
    b->n = 1;
    idx_t in_step = 0, out_step = 0;
    if (fast < 0 && fast != CR_NONE) {
        const int p = -1 - fast;
        b->n = (idx_t)a->psize[p];
        b->j0 = row - fdiv(row, a->pmul[p], a->pshr[p]) * b->n;
        in_step = (idx_t)a->pin[p];
        out_step = (idx_t)a->pout[p];
    } else if (fast >= 0) {
        b->n = (idx_t)a->rsize[fast];
        b->j0 = row - fdiv(row, a->rmul[fast], a->rshr[fast]) * b->n;
        out_step = (idx_t)a->rout[fast];
    }
    /* Without the fast dimension: a resampled slot's factor 1 and offset 0 (its weight 0,
     * its corner bit clear), a pass-through index 0 (unsigned: wraps back when added). */
    io -= b->j0 * in_step;
    b->oo -= b->j0 * out_step;
    const uint bit = fast >= 0 ? 1u << (K - 1 - fast) : 0;
#pragma unroll
    for (int k = 0; k < K; k++)
        if (k == fast)
            lo[k] = hi[k] = 0, w[k] = 0;
#pragma unroll
    for (int oc = 0; oc < NOC; oc++) {
        b->rest[oc] = io;
        b->pre[oc] = corner(((uint)oc << 1) & ~bit, lo, hi, w, &b->rest[oc]);
    }
}

/* Row `row` (the base's or after it, before the wrap): its output offset, its outer
 * corners' input offsets and weights (corner()'s bit for bit: a resampled fast slot's
 * factor is the last of the outer ones, and its product with the inner slot's 1 - 0 is
 * itself). */
static inline void cr_row(const cr_base *b, idx_t row, int fast, const resample1_args *a,
                          __global const uint2 *tab, idx_t *oo, idx_t *coff, acc_t *cw)
{
    const idx_t j = b->j0 + (row - b->r0);
    if (fast >= 0) {
        const uint2 r = tab[(idx_t)a->rtab[fast] + j];
        const float w = as_float(r.y);
        const idx_t step = (idx_t)a->rin[fast], lo = (idx_t)r.x * step;
        const idx_t hi = w != 0 ? step : 0;
        const uint bit = 1u << (K - 1 - fast);
        *oo = b->oo + j * (idx_t)a->rout[fast];
#pragma unroll
        for (int oc = 0; oc < NOC; oc++) {
            const int up = (((uint)oc << 1) & bit) != 0;
            coff[oc] = b->rest[oc] + lo + (up ? hi : 0);
            cw[oc] = b->pre[oc] * (up ? (acc_t)w : (acc_t)1 - (acc_t)w);
        }
        return;
    }
    const int p = fast == CR_NONE ? 0 : -1 - fast;
    const idx_t in_step = fast == CR_NONE ? 0 : (idx_t)a->pin[p];
    *oo = b->oo + j * (fast == CR_NONE ? 0 : (idx_t)a->pout[p]);
#pragma unroll
    for (int oc = 0; oc < NOC; oc++) {
        coff[oc] = b->rest[oc] + j * in_step;
        cw[oc] = b->pre[oc];
    }
}

/* cr_row, first moving the base to `row` where the fast dimension wrapped before it. A
 * call, not inlined at its two sites: once per row it costs nothing measurable, and the
 * programs compile faster (the resample1 suite, one POCL thread: 29-31 -> 26 s CPU). */
static __attribute__((noinline)) void cr_walk(cr_base *b, idx_t row, int fast,
                                              const resample1_args *a,
                                              __global const uint2 *tab, idx_t *oo,
                                              idx_t *coff, acc_t *cw)
{
    if (b->j0 + (row - b->r0) >= b->n)
        cr_start(row, fast, a, tab, b);
    cr_row(b, row, fast, a, tab, oo, coff, cw);
}

/* One output row at o (corner weights cw) or, with `two` (a constant after inlining),
 * also a second one at o2 (cw2) that reads the same input rows: every input vector is
 * loaded and picked once for both. */
#define CR_TERMS(T, ACC, CW, X0, X1, F0, F1) CR_TERMS_SEL(T, ACC, CW, X0, X1, F0, F1, 1)
/* SEL 0 (a constant): every weight is known to be nonzero, so the selects would all add. */
#define CR_TERMS_SEL(T, ACC, CW, X0, X1, F0, F1, SEL)                                          \
    {                                                                                          \
        const T wt0 = (CW) * (F0), wt1 = (CW) * (F1);                                          \
        CR_TERMS_W(ACC, wt0, wt1, X0, X1, SEL);                                                \
    }
/* The same terms from their weights, products made before. */
#define CR_TERMS_W(ACC, WT0, WT1, X0, X1, SEL)                                                 \
    {                                                                                          \
        if (SEL) {                                                                             \
            ACC = (WT0) != 0 ? ACC + (WT0) * (X0) : ACC;                                       \
            ACC = (WT1) != 0 ? ACC + (WT1) * (X1) : ACC;                                       \
        } else {                                                                               \
            ACC = ACC + (WT0) * (X0);                                                          \
            ACC = ACC + (WT1) * (X1);                                                          \
        }                                                                                      \
    }
/* Weights at least this large multiply to a nonzero float (2^-120 > 2^-149). */
#define CR_BIG 0x1p-60f
#if CR_NT
#define CR_PUT(v, p, nt)                                                                       \
    do {                                                                                       \
        if (nt)                                                                                \
            CR_NT_STORE(cr_av, v, p);                                                         \
        else                                                                                   \
            CR_STORE(v, p);                                                                    \
    } while (0)
#else
#define CR_PUT(v, p, nt) CR_STORE(v, p)
#endif

/* Whether every outer corner weight of the row (and, with `two`, of the second) is CR_BIG. */
static inline int cr_cw_big(const acc_t *cw, const acc_t *cw2, const int two)
{
    int big = 1;
#pragma unroll
    for (int oc = 0; oc < NOC; oc++)
        big &= cw[oc] >= (acc_t)CR_BIG && (!two || cw2[oc] >= (acc_t)CR_BIG);
    return big;
}

/* Whether both of an output's inner weights (1 - w and w) are CR_BIG. */
static inline int cr_w_big(float w)
{
    return (acc_t)w >= (acc_t)CR_BIG && (acc_t)1 - (acc_t)w >= (acc_t)CR_BIG;
}

#if INNER_RES
/* CR_KEEP (the planner's, in bytes, where a block's products fit: short rows, like
 * trilinear 2x's 128): pairs of rows keep the weight products of every vector's terms
 * from pair to pair while the two rows' corner weights stay the same (in an upsampled
 * volume every pair of an item has the same), so that a term costs a load, not a
 * multiply: per 32 outputs of two rows (AVX2), 64 multiplies become 32. Entry
 * (v * NOC + oc) * 4 + t: cw[oc] * f0[v], cw[oc] * f1[v], cw2[oc] * f0[v], cw2[oc] * f1[v].
 * Pairs whose products would not fit go row by row (the planner's choice prevents it). */
#ifndef CR_KEEP
#define CR_KEEP 0
#endif
#define CR_WT (CR_KEEP / (int)sizeof(cr_acc))
static inline void cr_keep(cr_acc *wt, acc_t *wkey, int *wok, const acc_t *cw,
                           const acc_t *cw2, int nv, const cr_acc *f0, const cr_acc *f1)
{
    int same = *wok;
#pragma unroll
    for (int oc = 0; oc < NOC; oc++)
        same &= wkey[oc] == cw[oc] && wkey[NOC + oc] == cw2[oc];
    if (same)
        return;
    for (int v = 0; v < nv; v++)
#pragma unroll
        for (int oc = 0; oc < NOC; oc++) {
            cr_acc *q = wt + (v * NOC + oc) * 4;
            q[0] = cw[oc] * f0[v];
            q[1] = cw[oc] * f1[v];
            q[2] = cw2[oc] * f0[v];
            q[3] = cw2[oc] * f1[v];
        }
#pragma unroll
    for (int oc = 0; oc < NOC; oc++)
        wkey[oc] = cw[oc], wkey[NOC + oc] = cw2[oc];
    *wok = 1;
}

static inline __attribute__((always_inline)) void
cr_row_vectors(__global const elem_t *in, __global elem_t *o, __global elem_t *o2, const int two,
               const int kept, const cr_acc *wt,
               const idx_t *coff, const acc_t *cw, const acc_t *cw2, int nv, int nl,
               const int *fast, const idx_t *base, const cr_acc *f0, const cr_acc *f1,
               const idx_t *lo_a, const idx_t *st_a, const float *w_a)
{
    const int nt = CR_NT && ((size_t)o & 63) == 0 && (!two || ((size_t)o2 & 63) == 0);
    const int cwbig = cr_cw_big(cw, cw2, two);
    for (int v = 0; v < nv; v++) {
#define CR_FAST(PL, PLH, PU, PUH, SEL)                                                         \
    {                                                                                          \
        cr_acc acc = 0, acc2 = 0;                                                              \
        _Pragma("unroll") for (int oc = 0; oc < NOC; oc++)                                     \
        {                                                                                      \
            __global const elem_t *p = in + coff[oc] + base[v];                                \
            const cr_acc x0 = CR_PICK(CR_LOAD, p, PL, PLH), x1 = CR_PICK(CR_LOAD, p, PU, PUH); \
            if (kept) {                                                                        \
                const cr_acc *q = wt + (v * NOC + oc) * 4;                                     \
                CR_TERMS_W(acc, q[0], q[1], x0, x1, SEL);                                      \
                CR_TERMS_W(acc2, q[2], q[3], x0, x1, SEL);                                     \
                continue;                                                                      \
            }                                                                                  \
            CR_TERMS_SEL(cr_acc, acc, cw[oc], x0, x1, f0[v], f1[v], SEL);                      \
            if (two)                                                                           \
                CR_TERMS_SEL(cr_acc, acc2, cw2[oc], x0, x1, f0[v], f1[v], SEL);                \
        }                                                                                      \
        CR_PUT(acc, o + v * CR_W, nt);                                                         \
        if (two)                                                                               \
            CR_PUT(acc2, o2 + v * CR_W, nt);                                                   \
        continue;                                                                              \
    }
        /* fast[v]: the pattern in bits 0-2, bit 3: every lane's weights are CR_BIG. */
        const int kind = fast[v] & 7, nz = (fast[v] >> 3) & cwbig;
        if (kind == 1 && nz)
            CR_FAST(CR_PL, CR_PLH, CR_PU, CR_PUH, 0)
        if (kind == 1)
            CR_FAST(CR_PL, CR_PLH, CR_PU, CR_PUH, 1)
#if CR_NP >= 2
        if (kind == 2 && nz)
            CR_FAST(CR_PL2, CR_PLH2, CR_PU2, CR_PUH2, 0)
        if (kind == 2)
            CR_FAST(CR_PL2, CR_PLH2, CR_PU2, CR_PUH2, 1)
#endif
#if CR_NP >= 3
        if (kind == 3 && nz)
            CR_FAST(CR_PL3, CR_PLH3, CR_PU3, CR_PUH3, 0)
        if (kind == 3)
            CR_FAST(CR_PL3, CR_PLH3, CR_PU3, CR_PUH3, 1)
#endif
#if CR_NP >= 4
        if (kind == 4)
            CR_FAST(CR_PL4, CR_PLH4, CR_PU4, CR_PUH4, 1)
#endif
        if ((v + 1) * CR_W <= nl) { /* a whole vector off the pattern: lane by lane loads */
            cr_acc acc = 0, acc2 = 0;
#pragma unroll
            for (int oc = 0; oc < NOC; oc++) {
                acc_t r0[CR_W], r1[CR_W];
                for (int j = 0; j < CR_W; j++) {
                    const int l = v * CR_W + j;
                    r0[j] = (acc_t)LOAD(in, coff[oc] + lo_a[l]);
                    r1[j] = (acc_t)LOAD(in, coff[oc] + lo_a[l] + st_a[l]);
                }
                const cr_acc x0 = *(const cr_pv *)r0, x1 = *(const cr_pv *)r1;
                CR_TERMS(cr_acc, acc, cw[oc], x0, x1, f0[v], f1[v]);
                if (two)
                    CR_TERMS(cr_acc, acc2, cw2[oc], x0, x1, f0[v], f1[v]);
            }
            CR_STORE(acc, o + v * CR_W);
            if (two)
                CR_STORE(acc2, o2 + v * CR_W);
            continue;
        }
        for (int l = v * CR_W; l < nl; l++) {
            STORE(o, l, cr_one(in, coff, cw, lo_a[l], st_a[l], w_a[l]));
            if (two)
                STORE(o2, l, cr_one(in, coff, cw2, lo_a[l], st_a[l], w_a[l]));
        }
    }
}
#else
/* Channels-last pairs of positions that all read alike (cr_alike_find): in an upsampled row
 * every pair but those at its ends has the same two weights, and its inputs lie the same
 * distances apart, so that the pairs' weight products are made once per row (not per
 * pair) and their inputs come from one pointer stepped by d. Positions [qa, qb), both
 * even; empty where no two pairs alike follow each other. */
typedef struct {
    int qa, qb;
    idx_t d, e, s0, s1; /* pair to pair; second position's first input; upper steps */
    float w0, w1;       /* the two positions' weights, each CR_BIG both ways */
} cr_alike;

/* Whether the pair at q reads like the one at r (besides the distance between them). */
static inline int cr_pair_like(int q, int r, const idx_t *lo_a, const idx_t *st_a,
                               const float *w_a)
{
    return w_a[q] == w_a[r] && w_a[q + 1] == w_a[r + 1] && st_a[q] == st_a[r] &&
           st_a[q + 1] == st_a[r + 1] && lo_a[q + 1] - lo_a[q] == lo_a[r + 1] - lo_a[r];
}

/* The block's pairs alike: from the first pair that the next one reads like, as far as
 * the pairs stay alike and d apart. Once per item, for all its rows. */
static void cr_alike_find(cr_alike *r, int nl, const idx_t *lo_a, const idx_t *st_a,
                          const float *w_a)
{
    int q = 0;
    while (q + 3 < nl && !(cr_pair_like(q + 2, q, lo_a, st_a, w_a) && cr_w_big(w_a[q]) &&
                           cr_w_big(w_a[q + 1])))
        q += 2;
    r->qa = r->qb = 0;
    if (q + 3 >= nl)
        return;
    r->qa = q;
    r->d = lo_a[q + 2] - lo_a[q];
    r->e = lo_a[q + 1] - lo_a[q];
    r->s0 = st_a[q], r->s1 = st_a[q + 1];
    r->w0 = w_a[q], r->w1 = w_a[q + 1];
    for (q += 2; q + 1 < nl && cr_pair_like(q, r->qa, lo_a, st_a, w_a) &&
                 lo_a[q] - lo_a[q - 2] == r->d;
         q += 2)
        ;
    r->qb = q;
}

/* The pairs alike (their weights, and every outer corner weight, CR_BIG: no selects). */
static inline __attribute__((always_inline)) void
cr_alike_pairs(__global const elem_t *in, __global elem_t *o, __global elem_t *o2,
               const int two, const idx_t *coff, const acc_t *cw, const acc_t *cw2,
               const cr_alike *r, const idx_t *lo_a, const int nt)
{
    const cr_acc g1 = (cr_acc)((cr_acch)((acc_t)r->w0), (cr_acch)((acc_t)r->w1));
    const cr_acc g0 = (cr_acc)1 - g1;
    cr_acc wt[NOC][4];
#pragma unroll
    for (int oc = 0; oc < NOC; oc++) {
        wt[oc][0] = cw[oc] * g0, wt[oc][1] = cw[oc] * g1;
        wt[oc][2] = cw2[oc] * g0, wt[oc][3] = cw2[oc] * g1;
    }
    const idx_t e = r->e, s0 = r->s0, s1 = r->s1, d = r->d;
    __global const elem_t *p = in + lo_a[r->qa];
    for (int q = r->qa; q < r->qb; q += 2, p += d) {
        cr_acc acc = 0, acc2 = 0;
#pragma unroll
        for (int oc = 0; oc < NOC; oc++) {
            __global const elem_t *p0 = p + coff[oc], *p1 = p0 + e;
            const cr_acc x0 = (cr_acc)(CR_LOADH(p0), CR_LOADH(p1));
            const cr_acc x1 = (cr_acc)(CR_LOADH(p0 + s0), CR_LOADH(p1 + s1));
            CR_TERMS_W(acc, wt[oc][0], wt[oc][1], x0, x1, 0);
            if (two)
                CR_TERMS_W(acc2, wt[oc][2], wt[oc][3], x0, x1, 0);
        }
        CR_PUT(acc, o + (idx_t)q * CR_C, nt);
        if (two)
            CR_PUT(acc2, o2 + (idx_t)q * CR_C, nt);
    }
}

/* Channels-last: per position, the run's corners as CR_C-wide vectors. Runs of exactly
 * CR_C channels whose positions follow each other in the output (an image's 8 channels on
 * AVX-512) go two positions at a time, one vector of 2 CR_C lanes, each half with its position's
 * weights: per lane the same terms (a select per lane for the weight-0 rule), half the
 * instructions (channels-last linear 2x, 2-core POCL, --mb 64: 26.0-26.9 -> 33.6-35.7 GB/s).
 * Where every weight of the two positions is CR_BIG the selects go, as in cr_row_vectors,
 * and the block's pairs alike (cr_alike_pairs) have their products made once per row;
 * the vectors go out non-temporal where CR_NT asks (q even: each one vector-aligned when
 * the row is 64-byte aligned). */
static inline __attribute__((always_inline)) void
cr_row_channels(__global const elem_t *in, __global elem_t *o, __global elem_t *o2, const int two,
                const idx_t *coff, const acc_t *cw, const acc_t *cw2, int nl, idx_t c_n,
                idx_t out2, const idx_t *lo_a, const idx_t *st_a, const float *w_a,
                const cr_alike *al)
{
    const int nt = CR_NT && ((size_t)o & 63) == 0 && (!two || ((size_t)o2 & 63) == 0);
    const int cwbig = cr_cw_big(cw, cw2, two);
    const int paired = c_n == CR_C && out2 == CR_C;
    const int qa = paired && cwbig ? al->qa : nl, qb = paired && cwbig ? al->qb : nl;
    int q = 0;
    if (paired && cwbig)
        cr_alike_pairs(in, o, o2, two, coff, cw, cw2, al, lo_a, nt);
    for (; paired && q + 1 < nl; q += 2) {
        if (q == qa)
            q = qb; /* the pairs alike, done above */
        if (q + 1 >= nl)
            break;
        const cr_acc g1 = (cr_acc)((cr_acch)((acc_t)w_a[q]), (cr_acch)((acc_t)w_a[q + 1]));
        const cr_acc g0 = (cr_acc)1 - g1;
        cr_acc acc = 0, acc2 = 0;
#define CR_PAIR(SEL)                                                                           \
    {                                                                                          \
        _Pragma("unroll") for (int oc = 0; oc < NOC; oc++)                                     \
        {                                                                                      \
            __global const elem_t *p = in + coff[oc], *p0 = p + lo_a[q], *p1 = p + lo_a[q + 1];\
            const cr_acc x0 = (cr_acc)(CR_LOADH(p0), CR_LOADH(p1));                            \
            const cr_acc x1 = (cr_acc)(CR_LOADH(p0 + st_a[q]), CR_LOADH(p1 + st_a[q + 1]));    \
            CR_TERMS_SEL(cr_acc, acc, cw[oc], x0, x1, g0, g1, SEL);                            \
            if (two)                                                                           \
                CR_TERMS_SEL(cr_acc, acc2, cw2[oc], x0, x1, g0, g1, SEL);                      \
        }                                                                                      \
    }
        if (cwbig && cr_w_big(w_a[q]) && cr_w_big(w_a[q + 1]))
            CR_PAIR(0)
        else
            CR_PAIR(1)
        CR_PUT(acc, o + (idx_t)q * CR_C, nt);
        if (two)
            CR_PUT(acc2, o2 + (idx_t)q * CR_C, nt);
    }
    for (; q < nl; q++) {
        const idx_t oq = (idx_t)q * out2;
        const acc_t g0 = (acc_t)1 - (acc_t)w_a[q], g1 = (acc_t)w_a[q];
        idx_t c = 0;
/* The run's channels [c, c + W) as one vector of type T per corner. */
#define CR_CHANNELS(T, LOADF, STOREF, W)                                                       \
    for (; c + (W) <= c_n; c += (W)) {                                                         \
        T acc = 0, acc2 = 0;                                                                   \
        _Pragma("unroll") for (int oc = 0; oc < NOC; oc++)                                     \
        {                                                                                      \
            __global const elem_t *p = in + coff[oc] + lo_a[q] + c;                            \
            const T x0 = LOADF(p), x1 = LOADF(p + st_a[q]);                                    \
            CR_TERMS(acc_t, acc, cw[oc], x0, x1, g0, g1);                                      \
            if (two)                                                                           \
                CR_TERMS(acc_t, acc2, cw2[oc], x0, x1, g0, g1);                                \
        }                                                                                      \
        STOREF(acc, o + oq + c);                                                               \
        if (two)                                                                               \
            STOREF(acc2, o2 + oq + c);                                                         \
    }
        CR_CHANNELS(cr_acc, CR_LOAD, CR_STORE, CR_W) /* 2 CR_C channels and more */
        CR_CHANNELS(cr_acch, CR_LOADH, CR_STOREH, CR_C)
        for (; c < c_n; c++) {
            STORE(o, oq + c, cr_one(in, coff, cw, lo_a[q] + c, st_a[q], w_a[q]));
            if (two)
                STORE(o2, oq + c, cr_one(in, coff, cw2, lo_a[q] + c, st_a[q], w_a[q]));
        }
    }
}
#endif

__kernel void resample1_linear_cpu_rows(__global const elem_t *restrict in, ulong in_off,
                                        __global elem_t *restrict out, ulong out_off,
                                        __global const uint2 *restrict tab, resample1_args a)
{
    idx_t b0, r0, r1;
    int nl, nv;
    if (!cr_item(&a, &b0, &r0, &r1, &nl, &nv))
        return;
    in += in_off;
    out += out_off;
    const idx_t n = CR_LEN(a), step = CR_STEP(a);
    idx_t lo_a[CR_XB], st_a[CR_XB];
    float w_a[CR_XB];
    for (int l = 0; l < nv * CR_W; l++) {
        const uint2 r = tab[CR_TAB(a) + min(b0 + l, n - 1)];
        w_a[l] = as_float(r.y);
        lo_a[l] = (idx_t)r.x * step;
        st_a[l] = w_a[l] != 0 ? step : 0;
    }
#if INNER_RES
    idx_t base[CR_NV];
    cr_acc f0[CR_NV], f1[CR_NV];
    int fast_v[CR_NV]; /* the vector is whole and follows pattern fast_v[v] (0: none) */
    for (int v = 0; v < nv; v++) {
        fast_v[v] = (v + 1) * CR_W <= nl
                      ? cr_kind(lo_a + v * CR_W, st_a + v * CR_W, (idx_t)a.inner_nin, 1, &base[v])
                      : 0;
        acc_t g0[CR_W], g1[CR_W];
        for (int j = 0; j < CR_W; j++) {
            g1[j] = (acc_t)w_a[v * CR_W + j];
            g0[j] = (acc_t)1 - g1[j];
        }
        int big = 1;
        for (int j = 0; j < CR_W; j++)
            big &= cr_w_big(w_a[v * CR_W + j]);
        fast_v[v] |= big << 3;
        f0[v] = *(const cr_pv *)g0;
        f1[v] = *(const cr_pv *)g1;
    }
#else
    cr_alike alike;
    cr_alike_find(&alike, nl, lo_a, st_a, w_a);
#endif
    /* Rows in pairs where the next row reads the same input rows (upsampled outer
     * dimensions), else one by one. */
    const int fast = cr_fast(&a);
#if INNER_RES && CR_KEEP
    cr_acc wt[CR_WT];
    acc_t wkey[2 * NOC];
    int wok = 0;
#endif
    cr_base base_r;
    idx_t oo, oo2, coff[NOC], coff2[NOC];
    acc_t cw[NOC], cw2[NOC];
    cr_start(r0, fast, &a, tab, &base_r);
    cr_row(&base_r, r0, fast, &a, tab, &oo, coff, cw);
    for (idx_t row = r0; row < r1;) {
        const int next = row + 1 < r1;
        int two = next;
        oo2 = oo;
        if (next) {
            cr_walk(&base_r, row + 1, fast, &a, tab, &oo2, coff2, cw2);
#pragma unroll
            for (int oc = 0; oc < NOC; oc++)
                two &= coff2[oc] == coff[oc];
        }
        __global elem_t *o = out + oo + b0 * (INNER_RES ? 1 : (idx_t)a.out2);
        __global elem_t *o2 = out + oo2 + b0 * (INNER_RES ? 1 : (idx_t)a.out2);
#if INNER_RES
#if CR_KEEP
        two &= nv * NOC * 4 <= CR_WT;
        if (two) {
            cr_keep(wt, wkey, &wok, cw, cw2, nv, f0, f1);
            cr_row_vectors(in, o, o2, 1, 1, wt, coff, cw, cw2, nv, nl, fast_v, base, f0, f1,
                           lo_a, st_a, w_a);
        }
#else
        if (two)
            cr_row_vectors(in, o, o2, 1, 0, NULL, coff, cw, cw2, nv, nl, fast_v, base, f0, f1,
                           lo_a, st_a, w_a);
#endif
        else
            cr_row_vectors(in, o, o, 0, 0, NULL, coff, cw, cw, nv, nl, fast_v, base, f0, f1,
                           lo_a, st_a, w_a);
#else
        if (two)
            cr_row_channels(in, o, o2, 1, coff, cw, cw2, nl, (idx_t)a.inner_size,
                            (idx_t)a.out2, lo_a, st_a, w_a, &alike);
        else
            cr_row_channels(in, o, o, 0, coff, cw, cw, nl, (idx_t)a.inner_size,
                            (idx_t)a.out2, lo_a, st_a, w_a, &alike);
#endif
        row += two ? 2 : 1;
        if (two && row < r1) {
            cr_walk(&base_r, row, fast, &a, tab, &oo, coff, cw);
        } else if (next) { /* the next row is the one after this */
            oo = oo2;
#pragma unroll
            for (int oc = 0; oc < NOC; oc++)
                coff[oc] = coff2[oc], cw[oc] = cw2[oc];
        }
    }
#if CR_NT
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}

#else /* nearest: moves bits */

#if ELEM_BYTES == 1 /* bits_t's name, for the vector types */
#define CR_BITS uchar
#elif ELEM_BYTES == 2
#define CR_BITS ushort
#elif ELEM_BYTES == 4
#define CR_BITS uint
#else
#define CR_BITS ulong
#endif
typedef CR_VN(CR_BITS, CR_W) cr_bits;
typedef CR_VN(CR_BITS, CR_C) cr_bitsh;
/* Vectors of element alignment (see cr_uv). */
typedef cr_bits cr_ubits __attribute__((aligned(ELEM_BYTES)));
typedef cr_bitsh cr_ubitsh __attribute__((aligned(ELEM_BYTES)));
#define CR_LOADB(p) (*(__global const cr_ubits *)(p))
#if ELEM_BYTES >= 4
typedef cr_bits cr_abits __attribute__((aligned(CR_W * ELEM_BYTES)));
#else
#undef CR_NT
#define CR_NT 0
#endif

__kernel void resample1_gather_cpu_rows(__global const bits_t *restrict in, ulong in_off,
                                        __global bits_t *restrict out, ulong out_off,
                                        __global const uint *restrict tab, resample1_args a)
{
    idx_t b0, r0, r1;
    int nl, nv;
    if (!cr_item(&a, &b0, &r0, &r1, &nl, &nv))
        return;
    in += in_off;
    out += out_off;
    const idx_t n = CR_LEN(a), step = CR_STEP(a);
    idx_t lo_a[CR_XB];
    for (int l = 0; l < nv * CR_W; l++)
        lo_a[l] = (idx_t)tab[CR_TAB(a) + min(b0 + l, n - 1)] * step;
#if INNER_RES
    idx_t base[CR_NV];
    int fit[CR_NV];
    for (int v = 0; v < nv; v++)
        fit[v] = b0 + (v + 1) * CR_W <= n
                     ? cr_kind(lo_a + v * CR_W, NULL, (idx_t)a.inner_nin, 0, &base[v])
                     : 0;
#endif
    for (idx_t row = r0; row < r1; row++) {
        idx_t io = 0, oo = 0;
        outer_gather(row, &a, tab, &io, &oo);
        __global const bits_t *i = in + io;
#if INNER_RES
        __global bits_t *o = out + oo + b0;
        const int nt = CR_NT && ((size_t)o & 63) == 0;
        for (int v = 0; v < nv; v++) {
            if (fit[v]) {
#if CR_NP >= 2
                const cr_bits x =
                    fit[v] == 1   ? CR_PICK(CR_LOADB, i + base[v], CR_PL, CR_PLH)
                    : fit[v] == 2 ? CR_PICK(CR_LOADB, i + base[v], CR_PL2, CR_PLH2)
                    : fit[v] == 3 ? CR_PICK(CR_LOADB, i + base[v], CR_PL3, CR_PLH3)
                                  : CR_PICK(CR_LOADB, i + base[v], CR_PL4, CR_PLH4);
#else
                const cr_bits x = CR_PICK(CR_LOADB, i + base[v], CR_PL, CR_PLH);
#endif
#if CR_NT
                if (nt)
                    CR_NT_STORE(cr_abits, x, o + v * CR_W);
                else
#endif
                    *(__global cr_ubits *)(o + v * CR_W) = x;
                continue;
            }
            if (b0 + (v + 1) * CR_W <= n) { /* whole, off the patterns: lane by lane loads */
                bits_t x[CR_W];
                for (int j = 0; j < CR_W; j++)
                    x[j] = i[lo_a[v * CR_W + j]];
                *(__global cr_ubits *)(o + v * CR_W) = *(const cr_ubits *)x;
                continue;
            }
            for (int j = 0; b0 + v * CR_W + j < n; j++)
                o[v * CR_W + j] = i[lo_a[v * CR_W + j]];
        }
#else
        const idx_t c_n = (idx_t)a.inner_size;
        int q = 0;
        if (c_n == CR_C && (idx_t)a.out2 == CR_C) {
            /* Runs of exactly CR_C elements at consecutive output positions: two runs
             * make one vector store (non-temporal where CR_NT asks and it is aligned):
             * channels-last nearest 2x, 2-core POCL, --mb 64: 31.7-34.2 -> 53-54 GB/s. */
            __global bits_t *o = out + oo + b0 * CR_C;
            const int nt = CR_NT && ((size_t)o & 63) == 0;
            for (; q + 1 < nl; q += 2) {
                const cr_bits x = (cr_bits)(*(__global const cr_ubitsh *)(i + lo_a[q]),
                                            *(__global const cr_ubitsh *)(i + lo_a[q + 1]));
#if CR_NT
                if (nt)
                    CR_NT_STORE(cr_abits, x, o + (idx_t)q * CR_C);
                else
#endif
                    *(__global cr_ubits *)(o + (idx_t)q * CR_C) = x;
            }
        }
        for (; q < nl; q++) {
            __global bits_t *o = out + oo + (b0 + q) * (idx_t)a.out2;
            __global const bits_t *p = i + lo_a[q];
            idx_t c = 0;
            for (; c + CR_C <= c_n; c += CR_C)
                *(__global cr_ubitsh *)(o + c) = *(__global const cr_ubitsh *)(p + c);
            for (; c < c_n; c++)
                o[c] = p[c];
        }
#endif
    }
#if CR_NT
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}
#endif
