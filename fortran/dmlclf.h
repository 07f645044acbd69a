/* The C functions behind fortran/dmlcl.f90's array routines (libdmlclf); Fortran calls
 * them through bind(C) interfaces, C code has no reason to. */
#ifndef DMLCLF_H
#define DMLCLF_H
#include <ISO_Fortran_binding.h>

const char *dmlclf_last_error(void);
void dmlclf_release_default_context(void);
void dmlclf_resample(const CFI_cdesc_t *x, CFI_cdesc_t *y, const CFI_cdesc_t *scales, int mode,
                     const CFI_cdesc_t *input_offsets, const CFI_cdesc_t *output_offsets,
                     const int *rounding, int antialias, int grad, const CFI_cdesc_t *x_whole,
                     const CFI_cdesc_t *x_start, const CFI_cdesc_t *y_whole,
                     const CFI_cdesc_t *y_start, int *status);
void dmlclf_reverse_subsequences(const CFI_cdesc_t *x, const CFI_cdesc_t *lengths,
                                 CFI_cdesc_t *y, int axis, const CFI_cdesc_t *x_whole,
                                 const CFI_cdesc_t *x_start, const CFI_cdesc_t *y_whole,
                                 const CFI_cdesc_t *y_start, int *status);
void dmlclf_resample_input_box(const CFI_cdesc_t *x_whole, const CFI_cdesc_t *y_whole,
                               const CFI_cdesc_t *y_start, const CFI_cdesc_t *y_count,
                               CFI_cdesc_t *x_start, CFI_cdesc_t *x_count,
                               const CFI_cdesc_t *scales, int mode,
                               const CFI_cdesc_t *input_offsets,
                               const CFI_cdesc_t *output_offsets, const int *rounding,
                               int antialias, int grad, int *status);
void dmlclf_reverse_subsequences_input_box(const CFI_cdesc_t *whole, int axis,
                                           const CFI_cdesc_t *y_start,
                                           const CFI_cdesc_t *y_count, CFI_cdesc_t *x_start,
                                           CFI_cdesc_t *x_count, int *status);
#endif
