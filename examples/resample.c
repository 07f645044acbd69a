/* dmlcl from C: a 2x3 image resampled 2x with linear interpolation, its output sized by
 * the library's own rule (dmlcl_resample_output_sizes).
 *
 * Build against an installed dmlcl with nothing but pkg-config:
 *     cc resample.c $(pkg-config --cflags --libs dmlcl) -o resample && ./resample
 * The device is $DMLCL_DEVICE if set (gpu, cpu, P:D or a name substring), else the first
 * GPU, else the first CPU. Exit status 0 when the output is the expected one. */
#include <dmlcl.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    const uint32_t in_sizes[2] = {2, 3};
    const float scales[2] = {2, 2}, image[6] = {1, 2, 3, 4, 5, 6};
    uint32_t out_sizes[2];
    /* floor(float32(n) x scale) per dimension: {4, 6}. */
    if (dmlcl_resample_output_sizes(2, in_sizes, scales, out_sizes)) {
        fprintf(stderr, "resample: %s\n", dmlcl_last_error());
        return 1;
    }
    uint32_t n = out_sizes[0] * out_sizes[1];
    float *out = malloc(n * sizeof *out);

    /* RESAMPLE samples pixel centres: output pixel o reads input (o + 0.5) / 2 - 0.5. */
    dmlcl_tensor_desc in = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL, 0};
    dmlcl_tensor_desc big = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, out_sizes, NULL, 0};
    dmlcl_resample_desc rd = {&in, &big, DMLCL_INTERPOLATION_MODE_LINEAR, 2, scales};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE, &rd};

    dmlcl_context *ctx = NULL;
    dmlcl_operator *op = NULL;
    const void *inputs[1] = {image};
    void *outputs[1] = {out};
    if (!out || dmlcl_context_create_default(&ctx) || dmlcl_operator_create(ctx, &od, &op) ||
        dmlcl_operator_execute_host(op, inputs, outputs)) {
        fprintf(stderr, "resample: %s\n", out ? dmlcl_last_error() : "out of memory");
        return 1;
    }
    /* The image is 1 + 3 row + column, which linear interpolation keeps: rows 0, .25,
     * .75, 1 and columns 0, .25, .75, 1.25, 1.75, 2 (clamped at the edges). */
    const float row[4] = {0, 0.25f, 0.75f, 1}, col[6] = {0, 0.25f, 0.75f, 1.25f, 1.75f, 2};
    int wrong = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = i / out_sizes[1], c = i % out_sizes[1];
        float error = out[i] - (1 + 3 * row[r] + col[c]);
        wrong |= error > 1e-5f || error < -1e-5f;
        printf("%5.2f%c", out[i], c + 1 == out_sizes[1] ? '\n' : ' ');
    }
    free(out);
    dmlcl_operator_release(op);
    dmlcl_context_release(ctx);
    return wrong;
}
