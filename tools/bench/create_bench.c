/* create_bench: the time of dmlcl_operator_create on a memory-cache hit for `dmlcl
 * bench`'s cases (tools/bench/cases.c) at any --mb, with no buffer allocated (creation
 * allocates none), so that a CPU device plans the shapes of a GPU run: the slab cut
 * (core/slab.h) follows from the shapes alone, and the 4 GiB cases split into the same
 * slabs as on the GPU. A benchmark for profiling (perf record -g), not a test: it prints
 * each case's slabs and its median and best creation time, as `dmlcl bench` times them
 * (the first creation, which compiles, and the specialised programs' builds excluded). */
#include "config.h"
#include "bench.h"
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dmlcl_test_wait_builds(dmlcl_context *c); /* the library's test hook */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The slabs the plan names ("slabs=N"; 0: one launch). */
static unsigned slabs_of(const dmlcl_operator *op)
{
    const char *s = strstr(dmlcl_operator_plan(op), "slabs=");
    return s ? (unsigned)strtoul(s + 6, NULL, 10) : 0;
}

/* One case: created once (compiled, its specialised builds awaited), then `runs` times. */
static int time_case(const case_entry *e, uint64_t mb, int runs, dmlcl_context *ctx)
{
    bcase c;
    memset(&c, 0, sizeof c);
    c.name = e->name;
    c.direction = DMLCL_AXIS_DIRECTION_INCREASING;
    if (e->make(&c, mb))
        return -1;
    dmlcl_operator *op = NULL;
    dmlcl_status st = bench_create_op(&c, ctx, &op);
    if (st) {
        printf("%-20s create failed: %s\n", e->name, dmlcl_last_error());
        free(c.lengths);
        return -1;
    }
    dmlcl_test_wait_builds(ctx);
    dmlcl_operator_release(op);
    double *us = malloc((size_t)runs * sizeof *us);
    unsigned slabs = 0;
    for (int i = 0; us && i < runs; i++) {
        const double t0 = now_s();
        st = bench_create_op(&c, ctx, &op);
        us[i] = (now_s() - t0) * 1e6;
        if (!st && i == 0)
            slabs = slabs_of(op);
        dmlcl_operator_release(op);
    }
    if (us) {
        qsort(us, (size_t)runs, sizeof *us, cmp_double);
        printf("%-20s slabs %4u  create us: median %7.2f  best %7.2f\n", e->name, slabs,
               us[runs / 2], us[0]);
    }
    free(us);
    free(c.lengths);
    return us ? 0 : -1;
}

int main(int argc, char **argv)
{
    uint64_t mb = 4096;
    int runs = 101;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc)
            mb = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--case") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--mb N] [--runs N] [--case GLOB]\n"
                            "(the device: $DMLCL_DEVICE, as dmlcl bench)\n", argv[0]);
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    dmlcl_context *ctx = NULL;
    if (dmlcl_context_create_default(&ctx)) {
        fprintf(stderr, "%s\n", dmlcl_last_error());
        return 1;
    }
    printf("create on a memory-cache hit, --mb %llu, %d runs\n", (unsigned long long)mb, runs);
    int bad = 0;
    for (size_t i = 0; i < bench_n_cases; i++) {
        const case_entry *e = &bench_cases[i];
        if (only ? fnmatch(only, e->name, 0) == 0 : !e->big)
            bad |= time_case(e, mb, runs, ctx) != 0;
    }
    dmlcl_context_release(ctx);
    return bad;
}
