#!/bin/sh
# The Python binding's tests (python/tests) on the just-built library, run by `make check`
# from the build folder: pytest when installed (Debian: python3-pytest), else unittest.
# The package is imported from the source folder and loads lib/.libs/libdmlcl.so through
# $DMLCL_LIBRARY; nothing is written to the source folder (no bytecode, no pytest cache).
# Skipped (exit 77) with a message when there is no Python 3 or NumPy, and in sanitizer
# builds (Python itself is not built with the sanitizers).
set -u
srcdir=${srcdir:-.}
PYTHON=${DMLCL_TEST_PYTHON:-python3}
if [ "$PYTHON" = ":" ] || ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "SKIP: no Python 3 (configure found none; apt-get install python3 python3-numpy)"
    exit 77
fi
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
    echo "SKIP: $PYTHON has no NumPy (apt-get install python3-numpy)"
    exit 77
fi
if [ -n "${DMLCL_TEST_SANITIZERS:-}" ]; then
    echo "SKIP: sanitizer build ($DMLCL_TEST_SANITIZERS): python3 cannot load an"
    echo "      instrumented libdmlcl; the Python tests run in the plain build"
    exit 77
fi
lib=$(pwd)/lib/.libs/libdmlcl.so
if [ ! -f "$lib" ]; then
    echo "SKIP: $lib not built (static-only build?)"
    exit 77
fi
DMLCL_LIBRARY=$lib
PYTHONPATH=$srcdir/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export DMLCL_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE
# python/dask_tests.sh and python/mpi_tests.sh run the optional parts: DMLCL_PY_TESTS names
# their files and DMLCL_PY_NEEDS the modules each needs (a missing one skips it, named).
for module in ${DMLCL_PY_NEEDS:-}; do
    if ! "$PYTHON" -c "import $module" 2>/dev/null; then
        echo "SKIP: $PYTHON has no $module (Debian: apt-get install python3-dask" \
            "python3-distributed python3-zarr python3-mpi4py; PyPI: pip install dask" \
            "distributed zarr mpi4py)"
        exit 77
    fi
done
if [ -n "${DMLCL_PY_TESTS:-}" ]; then
    if ! "$PYTHON" -c 'import pytest' 2>/dev/null; then
        echo "SKIP: $PYTHON has no pytest (apt-get install python3-pytest)"
        exit 77
    fi
    # shellcheck disable=SC2086
    exec "$PYTHON" -m pytest -v -rs -p no:cacheprovider --rootdir="$srcdir/python/tests" \
        $(for f in $DMLCL_PY_TESTS; do echo "$srcdir/python/tests/$f"; done)
fi
if "$PYTHON" -c 'import pytest' 2>/dev/null; then
    exec "$PYTHON" -m pytest -v -rs -p no:cacheprovider --rootdir="$srcdir/python/tests" \
        --ignore="$srcdir/python/tests/test_dask.py" \
        --ignore="$srcdir/python/tests/test_mpi.py" "$srcdir/python/tests"
fi
echo "(pytest not found, running unittest; Debian: apt-get install python3-pytest)"
exec "$PYTHON" -m unittest discover -v -s "$srcdir/python/tests" -p 'test_dmlcl.py'
