"""Dask arrays through dmlcl (doc/python.md, "Dask arrays"): the lazy result equals the
one-shot NumPy call bit for bit for every mode, 2-D and 3-D, uneven chunks and chunks
thinner than the halo; each block reads exactly the halo query's input box; the output's
chunks are the input's boundaries scaled; reverse_subsequences along an unchunked and a
chunked axis; a Zarr volume four times a memory limit resampled chunk by chunk; and the
same code on a dask.distributed LocalCluster of two worker processes.

make check runs it through python/dask_tests.sh, which skips it (saying why) where Dask,
Zarr or distributed is missing; pytest alone skips what it cannot import, naming it.
"""
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="no module named dask.array (Debian: "
                         "apt-get install python3-dask; PyPI: pip install dask)")
import dask  # noqa: E402

import dmlcl  # noqa: E402
from dmlcl import _dask  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, os.pardir, os.pardir, "examples", "python", "zarr_resample.py")
RNG = np.random.default_rng(37)

# Uneven chunks; the 1s are thinner than every halo below (linear 2x reads one element
# past a block, antialias 0.5x two, nearest 0.7x and GRAD1 more).
CHUNKS_3D = ((5, 1, 1, 6), (3, 9), (1, 2, 4))
CHUNKS_2D = ((1, 6, 1, 1, 4), (2, 1, 8))
MODES = {
    "nearest": dict(scales=(0.7, 1.6, 2), mode="nearest"),
    "nearest increasing": dict(scales=(0.7, 1.6, 2), mode="nearest", rounding="increasing"),
    "nearest decreasing": dict(scales=(2, 0.7, 1.6), mode="nearest", rounding="decreasing"),
    "linear": dict(scales=(2, 1.5, 0.75)),
    "antialias": dict(scales=(0.5, 0.4, 1), antialias=True),
}


def data(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(-4, 4, shape).astype(dtype)
    return RNG.integers(0, 256, shape).astype(dtype)


def assert_bits(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("rank", [2, 3])
def test_resample_blocks_equal_the_one_shot_call(mode, rank):
    chunks = CHUNKS_3D if rank == 3 else CHUNKS_2D
    kw = dict(MODES[mode], scales=MODES[mode]["scales"][:rank])
    dtypes = [np.float32, np.float16, np.uint8, np.uint16] if rank == 3 else [np.float32]
    for dtype in dtypes:
        x = data([sum(c) for c in chunks], dtype)
        y = dmlcl.resample(da.from_array(x, chunks=chunks), **kw)
        assert isinstance(y, da.Array) and y.numblocks == tuple(len(c) for c in chunks)
        assert_bits(y.compute(), dmlcl.resample(x, **kw))


@pytest.mark.parametrize("kw", [dict(scales=(2, 1.5, 3)),
                                dict(scales=(0.5, 2, 1.5), mode="nearest",
                                     rounding="decreasing")], ids=["linear", "nearest"])
def test_resample_grad_blocks_equal_the_one_shot_call(kw):
    dy = data((11, 9, 13), np.float32)
    shape = tuple(int(np.floor(np.float32(n) / np.float32(s)))
                  for n, s in zip(dy.shape, kw["scales"]))
    got = dmlcl.resample_grad(da.from_array(dy, chunks=((1, 1, 9), (4, 5), (2, 11))),
                              shape, **kw)
    assert_bits(got.compute(), dmlcl.resample_grad(dy, shape, **kw))


def test_output_chunks_are_the_scaled_input_boundaries():
    # floor(b x scale) in float32, as the output size; the last one is the output's size.
    x = da.zeros((10, 7), dtype=np.float32, chunks=((3, 3, 4), (1, 1, 5)))
    y = dmlcl.resample(x, scales=(0.7, 0.5))
    assert y.shape == (7, 3)
    assert y.chunks == ((2, 2, 3), (0, 1, 2))   # boundaries 0 2 4 7 and 0 0 1 3
    assert y.blocks[0, 0].compute().shape == (2, 0)


def test_each_block_reads_exactly_the_halo_querys_box():
    x = da.zeros((13, 12, 7), dtype=np.float32, chunks=CHUNKS_3D)
    for kw in MODES.values():
        op = dmlcl.Resample(**kw)
        out_shape = op(x).shape
        out_chunks = _dask.output_chunks(op, x.shape, x.chunks)
        ranges = _dask._input_ranges(op, x.shape, out_shape, out_chunks)
        for idx in np.ndindex(*[len(c) for c in out_chunks]):
            size = [out_chunks[d][i] for d, i in enumerate(idx)]
            if 0 in size:
                continue
            start = [sum(out_chunks[d][:i]) for d, i in enumerate(idx)]
            box = op.input_box(x.shape, start, size)
            assert tuple(zip(*box)) == tuple(ranges[d][i] for d, i in enumerate(idx))


def test_reverse_subsequences_unchunked_and_chunked_axis():
    x = data((6, 9, 4), np.uint16)   # every dtype reverses; the resample family has no uint16
    lengths = RNG.integers(0, 12, (6, 4))
    want = dmlcl.reverse_subsequences(x, lengths, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = dmlcl.reverse_subsequences(da.from_array(x, chunks=(2, 9, 3)), lengths, axis=1)
    assert y.chunks == ((2, 2, 2), (9,), (3, 1))
    assert_bits(y.compute(), want)
    with pytest.warns(_dask.ChunkWarning, match="cut into 3 chunks along axis 1; "
                                                 "rechunked to one chunk"):
        y = dmlcl.reverse_subsequences(da.from_array(x, chunks=(6, 3, 4)), lengths, axis=1)
    assert_bits(y.compute(), want)


def test_bad_input_raises_before_any_block_runs():
    x = da.zeros((4, 4), dtype=np.int64, chunks=2)
    with pytest.raises(dmlcl.DataTypeError, match="resample: x has dtype int64; resample "
                                                  "takes float32"):
        dmlcl.resample(x, scales=2)
    with pytest.raises(dmlcl.DataTypeError, match="takes int32 and uint32 with mode='nearest' "
                                                  "only"):
        dmlcl.resample(x.astype(np.int32), scales=2)
    with pytest.raises(dmlcl.InvalidArgumentError, match="scales\\[1\\] must be finite"):
        dmlcl.resample(x.astype(np.float32), scales=(2, -1))
    with pytest.raises(dmlcl.InvalidArgumentError, match="with a Dask array x the result is "
                                                         "a new Dask array"):
        dmlcl.resample(x.astype(np.float32), scales=2, out=np.empty((8, 8), np.float32))


def test_progress_bar_works_unchanged(capsys):
    from dask.diagnostics import ProgressBar
    x = da.from_array(data((8, 8), np.float32), chunks=3)
    with ProgressBar():
        dmlcl.resample(x, scales=2).compute()
    assert "100%" in capsys.readouterr().out


def test_larger_than_memory_zarr_volume_chunk_by_chunk():
    pytest.importorskip("zarr", reason="no module named zarr (Debian: apt-get install "
                        "python3-zarr; PyPI: pip install zarr)")
    with tempfile.TemporaryDirectory() as work:
        # 32 MiB of input under an 8 MiB address-space limit, chunks of 33 rows (odd: the
        # halos cross chunk boundaries), 16 sampled boxes checked bit for bit.
        args = [sys.executable, EXAMPLE, work, "--shape", "128,256,256", "--memory-limit-mb",
                "8", "--chunks"]
        run = subprocess.run(args + ["33,64,64"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True)
        assert run.returncode == 0 and "PASS: 16 of 16" in run.stdout, run.stdout
        assert "the input is 32 MiB" in run.stdout
        # The limit bites: the volume in one chunk does not fit under it.
        args[2] = os.path.join(work, "one-chunk")
        run = subprocess.run(args + ["128,256,256", "--samples", "0"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True)
        assert run.returncode != 0 and "MemoryError" in run.stdout, run.stdout


def test_local_cluster_two_worker_processes():
    distributed = pytest.importorskip("distributed", reason="no module named distributed "
                                      "(Debian: apt-get install python3-distributed; PyPI: "
                                      "pip install distributed)")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["DMLCL_CACHE_DIR"] = cache   # inherited by the workers: shared programs
        try:
            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                          dashboard_address=None) as cluster, \
                    distributed.Client(cluster) as client:
                workers = sorted(client.scheduler_info()["workers"])
                x = data((12, 10), np.float32)

                def warm():
                    dmlcl.resample(x, scales=2)
                    return os.getpid(), dmlcl.cache_stats()
                # One worker compiles; the other loads the program from the disk cache.
                first = client.submit(warm, workers=workers[:1], pure=False).result()
                second = client.submit(warm, workers=workers[1:], pure=False).result()
                assert first[0] != second[0] and first[0] != os.getpid()
                assert first[1]["compiles"] >= 1
                assert second[1]["compiles"] == 0 and second[1]["disk_hits"] >= 1, second
                y = dmlcl.resample(da.from_array(x, chunks=((3, 1, 8), (5, 5))), scales=2)
                assert_bits(client.compute(y).result(), dmlcl.resample(x, scales=2))
        finally:
            os.environ["DMLCL_CACHE_DIR"] = "off"
