/* The operator classes' table (operator.c), for the top floor's other files (input_box.c,
 * host.c), and the host path's pinned staging (staging.c). */
#ifndef DMLCL_OPERATOR_H
#define DMLCL_OPERATOR_H
#include "core/op.h"

/* The class of an operator type; NULL for a type that is none. */
const dmlcl__op_class *dmlcl__op_class_find(dmlcl_operator_type type);

/* ---- host arrays through pinned staging (staging.c) -------------------------------------- */
/* Whether execute_host stages its copies (devices other than CPUs; $DMLCL_HOST_PATH=staged
 * everywhere, which tests use on POCL), the piece's size ($DMLCL_HOST_PATH=staged:BYTES,
 * else 16 MiB), the host's copying threads (dmlcl__host_threads) and which directions
 * copy with streaming stores (dmlcl__host_copy_mode). A malformed variable:
 * INVALID_ARGUMENT naming it. */
typedef struct {
    int staged;
    uint64_t piece;
    int threads;
    int stream_up, stream_down;
} dmlcl__host_plan;
dmlcl_status dmlcl__host_path(const dmlcl_context *c, dmlcl__host_plan *p);
/* A memcpy split over threads that live from start to stop (host_copy.c): `threads` in
 * all, the caller included (0: the CPUs this process may run on, at most 16), or fewer
 * where copies of `largest` bytes cannot use them. */
typedef struct dmlcl__copier dmlcl__copier;
dmlcl_status dmlcl__host_threads(int *threads); /* $DMLCL_HOST_THREADS; 0 for auto */
/* $DMLCL_HOST_COPY: 1 for each direction (host to pinned, pinned to host) that streams. */
dmlcl_status dmlcl__host_copy_mode(int *stream_up, int *stream_down);
dmlcl_status dmlcl__copier_start(dmlcl__copier **c, int threads, uint64_t largest);
/* n bytes, split over the threads; stream: with dmlcl__stream_copy, else memcpy. */
void dmlcl__copier_copy(dmlcl__copier *c, void *dst, const void *src, size_t n, int stream);
/* The same, the calling thread running meanwhile(arg) while the others copy (and copying
 * its part after). */
void dmlcl__copier_copy_while(dmlcl__copier *c, void *dst, const void *src, size_t n,
                              int stream, void (*meanwhile)(void *), void *arg);
void dmlcl__copier_stop(dmlcl__copier *c); /* NULL: nothing */

/* Three pinned buffers of min(piece, largest, the device's buffer limit) bytes, mapped
 * (kept by the context between calls; made as the pieces first need them), and the
 * transfer of each piece in flight. */
#define DMLCL_STAGING_BUFFERS 3
struct dmlcl__pinned { /* the buffers, which the context keeps between calls */
    cl_command_queue queue;
    uint64_t piece;
    cl_mem buf[DMLCL_STAGING_BUFFERS];
    char *host[DMLCL_STAGING_BUFFERS];
};
typedef struct dmlcl__staging {
    dmlcl_context *ctx;
    dmlcl__copier *copier;
    int stream_up, stream_down; /* the plan's */
    uint64_t piece;
    struct dmlcl__pinned *pin;
    cl_event ev[DMLCL_STAGING_BUFFERS];
} dmlcl__staging;
dmlcl_status dmlcl__staging_create(dmlcl_context *c, const dmlcl__host_plan *p,
                                   uint64_t largest, dmlcl__staging *s);
/* The context's kept buffers, made now where missing, for the pieces of a call whose
 * largest array is `largest` bytes (dmlcl_operator_prepare_host). */
dmlcl_status dmlcl__staging_prepare(dmlcl_context *c, const dmlcl__host_plan *p,
                                    uint64_t largest);
/* Waits for the transfers in flight; then frees what create made (also after a failed
 * create), the pinned buffers kept by the context where it keeps none yet. */
void dmlcl__staging_release(dmlcl__staging *s);
/* bytes of src into dst from offset 0, enqueued; the last pieces may still be in flight
 * (enqueue after them: an in-order queue, or a barrier). */
dmlcl_status dmlcl__staging_upload(dmlcl__staging *s, const char *src, cl_mem dst,
                                   uint64_t bytes);
/* bytes of src (from offset 0) into dst once `after` (may be NULL) is complete; blocking. */
dmlcl_status dmlcl__staging_download(dmlcl__staging *s, cl_mem src, cl_event after, char *dst,
                                     uint64_t bytes);
#endif
