/* Progress of a long test run on the console (tests/progress.h). */
#include "progress.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { PROGRESS_EVERY_S = 10 };

static struct {
    int out;          /* the console's descriptor ($DMLCL_TEST_PROGRESS_FD) */
    int pipe[2];      /* Check's log in at [1], read at [0] */
    pthread_t reader;
    char what[96];
} pr = {-1, {-1, -1}, 0, ""};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void say(int passed, int failed, double since)
{
    char line[192], bad[32] = "";
    if (failed)
        snprintf(bad, sizeof bad, ", %d FAILED", failed);
    int n = snprintf(line, sizeof line, "  ... %s: %d checks passed%s (%.0f s)\n", pr.what,
                     passed, bad, now_s() - since);
    if (n > 0 && write(pr.out, line, (size_t)n) < 0)
        pr.out = -1; /* the console went away: the run goes on without it */
}

/* Reads Check's log line by line ("file:line:P:case:test:i: Passed", one per check as it
 * ends) and says how far the run is, at most every PROGRESS_EVERY_S seconds and at once
 * for a failure. */
static void *read_log(void *arg)
{
    (void)arg;
    FILE *in = fdopen(pr.pipe[0], "r");
    if (!in)
        return NULL;
    const double start = now_s();
    double last = start;
    int passed = 0, failed = 0;
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        const int fail = strstr(line, ":F:") || strstr(line, ":E:");
        passed += strstr(line, ":P:") != NULL;
        failed += fail;
        if (pr.out >= 0 && (fail || now_s() - last >= PROGRESS_EVERY_S)) {
            say(passed, failed, start);
            last = now_s();
        }
    }
    fclose(in);
    return NULL;
}

void tu_progress_start(SRunner *sr, const char *what)
{
    const char *fd = getenv("DMLCL_TEST_PROGRESS_FD");
    if (!fd || !*fd)
        return;
    const int out = atoi(fd);
    if (out < 3 || fcntl(out, F_GETFD) < 0 || pipe(pr.pipe) != 0)
        return; /* not run by make check's harness: nothing to say */
    pr.out = out;
    snprintf(pr.what, sizeof pr.what, "%s", what);
    fcntl(pr.pipe[0], F_SETFD, FD_CLOEXEC);
    fcntl(pr.pipe[1], F_SETFD, FD_CLOEXEC);
    if (pthread_create(&pr.reader, NULL, read_log, NULL) != 0) {
        close(pr.pipe[0]), close(pr.pipe[1]);
        pr.pipe[0] = pr.pipe[1] = pr.out = -1;
        return;
    }
    static char path[32]; /* Check keeps the pointer, not a copy */
    snprintf(path, sizeof path, "/dev/fd/%d", pr.pipe[1]);
    srunner_set_log(sr, path);
}

void tu_progress_end(void)
{
    if (pr.pipe[1] < 0)
        return;
    close(pr.pipe[1]); /* Check closed its own copy when the run ended: the reader sees EOF */
    pr.pipe[1] = -1;
    pthread_join(pr.reader, NULL);
}
