/* Slabs (slabs.c, core/slab.h): an operator too large for 32-bit index arithmetic made of
 * parts, one per slab of its output. Asks only the operator class (core/op.h). */
#ifndef DMLCL_SLABS_H
#define DMLCL_SLABS_H
#include "core/op.h"

/* Where op's tensors (checked by cls's check, found c) pass the class's slab bound, creates
 * op from parts, one per slab, each an operator of cls on its boxes, and sets *made (the
 * status is the parts' creation's); else *made = 0 and op is left to cls's create. */
dmlcl_status dmlcl__slabs_create(dmlcl_operator *op, const dmlcl__op_class *cls,
                                 const void *desc, const dmlcl__checked *c, int *made);
#endif
