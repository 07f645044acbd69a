/* Plain C references of the operators for the Fortran tests, written from the spec
 * (include/dmlcl.h): arrays packed in Fortran order (dimension 0 fastest), values as
 * double. Coordinates in float32 in the spec's order; linear sums in double. */
#include <math.h>
#include <stdint.h>

#include "reference.h"

/* The input index (nearest) or i0, i1 and w (linear) of output coordinate o. */
static void coordinate(int64_t o, int64_t n, float scale, float in_off, float out_off, int mode,
                       int rounding, int64_t *i0, int64_t *i1, double *w)
{
    float x = ((float)o - out_off) / scale - in_off;
    if (mode == 0) {
        float r = rounding < 0 ? floorf(x + 0.5f) : rounding == 0 ? ceilf(x) : floorf(x);
        int64_t i = r < 0 ? 0 : r > (float)(n - 1) ? n - 1 : (int64_t)r;
        *i0 = *i1 = i;
        *w = 0;
        return;
    }
    if (x < 0)
        x = 0;
    if (x > (float)(n - 1))
        x = (float)(n - 1);
    float f = floorf(x);
    *i0 = (int64_t)f;
    *i1 = *i0 + 1 < n ? *i0 + 1 : n - 1;
    *w = (double)(x - f);
}

void ref_resample(int rank, const int64_t *in_sizes, const double *in, const int64_t *out_sizes,
                  double *out, const float *scales, const float *in_off, const float *out_off,
                  int mode, int rounding)
{
    int64_t count = 1;
    for (int d = 0; d < rank; d++)
        count *= out_sizes[d];
    for (int64_t e = 0; e < count; e++) {
        int64_t i0[8], i1[8], r = e;
        double w[8];
        for (int d = 0; d < rank; d++) {
            coordinate(r % out_sizes[d], in_sizes[d], scales[d], in_off[d], out_off[d], mode,
                       rounding, &i0[d], &i1[d], &w[d]);
            r /= out_sizes[d];
        }
        double sum = 0;
        for (int corner = 0; corner < (1 << rank); corner++) {
            double weight = 1;
            int64_t at = 0, step = 1;
            for (int d = 0; d < rank; d++) {
                int hi = corner >> d & 1;
                weight *= hi ? w[d] : 1 - w[d];
                at += (hi ? i1[d] : i0[d]) * step;
                step *= in_sizes[d];
            }
            if (weight != 0)
                sum += weight * in[at];
        }
        out[e] = sum;
    }
}

void ref_reverse_subsequences(int rank, const int64_t *sizes, const double *in,
                              const int64_t *lengths, int axis, double *out)
{
    int64_t count = 1, stride = 1;
    for (int d = 0; d < rank; d++)
        count *= sizes[d];
    for (int d = 0; d < axis; d++)
        stride *= sizes[d];
    int64_t n = sizes[axis];
    for (int64_t e = 0; e < count; e++) {
        int64_t i = e / stride % n, line = e - i * stride;
        int64_t l = e % stride + (e / (stride * n)) * stride; /* lengths index: axis removed */
        int64_t L = lengths[l] < n ? lengths[l] : n;
        out[e] = in[i < L ? line + (L - 1 - i) * stride : e];
    }
}
