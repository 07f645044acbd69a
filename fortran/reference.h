/* Plain C references for the Fortran tests (fortran/reference.c). */
#ifndef DMLCL_FORTRAN_REFERENCE_H
#define DMLCL_FORTRAN_REFERENCE_H
#include <stdint.h>

/* RESAMPLE1 (rounding -1) or RESAMPLE2 (0 = ceil, 1 = floor); mode 0 nearest, 1 linear. */
void ref_resample(int rank, const int64_t *in_sizes, const double *in, const int64_t *out_sizes,
                  double *out, const float *scales, const float *in_off, const float *out_off,
                  int mode, int rounding);
/* REVERSE_SUBSEQUENCES along axis (0-based); lengths packed with the axis's extent 1. */
void ref_reverse_subsequences(int rank, const int64_t *sizes, const double *in,
                              const int64_t *lengths, int axis, double *out);
#endif
