#!/usr/bin/env python3
"""Prints the Python binding's overhead per call: ``op(x, out=y)`` on a tiny array against
the C call it makes, ``dmlcl_operator_execute_host`` on the same operator, called directly
through ctypes with prepared arguments (the floor any Python caller pays). Goal: under
20 us above the C call once the operator exists (its program a memory-cache hit).

    DMLCL_DEVICE=cpu python3 python/bench_overhead.py [--calls N]

From the build tree: DMLCL_LIBRARY=lib/.libs/libdmlcl.so PYTHONPATH=python. Not a test:
the figures depend on the machine and the device.
"""
import argparse
import ctypes
import statistics
import time

import numpy as np

import dmlcl
from dmlcl import _capi


def per_call(fns, calls, batch=50):
    """Each function's time per call in microseconds: the median over batches of `batch`
    calls, the functions' batches interleaved so that a busy machine (other processes,
    POCL's worker threads waking up) slows them alike."""
    times = [[] for _ in fns]
    for _ in range(max(calls // batch, 1)):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            for _ in range(batch):
                fn()
            times[i].append((time.perf_counter() - t) / batch * 1e6)
    return [statistics.median(t) for t in times]


def python_side(fn, calls):
    """fn's time with the C call replaced by a stub that returns success: what the binding
    itself adds (argument checks, layout lookup, pointers), without the device."""
    lib = _capi.lib
    real = lib.dmlcl_operator_execute_host
    lib.dmlcl_operator_execute_host = lambda op, ins, outs: 0
    try:
        return per_call([fn], calls)[0]
    finally:
        lib.dmlcl_operator_execute_host = real


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=4000)
    args = ap.parse_args()

    ctx = dmlcl.default_context()
    print("dmlcl %s (%s), device: %s" % (dmlcl.version(), dmlcl.library_path,
                                         ctx.device_name))
    rows = []
    x = np.random.default_rng(0).random((4, 4), np.float32)
    cases = [
        ("resample linear 4x4 -> 8x8", dmlcl.Resample(scales=2), (x,), np.empty((8, 8), x.dtype)),
        ("resample nearest 4x4 -> 8x8", dmlcl.Resample(scales=2, mode="nearest"), (x,),
         np.empty((8, 8), x.dtype)),
        ("reverse_subsequences 4x4", dmlcl.ReverseSubsequences(axis=1),
         (x, np.full((4, 1), 3, np.uint32)), np.empty_like(x)),
    ]
    for name, op, ins, out in cases:
        op(*ins, out=out)  # creates the C operator (compiles on a cold cache)
        entry = op._last
        ip = (ctypes.c_void_p * len(ins))(*[a.ctypes.data for a in ins])
        opp = (ctypes.c_void_p * 1)(out.ctypes.data)
        c_call = _capi.lib.dmlcl_operator_execute_host
        handle = entry.handle

        def direct():
            c_call(handle, ip, opp)

        def binding():
            op(*ins, out=out)

        def new_array():
            op(*ins)

        t_c, t_py, t_new = per_call([direct, binding, new_array], args.calls)
        rows.append((name, t_c, t_py, t_new, python_side(binding, args.calls)))

    # A fresh operator per call (the functions): creation is a memory-cache hit.
    t_fn = per_call([lambda: dmlcl.resample(x, 2)], max(args.calls // 4, 1))[0]

    print("%-28s %8s %13s %9s %12s %13s" % ("per call (us)", "C call", "op(x, out=y)",
                                             "overhead", "Python side", "op(x) new out"))
    for name, t_c, t_py, t_new, t_side in rows:
        print("%-28s %8.1f %13.1f %9.1f %12.1f %13.1f" % (name, t_c, t_py, t_py - t_c,
                                                         t_side, t_new))
    print("%-28s %8s %13.1f   (the function: operator created each call)" % (
        "dmlcl.resample(x, 2)", "", t_fn))
    print("overhead of op(x, out=y) above the C call: at most %.1f us measured, %.1f us in "
          "the binding's own code (goal: under 20 us)"
          % (max(r[2] - r[1] for r in rows), max(r[4] for r in rows)))


if __name__ == "__main__":
    main()
