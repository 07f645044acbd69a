/* The operator classes' table (operator.c), for the top floor's other files (halo.c,
 * slabs.c), and the slabs' creation (slabs.c). */
#ifndef DMLCL_OPERATOR_H
#define DMLCL_OPERATOR_H
#include "core/op.h"

/* The class of an operator type; NULL for a type that is none. */
const dmlcl__op_class *dmlcl__op_class_find(dmlcl_operator_type type);
/* Slabs (slabs.c, core/slab.h): where op's tensors (checked here by cls's check) pass the
 * slab bound, creates op from parts, one per slab, each an operator of cls on its boxes,
 * and sets *made (the status is the parts' creation's); else *made = 0 and op is left to
 * cls's create. */
dmlcl_status dmlcl__slabs_create(dmlcl_operator *op, const dmlcl__op_class *cls,
                                 const void *desc, int *made);
#endif
