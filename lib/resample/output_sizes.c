/* dmlcl_resample_output_sizes: the output shape that scales give, by the rules the
 * operators check (the tensor size rule, the scale rule), so that callers stop
 * re-implementing it. */
#include "resample/family.h"
#include <math.h>

dmlcl_status dmlcl_resample_output_sizes(uint32_t dimension_count, const uint32_t *input_sizes,
                                         const float *scales, uint32_t *output_sizes)
{
    const char *name = "dmlcl_resample_output_sizes";
    dmlcl_tensor_desc d = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, dimension_count, input_sizes, NULL, 0};
    dmlcl__tensor t;
    dmlcl_status st;
    if ((st = dmlcl__tensor_check(name, "input", &d, &t)) ||
        (st = dmlcl__resample_check_values(name, "scales", scales, dimension_count, 1)))
        return st;
    if (!output_sizes)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: output_sizes is NULL", name);
    float m[DMLCL_MAXDIM];
    for (uint32_t i = 0; i < dimension_count; i++) {
        /* The product in float32, as ONNX Runtime computes it: 10 x 0.7f is 7, where double
         * arithmetic gives 6. */
        m[i] = floorf((float)input_sizes[i] * scales[i]);
        if (!(m[i] >= 1 && m[i] < 4294967296.0f))
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: output size of dimension %u is floor(%u x %g) = %.0f, outside "
                               "1 to 4294967295",
                               name, i, input_sizes[i], (double)scales[i], (double)m[i]);
    }
    for (uint32_t i = 0; i < dimension_count; i++) /* nothing written on failure */
        output_sizes[i] = (uint32_t)m[i];
    return DMLCL_SUCCESS;
}
