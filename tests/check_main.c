/* Runs every OpenCL-backed suite in one process, so all share one context and its
 * compiled programs (CK_FORK=no is set by the test environment). */
#include "testutil.h"
#include <stdlib.h>

typedef Suite *(*suite_fn)(void);

static const suite_fn suites[] = {
    validation_suite,
    reverse_subsequences_suite,
    cache_suite,
};

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        srunner_add_suite(sr, suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
