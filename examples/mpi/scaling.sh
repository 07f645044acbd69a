#!/bin/sh
# Weak or strong scaling of the MPI example: one `mpiexec -np P mpi_resample --bench` per
# rank count, the rows gathered into one Markdown table. Figures, not a test.
#
#   scaling.sh weak 256 "1 2 4 8"            # 256 MiB of input per rank
#   scaling.sh strong 1024 "1 2 4 8"         # 1 GiB of input in all
#   scaling.sh weak 64 "1 2" --case linear2x-grad --grid 2d
#
# Every rank gets the same number of POCL threads in every row (THREADS, default: the
# cores divided by the largest rank count), so a rank's resources do not change with P:
# what efficiency loses is what the ranks cost each other (memory bandwidth, the exchange).
# Environment: MPIEXEC (default mpiexec), MPIEXEC_FLAGS (default for Open MPI:
# --oversubscribe --bind-to none: Open MPI would otherwise pin each rank, and so all its
# POCL threads, to one core), EXAMPLE (default ./examples/mpi/mpi_resample), CORES
# (default nproc), THREADS, DMLCL_DEVICE (default cpu; unset it for GPUs), ITERS (5).
set -eu
mode=${1:?usage: scaling.sh weak|strong MIB \"RANK COUNTS\" [mpi_resample options]}
mib=${2:?MiB per rank (weak) or in all (strong)}
counts=${3:-"1 2 4 8"}
shift 3 2>/dev/null || shift $#
MPIEXEC=${MPIEXEC:-mpiexec}
EXAMPLE=${EXAMPLE:-./examples/mpi/mpi_resample}
CORES=${CORES:-$(nproc)}
largest=1
for p in $counts; do [ "$p" -gt "$largest" ] && largest=$p; done
THREADS=${THREADS:-$((CORES / largest > 0 ? CORES / largest : 1))}
POCL_MAX_PTHREAD_COUNT=$THREADS
DMLCL_DEVICE=${DMLCL_DEVICE-cpu}
export POCL_MAX_PTHREAD_COUNT DMLCL_DEVICE
case $("$MPIEXEC" --version 2>&1) in
*"Open MPI"* | *OpenRTE*) MPIEXEC_FLAGS=${MPIEXEC_FLAGS---oversubscribe --bind-to none} ;;
*) MPIEXEC_FLAGS=${MPIEXEC_FLAGS-} ;;
esac
case $mode in
weak) size="--mb-per-rank $mib" ;;
strong) size="--mb-total $mib" ;;
*) echo "scaling.sh: weak or strong, not $mode" >&2; exit 2 ;;
esac

echo "# $mode scaling, $mib MiB, ranks: $counts; POCL_MAX_PTHREAD_COUNT=$THREADS per rank," \
    "$CORES cores; DMLCL_DEVICE=${DMLCL_DEVICE:-(unset)}; $(uname -n), $(date -u +%Y-%m-%d)"
header=""
for p in $counts; do
    # shellcheck disable=SC2086
    out=$("$MPIEXEC" $MPIEXEC_FLAGS -np "$p" "$EXAMPLE" --bench $size --iters "${ITERS:-5}" "$@")
    [ "$p" = "$(echo "$counts" | awk '{print $1}')" ] && echo "$out" | grep '^# rank 0 '
    if [ -z "$header" ]; then
        echo "$out" | grep '^|' | head -2
        header=1
    fi
    echo "$out" | grep '^| \(resident \)\?\(weak\|strong\) '
done
