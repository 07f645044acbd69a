/* The planner tests' tensors, built by hand as dmlcl__tensor_check would build them (NULL
 * strides: packed), so that the planners run without OpenCL. */
#ifndef DMLCL_TESTS_PLANTENSOR_H
#define DMLCL_TESTS_PLANTENSOR_H
#include "core/plan.h"
#include <string.h>

static inline dmlcl__tensor plan_tensor(uint32_t rank, const uint64_t *sizes,
                                        const uint64_t *strides, dmlcl_tensor_data_type type,
                                        uint32_t elem)
{
    dmlcl__tensor t;
    memset(&t, 0, sizeof t);
    t.type = type;
    t.rank = rank;
    t.elem_size = elem;
    t.elements = 1;
    t.span = 1;
    uint64_t packed = 1;
    for (int d = (int)rank - 1; d >= 0; d--) {
        t.sizes[d] = sizes[d];
        t.strides[d] = strides ? strides[d] : packed;
        packed *= sizes[d];
    }
    for (uint32_t d = 0; d < rank; d++) {
        t.elements *= t.sizes[d];
        t.span += (t.sizes[d] - 1) * t.strides[d];
    }
    t.span_bytes = t.span * elem;
    for (uint32_t d = 0; d < DMLCL_TENSOR_DIMENSION_COUNT_MAX; d++)
        t.whole[d] = d < rank ? sizes[d] : 1; /* a whole tensor, not a tile */
    return t;
}
#endif
