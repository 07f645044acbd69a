!> dmlcl from Fortran: `use dmlcl`. What each operator computes (formulas, edge rules,
!> tolerances) is doc/operators.md in the dmlcl documentation; Fortran's side is
!> doc/fortran.md.
!>
!> Two layers:
!>
!> 1. Array routines on Fortran arrays of any rank (1 to 8) and layout, nothing copied:
!>
!>        call dmlcl_resample(x, y, scales, mode, status [, input_offsets, output_offsets,
!>                            rounding, antialias])
!>        call dmlcl_resample_grad(dy, dx, scales, mode, status [, ...])
!>        call dmlcl_reverse_subsequences(x, lengths, y, dim, status)
!>
!>    x and y are real(c_float), real(c_double) or integer(int8/int16/int32/int64) arrays
!>    (the resample family: real(c_float), real(c_double), integer(int8/int16), and
!>    integer(int32) with nearest only), whole arrays,
!>    assumed-shape dummies or sections such as x(2:9, ::2): the routines receive
!>    Fortran's own descriptor (a `type(*), dimension(..)` dummy), whose column-major
!>    layout becomes dmlcl strides. Dimension d of the Fortran array is dimension d of the
!>    dmlcl tensor: scales(1) applies to the first (fastest) dimension. The shape of y is
!>    the output size. Without `status`, a failure prints the message and stops the
!>    program (error stop). They run on a default context ($DMLCL_DEVICE, else the first
!>    GPU, else the first CPU), created on first use; each call creates and releases its
!>    operator (the compiled program stays cached in memory).
!>
!>    Tiles of a larger array (a field domain-decomposed over MPI ranks): the optional
!>    x_whole, x_start, y_whole, y_start (dmlcl_resample_grad: dy_*, dx_*) say that x and y
!>    are boxes of larger logical arrays: *_whole is the logical array's shape, *_start
!>    the box's 0-based start in it (the elements before it, as MPI_Type_create_subarray's
!>    starts and HDF5's hyperslab start), both in Fortran's dimension order like the
!>    arrays' own shapes, integer(int32) or integer(int64). The result is the whole run's
!>    box bit for bit (dmlcl_operator_create_tile). The halo queries say which box of x a
!>    box of y reads (dmlcl_operator_input_box on the logical shapes):
!>
!>        call dmlcl_resample_input_box(x_whole, y_whole, y_start, y_count, x_start,
!>                                      x_count, scales, mode, status [, ...])
!>        call dmlcl_resample_grad_input_box(dy_whole, dx_whole, dx_start, dx_count,
!>                                           dy_start, dy_count, scales, mode, status [, ...])
!>        call dmlcl_reverse_subsequences_input_box(whole, dim, y_start, y_count, x_start,
!>                                                  x_count, status)
!>
!> 2. The C API itself: the descriptors as bind(C) derived types, field for field as in
!>    dmlcl.h, and every function as an interface with the C name (strings come back as
!>    type(c_ptr); dmlcl_error_message(), dmlcl_status_name() and dmlcl_version_string()
!>    return Fortran strings). Build descriptors with c_loc() of target arrays; sizes and
!>    strides are integer(c_int32_t) (read as uint32_t), in dmlcl's dimension order.
!>    dmlcl_tile_desc (logical_sizes, start) and dmlcl_operator_input_box's boxes follow
!>    the tensor descriptors' dimension order, whichever it is (Fortran's with
!>    column-major strides, as the array routines build them, or reversed with packed
!>    strides); starts are 0-based. The library's messages number dimensions from 0.
!>
!> Link: gfortran prog.f90 $(pkg-config --cflags --libs dmlcl-fortran)
!> (libdmlclf holds this module's code and its C side; it links libdmlcl).
module dmlcl
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  ! ---- status (dmlcl_status) -------------------------------------------------------------
  integer(c_int), parameter, public :: DMLCL_SUCCESS = 0, DMLCL_INVALID_ARGUMENT = 1, &
       DMLCL_UNSUPPORTED = 2, DMLCL_OUT_OF_MEMORY = 3, DMLCL_OPENCL_ERROR = 4, &
       DMLCL_BUILD_ERROR = 5, DMLCL_NO_DEVICE = 6, DMLCL_IO_ERROR = 7

  ! ---- data types (dmlcl_tensor_data_type) -------------------------------------------------
  integer(c_int), parameter, public :: DMLCL_TENSOR_DATA_TYPE_UNKNOWN = 0, &
       DMLCL_TENSOR_DATA_TYPE_FLOAT32 = 1, DMLCL_TENSOR_DATA_TYPE_FLOAT16 = 2, &
       DMLCL_TENSOR_DATA_TYPE_UINT32 = 3, DMLCL_TENSOR_DATA_TYPE_UINT16 = 4, &
       DMLCL_TENSOR_DATA_TYPE_UINT8 = 5, DMLCL_TENSOR_DATA_TYPE_INT32 = 6, &
       DMLCL_TENSOR_DATA_TYPE_INT16 = 7, DMLCL_TENSOR_DATA_TYPE_INT8 = 8, &
       DMLCL_TENSOR_DATA_TYPE_FLOAT64 = 9, DMLCL_TENSOR_DATA_TYPE_UINT64 = 10, &
       DMLCL_TENSOR_DATA_TYPE_INT64 = 11
  integer(c_int), parameter, public :: DMLCL_TENSOR_DIMENSION_COUNT_MAX = 8

  ! ---- operators ---------------------------------------------------------------------------
  integer(c_int), parameter, public :: DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR = 0, &
       DMLCL_INTERPOLATION_MODE_LINEAR = 1
  integer(c_int), parameter, public :: DMLCL_AXIS_DIRECTION_INCREASING = 0, &
       DMLCL_AXIS_DIRECTION_DECREASING = 1
  integer(c_int), parameter, public :: DMLCL_OPERATOR_INVALID = 0, &
       DMLCL_OPERATOR_REVERSE_SUBSEQUENCES = 1, DMLCL_OPERATOR_RESAMPLE1 = 2, &
       DMLCL_OPERATOR_RESAMPLE = 3, DMLCL_OPERATOR_RESAMPLE2 = 4, &
       DMLCL_OPERATOR_RESAMPLE_GRAD1 = 5, DMLCL_OPERATOR_RESAMPLE3 = 6

  ! ---- descriptors (dmlcl.h's structs, field for field) ------------------------------------
  type, bind(C), public :: dmlcl_tensor_desc
     integer(c_int) :: data_type = DMLCL_TENSOR_DATA_TYPE_UNKNOWN
     integer(c_int32_t) :: dimension_count = 0
     type(c_ptr) :: sizes = c_null_ptr       ! integer(c_int32_t) sizes(dimension_count)
     type(c_ptr) :: strides = c_null_ptr     ! in elements; c_null_ptr = packed row-major
     integer(c_int64_t) :: total_tensor_size_in_bytes = 0
  end type dmlcl_tensor_desc

  type, bind(C), public :: dmlcl_reverse_subsequences_desc
     type(c_ptr) :: input_tensor = c_null_ptr ! c_loc(a target dmlcl_tensor_desc)
     type(c_ptr) :: sequence_lengths_tensor = c_null_ptr
     type(c_ptr) :: output_tensor = c_null_ptr
     integer(c_int32_t) :: axis = 0           ! 0-based, in dmlcl's dimension order
  end type dmlcl_reverse_subsequences_desc

  type, bind(C), public :: dmlcl_resample1_desc
     type(c_ptr) :: input_tensor = c_null_ptr
     type(c_ptr) :: output_tensor = c_null_ptr
     integer(c_int) :: interpolation_mode = DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
     integer(c_int32_t) :: dimension_count = 0
     type(c_ptr) :: scales = c_null_ptr      ! real(c_float) values(dimension_count)
     type(c_ptr) :: input_pixel_offsets = c_null_ptr
     type(c_ptr) :: output_pixel_offsets = c_null_ptr
  end type dmlcl_resample1_desc

  type, bind(C), public :: dmlcl_resample_desc
     type(c_ptr) :: input_tensor = c_null_ptr
     type(c_ptr) :: output_tensor = c_null_ptr
     integer(c_int) :: interpolation_mode = DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
     integer(c_int32_t) :: scale_count = 0
     type(c_ptr) :: scales = c_null_ptr
  end type dmlcl_resample_desc

  type, bind(C), public :: dmlcl_resample2_desc
     type(c_ptr) :: input_tensor = c_null_ptr
     type(c_ptr) :: output_tensor = c_null_ptr
     integer(c_int) :: interpolation_mode = DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
     integer(c_int) :: rounding_direction = DMLCL_AXIS_DIRECTION_INCREASING
     integer(c_int32_t) :: dimension_count = 0
     type(c_ptr) :: scales = c_null_ptr
     type(c_ptr) :: input_pixel_offsets = c_null_ptr
     type(c_ptr) :: output_pixel_offsets = c_null_ptr
  end type dmlcl_resample2_desc

  type, bind(C), public :: dmlcl_resample_grad1_desc
     type(c_ptr) :: input_gradient_tensor = c_null_ptr
     type(c_ptr) :: output_gradient_tensor = c_null_ptr
     integer(c_int) :: interpolation_mode = DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
     integer(c_int) :: rounding_direction = DMLCL_AXIS_DIRECTION_INCREASING
     integer(c_int32_t) :: dimension_count = 0
     type(c_ptr) :: scales = c_null_ptr
     type(c_ptr) :: input_pixel_offsets = c_null_ptr
     type(c_ptr) :: output_pixel_offsets = c_null_ptr
  end type dmlcl_resample_grad1_desc

  type, bind(C), public :: dmlcl_resample3_desc
     type(c_ptr) :: input_tensor = c_null_ptr
     type(c_ptr) :: output_tensor = c_null_ptr
     integer(c_int) :: interpolation_mode = DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
     integer(c_int) :: rounding_direction = DMLCL_AXIS_DIRECTION_INCREASING
     integer(c_int32_t) :: dimension_count = 0
     type(c_ptr) :: scales = c_null_ptr
     type(c_ptr) :: input_pixel_offsets = c_null_ptr
     type(c_ptr) :: output_pixel_offsets = c_null_ptr
     integer(c_int) :: antialiased = 0
  end type dmlcl_resample3_desc

  !> A tensor as a box of a larger, logical one (dmlcl_operator_create_tile).
  type, bind(C), public :: dmlcl_tile_desc
     integer(c_int32_t) :: dimension_count = 0
     type(c_ptr) :: logical_sizes = c_null_ptr ! integer(c_int32_t) sizes(dimension_count)
     type(c_ptr) :: start = c_null_ptr         ! integer(c_int32_t), 0-based, same order
  end type dmlcl_tile_desc

  type, bind(C), public :: dmlcl_operator_desc
     integer(c_int) :: type = DMLCL_OPERATOR_INVALID
     type(c_ptr) :: desc = c_null_ptr        ! c_loc(a target dmlcl_*_desc)
  end type dmlcl_operator_desc

  type, bind(C), public :: dmlcl_buffer_binding
     type(c_ptr) :: buffer = c_null_ptr      ! a cl_mem
     integer(c_int64_t) :: offset = 0
     integer(c_int64_t) :: size_in_bytes = 0
  end type dmlcl_buffer_binding

  type, bind(C), public :: dmlcl_cache_stats
     integer(c_int64_t) :: memory_hits = 0
     integer(c_int64_t) :: disk_hits = 0
     integer(c_int64_t) :: compiles = 0
  end type dmlcl_cache_stats

  ! ---- the C API ---------------------------------------------------------------------------
  public :: dmlcl_status_string, dmlcl_last_error, dmlcl_version, dmlcl_tensor_size_in_bytes, &
       dmlcl_data_type_size, dmlcl_context_create, dmlcl_context_create_default, &
       dmlcl_context_create_for, dmlcl_context_release, dmlcl_context_cl_context, &
       dmlcl_context_device, dmlcl_context_queue, dmlcl_operator_create, &
       dmlcl_operator_release, dmlcl_operator_plan, dmlcl_operator_enqueue, &
       dmlcl_operator_create_tile, dmlcl_operator_input_box, dmlcl_resample_output_sizes, &
       dmlcl_operator_execute_host, dmlcl_operator_prepare_host, dmlcl_cache_get_stats, &
       dmlcl_cache_directory, dmlcl_cache_clear, dmlcl_cache_disk_usage
  ! ---- Fortran conveniences ----------------------------------------------------------------
  public :: dmlcl_resample, dmlcl_resample_grad, dmlcl_reverse_subsequences, &
       dmlcl_resample_input_box, dmlcl_resample_grad_input_box, &
       dmlcl_reverse_subsequences_input_box, &
       dmlcl_error_message, dmlcl_status_name, dmlcl_version_string, dmlcl_string, &
       dmlcl_release_default_context

  interface
     type(c_ptr) function dmlcl_status_string(status) bind(C, name="dmlcl_status_string")
       import :: c_ptr, c_int
       integer(c_int), value :: status
     end function dmlcl_status_string

     type(c_ptr) function dmlcl_last_error() bind(C, name="dmlcl_last_error")
       import :: c_ptr
     end function dmlcl_last_error

     type(c_ptr) function dmlcl_version() bind(C, name="dmlcl_version")
       import :: c_ptr
     end function dmlcl_version

     integer(c_int64_t) function dmlcl_tensor_size_in_bytes(desc) &
          bind(C, name="dmlcl_tensor_size_in_bytes")
       import :: c_int64_t, dmlcl_tensor_desc
       type(dmlcl_tensor_desc), intent(in) :: desc
     end function dmlcl_tensor_size_in_bytes

     integer(c_int32_t) function dmlcl_data_type_size(type) bind(C, name="dmlcl_data_type_size")
       import :: c_int32_t, c_int
       integer(c_int), value :: type
     end function dmlcl_data_type_size

     integer(c_int) function dmlcl_context_create(ctx, device, queue, out) &
          bind(C, name="dmlcl_context_create")
       import :: c_int, c_ptr
       type(c_ptr), value :: ctx, device, queue   ! cl_context, cl_device_id, cl_command_queue
       type(c_ptr), intent(out) :: out            ! dmlcl_context *
     end function dmlcl_context_create

     integer(c_int) function dmlcl_context_create_default(out) &
          bind(C, name="dmlcl_context_create_default")
       import :: c_int, c_ptr
       type(c_ptr), intent(out) :: out
     end function dmlcl_context_create_default

     !> selector: a NUL-terminated string, e.g. "cpu"//c_null_char
     integer(c_int) function dmlcl_context_create_for(selector, out) &
          bind(C, name="dmlcl_context_create_for")
       import :: c_int, c_ptr, c_char
       character(kind=c_char), dimension(*), intent(in) :: selector
       type(c_ptr), intent(out) :: out
     end function dmlcl_context_create_for

     subroutine dmlcl_context_release(context) bind(C, name="dmlcl_context_release")
       import :: c_ptr
       type(c_ptr), value :: context
     end subroutine dmlcl_context_release

     type(c_ptr) function dmlcl_context_cl_context(context) &
          bind(C, name="dmlcl_context_cl_context")
       import :: c_ptr
       type(c_ptr), value :: context
     end function dmlcl_context_cl_context

     type(c_ptr) function dmlcl_context_device(context) bind(C, name="dmlcl_context_device")
       import :: c_ptr
       type(c_ptr), value :: context
     end function dmlcl_context_device

     type(c_ptr) function dmlcl_context_queue(context) bind(C, name="dmlcl_context_queue")
       import :: c_ptr
       type(c_ptr), value :: context
     end function dmlcl_context_queue

     integer(c_int) function dmlcl_operator_create(context, desc, out) &
          bind(C, name="dmlcl_operator_create")
       import :: c_int, c_ptr, dmlcl_operator_desc
       type(c_ptr), value :: context
       type(dmlcl_operator_desc), intent(in) :: desc
       type(c_ptr), intent(out) :: out             ! dmlcl_operator *
     end function dmlcl_operator_create

     !> input_tile, output_tile absent: that tensor is the whole logical one (NULL).
     integer(c_int) function dmlcl_operator_create_tile(context, desc, input_tile, &
          output_tile, out) bind(C, name="dmlcl_operator_create_tile")
       import :: c_int, c_ptr, dmlcl_operator_desc, dmlcl_tile_desc
       type(c_ptr), value :: context
       type(dmlcl_operator_desc), intent(in) :: desc
       type(dmlcl_tile_desc), intent(in), optional :: input_tile, output_tile
       type(c_ptr), intent(out) :: out
     end function dmlcl_operator_create_tile

     !> The halo query on a descriptor of the whole tensors: one value per dimension,
     !> dmlcl's order, starts 0-based.
     integer(c_int) function dmlcl_operator_input_box(desc, output_start, output_sizes, &
          input_start, input_sizes) bind(C, name="dmlcl_operator_input_box")
       import :: c_int, c_int32_t, dmlcl_operator_desc
       type(dmlcl_operator_desc), intent(in) :: desc
       integer(c_int32_t), intent(in) :: output_start(*), output_sizes(*)
       integer(c_int32_t), intent(out) :: input_start(*), input_sizes(*)
     end function dmlcl_operator_input_box

     !> The output sizes that scales give, n x scale rounded down in float32 (dmlcl's
     !> order, as the descriptors'; dmlcl_resample sizes y from its shape instead).
     integer(c_int) function dmlcl_resample_output_sizes(dimension_count, input_sizes, &
          scales, output_sizes) bind(C, name="dmlcl_resample_output_sizes")
       import :: c_int, c_int32_t, c_float
       integer(c_int32_t), value :: dimension_count
       integer(c_int32_t), intent(in) :: input_sizes(*)
       real(c_float), intent(in) :: scales(*)
       integer(c_int32_t), intent(out) :: output_sizes(*)
     end function dmlcl_resample_output_sizes

     subroutine dmlcl_operator_release(op) bind(C, name="dmlcl_operator_release")
       import :: c_ptr
       type(c_ptr), value :: op
     end subroutine dmlcl_operator_release

     type(c_ptr) function dmlcl_operator_plan(op) bind(C, name="dmlcl_operator_plan")
       import :: c_ptr
       type(c_ptr), value :: op
     end function dmlcl_operator_plan

     !> event_wait_list (cl_event values) and event (receives a cl_event) may be absent.
     integer(c_int) function dmlcl_operator_enqueue(op, inputs, input_count, outputs, &
          output_count, num_events_in_wait_list, event_wait_list, event) &
          bind(C, name="dmlcl_operator_enqueue")
       import :: c_int, c_int32_t, c_ptr, dmlcl_buffer_binding
       type(c_ptr), value :: op
       type(dmlcl_buffer_binding), intent(in) :: inputs(*)
       integer(c_int32_t), value :: input_count
       type(dmlcl_buffer_binding), intent(in) :: outputs(*)
       integer(c_int32_t), value :: output_count, num_events_in_wait_list
       type(c_ptr), intent(in), optional :: event_wait_list(*)
       type(c_ptr), intent(out), optional :: event
     end function dmlcl_operator_enqueue

     !> inputs, outputs: c_loc() of the host arrays, laid out as the descriptors say.
     integer(c_int) function dmlcl_operator_execute_host(op, inputs, outputs) &
          bind(C, name="dmlcl_operator_execute_host")
       import :: c_int, c_ptr
       type(c_ptr), value :: op
       type(c_ptr), intent(in) :: inputs(*), outputs(*)
     end function dmlcl_operator_execute_host

     !> Optional, before dmlcl_operator_execute_host: its pinned buffers made ahead (GPUs).
     integer(c_int) function dmlcl_operator_prepare_host(op) &
          bind(C, name="dmlcl_operator_prepare_host")
       import :: c_int, c_ptr
       type(c_ptr), value :: op
     end function dmlcl_operator_prepare_host

     subroutine dmlcl_cache_get_stats(stats) bind(C, name="dmlcl_cache_get_stats")
       import :: dmlcl_cache_stats
       type(dmlcl_cache_stats), intent(out) :: stats
     end subroutine dmlcl_cache_get_stats

     type(c_ptr) function dmlcl_cache_directory() bind(C, name="dmlcl_cache_directory")
       import :: c_ptr
     end function dmlcl_cache_directory

     integer(c_int) function dmlcl_cache_clear() bind(C, name="dmlcl_cache_clear")
       import :: c_int
     end function dmlcl_cache_clear

     integer(c_int) function dmlcl_cache_disk_usage(entries, bytes) &
          bind(C, name="dmlcl_cache_disk_usage")
       import :: c_int, c_int64_t
       integer(c_int64_t), intent(out), optional :: entries, bytes
     end function dmlcl_cache_disk_usage

     ! ---- the C side of the array routines (fortran/dmlclf.c) -----------------------------
     type(c_ptr) function c_last_error() bind(C, name="dmlclf_last_error")
       import :: c_ptr
     end function c_last_error

     subroutine dmlcl_release_default_context() bind(C, name="dmlclf_release_default_context")
     end subroutine dmlcl_release_default_context

     subroutine c_resample(x, y, scales, mode, input_offsets, output_offsets, rounding, &
          antialias, grad, x_whole, x_start, y_whole, y_start, status) &
          bind(C, name="dmlclf_resample")
       import :: c_int, c_float
       type(*), dimension(..), intent(in) :: x
       type(*), dimension(..), intent(inout) :: y
       real(c_float), intent(in), optional :: scales(:)
       integer(c_int), value :: mode
       real(c_float), intent(in), optional :: input_offsets(:), output_offsets(:)
       integer(c_int), intent(in), optional :: rounding
       integer(c_int), value :: antialias, grad
       type(*), dimension(..), intent(in), optional :: x_whole, x_start, y_whole, y_start
       integer(c_int), intent(out) :: status
     end subroutine c_resample

     subroutine c_reverse_subsequences(x, lengths, y, dim, x_whole, x_start, y_whole, &
          y_start, status) bind(C, name="dmlclf_reverse_subsequences")
       import :: c_int
       type(*), dimension(..), intent(in) :: x, lengths
       type(*), dimension(..), intent(inout) :: y
       integer(c_int), value :: dim
       type(*), dimension(..), intent(in), optional :: x_whole, x_start, y_whole, y_start
       integer(c_int), intent(out) :: status
     end subroutine c_reverse_subsequences

     subroutine c_resample_input_box(x_whole, y_whole, y_start, y_count, x_start, x_count, &
          scales, mode, input_offsets, output_offsets, rounding, antialias, grad, status) &
          bind(C, name="dmlclf_resample_input_box")
       import :: c_int, c_float
       type(*), dimension(..), intent(in) :: x_whole, y_whole, y_start, y_count
       type(*), dimension(..), intent(inout) :: x_start, x_count
       real(c_float), intent(in), optional :: scales(:)
       integer(c_int), value :: mode
       real(c_float), intent(in), optional :: input_offsets(:), output_offsets(:)
       integer(c_int), intent(in), optional :: rounding
       integer(c_int), value :: antialias, grad
       integer(c_int), intent(out) :: status
     end subroutine c_resample_input_box

     subroutine c_reverse_subsequences_input_box(whole, dim, y_start, y_count, x_start, &
          x_count, status) bind(C, name="dmlclf_reverse_subsequences_input_box")
       import :: c_int
       type(*), dimension(..), intent(in) :: whole, y_start, y_count
       integer(c_int), value :: dim
       type(*), dimension(..), intent(inout) :: x_start, x_count
       integer(c_int), intent(out) :: status
     end subroutine c_reverse_subsequences_input_box
  end interface

contains

  !> A NUL-terminated C string (e.g. dmlcl_operator_plan(op)) as a Fortran string.
  function dmlcl_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n
    interface
       integer(c_size_t) function strlen(p) bind(C, name="strlen")
         import :: c_size_t, c_ptr
         type(c_ptr), value :: p
       end function strlen
    end interface
    if (.not. c_associated(p)) then
       s = ""
       return
    end if
    n = int(strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    s = transfer(chars, s)
  end function dmlcl_string

  !> The message of the last failing dmlcl call on this thread (the array routines' own
  !> checks included), e.g. "resample1: scales[1] must be finite and > 0, got -2".
  function dmlcl_error_message() result(s)
    character(len=:), allocatable :: s
    s = dmlcl_string(c_last_error())
  end function dmlcl_error_message

  !> The status's name, e.g. "DMLCL_INVALID_ARGUMENT".
  function dmlcl_status_name(status) result(s)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: s
    s = dmlcl_string(dmlcl_status_string(status))
  end function dmlcl_status_name

  !> The library's version, "MAJOR.MINOR.PATCH".
  function dmlcl_version_string() result(s)
    character(len=:), allocatable :: s
    s = dmlcl_string(dmlcl_version())
  end function dmlcl_version_string

  subroutine finish(routine, st, status)
    character(len=*), intent(in) :: routine
    integer(c_int), intent(in) :: st
    integer(c_int), intent(out), optional :: status
    if (present(status)) then
       status = st
    else if (st /= DMLCL_SUCCESS) then
       write (error_unit, '(a)') routine // ": " // dmlcl_status_name(st) // ": " // &
            dmlcl_error_message()
       ! gfortran buffers error_unit when it is not a terminal, and ERROR STOP writes its
       ! own lines and the backtrace past that buffer: flushed, the message comes first.
       flush (error_unit)
       error stop 1
    end if
  end subroutine finish

  !> Resamples x into y (RESAMPLE1; RESAMPLE2 with rounding; RESAMPLE3 with antialias):
  !> every dimension by its scale and pixel offsets, the coordinate in float32; nearest
  !> takes the nearest element, ties up (rounding: DMLCL_AXIS_DIRECTION_INCREASING rounds
  !> up, _DECREASING down), linear the weighted corners, both clamped to the edges; the
  !> formulas: doc/operators.md#resample1-and-resample, #resample2 and #resample3.
  !>   x, y:    same type (real(c_float), real(c_double), integer(int8/int16); integer(int32)
  !>            nearest only) and rank (1-8);
  !>            y's shape is the output size; any layout, sections included, no copies
  !>   scales:  one per dimension, > 0; absent: size(y, d) / size(x, d) in float32
  !>   mode:    DMLCL_INTERPOLATION_MODE_LINEAR (default) or _NEAREST_NEIGHBOR
  !>   status:  DMLCL_SUCCESS or the failure (message: dmlcl_error_message());
  !>            absent: a failure stops the program with the message
  !>   input_offsets, output_offsets: one per dimension, default 0.5 and -0.5 (pixel
  !>            centres)
  !>   antialias: .true.: linear downsampling through the widened, normalized triangle
  !>            filter (PyTorch's antialias=True)
  !>   x_whole, x_start, y_whole, y_start: x and y as boxes of larger logical arrays
  !>            (see the module's header); scales absent: of the logical shapes
  subroutine dmlcl_resample(x, y, scales, mode, status, input_offsets, output_offsets, &
       rounding, antialias, x_whole, x_start, y_whole, y_start)
    type(*), dimension(..), intent(in) :: x
    type(*), dimension(..), intent(inout) :: y
    real(c_float), intent(in), optional :: scales(:)
    integer(c_int), intent(in), optional :: mode
    integer(c_int), intent(out), optional :: status
    real(c_float), intent(in), optional :: input_offsets(:), output_offsets(:)
    integer(c_int), intent(in), optional :: rounding
    logical, intent(in), optional :: antialias
    type(*), dimension(..), intent(in), optional :: x_whole, x_start, y_whole, y_start
    integer(c_int) :: st
    call c_resample(x, y, scales, mode_or_linear(mode), input_offsets, output_offsets, &
         rounding, flag(antialias), 0_c_int, x_whole, x_start, y_whole, y_start, st)
    call finish("dmlcl_resample", st, status)
  end subroutine dmlcl_resample

  !> The halo query of dmlcl_resample: the box of the logical x (shape x_whole) that the
  !> box of the logical y (shape y_whole) starting at y_start, y_count elements long,
  !> reads: x_start, x_count (0-based starts, Fortran's dimension order; all of them
  !> integer(int32) or integer(int64) arrays, one value per dimension). The smallest box
  !> holding every element read; a y_count of 0 reads nothing (x_count all 0). Other
  !> arguments as dmlcl_resample's, scales absent: y_whole / x_whole. No device is used.
  subroutine dmlcl_resample_input_box(x_whole, y_whole, y_start, y_count, x_start, x_count, &
       scales, mode, status, input_offsets, output_offsets, rounding, antialias)
    type(*), dimension(..), intent(in) :: x_whole, y_whole, y_start, y_count
    type(*), dimension(..), intent(inout) :: x_start, x_count
    real(c_float), intent(in), optional :: scales(:)
    integer(c_int), intent(in), optional :: mode
    integer(c_int), intent(out), optional :: status
    real(c_float), intent(in), optional :: input_offsets(:), output_offsets(:)
    integer(c_int), intent(in), optional :: rounding
    logical, intent(in), optional :: antialias
    integer(c_int) :: st
    call c_resample_input_box(x_whole, y_whole, y_start, y_count, x_start, x_count, scales, &
         mode_or_linear(mode), input_offsets, output_offsets, rounding, flag(antialias), &
         0_c_int, st)
    call finish("dmlcl_resample_input_box", st, status)
  end subroutine dmlcl_resample_input_box

  integer(c_int) function mode_or_linear(mode)
    integer(c_int), intent(in), optional :: mode
    mode_or_linear = DMLCL_INTERPOLATION_MODE_LINEAR
    if (present(mode)) mode_or_linear = mode
  end function mode_or_linear

  integer(c_int) function flag(value)
    logical, intent(in), optional :: value
    flag = 0
    if (present(value)) then
       if (value) flag = 1
    end if
  end function flag

  !> The backward pass of dmlcl_resample (RESAMPLE_GRAD1): dy is shaped like the forward
  !> output, dx like the forward input (its shape gives the size); the other arguments are
  !> the forward pass's. scales absent: size(dy, d) / size(dx, d) in float32. Nearest
  !> needs rounding (RESAMPLE_GRAD1 has no round half up: absent is INVALID_ARGUMENT).
  !> dy_whole, dy_start, dx_whole, dx_start: dy and dx as boxes of larger logical arrays.
  subroutine dmlcl_resample_grad(dy, dx, scales, mode, status, input_offsets, output_offsets, &
       rounding, dy_whole, dy_start, dx_whole, dx_start)
    type(*), dimension(..), intent(in) :: dy
    type(*), dimension(..), intent(inout) :: dx
    real(c_float), intent(in), optional :: scales(:)
    integer(c_int), intent(in), optional :: mode
    integer(c_int), intent(out), optional :: status
    real(c_float), intent(in), optional :: input_offsets(:), output_offsets(:)
    integer(c_int), intent(in), optional :: rounding
    type(*), dimension(..), intent(in), optional :: dy_whole, dy_start, dx_whole, dx_start
    integer(c_int) :: st
    call c_resample(dy, dx, scales, mode_or_linear(mode), input_offsets, output_offsets, &
         rounding, 0_c_int, 1_c_int, dy_whole, dy_start, dx_whole, dx_start, st)
    call finish("dmlcl_resample_grad", st, status)
  end subroutine dmlcl_resample_grad

  !> The halo query of dmlcl_resample_grad: the box of dy (the forward outputs) that the
  !> box of dx (dx_start, dx_count) reads; as dmlcl_resample_input_box.
  subroutine dmlcl_resample_grad_input_box(dy_whole, dx_whole, dx_start, dx_count, &
       dy_start, dy_count, scales, mode, status, input_offsets, output_offsets, rounding)
    type(*), dimension(..), intent(in) :: dy_whole, dx_whole, dx_start, dx_count
    type(*), dimension(..), intent(inout) :: dy_start, dy_count
    real(c_float), intent(in), optional :: scales(:)
    integer(c_int), intent(in), optional :: mode
    integer(c_int), intent(out), optional :: status
    real(c_float), intent(in), optional :: input_offsets(:), output_offsets(:)
    integer(c_int), intent(in), optional :: rounding
    integer(c_int) :: st
    call c_resample_input_box(dy_whole, dx_whole, dx_start, dx_count, dy_start, dy_count, &
         scales, mode_or_linear(mode), input_offsets, output_offsets, rounding, 0_c_int, &
         1_c_int, st)
    call finish("dmlcl_resample_grad_input_box", st, status)
  end subroutine dmlcl_resample_grad_input_box

  !> REVERSE_SUBSEQUENCES along dimension dim (1-based, Fortran's): the first lengths(j)
  !> elements (at most size(x, dim)) of every line are reversed into y, the rest copied
  !> (the formula: doc/operators.md). x, y: same type (any integer or real kind above) and shape; lengths:
  !> integer(int32) or integer(int64), >= 0, shaped like x with extent 1 along dim.
  !> x_whole, x_start, y_whole, y_start: boxes of larger logical arrays, cut along any
  !> dimension but dim (y spans the whole of dim); lengths are then x's box with 1 on dim.
  subroutine dmlcl_reverse_subsequences(x, lengths, y, dim, status, x_whole, x_start, &
       y_whole, y_start)
    type(*), dimension(..), intent(in) :: x, lengths
    type(*), dimension(..), intent(inout) :: y
    integer, intent(in) :: dim
    integer(c_int), intent(out), optional :: status
    type(*), dimension(..), intent(in), optional :: x_whole, x_start, y_whole, y_start
    integer(c_int) :: st
    call c_reverse_subsequences(x, lengths, y, int(dim, c_int), x_whole, x_start, y_whole, &
         y_start, st)
    call finish("dmlcl_reverse_subsequences", st, status)
  end subroutine dmlcl_reverse_subsequences

  !> The halo query of dmlcl_reverse_subsequences on an array of shape whole: the box of
  !> x that the box of y (y_start, y_count) reads, the same box widened to all of dim.
  subroutine dmlcl_reverse_subsequences_input_box(whole, dim, y_start, y_count, x_start, &
       x_count, status)
    type(*), dimension(..), intent(in) :: whole, y_start, y_count
    integer, intent(in) :: dim
    type(*), dimension(..), intent(inout) :: x_start, x_count
    integer(c_int), intent(out), optional :: status
    integer(c_int) :: st
    call c_reverse_subsequences_input_box(whole, int(dim, c_int), y_start, y_count, x_start, &
         x_count, st)
    call finish("dmlcl_reverse_subsequences_input_box", st, status)
  end subroutine dmlcl_reverse_subsequences_input_box

end module dmlcl
