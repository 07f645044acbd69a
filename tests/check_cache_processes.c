/* Processes sharing one on-disk cache folder. Its own test program: children are forked
 * before this process makes any OpenCL call (OpenCL state must not cross a fork), and
 * only after they are all gone does the parent touch OpenCL to check their entries.
 * Round 1: four processes start at once on an empty folder; each program is compiled
 * once, by one of them, while the others wait on the folder's compile lock and then load
 * it. Round 2: one entry truncated, four more processes race to load and delete it, and
 * one compiles and rewrites it. Every child must get right results; the folder must end
 * with exactly one valid entry per variant, its lock file and no temp files. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv */
#endif
#include "cachetest.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROCS 4
#define VARIANTS 3
static const dmlcl_tensor_data_type variants[VARIANTS] = {
    DMLCL_TENSOR_DATA_TYPE_FLOAT32, DMLCL_TENSOR_DATA_TYPE_INT16, DMLCL_TENSOR_DATA_TYPE_UINT8};

typedef struct {
    int pid, ok;
    unsigned long long compiles, disk_hits;
} report;

/* A child: waits for the start signal, runs every variant in its own context, reports
 * on `out` (one write below PIPE_BUF, so reports do not interleave) and exits. */
static void child(int gate, int out)
{
    char c;
    while (read(gate, &c, 1) > 0) /* EOF when the parent closes its end: everyone goes */
        ;
    report r = {(int)getpid(), 1, 0, 0};
    dmlcl_context *ctx = NULL;
    if (dmlcl_context_create_default(&ctx) != DMLCL_SUCCESS) {
        r.ok = 0;
    } else {
        for (int v = 0; v < VARIANTS; v++)
            r.ok &= ct_run_rs(ctx, variants[v]) == 0;
        dmlcl_context_release(ctx);
    }
    dmlcl_cache_stats s;
    dmlcl_cache_get_stats(&s);
    r.compiles = s.compiles;
    r.disk_hits = s.disk_hits;
    _exit(write(out, &r, sizeof r) == (ssize_t)sizeof r && r.ok ? 0 : 1);
}

/* Starts PROCS children at once and collects their reports. */
static void run_round(report reports[PROCS])
{
    int gate[2], out[2];
    ck_assert_int_eq(pipe(gate), 0);
    ck_assert_int_eq(pipe(out), 0);
    pid_t pids[PROCS];
    for (int i = 0; i < PROCS; i++) {
        pids[i] = fork();
        ck_assert_int_ge(pids[i], 0);
        if (pids[i] == 0) {
            close(gate[1]);
            close(out[0]);
            child(gate[0], out[1]);
        }
    }
    close(gate[0]);
    close(out[1]);
    close(gate[1]); /* go */
    for (int i = 0; i < PROCS; i++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "child %d failed (status 0x%x): a wrong result or an error", i, status);
    }
    for (int i = 0; i < PROCS; i++)
        ck_assert_int_eq(read(out[0], &reports[i], sizeof reports[i]), (ssize_t)sizeof reports[i]);
    close(out[0]);
}

static ct_scan expect_valid_folder(const char *dir)
{
    ct_scan s = ct_scan_dir(dir);
    ck_assert_int_eq(s.entries, VARIANTS);
    ck_assert_int_eq(s.temps, 0);
    ck_assert_int_eq(s.others, 0);
    ck_assert_int_eq(s.locks, 1);
    return s;
}

static unsigned long long total_compiles(const report r[PROCS])
{
    unsigned long long n = 0;
    for (int i = 0; i < PROCS; i++)
        n += r[i].compiles;
    return n;
}

START_TEST(four_processes_share_one_folder)
{
    char base[CT_PATH], dir[CT_PATH];
    ck_assert_int_eq(ct_use_fresh_dir(base), 0);
    snprintf(dir, sizeof dir, "%s", dmlcl_cache_directory());
    report r[PROCS];

    /* Each program was compiled once, by one of them; the others waited for it (the
     * compile lock) and loaded it. */
    run_round(r);
    ck_assert_uint_eq(total_compiles(r), VARIANTS);
    for (int i = 0; i < PROCS; i++)
        ck_assert_uint_eq(r[i].compiles + r[i].disk_hits, VARIANTS);
    ct_scan s = expect_valid_folder(dir);

    size_t len = 0;
    unsigned char *data = ct_read(s.entry, &len);
    ck_assert_ptr_nonnull(data);
    ck_assert_int_eq(ct_write(s.entry, data, len / 2), 0);
    free(data);
    run_round(r); /* only the truncated one is compiled again, and once */
    ck_assert_uint_eq(total_compiles(r), 1);
    for (int i = 0; i < PROCS; i++)
        ck_assert_uint_eq(r[i].compiles + r[i].disk_hits, VARIANTS);
    expect_valid_folder(dir);

    /* The children are gone: now this process may use OpenCL. Every entry loads. */
    dmlcl_context *ctx = NULL;
    ck_assert_int_eq(dmlcl_context_create_default(&ctx), DMLCL_SUCCESS);
    for (int v = 0; v < VARIANTS; v++)
        ck_assert_int_eq(ct_run_rs(ctx, variants[v]), 0);
    dmlcl_context_release(ctx);
    dmlcl_cache_stats st;
    dmlcl_cache_get_stats(&st);
    ck_assert_uint_eq(st.compiles, 0);
    ck_assert_uint_eq(st.disk_hits, VARIANTS);
    ct_restore(base);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cache_processes");
    TCase *tc = tcase_create("processes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, four_processes_share_one_folder);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK); /* fork happens inside, before any OpenCL */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
