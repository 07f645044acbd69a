/* The tap operator behind RESAMPLE_GRAD1 and RESAMPLE3 (antialiased): host-built tap
 * tables (taps_tables.c), one kernel (kernels/resample/taps/taps.cl) per data type. */
#include "core/launch.h"
#include "resample/family.h"
#include "resample/taps/taps_plan.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Words of a dimension's key in the context's memo (dim_key). */
enum { DIM_KEY = 13 };

/* An operator's plan as the memo keeps it. */
typedef struct taps_planned {
    dmlcl__taps_plan plan; /* the launch (taps_plan.c) */
    uint64_t table_bytes;  /* for dmlcl_operator_plan() */
} taps_planned;

typedef struct taps_impl {
    taps_planned s;
    cl_kernel kernel;
    cl_mem table; /* NULL when every dimension is affine */
    /* What the table was built from: each dimension's key (dim_key), for the memo. */
    uint64_t tkey[8 * DIM_KEY + 1]; /* and whether the taps are baked (build) */
    size_t tkey_words;
    char options[640]; /* the program's, for dmlcl_operator_plan() */
    dmlcl__spec pending; /* the pattern's program while it builds (core/specialize.h) */
} taps_impl;

dmlcl_status dmlcl__taps_enqueue(dmlcl_operator *op, const cl_mem *in, const uint64_t *in_off,
                                 const cl_mem *out, const uint64_t *out_off, cl_uint nwait,
                                 const cl_event *wait, cl_event *event)
{
    taps_impl *im = op->impl;
    cl_kernel special;
    if (dmlcl__spec_poll(op->ctx, &im->pending, &special)) { /* the pattern's: same args */
        clReleaseKernel(im->kernel);
        im->kernel = special;
        snprintf(im->options, sizeof im->options, "%s", im->pending.options);
        op->plan_text[0] = 0; /* described again when asked */
    }
    const dmlcl__taps_plan *p = &im->s.plan;
    cl_ulong offs[2] = {in_off[0] + p->src_base, out_off[0]};
    taps_args a = p->args;
    a.cv_ok = p->cv > 1 && offs[0] % p->cv == 0 && offs[1] % p->cv == 0 &&
              dmlcl__mem_aligned(in[0]) && dmlcl__mem_aligned(out[0]);
    return dmlcl__enqueue_table_kernel(op, im->kernel, in[0], out[0], offs, im->table, sizeof a,
                                       &a, p->rows_2d, p->rows_2d ? p->global2 : &p->global,
                                       p->rows_2d ? p->local2 : &p->local, nwait, wait, event);
}

void dmlcl__taps_destroy(dmlcl_operator *op)
{
    taps_impl *im = op->impl;
    if (im)
        dmlcl__release_cl(im->kernel, im->table);
    dmlcl__free(im);
    op->impl = NULL;
}


/* If an earlier dimension maps the same sizes with the same scale and offsets (an image's
 * H and W, usually), and its tiles lie alike, copies its outcome (its rows, or its affine
 * map) into *p: the table and the time to build it halve in the common case. */
static int same_map(const dmlcl__taps_dim *dims, uint32_t n, dmlcl__taps_dim *p)
{
    for (uint32_t e = 0; e < n; e++)
        if (dims[e].n_res == p->n_res && dims[e].n_src == p->n_src &&
            dims[e].scale == p->scale && dims[e].in_offset == p->in_offset &&
            dims[e].out_offset == p->out_offset && dims[e].res0 == p->res0 &&
            dims[e].n == p->n && dims[e].src0 == p->src0 && dims[e].src_n == p->src_n) {
            *p = dims[e];
            return 1;
        }
    return 0;
}

/* Adds a dimension's least table size (3 words per row, 2 per tap: each row has a tap,
 * each forward output is a tap of some gradient row) to *words and fails, before the
 * host allocates anything, where that already exceeds what the device can hold. */
static dmlcl_status table_floor(const dmlcl_operator *op, int grad, const dmlcl__taps_dim *p,
                                uint64_t *words)
{
    const uint64_t limit = op->ctx->info.max_mem_alloc / 4, n = p->n;
    const uint64_t add = 3 * n + 2 * (grad ? p->src_n : n); /* sizes are < 2^32 */
    *words = *words > UINT64_MAX - add ? UINT64_MAX : *words + add;
    if (*words <= limit && *words <= UINT32_MAX)
        return DMLCL_SUCCESS;
    return dmlcl__fail(DMLCL_UNSUPPORTED,
                       "%s: the tap tables need at least %llu bytes, more than the device's "
                       "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu) or 16 GiB", op->vt->name,
                       (unsigned long long)(*words * 4),
                       (unsigned long long)op->ctx->info.max_mem_alloc);
}

/* A dimension's outcome in the context's memo: its affine map, or its rows (after this
 * header, dmlcl__taps_rows_out's words). */
typedef struct {
    uint64_t affine, first, step, nwords;
} dim_saved;

/* Everything a dimension's rows depend on (add_dim's inputs), without padding bytes. */
static void dim_key(int grad, int linear, dmlcl__nearest_rule rule, int antialiased,
                    const dmlcl__taps_dim *p, uint64_t *key)
{
    uint32_t f[3];
    memcpy(&f[0], &p->scale, 4);
    memcpy(&f[1], &p->in_offset, 4);
    memcpy(&f[2], &p->out_offset, 4);
    const uint64_t k[DIM_KEY] = {(uint64_t)grad, (uint64_t)linear, (uint64_t)rule,
                                 (uint64_t)antialiased, p->n_res, p->n_src, f[0], f[1], f[2],
                                 p->res0, p->n, p->src0, p->src_n};
    memcpy(key, k, sizeof k);
}

/* The memo's copy of a dimension (blob: a dim_saved and its rows) into t and *p, under
 * the memo's lock: 1, or 0 when out of memory. */
typedef struct {
    dmlcl__taps_table *t;
    dmlcl__taps_dim *p;
} dim_dest;
static int dim_from_memo(void *arg, const void *blob, size_t blen)
{
    const dim_dest *d = arg;
    dim_saved s;
    memcpy(&s, blob, sizeof s);
    d->p->first = s.first;
    d->p->step = s.step;
    d->p->row_word = UINT64_MAX;
    return s.affine || dmlcl__taps_rows_in(d->t, d->p,
                                           (const uint32_t *)((const char *)blob + sizeof s),
                                           s.nwords);
}

static void dim_to_memo(dmlcl_operator *op, const dmlcl__taps_table *t,
                        const dmlcl__taps_dim *p, const uint64_t *key)
{
    const int affine = p->row_word == UINT64_MAX;
    const dim_saved s = {(uint64_t)affine, p->first, p->step, affine ? 0 : t->n - p->row_word};
    if (s.nwords > (DMLCL__MEMO_MAX_ENTRY - sizeof s) / 4)
        return;
    unsigned char *blob = dmlcl__malloc(sizeof s + (size_t)s.nwords * 4);
    if (!blob)
        return;
    memcpy(blob, &s, sizeof s);
    if (!affine)
        dmlcl__taps_rows_out(t, p, (uint32_t *)(void *)(blob + sizeof s));
    dmlcl__memo_put(&op->ctx->memo, DMLCL__MEMO_TAPS_DIM, key, DIM_KEY * 8, blob,
                    sizeof s + (size_t)s.nwords * 4, NULL);
    dmlcl__free(blob);
}

/* Dimension p's rows into t, or its affine map: from the context's memo where an earlier
 * operator built this dimension (building the rows is most of a creation's work). key:
 * the dimension's dim_key. */
static dmlcl_status add_dim(dmlcl_operator *op, dmlcl__taps_table *t, int grad, int linear,
                            dmlcl__nearest_rule rule, int antialiased, dmlcl__taps_dim *p,
                            uint32_t d, const uint64_t *key, uint64_t *floor_words)
{
    dim_dest dest = {t, p};
    int hit = dmlcl__memo_visit(&op->ctx->memo, DMLCL__MEMO_TAPS_DIM, key, DIM_KEY * 8,
                                dim_from_memo, &dest);
    if (hit == 0)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory for the tap tables",
                           op->vt->name);
    if (hit > 0)
        return p->row_word == UINT64_MAX ? DMLCL_SUCCESS : table_floor(op, grad, p, floor_words);
    if (!dmlcl__taps_affine(grad, linear, rule, antialiased, p, d, op->whole_dims)) {
        dmlcl_status st = table_floor(op, grad, p, floor_words);
        if (st)
            return st;
        int ok = grad ? dmlcl__taps_add_grad(t, linear, rule, p)
                      : dmlcl__taps_add_forward(t, antialiased, p);
        if (!ok)
            return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory for the tap "
                               "tables", op->vt->name);
    }
    dim_to_memo(op, t, p, key);
    return DMLCL_SUCCESS;
}

/* Every dimension's rows into t; affine dimensions become strides in the arguments. */
static dmlcl_status build(dmlcl_operator *op, taps_impl *im, int grad, int linear,
                          dmlcl__nearest_rule rule, int antialiased, const float *scales,
                          const float *in_offsets, const float *out_offsets,
                          dmlcl__taps_table *t)
{
    const dmlcl__tensor *src = &op->in[0], *res = &op->out[0];
    dmlcl__taps_dim dims[8];
    uint64_t floor_words = 0;
    dmlcl_status st;
    /* The float kernels read baked weights (taps.h); the table's key says so. */
    const int bake = src->type != DMLCL_TENSOR_DATA_TYPE_FLOAT64;
    dmlcl__taps_plan_init(&im->s.plan, src, res);
    for (uint32_t d = 0; d < res->rank; d++) {
        dmlcl__taps_dim p = {res->whole[d], src->whole[d], scales[d], in_offsets[d],
                             out_offsets[d], res->origin[d], res->sizes[d], src->origin[d],
                             src->sizes[d], 0, 0, 0};
        uint64_t *key = im->tkey + im->tkey_words;
        dim_key(grad, linear, rule, antialiased, &p, key);
        im->tkey_words += DIM_KEY;
        if (!same_map(dims, d, &p)) {
            if ((st = add_dim(op, t, grad, linear, rule, antialiased, &p, d, key,
                              &floor_words)))
                return st;
            /* Baked once, as its own rows are added (same_map's dimensions share them),
             * after add_dim gave the memo its rows unbaked, for every data type. */
            if (bake && p.row_word != UINT64_MAX)
                dmlcl__taps_bake(t, &p);
        }
        dims[d] = p;
        dmlcl__taps_plan_dim(&im->s.plan, src, res, d, &p);
    }
    im->tkey[im->tkey_words++] = (uint64_t)bake;
    return DMLCL_SUCCESS;
}

static dmlcl_status upload(dmlcl_operator *op, taps_impl *im, const dmlcl__taps_table *t)
{
    const char *name = op->vt->name;
    uint64_t bytes = t->n * 4;
    if (t->n == 0)
        return DMLCL_SUCCESS;
    if (t->n > UINT32_MAX || bytes > op->ctx->info.max_mem_alloc)
        return dmlcl__fail(DMLCL_UNSUPPORTED,
                           "%s: the tap tables need %llu bytes, more than the device's "
                           "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu) or 16 GiB", name,
                           (unsigned long long)bytes,
                           (unsigned long long)op->ctx->info.max_mem_alloc);
    /* The table is the dimensions' rows in order: their keys are the table's. */
    return dmlcl__table_buffer(op->ctx, im->tkey, im->tkey_words * 8, t->words, (size_t)bytes,
                               &im->table);
}

/* The plan's text (dmlcl_operator_plan, when first asked: formatting it costs as much
 * as the rest of a creation from the memo). */
void dmlcl__taps_describe(dmlcl_operator *op)
{
    const taps_impl *im = op->impl;
    const dmlcl__taps_plan *p = &im->s.plan;
    const taps_args *a = &p->args;
    const uint64_t table_bytes = im->s.table_bytes;
    const char *options = im->options;
    int n = snprintf(op->plan_text, sizeof op->plan_text,
                     "variant=taps%s tabled=%llu affine=%llu count=%llu table=%lluB ",
                     p->segt ? "-seg" : p->rows_2d ? "-rows" : "", (unsigned long long)a->nt,
                     (unsigned long long)(a->rank - a->nt), (unsigned long long)a->count,
                     (unsigned long long)table_bytes);
    if (n < 0 || (size_t)n >= sizeof op->plan_text)
        return;
    if (p->rows_2d)
        snprintf(op->plan_text + n, sizeof op->plan_text - n,
                 "inner=%llu columns=%llu rows=%llu global=%zux%zu local=%zux%zu options='%s'",
                 (unsigned long long)a->inner, (unsigned long long)a->nx,
                 (unsigned long long)a->rows, p->global2[0], p->global2[1], p->local2[0],
                 p->local2[1], options);
    else
        snprintf(op->plan_text + n, sizeof op->plan_text - n,
                 "global=%zu local=%zu options='%s'", p->global, p->local, options);
    if (im->pending.pending)
        snprintf(op->plan_text + strlen(op->plan_text), sizeof op->plan_text -
                 strlen(op->plan_text), " specialised=building");
}

/* Plans op (the memo missed): its tables, built and uploaded, and its launch, all kept
 * under key. */
static dmlcl_status plan_fresh(dmlcl_operator *op, const dmlcl__resample_map *m,
                               const dmlcl__resample_tune *tune, const dmlcl__limits *lim,
                               const dmlcl__resample_key *key)
{
    taps_impl *im = op->impl;
    dmlcl__resample_count_plan();
    dmlcl__taps_table t = {0};
    dmlcl_status st = build(op, im, m->grad, m->linear, m->rule, m->widen, m->scales,
                            m->in_offsets, m->out_offsets, &t);
    if (!st) {
        /* $DMLCL_RESAMPLE_PLAN's rows, seg and wg apply here too (its v does not). */
        dmlcl__taps_plan_launch(&im->s.plan, &t, &op->in[0], &op->out[0], lim, &tune->t,
                                key->force_idx64);
        im->s.table_bytes = t.n * 4;
        st = upload(op, im, &t);
    }
    dmlcl__taps_table_free(&t);
    if (!st)
        dmlcl__memo_put(&op->ctx->memo, DMLCL__MEMO_TAPS_PLAN, key, sizeof *key, &im->s,
                        sizeof im->s, im->table);
    return st;
}

dmlcl_status dmlcl__taps_create(dmlcl_operator *op, const dmlcl__op_vtable *vt, int grad,
                                int linear, dmlcl__nearest_rule rule, int antialiased,
                                const float *scales, const float *in_offsets,
                                const float *out_offsets, const dmlcl__resample_tune *tune)
{
    op->n_in = 1;
    op->n_out = 1;
    op->vt = vt;
    taps_impl *im = dmlcl__calloc(1, sizeof *im);
    if (!im)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", vt->name);
    op->impl = im;
    const dmlcl__limits lim = dmlcl__op_limits(op);
    const dmlcl__resample_map m = {grad, linear, antialiased, rule, scales, in_offsets,
                                   out_offsets};
    dmlcl__resample_key key;
    dmlcl__resample_key_make(op, &m, tune, &lim, dmlcl__resample_force_idx64(), &key);
    dmlcl_status st;
    int hit = dmlcl__memo_read(&op->ctx->memo, DMLCL__MEMO_TAPS_PLAN, &key, sizeof key,
                               &im->s, sizeof im->s, &im->table);
    /* A table the device no longer holds (the limit is the context's to change): planned
     * again, to fail as a fresh creation does, before the host builds anything. */
    if (hit && im->s.table_bytes > op->ctx->info.max_mem_alloc) {
        if (im->table)
            clReleaseMemObject(im->table);
        im->table = NULL;
        hit = 0;
    }
    if (!hit && (st = plan_fresh(op, &m, tune, &lim, &key)))
        return st;
    /* The pattern's program where it is built, else the generic one until it is
     * (lib/core/specialize.h). */
    const dmlcl__taps_plan *p = &im->s.plan;
    int took = 0;
    st = dmlcl__kernel_tiered(op->ctx, op->kernels, "taps", p->options, p->options_tp,
                              p->kernel, &im->kernel, &took, &im->pending);
    snprintf(im->options, sizeof im->options, "%s", took ? p->options_tp : p->options);
    return st;
}
