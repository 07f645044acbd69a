/* REVERSE_SUBSEQUENCES: out[i] = in[i'] with i'[axis] mirrored inside the first
 * L = min(lengths[i with axis 0], sizes[axis]) elements of each line.
 * Extra options: LEN_BYTES 4/8 (UINT32/UINT64 lengths), RANK (collapsed rank class),
 * VARIANT (0 generic, 1 lines, 2 chunks, 3 tile, 4 blocks: see lib/reverse/plan.h),
 * AXIS_LAST (the axis is the innermost collapsed dimension, the "line").
 * The shape travels as a struct argument so that shapes never cause recompiles. */

#if LEN_BYTES == 8
typedef ulong len_t;
#else
typedef uint len_t;
#endif

/* The arguments (rs_args), one header with the host (create.c). */
#include "reverse/args.h"

/* Lengths are compared wide: values above 2^32 (UINT64) clamp to n. */
static inline idx_t clamp_len(len_t len, idx_t n) { return (idx_t)min((ulong)len, (ulong)n); }

/* Offsets of line number `line` (dims RANK-2..0; the line dim itself excluded).
 * io and lo leave out the axis, whose index comes back in *ai. */
static inline void line_offsets(const rs_args *a, idx_t line, idx_t *io, idx_t *lo, idx_t *oo,
                                idx_t *ai)
{
    idx_t rem = line, i_in = 0, l_off = 0, o_off = 0, axis_i = 0;
#pragma unroll
    for (int d = RANK - 2; d >= 0; d--) {
        idx_t i = rem;
        if (d > 0) {
            const idx_t q = fdiv(rem, a->div_mul[d], a->div_shr[d]);
            i = rem - q * (idx_t)a->size[d];
            rem = q;
        }
        o_off += i * (idx_t)a->out_str[d];
        if (d == (int)a->axis)
            axis_i = i;
        else {
            i_in += i * (idx_t)a->in_str[d];
            l_off += i * (idx_t)a->len_str[d];
        }
    }
    *io = i_in;
    *lo = l_off;
    *oo = o_off;
    *ai = axis_i;
}

#if VARIANT == 3 || VARIANT == 4
/* TILE's and BLOCKS' work unit u: tiles of `rows_per` rows by `seg_len` line elements, the
 * line's innermost. Its first line element (*q0) and row (*p0, of the rows dimension
 * RANK - 2), and that row's offsets (line_offsets). */
static inline void tile_unit(const rs_args *a, idx_t u, idx_t seg_len, idx_t rows_per,
                             idx_t *q0, idx_t *p0, idx_t *io, idx_t *lo, idx_t *oo)
{
    const idx_t t = fdiv(u, a->seg_mul, a->seg_shr);
    *q0 = (u - t * (idx_t)a->segs) * seg_len;
    const idx_t rest = fdiv(t, a->ptile_mul, a->ptile_shr);
    *p0 = (t - rest * (idx_t)a->ptiles) * rows_per;
    idx_t ai;
    line_offsets(a, rest * (idx_t)a->size[RANK - 2] + *p0, io, lo, oo, &ai);
}
#endif

#if VARIANT == 0
/* ---- GENERIC: one output element per step, any layout --------------------------------- */
__kernel void reverse_subsequences(__global const bits_t *in, ulong in_off,
                                   __global const len_t *lens, ulong len_off,
                                   __global bits_t *out, ulong out_off, rs_args a)
{
    in += in_off; /* binding offsets are applied as 64-bit pointer steps, so idx_t only */
    lens += len_off; /* needs to hold offsets relative to each binding */
    out += out_off;
    const idx_t count = (idx_t)a.units, last = RANK - 1;
    for (idx_t g = (idx_t)get_global_id(0); g < count; g += (idx_t)get_global_size(0)) {
        const idx_t line = fdiv(g, a.div_mul[last], a.div_shr[last]);
        const idx_t c = g - line * (idx_t)a.size[last];
        idx_t io, lo, oo, ai;
        line_offsets(&a, line, &io, &lo, &oo, &ai);
        if (a.axis == last)
            ai = c;
        else
            io += c * (idx_t)a.in_str[last];
        lo += c * (idx_t)a.len_str[last];
        oo += c * (idx_t)a.out_str[last];
        const idx_t l = clamp_len(lens[lo], (idx_t)a.axis_size);
        const idx_t src = ai < l ? l - 1 - ai : ai;
        out[oo] = in[io + src * (idx_t)a.axis_in_str];
    }
}

#elif VARIANT == 1
/* ---- LINES (CPUs): plain loops over contiguous blocks of line segments -------------------
 * A contiguous run stores whole vectors at vector-aligned outputs only (scalar
 * elements before the first boundary and after the last): reversed vectors are shuffled
 * in registers, the one vector holding both mirrored and unchanged elements is put
 * together lane by lane. (Non-temporal stores for large outputs were tried on a 2-core
 * POCL machine: no measurable gain, so they are left out.) Strided lines take element
 * loops. */
/* Vectors of 64 bytes (a cache line; at most 16 lanes: 16 bytes of int8, 32 of fp16):
 * on the 2-core POCL machine about 10% faster than 16-byte ones. -DLINES_BYTES=16 or 32
 * through DMLCL_BUILD_OPTIONS selects others for experiments. */
#ifndef LINES_BYTES
#define LINES_BYTES 64
#endif
#if ELEM_BYTES == 1
#define LBASE uchar
#elif ELEM_BYTES == 2
#define LBASE ushort
#elif ELEM_BYTES == 4
#define LBASE uint
#else
#define LBASE ulong
#endif
#if LINES_BYTES / ELEM_BYTES >= 16
#define LN 16
#define LREVERSE(v) (v).sFEDCBA9876543210
#elif LINES_BYTES / ELEM_BYTES == 8
#define LN 8
#define LREVERSE(v) (v).s76543210
#elif LINES_BYTES / ELEM_BYTES == 4
#define LN 4
#define LREVERSE(v) (v).s3210
#else
#define LN 2
#define LREVERSE(v) (v).s10
#endif
#define LCAT2(a, b) a##b
#define LCAT(a, b) LCAT2(a, b)
typedef LCAT(LBASE, LN) lvec_t;
/* Unaligned vector loads: POCL's vloadn builtins move single bytes, while a vector type
 * with alignment 1 compiles to one unaligned vector move. */
typedef lvec_t __attribute__((aligned(1))) uvec_t;
#define VLOAD(p) (*(__global const uvec_t *)(p))
#define VSTORE_ALIGNED(v, p) (*(__global lvec_t *)(p) = (v))

/* Elements from o to the next vector boundary (0 when aligned). */
static inline idx_t to_aligned(const __global bits_t *o)
{
    const size_t vb = LN * ELEM_BYTES;
    return (idx_t)(((vb - ((size_t)o & (vb - 1))) & (vb - 1)) / ELEM_BYTES);
}

/* o[c] = s[c < l ? l - 1 - c : c] for c in [c0, c1) (l = 0: a plain copy). */
static inline void run_contig(__global bits_t *restrict o, __global const bits_t *restrict s,
                              idx_t l, idx_t c0, idx_t c1)
{
    idx_t c = c0;
    const idx_t head = min(c1, c0 + to_aligned(o + c0)), rend = min(l, c1);
    for (; c < head; c++)
        o[c] = s[c < l ? l - 1 - c : c];
    for (; c + LN <= rend; c += LN)
        VSTORE_ALIGNED(LREVERSE(VLOAD(s + (l - c) - LN)), o + c);
    if (c < l && c + LN <= c1) { /* mirrored lanes, then unchanged ones */
        union {
            lvec_t v;
            bits_t e[LN];
        } m;
        for (uint e = 0; e < LN; e++)
            m.e[e] = c + e < l ? s[l - 1 - c - e] : s[c + e];
        VSTORE_ALIGNED(m.v, o + c);
        c += LN;
    }
    for (; c + LN <= c1; c += LN)
        VSTORE_ALIGNED(VLOAD(s + c), o + c);
    for (; c < c1; c++)
        o[c] = s[c < l ? l - 1 - c : c];
}

/* The same with strides: o[c * os] = s[src(c) * is]. */
static inline void run_strided(__global bits_t *restrict o, __global const bits_t *restrict s,
                               idx_t l, idx_t c0, idx_t c1, idx_t is, idx_t os)
{
    for (idx_t c = c0; c < c1; c++)
        o[c * os] = s[(c < l ? l - 1 - c : c) * is];
}

__kernel void reverse_subsequences(__global const bits_t *restrict in, ulong in_off,
                                   __global const len_t *restrict lens, ulong len_off,
                                   __global bits_t *restrict out, ulong out_off, rs_args a)
{
    in += in_off;
    lens += len_off;
    out += out_off;
    const idx_t per = (idx_t)a.per_item, units = (idx_t)a.units, last = RANK - 1;
    const idx_t b = (idx_t)a.size[last], seg = (idx_t)a.seg_len, segs = (idx_t)a.segs;
    const idx_t is = (idx_t)a.in_str[last], os = (idx_t)a.out_str[last];
    const int contig = is == 1 && os == 1;
    idx_t u = (idx_t)get_global_id(0) * per;
    const idx_t u1 = min(u + per, units);
    for (; u < u1; u++) {
        const idx_t line = fdiv(u, a.seg_mul, a.seg_shr);
        const idx_t c0 = (u - line * segs) * seg, c1 = min(c0 + seg, b);
        idx_t io, lo, oo, ai;
        line_offsets(&a, line, &io, &lo, &oo, &ai);
#if AXIS_LAST
        const idx_t l = clamp_len(lens[lo], b);
        if (contig)
            run_contig(out + oo, in + io, l, c0, c1);
        else
            run_strided(out + oo, in + io, l, c0, c1, is, os);
#else
        const idx_t n = (idx_t)a.axis_size, as = (idx_t)a.axis_in_str;
        const idx_t ls = (idx_t)a.len_str[last];
        if (ls == 0) { /* one length for the whole line: a copy from the mirrored line */
            const idx_t l = clamp_len(lens[lo], n), sa = ai < l ? l - 1 - ai : ai;
            if (contig)
                run_contig(out + oo, in + io + sa * as, 0, c0, c1);
            else
                run_strided(out + oo, in + io + sa * as, 0, c0, c1, is, os);
        } else {
            for (idx_t c = c0; c < c1; c++) {
                const idx_t l = clamp_len(lens[lo + c * ls], n), sa = ai < l ? l - 1 - ai : ai;
                out[oo + c * os] = in[io + sa * as + c * is];
            }
        }
#endif
    }
}

#elif VARIANT == 2
/* ---- CHUNKS (GPUs): one 16-byte vector of outputs per step --------------------------------
 * Lines are contiguous in input and output. A chunk whose output is 16-byte aligned and
 * whole is stored as one 16-byte vector of 32-bit words. Its 16 input bytes are one
 * aligned 16-byte load, or, where the mirrored segment is not aligned (3 rows in 4 for
 * fp32), the two aligned 16-byte loads around them joined in registers (word selects and
 * funnel shifts); reversal is a word-order swap plus a swap inside each word (bytes or
 * halves); the chunk holding L blends its mirrored and forward blocks. Anything else
 * (line ends, unaligned outputs, the bytes at the input span's ends) goes element-wise.
 * Words assume a little-endian device. */
#define VEC (16 / ELEM_BYTES) /* elements per 16-byte vector */

static inline int aligned16(const __global void *p) { return ((size_t)p & 15) == 0; }

#define SEL4(q, a, b, c, d) ((q) == 0 ? (a) : (q) == 1 ? (b) : (q) == 2 ? (c) : (d))

static inline uint funnel(uint lo, uint hi, uint bits) { return (uint)(upsample(hi, lo) >> bits); }

/* The 16 bytes at s as words. Returns 0, loading nothing, where the second aligned load
 * would pass in_end (the input span's end) or the device is big-endian. */
static inline int load16(__global const bits_t *s, size_t in_end, uint4 *w)
{
    const __global uchar *p = (const __global uchar *)s;
    const uint sh = (uint)((size_t)p & 15);
    const __global uint4 *v = (const __global uint4 *)(p - sh);
    if (sh == 0) {
        *w = v[0];
        return 1;
    }
#if defined(__ENDIAN_LITTLE__) && !LOADS_SCALAR
    if ((size_t)(v + 2) > in_end)
        return 0;
    const uint4 x = v[0], y = v[1];
    const uint q = sh >> 2, bits = (sh & 3) * 8;
    const uint w0 = SEL4(q, x.x, x.y, x.z, x.w), w1 = SEL4(q, x.y, x.z, x.w, y.x);
    const uint w2 = SEL4(q, x.z, x.w, y.x, y.y), w3 = SEL4(q, x.w, y.x, y.y, y.z);
    const uint w4 = SEL4(q, y.x, y.y, y.z, y.w);
    *w = (uint4)(funnel(w0, w1, bits), funnel(w1, w2, bits), funnel(w2, w3, bits),
                 funnel(w3, w4, bits));
    return 1;
#elif ELEM_BYTES == 4 && LOADS_SCALAR
    *w = (uint4)(s[0], s[1], s[2], s[3]);
    return 1;
#else
    return 0;
#endif
}

/* The first nbytes bytes from r, the others from f. */
static inline uint4 blend16(uint4 r, uint4 f, int nbytes)
{
    const int4 m = clamp((int4)(nbytes) - (int4)(0, 4, 8, 12), 0, 4);
    const uint4 low = ((uint4)(1u) << (as_uint4(m) * 8u)) - 1u; /* m bytes (m < 4) */
    const uint4 mask = select(low, (uint4)(0xffffffffu), m == 4);
    return (r & mask) | (f & ~mask);
}

/* Reverses the order of the elements in 16 bytes of words. */
static inline uint4 reverse16(uint4 w)
{
#if ELEM_BYTES == 1
    return (uint4)(as_uint(as_uchar4(w.w).s3210), as_uint(as_uchar4(w.z).s3210),
                   as_uint(as_uchar4(w.y).s3210), as_uint(as_uchar4(w.x).s3210));
#elif ELEM_BYTES == 2
    return (uint4)(rotate(w.w, 16u), rotate(w.z, 16u), rotate(w.y, 16u), rotate(w.x, 16u));
#elif ELEM_BYTES == 4
    return w.s3210;
#else
    return w.s2301;
#endif
}

__kernel void reverse_subsequences(__global const bits_t *restrict in, ulong in_off,
                                   __global const len_t *restrict lens, ulong len_off,
                                   __global bits_t *restrict out, ulong out_off, rs_args a)
{
    in += in_off;
    lens += len_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, last = RANK - 1, b = (idx_t)a.size[last];
    const idx_t segs = (idx_t)a.segs;
    const size_t in_end = (size_t)(in + a.in_span);
    for (idx_t g = (idx_t)get_global_id(0); g < units; g += (idx_t)get_global_size(0)) {
        const idx_t line = fdiv(g, a.seg_mul, a.seg_shr), c0 = (g - line * segs) * VEC;
        idx_t io, lo, oo, ai;
        line_offsets(&a, line, &io, &lo, &oo, &ai);
        __global bits_t *o = out + oo + c0;
        const int whole = c0 + VEC <= b && aligned16(o);
        uint4 w;
#if AXIS_LAST
        __global const bits_t *row = in + io;
        const idx_t l = clamp_len(lens[lo], b);
        /* Every chunk takes one path, its source and its reversal chosen by selects: one
         * wholly inside [0, L) (reversed), one past it (kept), and the one holding L,
         * whose first l - c0 elements are the mirrored block (it starts before the
         * chunk: (l - c0) - VEC is negative) and the rest its forward block, a second
         * load and a blend. With a path of its own, that chunk held up its warp (every
         * second one for int8's rows of 1024); H200, one path against two, ratio to
         * copy: int8 0.75-0.76 -> 0.80-0.81, fp16 0.89-0.90 -> 0.91-0.92, fp32 0.92 ->
         * 0.93-0.94. No element-wise path but at the row's start and end. */
        const int rev = c0 < l, cut = rev && c0 + VEC > l;
        uint4 f = (uint4)(0);
        if (whole && (!rev || row + (l - c0) - VEC >= in) &&
            load16(rev ? row + (l - c0) - VEC : row + c0, in_end, &w) &&
            (!cut || load16(row + c0, in_end, &f))) {
            w = rev ? reverse16(w) : w;
            *(__global uint4 *)o = cut ? blend16(w, f, (int)((l - c0) * ELEM_BYTES)) : w;
        } else {
            /* Rolled: unrolled 16 times (int8), this rare path held 40 registers for the
             * whole kernel against 30-32 (ptxas), and fewer warps per compute unit hid
             * less of the loads' latency. H200: int8 0.80 -> 0.91 of copy, fp16 0.91-0.92
             * -> 0.93, fp32 0.93 either way. */
#pragma unroll 1
            for (uint e = 0; e < VEC; e++) {
                const idx_t c = c0 + e;
                if (c < b)
                    o[e] = row[c < l ? l - 1 - c : c];
            }
        }
#else
        const idx_t n = (idx_t)a.axis_size, as = (idx_t)a.axis_in_str;
        const idx_t ls = (idx_t)a.len_str[last];
        if (ls == 0) { /* one length for the whole line: a copy from the mirrored line */
            const idx_t l = clamp_len(lens[lo], n), sa = ai < l ? l - 1 - ai : ai;
            __global const bits_t *s = in + io + sa * as + c0;
            if (whole && load16(s, in_end, &w)) {
                *(__global uint4 *)o = w;
            } else {
                for (uint e = 0; e < VEC; e++)
                    if (c0 + e < b)
                        o[e] = s[e];
            }
        } else {
            for (uint e = 0; e < VEC; e++) {
                const idx_t c = c0 + e;
                if (c < b) {
                    const idx_t l = clamp_len(lens[lo + c * ls], n), sa = ai < l ? l - 1 - ai : ai;
                    o[e] = in[io + sa * as + c];
                }
            }
        }
#endif
    }
}

#elif VARIANT == 3
/* ---- TILE (GPUs): the line strided in the input, another dim (the rows) contiguous ---------
 * The planner moved the rows next to the line (RANK - 2); the axis is the line. A work-group
 * takes a tile of TP rows by TQ line elements of the INPUT: it reads them along the rows
 * (consecutive items, consecutive addresses) into local memory, then each row's TQ elements
 * go to their mirrored columns, which form one or two runs of the output row (the mirror
 * maps [0, L) onto itself, reversed, and leaves the rest in place), written along the line.
 * The padding column keeps the column reads of the second phase on distinct banks. Each
 * item issues its loads (and the rows' lengths) in batches of TB before it stores any, so
 * that their latencies overlap: a loop of load-then-store waits for every load in turn. */
#define TP 32 /* DMLCL_RS_TILE_ROWS */
#define TQ 32
#define TB 8
__kernel void reverse_subsequences(__global const bits_t *restrict in, ulong in_off,
                                   __global const len_t *restrict lens, ulong len_off,
                                   __global bits_t *restrict out, ulong out_off, rs_args a)
{
    __local bits_t tile[TQ][TP + 1];
    __local idx_t len_l[TP];
    in += in_off;
    lens += len_off;
    out += out_off;
    const idx_t units = (idx_t)a.units;
    const idx_t n = (idx_t)a.size[RANK - 1], rows = (idx_t)a.size[RANK - 2];
    const idx_t iq = (idx_t)a.in_str[RANK - 1], oq = (idx_t)a.out_str[RANK - 1];
    const idx_t ip = (idx_t)a.in_str[RANK - 2], lp = (idx_t)a.len_str[RANK - 2];
    const idx_t op = (idx_t)a.out_str[RANK - 2];
    const uint x = (uint)get_local_id(0) % TP, y0 = (uint)get_local_id(0) / TP;
    const uint ny = (uint)get_local_size(0) / TP;
    for (idx_t u = (idx_t)get_group_id(0); u < units; u += (idx_t)get_num_groups(0)) {
        idx_t q0, p0, io, lo, oo;
        tile_unit(&a, u, TQ, TP, &q0, &p0, &io, &lo, &oo);
        const uint nr = (uint)min((idx_t)TP, rows - p0), nq = (uint)min((idx_t)TQ, n - q0);
        if (x < nr) {
            if (y0 == 0)
                len_l[x] = clamp_len(lens[lo + x * lp], n);
            __global const bits_t *col = in + io + x * ip + q0 * iq;
            for (uint y = y0; y < nq; y += TB * ny) {
                bits_t v[TB];
#pragma unroll
                for (uint k = 0; k < TB; k++)
                    if (y + k * ny < nq)
                        v[k] = col[(y + k * ny) * iq];
#pragma unroll
                for (uint k = 0; k < TB; k++)
                    if (y + k * ny < nq)
                        tile[y + k * ny][x] = v[k];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (x < nq) {
            const idx_t s = q0 + x;
            for (uint y = y0; y < nr; y += ny) {
                const idx_t l = len_l[y];
                out[oo + y * op + (s < l ? l - 1 - s : s) * oq] = tile[x][y];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#elif VARIANT == 4
/* ---- BLOCKS (CPUs): TILE's layout, the line strided in the input, the rows contiguous ---
 * A work-item takes a contiguous run of blocks of BR rows by a segment of the line (the
 * segments innermost). Per line element the block's BR input elements are consecutive
 * (one vector load where the block has BR rows and they are contiguous) and go to the BR
 * output rows, each written along its line: each input cache line is read once, where
 * LINES, one row at a time, read one element of each (2-core AMD EPYC, transposed rows of
 * 1024 floats: see lib/reverse/plan.c). */
#define BR 16 /* DMLCL_RS_BLOCK_ROWS */
#if ELEM_BYTES == 1
typedef uchar16 brow_t;
#elif ELEM_BYTES == 2
typedef ushort16 brow_t;
#elif ELEM_BYTES == 4
typedef uint16 brow_t;
#else
typedef ulong16 brow_t;
#endif
/* Element alignment: one unaligned vector move (see LINES' uvec_t). */
typedef brow_t __attribute__((aligned(ELEM_BYTES))) ubrow_t;

/* Rows [0, nr) of the block at input offset io (row step ip), line elements [q0, q1), to
 * output offset oo (row step op); l: the rows' clamped lengths. */
static inline void block_rows(__global const bits_t *restrict in, __global bits_t *restrict out,
                              idx_t io, idx_t oo, idx_t ip, idx_t op, idx_t iq, idx_t oq,
                              const idx_t *l, idx_t nr, idx_t q0, idx_t q1)
{
    if (nr == BR && ip == 1) {
        for (idx_t c = q0; c < q1; c++) {
            union {
                brow_t v;
                bits_t e[BR];
            } b;
            b.v = *(__global const ubrow_t *)(in + io + c * iq);
#pragma unroll
            for (int r = 0; r < BR; r++)
                out[oo + r * op + (c < l[r] ? l[r] - 1 - c : c) * oq] = b.e[r];
        }
        return;
    }
    for (idx_t c = q0; c < q1; c++)
        for (idx_t r = 0; r < nr; r++)
            out[oo + r * op + (c < l[r] ? l[r] - 1 - c : c) * oq] = in[io + r * ip + c * iq];
}

__kernel void reverse_subsequences(__global const bits_t *restrict in, ulong in_off,
                                   __global const len_t *restrict lens, ulong len_off,
                                   __global bits_t *restrict out, ulong out_off, rs_args a)
{
    in += in_off;
    lens += len_off;
    out += out_off;
    const idx_t sl = (idx_t)a.seg_len, n = (idx_t)a.size[RANK - 1];
    const idx_t u0 = (idx_t)get_global_id(0) * (idx_t)a.per_item;
    const idx_t u1 = min(u0 + (idx_t)a.per_item, (idx_t)a.units);
    for (idx_t u = u0; u < u1; u++) {
        idx_t q0, p0, io, lo, oo;
        tile_unit(&a, u, sl, BR, &q0, &p0, &io, &lo, &oo);
        const idx_t nr = min((idx_t)BR, (idx_t)a.size[RANK - 2] - p0);
        const idx_t lp = (idx_t)a.len_str[RANK - 2];
        idx_t l[BR];
        for (idx_t r = 0; r < BR; r++)
            l[r] = r < nr ? clamp_len(lens[lo + r * lp], n) : 0;
        block_rows(in, out, io, oo, (idx_t)a.in_str[RANK - 2], (idx_t)a.out_str[RANK - 2],
                   (idx_t)a.in_str[RANK - 1], (idx_t)a.out_str[RANK - 1], l, nr, q0,
                   min(q0 + sl, n));
    }
}
#endif
