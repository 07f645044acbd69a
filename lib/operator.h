/* The operator classes' table (operator.c), for the top floor's other files (halo.c). */
#ifndef DMLCL_OPERATOR_H
#define DMLCL_OPERATOR_H
#include "core/op.h"

/* The class of an operator type; NULL for a type that is none. */
const dmlcl__op_class *dmlcl__op_class_find(dmlcl_operator_type type);
#endif
