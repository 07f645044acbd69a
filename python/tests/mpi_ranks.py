"""dmlcl.mpi at N ranks, run by test_mpi.py as ``mpiexec -n N python3 mpi_ranks.py``: each
case lays a field out over the ranks, runs the distributed operator twice and compares
every rank's owned box, bit for bit, with the same box of one device's whole run (each
rank computes that run itself: the fields are small); each halo update moves exactly the
rank's input box less its owned part (none for REVERSE_SUBSEQUENCES, whose lengths are a
field cut alike); faults raise the same error, with its message, on every rank, and the
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


def case(name, op, x, out_shape, grid, overlap_run=False, device_buffer=False,
         lengths=None):
    """lengths: REVERSE_SUBSEQUENCES' (x's shape with 1 on the axis), a field cut by grid."""
    if lengths is not None:
        with dm.Layout(comm, lengths.dtype, lengths.shape, grid) as ll, dm.Field(ll) as fl:
            fl.write(owned(lengths, ll.box()))
            return run_case(name, op, x, op(x, lengths), grid, overlap_run, device_buffer,
                            dict(lengths=ll), dict(lengths=fl))
    want = op(x) if out_shape is None else op(x, out=np.empty(out_shape, x.dtype))
    run_case(name, op, x, want, grid, overlap_run, device_buffer, {}, {})


def run_case(name, op, x, want, grid, overlap_run, device_buffer, made_with, run_with):
    with dm.Layout(comm, x.dtype, x.shape, grid) as li, \
            dm.Layout(comm, x.dtype, want.shape, grid) as lo, \
            dm.Operator(op, li, lo, overlap=overlap_run, **made_with) as dop:
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
                dop.run(fx, fy, **run_with)
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


def fault(name, needle, make, cls=dmlcl.InvalidArgumentError):
    """make() must raise a cls (a dmlcl.Error) naming needle, on every rank."""
    try:
        make()
        failures.append("%s: rank %d raised nothing" % (name, rank))
    except dmlcl.Error as e:
        if needle not in e.message or not isinstance(e, cls):
            failures.append("%s: rank %d: %s %r lacks %r or is not a %s"
                            % (name, rank, type(e).__name__, e.message, needle, cls.__name__))


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
# REVERSE_SUBSEQUENCES: the axis stays whole on every rank (the layer refuses a cut
# across it, below), the other dimensions cut; lengths 0 .. past the axis (= the whole).
case("reverse along X, thin slabs (empty at 4 ranks), uint32 lengths",
     dmlcl.ReverseSubsequences(2), f3[:3], None, slab,
     lengths=rng.integers(0, 8, (3, 5, 1)).astype(np.uint32))
across = (1, size // 2, 2, 1) if size % 2 == 0 else (1, size, 1, 1)
i4 = rng.integers(-2**31, 2**31, (6, 3, 4, 2), dtype=np.int64).astype(np.int32)
case("reverse int32 along Z, a 2-D grid over Y and X, overlapped, uint64 lengths",
     dmlcl.ReverseSubsequences(0), i4, None, across, overlap_run=True,
     lengths=rng.integers(0, 8, (1, 3, 4, 2)).astype(np.uint64))
fault("a grid that does not fit", "grid", lambda: dm.Layout(comm, np.float32, (4, 4),
                                                           (size + 1, 1)))
with dm.Layout(comm, np.float32, f3.shape, slab) as li, \
        dm.Layout(comm, np.float32, (14, 10, 12), slab) as lo:
    fault("an operator the layer does not run", "or dmlcl.ReverseSubsequences (the "
          "operators the layer runs), got int", lambda: dm.Operator(3, li, lo))
    with dm.Operator(dmlcl.Resample(scales=2), li, lo) as op, dm.Field(li) as bare, \
            dm.Field(lo) as y:
        fault("an input field of the output layout", "rank 0: x is not of the operator's "
              "input layout", lambda: op.run(y, bare))
        fault("lengths for a resample", "rank 0: lengths is given: the operator (the "
              "RESAMPLE family) reads x only", lambda: op.run(bare, y, lengths=bare))
with dm.Layout(comm, np.float32, f3.shape, slab) as li, \
        dm.Layout(comm, np.uint32, (7, 5, 1), slab) as ll, \
        dm.Layout(comm, np.uint32, (7, 5, 6), slab) as l_whole, \
        dm.Layout(comm, np.int64, (7, 5, 1), slab) as l_signed, \
        dm.Layout(comm, np.uint32, (7, 5, 1), (1, size, 1)) as l_other_grid, \
        dm.Layout(comm, np.uint32, (1, 5, 6), slab) as l_along_z:
    rev = dmlcl.ReverseSubsequences(2)
    fault("lengths of the input's shape", "dmlcl_mpi_operator_create: rank 0: op: "
          "reverse_subsequences: lengths shape[2] must be 1 (the axis), got 6",
          lambda: dm.Operator(rev, li, li, lengths=l_whole))
    fault("int64 lengths", "rank 0: op: reverse_subsequences: lengths dtype must be uint32 or "
          "uint64, got int64", lambda: dm.Operator(rev, li, li, lengths=l_signed),
          dmlcl.DataTypeError)
    fault("no lengths layout", "lengths must be the Layout of the sequence lengths",
          lambda: dm.Operator(rev, li, li))
    if size > 1:
        fault("the axis cut", "rank 0: REVERSE_SUBSEQUENCES: the input layout cuts the axis "
              "(grid[0] = %d)" % size, lambda: dm.Operator(dmlcl.ReverseSubsequences(0), li,
                                                          li, lengths=l_along_z))
    with dm.Layout(comm, np.float32, f3.shape, slab) as lo, \
            dm.Operator(rev, li, lo, lengths=ll) as op, dm.Field(li, reader=op) as x, \
            dm.Field(lo) as y, dm.Field(l_other_grid) as lengths_other_grid:
        fault("reverse without lengths", "dmlcl_mpi_operator_run: rank 0: lengths is None: "
              "the operator (REVERSE_SUBSEQUENCES) reads x and its sequence lengths",
              lambda: op.run(x, y))
        fault("lengths as x's field", "rank 0: lengths' layout (dtype float32, 3 dimensions) "
              "is not the operator's lengths layout (dtype uint32, 3 dimensions)",
              lambda: op.run(x, y, lengths=x))
        if size > 1:
            fault("lengths of another grid", "rank 0: lengths' layout has shape[0] = 7 and "
                  "grid[0] = 1; the lengths tensor's is 7, the input's grid %d" % size,
                  lambda: op.run(x, y, lengths=lengths_other_grid))

bad = comm.allreduce(len(failures))
every = comm.gather(failures)
if rank == 0:
    for lst in every:
        for f in lst:
            print("FAIL", f)
    print("PASS: 9 cases, %d ranks" % size if bad == 0 else "FAIL: %d failures" % bad)
sys.exit(1 if bad else 0)
