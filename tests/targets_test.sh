#!/bin/sh
# The CPU kernels build without a warning for every x86 target POCL may pick, whatever
# CPU runs the tests. POCL compiles for the target its kernel library variant names
# (Debian's POCL picks it from the CPU; POCL_KERNELLIB_NAME picks another, and a POCL
# built without variants takes POCL_LLVM_CPU_NAME), so the suites that build the CPU
# variants (the row blocks, the tap pattern) run again, with -Werror as always, for:
#   sse2    baseline x86-64 (16-byte vectors)
#   avx2    Haswell and later (32 bytes)
#   avx512  Skylake-AVX512 and later (64 bytes)
# The programs are built only: the warnings come from the compiler's front end, at build
# time, and the numerical checks run on the host's own target in the other check_dmlcl
# runs (running them again for each target would double the test's compiles: POCL
# generates a kernel's machine code at its first launch).
prog=${DMLCL_TEST_PROGRAM:-tests/check_dmlcl}
case $(uname -m) in
x86_64 | amd64) ;;
*) echo "targets_test: not an x86-64 host, nothing to do"; exit 77 ;;
esac
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
native=$(DMLCL_TEST_SUITES=none "$prog" 2>/dev/null | sed -n 's/^device: .*vector registers of \([0-9]*\) bytes$/\1/p' | head -n1)
status=0
for t in sse2:x86-64:16:sse2 avx2:haswell:32:avx2 avx512:skylake-avx512:64:avx512f; do
    IFS=: read -r lib cpu bytes flag <<EOT
$t
EOT
    if [ "$bytes" = "$native" ]; then
        echo "targets_test: $lib is the host's target ($bytes-byte vectors): checked by the suites"
        continue
    fi
    what="built"
    has "$flag" || what="built (the host lacks $flag)"
    # The tests tagged "targets": the row blocks' cases and the tap patterns, one process.
    log=$(POCL_KERNELLIB_NAME=$lib POCL_LLVM_CPU_NAME=$cpu DMLCL_TEST_COMPILE_ONLY=1 \
        DMLCL_TEST_SUITES="resample1_cpu_rows resample_grad1_layouts" CK_INCLUDE_TAGS=targets \
        "$prog" 2>&1)
    rc=$?
    got=$(echo "$log" | sed -n 's/^device: .*vector registers of \([0-9]*\) bytes$/\1/p')
    if [ "$got" != "$bytes" ]; then
        echo "targets_test: POCL did not build for $lib (vectors of ${got:-?} bytes, want $bytes): cannot check this target here"
        echo "$log" | tail -n 5
        exit 77
    fi
    checks=$(echo "$log" | sed -n 's/^100%: Checks: \([0-9]*\).*/\1/p')
    if [ $rc -ne 0 ] || [ -z "$checks" ] || [ "$checks" -lt 2 ]; then
        echo "targets_test: FAIL: the row blocks and tap patterns for $lib ($cpu):"
        echo "$log" | tail -n 30
        status=1
    else
        echo "targets_test: the row blocks and tap patterns ($checks tests) for $lib ($cpu, $bytes-byte vectors): $what, no warning"
    fi
done
exit $status
