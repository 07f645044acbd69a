#!/bin/sh
# The adding-an-operator checklist (doc/hacking.md), checked: every operator registered in
# include/dmlcl.h's dmlcl_operator_type must appear in each place below, and every document
# that a source file, README.md or doc/*.md cites must be in the repository, and the operators'
# formulas are written out in doc/operators.md only.
# Usage: sh tests/checklist_test.sh (from the source tree; make check sets $srcdir).
# Exit 0 when all holds; 1 with one line per missing entry, naming the file.
top=${srcdir:-.}
cd "$top" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# ---- the registered operators ----------------------------------------------------------------
# "NAME VALUE" per DMLCL_OPERATOR_* enumerator (INVALID left out), from the public header.
ops=$(sed -n '/^typedef enum dmlcl_operator_type/,/}/p' include/dmlcl.h |
      sed -n 's/^ *DMLCL_OPERATOR_\([A-Z0-9_]*\) *= *\([0-9]*\).*/\1 \2/p' | grep -v '^INVALID ')
[ -n "$ops" ] || { echo "FAIL: include/dmlcl.h: no DMLCL_OPERATOR_* enumerators found"; exit 1; }
echo "registered operators: $(echo "$ops" | cut -d' ' -f1 | tr '\n' ' ')"

# ---- the places --------------------------------------------------------------------------------
# One line per place: FILE~PATTERN~WHAT. In PATTERN (grep -E), @E@ is the enumerator's name
# (RESAMPLE_GRAD1), @L@ the lower-case name (resample_grad1, as in dmlcl_resample_grad1_desc),
# @C@ the command-line name (resample-grad1), @M@ the same as the man page writes it
# (resample\-grad1), @V@ the enum value. FILE "lib/" searches every file under lib/.
# Keep this table and doc/hacking.md's checklist in step: the test checks that each FILE is
# named there.
places='include/dmlcl.h~typedef struct dmlcl_@L@_desc~the descriptor
lib/~const dmlcl__op_class dmlcl__@L@_class =~the class (type, name, check, create, input_box, input_range, layout)
lib/operator.c~&dmlcl__@L@_class,~a row of the registry table classes[]
tools/cmd_run.c~"@C@"~the dmlcl run subcommand
tools/bench/cases.c~DMLCL_OPERATOR_@E@([^A-Z0-9_]|$)~a bench case
python/dmlcl/_capi.py~^OPERATOR_@E@ = @V@$~the enum value in the ctypes layer
python/dmlcl/_core.py~C\.OPERATOR_@E@([^A-Z0-9_]|$)~the Python functions and operator objects
fortran/dmlcl.f90~DMLCL_OPERATOR_@E@ = @V@([^0-9]|$)~the enum value in the Fortran module
fortran/dmlcl.f90~bind\(C\), public :: dmlcl_@L@_desc$~the bind(C) descriptor type
fortran/dmlclf.c~DMLCL_OPERATOR_@E@([^A-Z0-9_]|$)~the Fortran routines'"'"' C side
tests/fuzz/fuzz_desc.h~dmlcl_@L@_desc ~the fuzz targets'"'"' descriptors
tests/check_main.c~@L@_suite}~a test suite
tests/check_tiles.c~DMLCL_OPERATOR_@E@([^A-Z0-9_]|$)~the tiles and halo-query tests
tests/cli_test.sh~(^|[ "])@C@( |$)~the command-line tests
doc/api.md~(^|[^A-Z0-9_])@E@ = @V@([^0-9]|$)~the contract'"'"'s list of operator types
doc/dmlcl.3~DMLCL_OPERATOR_@E@([^A-Z0-9_]|$)~the C API manual page
doc/dmlcl.1~run @M@( |$)~the tool'"'"'s manual page
doc/operators.md~^#+( |.*[^A-Z0-9_])@E@([^A-Z0-9_]|$)~a section of the spec
README.md~^\| `@E@`~a row of the README'"'"'s operator table'

# Places an operator may skip, with the reason, one line each: OPERATOR~FILE~WHY.
# An entry here that the operator no longer needs is reported too, so the list stays short.
exceptions='RESAMPLE~python/dmlcl/_core.py~reached as RESAMPLE1 with offsets 0.5 / -0.5
RESAMPLE~fortran/dmlclf.c~reached as RESAMPLE1 with offsets 0.5 / -0.5
RESAMPLE~tools/bench/cases.c~RESAMPLE1'"'"'s kernels and cases
RESAMPLE~tests/check_main.c~tested in resample1_suite (tests/check_resample1.c)'

nl='
'
search() { # search FILE PATTERN: does the pattern occur in FILE (a folder: any file in it)?
    case $1 in
    */) grep -rqE -- "$2" "$1" ;;
    *) grep -qE -- "$2" "$1" ;;
    esac
}

# One sed per operator fills in its names; then one grep per place (the test runs under
# make check beside the suites: a few processes per place, not a dozen).
echo "$ops" | while read -r name value; do
    lower=$(echo "$name" | tr 'A-Z' 'a-z')
    cli=$(echo "$lower" | tr '_' '-')
    man=$(printf '%s\n' "$cli" | sed 's/-/\\\\\\\\-/g')
    printf '%s\n' "$places" | sed -e "s/@E@/$name/g" -e "s/@L@/$lower/g" -e "s/@C@/$cli/g" \
        -e "s/@M@/$man/g" -e "s/@V@/$value/g" | while IFS='~' read -r file pat what; do
        [ -e "$file" ] || { echo "FAIL: $file: missing (a place of the checklist)"; continue; }
        why= # the reason in the exceptions' line "$name~$file~WHY", if there is one
        case $nl$exceptions$nl in
        *"$nl$name~$file~"*)
            why=$nl$exceptions
            why=${why#*"$nl$name~$file~"}
            why=${why%%"$nl"*}
            ;;
        esac
        if search "$file" "$pat"; then
            [ -z "$why" ] || echo "FAIL: $file: $name is there now: drop its exception ($why)"
        elif [ -n "$why" ]; then
            echo "skip: $file: $name ($why)"
        else
            echo "FAIL: $file: DMLCL_OPERATOR_$name is missing from $what (looked for: $pat)"
        fi
    done
done >"${TMPDIR:-/tmp}/checklist.$$"
grep -v '^FAIL' "${TMPDIR:-/tmp}/checklist.$$"
if grep '^FAIL' "${TMPDIR:-/tmp}/checklist.$$"; then fail=1; fi
rm -f "${TMPDIR:-/tmp}/checklist.$$"

# Every place is named in doc/hacking.md's checklist, so the guide and this test agree.
for file in $(echo "$places" | cut -d'~' -f1 | sort -u); do
    grep -qF "\`$file" doc/hacking.md || bad "doc/hacking.md: the checklist does not name $file"
done

# ---- cited documents ---------------------------------------------------------------------------
# Any NAME.md that a source file mentions (comments, strings, EXTRA_DIST) must exist: as a path
# from the top of the tree or from the citing file's folder; a bare name may live in doc/.
sources=$(find lib include tools tests python fortran examples m4 \
               -type f \( -name '*.[ch]' -o -name '*.cpp' -o -name '*.cl' -o -name '*.py' \
               -o -name '*.f90' -o -name '*.sh' -o -name '*.m4' -o -name 'Makefile' -o -name '*.md' \) \
               ! -name 'kernels_gen.c' ! -name '_config.py' ! -name 'libtool.m4' \
               ! -name 'lt*.m4' ! -name 'checklist_test.sh' 2>/dev/null)
resolve() { # resolve CITING_FILE NAME
    name=${2#/}
    case $1 in */*) dir=${1%/*} ;; *) dir=. ;; esac
    [ -f "$name" ] || [ -f "$dir/$name" ] ||
        { case $name in */*) false ;; *) [ -f "doc/$name" ] ;; esac; }
}
files=
for f in $sources configure.ac Makefile.am .ci/run; do [ -f "$f" ] && files="$files $f"; done
# One grep over every file ("FILE:NAME" lines), the names resolved by the shell.
# shellcheck disable=SC2086
for hit in $(grep -oHE '[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md([^A-Za-z0-9_]|$)' $files |
             sed -e 's/[^A-Za-z0-9_]$//' -e 's,:\(top_\)*srcdir/,:,' | sort -u); do
    f=${hit%%:*} cited=${hit#*:}
    resolve "$f" "$cited" || bad "$f cites $cited, which is not in the repository"
done
# "see the README" / README "Section": the README is one screen now; cite doc/*.md.
# shellcheck disable=SC2086
grep -nHE '(see the README|README "|README'"'"'s (table|operator|ONNX))' $files |
    awk -F: '!seen[$1]++ { print "FAIL: " $1 " cites the README for what doc/ holds: " substr($0, length($1) + 2) }' \
    >"${TMPDIR:-/tmp}/checklist.$$"
if [ -s "${TMPDIR:-/tmp}/checklist.$$" ]; then cat "${TMPDIR:-/tmp}/checklist.$$"; fail=1; fi
rm -f "${TMPDIR:-/tmp}/checklist.$$"

# Relative links in README.md and doc/*.md point at files that exist.
for f in README.md doc/*.md; do
    [ -f "$f" ] || continue
    for link in $(grep -oE '\]\([^)#: ]+[)#]' "$f" | sed -e 's/^](//' -e 's/.$//' | sort -u); do
        [ -e "$(dirname "$f")/$link" ] || bad "$f links to $link, which is not there"
    done
done

# The MPI layer is no place of the checklist: it holds and retiles any operator's descriptor
# through libdmlcl (dmlcl_operator_desc_copy, dmlcl_operator_create_tile_box), so its code
# names no operator type and no operator's descriptor struct (a new one needs no change
# there). doc/hacking.md's table says so.
named=$(grep -noE 'DMLCL_OPERATOR_[A-Z0-9_]+|dmlcl_[a-z0-9_]+_desc\b' mpi/*.[ch] 2>/dev/null |
        grep -vE ':dmlcl_(operator|tensor|tile)_desc$')
if [ -n "$named" ]; then
    bad "mpi/ names an operator or its descriptor (it must take any operator through libdmlcl):"
    echo "$named"
else
    echo "mpi/ names no operator type nor descriptor struct"
fi

# ---- each formula once -------------------------------------------------------------------------
# doc/operators.md is the only text of the operators' formulas; the header, manual pages, CLI
# help, bindings' docstrings and other documents say what an operator does and point there.
# (Code under lib/ and kernels/ may keep the math it implements; tests and the C/Python
# references keep theirs.) Each fragment below is distinctive of one formula; the files are
# compared with spaces, backticks and troff's font changes removed, minus and times signs
# (Unicode and troff) made ASCII.
fragments='(o-output_
)/scale-input_
)/scales[d]-input_
floor(n*scale)
floor(nxscale)
floor(x+0.5)
floor(c+0.5)
ceil(x)
ceil(c)
floor(x)
floor(c)
i0=floor(
i1=min(i0
w=x-i0
w=c-i0
1-|j+0.5
c-1/scale
c+1/scale
floor(float32(
floor(inputsize*scale)
floor(inputsizexscale)
productof1-worw
L=min(lengths
L-1-i[axis]
min(lengths(j)'
flat() { # flat FILE: the file's lines as compared, prefixed with their numbers
    LC_ALL=C sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(mi/-/g' -e 's/−/-/g' \
        -e 's/\\(mu/*/g' -e 's/×/*/g' -e 's/[[:space:]`]//g' -- "$1" | grep -n ''
}
for f in README.md include/*.h doc/*.md doc/*.1 doc/*.3 tools/*.c python/dmlcl/*.py fortran/*.f90; do
    case $f in doc/operators.md | fortran/check_fortran.f90) continue ;; esac
    [ -f "$f" ] || continue
    flat "$f" | grep -F -e "$fragments" | while IFS=: read -r line text; do
        echo "FAIL: $f:$line writes out a formula of doc/operators.md (point there): $text"
    done
done >"${TMPDIR:-/tmp}/checklist.$$"
if [ -s "${TMPDIR:-/tmp}/checklist.$$" ]; then cat "${TMPDIR:-/tmp}/checklist.$$"; fail=1; fi
rm -f "${TMPDIR:-/tmp}/checklist.$$"

[ $fail -eq 0 ] && echo "checklist: every registered operator is in every place; every cited" \
    "document exists; each formula is written in doc/operators.md only"
exit $fail
