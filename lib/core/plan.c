/* What the planners share (plan.h): the NDRange of a grid-stride loop. */
#include "core/plan.h"

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
