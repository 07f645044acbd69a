/* The host's half of the staged path (lib/host_copy.c) on its own: memcpy against the
 * streaming copy (lib/stream_copy.c), in GB/s of bytes copied. An array of --mb MiB (larger
 * than the last-level cache) goes piece by piece to or from three staging buffers of a
 * piece each, used in turn as execute_host uses its pinned ones; each piece is split over
 * the threads, which meet at a barrier after each piece as the copier's threads do. No
 * device: the DMA's own traffic is not here. Not installed; doc/performance.md ("Host
 * copies") has its figures.
 *   tools/bench/copy_bench [--mb N] [--runs N] [--threads N] */
#include "stream_copy.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STAGING 3
#define MAX_THREADS 64

typedef void (*copy_fn)(void *, const void *, size_t);

typedef struct {
    copy_fn copy;
    int up; /* array -> staging (upload); else staging -> array (download) */
    char *array, *staging[STAGING];
    size_t bytes, piece;
    int threads;
    pthread_barrier_t meet;
} job;

typedef struct {
    job *j;
    int id;
} part_arg;

/* Thread `id`'s share of every piece, cut on cache lines as the copier cuts it. */
static void copy_parts(job *j, int id)
{
    const size_t part = (j->piece / (size_t)j->threads + 63) & ~(size_t)63;
    for (size_t at = 0, k = 0; at < j->bytes; at += j->piece, k = (k + 1) % STAGING) {
        const size_t n = j->bytes - at < j->piece ? j->bytes - at : j->piece;
        const size_t from = (size_t)id * part, len = from >= n ? 0 : n - from < part ? n - from : part;
        char *array = j->array + at + from, *staging = j->staging[k] + from;
        if (len)
            j->copy(j->up ? staging : array, j->up ? array : staging, len);
        pthread_barrier_wait(&j->meet);
    }
}

static void plain_copy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }

static void *worker(void *arg)
{
    part_arg *a = arg;
    copy_parts(a->j, a->id);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One pass over the array; GB/s. Threads are started per pass (a pass is 100+ ms). */
static double pass(job *j)
{
    pthread_t th[MAX_THREADS];
    part_arg arg[MAX_THREADS];
    pthread_barrier_init(&j->meet, NULL, (unsigned)j->threads);
    double t0 = now_s();
    for (int i = 1; i < j->threads; i++) {
        arg[i] = (part_arg){j, i};
        if (pthread_create(&th[i], NULL, worker, &arg[i])) {
            fprintf(stderr, "copy_bench: pthread_create failed\n");
            exit(1);
        }
    }
    copy_parts(j, 0);
    for (int i = 1; i < j->threads; i++)
        pthread_join(th[i], NULL);
    double t = now_s() - t0;
    pthread_barrier_destroy(&j->meet);
    return (double)j->bytes / t * 1e-9;
}

/* The best of `runs` passes: the machine is shared, and interference only slows. */
static double best(job *j, int runs)
{
    double b = 0;
    for (int r = 0; r < runs; r++) {
        double g = pass(j);
        b = g > b ? g : b;
    }
    return b;
}

static void usage(void)
{
    fprintf(stderr, "usage: copy_bench [--mb N (64..65536)] [--runs N (1..100)] "
                    "[--threads N (1..64), else 1 and 2]\n");
    exit(2);
}

static int arg_int(char **argv, int i, int argc, int lo, int hi)
{
    if (i >= argc)
        usage();
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v < lo || v > hi)
        usage();
    return (int)v;
}

int main(int argc, char **argv)
{
    int mb = 512, runs = 5, only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb"))
            mb = arg_int(argv, ++i, argc, 64, 65536);
        else if (!strcmp(argv[i], "--runs"))
            runs = arg_int(argv, ++i, argc, 1, 100);
        else if (!strcmp(argv[i], "--threads"))
            only = arg_int(argv, ++i, argc, 1, MAX_THREADS);
        else
            usage();
    }
    job j = {.bytes = (size_t)mb << 20};
    j.array = aligned_alloc(4096, j.bytes);
    for (int k = 0; k < STAGING; k++)
        j.staging[k] = aligned_alloc(4096, (size_t)16 << 20);
    if (!j.array || !j.staging[0] || !j.staging[1] || !j.staging[2]) {
        fprintf(stderr, "copy_bench: out of memory for %d MiB\n", mb);
        return 1;
    }
    memset(j.array, 1, j.bytes); /* faulted in: page faults are not the copy's */
    for (int k = 0; k < STAGING; k++)
        memset(j.staging[k], 2, (size_t)16 << 20);
    printf("array %d MiB, best of %d; streaming copy: %s\n", mb, runs,
           dmlcl__stream_copy_streams() ? "streaming stores" : "memcpy (no streaming stores)");
    printf("%-9s %9s %7s %12s %12s %7s\n", "direction", "piece MiB", "threads", "memcpy GB/s",
           "stream GB/s", "ratio");
    for (int up = 0; up < 2; up++)
        for (int t = only ? only : 1; t <= (only ? only : 2); t++)
            for (int p = 1; p <= 16; p *= 2) {
                j.up = up, j.threads = t, j.piece = (size_t)p << 20;
                j.copy = plain_copy;
                double m = best(&j, runs);
                j.copy = dmlcl__stream_copy;
                double s = best(&j, runs);
                printf("%-9s %9d %7d %12.2f %12.2f %7.2f\n", up ? "upload" : "download", p, t,
                       m, s, s / m);
                fflush(stdout);
            }
    return 0;
}
