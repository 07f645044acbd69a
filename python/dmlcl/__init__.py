"""dmlcl from Python: DirectML tensor-operator semantics on OpenCL devices, on NumPy
arrays (and PyOpenCL arrays, which stay on the device).

What each operator computes (formulas, edge rules, tolerances) is ``doc/operators.md``
in the dmlcl documentation; Python's side is ``doc/python.md``.

Functions that return new arrays (or write ``out=``):

- ``reverse_subsequences(x, lengths, axis)``: REVERSE_SUBSEQUENCES, any of 11 dtypes;
- ``resample(x, scales=None, size=None, mode="linear", input_offsets=0.5,
  output_offsets=-0.5, rounding=None, antialias=False)``: RESAMPLE1/2/3;
- ``resample_grad(dy, input_shape, scales=None, ...)``: RESAMPLE_GRAD1;
- ``resample_output_shape(shape, scales)``: the shape ``resample`` gives for scales.

Reusable operators for loops, which keep the compiled program, plan and tables per
layout of their arguments: ``ReverseSubsequences(axis)``, ``Resample(...)``,
``ResampleGrad(...)``; ``op(x, out=y)`` on NumPy arrays, ``op.enqueue(x, out=y)`` on
PyOpenCL arrays (returns ``(out, event)``).

Tiles of larger tensors (a field domain-decomposed over MPI ranks or devices):
``op.input_box(input_shape, start, size)`` on any operator object is the halo query, the
input box an output box reads; ``input_tile=(logical_shape, start)`` and
``output_tile=(logical_shape, start[, size])`` on the calls, ``enqueue`` and the functions
run one tile, bit for bit the whole run's box.

Devices: ``Context(device="gpu")`` (as ``$DMLCL_DEVICE``: ``gpu``, ``cpu``, ``P:D`` or a
name substring), ``Context(queue=pyopencl_queue)``; without ``context=``,
``default_context()``.

Arrays are read and written in place through their strides: C or Fortran order, slices,
transposes and broadcast views (stride 0) are never copied; only negative strides are
(dmlcl strides are unsigned). Errors raise ``dmlcl.Error`` subclasses with the C
library's status and message: ``InvalidArgumentError`` (a ``ValueError``),
``DataTypeError`` (also a ``TypeError``), ``UnsupportedError``, ``OutOfMemoryError``,
``OpenCLError``, ``BuildError``, ``NoDeviceError``, ``FileError``.

The C library is ``$DMLCL_LIBRARY`` if set, else (imported from the source folder after
``make``) the one built there, else the one installed with this package, else the one
pkg-config names (``dmlcl.library_path`` says which).

>>> import numpy as np, dmlcl
>>> x = np.arange(24, dtype=np.float16).reshape(4, 6)
>>> dmlcl.resample(x[1:, ::2].T, scales=2).shape
(6, 6)
"""
from ._capi import (Error, InvalidArgumentError, DataTypeError, UnsupportedError,
                    OutOfMemoryError, OpenCLError, BuildError, NoDeviceError, FileError,
                    library_path)
from ._core import (Context, default_context, ReverseSubsequences, Resample, ResampleGrad,
                    reverse_subsequences, resample, resample_grad, resample_output_shape,
                    version, cache_stats, DTYPES, RESAMPLE_DTYPES)

__version__ = version()

__all__ = ["Error", "InvalidArgumentError", "DataTypeError", "UnsupportedError",
           "OutOfMemoryError", "OpenCLError", "BuildError", "NoDeviceError", "FileError",
           "Context", "default_context", "ReverseSubsequences", "Resample", "ResampleGrad",
           "reverse_subsequences", "resample", "resample_grad", "resample_output_shape",
           "version", "cache_stats", "DTYPES", "RESAMPLE_DTYPES", "library_path"]
