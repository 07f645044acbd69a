/* Threads: 8 threads share one OpenCL context. Each creates operators of overlapping
 * variants (racing on the program cache) and runs them, on its own queue (odd threads) or
 * on the shared dmlcl context's queue (even threads); every result is checked. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define ITERATIONS 1000

typedef struct {
    dmlcl_context *ctx; /* the thread's context: own queue, or the shared one */
    int id;
    int failures;
    char first_error[256];
} worker;

static const dmlcl_tensor_data_type types[4] = {
    DMLCL_TENSOR_DATA_TYPE_UINT8, DMLCL_TENSOR_DATA_TYPE_INT16, DMLCL_TENSOR_DATA_TYPE_FLOAT32,
    DMLCL_TENSOR_DATA_TYPE_INT64};

static void note(worker *w, const char *what)
{
    if (w->failures++ == 0)
        snprintf(w->first_error, sizeof w->first_error, "%s: %s", what, dmlcl_last_error());
}

/* One iteration: a rows x cols reverse along the columns with per-row lengths. */
static void iterate(worker *w, uint64_t *rng)
{
    dmlcl_tensor_data_type type = types[tu_range(rng, 0, 3)];
    uint32_t es = dmlcl_data_type_size(type);
    uint32_t rows = (uint32_t)tu_range(rng, 1, 6), cols = (uint32_t)tu_range(rng, 1, 40);
    const uint32_t sizes[2] = {rows, cols}, len_sizes[2] = {rows, 1};
    unsigned char in[6 * 40 * 8], out[6 * 40 * 8];
    uint64_t lens[6];
    for (size_t k = 0; k < rows * cols * es; k++)
        in[k] = (unsigned char)tu_rand(rng);
    for (uint32_t r = 0; r < rows; r++)
        lens[r] = tu_range(rng, 0, cols + 2);
    dmlcl_tensor_desc ti = {type, 2, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT64, 2, len_sizes, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    const void *ins[2] = {in, lens};
    void *outs[1] = {out};
    if (dmlcl_operator_create(w->ctx, &od, &op) != DMLCL_SUCCESS)
        return note(w, "create");
    if (dmlcl_operator_execute_host(op, ins, outs) != DMLCL_SUCCESS) {
        dmlcl_operator_release(op);
        return note(w, "execute");
    }
    dmlcl_operator_release(op);
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++) {
            uint64_t l = lens[r] < cols ? lens[r] : cols;
            uint32_t src = c < l ? (uint32_t)(l - 1 - c) : c;
            if (memcmp(out + (r * cols + c) * es, in + (r * cols + src) * es, es))
                return note(w, "wrong result");
        }
}

static void *run_worker(void *p)
{
    worker *w = p;
    uint64_t rng = 0x7eed + (uint64_t)w->id;
    for (int i = 0; i < ITERATIONS; i++)
        iterate(w, &rng);
    return NULL;
}

START_TEST(eight_threads_thousand_iterations)
{
    /* A fresh cl_context so that the variants start cold and the threads race to build. */
    dmlcl_context *shared = NULL;
    tu_assert_ok(dmlcl_context_create_default(&shared));
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){shared, i, 0, ""};
        if (i % 2)
            tu_assert_ok(dmlcl_context_create(dmlcl_context_cl_context(shared),
                                              dmlcl_context_device(shared), NULL, &w[i].ctx));
    }
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, run_worker, &w[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        ck_assert_msg(w[i].failures == 0, "thread %d: %d failures, first: %s", i, w[i].failures,
                      w[i].first_error);
        if (i % 2)
            dmlcl_context_release(w[i].ctx);
    }
    dmlcl_context_release(shared);
}
END_TEST

Suite *threads_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("shared context");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, eight_threads_thousand_iterations);
    suite_add_tcase(s, tc);
    return s;
}
