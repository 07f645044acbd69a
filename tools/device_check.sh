#!/usr/bin/env bash
# The checks of a built tree (configured and made, as the dist tarball unpacks) on a
# machine with a GPU and a POCL CPU device, such as the project's GPU node (Ubuntu 24.04,
# POCL 5.0 built with assertions, NumPy 2): one summary, exit 0 only if every check passed.
#   1. tools/pocl/dlhandle_race: whether this POCL has the bug kernel_order.c works around
#      (a finding, not a check: an abort here is POCL's, with OpenCL calls alone);
#   2. the threads suite RUNS times in a row on POCL (-r RUNS, default 50);
#   3. make check on POCL (the README's test command);
#   4. the suites with DMLCL_TEST_DEVICE=gpu (skipped, and said so, without a GPU).
# Usage: tools/device_check.sh [-r RUNS] [-j JOBS], from the top of the built tree; each
# step's log is under ${OUT:-.}/device_check/.
set -u
runs=50 jobs=$(nproc)
while getopts r:j: o; do
    case $o in r) runs=$OPTARG ;; j) jobs=$OPTARG ;; *) exit 2 ;; esac
done
logs=${OUT:-.}/device_check
mkdir -p "$logs"
summary=() failed=0
say() { summary+=("$1"); echo "device_check: $1"; }
passed() { say "PASS  $1"; }
broke() { say "FAIL  $1 (log: $2)"; failed=1; }

# 1. The POCL bug, shown with OpenCL calls alone.
./tools/pocl/dlhandle_race >"$logs/dlhandle_race.log" 2>&1
status=$?
case $status in
    0) say "info  POCL: no dlhandle abort ($(sed -n 1p "$logs/dlhandle_race.log"))" ;;
    134) say "info  POCL aborts in its dlhandle cache with OpenCL calls alone" \
        "(tools/pocl/dlhandle_race; the library orders its launches there)" ;;
    *) broke "tools/pocl/dlhandle_race ended with status $status" "$logs/dlhandle_race.log" ;;
esac

# 2. The threads suite, RUNS times.
make -s -j"$jobs" tests/check_dmlcl >"$logs/build.log" 2>&1 || broke "building the suites" "$logs/build.log"
ok=0
for i in $(seq "$runs"); do
    if CK_FORK=no DMLCL_DEVICE=cpu DMLCL_CACHE_DIR=off DMLCL_SPECIALIZE=off \
        DMLCL_BUILD_OPTIONS=-Werror DMLCL_TEST_SUITES=threads tests/check_dmlcl \
        >"$logs/threads.log" 2>&1; then
        ok=$((ok + 1))
    else
        cp "$logs/threads.log" "$logs/threads.failed.$i.log"
    fi
done
[ "$ok" -eq "$runs" ] && passed "threads suite on POCL: $ok of $runs runs" ||
    broke "threads suite on POCL: $ok of $runs runs passed" "$logs/threads.failed.*.log"

# 3. make check on POCL; 4. the suites on the GPU.
check() { # NAME LOG ENV...
    local name=$1 log=$2
    shift 2
    if env "$@" make -j"$jobs" check >"$log" 2>&1; then
        passed "$name: $(grep -E '^# (TOTAL|FAIL|SKIP):' "$log" | tr -s ' ' | tr '\n' ' ')"
    else
        broke "$name: $(grep -E '^(FAIL|ERROR):' "$log" | tr '\n' ' ')" "$log"
    fi
    cp test-suite.log "${log%.log}.test-suite.log" 2>/dev/null
}
check "make check on POCL" "$logs/check_pocl.log" DMLCL_TEST_DEVICE=cpu
if clinfo -l 2>/dev/null | grep -qi 'nvidia\|amd\|intel(r) graphics'; then
    check "make check, suites on the GPU" "$logs/check_gpu.log" DMLCL_TEST_DEVICE=gpu
else
    say "skip  no GPU platform: the GPU run did not happen"
fi

echo "device_check: summary"
printf '  %s\n' "${summary[@]}"
exit $failed
