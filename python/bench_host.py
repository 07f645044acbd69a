#!/usr/bin/env python3
"""Prints how close ``dmlcl.resample`` on NumPy arrays comes to the same operator on
device buffers: a float32 volume (default 100x512x512) resampled linear 2x, timed

- host: ``dmlcl.resample(x, scales=2)``, the output allocated by the call (what a user
  writes), and ``op(x, out=y)`` into an existing array;
- device: the same C operator enqueued on buffers made with CL_MEM_USE_HOST_PTR over the
  same arrays, the output mapped for reading (the kernel's time plus the map; on POCL's CPU
  devices neither copies); again with the output a new array each time, as
  ``dmlcl.resample`` makes one (its pages are touched first by the kernel).

The goal on CPU devices is host <= 1.3 x device (doc/performance.md). Peak memory: run
with ``--only host`` (or ``device``) under ``/usr/bin/time -v`` and read "Maximum resident
set size"; input + output is 100 + 800 MiB by default.

    DMLCL_DEVICE=cpu python3 python/bench_host.py [--shape 100,512,512] [--repeat 5]

From the build tree: DMLCL_LIBRARY=lib/.libs/libdmlcl.so PYTHONPATH=python. Not a test:
the figures depend on the machine and the device.
"""
import argparse
import ctypes
import ctypes.util
import statistics
import time
from ctypes import byref, c_int32, c_size_t, c_uint64, c_void_p

import numpy as np

import dmlcl
from dmlcl import _capi

CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_USE_HOST_PTR, CL_MAP_READ = 1, 4, 8, 1


def opencl():
    cl = ctypes.CDLL(ctypes.util.find_library("OpenCL") or "libOpenCL.so.1")
    cl.clCreateBuffer.restype = c_void_p
    cl.clCreateBuffer.argtypes = [c_void_p, c_uint64, c_size_t, c_void_p, ctypes.POINTER(c_int32)]
    cl.clEnqueueMapBuffer.restype = c_void_p
    cl.clEnqueueMapBuffer.argtypes = [c_void_p, c_void_p, ctypes.c_uint32, c_uint64, c_size_t,
                                      c_size_t, ctypes.c_uint32, c_void_p, c_void_p,
                                      ctypes.POINTER(c_int32)]
    cl.clEnqueueUnmapMemObject.argtypes = [c_void_p, c_void_p, c_void_p, ctypes.c_uint32,
                                           c_void_p, c_void_p]
    cl.clFinish.argtypes = [c_void_p]
    cl.clReleaseMemObject.argtypes = [c_void_p]
    return cl


def device_run(cl, op, ctx, x, y):
    """One run of op's C operator on USE_HOST_PTR buffers over x and y, y mapped after."""
    lib, err = _capi.lib, c_int32()
    clctx, q = lib.dmlcl_context_cl_context(ctx.handle), lib.dmlcl_context_queue(ctx.handle)
    bx = cl.clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, x.nbytes,
                           x.ctypes.data, byref(err))
    by = cl.clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, y.nbytes,
                           y.ctypes.data, byref(err))
    bi = (_capi.BufferBinding * 1)(_capi.BufferBinding(bx, 0, 0))
    bo = (_capi.BufferBinding * 1)(_capi.BufferBinding(by, 0, 0))
    _capi.check(lib.dmlcl_operator_enqueue(op._last.handle, bi, 1, bo, 1, 0, None, None))
    m = cl.clEnqueueMapBuffer(q, by, 1, CL_MAP_READ, 0, y.nbytes, 0, None, None, byref(err))
    cl.clEnqueueUnmapMemObject(q, by, m, 0, None, None)
    cl.clFinish(q)
    cl.clReleaseMemObject(bx)
    cl.clReleaseMemObject(by)


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="100,512,512")
    ap.add_argument("--scales", type=float, default=2.0)
    ap.add_argument("--mode", default="linear")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", choices=("host", "device"))
    a = ap.parse_args()
    shape = tuple(int(v) for v in a.shape.split(","))
    x = np.random.default_rng(1).random(shape, dtype=np.float32)
    ctx = dmlcl.default_context()
    op = dmlcl.Resample(scales=a.scales, mode=a.mode, context=ctx)
    y = op(x)  # compiles (or loads) the program; y: the output's shape
    print("%s float32 %s x%g on %s: output %s, %.0f + %.0f MiB"
          % ("x".join(map(str, shape)), a.mode, a.scales, ctx.device_name,
             "x".join(map(str, y.shape)), x.nbytes / 2**20, y.nbytes / 2**20))
    rows = []
    if a.only != "device":
        rows.append(("dmlcl.resample(x, scales)",
                     timed(lambda: dmlcl.resample(x, scales=a.scales, mode=a.mode,
                                                  context=ctx), a.repeat)))
        rows.append(("op(x, out=y)", timed(lambda: op(x, out=y), a.repeat)))
    if a.only != "host":
        cl = opencl()
        rows.append(("device: USE_HOST_PTR buffers",
                     timed(lambda: device_run(cl, op, ctx, x, y), a.repeat)))
        rows.append(("device, output new each time",
                     timed(lambda: device_run(cl, op, ctx, x, np.empty_like(y)), a.repeat)))
    for name, (med, best) in rows:
        print("  %-30s median %7.1f ms  best %7.1f ms" % (name, med * 1e3, best * 1e3))
    if len(rows) == 4:
        print("  host / device (medians): resample %.2f (new output both), op(x, out=y) %.2f"
              % (rows[0][1][0] / rows[3][1][0], rows[1][1][0] / rows[2][1][0]))


if __name__ == "__main__":
    main()
