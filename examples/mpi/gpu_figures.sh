#!/bin/sh
# The figures of issue 24 on a node with GPUs: one command per figure, all rows in one
# table, then the goals judged from it. Figures, not a test.
#
#   sh examples/mpi/gpu_figures.sh [RANKS]        # from the build folder; RANKS default 2
#
# Rows (every rank on its own GPU, the (node-local rank mod GPUs)-th):
#   1. device-resident weak scaling, 1 GiB of input per rank (MIB_PER_RANK), linear 2x,
#      antialiased 0.5x and RESAMPLE_GRAD1 of linear 2x; the 1-rank reference (rank 0
#      alone, the same code) is measured in the same job. Goals: step/kernel <= 1.10 and
#      efficiency >= 0.95 on RANKS GPUs.
#   2. a field whose output no single device holds: linear 2x of BIG_MIB (8 GiB) of input,
#      64 GiB out, strong over RANKS GPUs, checked by sampled outputs against the C
#      reference. Goal: GB/s per GPU >= 0.90 of one GPU's on the 1 GiB case (row 1's
#      1-rank GB/s).
#   3. the host-staged baseline (today's path: the whole input tile uploaded every step,
#      host_exchange.c), 1 GiB per rank, linear 2x.
# Environment: MPIEXEC (default mpiexec), MPIEXEC_FLAGS (default for Open MPI:
# --oversubscribe --bind-to none), EXAMPLE (default ./examples/mpi/mpi_resample), ITERS (10),
# MIB_PER_RANK (1024), BIG_MIB (8192), FIGURES_DEVICE (default: unset DMLCL_DEVICE, so
# each rank takes its own GPU; DMLCL_DEVICE=gpu would put every rank on the first GPU).
# Each command is printed before it runs; the raw output goes to figures.log.
set -u
ranks=${1:-2}
MPIEXEC=${MPIEXEC:-mpiexec}
EXAMPLE=${EXAMPLE:-./examples/mpi/mpi_resample}
ITERS=${ITERS:-10}
MIB_PER_RANK=${MIB_PER_RANK:-1024}
BIG_MIB=${BIG_MIB:-8192}
LOG=${LOG:-figures.log}
if [ -n "${FIGURES_DEVICE:-}" ]; then DMLCL_DEVICE=$FIGURES_DEVICE; export DMLCL_DEVICE
else unset DMLCL_DEVICE; fi
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
case $("$MPIEXEC" --version 2>&1) in
*"Open MPI"* | *OpenRTE*) MPIEXEC_FLAGS=${MPIEXEC_FLAGS---oversubscribe --bind-to none} ;;
*) MPIEXEC_FLAGS=${MPIEXEC_FLAGS-} ;;
esac
: >"$LOG"
rows=$(mktemp) || exit 1
trap 'rm -f "$rows"' EXIT

# run NP ARGS...: one job; its table rows are kept, everything goes to the log.
run() {
    np=$1; shift
    echo "\$ $MPIEXEC $MPIEXEC_FLAGS -np $np $EXAMPLE $*" | tee -a "$LOG"
    # shellcheck disable=SC2086
    out=$("$MPIEXEC" $MPIEXEC_FLAGS -np "$np" "$EXAMPLE" "$@" 2>&1)
    rc=$?
    echo "$out" >>"$LOG"
    echo "$out" | grep '^# \(rank\|weak\|strong\)' | sed 's/^/  /'
    [ $rc -eq 0 ] || echo "  (exit status $rc: see $LOG)"
    echo "$out" | grep '^| \(resident \)\?\(weak\|strong\) ' >>"$rows"
}

echo "# issue 24 figures: $ranks ranks, $(uname -n), $(date -u +%Y-%m-%d)"
# 1. weak scaling on the devices: 1 rank, then RANKS (each job measures rank 0 alone first).
run 1 --bench --mb-per-rank "$MIB_PER_RANK" --iters "$ITERS" --check \
    --case linear2x,antialias0.5x,linear2x-grad
run "$ranks" --bench --mb-per-rank "$MIB_PER_RANK" --iters "$ITERS" --check \
    --case linear2x,antialias0.5x,linear2x-grad
# The same without the interior overlap, to show what it buys.
run "$ranks" --bench --mb-per-rank "$MIB_PER_RANK" --iters "$ITERS" --no-overlap \
    --case linear2x,antialias0.5x,linear2x-grad
# 2. a field past one device: checked by samples, never run on one device.
run "$ranks" --bench --mb-total "$BIG_MIB" --iters "$ITERS" --check --case linear2x
# 3. the host-staged baseline.
run "$ranks" --bench --staged --mb-per-rank "$MIB_PER_RANK" --iters "$ITERS" --case linear2x

echo
echo "Device-resident (columns as printed by mpi_resample --bench):"
echo "| mode | case | ranks | grid | field (input) | MiB in per rank | kernel ms | halo ms | step ms | step/kernel | 1-rank step ms | efficiency | GB/s per GPU | 1-rank GB/s | check |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
grep '^| resident ' "$rows"
echo
echo "Host-staged baseline:"
echo "| scaling | case | ranks | grid | field (input) | MiB per rank | kernel ms | exchange ms | upload ms | total ms | 1-rank ms | efficiency |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
grep -v '^| resident ' "$rows"

echo
echo "Goals on $ranks GPUs (first matching row of each):"
awk -F'|' -v P="$ranks" '
function t(s) { gsub(/ /, "", s); return s }
t($2) == "residentweak" && t($4) == P && !seen[t($3)]++ && t($15) != "" {
    sk = t($11) + 0; ef = t($13) + 0
    printf "  %-14s step/kernel %.3f (<= 1.10: %s), efficiency %s (>= 0.95: %s)\n", t($3), sk,
        (sk <= 1.10 ? "met" : "MISSED"), t($13), (ef >= 0.95 ? "met" : "MISSED")
    if (t($3) == "linear2x") one = t($15) + 0
}
t($2) == "residentstrong" && t($3) == "linear2x" { big = t($14) + 0; chk = $16 }
END {
    if (one > 0 && big > 0)
        printf "  big field     %.0f GB/s per GPU vs one GPU on 1 GiB %.0f: %.2f (>= 0.90: %s); check:%s\n",
            big, one, big / one, (big / one >= 0.90 ? "met" : "MISSED"), chk
}' "$rows"
