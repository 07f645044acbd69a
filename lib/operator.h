/* The operator classes' table (operator.c), for the top floor's other files (input_box.c,
 * host.c), and the host path's pinned staging (staging.c). */
#ifndef DMLCL_OPERATOR_H
#define DMLCL_OPERATOR_H
#include "core/op.h"

/* The class of an operator type; NULL for a type that is none. */
const dmlcl__op_class *dmlcl__op_class_find(dmlcl_operator_type type);

/* ---- host arrays through pinned staging (staging.c) -------------------------------------- */
/* Whether execute_host stages its copies (devices other than CPUs; $DMLCL_HOST_PATH=staged
 * everywhere, which tests use on POCL) and the piece's size ($DMLCL_HOST_PATH=staged:BYTES,
 * else 16 MiB). A malformed variable: INVALID_ARGUMENT naming it. */
dmlcl_status dmlcl__host_path(const dmlcl_context *c, int *staged, uint64_t *piece);
/* Two pinned buffers of min(piece, largest, the device's buffer limit) bytes, mapped, and
 * the transfer of each piece in flight. */
typedef struct dmlcl__staging {
    cl_command_queue queue;
    uint64_t piece;
    cl_mem buf[2];
    char *host[2];
    cl_event ev[2];
} dmlcl__staging;
dmlcl_status dmlcl__staging_create(dmlcl_context *c, uint64_t piece, uint64_t largest,
                                   dmlcl__staging *s);
/* Waits for the transfers in flight; then frees what create made (also after a failed
 * create). */
void dmlcl__staging_release(dmlcl__staging *s);
/* bytes of src into dst from offset 0, enqueued; the last pieces may still be in flight
 * (enqueue after them: an in-order queue, or a barrier). */
dmlcl_status dmlcl__staging_upload(dmlcl__staging *s, const char *src, cl_mem dst,
                                   uint64_t bytes);
/* bytes of src (from offset 0) into dst once `after` (may be NULL) is complete; blocking. */
dmlcl_status dmlcl__staging_download(dmlcl__staging *s, cl_mem src, cl_event after, char *dst,
                                     uint64_t bytes);
#endif
