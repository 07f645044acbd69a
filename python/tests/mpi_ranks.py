"""dmlcl.mpi at N ranks, run by test_mpi.py as ``mpiexec -n N python3 mpi_ranks.py``: each
case lays a field out over the ranks, runs the distributed operator twice and compares
every rank's owned box, bit for bit, with the same box of one device's whole run (each
rank computes that run itself: the fields are small); each halo update moves exactly the
rank's input box less its owned part; faults raise the same error on every rank, and the
job carries on. Rank 0 prints "PASS: N cases" or the failures; the exit status is 1 on any
failure (every rank agrees through an allreduce)."""
import sys

import numpy as np
from mpi4py import MPI

import dmlcl
import dmlcl.mpi as dm

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []


def owned(a, box):
    start, n = box
    return a[tuple(slice(s, s + k) for s, k in zip(start, n))]


def volume(box):
    return int(np.prod(box[1]))


def overlap(a, b):
    return int(np.prod([max(0, min(s + n, t + m) - max(s, t))
                        for s, n, t, m in zip(a[0], a[1], b[0], b[1])]))


def case(name, op, x, out_shape, grid, overlap_run=False, device_buffer=False):
    want = op(x) if out_shape is None else op(x, out=np.empty(out_shape, x.dtype))
    with dm.Layout(comm, x.dtype, x.shape, grid) as li, \
            dm.Layout(comm, x.dtype, want.shape, grid) as lo, \
            dm.Operator(op, li, lo, overlap=overlap_run) as dop:
        buf = None
        if device_buffer:
            import pyopencl.array as cla
            ctx = dmlcl.default_context()
            ghost = dop.input_box()
            n = max(volume(ghost), volume(li.box()), 1) + 64
            buf = cla.empty(ctx.queue, n, x.dtype)[64:]  # an offset into the buffer
        with dm.Field(li, reader=dop, buffer=buf) as fx, dm.Field(lo) as fy:
            fx.write(owned(x, li.box()))
            for step in range(2):
                dop.run(fx, fy)
                got = fy.read()
                ref = owned(want, lo.box())
                if got.shape != ref.shape or got.tobytes() != ref.tobytes():
                    failures.append("%s step %d: rank %d's box differs" % (name, step, rank))
            stats = fx.halo_stats
            moved = (volume(dop.input_box()) - overlap(dop.input_box(), li.box())) \
                * x.dtype.itemsize
            if stats["updates"] != 2 or stats["bytes_received"] != 2 * moved:
                failures.append("%s: rank %d received %d bytes in %d updates, expected %d"
                                % (name, rank, stats["bytes_received"], stats["updates"],
                                   2 * moved))


def fault(name, needle, make):
    """make() must raise a dmlcl.Error naming needle, on every rank."""
    try:
        make()
        failures.append("%s: rank %d raised nothing" % (name, rank))
    except dmlcl.Error as e:
        if needle not in e.message:
            failures.append("%s: rank %d: %r lacks %r" % (name, rank, e.message, needle))


rng = np.random.default_rng(5)
f3 = rng.uniform(-4, 4, (7, 5, 6)).astype(np.float32)
slab, grid2 = (size, 1, 1), ((size // 2, 2, 1) if size % 2 == 0 else (1, size, 1))
case("linear 2x, slabs", dmlcl.Resample(scales=2), f3, None, slab)
case("linear 2x, 2-D grid, overlapped", dmlcl.Resample(scales=2), f3, None, grid2,
     overlap_run=True)
# 3 rows over up to 4 ranks: empty boxes and boxes thinner than the filter's halo.
case("antialias 0.5x, thin slabs", dmlcl.Resample(scales=0.5, antialias=True), f3[:3],
     None, slab)
case("nearest 1.5x float16", dmlcl.Resample(scales=1.5, mode="nearest"),
     f3.astype(np.float16), None, grid2)
case("GRAD1 of linear 2x", dmlcl.ResampleGrad(scales=2), rng.uniform(-4, 4, (8, 10, 6))
     .astype(np.float32), (4, 5, 3), slab)
try:
    import pyopencl  # noqa: F401
    case("linear 2x, a PyOpenCL buffer", dmlcl.Resample(scales=2), f3, None, slab,
         device_buffer=True)
except ImportError:
    if rank == 0:
        print("PyOpenCL not installed: the caller's-buffer case skipped")
fault("a grid that does not fit", "grid", lambda: dm.Layout(comm, np.float32, (4, 4),
                                                           (size + 1, 1)))
with dm.Layout(comm, np.float32, f3.shape, slab) as li, \
        dm.Layout(comm, np.float32, (14, 10, 12), slab) as lo:
    fault("reverse_subsequences is refused", "RESAMPLE family",
          lambda: dm.Operator(dmlcl.ReverseSubsequences(0), li, lo))
    with dm.Operator(dmlcl.Resample(scales=2), li, lo) as op, dm.Field(li) as bare, \
            dm.Field(lo) as y:
        fault("an input field of the output layout", "rank 0: ", lambda: op.run(y, bare))

bad = comm.allreduce(len(failures))
every = comm.gather(failures)
if rank == 0:
    for lst in every:
        for f in lst:
            print("FAIL", f)
    print("PASS: 7 cases, %d ranks" % size if bad == 0 else "FAIL: %d failures" % bad)
sys.exit(1 if bad else 0)
