"""The Python binding against independent NumPy references (reference.py): every
function, every layout NumPy makes (C and Fortran order, slices, transposes, broadcast
and negative strides), every data type, bad input with its message, and PyOpenCL arrays
on the device when PyOpenCL is installed.

Runs under pytest or ``python3 -m unittest``; ``make check`` runs it through
python/run_tests.sh on POCL (DMLCL_DEVICE=cpu). Shapes repeat across cases so that the
kernels compile once.
"""
import os
import sys
import unittest

import numpy as np
from numpy.lib.stride_tricks import as_strided

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref  # noqa: E402

import dmlcl  # noqa: E402

RNG = np.random.default_rng(16)
ALL_DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint16, np.uint32, np.uint64]
RESAMPLE_DTYPES = [np.float32, np.float16, np.float64, np.int8, np.uint8]


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
        for dt in RESAMPLE_DTYPES:
            x = random(self.shape, dt)
            for mode in ("linear", "nearest"):
                with self.subTest(dtype=np.dtype(dt).name, mode=mode):
                    y = dmlcl.resample(x, self.scales, mode=mode)
                    self.check(y, ref.resample(x, self.scales, self.out_shape, mode), mode)

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
        e = self.assertRaisesMessage(dmlcl.DataTypeError,
                                     "data_type must be FLOAT32, FLOAT16, FLOAT64, INT8 or "
                                     "UINT8, got INT32", rs, x.astype(np.int32), 2)
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
                                 "backward operator", dmlcl.resample_grad, dy, (8,), 2,
                                 mode="nearest")
        for rounding in ("increasing", "decreasing"):
            with self.subTest(rounding=rounding):
                self.assertClose(dmlcl.resample_grad(dy, (8,), 2, mode="nearest",
                                                     input_offsets=0, output_offsets=0,
                                                     rounding=rounding),
                                 ref.resample_grad(dy, (8,), 2, "nearest", 0, 0, rounding))

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
        self.assertRaisesMessage(TypeError, "resample_grad1: input_gradient_tensor data_type",
                                 dmlcl.resample_grad, dy.astype(np.int16), (5, 6))


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
