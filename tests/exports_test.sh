#!/bin/sh
# The shared library exports exactly the functions include/dmlcl.h declares, plus test
# hooks (dmlcl_test_*, declared in the library's private headers such as lib/core/*.h),
# and nothing else: no internal dmlcl__ helper, no function that should have been static.
# Each declared function must also be documented in doc/dmlcl.3.
set -u
srcdir=${srcdir:-.}
header=$srcdir/include/dmlcl.h
lib=lib/.libs/libdmlcl.so
# Test hooks (failure injection, leak counts) are exported for the test programs but kept
# out of the public header; the dmlcl_test_ prefix marks them.
hook_prefix=dmlcl_test_

if [ ! -f "$lib" ]; then
    echo "SKIP: $lib not built (static-only build?)"
    exit 77
fi
if ! command -v nm >/dev/null 2>&1; then
    echo "SKIP: nm not found"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmlcl_exports.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# Declared: every name directly followed by '(' (comments stripped first, so an example
# in a comment does not count).
sed -e 's@/\*.*\*/@@g' -e '/\/\*/,/\*\//d' "$header" |
    grep -o 'dmlcl_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:]]*($//' >"$tmp/declared"
sort -u "$tmp/declared" -o "$tmp/declared"

# Exported: defined dynamic symbols of any kind (functions, data), versions stripped.
nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' |
    grep -v '^_init$\|^_fini$' | sort -u >"$tmp/all"
grep "^$hook_prefix" "$tmp/all" >"$tmp/hooks"
grep -v "^$hook_prefix" "$tmp/all" >"$tmp/exported"

status=0
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$extra" ]; then
    echo "FAIL: exported but not declared in include/dmlcl.h:"
    echo "$extra" | sed 's/^/    /'
    status=1
fi
if [ -n "$missing" ]; then
    echo "FAIL: declared in include/dmlcl.h but not exported:"
    echo "$missing" | sed 's/^/    /'
    status=1
fi
# Documented: every declared function appears in the API man page.
for name in $(cat "$tmp/declared"); do
    if ! grep -qw "$name" "$srcdir/doc/dmlcl.3"; then
        echo "FAIL: $name is declared in include/dmlcl.h but missing from doc/dmlcl.3"
        status=1
    fi
done
n=$(wc -l <"$tmp/exported")
[ $status -eq 0 ] && echo "PASS: $lib exports exactly the $n declared names, plus test hooks:" &&
    sed 's/^/    /' "$tmp/hooks"
exit $status
