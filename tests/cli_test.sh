#!/bin/sh
# The dmlcl tool on real .npy files: golden files from tests/data (expected outputs computed
# without dmlcl, see tests/data/README.md), files this script writes byte by byte with
# printf, and every exit status with its message. Run by `make check` from the build
# folder ($srcdir is the source folder); prints "N passed, N failed, N skipped".
#
# Tests marked [RESAMPLE1] need the RESAMPLE1 operator; while the library still answers
# "not implemented yet" for it they are counted as skipped, never as passed.
set -u
srcdir=${srcdir:-.}
DATA=$srcdir/tests/data
DMLCL=${DMLCL:-./tools/dmlcl}
# In the build folder ./tools/dmlcl is libtool's wrapper script, which costs a shell start
# (about 0.15 CPU-s) before each of the ~180 commands below: run the script again once
# under `libtool --mode=execute`, which hands it the real program and its library path.
if [ -z "${DMLCL_CLI_RESOLVED:-}" ] && [ -f ./libtool ] && [ -f "$DMLCL" ] &&
    sed 5q "$DMLCL" | grep -q 'libtool'; then
    DMLCL_CLI_RESOLVED=1
    export DMLCL_CLI_RESOLVED
    exec ${SHELL:-/bin/sh} ./libtool --mode=execute ${SHELL:-/bin/sh} "$0" "$DMLCL"
fi
[ -n "${DMLCL_CLI_RESOLVED:-}" ] && [ $# -gt 0 ] && DMLCL=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/dmlcl_cli.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
# A fresh on-disk program cache, so the --verbose test sees a compile, then a disk hit.
DMLCL_CACHE_DIR=$work/cache
export DMLCL_CACHE_DIR
skip=0
progress_name=cli_test
. "${srcdir:-.}/tests/steps.sh" || exit 99
skipped() { skip=$((skip + 1)); echo "SKIP: $1"; }

# RESAMPLE1 not there yet: the library's placeholder message.
pending() { [ "$1" -eq 3 ] && grep -q "not implemented yet" "$work/err"; }

# expect NAME STATUS NEEDLE COMMAND...: COMMAND exits with STATUS and prints NEEDLE.
expect() {
    name=$1 want=$2 needle=$3
    shift 3
    "$@" >"$work/out" 2>"$work/err"
    rc=$?
    case $name in \[RESAMPLE1\]*) if pending $rc; then skipped "$name"; return; fi ;; esac
    if [ $rc -ne "$want" ]; then
        bad "$name (exit status $rc, expected $want)"
    elif [ -n "$needle" ] && ! grep -qF -- "$needle" "$work/out" "$work/err"; then
        bad "$name (the output lacks: $needle)"
    else
        ok "$name"
    fi
}

# golden NAME EXPECTED.npy "COMPARE OPTIONS" RUN-ARGUMENTS...: `dmlcl run` writes
# NAME.npy, which must equal EXPECTED.npy element by element.
golden() {
    name=$1 expected=$2 cmp=$3
    shift 3
    out=$work/$(echo "$name" | tr -c 'a-zA-Z0-9_\n' _).npy
    "$DMLCL" run "$@" --output "$out" >"$work/out" 2>"$work/err"
    rc=$?
    case $name in \[RESAMPLE1\]*) if pending $rc; then skipped "$name"; return; fi ;; esac
    if [ $rc -ne 0 ]; then
        bad "$name (dmlcl run exited with $rc)"
    elif ! "$DMLCL" npy compare $cmp "$out" "$expected" >"$work/out" 2>"$work/err"; then
        bad "$name (differs from $expected)"
    else
        ok "$name"
    fi
}

# bytes N SIZE ORDER: integer N as SIZE bytes (two's complement), ORDER '<' or '>'.
bytes() {
    k=0 esc=''
    while [ $k -lt "$2" ]; do
        if [ "$3" = '>' ]; then sh_=$((8 * ($2 - 1 - k))); else sh_=$((8 * k)); fi
        esc="$esc\\$(printf %03o $((($1 >> sh_) & 255)))"
        k=$((k + 1))
    done
    printf "$esc"
}

# npy FILE VERSION DESCR FORTRAN SHAPE VALUE...: a .npy file of integers written by hand,
# header padded as NumPy pads it. DESCR such as '>i2'; FORTRAN True or False.
npy() {
    f=$1 ver=$2 descr=$3 fortran=$4 shape=$5
    shift 5
    hdr="{'descr': '$descr', 'fortran_order': $fortran, 'shape': $shape, }"
    if [ "$ver" = 1 ]; then pre=10; else pre=12; fi
    len=$((${#hdr} + 1))
    pad=$(((64 - (pre + len) % 64) % 64))
    {
        printf '\223NUMPY'
        printf "\\$(printf %03o "$ver")\\000"
        bytes $((len + pad)) $((pre - 8)) '<'
        printf "%s%${pad}s\n" "$hdr" ''
        order=${descr%"${descr#?}"} size=${descr#??}
        for v; do bytes "$v" "$size" "$order"; done
    } >"$f"
}

run_rs() { "$DMLCL" run reverse-subsequences "$@"; }

# ---- golden files: REVERSE_SUBSEQUENCES ----------------------------------------------------
golden "reverse: spec example 1 (f4, axis 3)" "$DATA/rs1_expected.npy" "" reverse-subsequences \
    --input "$DATA/rs1_input.npy" --lengths "$DATA/rs1_lengths.npy" --axis 3
golden "reverse: spec example 2 (f4, axis 2)" "$DATA/rs2_expected.npy" "" reverse-subsequences \
    --input "$DATA/rs1_input.npy" --lengths "$DATA/rs2_lengths.npy" --axis 2
golden "reverse: big-endian f2, Fortran order, format 2.0, u8 lengths, NaN payloads" \
    "$DATA/rs3_expected.npy" --bits reverse-subsequences \
    --input "$DATA/rs3_input.npy" --lengths "$DATA/rs3_lengths.npy" --axis 1
golden "reverse: i8, format 3.0, big-endian u4 lengths, axis 0" "$DATA/rs4_expected.npy" "" \
    reverse-subsequences --input "$DATA/rs4_input.npy" --lengths "$DATA/rs4_lengths.npy" --axis 0
golden "reverse: negative axis (-1 = 3)" "$DATA/rs1_expected.npy" "" reverse-subsequences \
    --input "$DATA/rs1_input.npy" --lengths "$DATA/rs1_lengths.npy" --axis=-1

# ---- golden files: RESAMPLE1 and RESAMPLE ---------------------------------------------------
golden "[RESAMPLE1] resample: 4->2 nearest, pixel centres pick 1 and 3" \
    "$DATA/rz1_expected.npy" --bits resample --input "$DATA/rz1_input.npy" --mode nearest \
    --scales 0.5,0.5
golden "[RESAMPLE1] resample: one --scales value is every dimension's (as in Python)" \
    "$DATA/rz1_expected.npy" --bits resample --input "$DATA/rz1_input.npy" --mode nearest \
    --scales 0.5
golden "[RESAMPLE1] resample: --output-size alone sets the scales" \
    "$DATA/rz1_expected.npy" --bits resample --input "$DATA/rz1_input.npy" --mode nearest \
    --output-size 2,2
golden "[RESAMPLE1] resample1: linear 2x, default offsets and output size" \
    "$DATA/rz2_expected.npy" "--max-ulp 2 --atol 1e-6" resample1 --input "$DATA/rz2_input.npy" \
    --mode linear --scales 1,1,2,2
golden "[RESAMPLE1] resample: linear 2x equals resample1 with 0.5/-0.5" \
    "$DATA/rz2_expected.npy" "--max-ulp 2 --atol 1e-6" resample --input "$DATA/rz2_input.npy" \
    --mode linear --scales 1,1,2,2
golden "[RESAMPLE1] resample1: linear, zero offsets, explicit output size" \
    "$DATA/rz3_expected.npy" "--max-ulp 2 --atol 1e-6" resample1 --input "$DATA/rz2_input.npy" \
    --mode linear --scales 1,1,2,2 --input-offsets 0,0,0,0 --output-offsets 0,0,0,0 \
    --output-size 1,1,3,5
golden "[RESAMPLE1] resample1: big-endian f2 nearest x3" "$DATA/rz4_expected.npy" --bits \
    resample1 --input "$DATA/rz4_input.npy" --mode nearest --scales 1,3,3 \
    --input-offsets 0,0,0 --output-offsets 0,0,0
golden "[RESAMPLE1] resample1: Fortran order, fractional scale and offsets" \
    "$DATA/rz5_expected.npy" --bits resample1 --input "$DATA/rz5_input.npy" --mode nearest --scales 1.5,1.5 \
    --input-offsets 0.25,-0.25 --output-offsets 0.1,0.75

# ---- RESAMPLE_GRAD1 and RESAMPLE3 on files written here (f4 as its IEEE bits) -----------------
# DirectML's RESAMPLE_GRAD1 example: forward 2x2 -> 1x3 nearest, scales 0.5,1.5, pixel
# centres, DECREASING; gradient [[4, 5, 6]] gives [[9, 6], [0, 0]]. The default output
# size is floor(1 / 0.5) x floor(3 / 1.5) = 2x2.
npy "$work/g1.npy" 1 '<f4' False '(1, 3)' 1082130432 1084227584 1086324736
npy "$work/g1_expected.npy" 1 '<f4' False '(2, 2)' 1091567616 1086324736 0 0
golden "resample-grad1: DirectML's example (f4, nearest, decreasing)" "$work/g1_expected.npy" \
    --bits resample-grad1 --input "$work/g1.npy" --mode nearest --scales 0.5,1.5 \
    --rounding decreasing
golden "resample-grad1: --output-size and explicit pixel-centre offsets" \
    "$work/g1_expected.npy" --bits resample-grad1 --input "$work/g1.npy" --scales 0.5,1.5 \
    --mode nearest --output-size 2,2 --input-offsets 0.5,0.5 --output-offsets -0.5,-0.5 --rounding decreasing
npy "$work/g1i.npy" 1 '|i1' False '(1, 3)' 4 5 6
npy "$work/g1i_expected.npy" 1 '|i1' False '(2, 2)' 9 6 0 0
golden "resample-grad1: the example in i1, scales from --output-size" \
    "$work/g1i_expected.npy" "" resample-grad1 --input "$work/g1i.npy" --output-size 2,2 \
    --mode nearest --rounding decreasing
# Forward 2 -> 4 linear: out = [a, .75a + .25b, .25a + .75b, b]; gradient [1, 2, 3, 4]
# gives [1 + 1.5 + .75, .5 + 2.25 + 4] = [3.25, 6.75].
npy "$work/g2.npy" 1 '<f4' False '(4,)' 1065353216 1073741824 1077936128 1082130432
npy "$work/g2_expected.npy" 1 '<f4' False '(2,)' 1078984704 1087897600
golden "resample-grad1: linear 2 -> 4 backwards" "$work/g2_expected.npy" --bits resample-grad1 \
    --input "$work/g2.npy" --mode linear --scales 2
# u1: forward 1 -> 4 nearest, so input 0 gets 200 + 100: saturated once, to 255.
npy "$work/g3.npy" 1 '|u1' False '(4,)' 200 100 0 0
npy "$work/g3_expected.npy" 1 '|u1' False '(1,)' 255
golden "resample-grad1: u1 sums saturate" "$work/g3_expected.npy" "" resample-grad1 \
    --input "$work/g3.npy" --mode nearest --scales 4
# RESAMPLE3 4 -> 2 linear, pixel centres: [0, 7, 14, 21] gives [5, 16] antialiased
# ((3a + 3b + c) / 7, (b + 3c + 3d) / 7) and [3.5, 17.5] without.
npy "$work/a3.npy" 1 '<f4' False '(4,)' 0 1088421888 1096810496 1101529088
npy "$work/a3_aa.npy" 1 '<f4' False '(2,)' 1084227584 1098907648
npy "$work/a3_plain.npy" 1 '<f4' False '(2,)' 1080033280 1099694080
golden "resample3: --antialias widens the filter" "$work/a3_aa.npy" "--atol 1e-5" resample3 \
    --input "$work/a3.npy" --mode linear --scales 0.5 --antialias
golden "resample3: without --antialias it is resample2" "$work/a3_plain.npy" --bits resample3 \
    --input "$work/a3.npy" --mode linear --scales 0.5

# ---- files written here, byte by byte -------------------------------------------------------
# [[1,2,3],[4,5,6]] as big-endian int16 in Fortran order (stored 1 4 2 5 3 6), format 3.0.
npy "$work/x16.npy" 3 '>i2' True '(2, 3)' 1 4 2 5 3 6
npy "$work/l16.npy" 1 '<u4' False '(2, 1)' 3 2
npy "$work/e16.npy" 1 '<i2' False '(2, 3)' 3 2 1 5 4 6
expect "npy info: a hand-written Fortran-order big-endian file" 0 \
    "INT16 ('>i2'), shape (2, 3), Fortran order, .npy format 3.0, 6 elements" \
    "$DMLCL" npy info "$work/x16.npy"
golden "reverse: hand-written >i2 Fortran order, format 3.0" "$work/e16.npy" --bits \
    reverse-subsequences --input "$work/x16.npy" --lengths "$work/l16.npy" --axis 1
npy "$work/x8.npy" 2 '|i1' False '(5,)' -128 -1 0 1 127
npy "$work/l8.npy" 1 '>u8' False '(1,)' 4
npy "$work/e8.npy" 1 '|i1' False '(5,)' 1 0 -1 -128 127
golden "reverse: hand-written i1, rank 1, big-endian u8 lengths" "$work/e8.npy" "" \
    reverse-subsequences --input "$work/x8.npy" --lengths "$work/l8.npy" --axis 0
npy "$work/x64.npy" 1 '>u8' False '(1, 3)' -1 9223372036854775807 5
npy "$work/l64.npy" 1 '<u4' False '(1, 1)' 9
npy "$work/e64.npy" 1 '<u8' False '(1, 3)' 5 9223372036854775807 -1
golden "reverse: hand-written >u8 above 2^63, length above the axis size" "$work/e64.npy" "" \
    reverse-subsequences --input "$work/x64.npy" --lengths "$work/l64.npy" --axis 1
expect "npy compare: different values exit 4 and name the index" 4 \
    "differs at (0, 0): 3 vs 1" "$DMLCL" npy compare "$work/e16.npy" "$work/x16.npy"

# ---- --verbose: device, plan, cache outcome, run time ------------------------------------
npy "$work/xv.npy" 1 '<u2' False '(3, 7)' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21
npy "$work/lv.npy" 1 '<u4' False '(3, 1)' 7 2 0

# ---- the integer dtypes of the resample family ----------------------------------------------
# u2 linear 2x along rows (x = o / 2): midpoints round half to even (1.5 -> 2, 2.5 -> 2).
npy "$work/u2want.npy" 1 '<u2' False '(3, 14)' 1 2 2 2 3 4 4 4 5 6 6 6 7 7 \
    8 8 9 10 10 10 11 12 12 12 13 14 14 14 15 16 16 16 17 18 18 18 19 20 20 20 21 21
expect "resample1 on u2: linear rounds half to even" 0 "" "$DMLCL" run resample1 \
    --input "$work/xv.npy" --scales 1,2 --input-offsets 0 --output-offsets 0 \
    --output "$work/u2out.npy"
expect "resample1 on u2: the expected values" 0 "" "$DMLCL" npy compare "$work/u2want.npy" \
    "$work/u2out.npy"
# i4 nearest moves values float32 cannot hold (2^24 + 1).
npy "$work/i4in.npy" 1 '<i4' False '(2,)' 16777217 -2147483647
npy "$work/i4want.npy" 1 '<i4' False '(4,)' 16777217 16777217 -2147483647 -2147483647
expect "resample1 on i4: nearest moves the values" 0 "" "$DMLCL" run resample1 \
    --input "$work/i4in.npy" --mode nearest --scales 2 --output "$work/i4out.npy"
expect "resample1 on i4: the expected values" 0 "" "$DMLCL" npy compare "$work/i4want.npy" \
    "$work/i4out.npy"
expect "resample-grad1 refuses i4" 2 \
    "resample_grad1: input_gradient_tensor data_type must be FLOAT32, FLOAT16, FLOAT64, INT8, UINT8, INT16 or UINT16, got INT32" \
    "$DMLCL" run resample-grad1 --input "$work/i4in.npy" --mode nearest --scales 2 \
    --output-size 1 --output "$work/y.npy"
for what in "device: " "plan: variant=" "program cache: compiled from source" "run time: " \
    "output $work/yv.npy: UINT16"; do
    expect "--verbose prints '$what'" 0 "$what" run_rs --input "$work/xv.npy" \
        --lengths "$work/lv.npy" --axis 1 --output "$work/yv.npy" --verbose --device cpu
    rm -rf "$DMLCL_CACHE_DIR"
done
run_rs --input "$work/xv.npy" --lengths "$work/lv.npy" --axis 1 --output "$work/yv.npy" 2>/dev/null
expect "--verbose: a second process loads the program from the disk cache" 0 \
    "program cache: loaded from the disk cache" run_rs --input "$work/xv.npy" \
    --lengths "$work/lv.npy" --axis 1 --output "$work/yv.npy" -v
awk '/^dmlcl: load time: [0-9.]+ ms \(the inputs read\)$/ { l = NR } /^dmlcl: run time: / { r = NR }
    END { exit !(l && l < r) }' "$work/err" && ok "--verbose: the load time, then the run time" ||
    bad "--verbose: the load time, then the run time"

# ---- usage errors: exit 1 -------------------------------------------------------------------
expect "dmlcl run without an operator" 1 "usage: dmlcl run <operator>" "$DMLCL" run
expect "unknown operator" 1 "unknown operator 'transpose'" "$DMLCL" run transpose
expect "resample2: bad --rounding" 1 "--rounding must be increasing or decreasing, got 'up'" \
    "$DMLCL" run resample2 --input x.npy --output y.npy --scales 2 --rounding up
expect "resample-grad1: bad --rounding" 1 \
    "--rounding must be increasing or decreasing, got 'down'" "$DMLCL" run resample-grad1 \
    --input "$work/g1.npy" --scales 0.5,1.5 --rounding down --output "$work/y.npy"
expect "resample-grad1: neither --scales nor --output-size" 1 \
    "dmlcl run resample-grad1: give --scales, --output-size or both" "$DMLCL" run \
    resample-grad1 --input "$work/g1.npy" --output "$work/y.npy"
expect "resample-grad1: missing --input" 1 "--input is required (see dmlcl run resample-grad1" \
    "$DMLCL" run resample-grad1 --scales 2 --output "$work/y.npy"
expect "resample-grad1 has no --antialias" 1 "unknown option '--antialias'" "$DMLCL" run \
    resample-grad1 --input "$work/g1.npy" --scales 0.5,1.5 --antialias --output "$work/y.npy"
expect "resample3: --antialias takes no value" 1 "option '--antialias' takes no value" \
    "$DMLCL" run resample3 --input "$work/a3.npy" --scales 0.5 --antialias=1 \
    --output "$work/y.npy"
expect "resample2 has no --antialias" 1 "unknown option '--antialias'" "$DMLCL" run resample2 \
    --input "$work/a3.npy" --scales 0.5 --antialias --output "$work/y.npy"
expect "resample3: bad --mode" 1 "--mode 'cubic': expected nearest or linear" "$DMLCL" run \
    resample3 --input "$work/a3.npy" --scales 0.5 --mode cubic --output "$work/y.npy"
expect "unknown option" 1 "unknown option '--bogus'" run_rs --bogus 1
expect "option without its value" 1 "option '--output' needs a value" run_rs --output
expect "missing --axis" 1 "--axis is required" run_rs --input "$work/x16.npy" \
    --lengths "$work/l16.npy" --output "$work/y.npy"
expect "--axis not a number" 1 "--axis 'two': expected an integer" run_rs \
    --input "$work/x16.npy" --lengths "$work/l16.npy" --axis two --output "$work/y.npy"
expect "resample1: bad --scales" 1 "--scales '1,x': expected comma-separated numbers" \
    "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --scales 1,x --output "$work/y.npy"
expect "resample1: bad --mode" 1 "--mode 'cubic': expected nearest or linear" \
    "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --mode cubic --scales 1,1 \
    --output "$work/y.npy"
expect "resample1: neither --scales nor --output-size" 1 "give --scales, --output-size or both" \
    "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --output "$work/y.npy"
expect "resample1: --output-size not whole numbers" 1 \
    "--output-size '2,1.5': expected comma-separated sizes" \
    "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --output-size 2,1.5 --output "$work/y.npy"
expect "resample1: an empty --scales item" 1 "--scales '1,,2': expected comma-separated numbers" \
    "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --scales 1,,2 --output "$work/y.npy"
expect "resample has no offsets" 1 "unknown option '--input-offsets'" "$DMLCL" run resample \
    --input "$DATA/rz1_input.npy" --scales 1,1 --input-offsets 0,0 --output "$work/y.npy"
expect "npy compare needs two files" 1 "give two .npy files" "$DMLCL" npy compare "$work/e8.npy"
[ ! -e "$work/y.npy" ] && ok "no output file after usage errors" || bad "an output file appeared"

# ---- --help everywhere: exit 0, exit statuses documented ------------------------------------
for cmd in "run" "run reverse-subsequences" "run resample1" "run resample" "run resample2" \
    "run resample-grad1" "run resample3" "npy"; do
    expect "dmlcl $cmd --help" 0 "exit status" "$DMLCL" $cmd --help
done
expect "reverse-subsequences --help documents status 3" 0 "3  device error" run_rs -h
expect "dmlcl run --help lists resample-grad1" 0 "resample-grad1        the backward pass" \
    "$DMLCL" run --help
expect "dmlcl run --help lists resample3" 0 "resample3             resample2 with antialiased" \
    "$DMLCL" run --help
expect "resample-grad1 --help documents the default output size" 0 \
    "default floor(gradient size /" "$DMLCL" run resample-grad1 --help
expect "resample3 --help documents --antialias" 0 "--antialias            the widened filter" \
    "$DMLCL" run resample3 -h
expect "dmlcl --help lists run and npy" 0 "run        run an operator on .npy files" "$DMLCL" --help
for what in "clean-tmp  remove the temporary files" "version    print dmlcl's version (also --version)"; do
    grep -qF -- "$what" "$work/out" && ok "dmlcl --help lists '$what'" ||
        bad "dmlcl --help lists '$what'"
done

# The resample family's dtypes: --help, dmlcl(1) and the README say the same words.
types="f4, f2, i1, u1, i2 and u2 on every device; f8 where the device has cl_khr_fp64"
types32="i4 and u4 with nearest only (not resample-grad1)"
for cmd in resample1 resample resample2 resample-grad1 resample3; do
    expect "run $cmd --help names the dtypes" 0 "Dtypes: $types" "$DMLCL" run $cmd --help
    grep -qF "$types32" "$work/out" && ok "run $cmd --help names the 32-bit integers' rule" ||
        bad "run $cmd --help names the 32-bit integers' rule"
    grep -q "where supported" "$work/out" && bad "run $cmd --help still says 'where supported'"
done
for doc in "$srcdir/doc/dmlcl.1" "$srcdir/README.md"; do
    tr '\n' ' ' <"$doc" | grep -qF "$types" && tr '\n' ' ' <"$doc" | grep -qF "$types32" &&
        ok "$(basename "$doc") names the same dtypes" ||
        bad "$(basename "$doc") names the same dtypes"
done

# ---- input errors: exit 2 ---------------------------------------------------------------------
expect "missing input file" 2 "$work/none.npy: cannot open: No such file or directory" \
    run_rs --input "$work/none.npy" --lengths "$work/l16.npy" --axis 1 --output "$work/y.npy"
printf 'hello, not a numpy file\n' >"$work/text.npy"
expect "not a .npy file" 2 "$work/text.npy: not a .npy file" run_rs --input "$work/text.npy" \
    --lengths "$work/l16.npy" --axis 1 --output "$work/y.npy"
npy "$work/c8.npy" 1 '<c8' False '(1,)' 0
expect "unsupported dtype" 2 "$work/c8.npy: unsupported dtype '<c8'" run_rs \
    --input "$work/c8.npy" --lengths "$work/l16.npy" --axis 0 --output "$work/y.npy"
npy "$work/short.npy" 1 '<i4' False '(2, 3)' 1 2 3 4 5
expect "data shorter than the shape" 2 \
    "$work/short.npy: data truncated: shape (2, 3) of '<i4' needs 24 bytes, the file has 20" \
    run_rs --input "$work/short.npy" --lengths "$work/l16.npy" --axis 1 --output "$work/y.npy"
npy "$work/huge.npy" 1 '<f8' False '(4000000000, 400000000)' 1
expect "a shape far beyond the file (no huge allocation)" 2 "data truncated: shape (4000000000, 400000000) of '<f8' needs 12800000000000000000 bytes"\
    run_rs --input "$work/huge.npy" --lengths "$work/l16.npy" --axis 1 --output "$work/y.npy"
head -c 20 "$work/x16.npy" >"$work/cut.npy"
expect "header length beyond the file" 2 "$work/cut.npy: header length 116 runs past the end" \
    run_rs --input "$work/cut.npy" --lengths "$work/l16.npy" --axis 1 --output "$work/y.npy"
npy "$work/r9.npy" 1 '<i4' False '(1, 1, 1, 1, 1, 1, 1, 1, 1)' 1
expect "rank 9" 2 "shape has 9 dimensions: dmlcl tensors have 1 to 8" run_rs \
    --input "$work/r9.npy" --lengths "$work/l16.npy" --axis 1 --output "$work/y.npy"
expect "lengths of the wrong shape" 2 \
    "--lengths $DATA/rs2_lengths.npy has shape (1, 1, 1, 4); expected (1, 1, 3, 1): the input's shape (1, 1, 3, 4) with 1 on axis 3" \
    run_rs --input "$DATA/rs1_input.npy" --lengths "$DATA/rs2_lengths.npy" --axis 3 \
    --output "$work/y.npy"
expect "float lengths" 2 "--lengths $DATA/rs1_input.npy holds FLOAT32: lengths are uint32 or uint64" \
    run_rs --input "$DATA/rs1_input.npy" --lengths "$DATA/rs1_input.npy" --axis 3 \
    --output "$work/y.npy"
# One voice for the axis: past the end and before the start, the same message.
for ax in 2 -3 9 99999999999999999999; do
    expect "--axis $ax on a 2-D input" 2 \
        "dmlcl run reverse-subsequences: --axis $ax: $work/x16.npy has 2 dimensions: give 0 to 1, or -2 to -1" \
        run_rs --input "$work/x16.npy" --lengths "$work/l16.npy" --axis "$ax" --output "$work/y.npy"
done
expect "resample1: --scales count differs from the rank" 2 \
    "--scales has 3 values but $DATA/rz1_input.npy has 2 dimensions" "$DMLCL" run resample1 \
    --input "$DATA/rz1_input.npy" --scales 1,1,1 --output "$work/y.npy"
expect "resample1: default output size floor(4 x 0.2) = 0" 2 \
    "output size of dimension 1 is floor(4 x 0.2) = 0" "$DMLCL" run resample1 \
    --input "$DATA/rz1_input.npy" --scales 1,0.2 --output "$work/y.npy"
expect "resample1: negative scale" 2 \
    "--scales: -2 for dimension 1; scales must be finite and > 0" "$DMLCL" run resample1 \
    --input "$DATA/rz1_input.npy" --scales 1,-2 --output-size 4,4 --output "$work/y.npy"
expect "resample1: a zero --output-size" 2 \
    "--output-size: 0 for dimension 1; sizes are 1 to 4294967295" "$DMLCL" run resample1 \
    --input "$DATA/rz1_input.npy" --output-size 2,0 --output "$work/y.npy"
# A well-formed number out of range is 2 wherever it is given, a negative one included.
expect "resample1: a negative --output-size" 2 \
    "--output-size: -4 for dimension 1; sizes are 1 to 4294967295" "$DMLCL" run resample1 \
    --input "$DATA/rz1_input.npy" --output-size 2,-4 --output "$work/y.npy"
expect "resample1: --output-size not a number" 1 \
    "--output-size '2,-x': expected comma-separated sizes (whole numbers)" "$DMLCL" run \
    resample1 --input "$DATA/rz1_input.npy" --output-size 2,-x --output "$work/y.npy"
expect "resample1: --output-offsets not finite" 2 \
    "--output-offsets: inf for dimension 0; offsets must be finite" "$DMLCL" run resample1 \
    --input "$DATA/rz1_input.npy" --scales 2,2 --output-offsets inf,0 --output "$work/y.npy"
expect "resample-grad1: default output size floor(1 / 4) = 0" 2 \
    "output size of dimension 0 is floor(1 / 4) = 0" "$DMLCL" run resample-grad1 \
    --input "$work/g1.npy" --scales 4,1 --output "$work/y.npy"
expect "resample-grad1: negative scale (the operator's validation)" 2 \
    "--scales: -1.5 for dimension 1; scales must be finite and > 0" "$DMLCL" run resample-grad1 \
    --input "$work/g1.npy" --scales 0.5,-1.5 --output-size 2,2 --output "$work/y.npy"
expect "resample-grad1: --input-offsets count differs from the rank" 2 \
    "--input-offsets has 3 values but $work/g1.npy has 2 dimensions (1, 3): give one per dimension or one for all" \
    "$DMLCL" run resample-grad1 --input "$work/g1.npy" --scales 0.5,1.5 --input-offsets 0,0,0 \
    --output "$work/y.npy"
npy "$work/x32.npy" 1 '<i4' False '(1, 2)' 16777217 -2147483648
expect "resample3: i4 linear (the operator's validation)" 2 \
    "rejected by the operator: resample3: data_type INT32 takes interpolation_mode 0 (NEAREST_NEIGHBOR) only, got 1 (LINEAR): LINEAR computes in float32, which holds 32-bit integers exactly only up to 2^24" \
    "$DMLCL" run resample3 --input "$work/x32.npy" --scales 1,1 --antialias --output "$work/y.npy"
[ ! -e "$work/y.npy" ] && ok "no output file after input errors" || bad "an output file appeared"
expect "output folder missing" 2 "$work/no/y.npy: cannot create" run_rs \
    --input "$DATA/rs1_input.npy" --lengths "$DATA/rs1_lengths.npy" --axis 3 \
    --output "$work/no/y.npy"

# ---- every check before any work proportional to a size ---------------------------------------
# big.npy's header promises 1.25 GiB of int32 (a sparse file: no disk used). Under a 1 GiB
# address-space limit a run that read the data before checking would end in "out of
# memory for 1342177280 bytes of data": each refusal below names its own rule instead,
# so it came from the header alone, before any of the data was read or any output made.
# Where the device's runtime itself needs more address space (a sanitizer's shadow
# memory, POCL's threads on many cores, a GPU driver's reservations), the run of a small
# file under the limit fails, and these checks say they are skipped.
npy "$work/big.npy" 1 '<i4' False '(320, 1024, 1024)'
truncate -s +1342177280 "$work/big.npy"
capped() { (ulimit -v 1048576 && exec "$@"); }
if capped "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --scales 2,2 \
    --output "$work/cap.npy" >/dev/null 2>&1; then
    rm -f "$work/cap.npy"
    expect "before the data: a bad scale" 2 \
        "--scales: -1 for dimension 0; scales must be finite and > 0" \
        capped "$DMLCL" run resample --input "$work/big.npy" --scales -1 --output "$work/y.npy"
    expect "before the data: an output over the device's buffer limit" 3 \
        "over this device's limit of" capped "$DMLCL" run resample --input "$work/big.npy" \
        --scales 4 --mode nearest --output "$work/y.npy"
    expect "before the data: the operator's validation" 2 \
        "data_type INT32 takes interpolation_mode 0 (NEAREST_NEIGHBOR) only, got 1 (LINEAR)" \
        capped "$DMLCL" run resample --input "$work/big.npy" --scales 1 --mode linear \
        --output "$work/y.npy"
    expect "before the data: reverse-subsequences' axis" 2 \
        "--axis 3: $work/big.npy has 3 dimensions: give 0 to 2, or -3 to -1" \
        capped "$DMLCL" run reverse-subsequences --input "$work/big.npy" --lengths "$work/lv.npy" --axis 3 --output "$work/y.npy"
else
    rm -f "$work/cap.npy"
    skipped "before the data: dmlcl does not run a small file under a 1 GiB address-space limit on this device"
fi
rm -f "$work/big.npy"
[ ! -e "$work/y.npy" ] && ok "no output file after the refusals before the data" ||
    bad "an output file appeared"

# ---- a failed write keeps the old output: full file system, read-only folder, rename ---------
# npy_save writes a temporary file beside the output, syncs it and renames it over the
# output; on any failure the old file keeps its bytes and no temporary file is left.
cp "$DATA/rs1_input.npy" "$work/keep.orig"
notemp() { ! ls -A "$1" | grep -q '\.tmp-'; }
cp "$work/keep.orig" "$work/keep.npy"
"$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --scales 1,1 --output "$work/keep.npy" \
    >"$work/out" 2>"$work/err" && "$DMLCL" npy compare "$work/keep.npy" "$DATA/rz1_input.npy" \
    >>"$work/out" 2>>"$work/err" && notemp "$work" &&
    ok "an existing output is replaced, no temporary file left" ||
    bad "an existing output is replaced, no temporary file left"
mkdir "$work/adir"
expect "--output names a folder: the rename fails" 2 \
    "$work/adir: cannot replace: Is a directory (the existing file is unchanged)" \
    "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --scales 1,1 --output "$work/adir"
[ -d "$work/adir" ] && notemp "$work" && ok "--output folder: still a folder, no temporary file" ||
    bad "--output folder: still a folder, no temporary file"
if [ "$(id -u)" != 0 ]; then
    mkdir "$work/ro" && cp "$work/keep.orig" "$work/ro/keep.npy" && chmod a-w "$work/ro"
    expect "read-only folder (chmod): exit 2" 2 "$work/ro/keep.npy: cannot create: Permission denied (the existing file is unchanged)" \
        "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --scales 1,1 --output "$work/ro/keep.npy"
    cmp -s "$work/ro/keep.npy" "$work/keep.orig" && notemp "$work/ro" &&
        ok "read-only folder (chmod): old file unchanged, no temporary file" ||
        bad "read-only folder (chmod): old file unchanged, no temporary file"
    chmod u+w "$work/ro"
fi
# A 64 KiB tmpfs in a mount namespace of our own (root: unshare -m; a user: unshare -rm,
# where user namespaces are allowed), then the same tmpfs bound over itself read-only (a
# plain remount,ro is refused in a user namespace). The script records each run's status,
# whether keep.npy kept its bytes and the folder's listing.
cat >"$work/fullfs.sh" <<'SCRIPT'
mnt=$1 orig=$2 res=$3
shift 3
mount -t tmpfs -o size=64k dmlcl_test "$mnt" 2>"$res/mount.err" || exit 77
cp "$orig" "$mnt/keep.npy"
for what in full ro; do
    if [ $what = ro ] && ! { mount --bind "$mnt" "$mnt" && mount -o remount,bind,ro "$mnt"; } \
        2>"$res/ro.skip"; then
        continue
    fi
    "$@" --output "$mnt/keep.npy" >"$res/$what.out" 2>"$res/$what.err"
    echo $? >"$res/$what.rc"
    cmp -s "$mnt/keep.npy" "$orig" && echo same >"$res/$what.cmp"
    ls -A "$mnt" >"$res/$what.ls"
done
SCRIPT
mkdir "$work/mnt" "$work/res"
ns=
if unshare -m true 2>/dev/null; then ns="unshare -m"
elif unshare -rm true 2>/dev/null; then ns="unshare -rm"; fi
if [ -z "$ns" ]; then
    skipped "full file system and read-only tmpfs (no mount namespace here: unshare -m and unshare -rm both refused)"
else
    # 640 KB of output (4x4 f4 x 100 x 100) into 64 KiB.
    $ns sh "$work/fullfs.sh" "$work/mnt" "$work/keep.orig" "$work/res" "$DMLCL" run resample1 \
        --input "$DATA/rz1_input.npy" --scales 100,100
    st=$?
    if [ $st -eq 77 ]; then
        skipped "full file system and read-only tmpfs ($ns cannot mount a tmpfs: $(head -c 200 "$work/res/mount.err"))"
    else
        for what in full ro; do
            if [ ! -e "$work/res/$what.rc" ]; then
                skipped "read-only folder ($ns cannot remount the tmpfs read-only: $(head -c 200 "$work/res/ro.skip"))"
                continue
            fi
            if [ $what = full ]; then
                label="full file system" want="write error: No space left on device (the existing file is unchanged)"
            else
                label="read-only folder" want="cannot create: Read-only file system (the existing file is unchanged)"
            fi
            cp "$work/res/$what.out" "$work/out"; cp "$work/res/$what.err" "$work/err"
            if [ "$(cat "$work/res/$what.rc")" != 2 ]; then
                bad "$label: exit status $(cat "$work/res/$what.rc"), expected 2"
            elif [ ! -e "$work/res/$what.cmp" ]; then
                bad "$label: keep.npy changed or is gone"
            elif [ "$(cat "$work/res/$what.ls")" != keep.npy ]; then
                bad "$label: left in the folder: $(tr '\n' ' ' <"$work/res/$what.ls")"
            elif ! grep -qF "$work/mnt/keep.npy: $want" "$work/err"; then
                bad "$label: the message lacks: $want"
            else
                ok "$label: exit 2, keep.npy keeps its bytes, no temporary file"
            fi
        done
    fi
fi

# ---- a run killed while it writes: SIGTERM removes its temporary file; `dmlcl clean-tmp`
# removes those of runs killed outright, and nothing else ----------------------------------
# 64 MiB of output (rz1's 4 x 4 f4 scaled by 1024): the temporary file lives long enough
# (write and fsync) to be seen; SIGTERM comes as soon as it is.
cp "$work/keep.orig" "$work/big.npy"
"$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --scales 1024,1024 \
    --output "$work/big.npy" >"$work/out" 2>"$work/err" &
pid=$! seen=
while [ -z "$seen" ] && kill -0 $pid 2>/dev/null; do
    for f in "$work"/big.npy.tmp-*; do [ -e "$f" ] && seen=$f; done
    [ -n "$seen" ] && kill -TERM $pid || sleep 0.01
done
wait $pid
rc=$?
if [ -z "$seen" ]; then
    skipped "SIGTERM while the output is written (the run ended, status $rc, before its temporary file was seen)"
elif [ $rc -ne 143 ]; then
    bad "SIGTERM while the output is written: exit status $rc, expected 143 (killed by SIGTERM)"
elif [ -e "$seen" ] || ! notemp "$work"; then
    bad "SIGTERM while the output is written: $seen left behind"
elif ! cmp -s "$work/big.npy" "$work/keep.orig"; then
    bad "SIGTERM while the output is written: the old output changed"
else
    ok "SIGTERM while the output is written: no temporary file left, the old output kept"
fi
rm -f "$work/big.npy"
# What a run killed outright leaves (2147483646: no process has that id), and files that
# only look alike, which must all survive: another output's, other suffixes, leading
# zeros, n past 99, a folder, a link (and its target), a running process's (this shell).
ct=$work/ct stale=out.npy.tmp-2147483646-0
mkdir "$ct" "$ct/out.npy.tmp-2147483646-1"
printf 'partial' >"$ct/$stale"
printf 'target' >"$ct/target"
ln -s target "$ct/out.npy.tmp-2147483646-2"
for f in out.npy.tmp-$$-0 out.npy.tmp-2147483646-0.bak out.npy.tmp-02147483646-0 \
    out.npy.tmp-2147483646-100 out.npy.tmp-x-0 out.npy.tmp--5-0 other.npy.tmp-2147483646-0 \
    xout.npy.tmp-2147483646-0 out.npy.tmp-2147483646-; do
    printf 'keep' >"$ct/$f"
done
ls -A "$ct" | grep -vxF "$stale" | sort >"$work/ct.keep"
expect "clean-tmp --dry-run lists the stale temporary file" 0 \
    "stale $ct/$stale (7 bytes): process 2147483646 is gone" "$DMLCL" clean-tmp --dry-run "$ct/out.npy"
grep -qF "kept $ct/out.npy.tmp-$$-0 (4 bytes): process $$ is running" "$work/out" &&
    [ -e "$ct/$stale" ] && ok "clean-tmp --dry-run: a running process's file is kept, nothing removed" ||
    bad "clean-tmp --dry-run: a running process's file is kept, nothing removed"
expect "run notes the stale temporary file beside its output" 0 \
    "note: 1 temporary file of killed runs (7 bytes) beside $ct/out.npy; 'dmlcl clean-tmp $ct/out.npy' removes it" \
    "$DMLCL" run resample1 --input "$DATA/rz1_input.npy" --scales 1,1 --output "$ct/out.npy"
rm -f "$ct/out.npy"
expect "clean-tmp removes the stale temporary file" 0 \
    "removed $ct/$stale (7 bytes): process 2147483646 is gone" "$DMLCL" clean-tmp "$ct/out.npy"
ls -A "$ct" | sort >"$work/ct.now"
[ ! -e "$ct/$stale" ] && cmp -s "$work/ct.keep" "$work/ct.now" &&
    [ "$(cat "$ct/target")" = target ] &&
    ok "clean-tmp removed that file only: look-alikes, the folder, the link and its target survive" ||
    bad "clean-tmp removed that file only (left: $(tr '\n' ' ' <"$work/ct.now"))"
expect "clean-tmp: an output without any" 0 "$ct/target: no temporary files" "$DMLCL" clean-tmp "$ct/target"
expect "clean-tmp without an output" 1 "give the output file(s)" "$DMLCL" clean-tmp
expect "clean-tmp: a folder that does not exist" 2 \
    "$work/none/y.npy: cannot read its folder: No such file or directory" \
    "$DMLCL" clean-tmp "$work/none/y.npy"
expect "clean-tmp --help" 0 "named exactly" "$DMLCL" clean-tmp --help

# ---- every subcommand's exit statuses: 1 usage (unknown or missing option, a value that
# does not parse), 2 a value out of range or a bad file, 3 the device, 4 results differ ------
expect "dmlcl without a command" 1 "usage: dmlcl <command>" "$DMLCL"
expect "dmlcl unknown command" 1 "unknown command 'frobnicate'" "$DMLCL" frobnicate
expect "dmlcl --help documents exit status 4" 0 "4  the results differ" "$DMLCL" --help
version=$("$DMLCL" info 2>/dev/null | head -n 1)
for v in --version version; do
    expect "dmlcl $v" 0 "$version" "$DMLCL" $v
    [ "$(cat "$work/out")" = "$version" ] && case $version in "dmlcl "[0-9]*) true ;; *) false ;; esac &&
        ok "dmlcl $v prints '$version', as info does" || bad "dmlcl $v prints the version alone"
done
expect "npy without a subcommand" 1 "usage: dmlcl npy info" "$DMLCL" npy
expect "npy unknown subcommand" 1 "unknown subcommand 'show'" "$DMLCL" npy show x.npy
expect "npy info without files" 1 "give at least one .npy file" "$DMLCL" npy info
expect "npy info: unknown option" 1 "unknown option '--all'" "$DMLCL" npy info --all x.npy
expect "npy info: a bad file" 2 "$work/text.npy: not a .npy file" "$DMLCL" npy info "$work/text.npy"
expect "npy compare: --atol not a number" 1 "--atol 'abc': expected a number" "$DMLCL" npy \
    compare --atol abc "$work/e8.npy" "$work/e8.npy"
expect "npy compare: --max-ulp out of range" 2 "--max-ulp -1: out of range" "$DMLCL" npy \
    compare --max-ulp -1 "$work/e8.npy" "$work/e8.npy"
expect "npy compare: equal files" 0 "" "$DMLCL" npy compare "$work/e8.npy" "$work/e8.npy"
expect "info: unexpected argument" 1 "dmlcl info: unexpected argument 'all'" "$DMLCL" info all
expect "info --help" 0 "exit status" "$DMLCL" info --help
expect "info" 0 "default device (*)" "$DMLCL" info
expect "info: DMLCL_DEVICE matches no device" 3 \
    "default device: none (DMLCL_NO_DEVICE: no OpenCL device matches DMLCL_DEVICE=\"nope\"" \
    env DMLCL_DEVICE=nope "$DMLCL" info
expect "cache: unknown subcommand" 1 "dmlcl cache: unknown subcommand 'purge'" "$DMLCL" cache purge
expect "cache --help" 0 "exit status" "$DMLCL" cache --help
expect "cache" 0 "program cache folder: $DMLCL_CACHE_DIR" "$DMLCL" cache
expect "demo: unknown option" 1 "dmlcl demo: unknown option '--fast'" "$DMLCL" demo --fast
expect "demo --help" 0 "exit status" "$DMLCL" demo --help
expect "demo: no such device" 3 "dmlcl demo: --device 'nope': no OpenCL device matches" \
    "$DMLCL" demo --device nope
# demo: plain words, input, lengths and output; the plan only with --verbose.
expect "demo" 0 "lengths 1 and 0 leave columns 3 and 4 as they were" "$DMLCL" demo
if grep -qE "variant=|options=|plan:" "$work/out" "$work/err"; then
    bad "demo prints no plan without --verbose"
else
    ok "demo prints no plan without --verbose"
fi
for what in "   [  1,   2,   3,   4]  2        [  2,   1,   3,   4]" \
    "   [  9,  10,  11,  12]  [  9,   2,  11,  12]" "   lengths: 2 3 1 0 (one per column)" \
    "   [3, 4]  [ 1.5, 1.75, 2.25,  2.5]" "           [   3, 3.25, 3.75,    4]"; do
    grep -qxF -- "$what" "$work/out" && ok "demo prints '$what'" || bad "demo prints '$what'"
done
awk 'length > 100 { exit 1 }' "$work/out" && ok "demo fits 100 columns" ||
    bad "demo fits 100 columns"
expect "demo --verbose prints the plans" 0 "   plan: variant=linear" "$DMLCL" demo --verbose
expect "bench: --mb not a number" 1 "dmlcl bench: --mb 'abc': expected a whole number" \
    "$DMLCL" bench --mb abc
expect "bench: --mb 0" 2 "dmlcl bench: --mb 0: out of range, give 1 to 1048576" \
    "$DMLCL" bench --mb 0
expect "bench: --mb -1" 2 "dmlcl bench: --mb -1: out of range, give 1 to 1048576" \
    "$DMLCL" bench --mb -1
expect "bench: --mb -x" 1 "dmlcl bench: --mb '-x': expected a whole number" \
    "$DMLCL" bench --mb -x
expect "bench: --runs 0" 2 "dmlcl bench: --runs 0: out of range, give 1 to 100000" \
    "$DMLCL" bench --runs 0
expect "bench: --threads 300" 2 "--threads 300: out of range, give 0 to 256" \
    "$DMLCL" bench --threads 300
expect "bench: unknown option" 1 "dmlcl bench: unknown option '--fast'" "$DMLCL" bench --fast
expect "bench: option without its value" 1 "option '--case' needs a value" "$DMLCL" bench --case
[ "$(wc -l <"$work/err")" -eq 1 ] && ok "bench: a usage error is one line, not the whole help" ||
    bad "bench: a usage error is one line, not the whole help"
expect "bench: --case matching nothing, before any device work" 1 \
    "dmlcl bench: --case 'nosuch' matches no case (dmlcl bench --list names them)" \
    "$DMLCL" bench --case nosuch
[ ! -s "$work/out" ] && ok "bench --case nosuch prints no header or table" ||
    bad "bench --case nosuch prints no header or table"
expect "bench --help" 0 "exit status" "$DMLCL" bench --help
for what in "--warmup N" "--list " "--mb N" "--json" "4  a case's output differs"; do
    grep -qF -- "$what" "$work/out" && ok "bench --help describes '$what'" ||
        bad "bench --help describes '$what'"
done
expect "bench --list" 0 "trilinear2x          8 x 8 x 64^3 -> 128^3 fp32" "$DMLCL" bench --list

# ---- bench output: a table within 100 columns with units, plans only with --verbose, a
# verdict for the creation target, cases sized to the largest buffer allowed. Tiny sizes:
# these check the format, never the speed. -----------------------------------------------
tiny="--mb 1 --runs 1 --warmup 0 --samples 16"
expect "bench: one tiny case" 0 "reverse-inner" "$DMLCL" bench --case reverse-inner $tiny
grep -q '^case                in MiB | op GB/s | copy GB/s ratio probe |' "$work/out" &&
    ok "bench: the table header names the units" || bad "bench: the table header names the units"
grep -qE '^reverse-inner +[0-9.]+ \| +[0-9.]+ \| +[0-9.]+ +[0-9.]+ +[0-9.]+ \|' "$work/out" &&
    ok "bench: the row gives the ratio to the probe of the case's own data movement" ||
    bad "bench: the row gives the ratio to the probe of the case's own data movement"
fits100() { awk 'length > 100 { print "line " NR " has " length " columns"; exit 1 }' "$work/out"; }
fits100 >"$work/err" && ok "bench: every line fits 100 columns" ||
    bad "bench: every line fits 100 columns"
# A GPU has no host memcpy baseline (--threads 0 here): the copy baseline's note stands alone.
expect "bench: the header without the memcpy baseline, as on a GPU" 0 \
    "    each moving as many bytes (at most 2 GiB a buffer)" \
    "$DMLCL" bench --case reverse-inner $tiny --threads 0
fits100 >"$work/err" && ok "bench: without the memcpy baseline, every line fits 100 columns" ||
    bad "bench: without the memcpy baseline, every line fits 100 columns"
grep -q "plan" "$work/out" && bad "bench: no plan without --verbose" ||
    ok "bench: no plan without --verbose"
grep -qE '^create \(memory-cache hit\): worst median [0-9.]+ us \(reverse-inner\), target <= 20 us: (pass|short)$' \
    "$work/out" && ok "bench: the creation target has a verdict" ||
    bad "bench: the creation target has a verdict"
expect "bench: a gradient case says why its input is 4x --mb" 0 \
    "    in MiB: the gradient of linear2x-nchw's output, 4x its 1.0 MiB input (--mb)" \
    "$DMLCL" bench --case linear2x-grad $tiny
expect "bench --verbose prints the plan under the case" 0 "    plan: variant=" "$DMLCL" bench \
    --case reverse-inner $tiny --verbose
expect "bench: a case larger than the buffer limit is made smaller and says so" 0 \
    "sized to --mb 1: at --mb 4 a buffer would be 32.0 MiB, over the 8.0 MiB limit per buffer" \
    "$DMLCL" bench --case trilinear2x --mb 4 --runs 1 --warmup 0 --samples 16 --max-buffer-mb 8
grep -q "^trilinear2x            1.0 |" "$work/out" && ok "bench: the sized case ran at 1 MiB" ||
    bad "bench: the sized case ran at 1 MiB"
expect "bench --host-path: the host path and the pinned copies under the row" 0 \
    "    host path " "$DMLCL" bench --case linear2x-nchw,reverse-inner $tiny --host-path
grep -qE '^    host path [0-9.]+ ms \(op [0-9.]+ ms on device buffers\); pinned copies [0-9.]+ ms: [0-9.]+$' \
    "$work/out" && ok "bench --host-path: both medians and their ratio" ||
    bad "bench --host-path: both medians and their ratio"
awk 'length > 100 { exit 1 }' "$work/out" && ok "bench --host-path: every line fits 100 columns" ||
    bad "bench --host-path: every line fits 100 columns"
export DMLCL_HOST_PATH=staged:65536 # pieces of 64 KiB, as on a GPU
expect "bench --host-path, staged: the same bytes as the device run" 0 "    host path " \
    "$DMLCL" bench --case linear2x-nchw $tiny --host-path
unset DMLCL_HOST_PATH
expect "bench: a big-* case over the limit is skipped, not failed" 0 \
    "big-reverse        skipped: needs a buffer of 8.00 GiB, over the 8.0 MiB limit per buffer" \
    "$DMLCL" bench --case big-reverse --max-buffer-mb 8

# ---- device errors: exit 3 ----------------------------------------------------------------------
expect "no such device names --device" 3 \
    "--device 'no-such-device-xyz': no OpenCL device matches (give gpu, cpu, P:D" run_rs --input "$DATA/rs1_input.npy" \
    --lengths "$DATA/rs1_lengths.npy" --axis 3 --output "$work/y.npy" --device no-such-device-xyz
expect "resample-grad1: no such device" 3 "--device 'no-such-device-xyz': no OpenCL device" \
    "$DMLCL" run resample-grad1 --input "$work/g1.npy" --scales 0.5,1.5 --output "$work/y.npy" \
    --device no-such-device-xyz
expect "bench: no such device names --device" 3 "dmlcl bench: --device 'nope': no OpenCL device matches" \
    "$DMLCL" bench --device nope --case reverse-inner --mb 1 --runs 1
# 160 GB of output: over every device's CL_DEVICE_MAX_MEM_ALLOC_SIZE, found before any
# allocation (host or device).
expect "an output over the device's largest buffer: the limit, the error's name, what to do" 3 \
    "needs a buffer of 149.01 GiB, over this device's limit of" "$DMLCL" run resample1 \
    --input "$DATA/rz1_input.npy" --output-size 200000,200000 --output "$work/y.npy"
for what in "(CL_DEVICE_MAX_MEM_ALLOC_SIZE; clCreateBuffer would fail with CL_INVALID_BUFFER_SIZE)" \
    "use smaller --scales or --output-size, or split the work in tiles"; do
    grep -qF "$what" "$work/err" && ok "the too-large output's message says: $what" ||
        bad "the too-large output's message lacks: $what"
done
[ ! -e "$work/y.npy" ] && ok "no output file after device errors" || bad "an output file appeared"

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
