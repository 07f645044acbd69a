"""Dask arrays through the tile operators: ``dmlcl.resample(x)`` (``resample_grad``,
``reverse_subsequences``, and the operator objects' calls) with a ``dask.array.Array``
returns a lazy Dask array of the same result, bit for bit (doc/python.md, "Dask arrays").

Each output block is the output box of one input block: its boundaries are the input's
chunk boundaries scaled as the output size is, ``floor(b x scale)`` in float32 (the
output's size at the end), so the output has as many blocks as the input, some of them
possibly empty. Its task reads exactly the input box the halo query
(``dmlcl_operator_input_box``) gives for it, from every input chunk that box touches (a
chunk thinner than the halo reaches past its neighbours), and runs the tile operator on it
(``input_tile``, ``output_tile``), so that the block is the whole run's box.

The graph holds the operator's parameters, not the operator: each process (a
``dask.distributed`` worker too) makes its own, on its own default context, one per
thread, and the library's program cache (in memory, and on disk across processes) shares
the compiled programs.
"""
import functools
import itertools
import sys
import threading
import warnings

import numpy as np

from . import _core  # imports this module: its names are looked up at call time

__all__ = ["is_dask_array", "run", "output_chunks", "ChunkWarning"]


class ChunkWarning(UserWarning):
    """A Dask array was rechunked before running (``reverse_subsequences`` along a
    chunked axis)."""


def is_dask_array(a):
    """Whether ``a`` is a ``dask.array.Array`` (without importing Dask: an array of it
    exists only once it is imported)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(a, da.Array)


def run(op, x, args, out=None, input_tile=None, output_tile=None):
    """``op(x, *args)`` for a Dask array x: the lazy result (see the module's help)."""
    if out is not None or input_tile is not None or output_tile is not None:
        raise _core._fail(op._name, "out=, input_tile= and output_tile= take NumPy or PyOpenCL "
                              "arrays; with a Dask array x the result is a new Dask array "
                              "(store it with dask.array.store or to_zarr)")
    if isinstance(op, _core.ReverseSubsequences):
        return _reverse(op, x, *args)
    return _resample(op, x)


# ---- the RESAMPLE family ---------------------------------------------------------------------

def _spec(op, x):
    """The operator's parameters resolved for x's shape, as a process-independent key:
    (class, scales, output shape, offsets, mode, rounding, antialias)."""
    _core._resample_dtype(op._name, op._in_role, x.dtype, op._computes())
    _core._layout(op._name, op._in_role, x.dtype, x.shape,
                  (x.dtype.itemsize,) * x.ndim)  # rank and sizes; strides come per block
    scales, out_shape, io, oo = op._values(tuple(x.shape), None)
    return (type(op), scales, out_shape, io, oo, op.mode, op.rounding,
            getattr(op, "antialias", False))


_local = threading.local()


def _operator(spec):
    """This thread's operator object for spec (one per thread: an object's table of C
    operators is not shared between threads; the context and programs are)."""
    ops = getattr(_local, "ops", None)
    if ops is None:
        ops = _local.ops = {}
    op = ops.get(spec)
    if op is None:
        cls, scales, out_shape, io, oo, mode, rounding, antialias = spec
        if cls is _core.Resample:
            op = cls(scales, out_shape, mode, io, oo, rounding, antialias)
        else:
            op = cls(out_shape, scales, mode, io, oo, rounding)
        if len(ops) > 64:
            ops.clear()
        ops[spec] = op
    return op


def _boundaries(chunks):
    return np.concatenate(([0], np.cumsum(chunks))).astype(np.int64)


def output_chunks(op, x_shape, x_chunks):
    """The output's chunks for an input of shape x_shape cut into x_chunks (Dask's
    tuple of tuples): input boundary b becomes ``floor(b x scale)`` as the operator's
    output size is computed in float32 (resample_grad: ``floor(b / scale)``), at most the
    output size; the last boundary is the output size."""
    scales, out_shape, _, _ = op._values(tuple(x_shape), None)
    chunks = []
    for d, c in enumerate(x_chunks):
        b = [min(op._size_of(int(v), scales[d]), out_shape[d])
             for v in _boundaries(c)[1:-1]]
        edges = [0] + b + [out_shape[d]]
        chunks.append(tuple(int(e - s) for s, e in zip(edges, edges[1:])))
    return tuple(chunks)


def _input_ranges(op, in_shape, out_shape, out_chunks):
    """Per dimension, per output chunk: the input range (start, size) the halo query
    gives. The family is separable, so the input box of a block is the product of these
    ranges: each range is the query's answer along d for the block's range along d and
    whole ranges elsewhere. An empty chunk reads nothing: (0, 0)."""
    ranges = []
    for d, c in enumerate(out_chunks):
        per = []
        for s, n in zip(_boundaries(c)[:-1], c):
            if n == 0:
                per.append((0, 0))
                continue
            start = [0] * len(out_shape)
            size = list(out_shape)
            start[d], size[d] = int(s), int(n)
            i_start, i_size = op.input_box(in_shape, start, size, out_shape)
            per.append((i_start[d], i_size[d]))
        ranges.append(per)
    return ranges


def _pieces(bounds, start, size):
    """The input chunks along one dimension that [start, start + size) touches: (chunk
    index, slice within the chunk, slice within the box)."""
    first = int(np.searchsorted(bounds, start, side="right")) - 1
    out = []
    i = first
    while i < len(bounds) - 1 and bounds[i] < start + size:
        lo, hi = max(start, bounds[i]), min(start + size, bounds[i + 1])
        out.append((i, slice(int(lo - bounds[i]), int(hi - bounds[i])),
                    slice(int(lo - start), int(hi - start))))
        i += 1
    return out


def _resample(op, x):
    import dask.array as da
    from dask.highlevelgraph import HighLevelGraph
    from dask.base import tokenize

    spec = _spec(op, x)
    out_shape = spec[2]
    out_chunks = output_chunks(op, x.shape, x.chunks)
    ranges = _input_ranges(op, tuple(x.shape), out_shape, out_chunks)
    bounds = [_boundaries(c) for c in x.chunks]
    out_bounds = [_boundaries(c) for c in out_chunks]
    name = "dmlcl-%s-%s" % (op._name.replace("_", "-"), tokenize(x, spec[1:]))
    layer = {}
    for idx in itertools.product(*[range(len(c)) for c in out_chunks]):
        o_start = tuple(int(out_bounds[d][i]) for d, i in enumerate(idx))
        o_size = tuple(out_chunks[d][i] for d, i in enumerate(idx))
        box = [ranges[d][i] for d, i in enumerate(idx)]
        if 0 in o_size:
            layer[(name,) + idx] = (functools.partial(np.empty, o_size, x.dtype),)
            continue
        per_dim = [_pieces(bounds[d], s, n) for d, (s, n) in enumerate(box)]
        keys, places = [], []
        for combo in itertools.product(*per_dim):
            keys.append((x.name,) + tuple(p[0] for p in combo))
            places.append((tuple(p[1] for p in combo), tuple(p[2] for p in combo)))
        task = functools.partial(_run_block, spec, tuple(s for s, _ in box),
                                 tuple(n for _, n in box), tuple(places), x.shape,
                                 o_start, o_size)
        layer[(name,) + idx] = (task, keys)
    graph = HighLevelGraph.from_collections(name, layer, dependencies=[x])
    return da.Array(graph, name, out_chunks, dtype=x.dtype)


def _gather(in_size, places, blocks):
    """The input box from the chunks it touches: a view of the one chunk that holds it
    all (no copy), else a new array filled from each."""
    if len(blocks) == 1:
        inner, _ = places[0]
        return blocks[0][inner]
    box = np.empty(in_size, blocks[0].dtype)
    for (inner, outer), b in zip(places, blocks):
        box[outer] = b[inner]
    return box


def _run_block(spec, in_start, in_size, places, in_shape, o_start, o_size, blocks):
    box = _gather(in_size, places, [np.asarray(b) for b in blocks])
    return _operator(spec)(box, input_tile=(tuple(in_shape), in_start),
                           output_tile=(spec[2], o_start, o_size))


# ---- REVERSE_SUBSEQUENCES ----------------------------------------------------------------------

def _reverse(op, x, lengths):
    """Blocks whose axis is whole run on their own, with their part of lengths; an axis in
    several chunks is made one chunk first, with a ChunkWarning."""
    import dask.array as da

    axis = op._axis(x.ndim)
    _core._dtype_code(op._name, "x", x.dtype)
    if len(x.chunks[axis]) > 1:
        warnings.warn("%s: x is cut into %d chunks along axis %d; rechunked to one chunk "
                      "along it (a sequence's elements come from anywhere on its line)"
                      % (op._name, len(x.chunks[axis]), axis), ChunkWarning, stacklevel=_caller_level())
        x = x.rechunk({axis: -1})
    target = x.shape[:axis] + (1,) + x.shape[axis + 1:]
    if not is_dask_array(lengths):
        lengths = op._host_lengths(lengths)
    if lengths.ndim == x.ndim - 1 and lengths.ndim:
        lengths = lengths[(slice(None),) * axis + (None,)]
    try:
        lengths = da.broadcast_to(da.asarray(lengths), target)
    except ValueError:
        raise _core._fail(op._name, "lengths has shape %s, which does not broadcast to %s "
                              "(x's shape with 1 on the axis)" % (lengths.shape, target))
    lengths = lengths.rechunk(x.chunks[:axis] + ((1,),) + x.chunks[axis + 1:])
    return da.map_blocks(functools.partial(_reverse_block, op.axis), x, lengths,
                         dtype=x.dtype, meta=np.empty((0,) * x.ndim, x.dtype))


def _caller_level():
    """The stack level of the first caller outside this package (for warnings)."""
    f, level = sys._getframe(1), 1
    while f is not None and f.f_globals.get("__package__") == __package__:
        f, level = f.f_back, level + 1
    return level


def _reverse_block(axis, xb, lb):
    ops = getattr(_local, "reverse", None)
    if ops is None:
        ops = _local.reverse = {}
    op = ops.get(axis)
    if op is None:
        op = ops[axis] = _core.ReverseSubsequences(axis)
    return op(xb, lb)
