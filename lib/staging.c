/* Host arrays through pinned staging (execute_host on devices with their own memory,
 * doc/api.md "Host arrays"): an array goes to or from its device buffer in pieces through
 * three pinned buffers (CL_MEM_ALLOC_HOST_PTR, mapped), which the device copies at the
 * bus's speed. While the device copies one piece, the host's threads (host_copy.c) fill
 * or empty another, so the host's copies and the device's transfers overlap. Bytes are
 * copied as they are: the results are those of the operator on device buffers, bit for
 * bit. The pinned buffers stay with the context for its next call: pinning memory is slow
 * (a 16 MiB pinned buffer per piece and per call cost the GPU node's host path ~10 %). */
#include "operator.h"
#include "core/context.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pieces of 16 MiB: large enough for a transfer at the bus's full speed. */
#define PIECE_DEFAULT ((uint64_t)16 << 20)

dmlcl_status dmlcl__host_path(const dmlcl_context *c, dmlcl__host_plan *p)
{
    const char *v = getenv("DMLCL_HOST_PATH");
    p->staged = !c->info.is_cpu;
    p->piece = PIECE_DEFAULT;
    dmlcl_status st = dmlcl__host_threads(&p->threads);
    if (!st)
        st = dmlcl__host_copy_mode(&p->stream_up, &p->stream_down);
    if (st || !v || !*v || !strcmp(v, "auto"))
        return st;
    char *end = NULL;
    if (!strcmp(v, "staged")) {
        p->staged = 1;
        return DMLCL_SUCCESS;
    }
    if (!strncmp(v, "staged:", 7) && v[7] >= '1' && v[7] <= '9') {
        unsigned long long n = strtoull(v + 7, &end, 10);
        if (!*end) {
            p->staged = 1;
            p->piece = n;
            return DMLCL_SUCCESS;
        }
    }
    return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                       "DMLCL_HOST_PATH must be auto, staged or staged:BYTES (BYTES >= 1), "
                       "got '%s'", v);
}

static void pinned_free(struct dmlcl__pinned *p)
{
    for (int k = 0; k < DMLCL_STAGING_BUFFERS; k++) {
        if (p->host[k]) {
            cl_event e = NULL;
            if (!clEnqueueUnmapMemObject(p->queue, p->buf[k], p->host[k], 0, NULL, &e))
                clWaitForEvents(1, &e);
            if (e)
                clReleaseEvent(e);
        }
        if (p->buf[k])
            clReleaseMemObject(p->buf[k]);
    }
    free(p);
}

/* Pinned buffer k of p (none yet). */
static dmlcl_status pinned_add(dmlcl_context *c, struct dmlcl__pinned *p, int k)
{
    cl_int err;
    p->buf[k] = clCreateBuffer(c->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                               (size_t)p->piece, NULL, &err);
    if (err) {
        p->buf[k] = NULL;
        return dmlcl__cl_fail("clCreateBuffer", err);
    }
    p->host[k] = clEnqueueMapBuffer(p->queue, p->buf[k], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                    0, (size_t)p->piece, 0, NULL, NULL, &err);
    if (!err)
        return DMLCL_SUCCESS;
    clReleaseMemObject(p->buf[k]); /* none, as before: a later call may try again */
    p->buf[k] = NULL;
    p->host[k] = NULL;
    return dmlcl__cl_fail("clEnqueueMapBuffer", err);
}

/* The buffers' holder, its buffers made as the pieces first need them (staging_buffer). */
static dmlcl_status pinned_make(dmlcl_context *c, uint64_t piece, struct dmlcl__pinned **out)
{
    struct dmlcl__pinned *p = calloc(1, sizeof *p);
    *out = p;
    if (!p)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "execute_host: out of host memory");
    p->queue = c->queue;
    p->piece = piece;
    return DMLCL_SUCCESS;
}

/* Buffer k of p, made where p lacks it. */
static dmlcl_status pinned_need(dmlcl_context *c, struct dmlcl__pinned *p, int k)
{
    return p->host[k] ? DMLCL_SUCCESS : pinned_add(c, p, k);
}

/* Buffer k, made where the context's kept buffers lack it. */
static dmlcl_status staging_buffer(dmlcl__staging *s, int k)
{
    return pinned_need(s->ctx, s->pin, k);
}

/* Pinning is slow, so a call's first upload makes the next piece's buffer while the
 * host's threads fill this one. H100 node, `dmlcl run resample --scales 1,2,2` of a 1 GiB
 * input (a first call in each process), three runs each: 146-154 ms against 154-158 with
 * the three buffers made first. */
typedef struct {
    dmlcl__staging *s;
    int k;
    dmlcl_status st;
} buffer_job;

static void make_meanwhile(void *arg)
{
    buffer_job *j = arg;
    j->st = staging_buffer(j->s, j->k);
}

/* The piece of a call whose largest array is `largest` bytes. */
static uint64_t piece_for(const dmlcl_context *c, const dmlcl__host_plan *p, uint64_t largest)
{
    uint64_t piece = p->piece < largest ? p->piece : largest;
    return piece < c->info.max_mem_alloc ? piece : c->info.max_mem_alloc;
}

/* The context's buffers where no other call holds them and they suit: at least a piece,
 * at most the piece asked for (a smaller DMLCL_HOST_PATH=staged:BYTES). Else a holder
 * without buffers. */
static dmlcl_status take_kept(dmlcl_context *c, const dmlcl__host_plan *p, uint64_t piece,
                              struct dmlcl__pinned **out)
{
    struct dmlcl__pinned *pin = __atomic_exchange_n(&c->staging_kept, NULL, __ATOMIC_ACQ_REL);
    if (pin && (pin->piece < piece || pin->piece > p->piece)) {
        pinned_free(pin);
        pin = NULL;
    }
    *out = pin;
    return pin ? DMLCL_SUCCESS : pinned_make(c, piece, out);
}

/* Buffers back to the context for its next call, unless it keeps some already (a
 * concurrent call's) or a transfer failed (their state unknown): then freed. */
static void keep(dmlcl_context *c, struct dmlcl__pinned *pin, int failed)
{
    struct dmlcl__pinned *none = NULL;
    /* The same value from every call; atomic, as calls on other threads store it too. */
    __atomic_store_n(&c->staging_free, pinned_free, __ATOMIC_RELAXED);
    if (pin && (failed || !__atomic_compare_exchange_n(&c->staging_kept, &none, pin, 0,
                                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)))
        pinned_free(pin);
}

/* Ahead of a call (dmlcl_operator_prepare_host): the buffers that its pieces will use,
 * made now and kept by the context, so that the call pins nothing. */
dmlcl_status dmlcl__staging_prepare(dmlcl_context *c, const dmlcl__host_plan *p,
                                    uint64_t largest)
{
    const uint64_t piece = piece_for(c, p, largest), pieces = (largest + piece - 1) / piece;
    struct dmlcl__pinned *pin = NULL;
    dmlcl_status st = take_kept(c, p, piece, &pin);
    for (int k = 0; k < DMLCL_STAGING_BUFFERS && (uint64_t)k < pieces && !st; k++)
        st = pinned_need(c, pin, k);
    keep(c, pin, 0); /* what was made is sound, also after a failed pinned_add */
    return st;
}

dmlcl_status dmlcl__staging_create(dmlcl_context *c, const dmlcl__host_plan *p,
                                   uint64_t largest, dmlcl__staging *s)
{
    memset(s, 0, sizeof *s);
    s->ctx = c;
    s->stream_up = p->stream_up;
    s->stream_down = p->stream_down;
    s->piece = piece_for(c, p, largest);
    dmlcl_status st = dmlcl__copier_start(&s->copier, p->threads, s->piece);
    return st ? st : take_kept(c, p, s->piece, &s->pin);
}

/* Piece k's buffer free again: its last transfer over. */
static dmlcl_status settle(dmlcl__staging *s, int k)
{
    if (!s->ev[k])
        return DMLCL_SUCCESS;
    cl_int err = clWaitForEvents(1, &s->ev[k]);
    clReleaseEvent(s->ev[k]);
    s->ev[k] = NULL;
    return err ? dmlcl__cl_fail("clWaitForEvents", err) : DMLCL_SUCCESS;
}

void dmlcl__staging_release(dmlcl__staging *s)
{
    dmlcl_status st = DMLCL_SUCCESS;
    for (int k = 0; k < DMLCL_STAGING_BUFFERS; k++)
        st = settle(s, k) ? DMLCL_OPENCL_ERROR : st;
    dmlcl__copier_stop(s->copier);
    if (s->ctx)
        keep(s->ctx, s->pin, st != DMLCL_SUCCESS);
    memset(s, 0, sizeof *s);
}

/* The pinned memory is the source of an ordinary write: the pattern the vendors' drivers
 * recognise as a DMA from page-locked memory. */
dmlcl_status dmlcl__staging_upload(dmlcl__staging *s, const char *src, cl_mem dst,
                                   uint64_t bytes)
{
    dmlcl_status st = DMLCL_SUCCESS;
    int k = 0;
    for (uint64_t at = 0; at < bytes && !st; at += s->piece, k = (k + 1) % DMLCL_STAGING_BUFFERS) {
        const uint64_t n = bytes - at < s->piece ? bytes - at : s->piece;
        if ((st = settle(s, k)) || (st = staging_buffer(s, k)))
            break;
        buffer_job next = {s, (k + 1) % DMLCL_STAGING_BUFFERS, DMLCL_SUCCESS};
        const int make = at + n < bytes && !s->pin->host[next.k];
        dmlcl__copier_copy_while(s->copier, s->pin->host[k], src + at, (size_t)n, s->stream_up,
                                 make ? make_meanwhile : NULL, &next);
        if ((st = next.st))
            break;
        cl_int err = clEnqueueWriteBuffer(s->pin->queue, dst, CL_FALSE, (size_t)at, (size_t)n,
                                          s->pin->host[k], 0, NULL, &s->ev[k]);
        if (!err) /* on its way now, while the host fills the next buffer */
            err = clFlush(s->pin->queue);
        if (err)
            st = dmlcl__cl_fail("clEnqueueWriteBuffer", err);
    }
    return st;
}

/* Piece `at` of src into pinned buffer k, after `after`. */
static dmlcl_status read_piece(dmlcl__staging *s, cl_mem src, uint64_t at, uint64_t bytes,
                               int k, cl_event after)
{
    const uint64_t n = bytes - at < s->piece ? bytes - at : s->piece;
    cl_int err = clEnqueueReadBuffer(s->pin->queue, src, CL_FALSE, (size_t)at, (size_t)n,
                                     s->pin->host[k], after ? 1 : 0, after ? &after : NULL,
                                     &s->ev[k]);
    if (!err)
        err = clFlush(s->pin->queue);
    return err ? dmlcl__cl_fail("clEnqueueReadBuffer", err) : DMLCL_SUCCESS;
}

/* The pieces after piece i are on their way (as many as there are other buffers) while
 * the host copies piece i out. */
dmlcl_status dmlcl__staging_download(dmlcl__staging *s, cl_mem src, cl_event after, char *dst,
                                     uint64_t bytes)
{
    enum { NB = DMLCL_STAGING_BUFFERS };
    dmlcl_status st = DMLCL_SUCCESS;
    const uint64_t pieces = (bytes + s->piece - 1) / s->piece;
    for (int k = 0; k < NB && !st; k++)
        if (!(st = settle(s, k)) && (uint64_t)k < pieces)
            st = staging_buffer(s, k);
    for (uint64_t i = 0; i < pieces && i < NB - 1 && !st; i++)
        st = read_piece(s, src, i * s->piece, bytes, (int)i, after);
    for (uint64_t i = 0; i < pieces && !st; i++) {
        const int k = (int)(i % NB);
        const uint64_t at = i * s->piece, n = bytes - at < s->piece ? bytes - at : s->piece;
        if (i + NB - 1 < pieces &&
            (st = read_piece(s, src, (i + NB - 1) * s->piece, bytes, (int)((i + NB - 1) % NB), after)))
            break;
        if ((st = settle(s, k)))
            break;
        dmlcl__copier_copy(s->copier, dst + at, s->pin->host[k], (size_t)n, s->stream_down);
    }
    return st;
}
