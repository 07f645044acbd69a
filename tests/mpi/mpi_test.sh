#!/bin/sh
# The MPI example (examples/mpi) really run in parallel: `$MPIEXEC -np N` for N = 1, 2, 3
# and 4, slab and 2-D grids, on POCL's CPU device (DMLCL_DEVICE=cpu unless the harness says
# otherwise), through the MPI layer. Every case of every run compares the gathered tiles
# with one process's whole-tensor run, byte for byte. Also: uneven cuts (5 rows over 3 ranks), empty tiles
# and tiles thinner than the halo (3 rows over 4 ranks; the script checks that the
# example reports both), the MPI layer (tests/mpi/layer_test), the host exchange helper
# alone on random boxes (tests/mpi/host_exchange_test), a
# broken halo that must be reported as FAIL (DMLCL_MPI_EXAMPLE_CORRUPT), and --bench
# running, --phases too (its figures are not checked: no timed tests). Run by `make check` from the
# build folder when configure found MPI; prints "N passed, N failed".
set -u
MPIEXEC=${MPIEXEC:-mpiexec}
EXAMPLE=${EXAMPLE:-./examples/mpi/mpi_resample}
HOST_EXCHANGE_TEST=${HOST_EXCHANGE_TEST:-./tests/mpi/host_exchange_test}
LAYER_TEST=${LAYER_TEST:-./tests/mpi/layer_test}
work=$(mktemp -d "${TMPDIR:-/tmp}/dmlcl_mpi.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# Small fields and one POCL thread per rank: up to 4 ranks share the 2 cores of CI. A
# fresh program cache folder: the ranks of a launch compile each program once, one rank
# compiling while the others wait on the folder's compile lock, as on a user's node.
DMLCL_DEVICE=${DMLCL_DEVICE:-cpu}
DMLCL_CACHE_DIR=$work/cache
POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-1}
export DMLCL_DEVICE DMLCL_CACHE_DIR POCL_MAX_PTHREAD_COUNT
unset DMLCL_MPI_EXAMPLE_CORRUPT
# Under --enable-sanitizers: ASan and UBSan stay on, leak checking goes off. Open MPI
# dlcloses its components at MPI_Finalize, so what they keep on purpose is reported as
# leaked from "<unknown module>", which no suppression can name.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
# CI and containers run as root, which Open MPI's launcher refuses unless told.
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Containers often forbid the cross-process reads Open MPI's shared-memory transport uses
# for large messages (it then prints "Read -1, expected ..." and fails): copy instead.
OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMPI_MCA_btl_vader_single_copy_mechanism
# One host: shared memory only, so that no rank probes for networks or starts UCX at every
# launch (MPICH ignores these).
OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
OMPI_MCA_osc=${OMPI_MCA_osc:-^ucx}
export OMPI_MCA_btl OMPI_MCA_pml OMPI_MCA_osc
# A launch whose ranks exit with a failure status (the runs below that must fail) ends at
# once, not after Open MPI's 2 s of waiting to kill the ranks that already ended.
OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-0}
export OMPI_MCA_odls_base_sigkill_timeout
# Open MPI refuses more ranks than cores unless told; MPICH's Hydra does not ask.
case $("$MPIEXEC" --version 2>&1) in
*"Open MPI"* | *OpenRTE*) launch_flags="--oversubscribe" ;;
*) launch_flags="" ;;
esac

progress_name=mpi_test
. "${srcdir:-.}/tests/steps.sh" || exit 99

# mpi NAME STATUS NEEDLES NP PROGRAM ARGS...: the run exits with STATUS and its output
# holds every |-separated NEEDLE.
mpi() {
    name=$1 want=$2 needles=$3 np=$4
    shift 4
    # shellcheck disable=SC2086
    "$MPIEXEC" $launch_flags -np "$np" "$@" >"$work/out" 2>&1
    rc=$?
    if [ $rc -ne "$want" ]; then
        bad "$name (exit status $rc, expected $want)"
        return
    fi
    old_ifs=$IFS
    IFS='|'
    for needle in $needles; do
        if ! grep -qF -- "$needle" "$work/out"; then
            IFS=$old_ifs
            bad "$name (the output lacks: $needle)"
            return
        fi
    done
    IFS=$old_ifs
    ok "$name"
    [ -n "${VERBOSE:-}" ] && cat "$work/out"
    return 0
}

# The exchange alone, on plain arrays (no OpenCL): cheap, so many configurations.
for np in 1 2 3 4; do
    mpi "halo exchange and gather, $np ranks" 0 "PASS" "$np" "$HOST_EXCHANGE_TEST" 150
done

# The MPI layer (include/dmlcl_mpi.h): device-resident fields, halo faces only, every
# case bit for bit against one device, and the faults agreed on every rank.
for np in 1 2 3 4; do
    mpi "the MPI layer, $np ranks" 0 "layer: |passed, 0 failed" "$np" "$LAYER_TEST"
done

# Tiles past the slab bound (2^31 elements) run as several launches, each reading the
# ghosted buffer through its strides: DMLCL_RESAMPLE_PLAN's slab=40 makes these small tiles
# run so, bit for bit.
mpi "the MPI layer, tiles cut into slabs, 3 ranks" 0 "layer: |passed, 0 failed" 3 \
    env DMLCL_RESAMPLE_PLAN=slab=40 "$LAYER_TEST" cases

# The fill probe the GPU node runs at 1-8 GiB (doc/mpi.md), here at 3 MiB: both fills.
mpi "the fill probe" 0 "1-byte pattern, one command: CL_SUCCESS|commands of <= 1 GiB: CL_SUCCESS" \
    1 ./tests/mpi/fill_probe 3

# No wait is unbounded (DMLCL_MPI_TIMEOUT): a rank late past the limit and a device that
# does not finish are errors every rank returns, naming the wait; a rank that never
# arrives ends the job, with the message, in seconds.
mpi "the MPI layer's time limits, 2 ranks" 0 "layer: 4 passed, 0 failed" 2 "$LAYER_TEST" timeouts
start=$(date +%s)
mpi "a rank absent from a collective ends the job" 3 \
    "rank 0: dmlcl_mpi_operator_run: waited 2 s (DMLCL_MPI_TIMEOUT) in the agreement on errors" \
    2 "$LAYER_TEST" absent
[ $(($(date +%s) - start)) -lt 30 ] || bad "the absent rank's job took $(($(date +%s) - start)) s"

# Every case, slab and 2-D grids. 6 x 5 x 7: uneven over 4 and 5 (and 3 over 2).
mpi "1 rank, every case" 0 "PASS: 0 failures" 1 "$EXAMPLE" --grid slab
mpi "2 ranks, slab and 2-D" 0 "PASS: 0 failures|grid 2x1x1|grid 1x2x1" 2 "$EXAMPLE" \
    --grid slab,1x2x1
mpi "3 ranks, slab, 2-D and X cut, uneven" 0 "PASS: 0 failures|grid 3x1x1|grid 1x3x1" 3 \
    "$EXAMPLE" --z 5 --grid slab,1x3x1,1x1x3
mpi "4 ranks, slab and 2x2" 0 "PASS: 0 failures|grid 4x1x1|grid 2x2x1" 4 "$EXAMPLE" \
    --grid slab,2d

# 3 rows over 4 ranks: nearest 0.5x has 2 output rows, so 2 ranks compute nothing; every
# rank owns at most one input row, thinner than the antialiased filter's halo.
mpi "4 ranks, 3 rows: empty tiles, tiles thinner than the halo" 0 \
    "PASS: 0 failures|2 empty tiles|a tile thinner than the halo" 4 "$EXAMPLE" --z 3 \
    --y 4 --x 3 --grid slab,2x2x1

# The test can fail: with every rank's received halo broken, every case must say FAIL
# and the exit status must be 1; with one rank's, the cases where it receives.
mpi "broken halos are reported" 1 \
    "FAIL linear2x |FAIL nearest0.5x |FAIL antialias0.5x |FAIL linear2x-grad |FAIL linear2x-fp16 |FAIL: 5 failures" \
    2 env DMLCL_MPI_EXAMPLE_CORRUPT=all "$EXAMPLE" --grid slab
mpi "one rank's broken halo is reported" 1 "FAIL linear2x |FAIL: 2 failures" 3 \
    env DMLCL_MPI_EXAMPLE_CORRUPT=1 "$EXAMPLE" --grid slab,1x3x1 --case linear2x

# A rank that stops taking part (asleep 60 s) past DMLCL_MPI_TIMEOUT=2: the job ends, with
# the layer's message naming the wait, and a failing status, in seconds.
start=$(date +%s)
mpi "the example with a rank absent past the time limit" 3 \
    "waited 2 s (DMLCL_MPI_TIMEOUT) in the agreement on errors" 2 \
    env DMLCL_MPI_TIMEOUT=2 DMLCL_MPI_EXAMPLE_STALL=1:60 "$EXAMPLE" --grid slab --case linear2x
[ $(($(date +%s) - start)) -lt 30 ] || bad "the absent rank's example took $(($(date +%s) - start)) s"

# Options that name nothing are errors, not silent passes.
mpi "an unknown case is an error" 2 "names nothing" 1 "$EXAMPLE" --case nosuch
mpi "a grid that does not fit the ranks is an error" 2 "names nothing" 2 "$EXAMPLE" \
    --grid 3x1x1

# The benchmark mode runs and prints its table (the figures are not judged here): fields
# resident on the devices through the MPI layer, checked bit for bit where one device
# holds the whole field; a field past one device's largest buffer (--max-buffer-mb makes
# POCL's small) checked by sampled outputs; the host-staged baseline.
mpi "--bench, resident, weak, checked: linear, GRAD1 and antialiased" 0 \
    "| resident weak | linear2x | 2 |PASS (bit for bit)|| resident weak | linear2x-grad | 2 |PASS (bit for bit)|| resident weak | antialias0.5x | 2 |" \
    2 "$EXAMPLE" --bench --mb-per-rank 1 --iters 1 --case linear2x,linear2x-grad,antialias0.5x \
    --check
mpi "--bench, resident, a field past one device, sampled" 0 \
    "sized to the devices|exceeds one device|| resident strong | linear2x | 2 |PASS (2048 sampled" 2 \
    "$EXAMPLE" --bench --mb-total 4 --max-buffer-mb 12 --iters 1 --case linear2x --check
# --phases: every rank's phases of its steps from the layer's profile (DMLCL_MPI_PROFILE),
# each timed: on 3 slabs every rank reads and writes faces and has boundary slabs, so a
# phase printed "-" (untimed) is a failure; the profiled run is still bit for bit.
mpi "--bench --phases: every rank's phases, checked" 0 \
    "| resident weak | antialias0.5x | 3 |PASS (bit for bit)|# phases of antialias0.5x|#   rank 2: step " \
    3 "$EXAMPLE" --bench --phases --mb-per-rank 8 --iters 2 --case antialias0.5x --check
if grep -Eq '^#   rank .* (device|interior|reads|exchange|writes|slabs) -( |$)' "$work/out"; then
    bad "--bench --phases: a phase untimed"
fi
mpi "--bench --staged, weak and strong" 0 "| weak | linear2x | 2 |" 2 "$EXAMPLE" --bench \
    --staged --mb-per-rank 1 --iters 1 --case linear2x --check
mpi "--bench --staged, strong, with a check" 0 "| strong | linear2x-grad | 2 |" 2 "$EXAMPLE" \
    --bench --staged --mb-total 2 --iters 1 --case linear2x-grad --check

# The GPU sweep script on POCL (--pocl-smoke): its table, every row checked, and a job
# that hangs (a rank asleep past the job's time limit) a TIMEOUT row, not a stuck sweep.
SWEEP=${SWEEP:-${srcdir:-.}/examples/mpi/gpu_sweep_mpi.sh}
# sweep NAME STATUS NEEDLE ENV OPTIONS...: ENV, space-separated assignments (or "").
sweep() {
    name=$1 want=$2 needles=$3 vars=$4
    shift 4
    # shellcheck disable=SC2086
    env $vars EXAMPLE="$EXAMPLE" OUT="$work" bash "$SWEEP" --pocl-smoke --ranks 2 --sizes 4 \
        --cases linear2x,reverse "$@" >"$work/out" 2>&1
    rc=$?
    if [ $rc -ne "$want" ]; then
        bad "$name (exit status $rc, expected $want)"
    elif ! grep -qF -- "$needles" "$work/mpi_sweep.markdown"; then
        bad "$name (the table lacks: $needles)"
    else
        ok "$name"
    fi
}
sweep "the sweep script, 2 ranks weak and strong" 0 "4 rows ok, 0 TIMEOUT" "" --strong-sizes 32
sweep "a hung job is a TIMEOUT row" 1 \
    "| 4 | weak | reverse | 2 | - | - | - | - | - | - | - | - | - | - | - | - | TIMEOUT (4 s) |" \
    "DMLCL_MPI_EXAMPLE_STALL=1:60 DMLCL_MPI_TIMEOUT=100" --strong-sizes "" --run-timeout 4

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
