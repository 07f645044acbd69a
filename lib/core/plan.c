/* What the planners share (plan.h): the NDRange of a grid-stride loop. */
#include "core/plan.h"

void dmlcl__plan_ndrange(uint64_t items, const dmlcl__limits *lim, size_t *global, size_t *local)
{
    /* GPUs: 256-wide groups, enough of them to fill every compute unit many times over;
     * the kernel loops (grid stride) past that. CPUs (POCL): a fixed group of 64, since
     * POCL compiles a program's kernel once per group size (0.3-1 s) and a size left to
     * the runtime follows the shape, so every new shape would pay that compile; a few
     * thousand items per core amortise the work-group launch. */
    size_t wg = lim->is_cpu ? 64 : 256;
    if (wg > lim->max_work_group_size)
        wg = lim->max_work_group_size ? lim->max_work_group_size : 1;
    uint64_t cap = lim->is_cpu ? (uint64_t)lim->compute_units * 1024
                               : (uint64_t)lim->compute_units * wg * 32;
    uint64_t g = items < cap ? items : cap;
    g = g ? g : 1; /* at least one group, and a whole number of them */
    *global = (size_t)((g + wg - 1) / wg * wg);
    *local = wg;
}
