/* Runs the OpenCL-backed suites in one process, so they share one context and its
 * compiled programs (CK_FORK=no is set by the test environment): every suite, or those
 * $DMLCL_TEST_SUITES names (make check runs groups of them side by side: the .suites files in tests/suites). */
#include "progress.h"
#include "testutil.h"
#include "core/context.h" /* white-box: the device's vector registers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Suite *(*suite_fn)(void);

/* Each suite by the name $DMLCL_TEST_SUITES gives it (its suite_create name). */
static const struct {
    const char *name;
    suite_fn make;
} suites[] = {
    {"validation", validation_suite},
    {"reverse_subsequences", reverse_subsequences_suite},
    {"reverse_variants", reverse_variants_suite},
    {"resample1", resample1_suite},
    {"resample1_layouts", resample1_layouts_suite},
    {"resample1_cpu_rows", resample1_cpu_rows_suite},
    {"resample1_validation", resample1_validation_suite},
    {"resample2", resample2_suite},
    {"resample_grad1", resample_grad1_suite},
    {"resample_grad1_layouts", resample_grad1_layouts_suite},
    {"resample_adjoint", resample_adjoint_suite},
    {"resample3", resample3_suite},
    {"cache", cache_suite},
    {"disk_cache", disk_cache_suite},
    {"threads", threads_suite},
    {"alloc_failure", alloc_failure_suite},
    {"conformance", conformance_suite},
    {"kernel_args", kernel_args_suite},
    {"tiles", tiles_suite},
    {"specialize", specialize_suite},
    {"slabs", slabs_suite},
    {"host", host_suite},
};

/* Whether the space-separated list names `name` (no list: every suite). */
static int listed(const char *list, const char *name)
{
    if (!list || !*list)
        return 1;
    const size_t n = strlen(name);
    for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
        if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

/* 1 if every name in the list is a suite's. */
static int all_known(const char *list)
{
    char word[64];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, " ");
        snprintf(word, sizeof word, "%.*s", (int)n, p);
        int known = n == 0;
        for (size_t i = 0; i < sizeof suites / sizeof suites[0] && !known; i++)
            known = !strcmp(word, suites[i].name);
        if (!known) {
            fprintf(stderr, "DMLCL_TEST_SUITES: no suite is named '%s'\n", word);
            return 0;
        }
        p += n + (p[n] == ' ');
    }
    return 1;
}

/* The target the device compiles for (tests/targets_test.sh reads this line). */
static void print_device(void)
{
    dmlcl_context *c = NULL; /* not tu_context(): Check's asserts work inside tests only */
    if (dmlcl_context_create_default(&c) == DMLCL_SUCCESS)
        printf("device: %s, vector registers of %u bytes\n", c->info.name, c->info.simd_bytes);
    else
        printf("device: none (%s)\n", dmlcl_last_error());
    dmlcl_context_release(c);
    fflush(stdout);
}

int main(void)
{
    tu_build_options(NULL); /* warnings are errors in every kernel build */
    const char *want = getenv("DMLCL_TEST_SUITES");
    if (want && !strcmp(want, "none")) /* the device line alone */
        return print_device(), EXIT_SUCCESS;
    if (!all_known(want))
        return EXIT_FAILURE;
    SRunner *sr = srunner_create(NULL);
    size_t added = 0;
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        if (listed(want, suites[i].name))
            srunner_add_suite(sr, suites[i].make()), added++;
    if (!added) {
        fprintf(stderr, "DMLCL_TEST_SUITES names no suite: '%s'\n", want);
        srunner_free(sr);
        return EXIT_FAILURE;
    }
    print_device();
    tu_progress_start(sr, want ? want : "check_dmlcl");
    srunner_run_all(sr, CK_NORMAL);
    tu_progress_end();
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    dmlcl_cache_stats cs;
    dmlcl_cache_get_stats(&cs);
    printf("program cache: %llu compiles, %llu memory hits, %llu disk hits\n",
           (unsigned long long)cs.compiles, (unsigned long long)cs.memory_hits,
           (unsigned long long)cs.disk_hits);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
