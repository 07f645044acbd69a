#!/bin/sh
# tests/lsan_rerun.sh, on commands that end as LeakSanitizer's runs end: its fatal error
# once (rerun, passes), twice (fails), a real leak report (fails at once, no rerun), and a
# test's own failure (returned as it is, no rerun).
srcdir=${srcdir:-.}
rerun="$srcdir/tests/lsan_rerun.sh"
work=$(mktemp -d) || exit 99
trap 'rm -rf "$work"' EXIT
fail=0

# fake N_FATAL EXIT...: prints LSan's fatal error on its first N_FATAL runs (counted in
# $work/count), then ends with the given status.
cat >"$work/fake" <<'FAKE'
n=$(cat "$WORK/count" 2>/dev/null || echo 0); echo $((n + 1)) >"$WORK/count"
echo "100%: Checks: 3, Failures: 0"
if [ "$n" -lt "$1" ]; then
    echo "==1==LeakSanitizer has encountered a fatal error." >&2
    echo "==1==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)" >&2
    exit 23
fi
[ "$2" = leak ] && { echo "==1==ERROR: LeakSanitizer: detected memory leaks" >&2; exit 23; }
exit "$2"
FAKE

# expect NAME WANT_STATUS WANT_RUNS WANT_TEXT FAKE_ARGS...
expect() {
    name=$1 want=$2 runs=$3 text=$4
    shift 4
    rm -f "$work/count"
    WORK=$work sh "$rerun" sh "$work/fake" "$@" >"$work/out" 2>&1
    status=$?
    got_runs=$(cat "$work/count")
    if [ "$status" -eq "$want" ] && [ "$got_runs" -eq "$runs" ] &&
        { [ -z "$text" ] || grep -q "$text" "$work/out"; }; then
        echo "PASS: $name"
    else
        echo "FAIL: $name: status $status (want $want), $got_runs runs (want $runs)," \
            "want text '$text' in:"
        sed 's/^/    | /' "$work/out"
        fail=1
    fi
}

expect "one fatal error: rerun once, passes" 0 2 "the second run passed" 1 0
expect "two fatal errors: fails" 23 2 "fatal error again: FAIL" 2 0
expect "a leak report: fails without a rerun" 23 1 "detected memory leaks" 0 leak
expect "the test's own failure: returned, no rerun" 1 1 "Checks: 3" 0 1
expect "a pass: one run" 0 1 "Checks: 3" 0 0
if grep -q "running the test once more" "$work/out"; then
    echo "FAIL: a pass said it reran"; fail=1
fi
exit $fail
