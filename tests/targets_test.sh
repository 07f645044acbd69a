#!/bin/sh
# The CPU kernels build without a warning for every x86 target POCL may pick, whatever
# CPU runs the tests. The suites that build the CPU variants (the row blocks, the tap
# pattern) run again, with -Werror as always, for each of
#   sse2    baseline x86-64 (16-byte vectors)
#   avx2    Haswell and later (32 bytes)
#   avx512  Skylake-AVX512 and later (64 bytes)
# that POCL builds here. POCL_KERNELLIB_NAME picks the kernel library variant of a POCL
# built with variants (Debian's, Ubuntu's), which then compiles for that variant's CPU; a
# POCL built without them compiles for POCL_LLVM_CPU_NAME. A POCL with variants takes
# only one the host can run and falls back to the host's best otherwise, so whether a
# target was built is asked of POCL, not inferred from the host: its device name is
# "<driver>-<LLVM CPU it compiles for>-<model>". A target it does not build is "not
# checkable here" and the others are still checked; the test fails when it checked none
# (POCL would be ignoring both variables) and skips only without a POCL device.
# The programs are built only: the warnings come from the compiler's front end, at build
# time, and the numerical checks run on the host's own target in the other check_dmlcl
# runs (running them again for each target would double the test's compiles: POCL
# generates a kernel's machine code at its first launch).
prog=${DMLCL_TEST_PROGRAM:-tests/check_dmlcl}
case $(uname -m) in
x86_64 | amd64) ;;
*) echo "targets_test: not an x86-64 host, nothing to do"; exit 77 ;;
esac
# POCL's CPU device, whichever device the suites run on ($DMLCL_DEVICE).
pocl="Portable Computing Language"
device() { # "name:bytes" of the device check_dmlcl opens, run with env's arguments "$@"
    env "$@" DMLCL_TEST_SUITES=none "$prog" 2>&1 | sed -n 's/^device: \(.*\), vector registers of \([0-9]*\) bytes$/\1:\2/p' | head -n1
}
default=$(device DMLCL_DEVICE="$pocl")
if [ -z "$default" ]; then
    out=$(DMLCL_DEVICE="$pocl" DMLCL_TEST_SUITES=none "$prog" 2>&1)
    case "$out" in
    "device: none"*) echo "SKIP: targets_test: no POCL device: $out"; exit 77 ;;
    esac
    echo "targets_test: FAIL: $prog did not say which device it opened:"
    echo "$out" | tail -n 10
    exit 1
fi
suites=$(device)
on=${suites%:*}
echo "targets_test: POCL's device: ${default%:*}; the suites run on ${on:-no device}"
status=0
checked=0
for t in sse2:x86-64:16:athlon64 avx2:haswell:32 avx512:skylake-avx512:64; do
    # lib: the variant; cpu: the CPU asked for; also: the variant's CPU where it differs.
    IFS=: read -r lib cpu bytes also <<EOT
$t
EOT
    got=$(device POCL_KERNELLIB_NAME="$lib" POCL_LLVM_CPU_NAME="$cpu" DMLCL_DEVICE="$pocl")
    name=${got%:*}
    case "$name" in
    *-"$cpu"-* | *-"${also:-$cpu}"-*) ;;
    *)
        echo "targets_test: $lib: not checkable here: asked for $lib ($cpu), POCL compiles for $name"
        continue ;;
    esac
    if [ "${got#*:}" != "$bytes" ]; then
        echo "targets_test: FAIL: $lib: POCL compiles for $name, but the library's probe (lib/core/simd.cl) finds ${got#*:}-byte vectors, not $bytes"
        status=1
        continue
    fi
    if [ "$got" = "$suites" ]; then
        echo "targets_test: $lib ($name) is the suites' own target: checked by them"
        continue
    fi
    # The tests tagged "targets": the row blocks' cases and the tap patterns, one process.
    log=$(POCL_KERNELLIB_NAME=$lib POCL_LLVM_CPU_NAME=$cpu DMLCL_DEVICE=$pocl \
        DMLCL_TEST_COMPILE_ONLY=1 CK_INCLUDE_TAGS=targets \
        DMLCL_TEST_SUITES="resample1_cpu_rows resample_grad1_layouts" "$prog" 2>&1)
    rc=$?
    checks=$(echo "$log" | sed -n 's/^100%: Checks: \([0-9]*\).*/\1/p')
    case "$log" in *"device: $name,"*) ;; *) rc=1 ;; esac # the run's own device line
    if [ $rc -ne 0 ] || [ -z "$checks" ] || [ "$checks" -lt 2 ]; then
        echo "targets_test: FAIL: the row blocks and tap patterns for $lib ($name):"
        echo "$log" | tail -n 30
        status=1
    else
        echo "targets_test: the row blocks and tap patterns ($checks tests) for $lib ($name, $bytes-byte vectors): built, no warning"
        checked=$((checked + 1))
    fi
done
if [ $status -eq 0 ] && [ $checked -eq 0 ]; then
    echo "targets_test: FAIL: POCL built none of the targets besides the suites' own: it ignores POCL_KERNELLIB_NAME and POCL_LLVM_CPU_NAME?"
    status=1
fi
exit $status
