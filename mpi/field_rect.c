/* Copies of a box between a field's ghosted device buffer and packed host memory, as
 * rect copies: the owned box's reads and writes (field.c) and the halo faces
 * (face exchange) both go through here. */
#include "internal.h"

/* Splits region into at most three dimensions a rect copy takes: the contiguous block of
 * its innermost dimensions (those spanning the ghost box whole merge with the one above),
 * then rows and slices; any further outer dimensions are a loop of rect copies. */
cl_int field_rect(const dmlcl_mpi_field *f, cl_command_queue q, const box *region, void *host,
                  int read, cl_event *event, cl_event *first)
{
    const uint32_t n = region->dimension_count, e = f->layout->elem;
    if (!box_count(region))
        return CL_SUCCESS;
    uint32_t k = n - 1;
    while (k > 0 && region->sizes[k] == f->ghost.sizes[k])
        k--;
    uint64_t block = e, inner = 0; /* bytes of the block; its first element's offset */
    for (uint32_t d = 0; d < n; d++) {
        if (d >= k)
            block *= region->sizes[d];
        if (d >= k)
            inner += (uint64_t)(region->start[d] - f->ghost.start[d]) * f->stride[d];
    }
    const uint32_t row_dim = k >= 1 ? k - 1 : 0, slice_dim = k >= 2 ? k - 2 : 0;
    const size_t rows = k >= 1 ? region->sizes[row_dim] : 1;
    const size_t slices = k >= 2 ? region->sizes[slice_dim] : 1;
    const size_t row_pitch = k >= 1 ? (size_t)f->stride[row_dim] * e : (size_t)block;
    const size_t slice_pitch = k >= 2 ? (size_t)f->stride[slice_dim] * e : row_pitch * rows;
    const size_t y0 = k >= 1 ? region->start[row_dim] - f->ghost.start[row_dim] : 0;
    const size_t z0 = k >= 2 ? region->start[slice_dim] - f->ghost.start[slice_dim] : 0;
    const uint32_t loops = k >= 2 ? k - 2 : 0; /* dimensions 0..loops-1 */
    uint32_t idx[MAXDIM] = {0};
    unsigned char *h = host;
    cl_int err = CL_SUCCESS;
    for (;;) {
        uint64_t outer = 0;
        for (uint32_t d = 0; d < loops; d++)
            outer += (uint64_t)(region->start[d] - f->ghost.start[d] + idx[d]) * f->stride[d];
        const size_t x0 = (size_t)(f->offset + (outer + inner) * e);
        if (event && *event)
            clReleaseEvent(*event), *event = NULL;
        if (rows == 1 && slices == 1) {
            size_t at = x0 + y0 * row_pitch + z0 * slice_pitch;
            err = read ? clEnqueueReadBuffer(q, f->buffer, CL_FALSE, at, (size_t)block, h, 0, NULL,
                                             event)
                       : clEnqueueWriteBuffer(q, f->buffer, CL_FALSE, at, (size_t)block, h, 0,
                                              NULL, event);
        } else {
            const size_t origin[3] = {x0, y0, z0}, zero[3] = {0, 0, 0};
            const size_t shape[3] = {(size_t)block, rows, slices};
            err = read ? clEnqueueReadBufferRect(q, f->buffer, CL_FALSE, origin, zero, shape,
                                                 row_pitch, slice_pitch, (size_t)block,
                                                 (size_t)block * rows, h, 0, NULL, event)
                       : clEnqueueWriteBufferRect(q, f->buffer, CL_FALSE, origin, zero, shape,
                                                  row_pitch, slice_pitch, (size_t)block,
                                                  (size_t)block * rows, h, 0, NULL, event);
        }
        if (err != CL_SUCCESS)
            return err;
        if (first && !*first && event && *event)
            clRetainEvent(*event), *first = *event;
        h += (size_t)block * rows * slices;
        int d = (int)loops - 1; /* odometer over the loop dimensions */
        while (d >= 0 && ++idx[d] == region->sizes[d])
            idx[d--] = 0;
        if (d < 0)
            return CL_SUCCESS;
    }
}
