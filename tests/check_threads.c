/* Threads: 8 threads share one OpenCL context. Each creates operators of overlapping
 * variants (racing on the program cache) and runs them, on its own queue (odd threads) or
 * on the shared dmlcl context's queue (even threads); every result is checked. */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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


/* ---- POCL before 7.0: launches of one kernel in order (lib/core/kernel_order.c) ----- */

/* Whether the test device is a POCL CPU device before 7.0, whose launches of one kernel
 * the library orders. */
static int pocl_before_7(dmlcl_context *c)
{
    cl_platform_id plat = NULL;
    char version[256] = "";
    cl_device_type type = 0;
    clGetDeviceInfo(dmlcl_context_device(c), CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    clGetDeviceInfo(dmlcl_context_device(c), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof version - 1, version, NULL);
    const char *p = strstr(version, "PoCL ");
    return (type & CL_DEVICE_TYPE_CPU) && p && atoi(p + 5) < 7;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* An 8x8 uint8 reverse along axis 1 in c, on its device buffers. */
typedef struct {
    dmlcl_operator *op;
    tu_devbuf in, len, out;
} small_reverse;

static const uint32_t small_sizes[2] = {8, 8}, small_len_sizes[2] = {8, 1};
static const dmlcl_tensor_desc small_t = {U8, 2, small_sizes, NULL, 0};
static const dmlcl_tensor_desc small_l = {DMLCL_TENSOR_DATA_TYPE_UINT32, 2, small_len_sizes,
                                          NULL, 0};
static const dmlcl_reverse_subsequences_desc small_rd = {&small_t, &small_l, &small_t, 1};
static const dmlcl_operator_desc small_reverse_desc = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES,
                                                       &small_rd};

static small_reverse small_reverse_new(dmlcl_context *c)
{
    unsigned char in[64];
    uint32_t lens[8] = {8, 8, 8, 8, 8, 8, 8, 8};
    for (int i = 0; i < 64; i++)
        in[i] = (unsigned char)i;
    small_reverse r = {NULL, tu_devbuf_new(64, 0, in), tu_devbuf_new(32, 0, lens),
                       tu_devbuf_new(64, 0, NULL)};
    tu_assert_ok(dmlcl_operator_create(c, &small_reverse_desc, &r.op));
    return r;
}

static void small_reverse_enqueue(small_reverse *r, cl_uint nwait, const cl_event *wait,
                                  cl_event *ev)
{
    dmlcl_buffer_binding ins[2] = {{r->in.mem, r->in.offset, 64}, {r->len.mem, r->len.offset, 32}};
    dmlcl_buffer_binding outs[1] = {{r->out.mem, r->out.offset, 64}};
    tu_assert_ok(dmlcl_operator_enqueue(r->op, ins, 2, outs, 1, nwait, wait, ev));
}

static void small_reverse_free(small_reverse *r)
{
    dmlcl_operator_release(r->op);
    tu_devbuf_free(&r->in), tu_devbuf_free(&r->len), tu_devbuf_free(&r->out);
}

static cl_int status_of(cl_event e)
{
    cl_int s = CL_QUEUED;
    clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL);
    return s;
}

/* A launch on one queue that waits (for a user event) holds back a launch of the same
 * kernel on another queue of the context until it has run: the second must not complete
 * while the first cannot start. Without the order, POCL runs it at once. */
START_TEST(one_kernel_two_queues_in_order)
{
    dmlcl_context *a = tu_context(), *b = NULL;
    if (!pocl_before_7(a)) {
        printf("threads: not a POCL CPU device before 7.0: launches are not ordered\n");
        return;
    }
    tu_assert_ok(dmlcl_context_create(dmlcl_context_cl_context(a), dmlcl_context_device(a),
                                      NULL, &b));
    small_reverse ra = small_reverse_new(a), rb = small_reverse_new(b);
    cl_event warm;
    small_reverse_enqueue(&rb, 0, NULL, &warm); /* POCL builds its machine code now */
    clWaitForEvents(1, &warm);
    clReleaseEvent(warm);

    cl_int err;
    cl_event gate = clCreateUserEvent(dmlcl_context_cl_context(a), &err), ea, eb;
    ck_assert_int_eq(err, CL_SUCCESS);
    small_reverse_enqueue(&ra, 1, &gate, &ea);
    small_reverse_enqueue(&rb, 0, NULL, &eb);
    clFlush(dmlcl_context_queue(a)), clFlush(dmlcl_context_queue(b));
    double t0 = now_ms();
    while (now_ms() - t0 < 200 && status_of(eb) != CL_COMPLETE)
        ;
    cl_int early = status_of(eb);
    clSetUserEventStatus(gate, CL_COMPLETE);
    ck_assert_int_eq(clWaitForEvents(1, &eb), CL_SUCCESS);
    ck_assert_int_eq(status_of(ea), CL_COMPLETE);
    ck_assert_msg(early != CL_COMPLETE, "the second queue's launch completed while the first "
                                        "queue's launch of the same kernel waited");
    clReleaseEvent(gate), clReleaseEvent(ea), clReleaseEvent(eb);
    small_reverse_free(&ra), small_reverse_free(&rb);
    dmlcl_context_release(b);
}
END_TEST

typedef struct {
    cl_event gate;
    double set_at;
} gate_opener;

static void *open_gate_later(void *p)
{
    gate_opener *g = p;
    struct timespec d = {0, 300 * 1000 * 1000};
    nanosleep(&d, NULL);
    g->set_at = now_ms();
    clSetUserEventStatus(g->gate, CL_COMPLETE);
    return NULL;
}

/* Across contexts no event can be waited for on the device: the second launch's enqueue
 * waits on the host until the first has run. */
START_TEST(one_kernel_two_contexts_in_order)
{
    dmlcl_context *a = tu_context(), *b = NULL;
    if (!pocl_before_7(a)) {
        printf("threads: not a POCL CPU device before 7.0: launches are not ordered\n");
        return;
    }
    cl_device_id dev = dmlcl_context_device(a);
    cl_int err;
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    tu_assert_ok(dmlcl_context_create(other, dev, NULL, &b));
    clReleaseContext(other); /* b holds it */
    small_reverse ra = small_reverse_new(a);
    dmlcl_operator *opb = NULL;
    gate_opener g = {clCreateUserEvent(dmlcl_context_cl_context(a), &err), 0};
    cl_event ea;
    small_reverse_enqueue(&ra, 1, &g.gate, &ea);
    clFlush(dmlcl_context_queue(a));
    pthread_t opener;
    ck_assert_int_eq(pthread_create(&opener, NULL, open_gate_later, &g), 0);
    /* b's operator runs the same kernel; execute_host enqueues it, then waits for it. */
    unsigned char in[64] = {0}, out[64];
    uint32_t lens[8] = {0};
    const void *ins[2] = {in, lens};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_create(b, &small_reverse_desc, &opb));
    tu_assert_ok(dmlcl_operator_execute_host(opb, ins, outs));
    double done = now_ms();
    pthread_join(opener, NULL);
    ck_assert_int_eq(clWaitForEvents(1, &ea), CL_SUCCESS);
    ck_assert_msg(done >= g.set_at, "the other context's launch ran %.0f ms before the first "
                                    "context's launch of the same kernel could start",
                  g.set_at - done);
    clReleaseEvent(g.gate), clReleaseEvent(ea);
    dmlcl_operator_release(opb);
    small_reverse_free(&ra);
    dmlcl_context_release(b);
}
END_TEST

Suite *threads_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("shared context");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, eight_threads_thousand_iterations);
    suite_add_tcase(s, tc);
    TCase *order = tcase_create("POCL before 7.0: one kernel's launches in order");
    tcase_add_test(order, one_kernel_two_queues_in_order);
    tcase_add_test(order, one_kernel_two_contexts_in_order);
    suite_add_tcase(s, order);
    return s;
}
