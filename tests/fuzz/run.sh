#!/bin/sh
# Runs each fuzz target of a build configured with --enable-fuzzing for a bounded time on
# its seeds (tests/fuzz/corpus/validation and mpi; fuzz_npy: the .npy files of tests/data).
# What the fuzzer finds goes to a scratch folder, never into the source tree. A crash, a
# memory error, undefined behaviour, an input slower than 5 s (-timeout) or an
# out-of-memory stops the target and fails the run; its input is left in the scratch
# folder and named in the log.
# Usage: tests/fuzz/run.sh BUILD_DIR SRC_DIR [SECONDS_PER_TARGET]
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) secs=${3:-60}
scratch=$(mktemp -d)
# A singleton MPI rank uses shared memory and itself only, as tests/mpi/mpi_test.sh's runs.
OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMPI_MCA_btl OMPI_MCA_btl_vader_single_copy_mechanism
# UBSan's reports recover by default: stop at the first, so that the fuzzer reports it.
# No leak check at exit either (see -detect_leaks below).
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS ASAN_OPTIONS
# The programs make check builds (its tests set -Werror, which is part of POCL's cache
# key): where POCL_CACHE_DIR is the one make check filled (as in .ci/run), the targets'
# operators find most of their programs compiled, so a slow input means our code, not a
# cold compile on a busy machine (those took over 5 s under load, 1 s or less idle).
DMLCL_BUILD_OPTIONS=${DMLCL_BUILD_OPTIONS--Werror}
export DMLCL_BUILD_OPTIONS
status=0
for t in validation mpi npy; do
    prog=$build/tests/fuzz/fuzz_$t
    [ -x "$prog" ] || { echo "fuzz_$t: not built"; continue; }
    seeds=$src/tests/fuzz/corpus/$t
    [ "$t" = npy ] && seeds=$src/tests/data
    mkdir -p "$scratch/$t"
    echo "fuzz_$t: $secs s on $seeds"
    # -detect_leaks=0: libFuzzer checks leaks after every input that allocated more than
    # it freed, and LeakSanitizer's stop-the-world then crashes among POCL's threads ("Tracer
    # caught signal 11"), while OpenMPI keeps what it allocates lazily. Leaks are make
    # check's to find (the ASan build with leak checking); crashes, memory errors, undefined
    # behaviour and hangs are the fuzzers'.
    if ! (cd "$scratch" && "$prog" -max_total_time="$secs" -timeout=5 -detect_leaks=0 \
            -print_final_stats=1 \
            -artifact_prefix="$scratch/" "$scratch/$t" "$seeds" >"$scratch/$t.log" 2>&1); then
        echo "fuzz_$t FAILED (inputs in $scratch):"
        tail -n 60 "$scratch/$t.log"
        status=1
        continue
    fi
    grep -E '^stat::(number_of_executed_units|slowest_unit_time_sec|peak_rss_mb)|^Done' "$scratch/$t.log" || true
done
[ $status -ne 0 ] || rm -rf "$scratch"
exit $status
