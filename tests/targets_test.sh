#!/bin/sh
# The CPU kernels build without a warning for every x86 target POCL may pick, whatever
# CPU runs the tests. POCL compiles for the target its kernel library variant names
# (Debian's POCL picks it from the CPU; POCL_KERNELLIB_NAME picks another, and a POCL
# built without variants takes POCL_LLVM_CPU_NAME), so the suites that build the CPU
# variants (the row blocks, the tap pattern) run again, with -Werror as always, for:
#   sse2    baseline x86-64 (16-byte vectors)
#   avx2    Haswell and later (32 bytes)
#   avx512  Skylake-AVX512 and later (64 bytes)
# Where the host runs the target's instructions the results are checked as well; where it
# cannot (AVX-512 on an AVX2 host) the programs are built only. The host's own target is
# covered by the other check_dmlcl runs.
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
    if has "$flag"; then only=0; what="built and checked"; else only=1; what="built only (the host lacks $flag)"; fi
    for run in "resample1_cpu_rows:" "resample_grad1_layouts:tap_pattern"; do
        suite=${run%%:*} case_=${run#*:}
        log=$(POCL_KERNELLIB_NAME=$lib POCL_LLVM_CPU_NAME=$cpu DMLCL_TEST_COMPILE_ONLY=$only \
            DMLCL_TEST_SUITES=$suite CK_RUN_CASE=$case_ "$prog" 2>&1)
        rc=$?
        got=$(echo "$log" | sed -n 's/^device: .*vector registers of \([0-9]*\) bytes$/\1/p')
        if [ "$got" != "$bytes" ]; then
            echo "targets_test: POCL did not build for $lib (vectors of ${got:-?} bytes, want $bytes): cannot check this target here"
            echo "$log" | tail -n 5
            exit 77
        fi
        if [ $rc -ne 0 ]; then
            echo "targets_test: FAIL: $suite${case_:+ ($case_)} for $lib ($cpu):"
            echo "$log" | tail -n 30
            status=1
        else
            echo "targets_test: $suite${case_:+ ($case_)} for $lib ($cpu, $bytes-byte vectors): $what, no warning"
        fi
    done
done
exit $status
