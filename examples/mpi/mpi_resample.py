#!/usr/bin/env python3
"""The MPI example (mpi_resample.c) in Python, through dmlcl.mpi and mpi4py: a 3-D float32
field cut over the ranks (slabs, or --grid AxBxC), resampled linear 2x by the MPI layer
(each rank's part on its own device, halo faces only between ranks), rank 0 gathering
the boxes and comparing them byte for byte with one device's run of the whole field.

    mpiexec -n 4 python3 mpi_resample.py [--shape 12,10,8] [--grid 2x2x1] [--steps 2]

Prints "PASS" (exit 0) or "FAIL" (exit 1) on rank 0 (doc/mpi.md, "From Python").
"""
import argparse
import sys

import numpy as np
from mpi4py import MPI

import dmlcl
import dmlcl.mpi as dm


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shape", default="12,10,8")
    p.add_argument("--grid", default=None, help="AxBxC ranks (default: slabs)")
    p.add_argument("--steps", type=int, default=2)
    args = p.parse_args()
    comm = MPI.COMM_WORLD
    shape = tuple(int(v) for v in args.shape.split(","))
    grid = tuple(int(v) for v in args.grid.split("x")) if args.grid else None
    # Every rank can make the field; a real code would read its own box from a file.
    field = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
    op = dmlcl.Resample(scales=2)
    out_shape = tuple(2 * n for n in shape)
    with dm.Layout(comm, np.float32, shape, grid) as li, \
            dm.Layout(comm, np.float32, out_shape, grid) as lo, \
            dm.Operator(op, li, lo) as dop, \
            dm.Field(li, reader=dop) as x, dm.Field(lo) as y:
        start, size = li.box()
        x.write(field[tuple(slice(s, s + n) for s, n in zip(start, size))])
        for _ in range(args.steps):
            dop.run(x, y)          # faces, then the tile, on this rank's device
        mine = (lo.box(), y.read())
        stats = x.halo_stats
    parts = comm.gather(mine)
    sent = comm.reduce(stats["bytes_sent"])
    if comm.Get_rank() != 0:
        return 0
    whole = np.empty(out_shape, np.float32)
    for (start, size), part in parts:
        whole[tuple(slice(s, s + n) for s, n in zip(start, size))] = part
    ok = whole.tobytes() == op(field).tobytes()
    print("%s: %s -> %s over %d ranks, %d steps, %d halo bytes sent"
          % ("PASS" if ok else "FAIL", shape, out_shape, comm.Get_size(), args.steps, sent))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
