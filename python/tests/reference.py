"""Independent NumPy references of the operators, written from the spec
(/include/dmlcl.h and doc/operators.md), never calling dmlcl.

Coordinates are computed in float32 in the spec's order; sums are accumulated in float64
and rounded once to the output dtype, so float results agree with dmlcl's within a few
ulp and nearest-neighbour results bit for bit.
"""
import math

import numpy as np

f32 = np.float32


def reverse_subsequences(x, lengths, axis):
    """out[i] = x[i'] with i'[axis] = L-1-i[axis] if i[axis] < L else i[axis],
    L = min(lengths[j], n), j = i with j[axis] = 0."""
    n = x.shape[axis]
    shape = list(x.shape)
    shape[axis] = 1
    L = np.minimum(np.broadcast_to(np.asarray(lengths), shape).astype(np.int64), n)
    idx_shape = [1] * x.ndim
    idx_shape[axis] = n
    i = np.arange(n, dtype=np.int64).reshape(idx_shape)
    src = np.where(i < L, L - 1 - i, i)
    return np.take_along_axis(x, np.broadcast_to(src, x.shape), axis)


def coordinates(n_out, scale, in_off, out_off):
    """RESAMPLE1's x = ((float)o - output_offset) / scale - input_offset, in float32."""
    o = np.arange(n_out, dtype=f32)
    return (o - f32(out_off)) / f32(scale) - f32(in_off)


def weights_1d(n_in, n_out, scale, in_off, out_off, mode, rounding=None, antialias=False):
    """The (n_out, n_in) matrix of one dimension: row o holds the weight of every input."""
    x = coordinates(n_out, scale, in_off, out_off)
    W = np.zeros((n_out, n_in), np.float64)
    rows = np.arange(n_out)
    if mode == "nearest":
        if rounding is None:
            idx = np.floor(x + f32(0.5))
        elif rounding == "increasing":
            idx = np.ceil(x)
        else:
            idx = np.floor(x)
        idx = np.clip(idx, 0, n_in - 1).astype(np.int64)
        W[rows, idx] = 1.0
        return W
    if antialias and f32(scale) < 1:
        s = f32(scale)
        for o in range(n_out):
            c = float(f32(x[o] + f32(0.5)))
            support = 1.0 / float(s)
            lo = max(int(c - support + 0.5), 0)
            hi = min(int(c + support + 0.5), n_in)
            w = np.array([max(0.0, 1.0 - abs(j + 0.5 - c) * float(s)) for j in range(lo, hi)])
            W[o, lo:hi] = w / w.sum()
        return W
    xc = np.clip(x, f32(0), f32(n_in - 1))
    i0 = np.floor(xc)
    w = (xc - i0).astype(np.float64)  # float32 subtraction, then widened
    i0 = i0.astype(np.int64)
    i1 = np.minimum(i0 + 1, n_in - 1)
    np.add.at(W, (rows, i0), 1.0 - w)
    np.add.at(W, (rows, i1), w)
    return W


def _apply(a, mats):
    """a with every dimension d multiplied by mats[d] (out = W a along that axis)."""
    for d, W in enumerate(mats):
        a = np.moveaxis(np.tensordot(W, a, axes=([1], [d])), 0, d)
    return a


def _store(acc, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.rint(acc), info.min, info.max).astype(dtype)
    return acc.astype(dtype)


def resample(x, scales, out_shape, mode="linear", in_off=0.5, out_off=-0.5, rounding=None,
             antialias=False):
    """RESAMPLE1/2/3: nearest gathers bits; linear sums in float64, rounded once."""
    r = x.ndim
    scales, in_off, out_off = (np.broadcast_to(np.asarray(v, np.float64), (r,))
                               for v in (scales, in_off, out_off))
    mats = [weights_1d(x.shape[d], out_shape[d], scales[d], in_off[d], out_off[d], mode,
                       rounding, antialias) for d in range(r)]
    if mode == "nearest":
        idx = [np.argmax(W, axis=1) for W in mats]
        return x[np.ix_(*idx)].copy()
    return _store(_apply(x.astype(np.float64), mats), x.dtype)


def resample_grad(dy, in_shape, scales, mode="linear", in_off=0.5, out_off=-0.5,
                  rounding=None):
    """The transpose of the forward pass: dx = dy multiplied by W^T along each dimension."""
    r = dy.ndim
    scales, in_off, out_off = (np.broadcast_to(np.asarray(v, np.float64), (r,))
                               for v in (scales, in_off, out_off))
    mats = [weights_1d(in_shape[d], dy.shape[d], scales[d], in_off[d], out_off[d], mode,
                       rounding).T for d in range(r)]
    return _store(_apply(dy.astype(np.float64), mats), dy.dtype)


def output_size(n, scale):
    """floor(n x scale) with the product in float32."""
    return int(math.floor(float(f32(n) * f32(scale))))
