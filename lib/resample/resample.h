/* The RESAMPLE family's entry: its operator classes (operators.c), for lib/operator.c. */
#ifndef DMLCL_RESAMPLE_RESAMPLE_H
#define DMLCL_RESAMPLE_RESAMPLE_H
#include "core/op.h"

extern const dmlcl__op_class dmlcl__resample1_class, dmlcl__resample_class,
    dmlcl__resample2_class, dmlcl__resample3_class, dmlcl__resample_grad1_class;
#endif
