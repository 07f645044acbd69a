! The Fortran module against the plain C reference (fortran/reference.c): the array
! routines on ranks 1 to 7, sections and every type they take, the backward pass, bad
! input with its status and message, the C API through the bind(C) descriptors, and tiles
! of larger arrays with their halo queries.
! Prints one line per check; exit status 1 if any failed. Run by `make check`.
program check_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int16, int32, int64
  use dmlcl
  implicit none

  interface
     subroutine ref_resample(rank, in_sizes, in, out_sizes, out, scales, in_off, out_off, &
          mode, rounding) bind(C, name="ref_resample")
       import :: c_int, c_int64_t, c_double, c_float
       integer(c_int), value :: rank
       integer(c_int64_t), intent(in) :: in_sizes(*), out_sizes(*)
       real(c_double), intent(in) :: in(*)
       real(c_double), intent(out) :: out(*)
       real(c_float), intent(in) :: scales(*), in_off(*), out_off(*)
       integer(c_int), value :: mode, rounding
     end subroutine ref_resample
     subroutine ref_reverse_subsequences(rank, sizes, in, lengths, axis, out) &
          bind(C, name="ref_reverse_subsequences")
       import :: c_int, c_int64_t, c_double
       integer(c_int), value :: rank, axis
       integer(c_int64_t), intent(in) :: sizes(*), lengths(*)
       real(c_double), intent(in) :: in(*)
       real(c_double), intent(out) :: out(*)
     end subroutine ref_reverse_subsequences
  end interface

  integer :: failures = 0, checks = 0
  integer(c_int) :: st
  real(c_float), parameter :: half(8) = 0.5, mhalf(8) = -0.5
  real(c_float) :: s(8) = [2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
  character(len=8) :: arg

  ! `check_fortran stop`: a failure without status= stops the program (example_test.sh
  ! checks that the message comes before ERROR STOP's lines).
  call get_command_argument(1, arg)
  if (arg == "stop") call stop_on_failure()

  call ranks_one_to_seven()
  call other_types()
  call reverse()
  call grad()
  call errors()
  call c_api()
  call tiles()
  call tiles_c_api()
  call dmlcl_release_default_context()
  print '(i0, a, i0, a)', checks, " checks, ", failures, " failed"
  if (failures > 0) error stop 1

contains

  subroutine stop_on_failure()
    real(c_float) :: x(2), y(4)
    x = 1
    call dmlcl_resample(x, y, [-2.0_c_float])
  end subroutine stop_on_failure

  subroutine ok(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (cond) then
       print '(a)', "PASS: " // what
    else
       failures = failures + 1
       print '(a)', "FAIL: " // what
    end if
  end subroutine ok

  !> got (any rank, sequence-associated) within tol of want (relative, at least absolute).
  subroutine close_to(got, want, n, tol, what)
    integer, intent(in) :: n
    real(c_double), intent(in) :: got(n), want(n), tol
    character(len=*), intent(in) :: what
    call ok(all(abs(got - want) <= tol * max(1.0_c_double, abs(want))), what)
    if (.not. all(abs(got - want) <= tol * max(1.0_c_double, abs(want)))) &
         print '(a, es12.4)', "      largest difference ", maxval(abs(got - want))
  end subroutine close_to

  !> got (any rank, sequence-associated) equal to want, or within an absolute tol.
  logical function equal(got, want, n, tol)
    integer, intent(in) :: n
    real(c_double), intent(in) :: got(n), want(n)
    real(c_double), intent(in), optional :: tol
    if (present(tol)) then
       equal = all(abs(got - want) <= tol)
    else
       equal = all(got == want)
    end if
  end function equal

  subroutine status_ok(what)
    character(len=*), intent(in) :: what
    if (st /= DMLCL_SUCCESS) print '(a)', "      " // dmlcl_status_name(st) // ": " // &
         dmlcl_error_message()
    call ok(st == DMLCL_SUCCESS, what // ": status")
  end subroutine status_ok

  !> Linear 2x along the first two dimensions of a section x(2:5, 1:4:2, ...) of every
  !> rank from 1 to 7; the rest pass through (scale 1). Nearest on rank 3.
  subroutine ranks_one_to_seven()
    real(c_float), allocatable :: x1(:), x2(:,:), x3(:,:,:), x4(:,:,:,:), x5(:,:,:,:,:), &
         x6(:,:,:,:,:,:), x7(:,:,:,:,:,:,:)
    real(c_float), allocatable :: y1(:), y2(:,:), y3(:,:,:), y4(:,:,:,:), y5(:,:,:,:,:), &
         y6(:,:,:,:,:,:), y7(:,:,:,:,:,:,:)
    real(c_double), allocatable :: want(:)
    integer(c_int64_t) :: isz(7), osz(7)
    isz = [4, 2, 2, 2, 2, 2, 2]
    osz = [8, 4, 2, 2, 2, 2, 2]

    allocate(x1(6), y1(8))
    call random_number(x1)
    call dmlcl_resample(x1(2:5), y1, s(1:1), status=st)
    call status_ok("rank 1 section")
    allocate(want(8))
    call ref_resample(1, isz, real(x1(2:5), c_double), osz, want, s, half, mhalf, 1, -1)
    call close_to(real(y1, c_double), want, 8, 1d-6, "rank 1 linear against the C reference")
    deallocate(want)

    allocate(x2(6, 5), y2(8, 4), want(32))
    call random_number(x2)
    call dmlcl_resample(x2(2:5, 1:4:2), y2, s(1:2), status=st)
    call status_ok("rank 2 section")
    call ref_resample(2, isz, real(x2(2:5, 1:4:2), c_double), osz, want, s, half, mhalf, 1, -1)
    call close_to(real(y2, c_double), want, size(want), 1d-6, "rank 2 linear")
    ! Without scales: size(y) / size(x) per dimension, here the same 2 and 2.
    y2 = 0
    call dmlcl_resample(x2(2:5, 1:4:2), y2, status=st)
    call close_to(real(y2, c_double), want, size(want), 1d-6, "rank 2, scales from the shapes")
    deallocate(want)

    allocate(x3(6, 5, 2), y3(8, 4, 2), want(64))
    call random_number(x3)
    call dmlcl_resample(x3(2:5, 1:4:2, :), y3, s(1:3), status=st)
    call status_ok("rank 3 section")
    call ref_resample(3, isz, real(x3(2:5, 1:4:2, :), c_double), osz, want, s, half, mhalf, &
         1, -1)
    call close_to(real(y3, c_double), want, size(want), 1d-6, "rank 3 linear")
    call dmlcl_resample(x3(2:5, 1:4:2, :), y3, s(1:3), DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, &
         st)
    call ref_resample(3, isz, real(x3(2:5, 1:4:2, :), c_double), osz, want, s, half, mhalf, &
         0, -1)
    call ok(equal(real(y3, c_double), want, 64), "rank 3 nearest: bit for bit")
    ! Rounding (RESAMPLE2) with asymmetric offsets: coordinates on k + 0.5.
    call dmlcl_resample(x3(2:5, 1:4:2, :), y3, s(1:3), DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, &
         st, input_offsets=[0., 0., 0.], output_offsets=[0., 0., 0.], &
         rounding=DMLCL_AXIS_DIRECTION_DECREASING)
    call ref_resample(3, isz, real(x3(2:5, 1:4:2, :), c_double), osz, want, s, [0., 0., 0.], &
         [0., 0., 0.], 0, 1)
    call ok(st == 0 .and. equal(real(y3, c_double), want, 64), "rank 3 nearest, rounding decreasing")
    ! Into a section of a larger array: the elements around it stay as they were.
    block
      real(c_float) :: big(10, 6, 2)
      big = -7
      call dmlcl_resample(x3(2:5, 1:4:2, :), big(2:9, 2:5, :), s(1:3), status=st)
      call ref_resample(3, isz, real(x3(2:5, 1:4:2, :), c_double), osz, want, s, half, mhalf, &
           1, -1)
      call close_to(real(big(2:9, 2:5, :), c_double), want, size(want), 1d-6, &
           "rank 3 into a section of y")
      call ok(all(big(1, :, :) == -7) .and. all(big(10, :, :) == -7) .and. &
           all(big(:, 1, :) == -7) .and. all(big(:, 6, :) == -7), "  elements around it kept")
    end block
    deallocate(want)

    allocate(x4(6, 5, 2, 2), y4(8, 4, 2, 2), want(128))
    call random_number(x4)
    call dmlcl_resample(x4(2:5, 1:4:2, :, :), y4, s(1:4), status=st)
    call status_ok("rank 4 section")
    call ref_resample(4, isz, real(x4(2:5, 1:4:2, :, :), c_double), osz, want, s, half, mhalf, &
         1, -1)
    call close_to(real(y4, c_double), want, size(want), 1d-6, "rank 4 linear")
    deallocate(want)

    allocate(x5(6, 5, 2, 2, 2), y5(8, 4, 2, 2, 2), want(256))
    call random_number(x5)
    call dmlcl_resample(x5(2:5, 1:4:2, :, :, :), y5, s(1:5), status=st)
    call status_ok("rank 5 section")
    call ref_resample(5, isz, real(x5(2:5, 1:4:2, :, :, :), c_double), osz, want, s, half, &
         mhalf, 1, -1)
    call close_to(real(y5, c_double), want, size(want), 1d-6, "rank 5 linear")
    deallocate(want)

    allocate(x6(6, 5, 2, 2, 2, 2), y6(8, 4, 2, 2, 2, 2), want(512))
    call random_number(x6)
    call dmlcl_resample(x6(2:5, 1:4:2, :, :, :, :), y6, s(1:6), status=st)
    call status_ok("rank 6 section")
    call ref_resample(6, isz, real(x6(2:5, 1:4:2, :, :, :, :), c_double), osz, want, s, half, &
         mhalf, 1, -1)
    call close_to(real(y6, c_double), want, size(want), 1d-6, "rank 6 linear")
    deallocate(want)

    allocate(x7(6, 5, 2, 2, 2, 2, 2), y7(8, 4, 2, 2, 2, 2, 2), want(1024))
    call random_number(x7)
    call dmlcl_resample(x7(2:5, 1:4:2, :, :, :, :, :), y7, s(1:7), status=st)
    call status_ok("rank 7 section")
    call ref_resample(7, isz, real(x7(2:5, 1:4:2, :, :, :, :, :), c_double), osz, want, s, &
         half, mhalf, 1, -1)
    call close_to(real(y7, c_double), want, size(want), 1d-6, "rank 7 linear")
    ! A transposed layout: dmlcl takes any strides, so a transpose costs nothing either.
    call dmlcl_resample(x2(2:5, 1:4:2), y2, s(1:2), status=st)
  end subroutine ranks_one_to_seven

  subroutine other_types()
    real(c_double) :: xd(6, 5), yd(8, 4)
    integer(int8) :: xb(6, 5), yb(8, 4)
    integer(int16) :: xh(6, 5), yh(8, 4)
    integer(int32) :: xi(6, 5), yi(8, 4)
    real(c_double) :: want(32), xr(30)
    integer(c_int64_t) :: isz(2) = [4, 2], osz(2) = [8, 4]
    call random_number(xd)
    call dmlcl_resample(xd(2:5, 1:4:2), yd, s(1:2), status=st)
    call status_ok("real(c_double)")
    call ref_resample(2, isz, xd(2:5, 1:4:2), osz, want, s, half, mhalf, 1, -1)
    call close_to(yd, want, 32, 1d-6, "real(c_double) linear (float weights: 1e-6)")
    call random_number(xr)
    xb = int(reshape(xr, [6, 5]) * 200 - 100, int8)
    call dmlcl_resample(xb(2:5, 1:4:2), yb, s(1:2), DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, st)
    call ref_resample(2, isz, real(xb(2:5, 1:4:2), c_double), osz, want, s, half, mhalf, 0, -1)
    call ok(st == 0 .and. equal(real(yb, c_double), want, 32), "integer(int8) nearest")
    call dmlcl_resample(xb(2:5, 1:4:2), yb, s(1:2), status=st)
    call ref_resample(2, isz, real(xb(2:5, 1:4:2), c_double), osz, want, s, half, mhalf, 1, -1)
    call ok(st == 0 .and. equal(real(yb, c_double), want, 32, 0.5_c_double), &
         "integer(int8) linear: rounded to nearest")
    ! Microscopy's 16-bit images: linear rounds as the 8-bit types do.
    xh = int(reshape(xr, [6, 5]) * 60000 - 30000, int16)
    call dmlcl_resample(xh(2:5, 1:4:2), yh, s(1:2), status=st)
    call ref_resample(2, isz, real(xh(2:5, 1:4:2), c_double), osz, want, s, half, mhalf, 1, -1)
    call ok(st == 0 .and. equal(real(yh, c_double), want, 32, 0.5_c_double), &
         "integer(int16) linear: rounded to nearest")
    ! 32-bit integers: nearest moves values float32 cannot hold; linear is refused.
    xi = int(reshape(xr, [6, 5]) * 2e9_c_double - 1e9_c_double, int32) + 16777217_int32
    call dmlcl_resample(xi(2:5, 1:4:2), yi, s(1:2), DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, st)
    call ref_resample(2, isz, real(xi(2:5, 1:4:2), c_double), osz, want, s, half, mhalf, 0, -1)
    call ok(st == 0 .and. equal(real(yi, c_double), want, 32), "integer(int32) nearest")
    call dmlcl_resample(xi(2:5, 1:4:2), yi, s(1:2), status=st)
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(dmlcl_error_message(), &
         "data_type INT32 takes interpolation_mode 0 (NEAREST_NEIGHBOR) only") > 0, &
         "integer(int32) linear: refused with the reason")
  end subroutine other_types

  subroutine reverse()
    real(c_float) :: xf(3, 5), yf(3, 4)
    real(c_double) :: xd(3, 4), yd(3, 4), want(12)
    integer(int8) :: x8(3, 4), y8(3, 4)
    integer(int16) :: x16(3, 4), y16(3, 4)
    integer(int32) :: x32(3, 4), y32(3, 4), l32(3, 1), l32b(1, 4)
    integer(int64) :: x64(3, 4), y64(3, 4), l64(3, 1)
    integer(c_int64_t) :: sz(2) = [3, 4], lref(3) = [2, 4, 3], lrefb(4) = [2, 3, 1, 0]
    integer :: i
    xd = reshape([(real(i, c_double), i = 1, 12)], [3, 4], order=[2, 1])
    l32(:, 1) = [2, 4, 3]
    l64(:, 1) = [2, 4, 3]
    l32b(1, :) = [2, 3, 1, 0]
    call ref_reverse_subsequences(2, sz, xd, lref, 1, want)
    call dmlcl_reverse_subsequences(xd, l32, yd, 2, st)
    call ok(st == 0 .and. all(yd == reshape(want, [3, 4])), "reverse real(c_double), int32 lengths")
    ! The spec's two examples: 2 1 3 4 / 8 7 6 5 / 11 10 9 12 along dim 2.
    call ok(all(yd(2, :) == [8, 7, 6, 5]), "  the spec's example 1")
    call ref_reverse_subsequences(2, sz, xd, lrefb, 0, want)
    call dmlcl_reverse_subsequences(xd, l32b, yd, 1, st)
    call ok(st == 0 .and. all(yd == reshape(want, [3, 4])) .and. all(yd(1, :) == [5, 10, 3, 4]), &
         "reverse along dim 1: the spec's example 2")
    call ref_reverse_subsequences(2, sz, xd, lref, 1, want)
    xf = 0
    xf(:, 1:4) = real(xd, c_float)
    call dmlcl_reverse_subsequences(xf(:, 1:4), l64, yf, 2, st)
    call ok(st == 0 .and. all(yf == reshape(want, [3, 4])), "reverse real(c_float) section, int64 lengths")
    x8 = int(xd, int8)
    call dmlcl_reverse_subsequences(x8, l32, y8, 2, st)
    call ok(st == 0 .and. all(y8 == reshape(want, [3, 4])), "reverse integer(int8)")
    x16 = int(xd, int16)
    call dmlcl_reverse_subsequences(x16, l64, y16, 2, st)
    call ok(st == 0 .and. all(y16 == reshape(want, [3, 4])), "reverse integer(int16)")
    x32 = int(xd, int32)
    call dmlcl_reverse_subsequences(x32, l32, y32, 2, st)
    call ok(st == 0 .and. all(y32 == reshape(want, [3, 4])), "reverse integer(int32)")
    x64 = int(xd, int64) + 2_int64**40
    call dmlcl_reverse_subsequences(x64, l32, y64, 2, st)
    call ok(st == 0 .and. all(y64 - 2_int64**40 == reshape(want, [3, 4])), "reverse integer(int64)")
    ! A transposed view of the same data through a section of the transpose's storage.
    call dmlcl_reverse_subsequences(x32(:, 4:1:-1), l32, y32, 2, st)
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(dmlcl_error_message(), &
         "negative stride along dimension 2") > 0, "negative strides refused: " // &
         dmlcl_error_message())
  end subroutine reverse

  subroutine grad()
    real(c_float) :: dy(1, 3), dx(2, 2), dy2(8, 4), dx2(4, 2)
    real(c_double) :: want(8), xr(32)
    integer(c_int64_t) :: fsz(2) = [4, 2], gsz(2) = [8, 4]
    ! DirectML's example: 2x2 -> 1x3 nearest, scales (0.5, 1.5), decreasing.
    dy(1, :) = [4, 5, 6]
    call dmlcl_resample_grad(dy, dx, [0.5, 1.5], DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, st, &
         rounding=DMLCL_AXIS_DIRECTION_DECREASING)
    call ok(st == 0 .and. all(dx(1, :) == [9, 6]) .and. all(dx(2, :) == 0), &
         "resample_grad: DirectML's example")
    call dmlcl_resample_grad(dy, dx, [0.5, 1.5], DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, st)
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(dmlcl_error_message(), "rounding absent &
         &(round half up) has no backward operator") > 0, "resample_grad: nearest needs a rounding")
    ! Linear 2x: the transpose of the forward weights (reference: forward on unit vectors).
    call random_number(xr)
    dy2 = reshape(real(xr, c_float), [8, 4])
    call dmlcl_resample_grad(dy2, dx2, s(1:2), status=st)
    call status_ok("resample_grad linear")
    block
      real(c_double) :: unit(8), fwd(32)
      integer :: k
      do k = 1, 8
         unit = 0
         unit(k) = 1
         call ref_resample(2, fsz, unit, gsz, fwd, s, half, mhalf, 1, -1)
         want(k) = sum(fwd * reshape(real(dy2, c_double), [32]))
      end do
    end block
    call close_to(real(dx2, c_double), want, 8, 1d-5, "resample_grad linear against the reference")
  end subroutine grad

  subroutine errors()
    real(c_float) :: x(4, 3), y(8, 6), y3(8, 6, 1)
    character(len=:), allocatable :: msg
    integer(int32) :: lengths(4, 1)
    x = 1
    call dmlcl_resample(x, y, [2.0, -2.0], status=st)
    msg = dmlcl_error_message()
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "scales[1] must be finite and > 0") > 0, &
         "negative scale: " // dmlcl_status_name(st) // ": " // msg)
    call dmlcl_resample(x, y, [2.0, 2.0, 2.0], status=st)
    msg = dmlcl_error_message()
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "scales needs one real(c_float) per &
         &dimension (2), got 3") > 0, "three scales for rank 2: " // msg)
    call dmlcl_resample(x, y3, status=st)
    msg = dmlcl_error_message()
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "x has rank 2, y has rank 3") > 0, &
         "rank mismatch: " // msg)
    ! A library failure after one of ours: the library's message again.
    call dmlcl_resample(x, y, [0.0, 1.0], status=st)
    call ok(st /= 0, "a library failure after ours: " // dmlcl_error_message())
    block
      integer(int32) :: xi(4, 3), yi(8, 6)
      xi = 1
      call dmlcl_resample(xi, yi, status=st)
      msg = dmlcl_error_message()
      call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "data_type INT32 takes &
           &interpolation_mode 0 (NEAREST_NEIGHBOR) only") > 0, "integer(int32) linear resample: " // msg)
    end block
    lengths(:, 1) = [1, -2, 3, 0]
    call dmlcl_reverse_subsequences(x(:, 1:1), lengths, y(1:4, 1:1), 2, st)
    msg = dmlcl_error_message()
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "lengths has a negative value (-2)") > 0, &
         "negative length: " // msg)
    call dmlcl_reverse_subsequences(x(:, 1:1), lengths, y(1:4, 1:1), 3, st)
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(dmlcl_error_message(), "dim 3 is not") > 0, &
         "dim out of range: " // dmlcl_error_message())
  end subroutine errors

  !> The C API as C uses it: descriptors as bind(C) types, c_loc of target arrays.
  subroutine c_api()
    real(c_float), target :: x(4, 3), y(8, 6), y_ref(8, 6), yt(6, 8)
    integer(c_int32_t), target :: in_sizes(2), out_sizes(2), strides(2)
    real(c_float), target :: scales(2), io(2), oo(2)
    type(dmlcl_tensor_desc), target :: tin, tout
    type(dmlcl_resample1_desc), target :: rd
    type(dmlcl_operator_desc) :: od
    type(dmlcl_cache_stats) :: stats
    type(c_ptr) :: ctx, op
    integer :: i
    x = reshape([(real(i, c_float), i = 1, 12)], [4, 3])
    ! dmlcl's dimension order here is Fortran's reversed: sizes {3, 4} with packed
    ! (row-major) strides describe x(4, 3) as the C library sees it.
    in_sizes = [3, 4]
    st = dmlcl_resample_output_sizes(2, in_sizes, [2.0, 2.0], out_sizes)
    call status_ok("dmlcl_resample_output_sizes")
    call ok(all(out_sizes == [6, 8]), "dmlcl_resample_output_sizes: 3 x 2, 4 x 2")
    st = dmlcl_resample_output_sizes(2, in_sizes, [2.0, 0.2], out_sizes)
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(dmlcl_error_message(), &
         "output size of dimension 1 is floor(4 x 0.2) = 0, outside 1 to 4294967295") > 0, &
         "dmlcl_resample_output_sizes: a size that rounds to 0")
    tin = dmlcl_tensor_desc(DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, c_loc(in_sizes), c_null_ptr, 0)
    tout = dmlcl_tensor_desc(DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, c_loc(out_sizes), c_null_ptr, 0)
    call ok(dmlcl_tensor_size_in_bytes(tin) == 48, "dmlcl_tensor_size_in_bytes")
    scales = 2
    io = 0.5
    oo = -0.5
    rd = dmlcl_resample1_desc(c_loc(tin), c_loc(tout), DMLCL_INTERPOLATION_MODE_LINEAR, 2, &
         c_loc(scales), c_loc(io), c_loc(oo))
    od = dmlcl_operator_desc(DMLCL_OPERATOR_RESAMPLE1, c_loc(rd))
    st = dmlcl_context_create_for("cpu" // c_null_char, ctx)
    call status_ok("dmlcl_context_create_for")
    st = dmlcl_operator_create(ctx, od, op)
    call status_ok("dmlcl_operator_create")
    call ok(index(dmlcl_string(dmlcl_operator_plan(op)), "variant=") > 0, &
         "plan: " // dmlcl_string(dmlcl_operator_plan(op)))
    st = dmlcl_operator_prepare_host(op)
    call status_ok("dmlcl_operator_prepare_host")
    st = dmlcl_operator_execute_host(op, [c_loc(x)], [c_loc(y)])
    call status_ok("dmlcl_operator_execute_host")
    call dmlcl_resample(x, y_ref, [2.0, 2.0], status=st)
    call ok(all(abs(y - y_ref) <= 1e-5), "the C API and dmlcl_resample agree")
    ! Strides: the same output written transposed, through explicit strides {1, 6}.
    strides = [1, 6]
    tout = dmlcl_tensor_desc(DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, c_loc(out_sizes), c_loc(strides), 0)
    call dmlcl_operator_release(op)
    st = dmlcl_operator_create(ctx, od, op)
    call dmlcl_cache_get_stats(stats)
    call ok(stats%memory_hits > 0, "second operator: a memory-cache hit")
    st = dmlcl_operator_execute_host(op, [c_loc(x)], [c_loc(yt)])
    call ok(st == 0 .and. all(abs(yt - transpose(y_ref)) <= 1e-5), "strided output: transposed")
    call dmlcl_operator_release(op)
    call dmlcl_context_release(ctx)
    call ok(dmlcl_version_string() /= "", "version " // dmlcl_version_string())
    call ok(dmlcl_status_name(DMLCL_NO_DEVICE) == "DMLCL_NO_DEVICE", "dmlcl_status_name")
  end subroutine c_api

  !> a and b hold the same bits (real(c_float), any shape of the same size).
  logical function same_bits(a, b, n)
    integer, intent(in) :: n
    real(c_float), intent(in) :: a(n), b(n)
    same_bits = all(transfer(a, [0_int32]) == transfer(b, [0_int32]))
  end function same_bits

  !> Tiles through the array routines: for a box of y, the halo query gives the box of x;
  !> that section of the whole x (no copy), placed by x_whole/x_start and y_whole/y_start,
  !> gives the whole run's box of y bit for bit.
  subroutine tiles()
    real(c_float) :: x(7, 6), y(14, 12), xa(12, 10), ya(6, 5), dy(14, 12), dx(7, 6)
    real(c_float), allocatable :: yt(:,:)
    real(c_float) :: xr(5, 6, 4), yr(5, 6, 4), yrt(3, 6, 2)
    integer(int32) :: ys(2), yc(2), xs(2), xc(2), lengths(5, 1, 4), s3(3), xs3(3), xc3(3)
    integer(int64) :: xs8(2), xc8(2)
    character(len=:), allocatable :: msg
    integer :: i
    call random_number(x)
    call dmlcl_resample(x, y, [2.0, 2.0], status=st)
    call status_ok("tiles: the whole 2x run")
    ! Output rows 6-11, columns 4-10 (0-based starts 5 and 3) read x(3:6, 2:6).
    ys = [5, 3]
    yc = [6, 7]
    call dmlcl_resample_input_box(shape(x), shape(y), ys, yc, xs, xc, [2.0, 2.0], status=st)
    call status_ok("tiles: dmlcl_resample_input_box")
    call ok(all(xs == [2, 1]) .and. all(xc == [4, 5]), "tiles: the 2x halo box is x(3:6, 2:6)")
    call dmlcl_resample_input_box(int(shape(x), int64), int(shape(y), int64), int(ys, int64), &
         int(yc, int64), xs8, xc8, status=st)
    call ok(st == 0 .and. all(xs8 == xs) .and. all(xc8 == xc), &
         "tiles: integer(int64) boxes, scales from the shapes")
    allocate(yt(yc(1), yc(2)))
    call dmlcl_resample(x(xs(1)+1:xs(1)+xc(1), xs(2)+1:xs(2)+xc(2)), yt, [2.0, 2.0], status=st, &
         x_whole=shape(x), x_start=xs, y_whole=shape(y), y_start=ys)
    call status_ok("tiles: the tile of a 2x upsample")
    call ok(same_bits(yt, y(ys(1)+1:ys(1)+yc(1), ys(2)+1:ys(2)+yc(2)), size(yt)), &
         "tiles: the tile equals the whole run's box bit for bit")
    ! Scales absent: from the logical shapes (2 and 2), not the tiles'.
    yt = 0
    call dmlcl_resample(x(xs(1)+1:xs(1)+xc(1), xs(2)+1:xs(2)+xc(2)), yt, status=st, &
         x_whole=shape(x), x_start=xs, y_whole=shape(y), y_start=ys)
    call ok(st == 0 .and. same_bits(yt, y(ys(1)+1:ys(1)+yc(1), ys(2)+1:ys(2)+yc(2)), size(yt)), &
         "tiles: scales from the logical shapes")
    ! The whole x with an output tile.
    yt = 0
    call dmlcl_resample(x, yt, [2.0, 2.0], status=st, y_whole=shape(y), y_start=ys)
    call ok(st == 0 .and. same_bits(yt, y(ys(1)+1:ys(1)+yc(1), ys(2)+1:ys(2)+yc(2)), size(yt)), &
         "tiles: the whole x, an output tile")
    deallocate(yt)

    ! Antialiased 0.5x, a tile cut along the second dimension only.
    call random_number(xa)
    call dmlcl_resample(xa, ya, [0.5, 0.5], status=st, antialias=.true.)
    ys = [0, 2]
    yc = [6, 3]
    call dmlcl_resample_input_box(shape(xa), shape(ya), ys, yc, xs, xc, [0.5, 0.5], status=st, &
         antialias=.true.)
    allocate(yt(6, 3))
    call dmlcl_resample(xa(:, xs(2)+1:xs(2)+xc(2)), yt, [0.5, 0.5], status=st, antialias=.true., &
         x_whole=shape(xa), x_start=xs, y_whole=shape(ya), y_start=ys)
    call ok(st == 0 .and. xs(1) == 0 .and. xc(1) == 12 .and. &
         same_bits(yt, ya(:, 3:5), size(yt)), "tiles: antialiased 0.5x, bit for bit")
    deallocate(yt)

    ! The backward pass of linear 2x: dx(2:5, 4:6) from the box of dy it reads.
    call random_number(dy)
    call dmlcl_resample_grad(dy, dx, [2.0, 2.0], status=st)
    call dmlcl_resample_grad_input_box(shape(dy), shape(dx), [1, 3], [4, 3], xs, xc, &
         [2.0, 2.0], status=st)
    call status_ok("tiles: dmlcl_resample_grad_input_box")
    allocate(yt(4, 3))
    call dmlcl_resample_grad(dy(xs(1)+1:xs(1)+xc(1), xs(2)+1:xs(2)+xc(2)), yt, [2.0, 2.0], status=st, &
         dy_whole=shape(dy), dy_start=xs, dx_whole=shape(dx), dx_start=[1, 3])
    call ok(st == 0 .and. same_bits(yt, dx(2:5, 4:6), size(yt)), &
         "tiles: the backward pass, bit for bit")
    deallocate(yt)

    ! REVERSE_SUBSEQUENCES along dimension 2, tiles cut along dimensions 1 and 3.
    call random_number(xr)
    lengths = reshape([(mod(i * 5, 8), i = 1, 20)], shape(lengths))
    call dmlcl_reverse_subsequences(xr, lengths, yr, 2, st)
    s3 = [1, 0, 2]
    ! Part of dimension 2 asked for: the halo box spans all of it.
    call dmlcl_reverse_subsequences_input_box(shape(xr), 2, s3, [3, 4, 2], xs3, xc3, st)
    call ok(st == 0 .and. all(xs3 == s3) .and. all(xc3 == [3, 6, 2]), &
         "tiles: the reverse halo box spans the axis")
    call dmlcl_reverse_subsequences(xr(2:4, :, 3:4), lengths(2:4, :, 3:4), yrt, 2, st, &
         x_whole=shape(xr), x_start=s3, y_whole=shape(yr), y_start=s3)
    call ok(st == 0 .and. same_bits(yrt, yr(2:4, :, 3:4), size(yrt)), &
         "tiles: reverse along dimension 2, cut along 1 and 3")

    ! Errors: the library's rule and the module's own.
    allocate(yt(6, 7))
    call dmlcl_resample(x(4:6, 2:6), yt, [2.0, 2.0], status=st, x_whole=shape(x), x_start=[3, 1], &
         y_whole=shape(y), y_start=[5, 3])
    msg = dmlcl_error_message()
    ! The library numbers dimensions from 0, in the descriptor's (here Fortran's) order.
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "resample1: input_tile covers [3, 6) &
         &of dimension 0, but the output tile reads [2, 6)") > 0, &
         "tiles: a short input tile: " // msg)
    call dmlcl_resample(x(4:6, 2:6), yt, [2.0, 2.0], status=st, x_whole=shape(x))
    msg = dmlcl_error_message()
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "dmlcl_resample: x_whole and x_start &
         &come together") > 0, "tiles: x_whole without x_start: " // msg)
    call dmlcl_resample(x(4:6, 2:6), yt, [2.0, 2.0], status=st, x_whole=shape(x), x_start=[3, -1])
    msg = dmlcl_error_message()
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "x_start(2) is -1, outside 0 to") > 0, &
         "tiles: a negative start: " // msg)
    call dmlcl_resample_input_box(shape(x), shape(y), [5, 3], [10, 7], xs, xc, [2.0, 2.0], status=st)
    msg = dmlcl_error_message()
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "resample1:") > 0, &
         "tiles: a box outside y: " // msg)
    call dmlcl_resample_input_box(shape(x), shape(y), [5, 3, 0], [1, 1, 1], xs, xc, status=st)
    msg = dmlcl_error_message()
    call ok(st == DMLCL_INVALID_ARGUMENT .and. index(msg, "y_start needs one integer(int32) or &
         &integer(int64) per dimension (2), got 3") > 0, "tiles: a start of rank 3: " // msg)
  end subroutine tiles

  !> Tiles through the C API: dmlcl_tile_desc, dmlcl_operator_input_box and
  !> dmlcl_operator_create_tile on x(4, 3) described in dmlcl's order (sizes {3, 4}, packed),
  !> as in c_api().
  subroutine tiles_c_api()
    real(c_float), target :: x(4, 3), y(8, 6)
    real(c_float), allocatable, target :: xt(:,:), yt(:,:)
    integer(c_int32_t), target :: in_sizes(2), out_sizes(2), in_start(2), in_box(2), &
         out_start(2), out_box(2)
    real(c_float), target :: scales(2), io(2), oo(2)
    type(dmlcl_tensor_desc), target :: tin, tout
    type(dmlcl_resample1_desc), target :: rd
    type(dmlcl_tile_desc) :: tile_in, tile_out
    type(c_ptr) :: ctx, op
    call random_number(x)
    in_sizes = [3, 4]
    out_sizes = [6, 8]
    scales = 2
    io = 0.5
    oo = -0.5
    tin = dmlcl_tensor_desc(DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, c_loc(in_sizes), c_null_ptr, 0)
    tout = dmlcl_tensor_desc(DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, c_loc(out_sizes), c_null_ptr, 0)
    rd = dmlcl_resample1_desc(c_loc(tin), c_loc(tout), DMLCL_INTERPOLATION_MODE_LINEAR, 2, &
         c_loc(scales), c_loc(io), c_loc(oo))
    ! The whole run in the same dimension order (the array routines sum the corners in
    ! Fortran's order, which may differ in the last bit).
    st = dmlcl_context_create_for("cpu" // c_null_char, ctx)
    st = dmlcl_operator_create(ctx, dmlcl_operator_desc(DMLCL_OPERATOR_RESAMPLE1, c_loc(rd)), op)
    if (st == 0) st = dmlcl_operator_execute_host(op, [c_loc(x)], [c_loc(y)])
    call status_ok("C API: the whole run")
    call dmlcl_operator_release(op)
    ! Output columns 2-4 of y (dmlcl dimension 0, 0-based start 1), every row.
    out_start = [1, 0]
    out_box = [3, 8]
    st = dmlcl_operator_input_box(dmlcl_operator_desc(DMLCL_OPERATOR_RESAMPLE1, c_loc(rd)), &
         out_start, out_box, in_start, in_box)
    call status_ok("C API: dmlcl_operator_input_box")
    call ok(all(in_start == [0, 0]) .and. all(in_box == [3, 4]), "C API: the box of x")
    allocate(xt(in_box(2), in_box(1)), yt(out_box(2), out_box(1)))
    xt = x(in_start(2)+1:in_start(2)+in_box(2), in_start(1)+1:in_start(1)+in_box(1))
    tin%sizes = c_loc(in_box)
    tout%sizes = c_loc(out_box)
    tile_in = dmlcl_tile_desc(2, c_loc(in_sizes), c_loc(in_start))
    tile_out = dmlcl_tile_desc(2, c_loc(out_sizes), c_loc(out_start))
    st = dmlcl_operator_create_tile(ctx, dmlcl_operator_desc(DMLCL_OPERATOR_RESAMPLE1, &
         c_loc(rd)), tile_in, tile_out, op)
    call status_ok("C API: dmlcl_operator_create_tile")
    st = dmlcl_operator_execute_host(op, [c_loc(xt)], [c_loc(yt)])
    call ok(st == 0 .and. same_bits(yt, y(:, 2:4), size(yt)), &
         "C API: the tile equals the whole run's columns 2-4 bit for bit")
    call dmlcl_operator_release(op)
    ! An absent input_tile: x is the whole tensor (NULL).
    tin%sizes = c_loc(in_sizes)
    st = dmlcl_operator_create_tile(ctx, dmlcl_operator_desc(DMLCL_OPERATOR_RESAMPLE1, &
         c_loc(rd)), output_tile=tile_out, out=op)
    yt = 0
    if (st == 0) st = dmlcl_operator_execute_host(op, [c_loc(x)], [c_loc(yt)])
    call ok(st == 0 .and. same_bits(yt, y(:, 2:4), size(yt)), "C API: no input_tile")
    call dmlcl_operator_release(op)
    call dmlcl_context_release(ctx)
  end subroutine tiles_c_api

end program check_fortran
