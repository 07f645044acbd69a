/* The RESAMPLE family's tiles and halo: which input elements a box of outputs reads, per
 * dimension, computed with the functions that build the coordinate and tap tables, so
 * that a tile created with that box holds every element its tables point at. Pure C, no
 * OpenCL calls. */
#include "resample/family.h"
#include "resample/taps/taps.h"

/* Forward output coordinate o's reads along dimension d, whose forward map is ax:
 * [*lo, *hi] (inclusive). */
static void forward_reads(const dmlcl__resample_map *m, uint32_t d,
                          const dmlcl__resample_axis *ax, uint64_t o, uint64_t *lo,
                          uint64_t *hi)
{
    if (m->linear && m->widen && m->scales[d] < 1) {
        const dmlcl__taps_dim p = {.n_src = ax->n_in, .scale = m->scales[d],
                                   .in_offset = m->in_offsets[d], .out_offset = m->out_offsets[d]};
        int64_t first;
        uint64_t count;
        dmlcl__taps_aa_row(&p, o, &first, &count);
        *lo = (uint64_t)first;
        *hi = *lo + count - 1;
        return;
    }
    float w;
    *lo = dmlcl__resample_axis_read(ax, o, &w);
    *hi = *lo + (w != 0); /* a corner of weight 0 is not read */
}

/* RESAMPLE_GRAD1 along d: the forward map reads [lo(o), hi(o)], both nondecreasing in o
 * (each step of the float32 coordinate and the floor, ceil and clamp are monotone; an
 * identity axis reads o), so the forward outputs reading [a, b) are the contiguous [first
 * o with hi >= a, first o with lo >= b): two binary searches over the n_fwd outputs
 * instead of a pass over them. */
static uint64_t first_o(const dmlcl__resample_map *m, uint32_t d, const dmlcl__resample_axis *ax,
                        uint64_t n_fwd, uint64_t bound, int upper)
{
    uint64_t lo = 0, hi = n_fwd, l, h;
    while (lo < hi) { /* the first o whose upper (else lower) read is >= bound */
        uint64_t mid = lo + (hi - lo) / 2;
        forward_reads(m, d, ax, mid, &l, &h);
        if ((upper ? h : l) >= bound)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Dimension d: the input range [*lo, *hi) that output coordinates [a, b) read; empty when
 * none (RESAMPLE_GRAD1 rows that no forward output reads). n_in, n_out: logical sizes.
 * Forward: each output's first and last reads are nondecreasing in o (forward_reads' map
 * is monotone; linear's upper corner, read where its weight is not 0, is ceil of the
 * clamped coordinate; the antialiased window's edges move right with its centre), so the
 * box is the first output's first read to the last output's last: two evaluations however
 * long the box, as the element-by-element union would give (tests/check_box_cost.c). */
static void dim_reads(const dmlcl__resample_map *m, uint32_t d, uint64_t n_in, uint64_t n_out,
                      uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = 0;
    if (a >= b)
        return;
    /* The forward pass's input and output sizes: GRAD1's output and input. */
    const uint64_t fwd_in = m->grad ? n_out : n_in, fwd_out = m->grad ? n_in : n_out;
    const dmlcl__resample_axis ax =
        dmlcl__resample_axis_make(m->linear, m->rule, fwd_in, fwd_out, m->scales[d],
                                  m->in_offsets[d], m->out_offsets[d]);
    if (!m->grad) {
        uint64_t l, h;
        forward_reads(m, d, &ax, a, lo, &h);
        forward_reads(m, d, &ax, b - 1, &l, &h);
        *hi = h + 1;
    } else { /* the incoming gradient's o where forward output o read some of [a, b) */
        const uint64_t first = first_o(m, d, &ax, fwd_out, a, 1);
        const uint64_t end = first_o(m, d, &ax, fwd_out, b, 0);
        if (first < end)
            *lo = first, *hi = end;
    }
}

void dmlcl__resample_input_range(const dmlcl_operator *op, const dmlcl__resample_map *m,
                                 uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                                 uint64_t *hi)
{
    dim_reads(m, d, op->in[0].whole[d], op->out[0].whole[d], a, b, lo, hi);
}

void dmlcl__resample_input_box(const dmlcl_operator *op, const dmlcl__resample_map *m,
                               const dmlcl__box *out, dmlcl__box *in)
{
    const dmlcl__tensor *ti = &op->in[0], *to = &op->out[0];
    int empty = 0;
    for (uint32_t d = 0; d < to->rank; d++)
        empty |= out->size[d] == 0;
    for (uint32_t d = 0; d < to->rank && !empty; d++) {
        uint64_t lo, hi;
        dim_reads(m, d, ti->whole[d], to->whole[d], out->start[d],
                  out->start[d] + out->size[d], &lo, &hi);
        in->start[d] = lo;
        in->size[d] = hi - lo;
        empty |= hi == lo;
    }
    for (uint32_t d = 0; d < to->rank && empty; d++)
        in->start[d] = in->size[d] = 0;
}

dmlcl__resample_map dmlcl__resample1_map(const dmlcl_resample1_desc *d, dmlcl__nearest_rule rule,
                                         int widen)
{
    dmlcl__resample_map m = {0, d->interpolation_mode == DMLCL_INTERPOLATION_MODE_LINEAR, widen,
                             rule, d->scales, d->input_pixel_offsets, d->output_pixel_offsets};
    return m;
}

dmlcl_status dmlcl__resample_check_tiles(const dmlcl_operator *op, const char *name,
                                         const dmlcl__resample_map *m)
{
    if (!op->in[0].tiled && !op->out[0].tiled)
        return DMLCL_SUCCESS;
    dmlcl__box out, in;
    dmlcl__tile_box(&op->out[0], &out);
    dmlcl__resample_input_box(op, m, &out, &in);
    return dmlcl__tile_covers(name, &op->in[0], &in);
}

dmlcl_status dmlcl__resample_place_tiles(dmlcl_operator *op, const char *name,
                                         const char *in_field, const char *out_field)
{
    dmlcl_status st = dmlcl__tile_place(name, "input_tile", in_field, op->tile_in, &op->in[0]);
    return st ? st : dmlcl__tile_place(name, "output_tile", out_field, op->tile_out, &op->out[0]);
}
