#!/bin/sh
# examples/fortran/example (built by `make check` against the just-built libdmlclf) against
# the plain C reference of the same computation (fortran/example_reference): same lines,
# numbers equal within 1e-6 relative (the linear values are exact in float32 here). And a
# failure without status=: the module's message first, then ERROR STOP's lines.
set -u
check=${DMLCL_FORTRAN_CHECK:-fortran/check_fortran}
example=${DMLCL_FORTRAN_EXAMPLE:-examples/fortran/example}
reference=${DMLCL_FORTRAN_REFERENCE:-fortran/example_reference}
work=$(mktemp -d "${TMPDIR:-/tmp}/dmlcl_fortran.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
"$check" stop >"$work/got" 2>"$work/err"
rc=$?
first=$(head -n 1 "$work/err")
case $rc:$first in
0:*) echo "FAIL: $check stop: a failure without status= did not stop the program"; exit 1 ;;
*:"dmlcl_resample: DMLCL_INVALID_ARGUMENT: resample1: scales[0] must be finite and > 0"*)
    echo "PASS: a failure without status= prints the message first, then stops (status $rc)" ;;
*) echo "FAIL: $check stop: the message is not stderr's first line:"; cat "$work/err"; exit 1 ;;
esac
"$example" >"$work/got" 2>"$work/err" || {
    echo "FAIL: $example exited with status $?"; cat "$work/got" "$work/err"; exit 1; }
"$reference" >"$work/want" || { echo "FAIL: $reference failed"; exit 99; }
if awk 'NR == FNR { want[FNR] = $0; n = FNR; next }
        { got[FNR] = $0; m = FNR }
        END {
            if (n != m) { printf "%d lines, the reference has %d\n", m, n; exit 1 }
            bad = 0
            for (i = 1; i <= n; i++) {
                if (want[i] ~ /^#/) { if (got[i] != want[i]) { print "line " i ": " got[i]; bad++ }; continue }
                a = got[i] + 0; b = want[i] + 0; d = a - b; if (d < 0) d = -d
                t = b < 0 ? -b : b; if (t < 1) t = 1
                if (d > 1e-6 * t) { printf "line %d: %s, reference %s\n", i, got[i], want[i]; bad++ }
            }
            exit bad > 0
        }' "$work/want" "$work/got"; then
    echo "PASS: $example agrees with the C reference ($(grep -vc '^#' "$work/want") values)"
else
    echo "FAIL: $example differs from the C reference"
    exit 1
fi
