/* The halo query: the input box an output box reads, from the operator's own check and
 * reading rules, with no device and no OpenCL call. */
#include "operator.h"
#include <string.h>

dmlcl_status dmlcl_operator_input_box(const dmlcl_operator_desc *desc,
                                      const uint32_t *output_start,
                                      const uint32_t *output_sizes, uint32_t *input_start,
                                      uint32_t *input_sizes)
{
    static const char *const fn = "dmlcl_operator_input_box";
    if (!desc || !desc->desc)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: desc%s is NULL", fn, desc ? "->desc" : "");
    const void *const ptrs[4] = {output_start, output_sizes, input_start, input_sizes};
    static const char *const names[4] = {"output_start", "output_sizes", "input_start",
                                         "input_sizes"};
    for (int i = 0; i < 4; i++)
        if (!ptrs[i])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s is NULL", fn, names[i]);
    const dmlcl__op_class *cls = dmlcl__op_class_find(desc->type);
    if (!cls)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: desc->type %d is not an operator type", fn, (int)desc->type);
    /* The operator's own check on a context-less operator (so no device rule applies). */
    dmlcl_operator op;
    memset(&op, 0, sizeof op);
    dmlcl__reads r;
    dmlcl_status st = cls->check(&op, desc->desc, &r);
    if (st)
        return st;
    const dmlcl__tensor *out = &op.out[0];
    dmlcl__box ob, ib;
    for (uint32_t d = 0; d < out->rank; d++) {
        if ((uint64_t)output_start[d] + output_sizes[d] > out->sizes[d])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: output box start[%u] + sizes[%u] (%u + %u) must be <= the "
                               "%s's sizes[%u] (%llu)", cls->name, d, d,
                               output_start[d], output_sizes[d], cls->out_field,
                               d, (unsigned long long)out->sizes[d]);
        ob.start[d] = output_start[d];
        ob.size[d] = output_sizes[d];
    }
    cls->input_box(&op, &r, &ob, &ib);
    for (uint32_t d = 0; d < out->rank; d++) {
        input_start[d] = (uint32_t)ib.start[d];
        input_sizes[d] = (uint32_t)ib.size[d];
    }
    return DMLCL_SUCCESS;
}
