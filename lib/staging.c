/* Host arrays through pinned staging (execute_host on devices with their own memory,
 * doc/api.md "Host arrays"): an array goes to or from its device buffer in pieces through
 * two pinned buffers (CL_MEM_ALLOC_HOST_PTR, mapped once), which the device copies at the
 * bus's speed. While the device copies one piece, the host fills or empties the other, so
 * the host's memcpy and the device's transfer overlap. Bytes are copied as they are: the
 * results are those of the operator on device buffers, bit for bit. */
#include "operator.h"
#include "core/context.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pieces of 16 MiB: large enough for a transfer at the bus's full speed. */
#define PIECE_DEFAULT ((uint64_t)16 << 20)

dmlcl_status dmlcl__host_path(const dmlcl_context *c, int *staged, uint64_t *piece)
{
    const char *v = getenv("DMLCL_HOST_PATH");
    *staged = !c->info.is_cpu;
    *piece = PIECE_DEFAULT;
    if (!v || !*v || !strcmp(v, "auto"))
        return DMLCL_SUCCESS;
    char *end = NULL;
    if (!strcmp(v, "staged")) {
        *staged = 1;
        return DMLCL_SUCCESS;
    }
    if (!strncmp(v, "staged:", 7) && v[7] >= '1' && v[7] <= '9') {
        unsigned long long n = strtoull(v + 7, &end, 10);
        if (!*end) {
            *staged = 1;
            *piece = n;
            return DMLCL_SUCCESS;
        }
    }
    return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                       "DMLCL_HOST_PATH must be auto, staged or staged:BYTES (BYTES >= 1), "
                       "got '%s'", v);
}

dmlcl_status dmlcl__staging_create(dmlcl_context *c, uint64_t piece, uint64_t largest,
                                   dmlcl__staging *s)
{
    memset(s, 0, sizeof *s);
    s->queue = c->queue;
    s->piece = piece < largest ? piece : largest;
    if (s->piece > c->info.max_mem_alloc)
        s->piece = c->info.max_mem_alloc;
    for (int k = 0; k < 2; k++) {
        cl_int err;
        s->buf[k] = clCreateBuffer(c->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                   (size_t)s->piece, NULL, &err);
        if (err)
            return dmlcl__cl_fail("clCreateBuffer", err);
        s->host[k] = clEnqueueMapBuffer(s->queue, s->buf[k], CL_TRUE,
                                        CL_MAP_READ | CL_MAP_WRITE, 0, (size_t)s->piece, 0,
                                        NULL, NULL, &err);
        if (err)
            return dmlcl__cl_fail("clEnqueueMapBuffer", err);
    }
    return DMLCL_SUCCESS;
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
    for (int k = 0; k < 2; k++) {
        settle(s, k);
        if (s->host[k]) {
            cl_event e = NULL;
            if (!clEnqueueUnmapMemObject(s->queue, s->buf[k], s->host[k], 0, NULL, &e))
                clWaitForEvents(1, &e);
            if (e)
                clReleaseEvent(e);
        }
        if (s->buf[k])
            clReleaseMemObject(s->buf[k]);
    }
    memset(s, 0, sizeof *s);
}

/* The pinned memory is the source of an ordinary write: the pattern the vendors' drivers
 * recognise as a DMA from page-locked memory. */
dmlcl_status dmlcl__staging_upload(dmlcl__staging *s, const char *src, cl_mem dst,
                                   uint64_t bytes)
{
    dmlcl_status st = DMLCL_SUCCESS;
    int k = 0;
    for (uint64_t at = 0; at < bytes && !st; at += s->piece, k ^= 1) {
        const uint64_t n = bytes - at < s->piece ? bytes - at : s->piece;
        if ((st = settle(s, k)))
            break;
        memcpy(s->host[k], src + at, (size_t)n);
        cl_int err = clEnqueueWriteBuffer(s->queue, dst, CL_FALSE, (size_t)at, (size_t)n,
                                          s->host[k], 0, NULL, &s->ev[k]);
        if (err)
            st = dmlcl__cl_fail("clEnqueueWriteBuffer", err);
    }
    return st;
}

/* One piece from src into pinned buffer k, after `after`. */
static dmlcl_status read_piece(dmlcl__staging *s, cl_mem src, uint64_t at, uint64_t bytes,
                               int k, cl_event after)
{
    const uint64_t n = bytes - at < s->piece ? bytes - at : s->piece;
    cl_int err = clEnqueueReadBuffer(s->queue, src, CL_FALSE, (size_t)at, (size_t)n,
                                     s->host[k], after ? 1 : 0, after ? &after : NULL,
                                     &s->ev[k]);
    return err ? dmlcl__cl_fail("clEnqueueReadBuffer", err) : DMLCL_SUCCESS;
}

/* Piece i+1 is on its way while the host copies piece i out. */
dmlcl_status dmlcl__staging_download(dmlcl__staging *s, cl_mem src, cl_event after, char *dst,
                                     uint64_t bytes)
{
    dmlcl_status st = settle(s, 0);
    if (!st)
        st = settle(s, 1);
    if (!st && bytes)
        st = read_piece(s, src, 0, bytes, 0, after);
    int k = 0;
    for (uint64_t at = 0; at < bytes && !st; at += s->piece, k ^= 1) {
        const uint64_t n = bytes - at < s->piece ? bytes - at : s->piece;
        if (at + n < bytes && (st = read_piece(s, src, at + n, bytes, k ^ 1, after)))
            break;
        if ((st = settle(s, k)))
            break;
        memcpy(dst + at, s->host[k], (size_t)n);
    }
    return st;
}
