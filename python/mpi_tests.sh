#!/bin/sh
# make check: dmlcl.mpi, the MPI layer from mpi4py, at 1-4 ranks and the Python MPI
# example (python/tests/test_mpi.py), through python/run_tests.sh; skipped, saying why,
# without mpi4py, or where configure found no MPI (no libdmlcl_mpi).
lib=$(pwd)/mpi/.libs/libdmlcl_mpi.so
if [ ! -f "$lib" ]; then
    echo "SKIP: $lib not built (configure found no MPI: apt-get install libopenmpi-dev)"
    exit 77
fi
DMLCL_MPI_LIBRARY=$lib DMLCL_PY_TESTS=test_mpi.py DMLCL_PY_NEEDS=mpi4py
export DMLCL_MPI_LIBRARY DMLCL_PY_TESTS DMLCL_PY_NEEDS
exec "${SHELL:-/bin/sh}" "${srcdir:-.}/python/run_tests.sh"
