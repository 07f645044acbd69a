/* Boxes of a tensor: counts, intersections, hulls and the grid cut. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

uint64_t box_count(const box *b)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < b->dimension_count; d++)
        n *= b->sizes[d];
    return n;
}

void box_empty(uint32_t dims, box *b)
{
    memset(b, 0, sizeof *b);
    b->dimension_count = dims;
}

int box_intersect(const box *a, const box *b, box *out)
{
    box r;
    box_empty(a->dimension_count, &r);
    for (uint32_t d = 0; d < a->dimension_count; d++) {
        uint64_t lo = a->start[d] > b->start[d] ? a->start[d] : b->start[d];
        uint64_t ae = (uint64_t)a->start[d] + a->sizes[d], be = (uint64_t)b->start[d] + b->sizes[d];
        uint64_t hi = ae < be ? ae : be;
        if (hi <= lo) { /* one canonical empty box */
            box_empty(a->dimension_count, out);
            return 0;
        }
        r.start[d] = (uint32_t)lo;
        r.sizes[d] = (uint32_t)(hi - lo);
    }
    *out = r;
    return 1;
}

int box_contains(const box *outer, const box *inner)
{
    if (!box_count(inner))
        return 1;
    for (uint32_t d = 0; d < inner->dimension_count; d++)
        if (inner->start[d] < outer->start[d] ||
            (uint64_t)inner->start[d] + inner->sizes[d] >
                (uint64_t)outer->start[d] + outer->sizes[d])
            return 0;
    return 1;
}

void box_hull(const box *a, const box *b, box *out)
{
    if (!box_count(a) || !box_count(b)) {
        *out = box_count(a) ? *a : *b;
        return;
    }
    box r;
    box_empty(a->dimension_count, &r);
    for (uint32_t d = 0; d < a->dimension_count; d++) {
        uint64_t lo = a->start[d] < b->start[d] ? a->start[d] : b->start[d];
        uint64_t ae = (uint64_t)a->start[d] + a->sizes[d], be = (uint64_t)b->start[d] + b->sizes[d];
        r.start[d] = (uint32_t)lo;
        r.sizes[d] = (uint32_t)((ae > be ? ae : be) - lo);
    }
    *out = r;
}

void box_grid(uint32_t dims, const uint32_t *sizes, const uint32_t *grid, int rank, box *b)
{
    uint32_t cell = (uint32_t)rank;
    box_empty(dims, b);
    for (uint32_t d = dims; d-- > 0;) { /* row-major: the last dimension fastest */
        uint32_t i = cell % grid[d], base = sizes[d] / grid[d], extra = sizes[d] % grid[d];
        b->start[d] = i * base + (i < extra ? i : extra);
        b->sizes[d] = base + (i < extra ? 1 : 0);
        cell /= grid[d];
    }
    if (!box_count(b))
        box_empty(dims, b);
}

const char *box_text(const box *b, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t d = 0; d < b->dimension_count && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%u+%u", d ? ", " : "[", b->start[d], b->sizes[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
    return buf;
}
