/* The RESAMPLE family's tiles and halo: which input elements a box of outputs reads, per
 * dimension, computed with the functions that build the coordinate and tap tables, so
 * that a tile created with that box holds every element its tables point at. Pure C, no
 * OpenCL calls. */
#include "resample.h"
#include "resample_taps.h"

/* Forward output coordinate o's reads along dimension d: [*lo, *hi] (inclusive). */
static void forward_reads(const dmlcl__resample_map *m, uint32_t d, uint64_t o, uint64_t n_in,
                          uint64_t *lo, uint64_t *hi)
{
    if (m->linear && m->widen && m->scales[d] < 1) {
        dmlcl__taps_dim p = {0, n_in, m->scales[d], m->in_offsets[d], m->out_offsets[d], 0, 0, 0};
        int64_t first;
        uint64_t count;
        dmlcl__taps_aa_row(&p, o, &first, &count);
        *lo = (uint64_t)first;
        *hi = *lo + count - 1;
        return;
    }
    float x = dmlcl__resample1_coord(o, m->scales[d], m->in_offsets[d], m->out_offsets[d]);
    if (!m->linear) {
        *lo = *hi = dmlcl__resample_nearest_rule(x, n_in, m->rule);
        return;
    }
    float w;
    *lo = dmlcl__resample1_linear(x, n_in, &w);
    *hi = *lo + (w != 0); /* a corner of weight 0 is not read */
}

/* Dimension d: the input range [*lo, *hi) that output coordinates [a, b) read; empty when
 * none (RESAMPLE_GRAD1 rows that no forward output reads). n_in, n_out: logical sizes. */
static void dim_reads(const dmlcl__resample_map *m, uint32_t d, uint64_t n_in, uint64_t n_out,
                      uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX, *hi = 0;
    uint64_t l, h;
    if (!m->grad) {
        for (uint64_t o = a; o < b; o++) {
            forward_reads(m, d, o, n_in, &l, &h);
            *lo = l < *lo ? l : *lo;
            *hi = h + 1 > *hi ? h + 1 : *hi;
        }
    } else { /* the incoming gradient's o where forward output o read some of [a, b) */
        for (uint64_t o = 0; o < n_in; o++) {
            forward_reads(m, d, o, n_out, &l, &h);
            if (h < a || l >= b)
                continue;
            *lo = o < *lo ? o : *lo;
            *hi = o + 1;
        }
    }
    if (*lo == UINT64_MAX)
        *lo = *hi = 0;
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
