/* The halo query: the input box an output box reads, from the operator's own check and
 * reading rules, with no device and no OpenCL call. */
#include "resample/family.h"
#include "reverse/reverse.h"
#include <string.h>

/* Runs the operator's check on a context-less operator (so no device rule applies) and
 * says what it reads: the RESAMPLE family's map, or (reverse) its axis. */
static dmlcl_status check(dmlcl_operator *op, const dmlcl_operator_desc *desc,
                          dmlcl__resample_map *m, int64_t *axis)
{
    *axis = -1;
    switch (desc->type) {
    case DMLCL_OPERATOR_REVERSE_SUBSEQUENCES:
        *axis = ((const dmlcl_reverse_subsequences_desc *)desc->desc)->axis;
        return dmlcl__reverse_subsequences_check(op, desc->desc);
    case DMLCL_OPERATOR_RESAMPLE1:
        return dmlcl__resample1_check(op, desc->desc, m);
    case DMLCL_OPERATOR_RESAMPLE:
        return dmlcl__resample_check(op, desc->desc, m);
    case DMLCL_OPERATOR_RESAMPLE2:
        return dmlcl__resample2_check(op, desc->desc, m);
    case DMLCL_OPERATOR_RESAMPLE_GRAD1:
        return dmlcl__resample_grad1_check(op, desc->desc, m);
    case DMLCL_OPERATOR_RESAMPLE3:
        return dmlcl__resample3_check(op, desc->desc, m);
    default:
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "dmlcl_operator_input_box: desc->type %d is not an operator type",
                           (int)desc->type);
    }
}

/* The operator's name for messages, from its check's first message-worthy field. */
static const char *name_of(dmlcl_operator_type t)
{
    switch (t) {
    case DMLCL_OPERATOR_REVERSE_SUBSEQUENCES: return "reverse_subsequences";
    case DMLCL_OPERATOR_RESAMPLE1: return "resample1";
    case DMLCL_OPERATOR_RESAMPLE: return "resample";
    case DMLCL_OPERATOR_RESAMPLE2: return "resample2";
    case DMLCL_OPERATOR_RESAMPLE_GRAD1: return "resample_grad1";
    default: return "resample3";
    }
}

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
    dmlcl_operator op;
    memset(&op, 0, sizeof op);
    dmlcl__resample_map m;
    int64_t axis;
    dmlcl_status st = check(&op, desc, &m, &axis);
    if (st)
        return st;
    const dmlcl__tensor *out = &op.out[0];
    dmlcl__box ob, ib;
    for (uint32_t d = 0; d < out->rank; d++) {
        if ((uint64_t)output_start[d] + output_sizes[d] > out->sizes[d])
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: output box start[%u] + sizes[%u] (%u + %u) must be <= the "
                               "%s's sizes[%u] (%llu)", name_of(desc->type), d, d,
                               output_start[d], output_sizes[d],
                               desc->type == DMLCL_OPERATOR_RESAMPLE_GRAD1
                                   ? "output_gradient_tensor" : "output_tensor",
                               d, (unsigned long long)out->sizes[d]);
        ob.start[d] = output_start[d];
        ob.size[d] = output_sizes[d];
    }
    if (axis < 0) {
        dmlcl__resample_input_box(&op, &m, &ob, &ib);
    } else { /* a sequence reads its whole line: the box with the whole axis */
        ib = ob;
        int empty = 0;
        for (uint32_t d = 0; d < out->rank; d++)
            empty |= ob.size[d] == 0;
        ib.start[axis] = 0;
        ib.size[axis] = out->sizes[axis];
        for (uint32_t d = 0; d < out->rank && empty; d++)
            ib.start[d] = ib.size[d] = 0;
    }
    for (uint32_t d = 0; d < out->rank; d++) {
        input_start[d] = (uint32_t)ib.start[d];
        input_sizes[d] = (uint32_t)ib.size[d];
    }
    return DMLCL_SUCCESS;
}
