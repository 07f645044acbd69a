/* Runs every OpenCL-backed suite in one process, so all share one context and its
 * compiled programs (CK_FORK=no is set by the test environment). */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>

typedef Suite *(*suite_fn)(void);

static const suite_fn suites[] = {
    validation_suite,
    reverse_subsequences_suite,
    reverse_variants_suite,
    resample1_suite,
    resample1_layouts_suite,
    resample1_cpu_rows_suite,
    resample1_validation_suite,
    resample2_suite,
    resample_grad1_suite,
    resample_grad1_layouts_suite,
    resample_adjoint_suite,
    resample3_suite,
    cache_suite,
    disk_cache_suite,
    threads_suite,
    alloc_failure_suite,
    conformance_suite,
    tiles_suite,
};

int main(void)
{
    tu_build_options(NULL); /* warnings are errors in every kernel build */
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        srunner_add_suite(sr, suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    dmlcl_cache_stats cs;
    dmlcl_cache_get_stats(&cs);
    printf("program cache: %llu compiles, %llu memory hits, %llu disk hits\n",
           (unsigned long long)cs.compiles, (unsigned long long)cs.memory_hits,
           (unsigned long long)cs.disk_hits);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
