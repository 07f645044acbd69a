#!/usr/bin/env python3
"""Prints how close ``dmlcl.resample`` on NumPy arrays comes to the same operator on
device buffers: a float32 volume (default 100x512x512) resampled linear 2x. The fair
comparison, and the goal on CPU devices (host <= 1.3 x device; doc/python.md):

- device: the same C operator enqueued on CL_MEM_USE_HOST_PTR buffers over an input and an
  output that exist before timing, the output mapped for reading (the kernel's time plus
  the map; on POCL's CPU devices neither copies): what the kernel costs;
- ``dmlcl.resample(x, scales)``: what a user writes, so its time includes making the
  operator and the new output it returns (its memory from the context's kept blocks,
  python/dmlcl/_outputs.py, once an earlier output is gone, as in a loop);

and beside them ``op(x, out=y)`` (an operator and an output made once), ``op(x,
out=numpy.empty(...))`` (an output in fresh pages, which the kernel zeroes at the first
write: what every new output cost before the kept blocks) and the device run with a fresh
output. Each case runs as a loop would, blocks of --repeat calls, in three passes whose
order rotates so that a busy machine slows them alike; medians and bests over the passes,
and the load average before and after.

Peak memory: each case again in a child process of its own, its peak resident set
(VmHWM, else getrusage's ru_maxrss) after --repeat calls, beside the child that only sets
up (interpreter, NumPy, the context, x); input + output is 100 + 800 MiB by default.

    DMLCL_DEVICE=cpu python3 python/bench_host.py [--shape 100,512,512] [--repeat 6]

From the build tree: DMLCL_LIBRARY=lib/.libs/libdmlcl.so PYTHONPATH=python. To time
another version of the package, run a copy of this script from outside python/: Python
puts the script's own folder first on sys.path, ahead of PYTHONPATH. Not a test: the
figures depend on the machine and the device.
"""
import argparse
import ctypes
import ctypes.util
import os
import resource
import statistics
import subprocess
import sys
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


def cases(x, y, op, ctx, a):
    """The cases by name, each a function of no argument that runs it once."""
    cl = opencl()
    return {
        "dmlcl.resample(x, scales)":
            lambda: dmlcl.resample(x, scales=a.scales, mode=a.mode, context=ctx),
        "op(x, out=y)": lambda: op(x, out=y),
        "op(x, out=numpy.empty(...))": lambda: op(x, out=np.empty_like(y)),
        "device: buffers made before": lambda: device_run(cl, op, ctx, x, y),
        "device, fresh output": lambda: device_run(cl, op, ctx, x, np.empty_like(y)),
    }


def blocks(fns, repeat, passes=3):
    """Each function's (median, best) in seconds: `passes` passes, each running every
    function `repeat` times in a row (a loop's calls; the first of each block, which
    finds the loop's memory in another state, left out), the order rotated each pass so
    that a busy machine slows them alike. Not every case in turn: the cases then use
    each other's freed memory, which the kernel finds at another cost than a loop's."""
    times = [[] for _ in fns]
    for p in range(passes):
        for k in range(len(fns)):
            i = (k + p) % len(fns)
            for r in range(repeat):
                t = time.perf_counter()
                fns[i]()
                if r:
                    times[i].append(time.perf_counter() - t)
    return [(statistics.median(t), min(t)) for t in times]


def peak_mib():
    """This process's peak resident set: VmHWM, its memory's own high-water mark (Linux's
    ru_maxrss keeps the parent's peak across fork and exec, the parent's 2.6 GB here),
    else ru_maxrss."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def setup(a):
    shape = tuple(int(v) for v in a.shape.split(","))
    x = np.random.default_rng(1).random(shape, dtype=np.float32)
    ctx = dmlcl.default_context()
    op = dmlcl.Resample(scales=a.scales, mode=a.mode, context=ctx)
    return x, ctx, op


def child(a):
    """One case (or none: "setup") in this process; prints its peak RSS in MiB."""
    x, ctx, op = setup(a)
    if a.case != "setup":
        # y: untouched (no page resident) unless the case writes it
        y = np.empty(dmlcl.resample_output_shape(x.shape, a.scales), np.float32)
        if a.case.startswith("device"):
            op(x, out=np.empty_like(y))  # the C operator device_run enqueues
        fn = cases(x, y, op, ctx, a)[a.case]
        for _ in range(a.repeat):
            fn()
    print("%.0f" % peak_mib())


def peaks(a, names):
    """Each case's peak RSS (MiB) in a child process of its own, "setup" first."""
    out = {}
    for name in ("setup",) + tuple(names):
        cmd = [sys.executable, os.path.abspath(__file__), "--shape", a.shape, "--scales",
               str(a.scales), "--mode", a.mode, "--repeat", str(a.repeat), "--case", name]
        out[name] = float(subprocess.run(cmd, check=True, capture_output=True,
                                         text=True).stdout.split()[-1])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="100,512,512")
    ap.add_argument("--scales", type=float, default=2.0)
    ap.add_argument("--mode", default="linear")
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--no-memory", action="store_true", help="skip the peak-memory children")
    ap.add_argument("--case", help=argparse.SUPPRESS)  # a peak-memory child
    a = ap.parse_args()
    if a.case:
        return child(a)
    load = os.getloadavg()
    x, ctx, op = setup(a)
    y = op(x)  # compiles (or loads) the program
    print("%s float32 %s x%g on %s: output %s, %.0f + %.0f MiB; load average %.2f %.2f %.2f"
          % ("x".join(map(str, x.shape)), a.mode, a.scales, ctx.device_name,
             "x".join(map(str, y.shape)), x.nbytes / 2**20, y.nbytes / 2**20, *load))
    named = cases(x, y, op, ctx, a)
    got = dict(zip(named, blocks(list(named.values()), a.repeat)))
    mem = {} if a.no_memory else peaks(a, named)
    if mem:
        print("  %-30s %33s peak RSS %5.0f MiB" % ("setup alone (interpreter, x)", "",
                                                 mem["setup"]))
    for name, (med, best) in got.items():
        print("  %-30s median %7.1f ms  best %7.1f ms" % (name, med * 1e3, best * 1e3)
              + ("  peak RSS %5.0f MiB" % mem[name] if mem else ""))
    dev = got["device: buffers made before"][0]
    print("  over the device (medians): dmlcl.resample %.2f (goal <= 1.3), op(x, out=y) %.2f,"
          " fresh output %.2f; device with a fresh output %.2f"
          % (got["dmlcl.resample(x, scales)"][0] / dev, got["op(x, out=y)"][0] / dev,
             got["op(x, out=numpy.empty(...))"][0] / dev, got["device, fresh output"][0] / dev))
    print("  load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
