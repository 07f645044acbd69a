/* Host arrays (dmlcl_operator_execute_host, doc/api.md "Host arrays"): on a CPU device
 * they are the buffers, at any element-aligned address; an array not aligned to its
 * element, an output overlapping an input, and every array on other devices are copied;
 * every buffer is checked against the device's limits before any is made. The "other
 * device" cases run on POCL with the context's is_cpu cleared (white-box): their arrays go
 * through pinned staging, in pieces that $DMLCL_HOST_PATH=staged:BYTES makes small. */
#include "testutil.h"
#include "core/context.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* REVERSE_SUBSEQUENCES of the spec's first example (rows of 1..12 reversed by 2, 4, 3)
 * with the output's rows out_row elements apart. */
static const uint32_t sizes[4] = {1, 1, 3, 4}, len_sizes[4] = {1, 1, 3, 1};
static const uint32_t lengths[3] = {2, 4, 3};
static const float expect[12] = {2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12};

static dmlcl_operator *make_op(uint32_t out_row)
{
    const uint32_t out_strides[4] = {0, 0, out_row, 1};
    dmlcl_tensor_desc ti = {F32, 4, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 4, len_sizes, NULL, 0};
    dmlcl_tensor_desc to = {F32, 4, sizes, out_strides, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &to, 3};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    return op;
}

static void run(const void *in, void *out)
{
    dmlcl_operator *op = make_op(4);
    const void *ins[2] = {in, lengths};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
}

/* Loop index 0: the CPU device as it is (in place); 1: as a device that copies. */
static void as_device(int i, dmlcl__device_info *saved)
{
    *saved = tu_context()->info;
    tu_context()->info.is_cpu = i == 0;
}

/* Arrays one element past an aligned address (the buffer starts below them), with
 * guards around the output that stay as they were. */
START_TEST(arrays_at_any_element_offset)
{
    dmlcl__device_info saved;
    as_device(_i, &saved);
    float in[13], out[14];
    for (int k = 0; k < 12; k++)
        in[1 + k] = (float)(k + 1);
    for (int k = 0; k < 14; k++)
        out[k] = -1.0f;
    run(in + 1, out + 1);
    tu_context()->info = saved;
    ck_assert_float_eq(out[0], -1.0f);
    ck_assert_float_eq(out[13], -1.0f);
    for (int k = 0; k < 12; k++)
        tu_assert_each(out[1 + k] == expect[k], "out[%d] = %g, expected %g", k, out[1 + k],
                       expect[k]);
}
END_TEST

/* An input at an odd address: not an element's alignment, so it is copied. */
START_TEST(array_off_its_element_alignment)
{
    unsigned char raw[12 * sizeof(float) + 1];
    float in[12], out[12];
    for (int k = 0; k < 12; k++)
        in[k] = (float)(k + 1);
    memcpy(raw + 1, in, sizeof in);
    run(raw + 1, out);
    for (int k = 0; k < 12; k++)
        tu_assert_each(out[k] == expect[k], "out[%d] = %g, expected %g", k, out[k], expect[k]);
}
END_TEST

/* The output is the input's own memory: it is computed in a copy, as if the input were
 * read first. */
START_TEST(output_over_its_input)
{
    float a[12];
    for (int k = 0; k < 12; k++)
        a[k] = (float)(k + 1);
    run(a, a);
    for (int k = 0; k < 12; k++)
        tu_assert_each(a[k] == expect[k], "a[%d] = %g, expected %g", k, a[k], expect[k]);
}
END_TEST

/* A padded output (rows 8 apart: 80 bytes) over CL_DEVICE_MAX_MEM_ALLOC_SIZE, then the
 * copies together (48 + 12 + 80 bytes) over CL_DEVICE_GLOBAL_MEM_SIZE: refused with the
 * tensor and the limit named, before anything is written; in place, no device memory
 * is needed. */
START_TEST(limits_before_any_buffer)
{
    dmlcl_operator *op = make_op(8);
    float in[12] = {0}, out[20];
    memset(out, 0xEE, sizeof out);
    const void *ins[2] = {in, lengths};
    void *outs[1] = {out};
    dmlcl__device_info *info = &tu_context()->info, saved = *info;
    info->is_cpu = 0;
    info->max_mem_alloc = 64;
    tu_assert_fails(dmlcl_operator_execute_host(op, ins, outs), DMLCL_UNSUPPORTED,
                    "reverse_subsequences: outputs[0] needs a buffer of 80 bytes, over this "
                    "device's limit of 64 bytes per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE;");
    info->max_mem_alloc = saved.max_mem_alloc;
    info->global_mem = 100;
    tu_assert_fails(dmlcl_operator_execute_host(op, ins, outs), DMLCL_UNSUPPORTED,
                    "reverse_subsequences: the copies of its host arrays need 140 bytes, over "
                    "this device's memory of 100 bytes (CL_DEVICE_GLOBAL_MEM_SIZE)");
    for (size_t k = 0; k < sizeof out; k++)
        tu_assert_each(((unsigned char *)out)[k] == 0xEE, "out byte %zu was written", k);
    info->is_cpu = 1;
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    *info = saved;
    dmlcl_operator_release(op);
}
END_TEST

/* Staged in pieces of 20 bytes (the last one 8 or 0): the padded output's rows arrive
 * with their padding as it was, the input's 48 bytes in three pieces. */
START_TEST(staged_in_pieces)
{
    dmlcl_operator *op = make_op(8);
    float in[12], out[20];
    for (int k = 0; k < 12; k++)
        in[k] = (float)(k + 1);
    for (int k = 0; k < 20; k++)
        out[k] = -1.0f;
    const void *ins[2] = {in, lengths};
    void *outs[1] = {out};
    setenv("DMLCL_HOST_PATH", "staged:20", 1);
    dmlcl_status st = dmlcl_operator_execute_host(op, ins, outs);
    unsetenv("DMLCL_HOST_PATH");
    tu_assert_ok(st);
    dmlcl_operator_release(op);
    for (int k = 0; k < 20; k++) {
        float want = k % 8 < 4 ? expect[k / 8 * 4 + k % 8] : -1.0f;
        tu_assert_each(out[k] == want, "out[%d] = %g, expected %g", k, out[k], want);
    }
}
END_TEST

/* RESAMPLE1 linear by 1.7 on 5x7x9 values: staged in pieces of 52 bytes (not a multiple
 * of the element, so elements straddle pieces), the bits of the run in place. */
START_TEST(staged_bit_for_bit)
{
    const uint32_t in_sizes[3] = {5, 7, 9}, out_sizes[3] = {8, 11, 15};
    const float scales[3] = {1.7f, 1.7f, 1.7f}, io[3] = {0.5f, 0.5f, 0.5f},
                oo[3] = {-0.5f, -0.5f, -0.5f};
    dmlcl_tensor_desc ti = {F32, 3, in_sizes, NULL, 0}, to = {F32, 3, out_sizes, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 3, scales, io, oo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    dmlcl_operator *op = NULL;
    tu_assert_ok(dmlcl_operator_create(tu_context(), &od, &op));
    float in[5 * 7 * 9], in_place[8 * 11 * 15], staged[8 * 11 * 15];
    uint64_t seed = 7;
    for (int k = 0; k < 5 * 7 * 9; k++)
        in[k] = (float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f;
    const void *ins[1] = {in};
    void *a[1] = {in_place}, *b[1] = {staged};
    tu_assert_ok(dmlcl_operator_execute_host(op, ins, a));
    setenv("DMLCL_HOST_PATH", "staged:52", 1);
    dmlcl_status st = dmlcl_operator_execute_host(op, ins, b);
    unsetenv("DMLCL_HOST_PATH");
    tu_assert_ok(st);
    dmlcl_operator_release(op);
    ck_assert_int_eq(memcmp(in_place, staged, sizeof staged), 0);
}
END_TEST

/* A malformed DMLCL_HOST_PATH is refused by name, before any buffer. */
START_TEST(host_path_variable)
{
    dmlcl_operator *op = make_op(4);
    float in[12] = {0}, out[12];
    const void *ins[2] = {in, lengths};
    void *outs[1] = {out};
    const char *bad[3] = {"staged:0", "stage", "staged:12k"};
    for (int i = 0; i < 3; i++) {
        char msg[128];
        snprintf(msg, sizeof msg, "DMLCL_HOST_PATH must be auto, staged or staged:BYTES "
                                  "(BYTES >= 1), got '%s'", bad[i]);
        setenv("DMLCL_HOST_PATH", bad[i], 1);
        dmlcl_status st = dmlcl_operator_execute_host(op, ins, outs);
        unsetenv("DMLCL_HOST_PATH");
        tu_assert_fails(st, DMLCL_INVALID_ARGUMENT, msg);
    }
    dmlcl_operator_release(op);
}
END_TEST

Suite *host_suite(void)
{
    Suite *s = suite_create("host");
    TCase *tc = tcase_create("host arrays");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, arrays_at_any_element_offset, 0, 2);
    tcase_add_test(tc, array_off_its_element_alignment);
    tcase_add_test(tc, output_over_its_input);
    tcase_add_test(tc, limits_before_any_buffer);
    tcase_add_test(tc, staged_in_pieces);
    tcase_add_test(tc, staged_bit_for_bit);
    tcase_add_test(tc, host_path_variable);
    suite_add_tcase(s, tc);
    return s;
}
