/* REVERSE_SUBSEQUENCES planner: collapses the shape, picks the variant and the NDRange. */
#include "plan.h"
#include <stdio.h>
#include <string.h>

void dmlcl__plan_ndrange(uint64_t items, const dmlcl__limits *lim, size_t *global, size_t *local)
{
    /* GPUs: 256-wide groups, enough of them to fill every compute unit many times over;
     * the kernel loops (grid stride) past that. CPUs (POCL): the runtime picks the group,
     * and a few thousand items per core amortise the work-group launch. */
    size_t wg = lim->is_cpu ? 0 : (lim->max_work_group_size < 256 ? lim->max_work_group_size : 256);
    uint64_t cap = lim->is_cpu ? (uint64_t)lim->compute_units * 1024
                               : (uint64_t)lim->compute_units * wg * 32;
    uint64_t g = items < cap ? items : cap;
    if (wg)
        g = (g + wg - 1) / wg * wg;
    *global = (size_t)(g ? g : 1);
    *local = wg;
}

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

void dmlcl__rs_plan_make(const dmlcl__tensor *in, const dmlcl__tensor *lengths,
                         const dmlcl__tensor *out, uint32_t axis, const dmlcl__limits *lim,
                         dmlcl__rs_plan *p)
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
    /* 32-bit index arithmetic is much cheaper on GPUs; it is exact while every element
     * offset (relative to the binding) and the element count stay below 2^32. */
    /* The grid-stride loop computes index + global size, which must not wrap either. */
    dmlcl__plan_ndrange(p->count, lim, &p->global, &p->local);
    const uint64_t lim32 = (uint64_t)1 << 32;
    p->idx64 = p->count + p->global >= lim32 || in->span >= lim32 || lengths->span >= lim32 ||
               out->span >= lim32;
    snprintf(p->options, sizeof p->options, "-DELEM_BYTES=%u -DLEN_BYTES=%u -DRANK=%u -DIDX64=%d",
             p->elem_bytes, p->len_bytes, p->rank, p->idx64);
}
