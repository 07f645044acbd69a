/* RESAMPLE1's unit layout: work-items loop over units of V outputs (resample1/family.cl). */

#if !LINEAR
__kernel void resample1_gather(__global const bits_t *in, ulong in_off, __global bits_t *out,
                               ulong out_off, __global const uint *tab, resample1_args a)
{
    in += in_off; /* binding and pass-through offsets as 64-bit pointer steps */
    out += out_off;
    const idx_t units = (idx_t)a.units, w = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        const idx_t row = fdiv(u, a.chunks_mul, a.chunks_shr), x0 = (u - row * (idx_t)a.chunks) * V;
        idx_t io = 0, oo = 0;
        outer_gather(row, &a, tab, &io, &oo);
        if (x0 + V > w) { /* the row's last, partial unit */
            for (int j = 0; j < V && x0 + j < w; j++)
                out[oo + (x0 + j) * (idx_t)a.inner_out] = gather_one(in, tab, &a, io, x0 + j);
            continue;
        }
        /* A whole unit: no guards between the loads, so all V table reads and then all V
         * input reads are in flight together (a guard per output serialises them). */
        bits_t v[V];
#if INNER_RES && VEC_OK
        /* The V table rows as one vector load where aligned (on an H200 nearest 2x went
         * from 0.58 to 0.70 of copy: the load instructions are the limit). */
        if ((a.inner_tab + x0) % V == 0) {
            uint ti[V];
            CAT(vstore, V)(*(__global const CAT(uint, V) *)(tab + (idx_t)a.inner_tab + x0), 0, ti);
#pragma unroll
            for (int j = 0; j < V; j++)
                v[j] = in[io + (idx_t)ti[j] * (idx_t)a.inner_in];
        } else
#elif VEC_OK
        /* A pass-through inner run (channels-last): one vector load where aligned. */
        if (vec_load_ok(&a, in_off, io + x0))
            CAT(vstore, V)(*(__global const CAT(BITS_BASE, V) *)(in + io + x0), 0, v);
        else
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            v[j] = gather_one(in, tab, &a, io, x0 + j);
#if VEC_OK
        if (vec_store_ok(&a, out_off, oo, x0, V)) {
            STORE_BITS(V, out + oo + x0, v);
            continue;
        }
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            out[oo + (x0 + j) * (idx_t)a.inner_out] = v[j];
    }
}

#else /* LINEAR */

__kernel void resample1_linear(__global const elem_t *in, ulong in_off, __global elem_t *out,
                               ulong out_off, __global const uint2 *tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, w_in = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        const idx_t row = fdiv(u, a.chunks_mul, a.chunks_shr), x0 = (u - row * (idx_t)a.chunks) * V;
        idx_t io = 0, oo = 0, lo[K], hi[K];
        float w[K];
        outer_linear(row, &a, tab, &io, &oo, lo, hi, w);
        if (x0 + V > w_in) { /* the row's last, partial unit */
            for (int j = 0; j < V && x0 + j < w_in; j++)
                STORE(out, oo + (x0 + j) * (idx_t)a.inner_out,
                      linear_one(in, tab, &a, io, lo, hi, w, x0 + j));
            continue;
        }
        /* A whole unit: no guards, so its loads overlap (see resample1_gather). */
        acc_t res[V];
#if !INNER_RES && VEC_OK
        if (!interpolate_vec(in, in_off, &a, io + x0, lo, hi, w, res))
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            res[j] = linear_one(in, tab, &a, io, lo, hi, w, x0 + j);
#if VEC_OK
        if (vec_store_ok(&a, out_off, oo, x0, V)) {
            STORE_VEC(V, out + oo + x0, res);
            continue;
        }
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            STORE(out, oo + (x0 + j) * (idx_t)a.inner_out, res[j]);
    }
}
#endif
