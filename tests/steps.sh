# The test scripts' steps (tests/cli_test.sh, tests/mpi/mpi_test.sh), sourced with
# progress_name=NAME set, and $work the folder whose out and err files hold a step's
# output: `ok NAME` and `bad NAME` count a step and print its PASS or FAIL line (a failed
# step with that output), and then `progress` tells make check's console how far the run
# is (tests/progress.h says why): "  ... NAME: N passed" at most every 10 s, and at once
# when a step failed.
pass=0 fail=0
progress_at=$(date +%s) progress_fail=0
progress() {
    case ${DMLCL_TEST_PROGRESS_FD:-} in '' | *[!0-9]*) return 0 ;; esac
    now=$(date +%s)
    [ $((now - progress_at)) -ge 10 ] || [ "$fail" != "$progress_fail" ] || return 0
    progress_at=$now progress_fail=$fail
    msg="  ... $progress_name: $pass passed"
    [ "$fail" -gt 0 ] && msg="$msg, $fail FAILED"
    { eval 'printf "%s\n" "$msg" >&'"$DMLCL_TEST_PROGRESS_FD"; } 2>/dev/null
}
ok() {
    pass=$((pass + 1))
    echo "PASS: $1"
    progress
}
bad() {
    fail=$((fail + 1))
    echo "FAIL: $1"
    sed 's/^/    | /' "$work/out" "$work/err" 2>/dev/null # mpi_test has no err: 2>&1
    progress
}
