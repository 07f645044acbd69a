/* RESAMPLE1's segment layout for CPUs (resample1/family.cl): plain loops over a.seg
 * outputs that the compiler vectorises. */

/* Unit u of a segment kernel: returns its outer row; [*s, *e) is its stretch of the
 * n-long dimension it walks. */
static inline idx_t seg_range(idx_t u, const resample1_args *a, idx_t n, idx_t *s, idx_t *e)
{
    const idx_t row = fdiv(u, a->chunks_mul, a->chunks_shr);
    *s = (u - row * (idx_t)a->chunks) * (idx_t)a->seg;
    *e = min(*s + (idx_t)a->seg, n);
    return row;
}

#if !LINEAR
/* CPUs: units of a.seg outputs (a whole row where it is short) walked by a plain loop,
 * which the compiler vectorises (gathers from the table and the input, contiguous stores)
 * where an unrolled unit of V outputs stays scalar. */
__kernel void resample1_gather_seg(__global const bits_t *restrict in, ulong in_off,
                                   __global bits_t *restrict out, ulong out_off,
                                   __global const uint *restrict tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, w = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        idx_t xs, xe;
        const idx_t row = seg_range(u, &a, w, &xs, &xe);
        idx_t io = 0, oo = 0;
        outer_gather(row, &a, tab, &io, &oo);
        __global bits_t *o = out + oo;
        if (a.inner_out == 1)
            for (idx_t x = xs; x < xe; x++)
                o[x] = gather_one(in, tab, &a, io, x);
        else
            for (idx_t x = xs; x < xe; x++)
                o[x * (idx_t)a.inner_out] = gather_one(in, tab, &a, io, x);
    }
}

/* CPUs, channels-last: the inner dimension is a short pass-through run (the channels)
 * and the next one is resampled. A unit is a segment of a.seg positions along that second
 * dimension, each position a contiguous run of the inner one: one table read per
 * position, then a plain copy loop. */
__kernel void resample1_gather_seg2(__global const bits_t *restrict in, ulong in_off,
                                    __global bits_t *restrict out, ulong out_off,
                                    __global const uint *restrict tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, n2 = (idx_t)a.size2;
    const idx_t c_n = (idx_t)a.inner_size, c_in = (idx_t)a.inner_in, c_out = (idx_t)a.inner_out;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        idx_t ps, pe;
        const idx_t row = seg_range(u, &a, n2, &ps, &pe);
        idx_t io = 0, oo = 0;
        outer_gather(row, &a, tab, &io, &oo);
        for (idx_t q = ps; q < pe; q++) {
            __global const bits_t *i = in + io + (idx_t)tab[(idx_t)a.tab2 + q] * (idx_t)a.in2;
            __global bits_t *o = out + oo + q * (idx_t)a.out2;
            for (idx_t c = 0; c < c_n; c++)
                o[c * c_out] = i[c * c_in];
        }
    }
}

#else /* LINEAR */

/* resample1_gather_seg's layout for LINEAR (CPUs). */
__kernel void resample1_linear_seg(__global const elem_t *restrict in, ulong in_off,
                                   __global elem_t *restrict out, ulong out_off,
                                   __global const uint2 *restrict tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, w_in = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        idx_t xs, xe;
        const idx_t row = seg_range(u, &a, w_in, &xs, &xe);
        idx_t io = 0, oo = 0, lo[K], hi[K];
        float w[K];
        outer_linear(row, &a, tab, &io, &oo, lo, hi, w);
        __global elem_t *o = out + oo;
        if (a.inner_out == 1)
            for (idx_t x = xs; x < xe; x++)
                STORE(o, x, linear_one(in, tab, &a, io, lo, hi, w, x));
        else
            for (idx_t x = xs; x < xe; x++)
                STORE(o, x * (idx_t)a.inner_out, linear_one(in, tab, &a, io, lo, hi, w, x));
    }
}

#if !INNER_RES && INNER_K >= 0
/* resample1_gather_seg2's layout for LINEAR: per position, the second dimension's row
 * fills slot INNER_K; the channels then share every corner offset and weight. */
__kernel void resample1_linear_seg2(__global const elem_t *restrict in, ulong in_off,
                                    __global elem_t *restrict out, ulong out_off,
                                    __global const uint2 *restrict tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, n2 = (idx_t)a.size2;
    const idx_t c_n = (idx_t)a.inner_size, c_in = (idx_t)a.inner_in, c_out = (idx_t)a.inner_out;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        idx_t ps, pe;
        const idx_t row = seg_range(u, &a, n2, &ps, &pe);
        idx_t io = 0, oo = 0, lo[K], hi[K];
        float w[K];
        outer_linear(row, &a, tab, &io, &oo, lo, hi, w);
        for (idx_t q = ps; q < pe; q++) {
            const uint2 r = tab[(idx_t)a.tab2 + q];
            lo[INNER_K] = (idx_t)r.x * (idx_t)a.in2;
            w[INNER_K] = as_float(r.y);
            hi[INNER_K] = w[INNER_K] != 0 ? (idx_t)a.in2 : 0;
            __global elem_t *o = out + oo + q * (idx_t)a.out2;
            for (idx_t c = 0; c < c_n; c++)
                STORE(o, c * c_out, interpolate(in, io + c * c_in, lo, hi, w, 0));
        }
    }
}
#endif
#endif
