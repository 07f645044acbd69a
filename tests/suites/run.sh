#!/bin/sh
# make check's driver for check_dmlcl's suites: a .suites file holds the names of the
# suites one process runs (sharing their compiled programs); make -j runs the files side
# by side, and each reports as it ends.
suites=$(cat "$1") || exit 99
DMLCL_TEST_SUITES=$suites
export DMLCL_TEST_SUITES
exec "${DMLCL_TEST_PROGRAM:-tests/check_dmlcl}"
