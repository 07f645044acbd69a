/* REVERSE_SUBSEQUENCES' rules and reads (validate.c), for its own folder. */
#ifndef DMLCL_REVERSE_VALIDATE_H
#define DMLCL_REVERSE_VALIDATE_H
#include "core/op.h"

/* Every rule, before any OpenCL call (op->ctx may be NULL: no device rules). Fills op->in
 * and op->out, tiles placed from op->tile_in / tile_out. */
dmlcl_status dmlcl__reverse_subsequences_check(dmlcl_operator *op,
                                               const dmlcl_reverse_subsequences_desc *d);
/* The class's check and input_box (core/op.h). */
dmlcl_status dmlcl__reverse_subsequences_reads(dmlcl_operator *op, const void *desc,
                                               dmlcl__reads *r);
void dmlcl__reverse_subsequences_input_range(const dmlcl_operator *op, const dmlcl__reads *r,
                                             uint32_t d, uint64_t a, uint64_t b, uint64_t *lo,
                                             uint64_t *hi);
void dmlcl__reverse_subsequences_input_box(const dmlcl_operator *op, const dmlcl__reads *r,
                                           const dmlcl__box *out, dmlcl__box *in);
#endif
