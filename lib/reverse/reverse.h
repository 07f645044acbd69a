/* The REVERSE_SUBSEQUENCES family's entry, for lib/operator.c and lib/halo.c. */
#ifndef DMLCL_REVERSE_REVERSE_H
#define DMLCL_REVERSE_REVERSE_H
#include "core/op.h"

/* Validates (no OpenCL), plans, fetches the kernel and fills op. */
dmlcl_status dmlcl__reverse_subsequences_create(dmlcl_operator *op,
                                                const dmlcl_reverse_subsequences_desc *d);
/* The operator's rules, before any OpenCL call (op->ctx may be NULL: the halo query). */
dmlcl_status dmlcl__reverse_subsequences_check(dmlcl_operator *op,
                                               const dmlcl_reverse_subsequences_desc *d);
#endif
