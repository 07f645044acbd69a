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
if "$PYTHON" -c 'import pytest' 2>/dev/null; then
    exec "$PYTHON" -m pytest -v -p no:cacheprovider --rootdir="$srcdir/python/tests" \
        "$srcdir/python/tests"
fi
echo "(pytest not found, running unittest; Debian: apt-get install python3-pytest)"
exec "$PYTHON" -m unittest discover -v -s "$srcdir/python/tests"
