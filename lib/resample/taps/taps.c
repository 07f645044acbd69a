/* The tap operator behind RESAMPLE_GRAD1 and RESAMPLE3 (antialiased): host-built tap
 * tables (taps_tables.c), one kernel (lib/resample/taps/taps.cl) per data type. */
#include "core/launch.h"
#include "resample/taps/args.h"
#include "resample/resample1/resample1_plan.h"
#include "resample/taps/taps.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Words of a dimension's key in the context's memo (dim_key). */
enum { DIM_KEY = 13 };

typedef struct taps_impl {
    taps_args args;
    uint64_t src_base; /* source element offset fixed by the affine dimensions */
    size_t global, local;
    int rows_2d;                  /* the rows (or segment) kernel, over global2/local2 */
    unsigned segt;                /* the segment kernel's columns per item; 0 = rows */
    unsigned cv;                  /* the rows kernel's channels per item (1: one) */
    int tp[16];                   /* the segment kernel's pattern (tp[0] < 0: none) */
    unsigned tpw;                 /* its lanes: two registers (dmlcl__simd_lanes) */
    size_t global2[2], local2[2];
    cl_kernel kernel;
    cl_mem table; /* NULL when every dimension is affine */
    /* What the table was built from: each dimension's key (dim_key), for the memo. */
    uint64_t tkey[8 * DIM_KEY];
    size_t tkey_words;
    /* For dmlcl_operator_plan(), written when first asked (describe). */
    uint64_t table_bytes;
    char options[640];
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
    cl_ulong offs[2] = {in_off[0] + im->src_base, out_off[0]};
    taps_args a = im->args;
    a.cv_ok = im->cv > 1 && offs[0] % im->cv == 0 && offs[1] % im->cv == 0 &&
              dmlcl__mem_aligned(in[0]) && dmlcl__mem_aligned(out[0]);
    return dmlcl__enqueue_table_kernel(op, im->kernel, in[0], out[0], offs, im->table, sizeof a,
                                       &a, im->rows_2d, im->rows_2d ? im->global2 : &im->global,
                                       im->rows_2d ? im->local2 : &im->local, nwait, wait, event);
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
                            const uint64_t *key, uint64_t *floor_words)
{
    dim_dest dest = {t, p};
    int hit = dmlcl__memo_visit(&op->ctx->memo, DMLCL__MEMO_TAPS_DIM, key, DIM_KEY * 8,
                                dim_from_memo, &dest);
    if (hit == 0)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory for the tap tables",
                           op->vt->name);
    if (hit > 0)
        return p->row_word == UINT64_MAX ? DMLCL_SUCCESS : table_floor(op, grad, p, floor_words);
    if (!dmlcl__taps_affine(grad, linear, rule, antialiased, p)) {
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
    taps_args *a = &im->args;
    a->count = res->elements;
    a->rank = res->rank;
    dmlcl__taps_dim dims[8];
    uint64_t floor_words = 0;
    dmlcl_status st;
    for (uint32_t d = 0; d < 8; d++)
        a->rsize[d] = 1;
    for (uint32_t d = 0; d < res->rank; d++) {
        dmlcl__taps_dim p = {res->whole[d], src->whole[d], scales[d], in_offsets[d],
                             out_offsets[d], res->origin[d], res->sizes[d], src->origin[d],
                             src->sizes[d], 0, 0, 0};
        uint64_t *key = im->tkey + im->tkey_words;
        dim_key(grad, linear, rule, antialiased, &p, key);
        im->tkey_words += DIM_KEY;
        if (!same_map(dims, d, &p) &&
            (st = add_dim(op, t, grad, linear, rule, antialiased, &p, key, &floor_words)))
            return st;
        dims[d] = p;
        a->rsize[d] = res->sizes[d];
        a->rstr[d] = res->strides[d];
        if (p.row_word == UINT64_MAX) {
            im->src_base += p.first * src->strides[d];
            a->sstr[d] = p.step * src->strides[d];
            a->rtab[d] = ~(cl_ulong)0;
        } else {
            a->sstr[d] = src->strides[d];
            a->rtab[d] = p.row_word;
            a->nt++;
        }
    }
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
    const taps_args *a = &im->args;
    const uint64_t table_bytes = im->table_bytes;
    const char *options = im->options;
    int n = snprintf(op->plan_text, sizeof op->plan_text,
                     "variant=taps%s tabled=%llu affine=%llu count=%llu table=%lluB ",
                     im->segt ? "-seg" : im->rows_2d ? "-rows" : "", (unsigned long long)a->nt,
                     (unsigned long long)(a->rank - a->nt), (unsigned long long)a->count,
                     (unsigned long long)table_bytes);
    if (n < 0 || (size_t)n >= sizeof op->plan_text)
        return;
    if (im->rows_2d)
        snprintf(op->plan_text + n, sizeof op->plan_text - n,
                 "inner=%llu columns=%llu rows=%llu global=%zux%zu local=%zux%zu options='%s'",
                 (unsigned long long)a->inner, (unsigned long long)a->nx,
                 (unsigned long long)a->rows, im->global2[0], im->global2[1], im->local2[0],
                 im->local2[1], options);
    else
        snprintf(op->plan_text + n, sizeof op->plan_text - n,
                 "global=%zu local=%zu options='%s'", im->global, im->local, options);
    if (im->pending.pending)
        snprintf(op->plan_text + strlen(op->plan_text), sizeof op->plan_text -
                 strlen(op->plan_text), " specialised=building");
}

/* The dimension longer than 1 with the smallest result stride, other than `skip`; -1 if
 * none. */
static int innermost(const taps_args *a, int skip)
{
    int b = -1;
    for (int d = 0; d < (int)a->rank; d++)
        if (d != skip && a->rsize[d] > 1 && (b < 0 || a->rstr[d] <= a->rstr[b]))
            b = d;
    return b;
}

/* The most taps of any row of tabled dimension d (at least 1). */
static uint32_t most_taps(const taps_args *a, const dmlcl__taps_table *t, int d)
{
    uint32_t most = 1;
    for (uint64_t x = 0; x < a->rsize[d]; x++) {
        uint32_t n = t->words[a->rtab[d] + 3 * x + 1];
        most = n > most ? n : most;
    }
    return most;
}

/* The rows kernel's columns: the innermost dimension if it is tabled, else (channels-last)
 * the innermost affine dimension c inside the next one. That tabled dimension b must be
 * the last tabled one (so that its taps run innermost, as in the other kernels), with at
 * most 8 taps per coordinate and at most 3 tabled dimensions. Returns b's tap bound KB (1,
 * 2, 4 or 8; 0 = the rows kernel does not apply). */
static unsigned rows_taps(taps_impl *im, const dmlcl__taps_table *t)
{
    taps_args *a = &im->args;
    int b = innermost(a, -1), c = 8;
    if (b >= 0 && a->rtab[b] == ~(cl_ulong)0) {
        c = b;
        b = innermost(a, c);
    }
    if (b < 0 || a->nt > 3 || a->rtab[b] == ~(cl_ulong)0)
        return 0;
    for (int d = b + 1; d < (int)a->rank; d++)
        if (a->rtab[d] != ~(cl_ulong)0)
            return 0;
    uint32_t most = most_taps(a, t, b);
    if (most > 8)
        return 0;
    a->inner = (cl_ulong)b;
    a->cdim = (cl_ulong)c;
    a->nc = c < 8 ? a->rsize[c] : 1;
    a->nx = a->rsize[b] * a->nc;
    a->rows = a->count / a->nx;
    a->btab = a->rtab[b];
    a->bstr = a->sstr[b];
    a->bres = a->rstr[b];
    a->csrc = c < 8 ? a->sstr[c] : 0;
    a->cres = c < 8 ? a->rstr[c] : 0;
    return most <= 1 ? 1 : most <= 2 ? 2 : most <= 4 ? 4 : 8;
}

/* FLOAT32 channels-last on the rows kernel: runs of 8 (or 4) contiguous channels in both
 * tensors, every other stride and the fixed source offset a multiple of that, become one
 * item each (-DCV: one vector load per tap). $DMLCL_RESAMPLE_PLAN's v=1
 * turns it off; v=N > 1 allows it on CPUs, for the tests. On an H200 the backward pass of
 * linear 2x NHWC (C = 8) went from 4.4 ms to 2.9 ms. */
static void pick_cv(const dmlcl_operator *op, taps_impl *im, const dmlcl__limits *lim,
                    const dmlcl__r1_tune *tune)
{
    taps_args *a = &im->args;
    im->cv = 1;
    if (op->in[0].type != DMLCL_TENSOR_DATA_TYPE_FLOAT32 || a->cdim >= 8 || a->csrc != 1 ||
        a->cres != 1 || (tune->vec ? tune->vec == 1 : lim->is_cpu))
        return;
    unsigned cv = a->nc % 8 == 0 ? 8 : a->nc % 4 == 0 ? 4 : 1;
    for (uint32_t d = 0; d < a->rank; d++)
        if (d != a->cdim && (a->sstr[d] % cv || a->rstr[d] % cv))
            cv = 1;
    if (cv == 1 || im->src_base % cv)
        return;
    im->cv = cv;
    a->nc /= cv;
    a->nx /= cv;
}

/* Groups down the rows for a 2-D launch of groups0 x local2 items: 64 per compute unit in
 * all (at most 65535, NVIDIA's limit), each item looping over the rest. On an H200, 16
 * groups per unit ran the backward pass of linear 2x in 5.1 ms, 64 in 4.5, 256 in 4.4. */
static void rows_groups(taps_impl *im, const dmlcl__limits *lim, uint64_t groups0)
{
    uint64_t want1 = (uint64_t)lim->compute_units * 64 / groups0;
    uint64_t need1 = (im->args.rows + im->local2[1] - 1) / im->local2[1];
    uint64_t groups1 = need1 < want1 ? need1 : want1;
    groups1 = groups1 < 1 ? 1 : groups1 > 65535 ? 65535 : groups1;
    im->global2[0] = (size_t)(groups0 * im->local2[0]);
    im->global2[1] = (size_t)(groups1 * im->local2[1]);
    im->rows_2d = 1;
}

/* Column x's first tap's source offset, as the kernel's column_taps computes it. */
static uint64_t column_first(const taps_args *a, const dmlcl__taps_table *t, uint64_t x)
{
    uint64_t xb = x / a->nc, xc = x - xb * a->nc;
    return (uint64_t)t->words[a->btab + 3 * xb] * a->bstr + xc * a->csrc;
}

/* Vector v's w lane offsets into p (each below 2w, the window); 0 if they do not fit. */
static int vector_offsets(const taps_args *a, const dmlcl__taps_table *t, uint64_t v,
                          unsigned w, int *p)
{
    int ok = 1;
    uint64_t b = column_first(a, t, v * w);
    for (unsigned l = 0; l < w; l++) {
        uint64_t o = column_first(a, t, v * w + l);
        ok &= o >= b && o - b < 2 * w;
        p[l] = ok ? (int)(o - b) : 0;
    }
    return ok;
}

/* The segment kernel's pattern (TP): the lane offsets (ob[x0 + l] - ob[x0], each below
 * 2 tpw) that most of up to 16 whole vectors of tpw columns share, where that is at least
 * half of them; else im->tp[0] = -1. The kernel checks every vector against it (and every
 * tap), so this only picks. */
static void pick_tp(taps_impl *im, const dmlcl__taps_table *t)
{
    const taps_args *a = &im->args;
    const unsigned w = im->tpw;
    im->tp[0] = -1;
    uint64_t nv = a->nx / w;
    if (im->segt % w || nv == 0)
        return;
    uint64_t step = nv > 16 ? nv / 16 : 1, best = 0, seen = (nv + step - 1) / step;
    int cand[16];
    for (uint64_t v = 0; v < nv; v += step) {
        int p[16];
        if (!vector_offsets(a, t, v, w, p))
            continue;
        /* Count the vectors sampled with this pattern (a scan; at most 16 x 16). */
        uint64_t same = 0;
        for (uint64_t u = 0; u < nv; u += step) {
            uint64_t c = column_first(a, t, u * w), l = 0;
            while (l < w && column_first(a, t, u * w + l) == c + (uint64_t)p[l])
                l++;
            same += l == w;
        }
        if (same > best)
            best = same, memcpy(cand, p, sizeof cand);
        if (best * 2 >= seen)
            break; /* a majority already */
    }
    if (best * 2 < seen)
        return;
    memcpy(im->tp, cand, sizeof cand);
}

/* The column kernels where they apply, with at least 32 columns ($DMLCL_RESAMPLE_PLAN's
 * rows=1: any; rows=0: never). GPUs: the rows kernel, a group of up to 256 items spanning
 * the columns (or several rows where they are few), each item reusing its register-held
 * taps down the rows (the backward pass of linear 2x on an H200: 11.1 ms with the 1-D
 * kernel, 4.5 ms). CPUs (or seg=N): the segment kernel, 512 columns per item, at most
 * 512 (2-core POCL: 0.33 GB/s with the 1-D kernel, 0.64 rows, 2.2 segments of 64, 3.2 of
 * 256; with the vector pattern and row blocks the backward pass of linear 2x ran 7.3 GB/s
 * with segments of 256, 10.0 of 512, 9.0 of 1024: a whole source row per item streams).
 * Returns KB, 0 for the 1-D kernels. */
static unsigned plan_rows(const dmlcl_operator *op, taps_impl *im, const dmlcl__taps_table *t,
                          const dmlcl__limits *lim, const dmlcl__r1_tune *tune)
{
    int want = tune->rows != 0;
    unsigned kb = want ? rows_taps(im, t) : 0;
    if (!kb || (tune->rows < 0 && im->args.nx < 32))
        return 0;
    size_t wg = tune->wg ? tune->wg : lim->is_cpu ? 64 : 256, l0 = 1;
    if (lim->max_work_group_size && wg > lim->max_work_group_size)
        wg = lim->max_work_group_size;
    int seg = tune->seg >= 0 ? tune->seg : lim->is_cpu ? 512 : 0;
    if (seg) {
        /* Segments: items of seg columns, groups of 8 items down the rows (one POCL
         * compile), rows shared out as for the rows kernel. */
        im->segt = (unsigned)(seg < 512 ? seg : 512);
        im->local2[0] = 1;
        im->local2[1] = wg < 8 ? wg : 8;
        rows_groups(im, lim, (im->args.nx + im->segt - 1) / im->segt);
        im->tp[0] = -1;
        /* Lanes of the accumulators: float, double for FLOAT64. */
        im->tpw = dmlcl__simd_lanes(lim, op->in[0].elem_size == 8 ? 8 : 4, 2);
        if (tune->tp != 0 && (tune->tp > 0 || lim->is_cpu))
            pick_tp(im, t);
        return kb;
    }
    pick_cv(op, im, lim, tune);
    while (l0 < wg && l0 < im->args.nx)
        l0 *= 2;
    im->local2[0] = l0;
    im->local2[1] = wg / l0 ? wg / l0 : 1;
    rows_groups(im, lim, (im->args.nx + l0 - 1) / l0);
    return kb;
}

/* The kernels' multiply-high division by n (lib/core/common.cl's fdiv). */
static void set_div(uint64_t n, int idx64, cl_ulong *mul, cl_ulong *shr)
{
    dmlcl__fastdiv f = dmlcl__fastdiv_make(n, idx64 ? 64 : 32);
    *mul = f.mul;
    *shr = f.sh1 | (cl_ulong)f.sh2 << 8;
}

/* The 1-D kernels' NDRange (the rows kernel's is set already); index width and the
 * multiply-high divisors. Returns IDX64. */
static int plan_1d(const dmlcl_operator *op, taps_impl *im, const dmlcl__limits *lim)
{
    dmlcl__plan_ndrange(im->args.count, lim, &im->global, &im->local);
    if (lim->is_cpu) {
        /* POCL compiles once per work-group size: a fixed group, as RESAMPLE1 does. */
        size_t wg = lim->max_work_group_size < 64 ? lim->max_work_group_size : 64;
        im->local = wg ? wg : 1;
        im->global = (im->global + im->local - 1) / im->local * im->local;
    }
    const uint64_t lim32 = (uint64_t)1 << 32;
    /* The rows kernel's items past the inner dimension's end compute offsets they never
     * store to; wrapping there is harmless. */
    uint64_t items = im->args.count + (im->rows_2d ? im->global2[1] : im->global);
    int idx64 = items >= lim32 || op->in[0].span >= lim32 || op->out[0].span >= lim32 ||
                dmlcl__overrides_idx64();
    taps_args *a = &im->args;
    for (int d = 0; d < 8; d++)
        set_div(a->rsize[d], idx64, &a->rmul[d], &a->rshr[d]);
    set_div(a->nc ? a->nc : 1, idx64, &a->cmul, &a->cshr);
    return idx64;
}

/* The rows kernel's outer loop as build options: the rank (RS), the column dimensions it
 * skips (BDIM, CDIM) and which dimensions are tabled (TMASK), so that it unrolls to the
 * dimensions there are and no branch depends on the arguments (otherwise GPU compilers
 * keep all 8 slots' fields in registers across the row loop); and KF, the most taps of
 * any row of the outer tabled dimension f (0: more than 8, a loop to each row's count). */
static void rows_options(const taps_args *a, const dmlcl__taps_table *t, char *buf, size_t cap)
{
    unsigned mask = 0;
    int f = -1; /* the outer tabled dimension nearest b: the kernel's f */
    for (unsigned d = 0; d < a->rank; d++) {
        int tabled = a->rtab[d] != ~(cl_ulong)0;
        mask |= (unsigned)tabled << d;
        if (tabled && d != a->inner)
            f = (int)d;
    }
    uint32_t kf = f >= 0 ? most_taps(a, t, f) : 1;
    kf = kf <= 1 ? 1 : kf <= 2 ? 2 : kf <= 4 ? 4 : kf <= 8 ? 8 : 0;
    snprintf(buf, cap, " -DRS=%u -DBDIM=%u -DCDIM=%u -DTMASK=0x%x -DKF=%u", (unsigned)a->rank,
             (unsigned)a->inner, (unsigned)a->cdim, mask, kf);
}

/* " -DTPW=w -DTP=a,b,...": the w lane offsets (each 0..31) without w snprintf calls. */
static void tp_options(const int *tp, unsigned w, char *out)
{
    char *s = out + sprintf(out, " -DTPW=%u -DTP=", w);
    for (unsigned l = 0; l < w; l++) {
        const int v = tp[l] < 0 ? 0 : tp[l] > 99 ? 99 : tp[l];
        if (l)
            *s++ = ',';
        if (v >= 10)
            *s++ = (char)('0' + v / 10);
        *s++ = (char)('0' + v % 10);
    }
    *s = 0;
}

dmlcl_status dmlcl__taps_create(dmlcl_operator *op, const dmlcl__op_vtable *vt, int grad,
                                int linear, dmlcl__nearest_rule rule, int antialiased,
                                const float *scales, const float *in_offsets,
                                const float *out_offsets)
{
    op->n_in = 1;
    op->n_out = 1;
    op->vt = vt;
    taps_impl *im = dmlcl__calloc(1, sizeof *im);
    if (!im)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", vt->name);
    op->impl = im;
    dmlcl__taps_table t = {0};
    dmlcl_status st = build(op, im, grad, linear, rule, antialiased, scales, in_offsets,
                            out_offsets, &t);
    dmlcl__limits lim = dmlcl__op_limits(op);
    /* $DMLCL_RESAMPLE_PLAN's rows, seg and wg apply here too (its v does not). */
    dmlcl__r1_tune tune;
    if (!st)
        st = dmlcl__overrides_resample(vt->name, &tune, NULL);
    im->tp[0] = -1;
    unsigned kb = st ? 0 : plan_rows(op, im, &t, &lim, &tune);
    im->args.sspan = op->in[0].span - im->src_base;
    int idx64 = plan_1d(op, im, &lim);
    char options[640], rows[64] = "", tp[96] = "";
    if (kb && im->rows_2d && !im->segt) /* GPUs' rows kernel (CPUs keep fewer programs) */
        rows_options(&im->args, &t, rows, sizeof rows);
    if (kb && im->segt && im->tp[0] >= 0)
        tp_options(im->tp, im->tpw, tp);
    snprintf(im->options, sizeof im->options,
             "-DDTYPE=%d -DELEM_BYTES=%u -DIDX64=%d -DNT2=%d -DNT3=%d -DKB=%u -DSEGT=%u -DCV=%u%s",
             (int)op->in[0].type, op->in[0].elem_size, idx64, im->args.nt == 2,
             kb && im->args.nt == 3, kb, im->segt, im->cv ? im->cv : 1, rows);
    snprintf(options, sizeof options, "%s%s", im->options, tp); /* the pattern's program */
    im->table_bytes = t.n * 4;
    int took = 0;
    /* The pattern's program where it is built, else the generic one until it is
     * (lib/core/specialize.h). */
    if (!st)
        st = dmlcl__kernel_tiered(op->ctx, "taps", im->options, options,
                                  im->segt      ? "resample_taps_seg"
                                  : im->rows_2d ? "resample_taps_rows"
                                                : "resample_taps",
                                  &im->kernel, &took, &im->pending);
    if (took)
        snprintf(im->options, sizeof im->options, "%s", options);
    if (!st)
        st = upload(op, im, &t);
    dmlcl__taps_table_free(&t);
    return st;
}
