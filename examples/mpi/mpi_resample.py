#!/usr/bin/env python3
"""The MPI example (mpi_resample.c) in Python, through dmlcl.mpi and mpi4py: a 3-D float32
field cut over the ranks (slabs, or --grid AxBxC), resampled linear 2x by the MPI layer
(each rank's part on its own device, halo faces only between ranks), rank 0 gathering
the boxes and comparing them byte for byte with one device's run of the whole field.
``--case reverse``: REVERSE_SUBSEQUENCES along X instead, its sequence lengths a field cut
by the same grid (which must leave X whole; no face moves).

    mpiexec -n 4 python3 mpi_resample.py [--shape 12,10,8] [--grid 2x2x1] [--steps 2]
        [--case linear2x|reverse]

Prints "PASS" (exit 0) or "FAIL" (exit 1) on rank 0 (doc/mpi.md, "From Python").
"""
import argparse
import sys
from contextlib import ExitStack

import numpy as np
from mpi4py import MPI

import dmlcl
import dmlcl.mpi as dm


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shape", default="12,10,8")
    p.add_argument("--grid", default=None, help="AxBxC ranks (default: slabs)")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--case", choices=("linear2x", "reverse"), default="linear2x")
    args = p.parse_args()
    comm = MPI.COMM_WORLD
    shape = tuple(int(v) for v in args.shape.split(","))
    grid = tuple(int(v) for v in args.grid.split("x")) if args.grid else None
    # Every rank can make the field; a real code would read its own box from a file.
    rng = np.random.default_rng(0)
    field = rng.uniform(-1, 1, shape).astype(np.float32)
    if args.case == "reverse":
        # One length per line along X, 0 to past its end (= the whole line).
        lengths = rng.integers(0, shape[2] + 2, shape[:2] + (1,)).astype(np.uint32)
        op, out_shape = dmlcl.ReverseSubsequences(axis=2), shape
        whole = op(field, lengths)
    else:
        lengths, op, out_shape = None, dmlcl.Resample(scales=2), tuple(2 * n for n in shape)
        whole = op(field)
    with ExitStack() as stack:   # closes in reverse order, the same on every rank
        def layout(dtype, layout_shape):
            return stack.enter_context(dm.Layout(comm, dtype, layout_shape, grid))

        li, lo = layout(np.float32, shape), layout(np.float32, out_shape)
        made, ran = {}, {}
        if lengths is not None:  # a field of its own, cut by the same grid
            made["lengths"] = layout(lengths.dtype, lengths.shape)
            ran["lengths"] = stack.enter_context(dm.Field(made["lengths"]))
            ran["lengths"].write(owned(lengths, made["lengths"].box()))
        dop = stack.enter_context(dm.Operator(op, li, lo, **made))
        x = stack.enter_context(dm.Field(li, reader=dop))
        y = stack.enter_context(dm.Field(lo))
        x.write(owned(field, li.box()))
        for _ in range(args.steps):
            dop.run(x, y, **ran)   # faces, then the tile, on this rank's device
        mine, stats = (lo.box(), y.read()), x.halo_stats
    parts = comm.gather(mine)
    sent = comm.reduce(stats["bytes_sent"])
    if comm.Get_rank() != 0:
        return 0
    gathered = np.empty(out_shape, np.float32)
    for box, part in parts:
        owned(gathered, box)[...] = part
    ok = gathered.tobytes() == whole.tobytes()
    print("%s: %s%s -> %s over %d ranks, %d steps, %d halo bytes sent"
          % ("PASS" if ok else "FAIL", "reverse along X: " if lengths is not None else "",
             shape, out_shape, comm.Get_size(), args.steps, sent))
    return 0 if ok else 1


def owned(a, box):
    start, size = box
    return a[tuple(slice(s, s + n) for s, n in zip(start, size))]


if __name__ == "__main__":
    sys.exit(main())
