/* How far a long test run is, on the console while it runs (tests/progress.c).
 *
 * make check's harness sends a test's output to its .log and prints one line when the
 * test ends, so a suite that compiles for a minute would leave make silent that long.
 * Where $DMLCL_TEST_PROGRESS_FD names an open descriptor (Makefile.am: the harness's
 * AM_TESTS_FD_REDIRECT gives the console's stderr as 9), Check's log of the run goes
 * through a pipe to a thread that prints "  ... WHAT: N checks passed (T s)" there at most
 * every 10 s, and at once for a failure. Elsewhere nothing changes. */
#ifndef DMLCL_TESTS_PROGRESS_H
#define DMLCL_TESTS_PROGRESS_H
#include <check.h>

/* Before srunner_run_all: routes sr's log through the reader (WHAT names the run). */
void tu_progress_start(SRunner *sr, const char *what);
/* After srunner_run_all: the reader's last lines, then it ends. */
void tu_progress_end(void);

#endif
