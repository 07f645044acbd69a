#!/bin/bash
# The MPI layer over a sweep, not a point: ranks 1..N x input per rank x weak and strong,
# for linear 2x, antialiased 0.5x, GRAD1 of linear 2x and REVERSE_SUBSEQUENCES, every run
# checked (--check: bit for bit against one device where one device holds the whole
# field, else 2048 sampled outputs per rank), every job under `timeout`, so that a hang
# is a TIMEOUT row, never a stuck sweep. One Markdown table. Figures, not a test.
#
#   bash examples/mpi/gpu_sweep_mpi.sh                     # from the build folder, GPUs
#   bash examples/mpi/gpu_sweep_mpi.sh --ranks "2 4" --sizes "1024 2048" --cases linear2x
#   bash examples/mpi/gpu_sweep_mpi.sh --pocl-smoke        # the script itself, on POCL
#
# Jobs: for each rank count (largest first) and each size, one weak job (SIZE MiB of
# input per rank) and one strong job (SIZE MiB in all), each running every case in one
# mpiexec (the example sizes a field that does not fit the devices down and says so in
# the row's "sized" column; "max" asks for 65536 MiB: the largest that fits). Rows the
# budget leaves no time for are listed as NOT RUN.
# Options: --ranks LIST (default 1..N, N = GPUs from nvidia-smi -L, else clinfo, else 1),
# --sizes LIST (MiB per rank, default "256 1024 2048 4096"), --strong-sizes LIST (MiB in
# all, default "4096 8192"), --cases LIST (default linear2x,antialias0.5x,linear2x-grad,
# reverse), --iters N (3), --run-timeout S (per job, 150), --budget S (no job starts
# after S seconds, 500), --pocl-smoke (DMLCL_DEVICE=cpu, sizes "4 16", strong "32",
# ranks "1 2", a 12 MiB largest buffer so that a field past one device is checked by
# samples, one POCL thread per rank).
# Environment: MPIEXEC (mpiexec), MPIEXEC_FLAGS (Open MPI: --oversubscribe --bind-to
# none), EXAMPLE (./examples/mpi/mpi_resample), DMLCL_MPI_TIMEOUT (the layer's and the
# example's bound on any wait, default here 60 s), OUT (if set, the table goes to
# $OUT/mpi_sweep.markdown and the raw output to $OUT/mpi_sweep.log; else ./mpi_sweep.log).
set -u
MPIEXEC=${MPIEXEC:-mpiexec}
EXAMPLE=${EXAMPLE:-./examples/mpi/mpi_resample}
ranks="" sizes="256 1024 2048 4096" strong="4096 8192" iters=3 run_timeout=150 budget=500
cases=linear2x,antialias0.5x,linear2x-grad,reverse extra=""
while [ $# -gt 0 ]; do
    case $1 in
    --ranks) ranks=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --strong-sizes) strong=$2; shift ;;
    --cases) cases=$2; shift ;;
    --iters) iters=$2; shift ;;
    --run-timeout) run_timeout=$2; shift ;;
    --budget) budget=$2; shift ;;
    --pocl-smoke)
        DMLCL_DEVICE=cpu POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-1}
        export DMLCL_DEVICE POCL_MAX_PTHREAD_COUNT
        sizes="4 16" strong="32" iters=1 extra="--max-buffer-mb 12"
        ranks=${ranks:-"2 1"} ;;
    *) echo "gpu_sweep_mpi.sh: unknown option $1 (see the head of the script)" >&2; exit 2 ;;
    esac
    shift
done
gpus() {
    n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    [ "${n:-0}" -gt 0 ] || n=$(clinfo -l 2>/dev/null | grep -ci 'device.*\(nvidia\|gpu\|h100\|h200\)')
    [ "${n:-0}" -gt 0 ] && echo "$n" || echo 1
}
if [ -z "$ranks" ]; then
    n=$(gpus) ranks=""
    for ((p = n; p >= 1; p--)); do ranks="$ranks $p"; done
fi
DMLCL_MPI_TIMEOUT=${DMLCL_MPI_TIMEOUT:-60}
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export DMLCL_MPI_TIMEOUT OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
case $("$MPIEXEC" --version 2>&1) in
*"Open MPI"* | *OpenRTE*) MPIEXEC_FLAGS=${MPIEXEC_FLAGS---oversubscribe --bind-to none} ;;
*) MPIEXEC_FLAGS=${MPIEXEC_FLAGS-} ;;
esac
log=${OUT:+$OUT/}mpi_sweep.log
table=$(mktemp) || exit 1
trap 'rm -f "$table"' EXIT
: >"$log"
start=$SECONDS

# row MODE CASE RANKS ASKED STATUS [the example's row, less "| resident " and " |"]: one
# table row; a job that gave no row for the case gets dashes.
row() {
    if [ -n "${6:-}" ]; then
        echo "| $4 | $6 | $5 |" >>"$table"
    else
        echo "| $4 | $1 | $2 | $3 | - | - | - | - | - | - | - | - | - | - | - | - | $5 |" >>"$table"
    fi
}

# job MODE RANKS MIB: one mpiexec running every case, under timeout.
job() {
    mode=$1 np=$2 mib=$3 opt=--mb-per-rank
    [ "$mode" = strong ] && opt=--mb-total
    [ "$mib" = max ] && mib=65536
    if [ $((SECONDS - start)) -ge "$budget" ]; then
        for c in ${cases//,/ }; do row "$mode" "$c" "$np" "$mib" "NOT RUN (budget ${budget} s)"; done
        return
    fi
    cmd="$MPIEXEC $MPIEXEC_FLAGS -np $np $EXAMPLE --bench $opt $mib --iters $iters --check --case $cases $extra"
    echo "\$ timeout $run_timeout $cmd" | tee -a "$log"
    t0=$SECONDS
    # shellcheck disable=SC2086
    out=$(timeout -k 10 "$run_timeout" $cmd 2>&1)
    rc=$?
    echo "$out" >>"$log"
    # A killed mpiexec can leave its ranks running, holding device memory that the next job
    # then cannot get (on an H200: CL_UNKNOWN_ERROR at the first command on a new buffer):
    # none outlives its job.
    if pkill -KILL -f -- "$EXAMPLE" 2>/dev/null; then
        echo "  (killed ranks left behind by the job)" | tee -a "$log"
        while pgrep -f -- "$EXAMPLE" >/dev/null; do sleep 0.2; done
    fi
    status="ok"
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && status="TIMEOUT (${run_timeout} s)"
    [ "$status" = ok ] && [ $rc -ne 0 ] && status="FAILED (exit $rc): $(echo "$out" |
        grep -m1 -i 'error\|watchdog\|waited\|abort' | cut -c1-160 | tr '|' '/')"
    echo "  $status, $((SECONDS - t0)) s"
    for c in ${cases//,/ }; do
        r=$(echo "$out" | grep "^| resident $mode | $c | $np |" | head -1)
        r=${r#| resident }
        sized=$(echo "$out" | grep -m1 "^# $mode $c: " | grep -q 'sized to the devices' &&
            echo "; the field sized down to the devices")
        row "$mode" "$c" "$np" "$mib" "$status" "${r:+${r% |}$sized}"
    done
}

echo "# MPI layer sweep: ranks ($ranks), per rank ($sizes) MiB weak, ($strong) MiB strong;" \
    "cases $cases; $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ); DMLCL_MPI_TIMEOUT=$DMLCL_MPI_TIMEOUT"
for np in $ranks; do
    for mib in $sizes; do job weak "$np" "$mib"; done
    for mib in $strong; do job strong "$np" "$mib"; done
done
{
    echo "| MiB asked | mode | case | ranks | grid | field (input) | MiB in per rank | kernel ms |" \
        "halo ms | step ms | step/kernel | 1-rank step ms | efficiency | GB/s per GPU |" \
        "1-rank GB/s | check | status |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    cat "$table"
    echo
    echo "$(grep -c ' ok |$' "$table") rows ok, $(grep -c 'TIMEOUT' "$table") TIMEOUT," \
        "$(grep -c 'FAILED' "$table") FAILED, $(grep -c 'NOT RUN' "$table") NOT RUN," \
        "$(grep -c 'FAIL (' "$table") failed checks; $((SECONDS - start)) s"
} | tee ${OUT:+"$OUT/mpi_sweep.markdown"}
! grep -q 'TIMEOUT\|FAILED\|FAIL (' "$table"
