"""doc/scipy.md, line by line: the dmlcl.resample calls that compute what
scipy.ndimage.zoom and skimage.transform.resize compute, to the tolerances that page
gives. Skipped, saying so, where SciPy or scikit-image is not installed (Debian:
python3-scipy, python3-skimage).
"""
import unittest

import numpy as np

import dmlcl

try:
    import scipy.ndimage as ndi
except ImportError:
    ndi = None
try:
    import skimage.transform as sktr
except ImportError:
    sktr = None

RNG = np.random.default_rng(33)
# (input shape, zoom): whole and fractional n * z, up and down, 2-D and 3-D; 1000 -> 370
# puts coordinates near 1000, where float32 and double differ most.
CASES = [((20, 30), 2.0), ((17, 23), 1.7), ((17, 23, 9), 0.37), ((1000, 50), 0.37)]


def linear_bound(x):
    """doc/scipy.md's linear tolerance: (n + 4) float32 ulps of 1, times x's range."""
    return (max(x.shape) + 4) * 2.0**-23 * float(x.max() - x.min())


def ties(in_shape, out_shape, corners):
    """The outputs whose exact coordinate (double) is k + 0.5 in some dimension: there
    nearest may pick either neighbour (doc/scipy.md)."""
    mask = np.zeros(out_shape, bool)
    for d, (n, m) in enumerate(zip(in_shape, out_shape)):
        o = np.arange(m, dtype=np.float64)
        c = o * (n - 1) / (m - 1) if corners else (o + 0.5) * n / m - 0.5
        tie = np.abs(c - np.floor(c) - 0.5) < 1e-6
        shape = [1] * len(out_shape)
        shape[d] = m
        mask |= tie.reshape(shape)
    return mask


class Compare(unittest.TestCase):
    def check(self, got, want, mode, x, tie_mask):
        self.assertEqual(got.shape, want.shape)
        if mode == "nearest":
            differ = (got != want) & ~tie_mask
            self.assertFalse(differ.any(), "nearest differs at %s" % np.argwhere(differ)[:3])
        else:
            err = np.max(np.abs(got.astype(np.float64) - want))
            self.assertLessEqual(err, linear_bound(x))


@unittest.skipIf(ndi is None, "SciPy not installed (Debian: python3-scipy)")
class ZoomTest(Compare):
    def test_grid_mode(self):
        """zoom(order=0|1, grid_mode=True, mode='nearest') is resample(size=its shape)."""
        for shape, z in CASES:
            x = RNG.random(shape, dtype=np.float32)
            for order, mode in ((0, "nearest"), (1, "linear")):
                with self.subTest(shape=shape, zoom=z, mode=mode):
                    want = ndi.zoom(x, z, order=order, grid_mode=True, mode="nearest")
                    got = dmlcl.resample(x, size=want.shape, mode=mode)
                    self.check(got, want, mode, x, ties(shape, want.shape, False))

    def test_corners_aligned(self):
        """zoom's default grid_mode=False (with mode='nearest'): scale (m - 1) / (n - 1)
        and offsets 0."""
        for shape, z in CASES:
            x = RNG.random(shape, dtype=np.float32)
            for order, mode in ((0, "nearest"), (1, "linear")):
                with self.subTest(shape=shape, zoom=z, mode=mode):
                    want = ndi.zoom(x, z, order=order, mode="nearest")
                    m = want.shape
                    scales = [(mi - 1) / (ni - 1) for ni, mi in zip(shape, m)]
                    got = dmlcl.resample(x, size=m, scales=scales, input_offsets=0,
                                         output_offsets=0, mode=mode)
                    self.check(got, want, mode, x, ties(shape, m, True))

    def test_shape_rule(self):
        """scales= agrees with zoom's round(n * z) where n * z is whole; size= always."""
        x = np.zeros((20, 30), np.float32)
        self.assertEqual(dmlcl.resample(x, scales=2).shape, ndi.zoom(x, 2, order=0).shape)
        want = ndi.zoom(np.zeros((17, 23), np.float32), 1.7, order=0).shape
        self.assertEqual(want, (29, 39))
        self.assertEqual(dmlcl.resample_output_shape((17, 23), 1.7), (28, 39))

    def test_nearest_tie(self):
        """The page's ties: 40 -> 20 rows puts every row at 2o + 0.5, exact in float32,
        where both round up; 30 -> 13 columns puts column 6 at 14.5, which float32 misses:
        that column alone differs."""
        x = RNG.random((40, 30), dtype=np.float32)
        want = ndi.zoom(x, (0.5, 13 / 30), order=0, grid_mode=True, mode="nearest")
        got = dmlcl.resample(x, size=want.shape, mode="nearest")
        self.assertEqual(np.unique(np.argwhere(got != want)[:, 1]).tolist(), [6])

    def test_uint8(self):
        """Integers: nearest equal, linear within 1."""
        x = RNG.integers(0, 256, (40, 50), dtype=np.uint8)
        for order, mode in ((0, "nearest"), (1, "linear")):
            want = ndi.zoom(x, 1.7, order=order, grid_mode=True, mode="nearest")
            got = dmlcl.resample(x, size=want.shape, mode=mode)
            self.assertLessEqual(np.max(np.abs(got.astype(int) - want)), 0 if order == 0 else 1)


@unittest.skipIf(sktr is None, "scikit-image not installed (Debian: python3-skimage)")
class ResizeTest(Compare):
    def test_resize(self):
        """resize(order=0|1, mode='edge' or 'symmetric', anti_aliasing=False) is
        resample(size=output_shape)."""
        for shape, out in (((17, 23), (29, 39)), ((40, 30), (20, 13)), ((9, 8, 7), (20, 5, 11))):
            x = RNG.random(shape, dtype=np.float32)
            for order, mode in ((0, "nearest"), (1, "linear")):
                got = dmlcl.resample(x, size=out, mode=mode)
                for edge in ("edge", "symmetric"):
                    with self.subTest(shape=shape, out=out, mode=mode, edge=edge):
                        want = sktr.resize(x, out, order=order, mode=edge, anti_aliasing=False)
                        self.check(got, want, mode, x, ties(shape, out, False))


if __name__ == "__main__":
    unittest.main()
