! dmlcl from Fortran: resample a section of an array and reverse subsequences, with the
! module's array routines (no copies: the section's strides go to the library).
!
! Build against an installed dmlcl with nothing but pkg-config (see Makefile here):
!     gfortran example.f90 $(pkg-config --cflags --libs dmlcl-fortran) -o example
! Prints the 8x6 result of resampling x(2:5, 1:6:2), a 4x3 section of a 6x6 array, by 2
! (linear) and by 2 (nearest), one value per line, then the reversed subsequences; exit
! status 0 on success. The device is $DMLCL_DEVICE if set, else the first GPU, else CPU.
program example
  use, intrinsic :: iso_c_binding, only: c_float, c_int, c_int32_t
  use dmlcl
  implicit none
  real(c_float) :: x(6, 6), y(8, 6), z(8, 6), r(3, 4), rr(3, 4)
  integer(c_int32_t) :: lengths(3, 1)
  integer(c_int) :: status
  integer :: i, j

  x = reshape([(real(i, c_float), i = 1, 36)], shape(x))

  ! Linear, pixel-centre offsets (the defaults): y(i, j) samples the section at
  ! ((i - 1 + 0.5) / 2 - 0.5, (j - 1 + 0.5) / 2 - 0.5), 0-based.
  call dmlcl_resample(x(2:5, 1:6:2), y, scales=[2.0, 2.0], &
       mode=DMLCL_INTERPOLATION_MODE_LINEAR, status=status)
  if (status /= DMLCL_SUCCESS) then
     print '(a)', "dmlcl_resample: " // dmlcl_error_message()
     stop 1
  end if
  call dmlcl_resample(x(2:5, 1:6:2), z, scales=[2.0, 2.0], &
       mode=DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, status=status)
  if (status /= DMLCL_SUCCESS) stop 1
  print '(a)', "# resample linear x(2:5, 1:6:2) by 2, column by column"
  print '(es16.8)', ((y(i, j), i = 1, 8), j = 1, 6)
  print '(a)', "# resample nearest"
  print '(es16.8)', ((z(i, j), i = 1, 8), j = 1, 6)

  ! Reverse the first 2, 4 and 3 elements of each row of a 3x4 matrix (dim 2), without
  ! a status: a failure would stop the program with the library's message.
  r = reshape([(real(i, c_float), i = 1, 12)], shape(r), order=[2, 1])
  lengths(:, 1) = [2, 4, 3]
  call dmlcl_reverse_subsequences(r, lengths, rr, 2)
  print '(a)', "# reverse_subsequences along dim 2, row by row"
  print '(es16.8)', ((rr(i, j), j = 1, 4), i = 1, 3)
end program example
