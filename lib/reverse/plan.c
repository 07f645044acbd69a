/* REVERSE_SUBSEQUENCES planner: collapses the shape, picks the variant and the NDRange. */
#include "reverse/plan.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two neighbouring non-axis dimensions merge when every tensor steps through them as one. */
static int mergeable(const dmlcl__rs_plan *p, uint32_t a, uint32_t b)
{
    return p->in_str[a] == p->in_str[b] * p->sizes[b] &&
           p->len_str[a] == p->len_str[b] * p->sizes[b] &&
           p->out_str[a] == p->out_str[b] * p->sizes[b];
}

/* Drops size-1 dimensions (except the axis) and merges mergeable neighbours in place. */
static void collapse(dmlcl__rs_plan *p)
{
    uint32_t r = 0, axis = UINT32_MAX; /* axis: its new position, once placed */
    for (uint32_t d = 0; d < p->rank; d++) {
        if (d != p->axis && p->sizes[d] == 1)
            continue;
        if (r > 0 && d != p->axis && r - 1 != axis && mergeable(p, r - 1, d)) {
            p->sizes[r - 1] *= p->sizes[d];
            p->in_str[r - 1] = p->in_str[d];
            p->len_str[r - 1] = p->len_str[d];
            p->out_str[r - 1] = p->out_str[d];
            continue;
        }
        if (d == p->axis)
            axis = r;
        p->sizes[r] = p->sizes[d];
        p->in_str[r] = p->in_str[d];
        p->len_str[r] = p->len_str[d];
        p->out_str[r] = p->out_str[d];
        r++;
    }
    p->rank = r;
    p->axis = axis;
}

/* Pads the front with size-1 dimensions up to the rank class (3 or 8). */
static void pad_to_class(dmlcl__rs_plan *p)
{
    uint32_t cls = p->rank <= 3 ? 3 : DMLCL_RS_MAXRANK, shift = cls - p->rank;
    for (int d = (int)p->rank - 1; d >= 0; d--) {
        p->sizes[d + shift] = p->sizes[d];
        p->in_str[d + shift] = p->in_str[d];
        p->len_str[d + shift] = p->len_str[d];
        p->out_str[d + shift] = p->out_str[d];
    }
    for (uint32_t d = 0; d < shift; d++) {
        p->sizes[d] = 1;
        p->in_str[d] = p->len_str[d] = p->out_str[d] = 0;
    }
    p->axis += shift;
    p->rank = cls;
}

const char *const dmlcl__rs_variant_names[5] = {"generic", "lines", "chunks", "tile", "blocks"};

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* CPUs: `target` work-items (a few per core), each a contiguous run of the units. */
static void spread_over_cpu(dmlcl__rs_plan *p, uint64_t target)
{
    p->per_item = ceil_div(p->units, target);
    p->global = (size_t)ceil_div(p->units, p->per_item);
    p->local = 1; /* POCL runs a group's items in one thread: 1 keeps blocks contiguous */
}

/* TILE's and BLOCKS' units: tiles of `rows_per` rows (the dimension next to the line) by
 * `seg_len` line elements, the line's innermost (the kernels' tile_unit). */
static void tile_units(dmlcl__rs_plan *p, uint64_t seg_len, uint64_t rows_per)
{
    const uint64_t last = p->rank - 1;
    p->seg_len = seg_len;
    p->segs = ceil_div(p->sizes[last], seg_len);
    p->ptiles = ceil_div(p->sizes[last - 1], rows_per);
    p->units = p->count / p->sizes[last] / p->sizes[last - 1] * p->ptiles * p->segs;
}

/* LINES (CPUs): a few work-items per core, each a contiguous block of line segments, so
 * every thread streams through memory; long lines are split when there are few of them. */
static void plan_lines(dmlcl__rs_plan *p, uint64_t lines, uint64_t b, const dmlcl__limits *lim)
{
    uint64_t target = (uint64_t)lim->compute_units * 8;
    p->segs = 1;
    p->seg_len = b;
    if (lines < target) {
        uint64_t len = (ceil_div(b, ceil_div(target, lines)) + 63) / 64 * 64; /* aligned */
        p->seg_len = len < 4096 ? (b < 4096 ? b : 4096) : len;
        p->segs = ceil_div(b, p->seg_len);
    }
    p->units = lines * p->segs;
    spread_over_cpu(p, target);
}

/* GPU NDRange: `wg`-wide groups, at most `waves` groups per compute unit (grid stride). */
static void plan_gpu_range(dmlcl__rs_plan *p, const dmlcl__limits *lim, const dmlcl__rs_tune *t)
{
    size_t wg = t && t->wg ? t->wg : 256;
    if (wg > lim->max_work_group_size)
        wg = lim->max_work_group_size;
    /* 128 groups per compute unit measured best on the H200 (a sweep of waves: 32 and 8
     * lose 2-8%, no cap loses up to 25% on narrow types). */
    uint64_t waves = t && t->waves ? t->waves : 128;
    uint64_t cap = (uint64_t)lim->compute_units * wg * waves;
    uint64_t g = p->units < cap ? p->units : cap;
    p->global = (size_t)(ceil_div(g ? g : 1, wg) * wg);
    p->local = wg;
}

/* TILE's rows: a dimension contiguous in the input (not the line), the last such; or -1
 * where TILE does not apply (the axis is not the line, or the line is contiguous in the
 * input or strided in the output). */
static int tile_rows_dim(const dmlcl__rs_plan *p)
{
    uint32_t last = p->rank - 1;
    if (p->axis != last || p->in_str[last] == 1 || p->out_str[last] != 1)
        return -1;
    for (int d = (int)last - 1; d >= 0; d--)
        if (p->in_str[d] == 1 && p->sizes[d] > 1)
            return d;
    return -1;
}

/* Moves dimension d next to the line (the kernel's RANK - 2); the others keep their order. */
static void move_before_line(dmlcl__rs_plan *p, uint32_t d)
{
    uint32_t last = p->rank - 1;
    uint64_t sz = p->sizes[d], is = p->in_str[d], ls = p->len_str[d], os = p->out_str[d];
    for (; d + 1 < last; d++) {
        p->sizes[d] = p->sizes[d + 1];
        p->in_str[d] = p->in_str[d + 1];
        p->len_str[d] = p->len_str[d + 1];
        p->out_str[d] = p->out_str[d + 1];
    }
    p->sizes[d] = sz;
    p->in_str[d] = is;
    p->len_str[d] = ls;
    p->out_str[d] = os;
}

/* TILE: a work-group per tile (grid stride over tiles), the line's tiles innermost so that
 * the groups in flight write neighbouring runs of each output row. Work-groups of 128 (4
 * rows of 32 items: 8 elements each per tile) unless tuned, a multiple of 32: on the H200
 * (1 GiB / 4 GiB fp32) 128 moved 0.74 / 0.60 of copy, 256 0.61 / 0.61, 64 0.64 / 0.57,
 * 512 0.35 / 0.35 (a barrier waits for more warps, and fewer tiles are in flight). */
static void plan_tile(dmlcl__rs_plan *p, const dmlcl__limits *lim, const dmlcl__rs_tune *t)
{
    const uint64_t tp = DMLCL_RS_TILE_ROWS;
    tile_units(p, tp, tp);
    size_t wg = t && t->wg ? t->wg : 128;
    if (wg > lim->max_work_group_size)
        wg = lim->max_work_group_size;
    wg = wg / tp * tp;
    uint64_t waves = t && t->waves ? t->waves : 128;
    uint64_t cap = (uint64_t)lim->compute_units * waves;
    p->global = (size_t)((p->units < cap ? p->units : cap) * wg);
    p->local = wg;
}

/* BLOCKS (CPUs): blocks of DMLCL_RS_BLOCK_ROWS rows by DMLCL_RS_BLOCK_SEG line elements,
 * the line's segments innermost, each work-item a contiguous run of them (as LINES). */
static void plan_blocks(dmlcl__rs_plan *p, const dmlcl__limits *lim, const dmlcl__rs_tune *t)
{
    const uint64_t b = p->sizes[p->rank - 1];
    const uint64_t seg = t && t->seg ? t->seg : DMLCL_RS_BLOCK_SEG;
    tile_units(p, b < seg ? b : seg, DMLCL_RS_BLOCK_ROWS);
    spread_over_cpu(p, (uint64_t)lim->compute_units * 8);
}

static dmlcl__rs_variant pick_variant(const dmlcl__rs_plan *p, const dmlcl__limits *lim,
                                      const dmlcl__rs_tune *t)
{
    uint32_t last = p->rank - 1;
    int contiguous = p->in_str[last] == 1 && p->out_str[last] == 1 && p->sizes[last] >= p->vec;
    int rows = tile_rows_dim(p);
    int tile = rows >= 0 && lim->max_work_group_size >= DMLCL_RS_TILE_ROWS;
    if (t && t->variant == DMLCL_RS_TILE && tile)
        return DMLCL_RS_TILE;
    if (t && t->variant == DMLCL_RS_BLOCKS && rows >= 0)
        return DMLCL_RS_BLOCKS;
    if (t && t->variant == DMLCL_RS_LINES)
        return DMLCL_RS_LINES;
    if (t && t->variant == DMLCL_RS_GENERIC)
        return DMLCL_RS_GENERIC;
    if (t && t->variant == DMLCL_RS_CHUNKS && contiguous)
        return DMLCL_RS_CHUNKS;
    /* CPUs: 2-core AMD EPYC, rows of 1024 floats column-major in: LINES 2.9-3.3 GB/s (one
     * element of each input cache line per row), BLOCKS 8.3-9.1 (segments of 128, 512 or
     * 1024 the same). */
    if (lim->is_cpu)
        return rows >= 0 && p->sizes[rows] >= DMLCL_RS_BLOCK_ROWS ? DMLCL_RS_BLOCKS
                                                                  : DMLCL_RS_LINES;
    if (tile && p->sizes[rows] >= DMLCL_RS_TILE_MIN_ROWS)
        return DMLCL_RS_TILE;
    return contiguous ? DMLCL_RS_CHUNKS : DMLCL_RS_GENERIC;
}

void dmlcl__rs_plan_make_tuned(const dmlcl__tensor *in, const dmlcl__tensor *lengths,
                               const dmlcl__tensor *out, uint32_t axis, const dmlcl__limits *lim,
                               const dmlcl__rs_tune *tune, dmlcl__rs_plan *p)
{
    memset(p, 0, sizeof *p);
    p->rank = in->rank;
    p->axis = axis;
    for (uint32_t d = 0; d < in->rank; d++) {
        p->sizes[d] = in->sizes[d];
        p->in_str[d] = in->strides[d];
        p->len_str[d] = d == axis ? 0 : lengths->strides[d];
        p->out_str[d] = out->strides[d];
    }
    collapse(p);
    pad_to_class(p);
    p->count = out->elements;
    p->elem_bytes = in->elem_size;
    p->len_bytes = lengths->elem_size;
    p->in_span = in->span;
    uint32_t last = p->rank - 1;
    uint64_t b = p->sizes[last], lines = p->count / b;
    p->axis_last = p->axis == last;
    p->vec = 16 / p->elem_bytes;
    p->variant = pick_variant(p, lim, tune);
    switch (p->variant) {
    case DMLCL_RS_LINES:
        plan_lines(p, lines, b, lim);
        break;
    case DMLCL_RS_CHUNKS:
        p->seg_len = p->vec;
        p->segs = ceil_div(b, p->vec);
        p->units = lines * p->segs;
        plan_gpu_range(p, lim, tune);
        break;
    case DMLCL_RS_TILE:
        move_before_line(p, (uint32_t)tile_rows_dim(p));
        plan_tile(p, lim, tune);
        break;
    case DMLCL_RS_BLOCKS:
        move_before_line(p, (uint32_t)tile_rows_dim(p));
        plan_blocks(p, lim, tune);
        break;
    default:
        p->segs = p->seg_len = 1;
        p->units = p->count;
        if (lim->is_cpu && !(tune && (tune->wg || tune->waves)))
            dmlcl__plan_ndrange(p->units, lim, &p->global, &p->local);
        else
            plan_gpu_range(p, lim, tune);
    }
    /* 32-bit index arithmetic is much cheaper on GPUs; it is exact while every element
     * offset (relative to the binding) stays below 2^32, and so do the loops' sums: a
     * work unit plus the grid stride (or a LINES item's block), a position in a line plus
     * a segment or a vector. */
    const uint64_t lim32 = (uint64_t)1 << 32;
    uint64_t stride = p->variant == DMLCL_RS_LINES || p->variant == DMLCL_RS_BLOCKS
                          ? p->per_item : p->global;
    p->idx64 = p->units + stride >= lim32 || p->count + p->seg_len + 16 >= lim32 ||
               in->span >= lim32 || lengths->span >= lim32 || out->span >= lim32;
    unsigned bits = p->idx64 ? 64 : 32;
    for (uint32_t d = 0; d < p->rank; d++)
        p->div[d] = dmlcl__fastdiv_make(p->sizes[d], bits);
    p->seg_div = dmlcl__fastdiv_make(p->segs, bits);
    p->ptile_div = dmlcl__fastdiv_make(p->ptiles ? p->ptiles : 1, bits);
    snprintf(p->options, sizeof p->options,
             "-DELEM_BYTES=%u -DLEN_BYTES=%u -DRANK=%u -DIDX64=%d -DVARIANT=%d -DAXIS_LAST=%d",
             p->elem_bytes, p->len_bytes, p->rank, p->idx64, (int)p->variant,
             p->variant == DMLCL_RS_GENERIC ? 0 : p->axis_last); /* generic: unused */
}

void dmlcl__rs_plan_make(const dmlcl__tensor *in, const dmlcl__tensor *lengths,
                         const dmlcl__tensor *out, uint32_t axis, const dmlcl__limits *lim,
                         dmlcl__rs_plan *p)
{
    dmlcl__rs_plan_make_tuned(in, lengths, out, axis, lim, NULL, p);
}
