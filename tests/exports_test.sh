#!/bin/sh
# Each shared library exports exactly the functions its public header declares, plus test
# hooks (dmlcl_test_*, declared in the library's private headers such as lib/core/*.h),
# and nothing else: no internal dmlcl__ helper, no function that should have been static.
# Each declared function must also be documented in the library's man page. libdmlcl is
# always checked; libdmlcl_mpi whenever configure built it.
set -u
srcdir=${srcdir:-.}
# Test hooks (failure injection, leak counts) are exported for the test programs but kept
# out of the public header; the dmlcl_test_ prefix marks them.
hook_prefix=dmlcl_test_

if ! command -v nm >/dev/null 2>&1; then
    echo "SKIP: nm not found"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmlcl_exports.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0

# check LIB HEADER MANPAGE: LIB's defined dynamic symbols against HEADER's declarations.
check() {
    lib=$1 header=$2 man=$3
    # Declared: every name directly followed by '(' (comments stripped first, so an
    # example in a comment does not count).
    sed -e 's@/\*.*\*/@@g' -e '/\/\*/,/\*\//d' "$header" |
        grep -o 'dmlcl_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' |
        sort -u >"$tmp/declared"
    # Exported: defined dynamic symbols of any kind (functions, data), versions stripped.
    nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' |
        grep -v '^_init$\|^_fini$' | sort -u >"$tmp/all"
    grep "^$hook_prefix" "$tmp/all" >"$tmp/hooks"
    grep -v "^$hook_prefix" "$tmp/all" >"$tmp/exported"
    bad=0
    extra=$(comm -13 "$tmp/declared" "$tmp/exported")
    missing=$(comm -23 "$tmp/declared" "$tmp/exported")
    if [ -n "$extra" ]; then
        echo "FAIL: $lib exports names $header does not declare:"
        echo "$extra" | sed 's/^/    /'
        bad=1
    fi
    if [ -n "$missing" ]; then
        echo "FAIL: $header declares names $lib does not export:"
        echo "$missing" | sed 's/^/    /'
        bad=1
    fi
    for name in $(cat "$tmp/declared"); do
        if ! grep -qw "$name" "$man"; then
            echo "FAIL: $name is declared in $header but missing from $man"
            bad=1
        fi
    done
    [ -s "$tmp/declared" ] || { echo "FAIL: no declarations read from $header"; bad=1; }
    if [ $bad -eq 0 ]; then
        echo "PASS: $lib exports exactly the $(wc -l <"$tmp/exported") names $header" \
            "declares, plus test hooks:"
        sed 's/^/    /' "$tmp/hooks"
    fi
    [ $bad -eq 0 ] || status=1
}

if [ ! -f lib/.libs/libdmlcl.so ]; then
    echo "SKIP: lib/.libs/libdmlcl.so not built (static-only build?)"
    exit 77
fi
check lib/.libs/libdmlcl.so "$srcdir/include/dmlcl.h" "$srcdir/doc/dmlcl.3"
if [ -f mpi/.libs/libdmlcl_mpi.so ]; then
    check mpi/.libs/libdmlcl_mpi.so "$srcdir/include/dmlcl_mpi.h" "$srcdir/doc/dmlcl_mpi.3"
else
    echo "(libdmlcl_mpi not built: configure found no MPI)"
fi
exit $status
