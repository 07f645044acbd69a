#!/usr/bin/env python3
"""Resample a Zarr volume larger than memory into a new Zarr store, chunk by chunk, with
dmlcl through Dask (doc/python.md, "Larger than memory").

    python3 zarr_resample.py WORK_DIR [--shape 256,512,512] [--chunks 64,128,128]
        [--scale 0.5] [--mode linear|nearest|antialias] [--memory-limit-mb 64]
        [--samples 16] [--bench]

Writes WORK_DIR/input.zarr (a smooth float32 field, written chunk by chunk) unless it is
there, then WORK_DIR/output.zarr = dmlcl.resample(input) through dask.array, which reads
each output block's input box (its chunk plus the halo) and writes the block; nothing
holds the whole volume. --memory-limit-mb caps the process's address space growth (above
what it uses once the library is loaded and the program compiled) with
resource.setrlimit(RLIMIT_AS): a run that held the volume would fail with MemoryError.
Then --samples random output boxes are checked against the library's tile run of that
box on its input box, read from the store: bit for bit. --bench also times the chunked
run against one NumPy call on the whole volume (without the limit; the volume must fit).
Prints "PASS" (exit 0) or "FAIL" (exit 1).
"""
import argparse
import ctypes
import os
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import dask
import dask.array as da
import numpy as np
import zarr

import dmlcl


def field(z0, z1, shape):
    """The input's slab [z0, z1): smooth, so that Zarr's compressor has little to do."""
    z, y, x = np.ogrid[z0:z1, 0:shape[1], 0:shape[2]]
    return (np.sin(z * 0.05) + np.cos(y * 0.03) * np.sin(x * 0.02 + z * 0.01)) \
        .astype(np.float32)


def write_input(path, shape, chunks):
    if os.path.exists(path):
        return zarr.open(path, mode="r")
    z = zarr.open(path, mode="w", shape=shape, chunks=chunks, dtype=np.float32)
    for z0 in range(0, shape[0], chunks[0]):
        z1 = min(shape[0], z0 + chunks[0])
        z[z0:z1] = field(z0, z1, shape)
    return z


def fixed_address_space(threads):
    """Makes the address space grow only with what is allocated: one malloc arena (each
    thread's own would reserve 64 MiB), a fixed mmap threshold (so freed blocks go back
    at once), and Dask's worker threads started now (each maps its stack)."""
    libc = ctypes.CDLL(None)
    libc.mallopt(-8, 1)         # M_ARENA_MAX
    libc.mallopt(-3, 1 << 17)   # M_MMAP_THRESHOLD
    pool = ThreadPoolExecutor(threads)
    list(pool.map(time.sleep, [0.05] * threads))
    return pool


def limit_address_space(mb):
    """RLIMIT_AS at what the process maps now plus mb MiB."""
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) * 1024
    old = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (vm + mb * 2**20, old[1]))
    return old


def operator(args):
    if args.mode == "antialias":
        return dmlcl.Resample(scales=args.scale, antialias=True)
    return dmlcl.Resample(scales=args.scale, mode=args.mode)


def check_samples(op, src, dst, samples, rng):
    """Random output boxes of dst against the tile run of their input box from src."""
    bad = 0
    for _ in range(samples):
        size = [int(min(n, rng.integers(1, 9))) for n in dst.shape]
        start = [int(rng.integers(0, n - s + 1)) for n, s in zip(dst.shape, size)]
        i_start, i_size = op.input_box(src.shape, start, size)
        x = src[tuple(slice(s, s + n) for s, n in zip(i_start, i_size))]
        want = op(x, input_tile=(src.shape, i_start), output_tile=(dst.shape, start, size))
        got = dst[tuple(slice(s, s + n) for s, n in zip(start, size))]
        bad += got.tobytes() != want.tobytes()
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("work")
    p.add_argument("--shape", default="256,512,512")
    p.add_argument("--chunks", default="64,128,128")
    p.add_argument("--scale", type=float, default=0.5)
    p.add_argument("--mode", default="linear", choices=["linear", "nearest", "antialias"])
    p.add_argument("--memory-limit-mb", type=int, default=0)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--bench", action="store_true")
    p.add_argument("--scheduler", default="threads", choices=["threads", "synchronous"])
    args = p.parse_args()
    shape = tuple(int(v) for v in args.shape.split(","))
    chunks = tuple(int(v) for v in args.chunks.split(","))
    os.makedirs(args.work, exist_ok=True)
    pool = fixed_address_space(os.cpu_count() or 1) if args.memory_limit_mb else None
    src = write_input(os.path.join(args.work, "input.zarr"), shape, chunks)
    op = operator(args)
    x = da.from_zarr(src)
    y = op(x)  # lazy: a graph of tile runs, one per input chunk
    dst = zarr.open(os.path.join(args.work, "output.zarr"), mode="w", shape=y.shape,
                    chunks=tuple(max(c) for c in y.chunks), dtype=np.float32)
    settings = {"scheduler": args.scheduler}
    if args.memory_limit_mb:
        settings["pool"] = pool
    with dask.config.set(settings):
        # Loads the library and compiles the program, on a small corner of the input.
        op(src[tuple(slice(0, min(c, 16)) for c in chunks)])
        da.store(da.zeros(2, chunks=1), np.empty(2), lock=True)  # what store imports
        volume_mb = np.prod(shape) * 4 / 2**20
        if args.memory_limit_mb:
            old = limit_address_space(args.memory_limit_mb)
            print("address space limited to %d MiB more; the input is %.0f MiB"
                  % (args.memory_limit_mb, volume_mb))
        t = time.perf_counter()
        da.store(y, dst, lock=True)
        if args.memory_limit_mb:
            # The checks below make other tile operators, whose programs may compile.
            resource.setrlimit(resource.RLIMIT_AS, old)
    chunked = time.perf_counter() - t
    print("chunked: %s -> %s in %d blocks, %.2f s, %.0f MB/s of input"
          % (shape, y.shape, y.npartitions, chunked, volume_mb * 1.048576 / chunked))
    if args.bench:
        whole = src[...]
        t = time.perf_counter()
        one = op(whole)
        single = time.perf_counter() - t
        print("one-shot: %.2f s, %.0f MB/s; chunked / one-shot throughput %.2f"
              % (single, volume_mb * 1.048576 / single, single / chunked))
        if one.tobytes() != dst[...].tobytes():
            print("FAIL: the chunked output differs from the one-shot call")
            return 1
    bad = check_samples(op, src, dst, args.samples, np.random.default_rng(1))
    print("%s: %d of %d sampled output boxes bit for bit"
          % ("PASS" if bad == 0 else "FAIL", args.samples - bad, args.samples))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
