#!/bin/sh
# make check's driver for a group of check_dmlcl's suites (tests/suites/*.suites: their
# names on one line): the groups run side by side under make -j, each in one process
# whose suites share their compiled programs, and each reports as it ends.
suites=$(cat "$1") || exit 99
DMLCL_TEST_SUITES=$suites
export DMLCL_TEST_SUITES
exec "${DMLCL_TEST_PROGRAM:-tests/check_dmlcl}"
