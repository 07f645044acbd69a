/* Host arrays (dmlcl_operator_execute_host, doc/api.md "Host arrays"): on a CPU device
 * they are the buffers, at any element-aligned address; an array not aligned to its
 * element, an output overlapping an input, and every array on other devices are copied;
 * every buffer is checked against the device's limits before any is made. The "other
 * device" cases run on POCL with the context's is_cpu cleared (white-box): their arrays go
 * through pinned staging, in pieces that $DMLCL_HOST_PATH=staged:BYTES makes small. */
#include "testutil.h"
#include "core/context.h"
#include "operator.h"
#include <pthread.h>
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

/* RESAMPLE1 linear by 1.7 on N^3 values into M^3, its input random, and its output as
 * run in place (the reference of the staged runs). */
typedef struct {
    dmlcl_operator *op;
    float *in, *want;
    size_t in_n, out_n;
} linear_case;

static void linear_make(dmlcl_context *ctx, uint32_t n, uint32_t m, linear_case *c)
{
    const uint32_t in_sizes[3] = {n, n, n}, out_sizes[3] = {m, m, m};
    const float scales[3] = {1.7f, 1.7f, 1.7f}, io[3] = {0.5f, 0.5f, 0.5f},
                oo[3] = {-0.5f, -0.5f, -0.5f};
    dmlcl_tensor_desc ti = {F32, 3, in_sizes, NULL, 0}, to = {F32, 3, out_sizes, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, LINEAR, 3, scales, io, oo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    c->op = NULL;
    tu_assert_ok(dmlcl_operator_create(ctx, &od, &c->op));
    c->in_n = (size_t)n * n * n;
    c->out_n = (size_t)m * m * m;
    c->in = malloc(c->in_n * sizeof(float));
    c->want = malloc(c->out_n * sizeof(float));
    ck_assert(c->in && c->want);
    uint64_t seed = 11 + n;
    for (size_t k = 0; k < c->in_n; k++)
        c->in[k] = (float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f;
    const void *ins[1] = {c->in};
    void *outs[1] = {c->want};
    tu_assert_ok(dmlcl_operator_execute_host(c->op, ins, outs));
}

static void linear_free(linear_case *c)
{
    dmlcl_operator_release(c->op);
    free(c->in);
    free(c->want);
}

/* One staged run of the case: whether its bytes are the in-place run's. */
static int linear_staged_right(const linear_case *c, float *out)
{
    memset(out, 0, c->out_n * sizeof *out);
    const void *ins[1] = {c->in};
    void *outs[1] = {out};
    return dmlcl_operator_execute_host(c->op, ins, outs) == DMLCL_SUCCESS &&
           memcmp(out, c->want, c->out_n * sizeof *out) == 0;
}

/* A context of its own (its kept buffers are the tests' to look at) with two cases: 20^3
 * values into 34^3 (32,000 bytes in, 157,216 out) and 40^3 into 68^3 (256,000 in,
 * 1,257,728 out). */
static dmlcl_context *small_and_big(linear_case *small, linear_case *big)
{
    dmlcl_context *ctx = NULL;
    tu_assert_ok(dmlcl_context_create_default(&ctx));
    linear_make(ctx, 20, 34, small);
    linear_make(ctx, 40, 68, big);
    return ctx;
}

/* 40^3 values into 68^3 (250 KiB in, 1.2 MiB out), staged in pieces of 300,001 bytes that
 * five threads copy in parts (each a multiple of 64 bytes but the last, elements
 * straddling parts and pieces), with streaming stores (the default) and with memcpy: the
 * bits of the run in place. */
START_TEST(staged_on_threads)
{
    linear_case c;
    linear_make(tu_context(), 40, 68, &c);
    float *out = malloc(c.out_n * sizeof *out);
    setenv("DMLCL_HOST_PATH", "staged:300001", 1);
    setenv("DMLCL_HOST_THREADS", "5", 1);
    ck_assert_msg(linear_staged_right(&c, out), "%s", dmlcl_last_error());
    setenv("DMLCL_HOST_COPY", "memcpy", 1);
    ck_assert_msg(linear_staged_right(&c, out), "memcpy: %s", dmlcl_last_error());
    unsetenv("DMLCL_HOST_COPY");
    unsetenv("DMLCL_HOST_THREADS");
    unsetenv("DMLCL_HOST_PATH");
    free(out);
    linear_free(&c);
}
END_TEST

/* The context keeps its pinned buffers for the next staged call, which reuses them, and
 * replaces them when a call asks for smaller pieces; every run right. */
START_TEST(staged_buffers_kept)
{
    dmlcl_context *ctx = NULL;
    tu_assert_ok(dmlcl_context_create_default(&ctx));
    linear_case c;
    linear_make(ctx, 20, 34, &c);
    float *out = malloc(c.out_n * sizeof *out);
    setenv("DMLCL_HOST_PATH", "staged:4096", 1);
    ck_assert_msg(linear_staged_right(&c, out), "%s", dmlcl_last_error());
    struct dmlcl__pinned *kept = ctx->staging_kept;
    ck_assert_ptr_nonnull(kept);
    ck_assert_uint_eq(kept->piece, 4096);
    ck_assert_msg(linear_staged_right(&c, out), "%s", dmlcl_last_error());
    ck_assert_ptr_eq(ctx->staging_kept, kept);
    setenv("DMLCL_HOST_PATH", "staged:1000", 1);
    ck_assert_msg(linear_staged_right(&c, out), "%s", dmlcl_last_error());
    unsetenv("DMLCL_HOST_PATH");
    ck_assert_ptr_nonnull(ctx->staging_kept);
    ck_assert_uint_eq(ctx->staging_kept->piece, 1000);
    free(out);
    linear_free(&c);
    dmlcl_context_release(ctx); /* frees the kept buffers (LeakSanitizer's runs check) */
}
END_TEST

/* Pinned buffers are made as the pieces first need them, the next one while the host's
 * threads fill this one: a call of one piece each way makes one; a later call of more
 * pieces (2 in, 8 out) makes the other two beside the one the context kept. Every run
 * right. */
START_TEST(staged_buffers_made_when_needed)
{
    linear_case small, big;
    dmlcl_context *ctx = small_and_big(&small, &big);
    float *out = malloc(big.out_n * sizeof *out);
    setenv("DMLCL_HOST_PATH", "staged:200000", 1);
    setenv("DMLCL_HOST_THREADS", "3", 1);
    ck_assert_msg(linear_staged_right(&small, out), "%s", dmlcl_last_error());
    struct dmlcl__pinned *kept = ctx->staging_kept;
    ck_assert_ptr_nonnull(kept);
    ck_assert_uint_eq(kept->piece, 157216); /* the larger array: one piece */
    ck_assert_ptr_nonnull(kept->host[0]);
    ck_assert_ptr_null(kept->host[1]);
    ck_assert_ptr_null(kept->host[2]);
    setenv("DMLCL_HOST_PATH", "staged:157216", 1);
    ck_assert_msg(linear_staged_right(&big, out), "%s", dmlcl_last_error());
    ck_assert_ptr_eq(ctx->staging_kept, kept);
    for (int k = 0; k < DMLCL_STAGING_BUFFERS; k++)
        ck_assert_ptr_nonnull(kept->host[k]);
    unsetenv("DMLCL_HOST_THREADS");
    unsetenv("DMLCL_HOST_PATH");
    free(out);
    linear_free(&small);
    linear_free(&big);
    dmlcl_context_release(ctx);
}
END_TEST

/* Prepared ahead (dmlcl_operator_prepare_host): the buffers that the call's pieces use are
 * pinned and kept by the context before the call, which pins none and is right; as many
 * as the largest array has pieces, up to three. Where nothing is staged (a CPU device in
 * place) there is nothing to prepare. */
START_TEST(staged_prepared_ahead)
{
    linear_case small, big;
    dmlcl_context *ctx = small_and_big(&small, &big);
    tu_assert_ok(dmlcl_operator_prepare_host(big.op));
    if (ctx->info.is_cpu) /* in place: nothing (a GPU keeps linear_make's buffers) */
        ck_assert_ptr_null(ctx->staging_kept);
    setenv("DMLCL_HOST_PATH", "staged:200000", 1);
    tu_assert_ok(dmlcl_operator_prepare_host(small.op));
    struct dmlcl__pinned *kept = ctx->staging_kept;
    ck_assert_ptr_nonnull(kept);
    ck_assert_uint_eq(kept->piece, 157216); /* one piece: one buffer */
    ck_assert_ptr_nonnull(kept->host[0]);
    ck_assert_ptr_null(kept->host[1]);
    tu_assert_ok(dmlcl_operator_prepare_host(big.op)); /* 7 pieces: all three */
    ck_assert_ptr_nonnull(kept = ctx->staging_kept);
    ck_assert_uint_eq(kept->piece, 200000);
    char *host[DMLCL_STAGING_BUFFERS];
    for (int k = 0; k < DMLCL_STAGING_BUFFERS; k++)
        ck_assert_ptr_nonnull(host[k] = kept->host[k]);
    float *out = malloc(big.out_n * sizeof *out);
    ck_assert_msg(linear_staged_right(&big, out), "%s", dmlcl_last_error());
    ck_assert_ptr_eq(ctx->staging_kept, kept); /* the same buffers, none made */
    for (int k = 0; k < DMLCL_STAGING_BUFFERS; k++)
        ck_assert_ptr_eq(kept->host[k], host[k]);
    tu_assert_ok(dmlcl_operator_prepare_host(big.op)); /* ready already: kept as it is */
    ck_assert_ptr_eq(ctx->staging_kept, kept);
    setenv("DMLCL_HOST_PATH", "stage", 1);
    tu_assert_fails(dmlcl_operator_prepare_host(big.op), DMLCL_INVALID_ARGUMENT,
                    "DMLCL_HOST_PATH must be auto, staged or staged:BYTES (BYTES >= 1), got "
                    "'stage'");
    unsetenv("DMLCL_HOST_PATH");
    tu_assert_fails(dmlcl_operator_prepare_host(NULL), DMLCL_INVALID_ARGUMENT,
                    "dmlcl_operator_prepare_host: op is NULL");
    free(out);
    linear_free(&small);
    linear_free(&big);
    dmlcl_context_release(ctx);
}
END_TEST

/* Four threads stage on one context at once, 12 calls each: the kept buffers go to one
 * call at a time, the others make their own; every run right. */
typedef struct {
    const linear_case *c;
    int wrong;
    char error[256];
} stager;

static void *stage_often(void *arg)
{
    stager *w = arg;
    float *out = malloc(w->c->out_n * sizeof *out);
    for (int i = 0; i < 12 && out; i++)
        if (!linear_staged_right(w->c, out) && !w->wrong++)
            snprintf(w->error, sizeof w->error, "%s", dmlcl_last_error());
    w->wrong += !out;
    free(out);
    return NULL;
}

START_TEST(staged_from_threads)
{
    dmlcl_context *ctx = NULL;
    tu_assert_ok(dmlcl_context_create_default(&ctx));
    linear_case c;
    linear_make(ctx, 20, 34, &c);
    setenv("DMLCL_HOST_PATH", "staged:8192", 1);
    pthread_t t[4];
    stager w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (stager){&c, 0, ""};
        ck_assert_int_eq(pthread_create(&t[i], NULL, stage_often, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    unsetenv("DMLCL_HOST_PATH");
    for (int i = 0; i < 4; i++)
        ck_assert_msg(w[i].wrong == 0, "thread %d: %d wrong runs, first: %s", i, w[i].wrong,
                      w[i].error);
    linear_free(&c);
    dmlcl_context_release(ctx);
}
END_TEST

/* A malformed DMLCL_HOST_PATH, DMLCL_HOST_THREADS or DMLCL_HOST_COPY is refused by name, before any
 * buffer, on every device (whether or not it stages). */
START_TEST(host_variables)
{
    static const struct {
        const char *var, *value, *rule;
    } bad[] = {
        {"DMLCL_HOST_PATH", "staged:0", "auto, staged or staged:BYTES (BYTES >= 1)"},
        {"DMLCL_HOST_PATH", "stage", "auto, staged or staged:BYTES (BYTES >= 1)"},
        {"DMLCL_HOST_PATH", "staged:12k", "auto, staged or staged:BYTES (BYTES >= 1)"},
        {"DMLCL_HOST_THREADS", "0", "auto or a number of threads from 1 to 64"},
        {"DMLCL_HOST_THREADS", "65", "auto or a number of threads from 1 to 64"},
        {"DMLCL_HOST_THREADS", "4x", "auto or a number of threads from 1 to 64"},
        {"DMLCL_HOST_THREADS", "-1", "auto or a number of threads from 1 to 64"},
        {"DMLCL_HOST_COPY", "nt", "auto, stream, stream-upload, stream-download or memcpy"},
        {"DMLCL_HOST_COPY", "Stream", "auto, stream, stream-upload, stream-download or memcpy"},
    };
    dmlcl_operator *op = make_op(4);
    float in[12] = {0}, out[12];
    const void *ins[2] = {in, lengths};
    void *outs[1] = {out};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s must be %s, got '%s'", bad[i].var, bad[i].rule,
                 bad[i].value);
        setenv(bad[i].var, bad[i].value, 1);
        dmlcl_status st = dmlcl_operator_execute_host(op, ins, outs);
        unsetenv(bad[i].var);
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
    tcase_add_test(tc, staged_on_threads);
    tcase_add_test(tc, staged_buffers_kept);
    tcase_add_test(tc, staged_buffers_made_when_needed);
    tcase_add_test(tc, staged_prepared_ahead);
    tcase_add_test(tc, staged_from_threads);
    tcase_add_test(tc, host_variables);
    suite_add_tcase(s, tc);
    return s;
}
