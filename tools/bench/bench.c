/* `dmlcl bench`: each case times one operator with OpenCL profiling events and compares
 * its bandwidth (bytes read + written, each tensor element once, the lengths tensor too)
 * with clEnqueueCopyBuffer of the same number of bytes, measured in the same process on
 * the same device; on CPU devices also with a host memcpy on one thread per compute unit.
 * Every result is first checked against a C reference on sampled outputs (after poisoning
 * the output), so a fast wrong kernel cannot pass. The cases, their input data and the
 * references are in tools/bench/cases.c. */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <sched.h>
#include "run.h"
#include "../cli.h"
#include <dmlcl.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- state and case selection ------------------------------------------------------- */

static int selected(const bopts *o, const case_entry *e)
{
    if (!o->cases)
        return !e->big;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", o->cases);
    for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save))
        if (!fnmatch(p, e->name, 0))
            return 1;
    return 0;
}

static int failf(bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    va_end(ap);
    return -1;
}

static double now_s(void);

/* "CL_INVALID_VALUE (-30)" in a static buffer: one per message. */
static const char *clerr(cl_int err)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%s (%d)", dmlcl_opencl_error_name(err), (int)err);
    return buf;
}

static void step(bench *b, const char *name, const char *what)
{
    if (b->o.verbose)
        fprintf(stderr, "[%8.3f s] %s: %s\n", now_s() - b->t0, name, what);
}

static int fill_device(bench *b, cl_mem m, uint32_t elem, uint64_t n, int floats)
{
    char name[8];
    snprintf(name, sizeof name, "fill%u", elem);
    cl_int err;
    cl_kernel k = clCreateKernel(b->fill_prog, name, &err);
    if (err)
        return failf(b, "clCreateKernel(%s): %s", name, clerr(err));
    cl_ulong nn = n;
    cl_uint fl = (cl_uint)floats;
    size_t global = n < ((size_t)1 << 20) ? (size_t)n : (size_t)1 << 20;
    clSetKernelArg(k, 0, sizeof m, &m);
    clSetKernelArg(k, 1, sizeof nn, &nn);
    clSetKernelArg(k, 2, sizeof fl, &fl);
    err = clEnqueueNDRangeKernel(b->q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    clReleaseKernel(k);
    if (err || (err = clFinish(b->q)))
        return failf(b, "filling the input: %s", clerr(err));
    return 0;
}

/* Gathers the sampled output elements on the device (multi-GiB outputs are not read
 * back whole) and compares each with the reference. Returns the number checked, or -1
 * with b->err set at the first mismatch. */
static int64_t check_samples(bench *b, const bcase *c, cl_mem out)
{
    uint64_t count = bench_elements(&c->out), edge = count < 4096 ? count : 4096, rng = 12345;
    uint64_t random = b->o.samples;
    if (c->max_samples) { /* a slow reference: a quarter at each end, the rest random */
        edge = edge < c->max_samples / 4 ? edge : c->max_samples / 4;
        random = random < c->max_samples - 2 * edge ? random : c->max_samples - 2 * edge;
    }
    uint32_t n = (uint32_t)(2 * edge + random), elem = bench_type_bytes(c->out.type);
    uint32_t *idx = malloc((size_t)n * 8 * sizeof *idx), *got = malloc((size_t)n * 4);
    cl_ulong *offs = malloc((size_t)n * sizeof *offs);
    int64_t rc = idx && got && offs ? 0 : failf(b, "out of host memory for the samples");
    for (uint32_t k = 0; !rc && k < n; k++) {
        bench_sample_index(c, k, edge, &rng, idx + (size_t)k * 8);
        offs[k] = bench_offset_of(&c->out, idx + (size_t)k * 8);
    }
    cl_int err = CL_SUCCESS;
    cl_mem doff = rc ? NULL : clCreateBuffer(b->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                             (size_t)n * sizeof *offs, offs, &err);
    cl_mem dgot = doff ? clCreateBuffer(b->cl, CL_MEM_WRITE_ONLY, (size_t)n * 4, NULL, &err) : NULL;
    char name[16];
    snprintf(name, sizeof name, "gather%u", elem);
    cl_kernel k = dgot ? clCreateKernel(b->fill_prog, name, &err) : NULL;
    if (k) {
        size_t global = n;
        clSetKernelArg(k, 0, sizeof out, &out);
        clSetKernelArg(k, 1, sizeof doff, &doff);
        clSetKernelArg(k, 2, sizeof dgot, &dgot);
        err = clEnqueueNDRangeKernel(b->q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
        if (!err)
            err = clEnqueueReadBuffer(b->q, dgot, CL_TRUE, 0, (size_t)n * 4, got, 0, NULL, NULL);
    }
    if (!rc && err)
        rc = failf(b, "gathering the samples: %s", clerr(err));
    char msg[256];
    for (uint32_t i = 0; !rc && i < n; i++)
        if (bench_check_one(c, got[i], idx + (size_t)i * 8, msg, sizeof msg)) {
            rc = failf(b, "wrong result: %s", msg);
            b->wrong = 1;
        }
    if (k)
        clReleaseKernel(k);
    if (dgot)
        clReleaseMemObject(dgot);
    if (doff)
        clReleaseMemObject(doff);
    free(idx), free(got), free(offs);
    return rc ? -1 : (int64_t)n;
}

/* ---- timing ------------------------------------------------------------------------- */

typedef cl_int (*enqueue_fn)(void *arg, cl_event *ev);

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double event_ms(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    return (double)(t1 - t0) * 1e-6;
}

#define OP_ENQUEUE_FAILED (-9999) /* enqueue_op's error: the message is dmlcl_last_error() */

static int enqueue_failed(bench *b, cl_int err)
{
    if (err == OP_ENQUEUE_FAILED)
        return failf(b, "enqueue: %s", dmlcl_last_error());
    return failf(b, "enqueue: %s", clerr(err));
}

typedef struct op_call {
    dmlcl_operator *op;
    dmlcl_buffer_binding in[2], out[1];
    uint32_t n_in;
    int wall; /* several launches (slabs): timed by the wall clock, enqueue to finish */
} op_call;

static cl_int enqueue_op(void *arg, cl_event *ev)
{
    op_call *a = arg;
    return dmlcl_operator_enqueue(a->op, a->in, a->n_in, a->out, 1, 0, NULL, ev) ? OP_ENQUEUE_FAILED
                                                                                 : CL_SUCCESS;
}

typedef struct copy_call {
    cl_command_queue q;
    cl_mem src, dst;
    size_t bytes;
} copy_call;

static cl_int enqueue_copy(void *arg, cl_event *ev)
{
    copy_call *a = arg;
    return clEnqueueCopyBuffer(a->q, a->src, a->dst, 0, 0, a->bytes, 0, NULL, ev);
}

/* The probe kernel (bench_helper_source) over the case's own buffers. */
typedef struct probe_call {
    cl_command_queue q;
    cl_kernel k;
    size_t global;
} probe_call;

static cl_int enqueue_probe(void *arg, cl_event *ev)
{
    probe_call *a = arg;
    return clEnqueueNDRangeKernel(a->q, a->k, 1, NULL, &a->global, NULL, 0, NULL, ev);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- host memcpy on several threads (the CPU targets' 1.00) -------------------------- */

typedef struct slice {
    char *dst;
    const char *src;
    size_t bytes;
} slice;

static void *copy_slice(void *arg)
{
    slice *s = arg;
    memcpy(s->dst, s->src, s->bytes);
    return NULL;
}

static double memcpy_threads(char *dst, const char *src, size_t bytes, int nt)
{
    pthread_t th[256];
    int started[256] = {0};
    slice sl[256];
    size_t per = (bytes / (size_t)nt + 4095) & ~(size_t)4095;
    double t0 = now_s();
    for (int i = 0; i < nt; i++) {
        size_t off = per * (size_t)i;
        sl[i] = (slice){dst + off, src + off,
                        off >= bytes        ? 0
                        : bytes - off < per ? bytes - off
                                            : per};
        if (i > 0)
            started[i] = pthread_create(&th[i], NULL, copy_slice, &sl[i]) == 0;
    }
    copy_slice(&sl[0]);
    for (int i = 1; i < nt; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            copy_slice(&sl[i]);
    }
    return (now_s() - t0) * 1e3;
}

/* ---- one case ------------------------------------------------------------------------ */

/* Creation on a memory-cache hit: the program is in memory after the first create. */
/* noinline: a profiler can collect just this (valgrind --toggle-collect=time_creates). */
__attribute__((noinline)) static void time_creates(const bcase *c, dmlcl_context *ctx, result *r)
{
    enum { N = 101 };
    double us[N];
    int n = 0;
    for (int i = 0; i < N; i++) {
        dmlcl_operator *op = NULL;
        double t0 = now_s();
        dmlcl_status st = bench_create_op(c, ctx, &op);
        double t1 = now_s();
        dmlcl_operator_release(op);
        if (!st)
            us[n++] = (t1 - t0) * 1e6;
    }
    if (!n)
        return;
    qsort(us, (size_t)n, sizeof *us, cmp_double);
    r->create_us_best = us[0];
    r->create_us_med = us[n / 2];
}

static cl_mem new_buffer(bench *b, uint64_t bytes, const char *what)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(b->cl, CL_MEM_READ_WRITE, (size_t)(bytes ? bytes : 4), NULL, &err);
    if (err) {
        char why[512];
        cli_cl_describe(why, sizeof why, b->dev, err, bytes);
        failf(b, "clCreateBuffer (%s) failed: %s", what, why);
        return NULL;
    }
    return m;
}

/* Poison, run once, read back, compare samples with the reference. */
/* Fills the output with 0xA5 bytes. A kernel of ours, not clEnqueueFillBuffer, which
 * did not finish on 8 GiB buffers with NVIDIA's driver 580. */
static int poison(bench *b, cl_mem out, uint64_t bytes)
{
    cl_int err;
    cl_kernel k = clCreateKernel(b->fill_prog, "poison", &err);
    if (err)
        return failf(b, "clCreateKernel(poison): %s", clerr(err));
    cl_ulong words = bytes / 4;
    size_t global = words < ((size_t)1 << 20) ? (size_t)(words ? words : 1) : (size_t)1 << 20;
    clSetKernelArg(k, 0, sizeof out, &out);
    clSetKernelArg(k, 1, sizeof words, &words);
    err = clEnqueueNDRangeKernel(b->q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
    clReleaseKernel(k);
    const unsigned char fill = 0xA5;
    if (!err && bytes % 4)
        err = clEnqueueFillBuffer(b->q, out, &fill, 1, (size_t)(words * 4), (size_t)(bytes % 4), 0,
                                  NULL, NULL);
    if (!err)
        err = clFinish(b->q);
    return err ? failf(b, "poisoning the output: %s", clerr(err)) : 0;
}

static int verify(bench *b, const bcase *c, op_call *call, cl_mem out, uint64_t out_bytes,
                  result *r)
{
    if (poison(b, out, out_bytes))
        return -1;
    step(b, c->name, "output poisoned");
    if (dmlcl_operator_enqueue(call->op, call->in, call->n_in, call->out, 1, 0, NULL, NULL))
        return failf(b, "enqueue: %s", dmlcl_last_error());
    cl_int err = clFinish(b->q);
    if (err)
        return failf(b, "the operator's first run: %s", clerr(err));
    step(b, c->name, "first run done");
    r->checked = check_samples(b, c, out);
    return r->checked < 0 ? -1 : 0;
}

static void summarize(double *ms, int n, timing *t)
{
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    t->runs = n;
    t->best_ms = ms[0];
    t->med_ms = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

/* Buffers of the baselines: device copy source/destination, host memcpy ones; the probe. */
typedef struct baseline {
    copy_call cc;
    probe_call pc;
    char *hsrc, *hdst;
    size_t hbytes;
    int threads;
} baseline;

/* Copies of bytes/2 (read + written = bytes), at most COPY_MAX: GB/s no longer depends on
 * the size there, and NVIDIA's driver has not finished copies of 8 GiB in our runs. */
#define COPY_MAX ((uint64_t)2 << 30)

/* The probe reads the case's input and writes its output, whole float4s of each (none:
 * a case under 16 bytes has no probe); r->probe_bytes is what it moves. */
static int probe_open(bench *b, const op_call *call, result *r, probe_call *pc)
{
    cl_ulong nin = r->in_bytes / 16, nout = r->out_bytes / 16;
    size_t n = nin > nout ? nin : nout;
    cl_int err = CL_SUCCESS;
    *pc = (probe_call){b->q, NULL, (n + 255) & ~(size_t)255};
    r->probe_bytes = 16 * (uint64_t)(nin + nout);
    if (!n)
        return 0;
    if (!(pc->k = clCreateKernel(b->fill_prog, "probe", &err)))
        return failf(b, "clCreateKernel(probe): %s", clerr(err));
    clSetKernelArg(pc->k, 0, sizeof(cl_mem), &call->in[0].buffer);
    clSetKernelArg(pc->k, 1, sizeof nin, &nin);
    clSetKernelArg(pc->k, 2, sizeof(cl_mem), &call->out[0].buffer);
    clSetKernelArg(pc->k, 3, sizeof nout, &nout);
    return 0;
}

static int baseline_open(bench *b, uint64_t bytes, baseline *bl)
{
    uint64_t h = bytes / 2 < COPY_MAX ? bytes / 2 : COPY_MAX;
    if (b->max_alloc && h > b->max_alloc)
        h = b->max_alloc & ~(uint64_t)3;
    size_t half = (size_t)((h + 3) & ~(uint64_t)3);
    memset(bl, 0, sizeof *bl);
    bl->cc = (copy_call){b->q, new_buffer(b, half, "copy source"), NULL, half};
    if (!bl->cc.src || !(bl->cc.dst = new_buffer(b, half, "copy destination")))
        return -1;
    if (fill_device(b, bl->cc.src, 4, half / 4, 0))
        return -1;
    bl->threads = b->o.threads > 0 ? b->o.threads : b->o.threads ? (int)b->compute_units : 0;
    if (!b->is_cpu || !bl->threads)
        return 0;
    bl->hbytes = half;
    bl->hsrc = malloc(half);
    bl->hdst = malloc(half);
    if (!bl->hsrc || !bl->hdst)
        return failf(b, "out of host memory for the memcpy baseline");
    memset(bl->hsrc, 1, half); /* fault every page in before timing */
    memset(bl->hdst, 2, half);
    return 0;
}

static void baseline_close(baseline *bl)
{
    if (bl->pc.k)
        clReleaseKernel(bl->pc.k);
    if (bl->cc.src)
        clReleaseMemObject(bl->cc.src);
    if (bl->cc.dst)
        clReleaseMemObject(bl->cc.dst);
    free(bl->hsrc);
    free(bl->hdst);
}

/* One round: the operator, the device copy, the probe and (CPU devices) the host memcpy
 * back to back, so that other load on the machine hits all of them alike. t: their ms. */
static int round_once(bench *b, op_call *call, baseline *bl, double *op, double *copy,
                      double *probe, double *host)
{
    cl_event ev[3] = {NULL, NULL, NULL};
    cl_int err = CL_SUCCESS;
    if (call->wall) { /* the operator's event is a marker after its launches */
        const double t0 = now_s();
        err = enqueue_op(call, NULL);
        if (!err)
            err = clFinish(b->q);
        *op = (now_s() - t0) * 1e3;
    } else
        err = enqueue_op(call, &ev[0]);
    if (!err)
        err = enqueue_copy(&bl->cc, &ev[1]);
    if (!err && bl->pc.k)
        err = enqueue_probe(&bl->pc, &ev[2]);
    if (!err)
        err = clWaitForEvents(1 + (bl->pc.k != NULL), ev + 1);
    if (!err && !call->wall)
        err = clWaitForEvents(1, ev);
    if (!err) {
        if (!call->wall)
            *op = event_ms(ev[0]);
        *copy = event_ms(ev[1]);
        *probe = bl->pc.k ? event_ms(ev[2]) : 0;
    }
    for (int i = 0; i < 3; i++)
        if (ev[i])
            clReleaseEvent(ev[i]);
    if (err)
        return enqueue_failed(b, err);
    *host = bl->hsrc ? memcpy_threads(bl->hdst, bl->hsrc, bl->hbytes, bl->threads) : 0;
    return 0;
}

/* Warm-up rounds, then as many rounds as fit in the time budget (or --runs). */
static int measure(bench *b, op_call *call, result *r)
{
    baseline bl;
    int rc = baseline_open(b, r->bytes, &bl), runs = b->o.runs;
    if (!rc)
        rc = probe_open(b, call, r, &bl.pc);
    r->copy_bytes = 2 * (uint64_t)bl.cc.bytes;
    r->host_bytes = 2 * (uint64_t)bl.hbytes;
    double op = 0, copy = 0, probe = 0, host = 0, *ms = NULL;
    /* Slow cases (a round over half a second) get one warm-up round and three rounds, so
     * that the default run stays near a minute on a small CPU. */
    for (int w = 0; !rc && (w < b->o.warmup || w == 0) && (w == 0 || op + copy + host < 500); w++)
        rc = round_once(b, call, &bl, &op, &copy, &probe, &host);
    if (!rc && runs <= 0) {
        double one = op + copy + probe + host, n = b->o.budget * 1e3 / (one > 1e-3 ? one : 1e-3);
        runs = n > 200 ? 200 : one > 500 ? 3 : n < 5 ? 5 : (int)n;
    }
    if (!rc && !(ms = calloc(4 * (size_t)runs, sizeof *ms)))
        rc = failf(b, "out of host memory");
    for (int i = 0; !rc && i < runs; i++)
        rc = round_once(b, call, &bl, &ms[i], &ms[runs + i], &ms[3 * runs + i], &ms[2 * runs + i]);
    if (!rc) {
        summarize(ms, runs, &r->op);
        summarize(ms + runs, runs, &r->copy);
        if (bl.hsrc)
            summarize(ms + 2 * runs, runs, &r->host);
        if (bl.pc.k)
            summarize(ms + 3 * runs, runs, &r->probe);
    }
    free(ms);
    baseline_close(&bl);
    return rc;
}

/* The case's largest buffer in bytes: input, output or lengths. */
static uint64_t largest_buffer(const bcase *c)
{
    uint64_t e = bench_type_bytes(c->in.type), in = bench_span_elems(&c->in) * e;
    uint64_t out = bench_span_elems(&c->out) * e;
    uint64_t len = c->kind == B_REVERSE ? bench_span_elems(&c->len) * 4 : 0;
    uint64_t m = in > out ? in : out;
    return m > len ? m : len;
}

/* Makes the case at --mb, or at the largest size below it whose every buffer fits the
 * device's CL_DEVICE_MAX_MEM_ALLOC_SIZE, and says so in r->note. A big-* case (its size
 * is the point) that does not fit is skipped. Returns 0 to run it, 1 to skip it (b->err
 * says why), -1 when out of host memory. */
static int make_fitting(bench *b, const case_entry *e, bcase *c, result *r)
{
    uint64_t mb = e->big ? BIG_MB : b->o.mb, max = b->max_alloc;
    if (e->make(c, mb))
        return -1;
    uint64_t need = largest_buffer(c), first = need;
    while (max && need > max && !e->big && mb > 1) {
        uint64_t next = (uint64_t)((double)mb * ((double)max / (double)need));
        mb = next >= mb ? mb - 1 : next ? next : 1;
        free(c->lengths);
        memset(c, 0, sizeof *c);
        c->name = e->name;
        if (e->make(c, mb))
            return -1;
        need = largest_buffer(c);
    }
    char a[32], m[32];
    if (max && need > max) {
        snprintf(b->err, sizeof b->err, "needs a buffer of %s, over the %s limit per buffer%s",
                 cli_bytes_text(need, a), cli_bytes_text(max, m),
                 b->o.max_buffer_mb ? "" : " (CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
        return 1;
    }
    if (need != first)
        snprintf(r->note, sizeof r->note, "sized to --mb %llu: at --mb %llu a buffer would be "
                 "%s, over the %s limit per buffer", (unsigned long long)mb,
                 (unsigned long long)b->o.mb, cli_bytes_text(first, a), cli_bytes_text(max, m));
    return 0;
}

/* DMLCL_SPECIALIZE as the caller had it (NULL: unset), restored after a change. */
static void set_specialize(const char *mode, char *saved, size_t cap, int save)
{
    if (save) {
        const char *v = getenv("DMLCL_SPECIALIZE");
        snprintf(saved, cap, "%s", v ? v : "");
    }
    if (mode && *mode)
        setenv("DMLCL_SPECIALIZE", mode, 1);
    else
        unsetenv("DMLCL_SPECIALIZE");
}

/* The first call at a scale never seen before, which must not wait for a compiler: the
 * case's generic program is built first (DMLCL_SPECIALIZE=off: the family, layout, type
 * and mode seen before), then an operator with the case's input offsets shifted by an
 * amount no other case uses is created and run once in the background mode; its later
 * runs show when the specialised program took over (polled up to 60 s). */
static void time_new_scale(bench *b, const bcase *c, op_call *call, result *r)
{
    static unsigned fresh; /* a new shift per case */
    char saved[64];
    bcase n = *c;
    if (c->kind == B_REVERSE)
        return;
    fresh++;
    for (uint32_t d = 0; d < c->in.rank; d++)
        if (c->scales[d] != 1.0f)
            n.in_off[d] += 0.0009765625f * (float)fresh; /* 2^-10: exact in float32 */
    dmlcl_operator *op = NULL;
    set_specialize("off", saved, sizeof saved, 1);
    if (bench_create_op(&n, b->ctx, &op) == DMLCL_SUCCESS)
        dmlcl_operator_release(op);
    set_specialize("background", NULL, 0, 0);
    op_call nc = *call;
    const double t0 = now_s();
    dmlcl_status st = bench_create_op(&n, b->ctx, &nc.op);
    if (!st)
        st = dmlcl_operator_enqueue(nc.op, nc.in, nc.n_in, nc.out, 1, 0, NULL, NULL);
    if (!st && clFinish(b->q) == CL_SUCCESS)
        r->new_scale_ms = (now_s() - t0) * 1e3;
    int building = !st && strstr(dmlcl_operator_plan(nc.op), "building") != NULL;
    r->new_scale_special_s = 0;
    while (!st && building) {
        if (now_s() - t0 > 60) {
            r->new_scale_special_s = -1;
            break;
        }
        st = dmlcl_operator_enqueue(nc.op, nc.in, nc.n_in, nc.out, 1, 0, NULL, NULL);
        clFinish(b->q);
        building = strstr(dmlcl_operator_plan(nc.op), "building") != NULL;
        r->new_scale_special_s = now_s() - t0;
    }
    dmlcl_operator_release(nc.op);
    set_specialize(saved, NULL, 0, 0);
}

/* --host-path: dmlcl_operator_execute_host on host copies of the case's arrays (the path
 * of NumPy, dmlcl run and C programs on host memory), its output compared byte for byte
 * with the device run's, against pinned transfers of the same bytes in the same rounds:
 * the inputs up and the output down, blocking, from CL_MEM_ALLOC_HOST_PTR memory. Both by
 * the wall clock, one warm-up round, then as many rounds as the operator had (3 to 20). */
/* The threads execute_host copies with (doc/api.md, DMLCL_HOST_THREADS): the bench's
 * memcpy of the same bytes on as many is the host's own limit for a staged path. */
static int host_threads(void)
{
    const char *v = getenv("DMLCL_HOST_THREADS");
    if (v && atoi(v) > 0) /* execute_host refuses more than 64 before this copy runs */
        return atoi(v) > 64 ? 64 : atoi(v);
    cpu_set_t set;
    const int n = sched_getaffinity(0, sizeof set, &set) ? 1 : CPU_COUNT(&set);
    return n > 16 ? 16 : n;
}

static int time_host_path(bench *b, const bcase *c, op_call *call, uint64_t in_b,
                          uint64_t out_b, result *r)
{
    const uint64_t len_b = call->n_in > 1 ? bench_span_elems(&c->len) * 4 : 0;
    const uint64_t pin_b = in_b + len_b + out_b;
    cl_mem in = call->in[0].buffer, len = call->in[1].buffer, out = call->out[0].buffer;
    const int runs = r->op.runs < 3 ? 3 : r->op.runs > 20 ? 20 : r->op.runs;
    char *hin = malloc(in_b), *hout = malloc(out_b), *p = NULL;
    double *ms = calloc(3 * (size_t)runs, sizeof *ms);
    const int nt = host_threads();
    cl_int err = CL_SUCCESS;
    cl_mem pin = clCreateBuffer(b->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, pin_b, NULL,
                                &err);
    if (!err)
        p = clEnqueueMapBuffer(b->q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, pin_b, 0,
                               NULL, NULL, &err);
    /* The pinned memory holds the inputs (uploaded again as they are) and the output: the
     * operator's, run once more (the probe of the timed rounds wrote over it last). */
    if (!err)
        err = enqueue_op(call, NULL);
    if (!err && hin && hout)
        err = clEnqueueReadBuffer(b->q, in, CL_TRUE, 0, in_b, hin, 0, NULL, NULL);
    if (!err && hin && hout)
        err = clEnqueueReadBuffer(b->q, out, CL_TRUE, 0, out_b, p + in_b + len_b, 0, NULL, NULL);
    int rc = !hin || !hout || !ms ? failf(b, "out of host memory for --host-path")
             : err               ? failf(b, "--host-path's pinned buffer: %s", clerr(err))
                                 : 0;
    if (!rc) {
        memcpy(p, hin, in_b);
        if (len_b) /* a resample case has no lengths (NULL) */
            memcpy(p + in_b, c->lengths, len_b);
        memset(hout, 0xA5, out_b); /* the device output's poison, which padding keeps */
    }
    const void *ins[2] = {hin, c->lengths};
    void *outs[1] = {hout};
    for (int i = -1; !rc && i < runs; i++) {
        double t0 = now_s();
        if (dmlcl_operator_execute_host(call->op, ins, outs))
            rc = failf(b, "execute_host: %s", dmlcl_last_error());
        double t1 = now_s();
        if (!rc && (i == -1 || i == runs - 1) && memcmp(hout, p + in_b + len_b, out_b))
            rc = failf(b, "--host-path: execute_host's output differs from the device run's");
        err = clEnqueueWriteBuffer(b->q, in, CL_FALSE, 0, in_b, p, 0, NULL, NULL);
        if (!err && len_b)
            err = clEnqueueWriteBuffer(b->q, len, CL_FALSE, 0, len_b, p + in_b, 0, NULL, NULL);
        if (!err)
            err = clEnqueueReadBuffer(b->q, out, CL_TRUE, 0, out_b, p + in_b + len_b, 0, NULL,
                                      NULL);
        if (!rc && err)
            rc = failf(b, "--host-path's pinned copies: %s", clerr(err));
        double t2 = now_s();
        /* The host's share of a staged path: the input into pinned memory, the output out
         * of it (the same bytes execute_host wrote, checked above), on its threads. */
        if (!rc && !b->is_cpu) {
            memcpy_threads(p, hin, in_b, nt);
            memcpy_threads(hout, p + in_b + len_b, out_b, nt);
        }
        if (i >= 0) {
            ms[i] = (t1 - t0) * 1e3;
            ms[runs + i] = (t2 - t1) * 1e3;
            ms[2 * runs + i] = (now_s() - t2) * 1e3;
        }
    }
    if (!rc) {
        summarize(ms, runs, &r->hostpath);
        summarize(ms + runs, runs, &r->pinned);
        if (!b->is_cpu)
            summarize(ms + 2 * runs, runs, &r->hostcopy);
        r->hostcopy_threads = nt;
    }
    if (p)
        clEnqueueUnmapMemObject(b->q, pin, p, 0, NULL, NULL);
    if (pin) {
        clFinish(b->q);
        clReleaseMemObject(pin);
    }
    free(ms);
    free(hin);
    free(hout);
    return rc;
}

static int run_case(bench *b, const bcase *c, result *r)
{
    dmlcl_operator *op = NULL;
    double t0 = now_s();
    dmlcl_status st = bench_create_op(c, b->ctx, &op);
    r->first_create_ms = (now_s() - t0) * 1e3;
    step(b, c->name, "created");
    if (st) {
        r->status = st == DMLCL_UNSUPPORTED ? R_SKIPPED : R_FAIL;
        snprintf(b->err, sizeof b->err, "%s%s", st == DMLCL_UNSUPPORTED ? "" : "create: ",
                 dmlcl_last_error());
        return -1;
    }
    snprintf(r->plan, sizeof r->plan, "%s", dmlcl_operator_plan(op));
    time_creates(c, b->ctx, r);
    step(b, c->name, "creations timed");
    uint32_t ie = bench_type_bytes(c->in.type);
    uint64_t in_b = bench_span_elems(&c->in) * ie, out_b = bench_span_elems(&c->out) * ie;
    int rev = c->kind == B_REVERSE; /* a second input, the lengths; raw bits */
    uint64_t len_b = rev ? bench_span_elems(&c->len) * 4 : 0;
    r->bytes = in_b + out_b + len_b;
    r->in_bytes = in_b;
    r->out_bytes = out_b;
    op_call call = {op, {{NULL, 0, 0}, {NULL, 0, 0}}, {{NULL, 0, 0}}, rev ? 2 : 1, 0};
    /* An operator past the slab bound runs as several launches (plan "slabs=N ...", N >
     * 1): no one event spans them, so it is timed from its enqueue to clFinish. */
    unsigned long long slabs = 0;
    if (sscanf(r->plan, "slabs=%llu", &slabs) == 1 && slabs > 1) {
        call.wall = 1;
        if (!r->note[0])
            snprintf(r->note, sizeof r->note, "%llu launches (slabs): the operator timed by the "
                     "wall clock, enqueue to clFinish", slabs);
    }
    cl_mem in = new_buffer(b, in_b, "input"), out = in ? new_buffer(b, out_b, "output") : NULL;
    cl_mem len = out && rev ? new_buffer(b, len_b, "lengths") : NULL;
    int rc = !in || !out || (rev && !len) ? -1 : 0;
    if (!rc)
        rc = fill_device(b, in, ie, bench_span_elems(&c->in), !rev);
    if (!rc && len) {
        cl_int err =
            clEnqueueWriteBuffer(b->q, len, CL_TRUE, 0, (size_t)len_b, c->lengths, 0, NULL, NULL);
        rc = err ? failf(b, "writing lengths: %s", clerr(err)) : 0;
    }
    call.in[0].buffer = in;
    call.in[1].buffer = len;
    call.out[0].buffer = out;
    step(b, c->name, "input ready");
    if (!rc)
        rc = verify(b, c, &call, out, out_b, r);
    step(b, c->name, "verified");
    if (!rc)
        rc = measure(b, &call, r);
    step(b, c->name, "measured");
    if (!rc && b->o.host_path)
        rc = time_host_path(b, c, &call, in_b, out_b, r);
    if (!rc)
        time_new_scale(b, c, &call, r);
    step(b, c->name, "new scale timed");
    if (in)
        clReleaseMemObject(in);
    if (out)
        clReleaseMemObject(out);
    if (len)
        clReleaseMemObject(len);
    dmlcl_operator_release(op);
    r->status = rc ? R_FAIL : R_OK;
    return rc;
}

/* ---- options and the driver ---------------------------------------------------------- */

#define CREATE_TARGET_US 20.0 /* the goal for creation on a cache hit (doc/performance.md) */

static int open_bench(bench *b)
{
    int rc = cli_open_context("bench", b->o.device, &b->ctx);
    if (rc)
        return rc;
    b->cl = dmlcl_context_cl_context(b->ctx);
    b->dev = dmlcl_context_device(b->ctx);
    b->q = dmlcl_context_queue(b->ctx);
    cl_device_type type = 0;
    clGetDeviceInfo(b->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(b->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof b->compute_units, &b->compute_units,
                    NULL);
    b->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    b->device_max_alloc = b->max_alloc = cli_max_alloc(b->dev);
    uint64_t cap = b->o.max_buffer_mb * MIB;
    if (cap && (!b->max_alloc || cap < b->max_alloc))
        b->max_alloc = cap;
    if (!b->is_cpu)
        b->o.threads = 0;
    const char *src = bench_helper_source;
    cl_int err = CL_SUCCESS;
    b->fill_prog = clCreateProgramWithSource(b->cl, 1, &src, NULL, &err);
    if (!err)
        err = clBuildProgram(b->fill_prog, 1, &b->dev, "", NULL, NULL);
    if (err) {
        cli_error("bench", "building the input generator: %s", clerr(err));
        return 3;
    }
    return 0;
}

/* For a backward case: its forward case and that case's best time in this run (best_ms:
 * per case, 0 where it did not run or failed). */
static void note_forward(const case_entry *e, const double *best_ms, result *r)
{
    for (size_t j = 0; e->forward && j < bench_n_cases; j++)
        if (!strcmp(bench_cases[j].name, e->forward)) {
            r->forward = e->forward;
            r->forward_best_ms = best_ms[j];
        }
}

int dmlcl_cmd_bench(int argc, char **argv)
{
    bench b;
    int list = 0;
    memset(&b, 0, sizeof b);
    int pa = parse_args(argc, argv, &b.o, &list);
    if (pa >= 0)
        return pa;
    if (list)
        return list_cases(&b.o);
    size_t nsel = 0;
    for (size_t i = 0; i < bench_n_cases; i++)
        nsel += selected(&b.o, &bench_cases[i]) != 0;
    if (!nsel) {
        cli_error("bench", "--case '%s' matches no case (dmlcl bench --list names them)",
                  b.o.cases ? b.o.cases : "");
        return DMLCL_EXIT_USAGE;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run killed by a time limit keeps what it printed */
    /* The steady state is the specialised programs': built at creation unless the caller
     * says otherwise (the "new scale" column measures the background path). */
    if (!getenv("DMLCL_SPECIALIZE"))
        setenv("DMLCL_SPECIALIZE", "sync", 1);
    b.t0 = now_s();
    int rc = open_bench(&b);
    if (rc)
        return rc;
    devinfo d;
    query_device(&b, &d);
    FILE *text = b.o.json ? stderr : stdout;
    print_header_text(&b, &d, text);
    if (b.o.json) {
        printf("{\"dmlcl\": ");
        json_string(dmlcl_version());
        printf(", \"device\": ");
        json_string(d.name);
        printf(", \"device_type\": \"%s\", \"compute_units\": %u, \"driver\": ",
               b.is_cpu ? "CPU" : "GPU", d.cu);
        json_string(d.driver);
        printf(", \"device_version\": ");
        json_string(d.version);
        printf(", \"platform\": ");
        json_string(d.platform);
        printf(", \"mb\": %llu, \"warmup\": %d, \"memcpy_threads\": %d,\n  \"cases\": [",
               (unsigned long long)b.o.mb, b.o.warmup,
               b.is_cpu ? (b.o.threads > 0 ? b.o.threads
                           : b.o.threads   ? (int)b.compute_units
                                           : 0)
                        : 0);
    }
    int failed = 0, wrong = 0, ran = 0;
    const char *worst_case = NULL;
    double worst_create = 0, *best_ms = calloc(bench_n_cases, sizeof *best_ms);
    for (size_t i = 0; i < bench_n_cases; i++) {
        if (!selected(&b.o, &bench_cases[i]))
            continue;
        bcase c;
        result r;
        memset(&c, 0, sizeof c);
        memset(&r, 0, sizeof r);
        b.err[0] = 0;
        b.wrong = 0;
        c.name = bench_cases[i].name;
        int made = make_fitting(&b, &bench_cases[i], &c, &r);
        if (made < 0) {
            r.status = R_FAIL;
            snprintf(b.err, sizeof b.err, "out of host memory building the case");
        } else if (made > 0)
            r.status = R_SKIPPED;
        else
            run_case(&b, &c, &r);
        failed += r.status == R_FAIL;
        wrong += r.status == R_FAIL && b.wrong;
        if (r.status == R_OK && (!worst_case || r.create_us_med > worst_create)) {
            worst_create = r.create_us_med;
            worst_case = bench_cases[i].name;
        }
        if (r.status == R_OK && best_ms) {
            note_forward(&bench_cases[i], best_ms, &r);
            best_ms[i] = r.op.best_ms;
        }
        print_result_text(&b, &c, &r, text);
        fflush(text);
        if (b.o.json)
            print_result_json(&b, &c, &r, ran == 0);
        ran++;
        free(c.lengths);
    }
    if (b.o.json)
        printf("\n  ],\n  \"create_us_worst_median\": %.2f, \"create_us_target\": %.0f, "
               "\"create_pass\": %s, \"failed\": %d, \"wrong\": %d}\n", worst_create,
               CREATE_TARGET_US, worst_case && worst_create <= CREATE_TARGET_US ? "true" : "false",
               failed, wrong);
    if (worst_case)
        fprintf(text, "create (memory-cache hit): worst median %.1f us (%s), "
                "target <= %.0f us: %s\n", worst_create, worst_case, CREATE_TARGET_US,
                worst_create <= CREATE_TARGET_US ? "pass" : "short");
    if (failed)
        fprintf(text, "FAIL: %d case(s) failed (%d with a wrong result)\n", failed, wrong);
    free(best_ms);
    clReleaseProgram(b.fill_prog);
    dmlcl_context_release(b.ctx);
    return failed > wrong ? DMLCL_EXIT_DEVICE : wrong ? DMLCL_EXIT_DIFFERENT : DMLCL_EXIT_OK;
}
