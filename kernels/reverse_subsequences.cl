/* REVERSE_SUBSEQUENCES: out[i] = in[i'] with i'[axis] mirrored inside the first
 * L = min(lengths[i with axis 0], sizes[axis]) elements of each line.
 * Extra options: LEN_BYTES 4/8 (UINT32/UINT64 lengths), RANK (collapsed rank class).
 * The shape travels as a struct argument so that shapes never cause recompiles. */

#if LEN_BYTES == 8
typedef ulong len_t;
#else
typedef uint len_t;
#endif

/* Mirrors the host's rs_args (all 64-bit fields: no padding surprises). */
typedef struct {
    ulong size[8];
    ulong in_str[8];
    ulong len_str[8];
    ulong out_str[8];
    ulong count;
    ulong axis;
} rs_args;

__kernel void reverse_subsequences(__global const bits_t *in, ulong in_off,
                                   __global const len_t *lens, ulong len_off,
                                   __global bits_t *out, ulong out_off, rs_args a)
{
    in += in_off; /* binding offsets are applied as 64-bit pointer steps, so idx_t only */
    lens += len_off; /* needs to hold offsets relative to each binding */
    out += out_off;
    const idx_t count = (idx_t)a.count;
    for (idx_t g = (idx_t)get_global_id(0); g < count; g += (idx_t)get_global_size(0)) {
        idx_t rem = g, io = 0, lo = 0, oo = 0, ai = 0;
#pragma unroll
        for (int d = RANK - 1; d >= 0; d--) {
            const idx_t s = (idx_t)a.size[d];
            const idx_t i = rem % s;
            rem /= s;
            oo += i * (idx_t)a.out_str[d];
            if (d == (int)a.axis)
                ai = i;
            else {
                io += i * (idx_t)a.in_str[d];
                lo += i * (idx_t)a.len_str[d];
            }
        }
        const idx_t n = (idx_t)a.size[a.axis];
        const len_t len = lens[lo];
        const idx_t l = (idx_t)min((ulong)len, (ulong)n); /* compare wide: lengths clamp */
        const idx_t src = ai < l ? l - 1 - ai : ai;
        out[oo] = in[io + src * (idx_t)a.in_str[a.axis]];
    }
}
