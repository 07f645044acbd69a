#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus (tests/fuzz/corpus/validation, tests/fuzz/corpus/mpi)
in the byte format of tests/fuzz/fuzz_desc.h: a byte field is one byte, a 32-bit field four
(little-endian), a size a byte below 200 (its value mod 9) or 200 then four bytes. Each seed
is a valid operator the fuzzer starts from: run as `python3 tests/fuzz/seeds.py` from the
source tree after changing the format."""
import os
import struct

F32 = 1
NEAREST, LINEAR = 0, 1
REVERSE, RESAMPLE1, RESAMPLE, RESAMPLE2, GRAD1, RESAMPLE3 = 1, 2, 3, 4, 5, 6


def u8(v):
    return bytes([v])


def u32(v):
    return struct.pack("<I", v)


def size(v):
    return u8(v) if v < 9 else u8(200) + u32(v)


def tensor_rank(sizes, rank, dtype=F32):
    sizes = list(sizes) + [1] * (9 - len(sizes))
    return u8(dtype) + u8(rank) + b"".join(size(s) for s in sizes) + u8(0) + u8(0) + u8(0)


def desc(op, mode, rank, t_in, t_out, scale, ipo, opo, aa=0, direction=0, axis=0):
    """t_in, t_out: (sizes) of the data input and output (GRAD1: the incoming gradient
    and the outgoing one); tensor 1 is REVERSE_SUBSEQUENCES' lengths."""
    t0, t2 = (t_out, t_in) if op == GRAD1 else (t_in, t_out)
    lengths = [1 if d == axis else s for d, s in enumerate(t_in)]
    b = tensor_rank(t0, rank) + tensor_rank(lengths, rank, 3) + tensor_rank(t2, rank)
    for _ in range(9):
        b += struct.pack("<fff", scale, ipo, opo)
    return (b + u8(axis) + u8(mode) + u8(rank) + u8(mode) + u8(rank) + u8(direction) + u8(aa)
            + u8(op))


def bindings(n_in, n_out):
    """Inputs in the harness's buffer 0, the output in buffer 1 (offsets 0, sizes: the rest)."""
    def one(buf):
        return u8(buf) + u8(0) + u8(0) + u8(0)
    return one(0) + one(0) + one(1) + u8(n_in | n_out << 2)


def near(values):
    """take_near: values past 4 exactly (4 bytes), smaller ones added to the base (the
    tensor's own sizes where the harness gives one, else 0)."""
    values = list(values) + [0] * (9 - len(values))
    return b"".join(u8(v) if v < 5 else u8(200) + u32(v) for v in values)


def tile(logical, start):
    return u8(100) + near(logical) + near(start)


def no_tile():
    return u8(0) + near([]) + near([])


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    v = os.path.join(root, "validation")
    # A tile at the end of a 3e9-output RESAMPLE1 (2x linear, pixel centres).
    write(v, "tile_of_a_long_signal",
          desc(RESAMPLE1, LINEAR, 1, [4], [8], 2, 0.5, -0.5) + bindings(1, 1) + u8(1) + u8(0)
          + tile([1500000000], [1499999996]) + tile([3000000000], [2999999992]))
    # The halo query of RESAMPLE3's antialiased downsampling on 3e9 outputs, and GRAD1's.
    write(v, "halo_of_a_long_signal",
          desc(RESAMPLE3, LINEAR, 1, [4000000000], [3000000000], 0.75, 0.5, -0.5, aa=1)
          + bindings(1, 1) + u8(2) + u8(0) + no_tile() + no_tile()
          + near([0]) + near([3000000000]))
    write(v, "halo_of_a_long_gradient",
          desc(GRAD1, LINEAR, 1, [1500000000], [3000000000], 0.5, 0.5, -0.5)
          + bindings(1, 1) + u8(2) + u8(0) + no_tile() + no_tile()
          + near([1000]) + near([2000000000]))
    # Whole operators: RESAMPLE1 2x, RESAMPLE2, RESAMPLE3 antialiased, GRAD1, REVERSE.
    write(v, "resample1_2x", desc(RESAMPLE1, LINEAR, 2, [2, 2], [4, 4], 2, 0.5, -0.5)
          + bindings(1, 1) + u8(0) + u8(0) + no_tile() + no_tile())
    write(v, "resample2_down", desc(RESAMPLE2, NEAREST, 2, [8, 6], [3, 4], 0.4, 0.5, -0.5,
                                    direction=1) + bindings(1, 1) + u8(0) + u8(0) + no_tile()
          + no_tile())
    write(v, "resample3_antialiased", desc(RESAMPLE3, LINEAR, 2, [8, 8], [3, 3], 0.375, 0.5,
                                           -0.5, aa=1) + bindings(1, 1) + u8(0) + u8(0)
          + no_tile() + no_tile())
    write(v, "grad1", desc(GRAD1, LINEAR, 2, [6, 6], [3, 4], 0.5, 0.5, -0.5) + bindings(1, 1)
          + u8(0) + u8(0) + no_tile() + no_tile())
    write(v, "reverse", desc(REVERSE, NEAREST, 2, [4, 5], [4, 5], 1, 0, 0, axis=1)
          + bindings(2, 1) + u8(0) + u8(0) + no_tile() + no_tile())
    # Small operators split into slabs (slab=64): RESAMPLE1 2-D and REVERSE_SUBSEQUENCES.
    write(v, "slabs_of_a_resample",
          desc(RESAMPLE1, LINEAR, 2, [6, 7], [12, 14], 2, 0.5, -0.5) + bindings(1, 1) + u8(0)
          + u8(200) + u32(0) + no_tile() + no_tile())
    write(v, "slabs_of_a_reverse",
          desc(REVERSE, NEAREST, 2, [8, 16], [8, 16], 1, 0, 0, axis=1) + bindings(2, 1) + u8(0)
          + u8(200) + u32(0) + no_tile() + no_tile())
    m = os.path.join(root, "mpi")
    # One rank, grids of 1, layouts of the tensors' sizes (take_near's 0: the base):
    # RESAMPLE1 2x of a 2-D field, with and without overlap; GRAD1.
    for name, flags in (("resample1_field", 0), ("resample1_field_overlap", 1)):
        write(m, name, desc(RESAMPLE1, LINEAR, 2, [6, 7], [12, 14], 2, 0.5, -0.5) + u8(flags)
              + u8(0) + u8(0) + near([]) + u8(0) + near([]))
    write(m, "grad1_field", desc(GRAD1, NEAREST, 2, [8, 8], [4, 4], 2, 0.5, -0.5) + u8(0)
          + u8(0) + u8(0) + near([]) + u8(0) + near([]))


if __name__ == "__main__":
    main()
