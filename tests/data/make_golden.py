#!/usr/bin/env python3
"""Writes the golden .npy files in this folder: inputs and expected outputs for
tests/cli_test.sh.

Independent of dmlcl on purpose: plain Python 3 (no NumPy), .npy files written by hand
with struct, expected outputs computed with Python lists straight from the operator
definitions in the spec (doc/operators.md). RESAMPLE1 coordinates are computed in float32,
emulated by rounding through struct after each operation, in the order the spec gives:
x = ((float)o - output_offset) / scale - input_offset.

Run it from anywhere: python3 tests/data/make_golden.py. It prints the file list that
Makefile.am's GOLDEN_FILES holds.
"""
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
WRITTEN = []

# ---- .npy writing ---------------------------------------------------------------------------

CODES = {  # descr kind+size -> struct code
    'f2': 'e', 'f4': 'f', 'f8': 'd', 'i1': 'b', 'u1': 'B', 'i2': 'h', 'u2': 'H',
    'i4': 'i', 'u4': 'I', 'i8': 'q', 'u8': 'Q',
}


def c_order_indices(shape):
    """Every index of shape, last dimension fastest."""
    idx = [0] * len(shape)
    total = 1
    for s in shape:
        total *= s
    for _ in range(total):
        yield tuple(idx)
        for d in reversed(range(len(shape))):
            idx[d] += 1
            if idx[d] < shape[d]:
                break
            idx[d] = 0


def flat(shape, index):
    """C-order position of index."""
    pos = 0
    for s, i in zip(shape, index):
        pos = pos * s + i
    return pos


def write_npy(name, descr, shape, values, fortran=False, version=1, raw_bits=False):
    """values: C-order list. raw_bits: values are integer bit patterns (for f2 payloads)."""
    order, kind = descr[0], descr[1:]
    code = CODES[kind]
    if raw_bits:
        code = {'f2': 'H', 'f4': 'I', 'f8': 'Q'}[kind]
    endian = '>' if order == '>' else '<'
    items = values
    if fortran:  # first dimension fastest: walk reversed indices
        rev = tuple(reversed(shape))
        items = [values[flat(shape, tuple(reversed(i)))] for i in c_order_indices(rev)]
    data = b''.join(struct.pack(endian + code, v) for v in items)
    shape_text = '(%d,)' % shape[0] if len(shape) == 1 else '(' + ', '.join(map(str, shape)) + ')'
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, 'True' if fortran else 'False', shape_text)
    pre = 10 if version == 1 else 12
    total = (pre + len(header) + 1 + 63) // 64 * 64
    header = header + ' ' * (total - pre - len(header) - 1) + '\n'
    length = struct.pack('<H', len(header)) if version == 1 else struct.pack('<I', len(header))
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(b'\x93NUMPY' + bytes([version, 0]) + length + header.encode('latin1') + data)
    WRITTEN.append(name)


# ---- REVERSE_SUBSEQUENCES ---------------------------------------------------------------------

def reverse_subsequences(shape, values, lengths, axis):
    """lengths: C-order list over shape with shape[axis] = 1."""
    lshape = list(shape)
    lshape[axis] = 1
    n = shape[axis]
    out = [None] * len(values)
    for i in c_order_indices(shape):
        j = list(i)
        j[axis] = 0
        length = min(lengths[flat(lshape, j)], n)
        src = list(i)
        if i[axis] < length:
            src[axis] = length - 1 - i[axis]
        out[flat(shape, i)] = values[flat(shape, src)]
    return out


def reverse_cases():
    # Reference examples 1 and 2 of the spec, verbatim.
    shape = [1, 1, 3, 4]
    x = [float(v) for v in range(1, 13)]
    write_npy('rs1_input.npy', '<f4', shape, x)
    write_npy('rs1_lengths.npy', '<u4', [1, 1, 3, 1], [2, 4, 3])
    write_npy('rs1_expected.npy', '<f4', shape, reverse_subsequences(shape, x, [2, 4, 3], 3))
    write_npy('rs2_lengths.npy', '<u4', [1, 1, 1, 4], [2, 3, 1, 0])
    write_npy('rs2_expected.npy', '<f4', shape, reverse_subsequences(shape, x, [2, 3, 1, 0], 2))

    # Big-endian float16 in Fortran order, format 2.0, uint64 lengths (0, 1, above n):
    # bit patterns with NaN payloads, signed zeros, infinities and subnormals must come out
    # unchanged.
    shape = [3, 5, 2]
    special = [0x7e01, 0xfe42, 0x8000, 0x0000, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x3c00, 0xbc00]
    bits = special + [0x7c00 | (k * 97 % 1023 + 1) for k in range(10)] + \
        [0x4000 + k for k in range(10)]
    lengths = [0, 1, 7, 5, 3, 2]  # shape (3, 1, 2)
    write_npy('rs3_input.npy', '>f2', shape, bits, fortran=True, version=2, raw_bits=True)
    write_npy('rs3_lengths.npy', '<u8', [3, 1, 2], lengths)
    write_npy('rs3_expected.npy', '<f2', shape,
              reverse_subsequences(shape, bits, lengths, 1), raw_bits=True)

    # int64 with negative values, format 3.0, big-endian uint32 lengths, axis 0, rank 4.
    shape = [2, 3, 4, 5]
    x = [(-1) ** k * (k * 1000003 + 17) for k in range(120)]
    lengths = [k % 4 for k in range(60)]  # 0..3 on an axis of size 2
    write_npy('rs4_input.npy', '<i8', shape, x, version=3)
    write_npy('rs4_lengths.npy', '>u4', [1, 3, 4, 5], lengths)
    write_npy('rs4_expected.npy', '<i8', shape, reverse_subsequences(shape, x, lengths, 0))


# ---- RESAMPLE1 ----------------------------------------------------------------------------------

def f32(v):
    return struct.unpack('<f', struct.pack('<f', v))[0]


def coordinate(o, scale, in_off, out_off):
    """The spec's float32 mapping; each operation rounded to float32 like IEEE hardware
    (the double result of one float32 operation rounds to the correct float32)."""
    return f32(f32(f32(float(o) - out_off) / scale) - in_off)


def resample1(shape, values, out_shape, mode, scales, in_offs, out_offs):
    rank = len(shape)
    # The tool parses its arguments as float32 (strtof); so does every DirectML caller.
    scales, in_offs, out_offs = ([f32(v) for v in a] for a in (scales, in_offs, out_offs))
    out = []
    for o in c_order_indices(out_shape):
        if mode == 'nearest':
            src = []
            for d in range(rank):
                x = coordinate(o[d], scales[d], in_offs[d], out_offs[d])
                i = math.floor(f32(x + 0.5))
                src.append(min(max(i, 0), shape[d] - 1))
            out.append(values[flat(shape, src)])
            continue
        corners = [([], 1.0)]
        for d in range(rank):
            x = coordinate(o[d], scales[d], in_offs[d], out_offs[d])
            x = min(max(x, 0.0), float(shape[d] - 1))
            i0 = math.floor(x)
            i1 = min(i0 + 1, shape[d] - 1)
            w = f32(x - i0)
            corners = [(c + [i0], wt * (1 - w)) for c, wt in corners] + \
                      [(c + [i1], wt * w) for c, wt in corners]
        out.append(f32(sum(wt * values[flat(shape, c)] for c, wt in corners)))
    return out


def resample_cases():
    # 4 -> 2 nearest with pixel-centre offsets (DirectML's RESAMPLE): the spec's tie case,
    # which picks input indices 1 and 3 along each dimension.
    shape = [4, 4]
    x = [float(v) for v in range(16)]
    write_npy('rz1_input.npy', '<f4', shape, x)
    write_npy('rz1_expected.npy', '<f4', [2, 2],
              resample1(shape, x, [2, 2], 'nearest', [0.5, 0.5], [0.5, 0.5], [-0.5, -0.5]))

    # Linear 2x upsampling with pixel-centre offsets on NCHW, output size by default
    # (floor(size x scale)). Dyadic inputs: the float32 result is exact.
    shape = [1, 1, 2, 3]
    x = [0.0, 1.0, 4.0, 2.0, 3.0, -1.0]
    write_npy('rz2_input.npy', '<f4', shape, x)
    write_npy('rz2_expected.npy', '<f4', [1, 1, 4, 6],
              resample1(shape, x, [1, 1, 4, 6], 'linear', [1, 1, 2, 2], [0.5] * 4, [-0.5] * 4))

    # Linear with zero offsets (corner-aligned start) and an explicit output size that is
    # not input x scale.
    write_npy('rz3_expected.npy', '<f4', [1, 1, 3, 5],
              resample1(shape, x, [1, 1, 3, 5], 'linear', [1, 1, 2, 2], [0.0] * 4, [0.0] * 4))

    # float16 nearest, x3 upsampling with zero offsets, rank 3, big-endian input.
    shape = [2, 2, 3]
    halves = [0x3c00 + 0x40 * k for k in range(12)]  # 1.0, 1.0625, ... as bit patterns
    write_npy('rz4_input.npy', '>f2', shape, halves, raw_bits=True)
    out_shape = [2, 6, 9]
    write_npy('rz4_expected.npy', '<f2', out_shape,
              resample1(shape, halves, out_shape, 'nearest', [1, 3, 3], [0, 0, 0], [0, 0, 0]),
              raw_bits=True)

    # Nearest with fractional scale and uneven offsets, Fortran-order input.
    shape = [3, 5]
    x = [float(v * v - 7) for v in range(15)]
    write_npy('rz5_input.npy', '<f4', shape, x, fortran=True)
    out_shape = [4, 7]  # floor(3 x 1.5) = 4, floor(5 x 1.5) = 7
    write_npy('rz5_expected.npy', '<f4', out_shape,
              resample1(shape, x, out_shape, 'nearest', [1.5, 1.5], [0.25, -0.25], [0.1, 0.75]))


if __name__ == '__main__':
    reverse_cases()
    resample_cases()
    print('GOLDEN_FILES = \\\n\t' + ' \\\n\t'.join('tests/data/' + n for n in WRITTEN))
