/* The RESAMPLE1 kernels (lib/resample/resample1/), shared by RESAMPLE1, RESAMPLE
 * (v0), RESAMPLE2 and RESAMPLE3 where antialiasing changes nothing: planning, coordinate
 * tables and dispatch of a checked operator (operators.c). */
#include "core/launch.h"
#include "resample/resample1/args.h"
#include "resample/resample1/resample1_plan.h"
#include "resample/family.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An operator's plans as the memo keeps them: the plan as the tables' fill leaves it, and
 * the generic one where that plan compiles its scales' constants in (lib/core/specialize.h). */
typedef struct r1_plans {
    dmlcl__resample1_plan plan, spec;
    int generic; /* spec holds the generic plan */
} r1_plans;

typedef struct r1_impl {
    /* The kernel's plan in p.plan; while that is the generic one, the specialised plan in
     * p.spec, and its program's build (lib/core/specialize.h); both read the same table. */
    r1_plans p;
    cl_kernel kernel;
    cl_mem table; /* the coordinate tables; NULL when nothing is resampled */
    dmlcl__spec pending;
} r1_impl;


/* ---- dispatch --------------------------------------------------------------------------- */

static cl_ulong shr_of(const dmlcl__fastdiv *f)
{
    return f->sh1 | (cl_ulong)f->sh2 << 8;
}

static void fill_args(const dmlcl__resample1_plan *p, resample1_args *a)
{
    memset(a, 0, sizeof *a);
    a->units = p->units;
    a->chunks = p->chunks;
    a->chunks_mul = p->chunks_div.mul;
    a->chunks_shr = shr_of(&p->chunks_div);
    a->np = p->np;
    a->nr = p->nr;
    a->pass_inner = (cl_ulong)p->pass_inner;
    a->inner_k = p->inner_k;
    a->inner_size = p->inner_size;
    a->inner_in = p->inner_in;
    a->inner_out = p->inner_out;
    a->inner_tab = p->inner_tab;
    a->inner_nin = p->inner_nin;
    a->gtab = p->gtab;
    a->gtab2 = p->gtab2;
    a->rows = p->inner_size ? p->count / p->inner_size : 0;
    a->seg = p->seg;
    /* The outer loops skip the inner dimension (and seg2's second one). */
    a->skip_p = p->inner_res ? DMLCL_MAXDIM : p->inner_k;
    a->skip_r = p->seg2 ? p->inner2_k : p->inner_res ? p->inner_k : DMLCL_MAXDIM;
    a->size2 = p->size2;
    a->in2 = p->in2;
    a->out2 = p->out2;
    a->tab2 = p->tab2;
    for (int d = 0; d < 8; d++) {
        a->psize[d] = d < (int)p->np ? p->psize[d] : 1;
        a->pin[d] = p->pin[d];
        a->pout[d] = p->pout[d];
        a->pmul[d] = p->pdiv[d].mul;
        a->pshr[d] = shr_of(&p->pdiv[d]);
        a->rsize[d] = d < (int)p->nr ? p->rsize[d] : 1;
        a->rin[d] = p->rin[d];
        a->rout[d] = p->rout[d];
        a->rtab[d] = p->rtab[d];
        a->rmul[d] = p->rdiv[d].mul;
        a->rshr[d] = shr_of(&p->rdiv[d]);
    }
    if (p->cpu_rows) { /* the row blocks: rows of the flat row, rows per item, its span */
        a->rows = p->count / (p->inner_res ? p->inner_size : p->inner_size * p->size2);
        a->seg = p->cpu_rows;
        a->inner_nin = p->cpu_span;
    }
    if (p->pair) { /* the pair slots count groups of rows (the units kernel's: pixels) */
        a->rows = a->rows / p->rsize[p->pair_k] * p->pair_groups;
        a->units = a->units / p->rsize[p->pair_k] * p->pair_groups;
        a->rsize[p->pair_k] = p->pair_groups;
    }
    if (p->pair == 2) {
        a->rows = a->rows / p->rsize[p->pair_k2] * p->pair_groups2;
        a->units = a->units / p->rsize[p->pair_k2] * p->pair_groups2;
        a->rsize[p->pair_k2] = p->pair_groups2;
    }
}

dmlcl_status dmlcl__resample1_enqueue(dmlcl_operator *op, const cl_mem *in,
                                      const uint64_t *in_off, const cl_mem *out,
                                      const uint64_t *out_off, cl_uint nwait,
                                      const cl_event *wait, cl_event *event)
{
    r1_impl *im = op->impl;
    cl_kernel special;
    if (dmlcl__spec_poll(op->ctx, &im->pending, &special)) { /* its build has ended */
        clReleaseKernel(im->kernel);
        im->kernel = special;
        im->p.plan = im->p.spec;
        op->plan_text[0] = 0; /* described again when asked */
    }
    const dmlcl__resample1_plan *p = &im->p.plan;
    resample1_args a;
    fill_args(p, &a);
    a.vec_ok = (cl_ulong)dmlcl__mem_aligned(out[0]);
    a.vec_in = (cl_ulong)dmlcl__mem_aligned(in[0]);
    /* The pass-through maps' fixed input offset rides on the binding offset. */
    cl_ulong offs[2] = {in_off[0] + p->in_base, out_off[0]};
    return dmlcl__enqueue_table_kernel(op, im->kernel, in[0], out[0], offs, im->table, sizeof a,
                                       &a, p->rows_2d, p->rows_2d ? p->global2 : &p->global,
                                       p->rows_2d ? p->local2 : &p->local, nwait, wait, event);
}

void dmlcl__resample1_destroy(dmlcl_operator *op)
{
    r1_impl *im = op->impl;
    if (im)
        dmlcl__release_cl(im->kernel, im->table);
    dmlcl__free(im);
    op->impl = NULL;
}


/* ---- creation ----------------------------------------------------------------------------- */

/* Fails unless the plan's tables fit one buffer of the device (checked on every creation:
 * the memo's plans too, as the limit is the context's to change). */
static dmlcl_status tables_fit(const dmlcl_operator *op, const char *name)
{
    const uint64_t bytes = ((const r1_impl *)op->impl)->p.plan.table_bytes;
    if (bytes <= op->ctx->info.max_mem_alloc && bytes <= SIZE_MAX)
        return DMLCL_SUCCESS;
    return dmlcl__fail(DMLCL_UNSUPPORTED,
                       "%s: the coordinate tables need %llu bytes, more than the device's "
                       "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu)", name, (unsigned long long)bytes,
                       (unsigned long long)op->ctx->info.max_mem_alloc);
}

/* Builds the tables on the host and uploads them into one read-only buffer (shared, by
 * their bytes, with any operator of the context that has the same: memo.h). */
static dmlcl_status upload_tables(dmlcl_operator *op, const char *name)
{
    r1_impl *im = op->impl;
    dmlcl__resample1_plan *p = &im->p.plan; /* fill counts the pairs */
    dmlcl_status st = tables_fit(op, name);
    if (st || p->table_bytes == 0)
        return st;
    uint32_t *host = dmlcl__malloc((size_t)p->table_bytes);
    if (!host)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory for the coordinate "
                           "tables (%llu bytes)", name, (unsigned long long)p->table_bytes);
    dmlcl__resample1_fill(p, host);
    st = dmlcl__table_buffer(op->ctx, NULL, 0, host, (size_t)p->table_bytes, &im->table);
    dmlcl__free(host);
    return st;
}

/* The kernel layout's program (lib/resample/resample1/resample1_<layout>.cl). */
static const char *kernel_file(const dmlcl__resample1_plan *p)
{
    return p->rows_2d    ? "resample1_rows"
           : p->cpu_rows ? "resample1_cpu_rows"
           : p->seg || p->seg2 ? "resample1_segments"
                               : "resample1_units";
}

static const char *kernel_name(const dmlcl__resample1_plan *p)
{
    if (p->rows_2d)
        return p->linear ? "resample1_linear_rows" : "resample1_gather_rows";
    if (p->cpu_rows)
        return p->linear ? "resample1_linear_cpu_rows" : "resample1_gather_cpu_rows";
    if (p->seg2)
        return p->linear ? "resample1_linear_seg2" : "resample1_gather_seg2";
    if (p->seg)
        return p->linear ? "resample1_linear_seg" : "resample1_gather_seg";
    return p->linear ? "resample1_linear" : "resample1_gather";
}

/* The plan's text (dmlcl_operator_plan, when first asked: formatting it costs a third of
 * a creation with its program cached). */
void dmlcl__resample1_describe(dmlcl_operator *op)
{
    const dmlcl__resample1_plan *p = &((const r1_impl *)op->impl)->p.plan;
    const char *wait = ((const r1_impl *)op->impl)->pending.pending ? " specialised=building" : "";
    if (p->rows_2d)
        snprintf(op->plan_text, sizeof op->plan_text,
                 "variant=%s-rows resampled=%u pass=%u inner=r%u size=%llu vec=%u rows=%llu "
                 "table=%lluB global=%zux%zu local=%zux%zu options='%s'%s",
                 p->variant, p->nr, p->np, p->inner_k, (unsigned long long)p->inner_size,
                 p->rv, (unsigned long long)(p->count / p->inner_size),
                 (unsigned long long)p->table_bytes, p->global2[0], p->global2[1],
                 p->local2[0], p->local2[1], p->options, wait);
    else
        snprintf(op->plan_text, sizeof op->plan_text,
                 "variant=%s%s resampled=%u pass=%u inner=%s%u size=%llu vec=%u units=%llu "
                 "table=%lluB global=%zu local=%zu options='%s'%s",
                 p->variant, p->cpu_rows ? "-cpu-rows" : p->seg2 ? "-seg2" : p->seg ? "-seg" : "",
                 p->nr, p->np, p->inner_res ? "r" : "p",
                 p->inner_k, (unsigned long long)p->inner_size,
                 p->cpu_rows ? DMLCL_R1_CPU_BLOCK : p->seg ? (unsigned)p->seg : p->vec,
                 (unsigned long long)p->units,
                 (unsigned long long)p->table_bytes, p->global, p->local, p->options, wait);
}

/* Plans op (the memo missed), fills and uploads its tables and keeps all of it under key. */
static dmlcl_status plan_fresh(dmlcl_operator *op, const char *name,
                               const dmlcl__resample_map *m, const dmlcl__resample_tune *tune,
                               const dmlcl__limits *lim, const dmlcl__resample_key *key)
{
    r1_impl *im = op->impl;
    dmlcl__resample1_plan *p = &im->p.plan;
    dmlcl__resample_count_plan();
    dmlcl__resample1_plan_make_part(&op->in[0], &op->out[0], m->linear, m->rule, m->scales,
                                    m->in_offsets, m->out_offsets, lim, key->force_idx64,
                                    op->whole_dims, p);
    /* $DMLCL_RESAMPLE_PLAN overrides the launch shape, for tuning runs. */
    if (tune->given)
        dmlcl__resample1_plan_launch_part(p, &op->in[0], &op->out[0], lim, &tune->t,
                                          key->force_idx64, op->whole_dims);
    dmlcl_status st = upload_tables(op, name); /* fills the pairs into p */
    if (st)
        return st;
    im->p.generic = dmlcl__resample1_plan_generic(p, &op->in[0], &im->p.spec);
    dmlcl__memo_put(&op->ctx->memo, DMLCL__MEMO_R1_PLANS, key, sizeof *key, &im->p,
                    sizeof im->p, im->table);
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__resample1_build(dmlcl_operator *op, const dmlcl__op_vtable *vt,
                                    const dmlcl__resample_map *m,
                                    const dmlcl__resample_tune *tune)
{
    dmlcl_status st;
    op->n_in = 1;
    op->n_out = 1;
    r1_impl *im = dmlcl__calloc(1, sizeof *im);
    if (!im)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", vt->name);
    op->impl = im;
    op->vt = vt;
    const dmlcl__limits lim = dmlcl__op_limits(op);
    dmlcl__resample_key key;
    dmlcl__resample_key_make(op, m, tune, &lim, dmlcl__resample_force_idx64(), &key);
    if (dmlcl__memo_read(&op->ctx->memo, DMLCL__MEMO_R1_PLANS, &key, sizeof key, &im->p,
                         sizeof im->p, &im->table))
        st = tables_fit(op, vt->name);
    else
        st = plan_fresh(op, vt->name, m, tune, &lim, &key);
    if (st)
        return st;
    /* A plan with its scales' constants compiled in starts as the generic one where that
     * program is not built yet (lib/core/specialize.h). */
    dmlcl__resample1_plan *p = &im->p.plan, *g = &im->p.spec;
    if (!im->p.generic)
        return dmlcl__kernel_get(op->ctx, op->kernels, kernel_file(p), p->options,
                                 kernel_name(p), &im->kernel);
    int took = 0;
    if ((st = dmlcl__kernel_tiered(op->ctx, op->kernels, kernel_file(p), g->options,
                                   p->options, kernel_name(p), &im->kernel, &took,
                                   &im->pending)))
        return st;
    if (!took) { /* the generic plan runs; the specialised one waits in spec */
        const dmlcl__resample1_plan generic = *g;
        *g = *p;
        *p = generic;
    }
    return DMLCL_SUCCESS;
}
