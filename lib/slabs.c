/* Slabs (core/slab.h): an operator whose tensors pass the slab bound runs as parts, one
 * per slab of its output, each a whole operator of its class created on that slab's
 * boxes as tiles (the part, given the whole operator's checked tensors and what its check
 * and overrides found, narrows its tensors: dmlcl__op_slab_narrow), so each
 * part plans, compiles and runs with 32-bit index arithmetic; the operator enqueues its
 * parts one after the other, under its lock, with their first elements added to the
 * bindings' offsets. Parts of the same kernel share one cl_kernel (core/context.h's
 * dmlcl__kernel_share), taken from the program cache once. */
#include "slabs.h"
#include "core/launch.h"
#include "core/slab.h"
#include <stdio.h>
#include <string.h>

typedef struct slabs_impl {
    dmlcl__op_vtable vt;  /* the class's name, the slabs' functions */
    dmlcl__slabs plan;
    uint64_t n;           /* parts created */
    dmlcl_operator **part;
    cl_event *events;     /* n of them: the parts' events, for the caller's one */
} slabs_impl;

/* Each dimension's last answer: the planner and every slab's box ask the same range of
 * an uncut dimension again and again (RESAMPLE_GRAD1: two binary searches of its inverse
 * map each). */
typedef struct {
    int known;
    uint64_t a, b, lo, hi;
} last_read;

/* What a slab reads along each dimension, through the class's input_range (separable:
 * core/slab.h). */
typedef struct {
    const dmlcl_operator *op;
    const dmlcl__op_class *cls;
    const dmlcl__reads *r;
    last_read *last; /* DMLCL_MAXDIM of them */
} reads_ctx;

static void reads(const void *vc, uint32_t d, uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
    const reads_ctx *c = vc;
    last_read *l = &c->last[d];
    if (!l->known || l->a != a || l->b != b) {
        *l = (last_read){1, a, b, 0, 0};
        c->cls->input_range(c->op, c->r, d, a, b, &l->lo, &l->hi);
    }
    *lo = l->lo;
    *hi = l->hi;
}

static void free_part(dmlcl_operator *p)
{
    if (p && p->vt && p->vt->destroy)
        p->vt->destroy(p);
    dmlcl__free(p);
}

static void slabs_destroy(dmlcl_operator *op)
{
    slabs_impl *im = op->impl;
    if (!im)
        return;
    for (uint64_t i = 0; i < im->n; i++)
        free_part(im->part[i]);
    dmlcl__free(im->part);
    dmlcl__free(im->events);
    dmlcl__free(im);
    op->impl = NULL;
}

static dmlcl_status slabs_enqueue(dmlcl_operator *op, const cl_mem *in, const uint64_t *in_off,
                                  const cl_mem *out, const uint64_t *out_off, cl_uint nwait,
                                  const cl_event *wait, cl_event *event)
{
    slabs_impl *im = op->impl;
    dmlcl_status st = DMLCL_SUCCESS;
    uint64_t done = 0;
    /* One part: its event is the caller's. Several: each waits for the caller's list
     * (the queue may be out of order; the parts write disjoint outputs) and a marker
     * waits for them all. */
    const int mark = event && im->n > 1;
    for (; done < im->n && !st; done++) {
        dmlcl_operator *p = im->part[done];
        uint64_t io[DMLCL_MAX_BINDINGS], oo[DMLCL_MAX_BINDINGS];
        for (uint32_t k = 0; k < op->n_in; k++)
            io[k] = in_off[k] + p->shift_in[k];
        for (uint32_t k = 0; k < op->n_out; k++)
            oo[k] = out_off[k] + p->shift_out[k];
        st = p->vt->enqueue(p, in, io, out, oo, nwait, wait,
                            mark ? &im->events[done] : event);
        if (st)
            break;
    }
    if (mark && !st) {
        cl_int err = clEnqueueMarkerWithWaitList(op->ctx->queue, (cl_uint)im->n, im->events,
                                                 event);
        if (err)
            st = dmlcl__cl_fail("clEnqueueMarkerWithWaitList", err);
    }
    for (uint64_t i = 0; mark && i < done; i++)
        clReleaseEvent(im->events[i]);
    /* A part whose specialised program arrived describes itself anew: so does op. */
    if (!im->part[0]->plan_text[0])
        op->plan_text[0] = 0;
    return st;
}

static void slabs_describe(dmlcl_operator *op)
{
    slabs_impl *im = op->impl;
    dmlcl_operator *p = im->part[0];
    if (p->vt->describe && !p->plan_text[0])
        p->vt->describe(p);
    const dmlcl__slabs *s = &im->plan;
    char grid[128];
    dmlcl__slabs_grid_text(s, grid, sizeof grid);
    if (s->split)
        snprintf(op->plan_text, sizeof op->plan_text,
                 "slabs=%llu grid=%s limit=%llu in_span<=%llu out_span<=%llu | slab 0: ",
                 (unsigned long long)im->n, grid, (unsigned long long)s->limit,
                 (unsigned long long)s->in_span, (unsigned long long)s->out_span);
    else
        snprintf(op->plan_text, sizeof op->plan_text,
                 "slabs=0 limit=%llu (no cut: %s; 64-bit indices) | ",
                 (unsigned long long)s->limit, s->why);
    /* Then the part's own text, as much as fits. */
    const size_t at = strlen(op->plan_text), len = strlen(p->plan_text),
                 room = sizeof op->plan_text - 1 - at, k = len < room ? len : room;
    memcpy(op->plan_text + at, p->plan_text, k);
    op->plan_text[at + k] = 0;
}

dmlcl_status dmlcl__slabs_create(dmlcl_operator *op, const dmlcl__op_class *cls,
                                 const void *desc, const dmlcl__checked *c, int *made)
{
    *made = 0;
    const uint64_t limit = cls->slab_bound(&c->tune);
    if (!limit || (op->out[0].span < limit && op->in[0].span < limit))
        return DMLCL_SUCCESS;
    last_read last[DMLCL_MAXDIM];
    memset(last, 0, sizeof last);
    reads_ctx rc = {op, cls, &c->r, last};
    const uint32_t keep = cls->kept_axes(desc);
    dmlcl__slabs plan;
    dmlcl__slabs_plan(&op->in[0], &op->out[0], keep, limit, reads, &rc, &plan);
    slabs_impl *im = dmlcl__calloc(1, sizeof *im);
    const uint64_t n = plan.split ? plan.n : 1;
    if (im) {
        im->part = dmlcl__calloc((size_t)n, sizeof *im->part);
        im->events = dmlcl__calloc((size_t)n, sizeof *im->events);
    }
    if (!im || !im->part || !im->events) {
        if (im) {
            dmlcl__free(im->part);
            dmlcl__free(im->events);
        }
        dmlcl__free(im);
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", cls->name);
    }
    im->plan = plan;
    *made = 1;
    dmlcl_status st = DMLCL_SUCCESS;
    dmlcl__whole_dims whole;
    memset(&whole, 0, sizeof whole);
    dmlcl__kernel_share kernels;
    kernels.n = 0;
    for (uint64_t i = 0; i < n && !st; i++) {
        dmlcl_operator *p = dmlcl__calloc(1, sizeof *p);
        if (!p) {
            st = dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", cls->name);
            break;
        }
        dmlcl__box ob, ib;
        p->ctx = op->ctx;
        memcpy(p->in, op->in, sizeof p->in); /* checked: the whole operator's tensors */
        memcpy(p->out, op->out, sizeof p->out);
        p->whole_dims = &whole;
        p->kernels = &kernels;
        if (plan.split) {
            dmlcl__slabs_box(&plan, &op->in[0], &op->out[0], reads, &rc, i, &ob, &ib);
            p->slab_out = &ob;
            p->slab_in = &ib;
        }
        st = cls->create(p, desc, c);
        p->slab_out = p->slab_in = NULL;
        p->whole_dims = NULL;
        p->kernels = NULL;
        if (st) {
            free_part(p);
            break;
        }
        im->part[im->n++] = p;
    }
    dmlcl__kernel_share_release(&kernels);
    /* op: the parts' operator, with the whole tensors of the check. */
    op->impl = im;
    im->vt = (dmlcl__op_vtable){cls->name, slabs_enqueue, slabs_destroy, slabs_describe};
    op->vt = &im->vt;
    if (!st) {
        im->vt.name = im->part[0]->vt->name;
        op->n_in = im->part[0]->n_in;
        op->n_out = im->part[0]->n_out;
    }
    return st;
}
