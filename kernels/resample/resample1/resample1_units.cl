/* RESAMPLE1's unit layout: work-items loop over units of V outputs (resample1/family.cl). */

#if !LINEAR
#ifdef PAIR_K
#if INNER_RES
#error "the units kernel pairs pixels of a pass-through inner run"
#endif
#ifndef PAIR_K2
#define PAIR_K2 NRS /* no second pair slot: a slot no loop reaches */
#endif
/* gather_dims for the pairs (lib/resample/resample1/resample1_plan.c's pick_pairs): slots
 * PAIR_K and PAIR_K2 count groups of 1 or 2 consecutive output pixels that read the same
 * input pixel, 2-word rows {first output, outputs} from gtab and gtab2; n2[p] gets the
 * group's pixels (p: 0 for PAIR_K, 1 for PAIR_K2). */
static idx_t pair_gather_dims(idx_t rem, const resample1_args *a, __global const uint *tab,
                              idx_t *io, idx_t *oo, uint *n2)
{
#pragma unroll
    for (int k = NRS - 1; k >= 0; k--) {
        if (k >= (int)a->nr || k == (int)a->skip_r)
            continue;
        const idx_t q = fdiv(rem, a->rmul[k], a->rshr[k]), i = rem - q * (idx_t)a->rsize[k];
        rem = q;
        idx_t o = i;
        const int p = k == PAIR_K ? 0 : k == PAIR_K2 ? 1 : -1;
        if (p >= 0) {
            const idx_t g = (idx_t)(p ? a->gtab2 : a->gtab) + 2 * i;
            o = (idx_t)tab[g];
            n2[p] = tab[g + 1];
        }
        *io += (idx_t)tab[(idx_t)a->rtab[k] + o] * (idx_t)a->rin[k];
        *oo += o * (idx_t)a->rout[k];
    }
    return rem;
}

/* Channels-last pairs: a unit's V elements of the inner run, read once (one vector load
 * where aligned) and written to each of the up to 4 output pixels of its group. */
static void pair_gather(__global const bits_t *in, ulong in_off, __global bits_t *out,
                        ulong out_off, const resample1_args *a, __global const uint *tab,
                        idx_t row, idx_t x0)
{
    idx_t io = 0, oo = 0;
    uint n2[2] = {1, 1};
    if (PASS_FIRST(a))
        pair_gather_dims(pass_dims(row, a, &io, &oo), a, tab, &io, &oo, n2);
    else
        pass_dims(pair_gather_dims(row, a, tab, &io, &oo, n2), a, &io, &oo);
    const idx_t w = (idx_t)a->inner_size;
    const int whole = x0 + V <= w;
    bits_t v[V];
#if VEC_OK
    if (whole && vec_load_ok(a, in_off, io + x0))
        CAT(vstore, V)(*(__global const CAT(BITS_BASE, V) *)(in + io + x0), 0, v);
    else
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            v[j] = in[io + (x0 + j < w ? x0 + j : x0) * (idx_t)a->inner_in];
    const uint n = n2[0] * n2[1];
#pragma unroll 1
    for (uint q = 0; q < n; q++) {
        idx_t o = oo + (idx_t)(q % n2[0]) * (idx_t)a->rout[PAIR_K];
#if PAIR_K2 < NRS
        o += (idx_t)(q / n2[0]) * (idx_t)a->rout[PAIR_K2];
#endif
#if VEC_OK
        if (whole && vec_store_ok(a, out_off, o, x0, V)) {
            STORE_BITS(V, out + o + x0, v);
            continue;
        }
#endif
#pragma unroll
        for (int j = 0; j < V; j++)
            if (x0 + j < w)
                out[o + (x0 + j) * (idx_t)a->inner_out] = v[j];
    }
}
#endif

__kernel void resample1_gather(__global const bits_t *in, ulong in_off, __global bits_t *out,
                               ulong out_off, __global const uint *tab, resample1_args a)
{
    in += in_off; /* binding and pass-through offsets as 64-bit pointer steps */
    out += out_off;
    const idx_t units = (idx_t)a.units, w = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        const idx_t row = fdiv(u, a.chunks_mul, a.chunks_shr), x0 = (u - row * (idx_t)a.chunks) * V;
#ifdef PAIR_K
        pair_gather(in, in_off, out, out_off, &a, tab, row, x0);
        continue;
#endif
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

#ifdef PAIR_K
#if INNER_RES
#error "the units kernel pairs pixels of a pass-through inner run"
#endif
/* Loads each corner's V inputs at io (a whole unit) as one vector: c[corner][j]. Returns 0,
 * loading nothing, where a corner is not aligned (interpolate_vec's rule). */
static int corners_vec(__global const elem_t *in, ulong in_off, const resample1_args *a,
                       idx_t io, const idx_t *lo, const idx_t *hi, acc_t c[1 << K][V])
{
#if VEC_OK
    idx_t m = io;
#pragma unroll
    for (int k = 0; k < K; k++)
        m |= lo[k] | hi[k];
    if (!vec_load_ok(a, in_off, 0) || m % V != 0)
        return 0;
    float unused[K] = {0};
#pragma unroll
    for (uint q = 0; q < (1u << K); q++) {
        idx_t off = io;
        corner(q, lo, hi, unused, &off);
        LOAD_VEC(V, in + off, c[q]);
    }
    return 1;
#else
    return 0;
#endif
}

/* One pixel of a pair unit: its V results from the loaded corners, in interpolate()'s
 * order with its own weights w, or each from its own loads (vec 0: unaligned corners or a
 * row's last, partial unit; one output at a time, since GPU compilers otherwise hold
 * every output's corner loads at once: 156 registers on an H200); stored. */
static void pair_pixel(__global const elem_t *in, __global elem_t *out, ulong out_off,
                       const resample1_args *a, __global const uint2 *tab, idx_t io, idx_t oo,
                       idx_t x0, const idx_t *lo, const idx_t *hi, const float *w,
                       acc_t c[1 << K][V], int vec)
{
    if (!vec) {
#pragma unroll 1
        for (int j = 0; j < V && x0 + j < (idx_t)a->inner_size; j++)
            STORE(out, oo + (x0 + j) * (idx_t)a->inner_out,
                  linear_one(in, tab, a, io, lo, hi, w, x0 + j));
        return;
    }
    acc_t res[V];
#pragma unroll
    for (int j = 0; j < V; j++) {
        acc_t acc = 0;
#pragma unroll
        for (uint q = 0; q < (1u << K); q++) {
            idx_t unused = 0;
            acc = CORNER_TERM(acc, corner(q, lo, hi, w, &unused), c[q][j]);
        }
        res[j] = acc;
    }
#if VEC_OK
    if (vec_store_ok(a, out_off, oo, x0, V)) {
        STORE_VEC(V, out + oo + x0, res);
        return;
    }
#endif
#pragma unroll
    for (int j = 0; j < V; j++)
        STORE(out, oo + (x0 + j) * (idx_t)a->inner_out, res[j]);
}

/* Channels-last pairs (the planner's pick_pairs): a unit is V consecutive elements of the
 * inner run of up to 4 output pixels, a group of 1 or 2 along PAIR_K by one of 1 or 2
 * along PAIR_K2, that read the same corner pixels: each corner's V inputs are loaded once
 * for them all instead of once per pixel. */
static void pair_unit(__global const elem_t *in, ulong in_off, __global elem_t *out,
                      ulong out_off, const resample1_args *a, __global const uint2 *tab,
                      idx_t row, idx_t x0)
{
    idx_t io = 0, oo = 0, lo[K], hi[K];
    float w[K], w2[2] = {0, 0};
    uint n2[2] = {1, 1};
    if (PASS_FIRST(a))
        pair_dims(pass_dims(row, a, &io, &oo), a, tab, lo, hi, w, w2, n2, &oo);
    else
        pass_dims(pair_dims(row, a, tab, lo, hi, w, w2, n2, &oo), a, &io, &oo);
    acc_t c[1 << K][V];
    const int vec = x0 + V <= (idx_t)a->inner_size &&
                    corners_vec(in, in_off, a, io + x0, lo, hi, c);
    /* The group's pixels one at a time (not unrolled: one copy of the sum, whose results
     * go out before the next pixel's are made). Their place in the group by a select and a
     * shift, not the division by n2[0]: H200, linear 2x NHWC 0.85-0.86 -> 0.88 of copy
     * (nearest's pair_gather kept its division: 0.88-0.89 with it, 0.88 without). */
    const float first = w[PAIR_K];
#if PAIR_K2 < K
    const float first2 = w[PAIR_K2];
    const uint n = n2[0] * n2[1];
#else
    const uint n = n2[0];
#endif
#pragma unroll 1
    for (uint q = 0; q < n; q++) {
        const uint p = n2[0] > 1 ? q & 1u : 0; /* q % n2[0], n2[0] 1 or 2 */
        w[PAIR_K] = p ? w2[0] : first;
        idx_t o = oo + (idx_t)p * (idx_t)a->rout[PAIR_K];
#if PAIR_K2 < K
        const uint p2 = n2[0] > 1 ? q >> 1 : q; /* q / n2[0] */
        w[PAIR_K2] = p2 ? w2[1] : first2;
        o += (idx_t)p2 * (idx_t)a->rout[PAIR_K2];
#endif
        pair_pixel(in, out, out_off, a, tab, io, o, x0, lo, hi, w, c, vec);
    }
}
#endif

__kernel void resample1_linear(__global const elem_t *in, ulong in_off, __global elem_t *out,
                               ulong out_off, __global const uint2 *tab, resample1_args a)
{
    in += in_off;
    out += out_off;
    const idx_t units = (idx_t)a.units, w_in = (idx_t)a.inner_size;
    for (idx_t u = (idx_t)get_global_id(0); u < units; u += (idx_t)get_global_size(0)) {
        const idx_t row = fdiv(u, a.chunks_mul, a.chunks_shr), x0 = (u - row * (idx_t)a.chunks) * V;
#ifdef PAIR_K
        pair_unit(in, in_off, out, out_off, &a, tab, row, x0);
        continue;
#endif
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
