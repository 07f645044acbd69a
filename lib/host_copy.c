/* The host's side of staged transfers (staging.c): one copy (streaming stores,
 * stream_copy.c, or memcpy) split over threads that live for one execute_host call. One
 * thread copies 8 GB/s into pinned memory on the GPU node's Xeon, a sixth of the bus's
 * 54 GB/s, and writes a fresh (never touched) output at 1.1 GB/s, page faults included;
 * 16 threads copy 32 GB/s and fault 11 GB/s. The threads are the call's own: no pool
 * outlives it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "operator.h"
#include "stream_copy.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A thread's part is at least this long: below it the wake-up costs more than it saves. */
#define MIN_PART ((size_t)64 << 10)
#define MAX_THREADS 64

struct dmlcl__copier;
typedef struct {
    struct dmlcl__copier *c;
    int id; /* the caller copies part 0; worker k part k+1 */
} worker_arg;

struct dmlcl__copier {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    pthread_t thread[MAX_THREADS];
    worker_arg arg[MAX_THREADS];
    int threads;          /* workers started; the caller is one more */
    unsigned generation;  /* a new copy: each worker takes its part once per generation */
    int parts, pending, stop;
    char *dst;
    const char *src;
    size_t n, part;
    int stream; /* streaming stores (stream_copy.c), else memcpy */
};

/* The destination is not read soon (a pinned buffer the device reads next, or the
 * caller's array): streaming stores where asked, which skip reading it first. */
static void copy_bytes(void *dst, const void *src, size_t n, int stream)
{
    if (stream)
        dmlcl__stream_copy(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* Bytes [i*part, (i+1)*part) of the copy, clipped to n. */
static void copy_part(struct dmlcl__copier *c, int i)
{
    size_t at = (size_t)i * c->part;
    if (at < c->n)
        copy_bytes(c->dst + at, c->src + at, c->n - at < c->part ? c->n - at : c->part,
                   c->stream);
}

static void *worker(void *arg)
{
    struct dmlcl__copier *c = ((worker_arg *)arg)->c;
    const int id = ((worker_arg *)arg)->id;
    unsigned seen = 0; /* copies start at generation 1, which a late starter still takes */
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->stop && c->generation == seen)
            pthread_cond_wait(&c->go, &c->lock);
        if (c->stop)
            break;
        seen = c->generation;
        if (id + 1 < c->parts) {
            pthread_mutex_unlock(&c->lock);
            copy_part(c, id + 1);
            pthread_mutex_lock(&c->lock);
            if (--c->pending == 0)
                pthread_cond_signal(&c->done);
        }
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* $DMLCL_HOST_THREADS (1..64), checked on every call; 0 for auto, which copier_start
 * resolves (only a staged call asks the system). */
dmlcl_status dmlcl__host_threads(int *threads)
{
    const char *v = getenv("DMLCL_HOST_THREADS");
    *threads = 0;
    if (!v || !*v || !strcmp(v, "auto"))
        return DMLCL_SUCCESS;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (*end || n < 1 || n > MAX_THREADS)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "DMLCL_HOST_THREADS must be auto or a number of threads from 1 "
                           "to %d, got '%s'", MAX_THREADS, v);
    *threads = (int)n;
    return DMLCL_SUCCESS;
}

/* $DMLCL_HOST_COPY, checked on every call: which directions stream (copy_bytes). auto
 * (the default) streams downloads only: on the H200 node streamed uploads made the
 * upload-heavy cases slower (doc/performance.md); where the build has no streaming stores,
 * every value copies with memcpy (dmlcl__stream_copy is one). */
dmlcl_status dmlcl__host_copy_mode(int *stream_up, int *stream_down)
{
    static const struct {
        const char *name;
        int up, down;
    } modes[] = {{"auto", 0, 1}, {"stream", 1, 1}, {"stream-upload", 1, 0},
                 {"stream-download", 0, 1}, {"memcpy", 0, 0}};
    const char *v = getenv("DMLCL_HOST_COPY");
    if (!v || !*v)
        v = "auto";
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (!strcmp(v, modes[i].name)) {
            *stream_up = modes[i].up;
            *stream_down = modes[i].down;
            return DMLCL_SUCCESS;
        }
    return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                       "DMLCL_HOST_COPY must be auto, stream, stream-upload, stream-download or "
                       "memcpy, got '%s'", v);
}

/* auto: the CPUs this process may run on (an MPI rank bound to a few cores gets those),
 * at most 16, where the GPU node's copies stop gaining. */
static int auto_threads(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) ? (int)sysconf(_SC_NPROCESSORS_ONLN)
                                                   : CPU_COUNT(&set);
    return n < 1 ? 1 : n > 16 ? 16 : n;
}

dmlcl_status dmlcl__copier_start(dmlcl__copier **out, int want, uint64_t largest)
{
    *out = NULL;
    if (!want)
        want = auto_threads();
    if ((uint64_t)want > largest / MIN_PART)
        want = largest / MIN_PART > 1 ? (int)(largest / MIN_PART) : 1;
    struct dmlcl__copier *c = calloc(1, sizeof *c);
    if (!c)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "execute_host: out of host memory");
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->go, NULL);
    pthread_cond_init(&c->done, NULL);
    /* Fewer threads than asked where the system refuses more: slower, never wrong. */
    for (int k = 0; k + 1 < want; k++) {
        c->arg[k] = (worker_arg){c, k};
        if (pthread_create(&c->thread[k], NULL, worker, &c->arg[k]))
            break;
        c->threads++;
    }
    *out = c;
    return DMLCL_SUCCESS;
}

void dmlcl__copier_copy(dmlcl__copier *c, void *dst, const void *src, size_t n, int stream)
{
    dmlcl__copier_copy_while(c, dst, src, n, stream, NULL, NULL);
}

void dmlcl__copier_copy_while(dmlcl__copier *c, void *dst, const void *src, size_t n,
                              int stream, void (*meanwhile)(void *), void *arg)
{
    size_t parts = n / MIN_PART;
    if (parts > (size_t)c->threads + 1)
        parts = (size_t)c->threads + 1;
    if (parts <= 1) {
        copy_bytes(dst, src, n, stream);
        if (meanwhile)
            meanwhile(arg);
        return;
    }
    pthread_mutex_lock(&c->lock);
    c->dst = dst;
    c->src = src;
    c->n = n;
    c->stream = stream;
    c->parts = (int)parts;
    /* parts of whole cache lines, rounded up so that they cover all n bytes */
    c->part = ((n + parts - 1) / parts + 63) & ~(size_t)63;
    c->pending = (int)parts - 1;
    c->generation++;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->lock);
    if (meanwhile) /* the workers copy their parts meanwhile; the caller's part after */
        meanwhile(arg);
    copy_part(c, 0);
    pthread_mutex_lock(&c->lock);
    while (c->pending)
        pthread_cond_wait(&c->done, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

void dmlcl__copier_stop(dmlcl__copier *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->lock);
    for (int i = 0; i < c->threads; i++)
        pthread_join(c->thread[i], NULL);
    pthread_cond_destroy(&c->go);
    pthread_cond_destroy(&c->done);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
