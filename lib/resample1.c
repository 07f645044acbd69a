/* RESAMPLE1: TEMPORARY until the RESAMPLE1 issue lands: validates nothing, unsupported. */
#include "internal.h"

dmlcl_status dmlcl__resample1_create(dmlcl_operator *op, const dmlcl_resample1_desc *d)
{
    return dmlcl__fail(DMLCL_UNSUPPORTED, "resample1: not implemented yet");
}

dmlcl_status dmlcl__resample_create(dmlcl_operator *op, const dmlcl_resample_desc *d)
{
    return dmlcl__fail(DMLCL_UNSUPPORTED, "resample: not implemented yet");
}
