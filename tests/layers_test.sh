#!/bin/sh
# The library's floors run one way (doc/hacking.md, layers): a file under lib/ includes only
# headers of its own folder or of a lower floor. core/ is the lowest (it includes core/
# only); the families (reverse/, resample/) include core/ and their own folder, never each
# other; lib/ on top includes every floor. With every call going through an included
# header, no include or call circle can form. And core names no family (below).
set -u
srcdir=${srcdir:-.}
floor() {
    case $1 in
    core) echo 0 ;;
    .) echo 2 ;;
    *) echo 1 ;;
    esac
}
status=0
checked=0
for f in "$srcdir"/lib/*.[ch] "$srcdir"/lib/*/*.[ch] "$srcdir"/lib/*/*/*.[ch]; do
    [ -f "$f" ] || continue
    rel=${f#"$srcdir"/lib/}
    case $rel in */*) dir=${rel%%/*} ;; *) dir=. ;; esac
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        case $inc in config.h | dmlcl.h) continue ;; esac
        case $inc in */*) to=${inc%%/*} ;; *) to=. ;; esac
        checked=$((checked + 1))
        [ "$to" = "$dir" ] && continue
        if [ "$(floor "$to")" -ge "$(floor "$dir")" ]; then
            echo "FAIL: lib/$rel includes $inc (floor $to is not below $dir)"
            status=1
        fi
    done
done
echo "$checked includes checked"

# Slabs ask the operator class (core/op.h) alone: lib/slabs.c includes core/ and its own
# header, no family's and not the class table's.
for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$srcdir/lib/slabs.c"); do
    case $inc in core/* | slabs.h | config.h | dmlcl.h) ;;
    *)
        echo "FAIL: lib/slabs.c includes $inc (it may include core/ and slabs.h only)"
        status=1
        ;;
    esac
done

# Core knows no family: its code (comments aside) names no family folder (reverse,
# resample, resample1, taps, ...) nor a family's prefix (rs_, r1_); each family registers
# what core needs by passing it in (its override keys, its memo kinds).
families=$(cd "$srcdir/lib" && for d in */ */*/; do d=${d%/}; d=${d##*/}; [ "$d" = core ] || echo "$d"; done | sort -u | tr '\n' '|')
pattern="(${families}subsequence)|(^|[^a-z0-9])(rs|r1)_"
named=$(for f in "$srcdir"/lib/core/*.[ch] "$srcdir"/kernels/core/*.cl; do
    [ -f "$f" ] || continue
    # the file without its comments, each line prefixed with its place
    awk -v name="${f#"$srcdir"/}" '{
        line = $0; out = ""
        while (line != "") {
            if (inblock) {
                i = index(line, "*/")
                if (!i) break
                line = substr(line, i + 2); inblock = 0
            } else {
                b = index(line, "/*"); l = index(line, "//")
                if (l && (!b || l < b)) { out = out substr(line, 1, l - 1); break }
                if (!b) { out = out line; break }
                out = out substr(line, 1, b - 1); line = substr(line, b + 2); inblock = 1
            }
        }
        print name ":" FNR ": " out
    }' "$f"
done | grep -iE ": .*($pattern)")
if [ -n "$named" ]; then
    echo "FAIL: lib/core names a family (core/ must know none; pass what it needs in):"
    echo "$named"
    status=1
else
    echo "core names no family: $(echo "$families" | tr '|' ' ')"
fi

# No circle of calls between the files of one library or program (lib/, tools/, mpi/):
# file A calls file B when A's object leaves undefined a symbol B's object defines; such a
# graph must sort (tsort names the files of a circle). Objects as the build left them:
# libtool's .libs/NAME.o (the MPI layer's .libs/libdmlcl_mpi_la-NAME.o), the tool's
# tools/**/NAME.o.
circles() { # GROUP OBJECT...: prints "circle in GROUP: FILE FILE ..." for each circle
    local group=$1
    shift
    for o in "$@"; do
        case $o in *tests_* | *embed_kernels*) continue ;; esac # a test's or a build tool's copy
        [ -f "$o" ] || continue
        src=$(echo "$o" | sed 's|/\.libs/|/|; s|/libdmlcl_mpi_la-|/|; s|\.o$|.c|')
        nm "$o" | awk -v s="$src" '$1 ~ /^[0-9a-f]+$/ && $2 ~ /[TDBR]/ { print "D", $3, s }
                                  $1 == "U" { print "U", $2, s }'
    done | awk '$1 == "D" { def[$2] = $3; next } { use[NR] = $2; user[NR] = $3 }
                END { for (i in use) { d = def[use[i]]; if (d != "" && d != user[i]) print user[i], d } }' |
        sort -u | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' |
        sed "s|^|circle in $group: |"
}
found=$(circles lib lib/.libs/*.o lib/*/.libs/*.o lib/*/*/.libs/*.o
    circles tools tools/*.o tools/bench/*.o
    circles mpi mpi/.libs/libdmlcl_mpi_la-*.o)
if ! ls lib/.libs/*.o >/dev/null 2>&1; then
    echo "FAIL: no objects under lib/.libs: build the library before this test"
    status=1
elif [ -n "$found" ]; then
    echo "FAIL: files that call each other round a circle (a file calls only files below it):"
    echo "$found"
    status=1
else
    echo "no circle of calls in lib/, tools/, mpi/"
fi

# kernels/ mirrors lib/: each folder of programs is an engine's, named as its host code's
# folder, and no .cl file lives in lib/.
for d in $(cd "$srcdir/kernels" && find . -type d | sed 's|^\./||' | grep -v '^\.$'); do
    if [ ! -d "$srcdir/lib/$d" ]; then
        echo "FAIL: kernels/$d has no twin lib/$d (kernels/ mirrors lib/: one folder per engine)"
        status=1
    fi
done
stray=$(cd "$srcdir" && find lib -name '*.cl')
if [ -n "$stray" ]; then
    echo "FAIL: kernels live under kernels/, not lib/: $stray"
    status=1
else
    echo "kernels/ mirrors lib/: $(cd "$srcdir/kernels" && find . -mindepth 1 -type d | wc -l) folders"
fi
exit $status
