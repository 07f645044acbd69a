#!/bin/sh
# make installcheck: the installed tree used as a user would, with nothing but pkg-config.
# Usage: installcheck.sh c|mpi|fortran|python, from Makefile.am's installcheck rules, which
# pass what configure found in the environment: CC, FC, MPICC, MPIEXEC, PYTHON, PKG_CONFIG,
# MAKE, srcdir, abs_srcdir, libdir, pkgconfigdir, pythondir, mpiexampledir (DESTDIR as make
# has it). Each prints the command it builds with and one "installcheck: ...: ok" line.

# The C examples (examples/example.c, resample.c), built and run against the installed
# library.
check_c() {
    tmp=`mktemp -d` &&
    PKG_CONFIG_PATH="$pkgconfigdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" &&
    export PKG_CONFIG_PATH &&
    flags=`$PKG_CONFIG --cflags --libs dmlcl`
    rc=$?
    for ex in example resample; do
        test $rc -eq 0 && echo "$CC $srcdir/examples/$ex.c $flags" &&
        $CC $srcdir/examples/$ex.c $flags -o $tmp/$ex &&
        LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" $tmp/$ex || rc=1
    done
    rm -rf "$tmp"
    if test $rc -eq 0; then echo "installcheck: examples built with pkg-config and ran: ok"; fi
    exit $rc
}

# The installed MPI example, built with $MPICC and pkg-config's dmlcl-mpi (the MPI layer,
# which requires dmlcl) as its README says, run on 2 ranks: a test case and a resident
# benchmark row with its check.
check_mpi() {
    tmp=`mktemp -d` && ex="$DESTDIR$mpiexampledir" &&
    PKG_CONFIG_PATH="$DESTDIR$pkgconfigdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" &&
    export PKG_CONFIG_PATH &&
    flags=`$PKG_CONFIG --cflags --libs dmlcl-mpi OpenCL` &&
    echo "$MPICC $ex/mpi_resample.c $ex/resident.c $ex/test_mode.c $ex/host_exchange.c $flags -lm" &&
    $MPICC $ex/mpi_resample.c $ex/resident.c $ex/test_mode.c $ex/host_exchange.c $flags -lm -o $tmp/mpi_resample &&
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 DMLCL_CACHE_DIR=off \
    OMPI_MCA_btl_vader_single_copy_mechanism=none \
    DMLCL_DEVICE=${DMLCL_TEST_DEVICE:-cpu} POCL_MAX_PTHREAD_COUNT=1 \
    LD_LIBRARY_PATH="$DESTDIR$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    $MPIEXEC `$MPIEXEC --version 2>&1 | grep -q 'Open MPI' && echo --oversubscribe` \
        -np 2 $tmp/mpi_resample --case linear2x,linear2x-grad >$tmp/out 2>&1 &&
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 DMLCL_CACHE_DIR=off \
    OMPI_MCA_btl_vader_single_copy_mechanism=none \
    DMLCL_DEVICE=${DMLCL_TEST_DEVICE:-cpu} POCL_MAX_PTHREAD_COUNT=1 \
    LD_LIBRARY_PATH="$DESTDIR$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    $MPIEXEC `$MPIEXEC --version 2>&1 | grep -q 'Open MPI' && echo --oversubscribe` \
        -np 2 $tmp/mpi_resample --bench --mb-per-rank 1 --iters 1 --case linear2x --check \
        >>$tmp/out 2>&1 && grep -q 'PASS (bit for bit)' $tmp/out
    rc=$?; cat $tmp/out; rm -rf "$tmp"
    if test $rc -eq 0; then
        echo "installcheck: MPI example built with mpicc and pkg-config, ran on 2 ranks: ok"
    fi
    exit $rc
}

# The Fortran example, built through its own Makefile (pkg-config only) and run.
check_fortran() {
    tmp=`mktemp -d` &&
    PKG_CONFIG_PATH="$pkgconfigdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" &&
    export PKG_CONFIG_PATH &&
    echo "$FC example.f90 `$PKG_CONFIG --cflags --libs dmlcl-fortran`" &&
    (cd $tmp && $MAKE -s -f $abs_srcdir/examples/fortran/Makefile \
        srcdir=$abs_srcdir/examples/fortran FC="$FC" PKG_CONFIG="$PKG_CONFIG") &&
    LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" $tmp/example >/dev/null
    rc=$?; rm -rf "$tmp"
    if test $rc -eq 0; then echo "installcheck: Fortran example built with pkg-config and ran: ok"; fi
    exit $rc
}

# `import dmlcl` from $pythondir, finding the installed C library by itself.
check_python() {
    if $PYTHON -c 'import numpy' 2>/dev/null; then
        env -u DMLCL_LIBRARY PYTHONPATH="$pythondir" $PYTHON -c 'import numpy as np, dmlcl; \
x = np.arange(42, dtype=np.float16).reshape(6, 7); \
y = dmlcl.resample(x[1:, ::2].T, scales=2); \
assert y.shape == (8, 10) and y.dtype == np.float16, y; \
print("installcheck: import dmlcl from %s (C library %s): ok" % (dmlcl.__file__, dmlcl.library_path))' \
        || exit 1
    else
        echo "installcheck: $PYTHON has no NumPy: import dmlcl not tried"
    fi
}

case $1 in
c) check_c ;;
mpi) check_mpi ;;
fortran) check_fortran ;;
python) check_python ;;
*) echo "usage: $0 c|mpi|fortran|python" >&2; exit 1 ;;
esac
