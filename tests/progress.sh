# make check's console for the test scripts (tests/progress.h says why): sourced after
# `pass=0 fail=0` and progress_name=NAME; `progress` after each step prints
# "  ... NAME: N passed" at most every 10 s, and at once when a step failed.
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
