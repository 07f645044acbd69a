/* Tiles of a logical tensor ("past one device"): where a tensor lies in the whole one, and
 * the checks that run before any OpenCL call. */
#include "core/tensor.h"

dmlcl_status dmlcl__tile_place(const char *op, const char *tile_field, const char *tensor_field,
                               const dmlcl_tile_desc *tile, dmlcl__tensor *t)
{
    dmlcl__tensor_whole(t);
    if (!tile)
        return DMLCL_SUCCESS;
    if (tile->dimension_count != t->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s dimension_count must equal %s's (%u), got %u", op, tile_field,
                           tensor_field, t->rank, tile->dimension_count);
    if (!tile->logical_sizes || !tile->start)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s %s is NULL", op, tile_field,
                           tile->logical_sizes ? "start" : "logical_sizes");
    for (uint32_t d = 0; d < t->rank; d++) {
        uint64_t whole = tile->logical_sizes[d], start = tile->start[d];
        if (whole == 0)
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: %s logical_sizes[%u] must be >= 1, got 0", op, tile_field, d);
        if (start + t->sizes[d] > whole)
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: %s start[%u] + %s sizes[%u] (%llu + %llu) must be <= "
                               "logical_sizes[%u] (%llu)", op, tile_field, d, tensor_field, d,
                               (unsigned long long)start, (unsigned long long)t->sizes[d], d,
                               (unsigned long long)whole);
        t->origin[d] = start;
        t->whole[d] = whole;
    }
    t->tiled = 1;
    return DMLCL_SUCCESS;
}

void dmlcl__tile_box(const dmlcl__tensor *t, dmlcl__box *b)
{
    for (uint32_t d = 0; d < DMLCL_MAXDIM; d++) {
        b->start[d] = d < t->rank ? t->origin[d] : 0;
        b->size[d] = d < t->rank ? t->sizes[d] : 1;
    }
}

uint64_t dmlcl__tile_narrow(dmlcl__tensor *t, const dmlcl__box *b)
{
    uint64_t at[DMLCL_MAXDIM] = {0};
    for (uint32_t d = 0; d < t->rank; d++)
        at[d] = b->start[d] - t->origin[d];
    dmlcl__tensor v;
    const uint64_t shift = dmlcl__tensor_view(t, at, b->size, &v);
    for (uint32_t d = 0; d < t->rank; d++)
        v.origin[d] = b->start[d];
    v.tiled = 1;
    *t = v;
    return shift;
}

dmlcl_status dmlcl__tile_covers(const char *op, const dmlcl__tensor *in, const dmlcl__box *reads)
{
    for (uint32_t d = 0; d < in->rank; d++) {
        if (reads->size[d] == 0)
            return DMLCL_SUCCESS; /* an empty box: nothing is read */
    }
    for (uint32_t d = 0; d < in->rank; d++) {
        uint64_t lo = reads->start[d], hi = lo + reads->size[d];
        if (lo < in->origin[d] || hi > in->origin[d] + in->sizes[d])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: input_tile covers [%llu, %llu) of dimension %u, but the "
                               "output tile reads [%llu, %llu) (see dmlcl_operator_input_box)",
                               op, (unsigned long long)in->origin[d],
                               (unsigned long long)(in->origin[d] + in->sizes[d]), d,
                               (unsigned long long)lo, (unsigned long long)hi);
    }
    return DMLCL_SUCCESS;
}
