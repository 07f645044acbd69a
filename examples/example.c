/* dmlcl from C: REVERSE_SUBSEQUENCES on host arrays, the shortest complete program.
 *
 * Build against an installed dmlcl with nothing but pkg-config:
 *     cc example.c $(pkg-config --cflags --libs dmlcl) -o example && ./example
 * The device is $DMLCL_DEVICE if set (gpu, cpu, P:D or a name substring), else the first
 * GPU, else the first CPU. Exit status 0 when the output is the expected one. */
#include <dmlcl.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    /* A 3x4 matrix; along axis 1, reverse the first 2, 4 and 3 elements of rows 0, 1, 2. */
    const uint32_t sizes[2] = {3, 4}, length_sizes[2] = {3, 1};
    const float input[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const uint32_t lengths[3] = {2, 4, 3};
    const float expected[12] = {2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12};
    float output[12] = {0};

    /* Descriptors: NULL strides = packed row-major; size 0 = computed. */
    dmlcl_tensor_desc matrix = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL, 0};
    dmlcl_tensor_desc lens = {DMLCL_TENSOR_DATA_TYPE_UINT32, 2, length_sizes, NULL, 0};
    dmlcl_reverse_subsequences_desc reverse = {&matrix, &lens, &matrix, 1};
    dmlcl_operator_desc desc = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &reverse};

    dmlcl_context *ctx = NULL;
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_context_create_default(&ctx);
    if (st == DMLCL_SUCCESS)
        st = dmlcl_operator_create(ctx, &desc, &op); /* validates, then compiles or reuses */
    if (st == DMLCL_SUCCESS) {
        const void *inputs[2] = {input, lengths};
        void *outputs[1] = {output};
        st = dmlcl_operator_execute_host(op, inputs, outputs); /* blocking */
    }
    if (st != DMLCL_SUCCESS) {
        /* Every failure names the operator, the field and the rule broken. */
        fprintf(stderr, "example: %s: %s\n", dmlcl_status_string(st), dmlcl_last_error());
        dmlcl_operator_release(op);
        dmlcl_context_release(ctx);
        return 1;
    }
    printf("dmlcl %s, REVERSE_SUBSEQUENCES along axis 1, lengths {2, 4, 3}:\n", dmlcl_version());
    for (int i = 0; i < 12; i++)
        printf("%3g%s", output[i], i % 4 == 3 ? "\n" : " ");
    dmlcl_operator_release(op);
    dmlcl_context_release(ctx);
    return memcmp(output, expected, sizeof output) ? 1 : 0;
}
