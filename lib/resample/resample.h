/* The RESAMPLE family's entry, for lib/operator.c and lib/halo.c. */
#ifndef DMLCL_RESAMPLE_RESAMPLE_H
#define DMLCL_RESAMPLE_RESAMPLE_H
#include "core/op.h"

/* Per-operator constructors: validate (no OpenCL), plan, fetch kernels, fill op. */
dmlcl_status dmlcl__resample1_create(dmlcl_operator *op, const dmlcl_resample1_desc *d);
dmlcl_status dmlcl__resample_create(dmlcl_operator *op, const dmlcl_resample_desc *d);
dmlcl_status dmlcl__resample2_create(dmlcl_operator *op, const dmlcl_resample2_desc *d);
dmlcl_status dmlcl__resample_grad1_create(dmlcl_operator *op,
                                          const dmlcl_resample_grad1_desc *d);
dmlcl_status dmlcl__resample3_create(dmlcl_operator *op, const dmlcl_resample3_desc *d);
#endif
