/* What the family's engines plan from, as the key of the context's memo (family.h). */
#include "resample/family.h"
#include <string.h>

/* Field by field into a zeroed key: a tensor's padding is whatever its writer left. */
static void key_tensor(const dmlcl__tensor *t, dmlcl__tensor *k)
{
    k->type = t->type, k->rank = t->rank, k->elem_size = t->elem_size;
    memcpy(k->sizes, t->sizes, sizeof k->sizes);
    memcpy(k->strides, t->strides, sizeof k->strides);
    k->elements = t->elements, k->span = t->span, k->span_bytes = t->span_bytes;
    memcpy(k->origin, t->origin, sizeof k->origin);
    memcpy(k->whole, t->whole, sizeof k->whole);
    k->tiled = t->tiled;
}

void dmlcl__resample_key_make(const dmlcl_operator *op, const dmlcl__resample_map *m,
                              const dmlcl__resample_tune *tune, const dmlcl__limits *lim,
                              int force_idx64, dmlcl__resample_key *k)
{
    memset(k, 0, sizeof *k);
    key_tensor(&op->in[0], &k->in);
    key_tensor(&op->out[0], &k->out);
    k->lim.max_work_group_size = lim->max_work_group_size;
    k->lim.compute_units = lim->compute_units;
    k->lim.is_cpu = lim->is_cpu;
    k->lim.simd_bytes = lim->simd_bytes;
    k->lim.registers = lim->registers;
    for (uint32_t d = 0; d < op->in[0].rank; d++) {
        k->scales[d] = m->scales[d];
        k->in_offsets[d] = m->in_offsets[d];
        k->out_offsets[d] = m->out_offsets[d];
    }
    k->t = tune->t; /* the tap kernels read it, given or not */
    k->tuned = tune->given;
    k->grad = m->grad, k->linear = m->linear, k->widen = m->widen, k->rule = m->rule;
    k->force_idx64 = force_idx64;
}

/* Plans made, for the tests (an atomic counter: operators are created on many threads). */
static uint64_t plans_made;

void dmlcl__resample_count_plan(void)
{
    __atomic_add_fetch(&plans_made, 1, __ATOMIC_RELAXED);
}

uint64_t dmlcl_test_resample_plans(void);
uint64_t dmlcl_test_resample_plans(void)
{
    return __atomic_load_n(&plans_made, __ATOMIC_RELAXED);
}
