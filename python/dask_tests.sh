#!/bin/sh
# make check: Dask arrays through dmlcl, a Zarr volume larger than a memory limit and a
# dask.distributed LocalCluster (python/tests/test_dask.py), through python/run_tests.sh;
# skipped, naming the module, without Dask, distributed or Zarr.
DMLCL_PY_TESTS=test_dask.py DMLCL_PY_NEEDS="dask.array distributed zarr"
export DMLCL_PY_TESTS DMLCL_PY_NEEDS
exec "${SHELL:-/bin/sh}" "${srcdir:-.}/python/run_tests.sh"
