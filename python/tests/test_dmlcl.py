"""The Python binding against independent NumPy references (reference.py): every
function, every layout NumPy makes (C and Fortran order, slices, transposes, broadcast
and negative strides), every data type, bad input with its message, and PyOpenCL arrays
on the device when PyOpenCL is installed.

Runs under pytest or ``python3 -m unittest``; ``make check`` runs it through
python/run_tests.sh on POCL (DMLCL_DEVICE=cpu). Shapes repeat across cases so that the
kernels compile once.
"""
import ctypes
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from ctypes import addressof, byref, c_float, c_uint32, pointer

import numpy as np
from numpy.lib.stride_tricks import as_strided

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref  # noqa: E402

import dmlcl  # noqa: E402
from dmlcl import _outputs  # noqa: E402

RNG = np.random.default_rng(16)
ALL_DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint16, np.uint32, np.uint64]
RESAMPLE_DTYPES = [np.float32, np.float16, np.float64, np.int8, np.uint8, np.int16, np.uint16]
NEAREST_ONLY_DTYPES = [np.int32, np.uint32]  # moved, never computed


def random(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return RNG.uniform(-4, 4, shape).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True,
                        dtype=dtype)


class Assertions(unittest.TestCase):
    def assertBits(self, got, want):
        """Same shape, dtype and bit patterns."""
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(got.dtype, want.dtype)
        u = np.dtype("u%d" % got.dtype.itemsize)
        np.testing.assert_array_equal(np.ascontiguousarray(got).view(u),
                                      np.ascontiguousarray(want).view(u))

    def assertClose(self, got, want):
        """Within the spec's accuracy for the dtype (linear results)."""
        self.assertEqual(got.shape, want.shape)
        self.assertEqual(got.dtype, want.dtype)
        kind = got.dtype
        if kind.kind in "iu":
            diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
            self.assertLessEqual(int(diff.max()), 1, "integer results differ by more than 1")
            return
        tol = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6,
               np.dtype(np.float64): 1e-6}[kind]
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=tol, atol=tol)

    def assertRaisesMessage(self, cls, text, fn, *args, **kw):
        with self.assertRaises(cls) as cm:
            fn(*args, **kw)
        self.assertIn(text, str(cm.exception))
        self.assertIsInstance(cm.exception, dmlcl.Error)
        self.assertIsInstance(cm.exception.status, int)
        self.assertTrue(cm.exception.message)
        return cm.exception


# ---- REVERSE_SUBSEQUENCES ---------------------------------------------------------------------

class ReverseSubsequencesTest(Assertions):
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)

    def test_spec_examples(self):
        y = dmlcl.reverse_subsequences(self.x, np.array([2, 4, 3], np.uint32).reshape(1, 1, 3, 1),
                                       axis=3)
        np.testing.assert_array_equal(y[0, 0], [[2, 1, 3, 4], [8, 7, 6, 5], [11, 10, 9, 12]])
        y = dmlcl.reverse_subsequences(self.x, np.array([2, 3, 1, 0], np.uint32), axis=2)
        np.testing.assert_array_equal(y[0, 0], [[5, 10, 3, 4], [1, 6, 7, 8], [9, 2, 11, 12]])

    def test_every_dtype_and_length_type(self):
        shape = (3, 5, 4)
        for dt in ALL_DTYPES:
            for ldt in (np.uint32, np.uint64):
                with self.subTest(dtype=np.dtype(dt).name, lengths=np.dtype(ldt).name):
                    x = random(shape, dt)
                    lengths = RNG.integers(0, 7, (3, 1, 4)).astype(ldt)
                    self.assertBits(dmlcl.reverse_subsequences(x, lengths, 1),
                                    ref.reverse_subsequences(x, lengths, 1))

    def test_bits_are_moved(self):
        # NaN payloads and signed zeros survive (float16 and float64).
        for dt, u in ((np.float16, np.uint16), (np.float64, np.uint64)):
            bits = RNG.integers(0, np.iinfo(u).max, (2, 6), dtype=u, endpoint=True)
            x = bits.view(dt)
            self.assertBits(dmlcl.reverse_subsequences(x, 6, axis=-1), x[:, ::-1])

    def test_layouts(self):
        base = random((6, 5, 8), np.float32)
        lengths = RNG.integers(0, 7, (6, 1, 8)).astype(np.uint32)
        cases = {
            "C order": base,
            "Fortran order": np.asfortranarray(base),
            "sliced": base[::2, 1:, 2:7],
            "transposed": base.transpose(2, 0, 1),
            "broadcast": np.broadcast_to(base[:1], base.shape),
            "negative strides (copied)": base[::-1, :, ::-2],
        }
        for name, x in cases.items():
            with self.subTest(layout=name):
                lx = np.broadcast_to(lengths[:1, :, :1], x.shape[:1] + (1,) + x.shape[2:])
                self.assertBits(dmlcl.reverse_subsequences(x, lx, 1),
                                ref.reverse_subsequences(x, lx, 1))

    def test_lengths_forms(self):
        x = random((3, 4), np.int16)
        want = ref.reverse_subsequences(x, np.array([[2], [4], [3]]), 1)
        for lengths in ([2, 4, 3], np.array([2, 4, 3], np.int64), [[2], [4], [3]],
                        np.array([[2, 4, 3]], np.uint64).T):
            self.assertBits(dmlcl.reverse_subsequences(x, lengths, 1), want)
        self.assertBits(dmlcl.reverse_subsequences(x, 3, 1),
                        ref.reverse_subsequences(x, np.full((3, 1), 3), 1))

    def test_out(self):
        x = random((3, 4), np.uint8)
        lengths = [2, 4, 3]
        want = ref.reverse_subsequences(x, np.array([[2], [4], [3]]), 1)
        # A strided view of a larger array: its padding is left alone.
        big = np.full((6, 9), 77, np.uint8)
        out = big[::2, 1::2]
        self.assertIs(dmlcl.reverse_subsequences(x, lengths, 1, out=out), out)
        self.assertBits(out, want)
        mask = np.ones(big.shape, bool)
        mask[::2, 1::2] = False
        self.assertTrue((big[mask] == 77).all())
        # Fortran order, negative strides (through a temporary), in place.
        for out in (np.zeros((3, 4), np.uint8, order="F"), np.zeros((3, 4), np.uint8)[::-1]):
            dmlcl.reverse_subsequences(x, lengths, 1, out=out)
            self.assertBits(out, want)
        y = x.copy()
        dmlcl.reverse_subsequences(y, lengths, 1, out=y)
        self.assertBits(y, want)

    def test_operator_reuse(self):
        op = dmlcl.ReverseSubsequences(axis=0)
        x = random((4, 3), np.float32)
        out = np.empty_like(x)
        for lengths in ([[1, 2, 4]], [[4, 4, 0]]):
            self.assertIs(op(x, lengths, out=out), out)
            self.assertBits(out, ref.reverse_subsequences(x, np.array(lengths), 0))
        self.assertIn("variant=", op.plan)
        op.close()

    def test_errors(self):
        x = random((3, 4), np.float32)
        rs = dmlcl.reverse_subsequences
        self.assertRaisesMessage(dmlcl.DataTypeError, "lengths has dtype float64", rs, x,
                                 np.array([1.0, 2.0, 3.0]), 1)
        self.assertRaisesMessage(dmlcl.InvalidArgumentError, "negative", rs, x, [1, -2, 3], 1)
        self.assertRaisesMessage(dmlcl.InvalidArgumentError, "does not broadcast", rs, x,
                                 [1, 2], 1)
        self.assertRaisesMessage(dmlcl.InvalidArgumentError, "axis 2 is out of range", rs, x,
                                 [1, 2, 3], 2)
        ro = np.zeros_like(x)
        ro.flags.writeable = False
        e = self.assertRaisesMessage(ValueError, "not writable", rs, x, [1, 2, 3], 1, out=ro)
        self.assertEqual(e.status, 1)
        self.assertEqual(e.status_name, "DMLCL_INVALID_ARGUMENT")
        self.assertRaisesMessage(ValueError, "out has shape (4, 3)", rs, x, [1, 2, 3], 1,
                                 out=np.zeros((4, 3), np.float32))
        # The library's own messages come through.
        self.assertRaisesMessage(dmlcl.InvalidArgumentError, "reverse_subsequences: output",
                                 rs, x, [1, 2, 3], 1, out=np.zeros((3, 4), np.int32))
        self.assertRaisesMessage(dmlcl.InvalidArgumentError, "reverse_subsequences: output",
                                 rs, x, [1, 2, 3], 1, out=as_strided(np.zeros(4, np.float32),
                                                                     (3, 4), (0, 4)))
        self.assertRaisesMessage(TypeError, "not a dmlcl data type", rs,
                                 np.zeros((3, 4), bool), [1, 2, 3], 1)
        self.assertRaisesMessage(TypeError, "non-native byte order", rs,
                                 x.astype(x.dtype.newbyteorder()), [1, 2, 3], 1)
        self.assertRaisesMessage(ValueError, "not a multiple of its 4-byte itemsize", rs,
                                 as_strided(np.zeros(40, np.uint8).view(np.float32)[:1], (3, 4),
                                            (6, 4)), [1, 2, 3], 1)
        self.assertRaisesMessage(ValueError, "0 dimensions", rs, np.float32(1), [1], 0)
        self.assertRaisesMessage(ValueError, "9 dimensions", rs, np.zeros((1,) * 9), 1, 0)
        self.assertRaisesMessage(ValueError, "shape[0] is 0", rs, np.zeros((0, 4)), 1, 1)


# ---- RESAMPLE family ------------------------------------------------------------------------------

class ResampleTest(Assertions):
    shape = (5, 6)
    scales = (2.0, 1.5)
    out_shape = (10, 9)

    def check(self, y, want, mode):
        if mode == "nearest":
            self.assertBits(y, want)
        else:
            self.assertClose(y, want)

    def test_spec_examples(self):
        # 4 -> 2 nearest with pixel centres picks inputs 1 and 3.
        y = dmlcl.resample(np.array([10, 11, 12, 13], np.float32), 0.5, mode="nearest")
        np.testing.assert_array_equal(y, [11, 13])
        # Antialiased 4 -> 2: [5, 16] (plain linear: [3.5, 17.5]).
        x = np.array([0, 7, 14, 21], np.float32)
        np.testing.assert_allclose(dmlcl.resample(x, 0.5, antialias=True), [5, 16])
        np.testing.assert_allclose(dmlcl.resample(x, 0.5), [3.5, 17.5])
        # The output size is floor(n x scale) in float32: 10 x 0.7 gives 7, not 6.
        self.assertEqual(dmlcl.resample(np.zeros(10, np.float32), 0.7).shape,
                         (ref.output_size(10, 0.7),))
        self.assertEqual(ref.output_size(10, 0.7), 7)

    def test_every_dtype(self):
        for dt in RESAMPLE_DTYPES + NEAREST_ONLY_DTYPES:
            x = random(self.shape, dt)
            for mode in ("linear", "nearest") if dt in RESAMPLE_DTYPES else ("nearest",):
                with self.subTest(dtype=np.dtype(dt).name, mode=mode):
                    y = dmlcl.resample(x, self.scales, mode=mode)
                    self.check(y, ref.resample(x, self.scales, self.out_shape, mode), mode)

    def test_microscopy_integers(self):
        # uint16 and int16 round half to even and saturate as the 8-bit types do; int32
        # nearest moves values float32 cannot hold (2**24 + 1).
        u = np.array([65534, 65535], np.uint16)
        np.testing.assert_array_equal(
            dmlcl.resample(u, 2, input_offsets=0, output_offsets=0), [65534, 65534, 65535, 65535])
        i = np.array([-3, -2], np.int16)
        np.testing.assert_array_equal(
            dmlcl.resample(i, 2, input_offsets=0, output_offsets=0), [-3, -2, -2, -2])
        big = np.array([2**24 + 1, -2**31], np.int32)
        np.testing.assert_array_equal(dmlcl.resample(big, 2, mode="nearest"),
                                      [2**24 + 1, 2**24 + 1, -2**31, -2**31])
        self.assertRaisesMessage(dmlcl.DataTypeError, "resample_grad: dy has dtype uint32; "
                                 "resample_grad takes int32 and uint32 in no mode",
                                 dmlcl.resample_grad, big.astype(np.uint32), (1,), 2,
                                 mode="nearest", rounding="increasing")

    def test_rounding_and_offsets(self):
        x = random((4, 4), np.float32)
        # Asymmetric coordinates (offsets 0) land on ties x = k + 0.5 with scale 2/3 ... and
        # scale 4: the four nearest rules differ there.
        for rounding in (None, "increasing", "decreasing"):
            for io, oo in ((0.5, -0.5), (0.0, 0.0), ((0.25, 1.0), (-0.5, 0.5))):
                with self.subTest(rounding=rounding, offsets=(io, oo)):
                    y = dmlcl.resample(x, (4, 4), mode="nearest", input_offsets=io,
                                       output_offsets=oo, rounding=rounding)
                    self.assertBits(y, ref.resample(x, (4, 4), (16, 16), "nearest", io, oo,
                                                    rounding))
        # Linear ignores the rounding.
        self.assertBits(dmlcl.resample(x, 2, rounding="decreasing"), dmlcl.resample(x, 2))

    def test_antialias(self):
        x = random((12, 10), np.float32)
        for scales in ((0.5, 0.4), (0.5, 2.0)):
            with self.subTest(scales=scales):
                size = tuple(ref.output_size(n, s) for n, s in zip(x.shape, scales))
                self.assertClose(dmlcl.resample(x, scales, antialias=True),
                                 ref.resample(x, scales, size, antialias=True))
        # No effect on nearest.
        self.assertBits(dmlcl.resample(x, 0.5, mode="nearest", antialias=True),
                        dmlcl.resample(x, 0.5, mode="nearest"))

    def test_size_and_out_give_the_shape(self):
        x = random(self.shape, np.float32)
        scales = tuple(float(np.float32(m) / np.float32(n))
                       for n, m in zip(self.shape, self.out_shape))
        want = ref.resample(x, scales, self.out_shape)
        self.assertClose(dmlcl.resample(x, size=self.out_shape), want)
        out = np.empty(self.out_shape, np.float32)
        self.assertIs(dmlcl.resample(x, out=out), out)
        self.assertClose(out, want)
        # Scales and size together: both as given (sizes need not equal n x scale).
        self.assertClose(dmlcl.resample(x, (2, 2), size=(7, 5)),
                         ref.resample(x, (2, 2), (7, 5)))

    def test_layouts(self):
        base = random((10, 12), np.float32)
        inputs = {
            "C order": base[:5, :6].copy(),
            "Fortran order": np.asfortranarray(base[:5, :6]),
            "sliced": base[::2, 1:12:2],
            "transposed": base[:6, :5].T,
            "broadcast": np.broadcast_to(base[:1, :6], (5, 6)),
            "negative strides (copied)": base[4::-1, ::-2],
        }
        for name, x in inputs.items():
            for mode in ("linear", "nearest"):
                with self.subTest(layout=name, mode=mode):
                    self.check(dmlcl.resample(x, self.scales, mode=mode),
                               ref.resample(x, self.scales, self.out_shape, mode), mode)
        x = inputs["C order"]
        want = ref.resample(x, self.scales, self.out_shape)
        outs = {
            "Fortran order": np.zeros(self.out_shape, np.float32, order="F"),
            "transposed": np.zeros(self.out_shape[::-1], np.float32).T,
            "negative strides": np.zeros(self.out_shape, np.float32)[::-1],
        }
        for name, out in outs.items():
            with self.subTest(out=name):
                self.assertIs(dmlcl.resample(x, self.scales, out=out), out)
                self.assertClose(out, want)
        big = np.full((20, 27), -7, np.float32)
        out = big[::2, ::3]
        dmlcl.resample(x, self.scales, out=out)
        self.assertClose(out, want)
        mask = np.ones(big.shape, bool)
        mask[::2, ::3] = False
        self.assertTrue((big[mask] == -7).all(), "padding between out's elements changed")

    def test_sliced_transposed_float16_in_one_line(self):
        x16 = random((7, 11), np.float16)
        y = dmlcl.resample(x16[1:, ::2].T, scales=2)
        v = x16[1:, ::2].T
        self.assertFalse(v.flags.c_contiguous or v.flags.f_contiguous)
        self.assertClose(y, ref.resample(v, (2, 2), (12, 12)))

    def test_operator_reuse(self):
        x = random(self.shape, np.float32)
        y = np.empty(self.out_shape, np.float32)
        op = dmlcl.Resample(scales=self.scales)
        op(x, out=y)  # may compile
        before = dmlcl.cache_stats()
        for _ in range(3):
            x = random(self.shape, np.float32)
            self.assertIs(op(x, out=y), y)
            self.assertClose(y, ref.resample(x, self.scales, self.out_shape))
        after = dmlcl.cache_stats()
        self.assertEqual(after, before, "a reused operator looked its program up again")
        # A second operator of the same kind and dtype: a memory-cache hit, no compile.
        with dmlcl.Resample(scales=self.scales) as op2:
            op2(x, out=y)
        again = dmlcl.cache_stats()
        self.assertEqual(again["compiles"], after["compiles"])
        self.assertGreater(again["memory_hits"], after["memory_hits"])
        self.assertIn("variant=linear", op.plan)

    def test_errors(self):
        x = random(self.shape, np.float32)
        rs = dmlcl.resample
        e = self.assertRaisesMessage(dmlcl.InvalidArgumentError,
                                     "resample: scales[1] must be finite and > 0, got -2",
                                     rs, x, (2, -2))
        self.assertIsInstance(e, ValueError)
        # With size given, the C library checks the scale: its message.
        self.assertRaisesMessage(ValueError, "resample1: scales[0] must be finite and > 0",
                                 rs, x, (-1, 2), size=(4, 4))
        # The function's name, as in every other message, whichever C operator it picks.
        for kw in ({}, {"rounding": "decreasing"}, {"antialias": True}):
            e = self.assertRaisesMessage(dmlcl.DataTypeError,
                                         "resample: x has dtype int64; resample takes float32, "
                                         "float16, float64 (where the device has cl_khr_fp64), "
                                         "int8, uint8, int16, uint16, and int32 and uint32 with "
                                         "mode='nearest' (not resample_grad)",
                                         rs, x.astype(np.int64), 2, **kw)
            self.assertIsInstance(e, TypeError)
            e = self.assertRaisesMessage(dmlcl.DataTypeError,
                                         "resample: x has dtype int32; resample takes int32 and "
                                         "uint32 with mode='nearest' only: it computes in "
                                         "float32, which holds 32-bit integers exactly only up "
                                         "to 2**24", rs, x.astype(np.int32), 2, **kw)
            self.assertIsInstance(e, TypeError)
        self.assertRaisesMessage(TypeError, "out has dtype float16", rs, x, 2,
                                 out=np.zeros((10, 12), np.float16))
        self.assertRaisesMessage(ValueError, "out has shape (10, 12) but size is (10, 9)",
                                 rs, x, size=(10, 9), out=np.zeros((10, 12), np.float32))
        self.assertRaisesMessage(ValueError, "out has 3 dimensions", rs, x, 2,
                                 out=np.zeros((10, 12, 1), np.float32))
        ro = np.zeros((10, 12), np.float32)
        ro.flags.writeable = False
        self.assertRaisesMessage(ValueError, "out is not writable", rs, x, 2, out=ro)
        self.assertRaisesMessage(ValueError, "scales has 3 values but the input has 2", rs, x,
                                 (1, 2, 3))
        self.assertRaisesMessage(ValueError, "give scales, size or out", rs, x)
        self.assertRaisesMessage(ValueError, "mode must be 'nearest' or 'linear'", rs, x, 2,
                                 mode="cubic")
        self.assertRaisesMessage(ValueError, "rounding must be", rs, x, 2, rounding="up")
        self.assertRaisesMessage(ValueError, "output size of dimension 0 is floor(5 x 0.1) = 0",
                                 rs, x, 0.1)
        self.assertRaisesMessage(ValueError, "resample1: input_pixel_offsets[1] must be finite",
                                 rs, x, 2, input_offsets=(0, np.inf))
        self.assertRaisesMessage(ValueError, "strides[0] is 6 bytes, not a multiple", rs,
                                 as_strided(np.zeros(64, np.uint8).view(np.float32)[:1],
                                            (3, 4), (6, 4)), 2)
        self.assertRaisesMessage(ValueError, "resample1: output", rs, x, 1,
                                 out=as_strided(np.zeros(6, np.float32), (5, 6), (0, 4)))


    def test_over_the_device_buffer_limit(self):
        """A tensor over CL_DEVICE_MAX_MEM_ALLOC_SIZE: the library's message names the
        limit (not clCreateBuffer's CL_INVALID_BUFFER_SIZE). A huge stride makes a 32 GiB
        span of 12 elements, which nothing reads."""
        limit = max_alloc(dmlcl.default_context())
        if limit >= 32 << 30:
            self.skipTest("this device allocates %d bytes per buffer" % limit)
        x = as_strided(np.zeros(4, np.float32), (3, 4), (4 * (2**32 - 1), 4))
        e = self.assertRaisesMessage(dmlcl.UnsupportedError,
                                     "inputs[0] needs a buffer of 32.00 GiB, over this "
                                     "device's limit of", dmlcl.resample, x, 1)
        self.assertIn("per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE", str(e))
        # A huge scale: refused with the limit before NumPy is asked for the output (its
        # own refusal, "array is too big", names neither the limit nor the cause).
        x = np.zeros((100, 512, 512), np.float32)
        e = self.assertRaisesMessage(dmlcl.UnsupportedError,
                                     "resample: the output (shape (100000, 512000, 512000), "
                                     "float32) needs a buffer of", dmlcl.resample, x, 1000)
        self.assertIn("over this device's limit of", str(e))
        self.assertIn("use smaller scales or size, or split the work in tiles", str(e))

    def test_empty_input(self):
        """An empty input breaks the size rule, said as such (not as a zero output size)."""
        self.assertRaisesMessage(dmlcl.InvalidArgumentError,
                                 "resample: x shape[0] is 0; dmlcl sizes are 1 to 4294967295",
                                 dmlcl.resample, np.zeros((0, 5), np.float32), 2)

    def test_output_shape(self):
        """resample_output_shape is the shape resample returns, the library's rule and
        messages (dmlcl_resample_output_sizes)."""
        self.assertEqual(dmlcl.resample_output_shape((10, 3), 0.7), (7, 2))  # float32: 7
        self.assertEqual(dmlcl.resample_output_shape([5, 4, 3], (2, 0.5, 1.5)), (10, 2, 4))
        x = np.zeros((10, 9, 7), np.float32)
        for s in (0.7, (1.3, 0.35, 2.1)):
            self.assertEqual(dmlcl.resample(x, s).shape, dmlcl.resample_output_shape(x.shape, s))
        bad = dmlcl.InvalidArgumentError
        f = dmlcl.resample_output_shape
        p = "resample_output_shape: "
        self.assertRaisesMessage(bad, p + "output size of dimension 0 is floor(10 x 0.05) = 0, "
                                 "outside 1 to 4294967295", f, (10,), 0.05)
        self.assertRaisesMessage(bad, p + "output size of dimension 1 is floor(4000000000 x "
                                 "1.5) = 6000000000, outside", f, (1, 4000000000), 1.5)
        self.assertRaisesMessage(bad, p + "shape[1] must be >= 1, got 0", f, (3, 0), 2)
        self.assertRaisesMessage(bad, p + "len(shape) must be 1..8, got 0", f, (), 2)
        self.assertRaisesMessage(bad, p + "scales[1] must be finite and > 0, got nan", f,
                                 (3, 3), (1, float("nan")))
        self.assertRaisesMessage(bad, p + "scales has 3 values but the input has 2", f,
                                 (3, 3), (1, 2, 3))
        self.assertRaisesMessage(bad, p + "shape[0] must be an integer from 1 to 4294967295, "
                                 "got 2.5", f, (2.5,), 1)


def max_alloc(context):
    """The context's device's CL_DEVICE_MAX_MEM_ALLOC_SIZE, through the OpenCL library."""
    import ctypes.util
    cl = ctypes.CDLL(ctypes.util.find_library("OpenCL") or "libOpenCL.so.1")
    cl.clGetDeviceInfo.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_size_t,
                                   ctypes.c_void_p, ctypes.c_void_p]
    value = ctypes.c_uint64()
    dev = dmlcl._capi.lib.dmlcl_context_device(context.handle)
    assert cl.clGetDeviceInfo(dev, 0x1010, 8, byref(value), None) == 0  # MAX_MEM_ALLOC_SIZE
    return value.value


class ResampleGradTest(Assertions):
    def test_directml_example(self):
        dy = np.array([[4, 5, 6]], np.float32)
        dx = dmlcl.resample_grad(dy, (2, 2), scales=(0.5, 1.5), mode="nearest",
                                 rounding="decreasing")
        np.testing.assert_array_equal(dx, [[9, 6], [0, 0]])

    def test_every_dtype_and_rule(self):
        in_shape, scales = (5, 6), (2.0, 1.5)
        for dt in RESAMPLE_DTYPES:
            dy = random((10, 9), dt)
            if np.dtype(dt).kind in "iu":
                dy = (dy // 8).astype(dt)  # sums of a few stay in range
            for mode, rounding in (("linear", None), ("nearest", "increasing"),
                                   ("nearest", "decreasing")):
                with self.subTest(dtype=np.dtype(dt).name, mode=mode, rounding=rounding):
                    dx = dmlcl.resample_grad(dy, in_shape, scales, mode=mode, rounding=rounding)
                    self.assertClose(dx, ref.resample_grad(dy, in_shape, scales, mode,
                                                           rounding=rounding))

    def test_nearest_needs_a_rounding_direction(self):
        # RESAMPLE_GRAD1 has floor and ceil only: round half up is refused, never mimicked.
        dy = random((16,), np.float32)
        self.assertRaisesMessage(dmlcl.InvalidArgumentError,
                                 "resample_grad: rounding=None (round half up) has no "
                                 "backward operator: RESAMPLE_GRAD1 rounds down or up only, "
                                 "and no shift of the offsets gives round half up exactly",
                                 dmlcl.resample_grad, dy, (8,), 2, mode="nearest")
        # Why: scale 3, offsets -0.7 / -1.4, 8 -> 24: forward output 13 reads input 5
        # (c + 0.5 = 5.9999995), but floor with the input offset moved by 0.5 gives 6.
        fwd = dict(scales=3.0, input_offsets=-0.7, output_offsets=-1.4, mode="nearest")
        x = np.arange(8, dtype=np.float32)
        self.assertEqual(dmlcl.resample(x, size=(24,), **fwd)[13], 5)
        e13 = np.zeros(24, np.float32)
        e13[13] = 1
        mimic = dict(fwd, input_offsets=np.float32(-0.7) - np.float32(0.5))
        self.assertEqual(np.argmax(dmlcl.resample_grad(e13, (8,), rounding="decreasing",
                                                       **mimic)), 6)
        for rounding in ("increasing", "decreasing"):
            with self.subTest(rounding=rounding):
                self.assertClose(dmlcl.resample_grad(dy, (8,), 2, mode="nearest",
                                                     input_offsets=0, output_offsets=0,
                                                     rounding=rounding),
                                 ref.resample_grad(dy, (8,), 2, "nearest", 0, 0, rounding))

    def test_exact_transpose(self):
        # Issue 23: the forward pass copies a scale-1 dimension whose offsets cancel in
        # float32 (0.3 / -0.3), so the gradient of a copy is the incoming gradient.
        x = np.arange(1, 5, dtype=np.float64)
        off = dict(scales=1.0, input_offsets=0.3, output_offsets=-0.3)
        self.assertBits(dmlcl.resample(x, size=(4,), **off), x)
        for dt in (np.float64, np.float32):
            with self.subTest(dtype=np.dtype(dt).name):
                self.assertBits(dmlcl.resample_grad(np.ones(4, dt), (4,), **off),
                                np.ones(4, dt))
        # The matrices: G of unit vectors is the transpose of F of unit vectors, bit for
        # bit, for a few maps at once (identity, 2x, fractional with offsets).
        shape, size = (2, 4, 5), (2, 8, 7)
        for mode, rounding in (("linear", None), ("nearest", "decreasing"),
                               ("nearest", "increasing")):
            kw = dict(scales=(1.0, 2.0, 1.4), input_offsets=(0.3, 0.5, 0.1),
                      output_offsets=(-0.3, -0.5, -0.7), mode=mode, rounding=rounding)
            eye_x = np.eye(np.prod(shape)).reshape((-1,) + shape)
            eye_y = np.eye(np.prod(size)).reshape((-1,) + size)
            f = np.stack([dmlcl.resample(e, size=size, **kw).ravel() for e in eye_x], 1)
            g = np.stack([dmlcl.resample_grad(e, shape, **kw).ravel() for e in eye_y], 0)
            with self.subTest(mode=mode, rounding=rounding):
                self.assertBits(g, f)

    def test_layouts_and_defaults(self):
        base = random((18, 20), np.float32)
        want_of = lambda dy: ref.resample_grad(dy, (5, 6), (2.0, 1.5))  # noqa: E731
        for name, dy in {"transposed": base[:9, :10].T, "sliced": base[::2, 1:19:2],
                         "Fortran": np.asfortranarray(base[:10, :9]),
                         "broadcast": np.broadcast_to(base[:1, :9], (10, 9))}.items():
            with self.subTest(layout=name):
                self.assertClose(dmlcl.resample_grad(dy, (5, 6), (2.0, 1.5)), want_of(dy))
        # Scales default to dy.shape / input_shape; out gives the shape.
        dy = base[:10, :12]
        out = np.zeros((5, 6), np.float32, order="F")
        self.assertIs(dmlcl.resample_grad(dy, None, out=out), out)
        self.assertClose(out, ref.resample_grad(dy, (5, 6), (2, 2)))
        op = dmlcl.ResampleGrad((5, 6), (2, 2))
        self.assertClose(op(dy), out)

    def test_errors(self):
        dy = random((10, 12), np.float32)
        self.assertRaisesMessage(ValueError, "give scales, input_shape or out",
                                 dmlcl.resample_grad, dy, None)
        self.assertRaisesMessage(ValueError, "input_shape: -5 is not a size",
                                 dmlcl.resample_grad, dy, (-5, 6))
        self.assertRaisesMessage(TypeError, "resample_grad: dy has dtype int64; resample_grad "
                                 "takes float32", dmlcl.resample_grad, dy.astype(np.int64), (5, 6))


# ---- tiles of a larger tensor and the halo query ----------------------------------------------

def boxes(shape, parts):
    """The boxes (start, size) of a grid cutting each dimension d of shape into parts[d]
    uneven pieces (a piece may be empty: skipped)."""
    cuts = []
    for n, k in zip(shape, parts):
        edges = [n * i // k for i in range(k + 1)]
        cuts.append([(a, b - a) for a, b in zip(edges, edges[1:]) if b > a])
    for box in itertools.product(*cuts):
        yield tuple(a for a, _ in box), tuple(n for _, n in box)


def box_slice(start, size):
    return tuple(slice(a, a + n) for a, n in zip(start, size))


def support(W, a, n):
    """(start, size) of the columns of W that rows a..a+n-1 weight with a nonzero."""
    if n == 0:
        return 0, 0
    cols = np.nonzero(W[a:a + n].any(axis=0))[0]
    if not len(cols):
        return 0, 0
    return int(cols[0]), int(cols[-1] - cols[0] + 1)


class TileTest(Assertions):
    """Every output tile of a grid, run on the input box the halo query gives, is the
    whole run's slice bit for bit."""

    def check_tiles(self, op, x, y, parts, call=None):
        call = call or (lambda op, xt, **kw: op(xt, **kw))
        n = 0
        for start, size in boxes(y.shape, parts):
            with self.subTest(parts=parts, start=start, size=size):
                s, z = op.input_box(x.shape, start, size, y.shape)
                xt = x[box_slice(s, z)]
                yt = call(op, xt, input_tile=(x.shape, s),
                          output_tile=(y.shape, start, size))
                self.assertBits(yt, y[box_slice(start, size)])
                n += 1
        return n

    def test_resample_tiles(self):
        x2, x3 = random((9, 7), np.float32), random((5, 6, 7), np.float32)
        cases = [
            ("linear 2x", dict(scales=2), x2, [(3, 1), (1, 2), (3, 2)]),
            ("linear 3-D", dict(scales=(2, 1.5, 0.75)), x3, [(1, 3, 1), (2, 2, 2)]),
            ("nearest 0.5x", dict(scales=0.5, mode="nearest"), x2, [(3, 1), (2, 2)]),
            ("nearest, rounding and offsets", dict(scales=(1.5, 0.7), mode="nearest",
                                                   rounding="decreasing", input_offsets=0,
                                                   output_offsets=0.25), x2, [(2, 3)]),
            ("antialiased 0.5x", dict(scales=(0.5, 0.4), antialias=True),
             random((16, 15), np.float32), [(3, 1), (2, 2)]),
            ("antialiased 3-D", dict(scales=(1, 0.5, 0.3), antialias=True),
             random((2, 12, 20), np.float32), [(1, 2, 3)]),
            ("float16 linear", dict(scales=(2, 1.5)), random((9, 7), np.float16), [(2, 2)]),
        ]
        for name, kw, x, grids in cases:
            with self.subTest(case=name):
                op = dmlcl.Resample(**kw)
                y = op(x)
                for parts in grids:
                    self.check_tiles(op, x, y, parts)
                # The function takes the tiles too.
                start, size = next(boxes(y.shape, (2,) * x.ndim))
                s, z = op.input_box(x.shape, start, size)
                self.assertBits(dmlcl.resample(x[box_slice(s, z)], input_tile=(x.shape, s),
                                               output_tile=(y.shape, start, size), **kw),
                                y[box_slice(start, size)])

    def test_resample_grad_tiles(self):
        for mode, rounding in (("linear", None), ("nearest", "decreasing")):
            with self.subTest(mode=mode):
                dy = random((18, 14), np.float32)
                op = dmlcl.ResampleGrad((9, 7), scales=2, mode=mode, rounding=rounding)
                dx = op(dy)
                for parts in ((3, 1), (1, 2), (3, 2), (9, 7)):
                    self.check_tiles(op, dy, dx, parts)

    def test_reverse_subsequences_tiles(self):
        # Reversed along axis 1; tiles cut dimensions 0 and 2 (the lengths are the input
        # tile's box with 1 on the axis).
        x = random((5, 6, 7), np.int16)
        lengths = RNG.integers(0, 8, (5, 1, 7)).astype(np.uint32)
        op = dmlcl.ReverseSubsequences(axis=1)
        y = op(x, lengths)
        for parts in ((2, 1, 1), (1, 1, 3), (3, 1, 2)):
            self.check_tiles(op, x, y, parts, lambda op, xt, input_tile, output_tile: op(
                xt, lengths[box_slice(input_tile[1][:1] + (0,) + input_tile[1][2:],
                                      xt.shape[:1] + (1,) + xt.shape[2:])],
                input_tile=input_tile, output_tile=output_tile))
        self.assertEqual(op.input_box(x.shape, (1, 2, 3), (2, 2, 2)), ((1, 0, 3), (2, 6, 2)))

    def test_tiles_in_place_and_the_cache(self):
        # Equal tiles written into the slices of one output array; the operator keeps one
        # C operator per placement (the tiles' layouts are the same, their starts are not).
        x = random((8, 6), np.float32)
        op = dmlcl.Resample(scales=2)
        y = op(x)
        z = np.full_like(y, np.nan)
        tiles = list(boxes(y.shape, (4, 1)))
        for start, size in tiles:
            s, n = op.input_box(x.shape, start, size)
            out = z[box_slice(start, size)]
            self.assertIs(op(x[box_slice(s, n)], out=out, input_tile=(x.shape, s),
                             output_tile=(y.shape, start)), out)
        self.assertBits(z, y)
        self.assertEqual(len(op._entries), 1 + len(tiles))
        # The whole input with an output tile; an input tile larger than the box.
        start, size = tiles[1]
        self.assertBits(op(x, output_tile=(y.shape, start, size)), y[box_slice(start, size)])
        self.assertBits(op(x[1:], input_tile=(x.shape, (1, 0)),
                           output_tile=(y.shape, start, size)), y[box_slice(start, size)])

    def test_input_box_is_the_reads(self):
        # The box is the smallest holding every input the reference weights with a
        # nonzero, for random parameters and boxes (linear, nearest, antialiased, GRAD1).
        rng = np.random.default_rng(14)
        for trial in range(200):
            mode = ("linear", "nearest", "antialias", "grad")[trial % 4]
            n_in = int(rng.integers(1, 20))
            scale = float(np.float32(rng.choice([0.3, 0.5, 0.7, 1, 1.5, 2, 3.25])))
            io, oo = (float(np.float32(v)) for v in rng.choice([0, 0.5, -0.5, 0.25], 2))
            rounding = rng.choice([None, "increasing", "decreasing"])
            if mode == "grad" and rounding is None:
                rounding = "increasing"
            n_out = max(ref.output_size(n_in, scale), 1)
            sub = {"antialias": "linear", "grad": ("nearest", "linear")[trial % 8 // 4]}
            W = ref.weights_1d(n_in, n_out, scale, io, oo, sub.get(mode, mode), rounding,
                               mode == "antialias")
            a = int(rng.integers(0, n_out))
            b = int(rng.integers(0, n_out - a + 1))
            with self.subTest(mode=sub.get(mode, mode), grad=mode == "grad", n=n_in,
                              scale=scale, offsets=(io, oo), box=(a, b)):
                if mode == "grad":
                    op = dmlcl.ResampleGrad((n_in,), scale, sub[mode], io, oo, rounding)
                    a = int(rng.integers(0, n_in))
                    b = int(rng.integers(0, n_in - a + 1))
                    s, z = support(W.T, a, b)
                    got = op.input_box((n_out,), (a,), (b,))
                else:
                    op = dmlcl.Resample(scale, None, "linear" if mode == "antialias" else mode,
                                        io, oo, rounding, mode == "antialias")
                    s, z = support(W, a, b)
                    got = op.input_box((n_in,), (a,), (b,), (n_out,))
                self.assertEqual(got, ((s,), (z,)))

    def test_input_box_is_the_c_call(self):
        # The binding adds nothing: the C function on the same descriptor answers the same.
        from dmlcl import _capi as C
        x = C.TensorDesc(1, 2, (c_uint32 * 2)(9, 7), None, 0)
        y = C.TensorDesc(1, 2, (c_uint32 * 2)(4, 5), None, 0)
        fl = lambda *v: (c_float * 2)(*v)  # noqa: E731
        d = C.Resample3Desc(pointer(x), pointer(y), C.MODE_LINEAR, 0, 2, fl(0.45, 0.7),
                            fl(0.5, 0.5), fl(-0.5, -0.5), 1)
        start, size, ist, isz = ((c_uint32 * 2)(*v) for v in ((1, 2), (2, 3), (0, 0), (0, 0)))
        self.assertEqual(C.lib.dmlcl_operator_input_box(
            byref(C.OperatorDesc(C.OPERATOR_RESAMPLE3, addressof(d))), start, size, ist, isz),
            0)
        op = dmlcl.Resample((0.45, 0.7), antialias=True)
        self.assertEqual(op.input_box((9, 7), (1, 2), (2, 3), (4, 5)), (tuple(ist), tuple(isz)))
        # An empty box reads nothing.
        self.assertEqual(op.input_box((9, 7), (1, 2), (0, 3), (4, 5)), ((0, 0), (0, 0)))

    def test_errors(self):
        x = random((8, 10), np.float32)
        op = dmlcl.Resample(scales=2)
        y = op(x)
        # The library's rules, with its messages.
        self.assertRaisesMessage(dmlcl.InvalidArgumentError,
                                 "resample1: input_tile covers [2, 4) of dimension 0, but the "
                                 "output tile reads [1, 5) (see dmlcl_operator_input_box)",
                                 op, x[2:4], input_tile=(x.shape, (2, 0)),
                                 output_tile=(y.shape, (4, 0), (4, 20)))
        self.assertRaisesMessage(dmlcl.InvalidArgumentError,
                                 "resample1: input_tile start[0] + input_tensor sizes[0] "
                                 "(7 + 2) must be <= logical_sizes[0] (8)", op, x[:2],
                                 input_tile=(x.shape, (7, 0)))
        self.assertRaisesMessage(dmlcl.InvalidArgumentError, "resample1:", op.input_box,
                                 x.shape, (14, 0), (4, 20))
        r = dmlcl.ReverseSubsequences(axis=1)
        self.assertRaisesMessage(dmlcl.InvalidArgumentError,
                                 "reverse_subsequences: output_tile must span the whole axis 1",
                                 r, x[:, :4], 4, input_tile=(x.shape, (0, 0)),
                                 output_tile=(x.shape, (0, 0), (8, 4)))
        # The binding's own checks.
        self.assertRaisesMessage(ValueError, "resample: input_tile must be (logical_shape, "
                                             "start), got 5", op, x, input_tile=5)
        self.assertRaisesMessage(ValueError, "resample: output_tile must be (logical_shape, "
                                             "start) or (logical_shape, start, size)", op, x,
                                 output_tile=((16, 20),))
        self.assertRaisesMessage(ValueError, "output_tile logical_shape has 3 values, x has 2 "
                                             "dimensions", op, x, output_tile=((1, 2, 3),
                                                                               (0, 0, 0)))
        self.assertRaisesMessage(ValueError, "input_tile start[1] is -1, outside 0 to "
                                             "4294967295", op, x, input_tile=((8, 10), (0, -1)))
        self.assertRaisesMessage(ValueError, "input_tile logical_shape[0] is 2.5, not an "
                                             "integer", op, x, input_tile=((2.5, 10), (0, 0)))
        self.assertRaisesMessage(ValueError, "resample: give out= or output_tile's size", op, x,
                                 output_tile=(y.shape, (0, 0)))
        self.assertRaisesMessage(ValueError, "resample: out has shape (4, 20), output_tile's "
                                             "size is (4, 10)", op, x, out=y[:4],
                                 output_tile=(y.shape, (0, 0), (4, 10)))
        self.assertRaisesMessage(ValueError, "resample: output_tile's logical_shape has shape "
                                             "(16, 21) but size is (16, 20)",
                                 dmlcl.Resample(size=(16, 20)), x,
                                 output_tile=((16, 21), (0, 0), (4, 20)))
        self.assertRaisesMessage(ValueError, "reverse_subsequences: out has shape (8, 10), "
                                             "output_tile's size is (4, 10)", r, x, 4,
                                 out=np.empty_like(x), output_tile=(x.shape, (0, 0), (4, 10)))
        self.assertRaisesMessage(ValueError, "resample: start has 3 values, the output has 2 "
                                             "dimensions", op.input_box, x.shape, (0, 0, 0),
                                 (1, 1))
        self.assertRaisesMessage(ValueError, "resample: input_shape has 9 dimensions",
                                 op.input_box, (1,) * 9, (0,) * 9, (1,) * 9)


class NumPyScalarTest(Assertions):
    """Messages name plain numbers whatever the NumPy version. Shapes, scales and axes
    often arrive as NumPy scalars (a shape read from an array, a loop over np.arange),
    and NumPy 2's repr of one is ``np.int64(-5)`` where NumPy 1's is ``-5``."""

    def test_messages(self):
        i, f = np.int64, np.float64
        x = random((4, 6), np.float32)
        op = dmlcl.Resample(scales=2)
        for text, fn, args, kw in [
                ("resample_grad: input_shape: -5 is not a size from 1 to 4294967295",
                 dmlcl.resample_grad, (x, (i(-5), i(6))), {}),
                ("resample: size: 2.5 is not a size from 1 to 4294967295",
                 dmlcl.resample, (x,), {"size": (f(2.5), i(6))}),
                ("resample: scales[1] must be finite and > 0, got -2",
                 dmlcl.resample, (x, (np.float32(2), f(-2))), {}),
                ("resample: out has shape (8, 11) but size is (8, 12)", dmlcl.resample, (x,),
                 {"size": (i(8), i(12)), "out": np.zeros((8, 11), np.float32)}),
                ("reverse_subsequences: axis must be an integer, got 1.5",
                 dmlcl.ReverseSubsequences, (f(1.5),), {}),
                ("reverse_subsequences: axis -3 is out of range for an input of 2 dimensions",
                 dmlcl.reverse_subsequences, (x, 1, i(-3)), {}),
                ("resample: mode must be 'nearest' or 'linear', got 'cubic'",
                 dmlcl.Resample, (2,), {"mode": np.str_("cubic")}),
                ("resample: start[0] is 0.5, not an integer",
                 op.input_box, ((i(4), i(6)), (f(0.5), i(0)), (i(2), i(2))), {}),
                ("resample: start must be a sequence of integers, one per dimension, got 3",
                 op.input_box, ((4, 6), i(3), (2, 2)), {}),
                ("resample: input_tile must be (logical_shape, start), got ((4, 6),)",
                 op, (x,), {"input_tile": ((i(4), i(6)),)}),
                ("resample: input_tile must be (logical_shape, start), got ([4, 6], [0, 0], "
                 "1.5)", op, (x,),
                 {"input_tile": (np.array([4, 6]), np.zeros(2, int), f(1.5))})]:
            with self.subTest(text):
                with self.assertRaises(dmlcl.InvalidArgumentError) as cm:
                    fn(*args, **kw)
                self.assertEqual(cm.exception.message, text)


class ContextTest(Assertions):
    def test_contexts(self):
        with dmlcl.Context(device="cpu") as ctx:
            self.assertTrue(ctx.device_name)
            x = random((5, 6), np.float32)
            self.assertClose(dmlcl.resample(x, (2, 1.5), context=ctx),
                             ref.resample(x, (2, 1.5), (10, 9)))
        self.assertRaisesMessage(ValueError, "used after close", dmlcl.resample, x, 2,
                                 context=ctx)
        e = self.assertRaisesMessage(dmlcl.NoDeviceError, "no-such-device-xyz", dmlcl.Context,
                                     device="no-such-device-xyz")
        self.assertEqual(e.status_name, "DMLCL_NO_DEVICE")
        self.assertRaises(TypeError, dmlcl.resample, x, 2, context="cpu")
        self.assertEqual(dmlcl.version(), dmlcl.__version__)


class NewOutputTest(Assertions):
    """The arrays that calls without out= return: from 4 MiB, memory that the context keeps
    when the last array on it goes and gives to its next call of that size (the kernel
    zeroes fresh pages at the first write, the operator's; python/dmlcl/_outputs.py), the
    results those of out= all the same."""
    shape, scales, out_shape = (512, 700), (2.0, 1.5), (1024, 1050)  # 4.1 MiB out

    def runs(self, ctx):
        op = dmlcl.Resample(scales=self.scales, context=ctx)
        return op, lambda x: op(x, out=np.empty(self.out_shape, np.float32))

    @unittest.skipUnless(_outputs._free, "no MADV_FREE here: new outputs are NumPy's own")
    def test_a_gone_outputs_memory_is_the_next_output(self):
        with dmlcl.Context(device="cpu") as ctx:
            op, want = self.runs(ctx)
            x = random(self.shape, np.float32)
            y = op(x)
            self.assertBits(y, want(x))
            self.assertTrue(y.flags.c_contiguous and y.flags.writeable)
            self.assertEqual(y.ctypes.data % (2 << 20), 0, "not on a huge page's start")
            first, view = y.ctypes.data, y[1:]
            del y
            z = op(x)  # the view still holds the first output's memory
            self.assertNotEqual(z.ctypes.data, first)
            self.assertBits(view, want(x)[1:])
            del view
            x2 = random(self.shape, np.float32)
            y2 = dmlcl.resample(x2, self.scales, context=ctx)  # the function's too
            self.assertEqual(y2.ctypes.data, first)
            self.assertBits(y2, want(x2))
            self.assertBits(z, want(x))

    @unittest.skipUnless(_outputs._free, "no MADV_FREE here: new outputs are NumPy's own")
    def test_kept_pages_taken_back_by_the_kernel(self):
        # Under memory pressure the kernel takes a kept block's pages (MADV_FREE); they
        # read as zeros after, as MADV_DONTNEED makes them here. The call writes them all.
        with dmlcl.Context(device="cpu") as ctx:
            op, want = self.runs(ctx)
            x = random(self.shape, np.float32)
            op(x)  # returned and gone at once
            (block,) = ctx._spares._blocks.values()
            self.assertEqual(_outputs._free(block.addr, block.size, 4), 0)  # MADV_DONTNEED
            y = op(x)
            self.assertEqual(y.ctypes.data, block.addr)
            self.assertBits(y, want(x))

    def test_close_drops_the_kept_memory(self):
        ctx = dmlcl.Context(device="cpu")
        op, _ = self.runs(ctx)
        x = random(self.shape, np.float32)
        y = op(x)
        op(x)  # returned and gone at once
        self.assertEqual(len(ctx._spares._blocks), 1 if _outputs._free else 0)
        ctx.close()
        self.assertEqual(ctx._spares._blocks, {})
        del y  # after close(): not kept
        self.assertEqual(ctx._spares._blocks, {})

    def test_small_outputs_are_numpys(self):
        y = dmlcl.resample(random((5, 6), np.float32), (2, 1.5))
        self.assertTrue(y.flags.owndata)


PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/


class PackagingTest(unittest.TestCase):
    """How a user gets ``import dmlcl``: from the build tree after ``make``, without
    DMLCL_LIBRARY; and ``pip install ./python``, finding the library through pkg-config.
    Each in a fresh interpreter, with the environment a user would have."""

    def python(self, code, env, **kw):
        r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, **kw)
        self.assertEqual(r.returncode, 0, r.stdout.decode())
        return r.stdout.decode().split()

    def built_library(self):
        built = os.environ.get("DMLCL_LIBRARY")  # run_tests.sh: the library make built
        if not built or not os.path.isfile(built):
            self.skipTest("DMLCL_LIBRARY does not name the built library (make check sets it)")
        return built

    def test_import_in_the_build_tree_without_dmlcl_library(self):
        built = self.built_library()
        if not os.path.exists(os.path.join(PYTHON_DIR, "dmlcl", "_config.py")):
            self.skipTest("a build in another folder: make wrote _config.py there, not "
                          "beside the package")
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        del env["DMLCL_LIBRARY"]
        path, = self.python("import dmlcl; print(dmlcl.library_path)", env)
        self.assertEqual(os.path.realpath(path), os.path.realpath(built))

    def test_pyproject_version_is_the_library_version(self):
        with open(os.path.join(PYTHON_DIR, "pyproject.toml")) as f:
            version = re.search(r'^version = "(.*)"$', f.read(), re.M).group(1)
        self.assertEqual(version, dmlcl.version())

    def test_pip_install_finds_the_library_through_pkg_config(self):
        built = self.built_library()
        try:
            import setuptools  # noqa: F401
            try:
                import setuptools.command.bdist_wheel  # noqa: F401 (setuptools 70.1 on)
            except ImportError:
                import wheel  # noqa: F401 (older setuptools build wheels with it)
            subprocess.run([sys.executable, "-m", "pip", "--version"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            subprocess.run(["pkg-config", "--version"], check=True, stdout=subprocess.DEVNULL)
        except (ImportError, OSError, subprocess.CalledProcessError):
            self.skipTest("needs pip, setuptools that builds wheels (70.1 on, or wheel) and "
                          "pkg-config")
        with tempfile.TemporaryDirectory() as tmp:
            # A fresh clone's python/ (no _config.py), and a dmlcl.pc whose libdir is the
            # built library's folder, as make install would leave them.
            src, site = os.path.join(tmp, "src"), os.path.join(tmp, "site")
            shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns(
                "_config.py", "__pycache__", "build", "*.egg-info", "tests", "*.log", "*.trs"))
            libdir = os.path.dirname(os.path.abspath(built))
            with open(os.path.join(tmp, "dmlcl.pc"), "w") as f:
                f.write("libdir=%s\nName: dmlcl\nDescription: test\nVersion: %s\n"
                        "Libs: -L${libdir} -ldmlcl\n" % (libdir, dmlcl.version()))
            env = dict(os.environ, PKG_CONFIG_PATH=tmp, PIP_DISABLE_PIP_VERSION_CHECK="1",
                       PYTHONDONTWRITEBYTECODE="1")
            env.pop("DMLCL_LIBRARY", None)
            r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps",
                                "--no-build-isolation", "--no-index", "--target", site, src],
                               env=env, cwd=tmp, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            self.assertEqual(r.returncode, 0, r.stdout.decode())
            env["PYTHONPATH"] = site
            where, path = self.python(
                "import numpy as np, dmlcl\n"
                "assert dmlcl.resample(np.ones((2, 3), np.float32), scales=2).shape == (4, 6)\n"
                "print(dmlcl.__file__, dmlcl.library_path)", env, cwd=tmp)
            self.assertTrue(where.startswith(site), where)
            self.assertEqual(path, os.path.join(libdir, "libdmlcl.so"))


class DocstringTest(unittest.TestCase):
    def test_examples_in_the_docstrings(self):
        import doctest
        import dmlcl._core
        for module in (dmlcl, dmlcl._core):
            result = doctest.testmod(module, extraglobs={"np": np, "dmlcl": dmlcl})
            self.assertEqual(result.failed, 0, module.__name__)
            self.assertGreater(result.attempted, 0, module.__name__)


def _pyopencl_queue():
    try:
        import pyopencl as cl
    except ImportError:
        return None
    for p in cl.get_platforms():
        devs = p.get_devices()
        cpus = [d for d in devs if d.type & cl.device_type.CPU]
        if cpus:
            ctx = cl.Context([cpus[0]])
            return cl.CommandQueue(ctx)
    return None


@unittest.skipIf(os.environ.get("DMLCL_TEST_NO_PYOPENCL"), "PyOpenCL disabled")
class PyOpenCLTest(Assertions):
    @classmethod
    def setUpClass(cls):
        cls.queue = _pyopencl_queue()
        if cls.queue is None:
            raise unittest.SkipTest("PyOpenCL is not installed (apt-get install "
                                    "python3-pyopencl) or has no CPU device")
        import pyopencl as cl
        import pyopencl.array as cla
        cls.cl, cls.cla = cl, cla
        cls.ctx = dmlcl.Context(queue=cls.queue)

    def test_resample_on_the_device(self):
        x = random((10, 12), np.float32)
        xd = self.cla.to_device(self.queue, x)
        op = dmlcl.Resample(scales=(2, 1.5), context=self.ctx)
        for name, view, hv in (("whole", xd[:5, :6], x[:5, :6]),
                               ("sliced, with an offset", xd[2:7, 3:9], x[2:7, 3:9]),
                               ("transposed", xd[:6, :5].T, x[:6, :5].T)):
            with self.subTest(view=name):
                outd = self.cla.empty(self.queue, (10, 9), np.float32)
                out, ev = op.enqueue(view, out=outd)
                self.assertIs(out, outd)  # written in place: no copy
                self.assertIsInstance(ev, self.cl.Event)
                self.assertIn(ev, outd.events)
                ev.wait()
                self.assertClose(outd.get(), ref.resample(hv, (2, 1.5), (10, 9)))
        # The function: a new device array, on x's queue by default.
        y = dmlcl.resample(xd[:5, :6], (2, 1.5), mode="nearest")
        self.assertIsInstance(y, self.cla.Array)
        self.assertBits(y.get(), ref.resample(x[:5, :6], (2, 1.5), (10, 9), "nearest"))

    def test_reverse_and_grad_on_the_device(self):
        x = random((3, 4), np.int16)
        xd = self.cla.to_device(self.queue, x)
        ld = self.cla.to_device(self.queue, np.array([[2], [4], [3]], np.uint32))
        op = dmlcl.ReverseSubsequences(1, context=self.ctx)
        out, ev = op.enqueue(xd, ld)
        self.assertBits(out.get(), ref.reverse_subsequences(x, np.array([[2], [4], [3]]), 1))
        y = dmlcl.reverse_subsequences(xd, [2, 4, 3], 1)  # host lengths are copied over
        self.assertBits(y.get(), out.get())
        dy = random((10, 12), np.float32)
        dx = dmlcl.resample_grad(self.cla.to_device(self.queue, dy), (5, 6))
        self.assertClose(dx.get(), ref.resample_grad(dy, (5, 6), (2, 2)))

    def test_tiles_on_the_device(self):
        # An output tile enqueued on the input box's device array, placed by the tiles.
        x = random((8, 10), np.float32)
        op = dmlcl.Resample(scales=2, context=self.ctx)
        y = op(x)
        s, z = op.input_box(x.shape, (4, 5), (6, 10))
        xd = self.cla.to_device(self.queue, x)
        out, ev = op.enqueue(xd[s[0]:s[0] + z[0], s[1]:s[1] + z[1]], input_tile=(x.shape, s),
                             output_tile=(y.shape, (4, 5), (6, 10)))
        ev.wait()
        self.assertBits(out.get(), y[4:10, 5:15])
        r = dmlcl.ReverseSubsequences(0, context=self.ctx)
        out, ev = r.enqueue(xd[:, 2:6], [3] * 4, input_tile=(x.shape, (0, 2)),
                            output_tile=(x.shape, (0, 2)),
                            out=self.cla.empty(self.queue, (8, 4), np.float32))
        self.assertBits(out.get(), r(x, [3] * 10)[:, 2:6])

    def test_wait_for_and_errors(self):
        x = random((5, 6), np.float32)
        xd = self.cla.to_device(self.queue, x)
        user = self.cl.UserEvent(self.queue.context)
        op = dmlcl.Resample(scales=2, context=self.ctx)
        out, ev = op.enqueue(xd, wait_for=[user])
        self.assertNotEqual(ev.command_execution_status,
                            self.cl.command_execution_status.COMPLETE)
        user.set_status(self.cl.command_execution_status.COMPLETE)
        ev.wait()
        self.assertClose(out.get(), ref.resample(x, (2, 2), (10, 12)))
        self.assertRaisesMessage(ValueError, "another argument is a NumPy array",
                                 dmlcl.reverse_subsequences, x, self.cla.to_device(
                                     self.queue, np.ones((5, 1), np.uint32)), 1)
        self.assertRaisesMessage(ValueError, "out must be a PyOpenCL array", op.enqueue, xd,
                                 np.zeros((10, 12), np.float32))
        # A buffer of another OpenCL context: the library's binding check.
        other = _pyopencl_queue()
        xo = self.cla.to_device(other, x)
        self.assertRaisesMessage(ValueError, "context", op.enqueue, xo)


if __name__ == "__main__":
    unittest.main()
