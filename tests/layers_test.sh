#!/bin/sh
# The library's floors run one way (doc/hacking.md, layers): a file under lib/ includes only
# headers of its own folder or of a lower floor. core/ is the lowest (it includes core/
# only); the families (reverse/, resample/) include core/ and their own folder, never each
# other; lib/ on top includes every floor. With every call going through an included
# header, no include or call circle can form.
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
exit $status
