#!/bin/sh
# tools/dmlcl-peers kept from rotting (built where configure found OpenCV): a small run of
# every case exits 0 and prints each, so OpenCV agreed with dmlcl wherever the two compute
# the same thing (exit 4 otherwise), and the exit statuses of its --help are kept. A smoke
# test only: the timings of a run this small mean nothing.
set -u
PEERS=${PEERS:-./tools/dmlcl-peers}
work=$(mktemp -d "${TMPDIR:-/tmp}/dmlcl_peers.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
fail=0

# expect NAME STATUS COMMAND...: COMMAND exits with STATUS.
expect() {
    name=$1 want=$2
    shift 2
    "$@" >"$work/out" 2>&1
    rc=$?
    if [ $rc -eq "$want" ]; then
        echo "PASS: $name"
    else
        echo "FAIL: $name (exit status $rc, expected $want)"
        sed 's/^/    | /' "$work/out"
        fail=1
    fi
}

expect "a small run of every case" 0 "$PEERS" --mb 1 --runs 1 --warmup 0 --threads 2
cat "$work/out"
for c in linear2x-nchw linear2x-nhwc nearest2x-nchw nearest2x-nhwc linear-down0.5 linear-1.5 \
         antialias-down0.5; do
    if grep -q "^$c " "$work/out"; then
        echo "PASS: $c printed"
    else
        echo "FAIL: no row for $c"
        fail=1
    fi
done
grep -q "^linear2x-nchw .*\(exact\|ulp\)$" "$work/out" ||
    { echo "FAIL: linear2x-nchw was not compared with OpenCV"; fail=1; }
expect "--help" 0 "$PEERS" --help
expect "--list" 0 "$PEERS" --list --mb 8
expect "an unknown option: usage (1)" 1 "$PEERS" --bogus
expect "--mb x: usage (1)" 1 "$PEERS" --mb x
expect "--case matching no case: usage (1)" 1 "$PEERS" --case 'trilinear*'
expect "--mb 0: out of range (2)" 2 "$PEERS" --mb 0
expect "--threads 300: out of range (2)" 2 "$PEERS" --threads 300
expect "--device matching no device (3)" 3 "$PEERS" --device no-such-device --mb 1 --runs 1
exit $fail
