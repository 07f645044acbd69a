#!/bin/sh
# Issue 25's GPU measurements in one invocation (about 8 minutes on an H200): `dmlcl bench`
# on DMLCL_DEVICE=gpu at --mb 1024 and 4096 and the big-* cases, the same with slabs off
# (slab=0: the 64-bit kernels past 2^32, as before slabs) for comparison, and the sweeps of
# the LINEAR row kernels' outputs per item (rv=4|8|12|16 in DMLCL_RESAMPLE_PLAN).
#
# usage: tools/bench/gpu_sweep.sh OUTDIR [pairs]   (from the build tree; DMLCL=path/to/dmlcl
#        to use another binary, DMLCL_DEVICE to pick another device; `pairs`: only the
#        sweep of the row pairs in two dimensions, about a minute)
#
# Each run writes OUTDIR/NAME.txt (the bench's --verbose output: every row with its shape,
# plan, slabs and checks, then its exit status); OUTDIR/summary.txt collects the rows.
# A run that fails (a wrong output is exit 4) is reported and the others go on.
set -u
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out" || exit 1
top=$(cd "$(dirname "$0")/../.." && pwd)
dmlcl=${DMLCL:-$top/tools/dmlcl}
DMLCL_DEVICE=${DMLCL_DEVICE:-gpu}
DMLCL_SPECIALIZE=sync # each case's specialised program before timing (steady state)
export DMLCL_DEVICE DMLCL_SPECIALIZE
unset DMLCL_RESAMPLE_PLAN DMLCL_RS_PLAN
failed=0
start=$(date +%s)

# bench NAME RESAMPLE_PLAN RS_PLAN ARGS...: one run of the bench with those overrides.
bench() {
    name=$1 rp=$2 sp=$3
    shift 3
    t0=$(date +%s)
    printf '== %s: DMLCL_RESAMPLE_PLAN=%s DMLCL_RS_PLAN=%s dmlcl bench %s\n' "$name" "$rp" "$sp" "$*" |
        tee -a "$out/summary.txt"
    DMLCL_RESAMPLE_PLAN=$rp DMLCL_RS_PLAN=$sp "$dmlcl" bench --verbose "$@" >"$out/$name.txt" 2>&1
    rc=$?
    echo "exit $rc" >>"$out/$name.txt"
    # The rows (a case name at the start of a line) and the notes about slabs.
    grep -E '^[a-z0-9.-]+ +[0-9.]+ \||^create|launches|slabs=|error|wrong|mismatch' "$out/$name.txt" |
        cut -c1-180 >>"$out/summary.txt"
    echo "   ($(($(date +%s) - t0)) s, exit $rc)" | tee -a "$out/summary.txt"
    [ "$rc" -eq 0 ] || failed=1
}

: >"$out/summary.txt"

# Row pairs in two dimensions (pair=2: one window load for up to 4 output rows) against
# the planner's choice, at 8 and 4 outputs per item and 2 or 1 groups per step; linear 2x
# (one pair slot: pair=2 plans as pair=1) shows the shared pair code did not move it.
pairs() {
    c='trilinear2x,linear2x-nchw,linear2x-nhwc'
    bench pairs-default '' '' --mb 1024 --runs 10 --case "$c"
    bench pairs-2 pair=2 '' --mb 1024 --runs 10 --case "$c"
    bench pairs-2-rb1 pair=2,rb=1 '' --mb 1024 --runs 10 --case trilinear2x
    bench pairs-2-rv4 pair=2,rv=4 '' --mb 1024 --runs 10 --case trilinear2x
    bench pairs-2-rv4-rb1 pair=2,rv=4,rb=1 '' --mb 1024 --runs 10 --case trilinear2x
    bench pairs-default-again '' '' --mb 1024 --runs 10 --case "$c"
    bench pairs-2-4096 pair=2 '' --mb 4096 --runs 10 --case trilinear2x
    bench pairs-default-4096 '' '' --mb 4096 --runs 10 --case trilinear2x
}
if [ "${2:-}" = pairs ]; then
    pairs
    echo "== total $(($(date +%s) - start)) s; results in $out (summary.txt)" | tee -a "$out/summary.txt"
    exit $failed
fi
"$dmlcl" bench --list --mb 4096 >"$out/cases-4096.txt" 2>&1

# The planner's choices: every case at 1 GiB and 4 GiB (slabs past 2^31 elements), the
# 8 GiB cases; trilinear2x at --mb 2048 (the issue's 0.27).
bench base-1024 '' '' --mb 1024
bench base-4096 '' '' --mb 4096 --runs 10
bench trilinear-2048 '' '' --mb 2048 --case 'trilinear2x*' --runs 10
bench big '' '' --case 'big-*' --runs 10

# Slabs off: the 64-bit kernels for the whole launch, as before (the cliff).
bench noslab-4096 slab=0 slab=0 --mb 4096 --runs 10 \
    --case 'linear2x-nchw,linear2x-nhwc,nearest2x-nchw,linear2x-grad,trilinear2x'
bench noslab-big slab=0 slab=0 --case 'big-*' --runs 10

# A lower slab limit on the 4 GiB cases: more, smaller launches (2^30, 2^29 elements).
bench slab30-4096 slab=1073741824 slab=1073741824 --mb 4096 --runs 10 \
    --case 'linear2x-nchw,trilinear2x,big-linear,reverse-inner-int8'
bench slab29-4096 slab=536870912 slab=536870912 --mb 4096 --runs 10 \
    --case 'linear2x-nchw,trilinear2x'

# The LINEAR row kernels' outputs per item (default 4): 8 and 16 share more of each window's
# column loads; with and without row pairs.
lin='linear2x-nchw,linear-1.5,linear-down0.5,trilinear2x'
for rv in 4 8 16; do
    bench "rv$rv-1024" "rv=$rv" '' --mb 1024 --runs 20 --case "$lin"
    bench "rv$rv-pair0-1024" "rv=$rv,pair=0" '' --mb 1024 --runs 20 --case "$lin"
done
for rv in 8 16; do
    bench "rv$rv-4096" "rv=$rv" '' --mb 4096 --runs 10 --case 'linear2x-nchw,trilinear2x'
done

pairs
echo "== total $(($(date +%s) - start)) s; results in $out (summary.txt)" | tee -a "$out/summary.txt"
exit $failed
