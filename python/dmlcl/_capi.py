"""The C library through ctypes: loading, the descriptor structs, the function prototypes
and the exceptions that carry its status and message.

Which libdmlcl is loaded, first match wins:

1. ``$DMLCL_LIBRARY``: a path (or a name ``ctypes.CDLL`` accepts);
2. this package imported from the source folder it was configured in (after ``make``,
   before ``make install``): the library ``make`` built there, as ``_config.py`` records;
3. the installed library, whose full path ``make`` wrote into ``_config.py``;
4. ``libdmlcl.so`` in ``pkg-config --variable=libdir dmlcl`` (a package that
   ``pip install ./python`` installed from an unconfigured tree has no ``_config.py``);
5. ``ctypes.util.find_library("dmlcl")`` (the dynamic loader's search path).
"""
import ctypes
import ctypes.util
import os
import subprocess

from ctypes import (POINTER, Structure, c_char_p, c_float, c_int, c_uint32, c_uint64,
                    c_void_p)

__all__ = []  # internal module


def _pkg_config_libdir():
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "dmlcl"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.decode().strip() or None


def _candidates():
    env = os.environ.get("DMLCL_LIBRARY")
    if env:
        return [("$DMLCL_LIBRARY", env)]
    found = []
    try:
        from . import _config
    except ImportError:
        _config = None
    here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
    build_package = getattr(_config, "BUILD_PACKAGE", None)
    # Only the source folder's own package: an installed copy of _config.py (pip, make
    # install) names the same build tree, whose library may be newer than the installed one.
    if build_package and os.path.realpath(build_package) == here:
        found.append(("the build tree's library (_config.py)", _config.BUILD_LIBRARY))
    if _config is not None:
        found.append(("the installed library (_config.py)", _config.LIBRARY))
    libdir = _pkg_config_libdir()
    if libdir:
        found.append(("pkg-config --variable=libdir dmlcl",
                      os.path.join(libdir, "libdmlcl.so")))
    name = ctypes.util.find_library("dmlcl")
    if name:
        found.append(("ctypes.util.find_library('dmlcl')", name))
    return found


def _load():
    tried = []
    for where, path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s = %s: %s" % (where, path, e))
    raise ImportError(
        "dmlcl: cannot load the C library libdmlcl (%s); install dmlcl (make install) or "
        "set DMLCL_LIBRARY to the path of libdmlcl.so" %
        ("; ".join(tried) if tried else "not installed next to this package, not found by "
         "pkg-config or ctypes.util.find_library"))


lib, library_path = _load()

# ---- status and errors ----------------------------------------------------------------------

SUCCESS = 0
INVALID_ARGUMENT = 1
UNSUPPORTED = 2
OUT_OF_MEMORY = 3
OPENCL_ERROR = 4
BUILD_ERROR = 5
NO_DEVICE = 6
IO_ERROR = 7


class Error(Exception):
    """A dmlcl call failed.

    Attributes: ``status`` (the C library's ``dmlcl_status`` value, an int),
    ``status_name`` (e.g. ``"DMLCL_INVALID_ARGUMENT"``) and ``message`` (the library's
    message: the operator, the field and the rule, or the OpenCL call and its error).
    ``str(error)`` is ``"DMLCL_INVALID_ARGUMENT: <message>"``.
    """

    status = None

    def __init__(self, message, status=None):
        if status is not None:
            self.status = status
        self.message = message
        self.status_name = _status_name(self.status)
        super().__init__("%s: %s" % (self.status_name, message))


class InvalidArgumentError(Error, ValueError):
    """DMLCL_INVALID_ARGUMENT: a tensor, descriptor value or binding breaks a rule (also a
    ``ValueError``)."""
    status = INVALID_ARGUMENT


class DataTypeError(InvalidArgumentError, TypeError):
    """DMLCL_INVALID_ARGUMENT for a data type the operator does not take (also a
    ``TypeError`` and a ``ValueError``)."""


class UnsupportedError(Error):
    """DMLCL_UNSUPPORTED: valid, but not on this device (e.g. float64 without
    cl_khr_fp64)."""
    status = UNSUPPORTED


class OutOfMemoryError(Error, MemoryError):
    """DMLCL_OUT_OF_MEMORY: a host or device allocation failed (also a ``MemoryError``)."""
    status = OUT_OF_MEMORY


class OpenCLError(Error):
    """DMLCL_OPENCL_ERROR: an OpenCL call failed; the message names it."""
    status = OPENCL_ERROR


class BuildError(Error):
    """DMLCL_BUILD_ERROR: a kernel failed to compile; the message holds the build log's
    head."""
    status = BUILD_ERROR


class NoDeviceError(Error):
    """DMLCL_NO_DEVICE: no OpenCL device matches the selector."""
    status = NO_DEVICE


class FileError(Error):
    """DMLCL_IO_ERROR: a file (the on-disk program cache) could not be read or written."""
    status = IO_ERROR


_ERRORS = {INVALID_ARGUMENT: InvalidArgumentError, UNSUPPORTED: UnsupportedError,
           OUT_OF_MEMORY: OutOfMemoryError, OPENCL_ERROR: OpenCLError, BUILD_ERROR: BuildError,
           NO_DEVICE: NoDeviceError, IO_ERROR: FileError}


def _status_name(status):
    if status is None:
        return "DMLCL_ERROR"
    return lib.dmlcl_status_string(status).decode()


def error(status):
    """The exception for a failed call's status, with dmlcl_last_error()'s message (call it
    right after the failing call, on the same thread)."""
    message = lib.dmlcl_last_error().decode("utf-8", "replace")
    cls = _ERRORS.get(status, Error)
    if status == INVALID_ARGUMENT and "data_type must be" in message:
        cls = DataTypeError
    return cls(message, status)


def check(status):
    if status:
        raise error(status)


# ---- structs (include/dmlcl.h, field for field) ---------------------------------------------

class TensorDesc(Structure):
    _fields_ = [("data_type", c_int), ("dimension_count", c_uint32),
                ("sizes", POINTER(c_uint32)), ("strides", POINTER(c_uint32)),
                ("total_tensor_size_in_bytes", c_uint64)]


class ReverseSubsequencesDesc(Structure):
    _fields_ = [("input_tensor", POINTER(TensorDesc)),
                ("sequence_lengths_tensor", POINTER(TensorDesc)),
                ("output_tensor", POINTER(TensorDesc)), ("axis", c_uint32)]


class Resample1Desc(Structure):
    _fields_ = [("input_tensor", POINTER(TensorDesc)), ("output_tensor", POINTER(TensorDesc)),
                ("interpolation_mode", c_int), ("dimension_count", c_uint32),
                ("scales", POINTER(c_float)), ("input_pixel_offsets", POINTER(c_float)),
                ("output_pixel_offsets", POINTER(c_float))]


class Resample2Desc(Structure):
    _fields_ = [("input_tensor", POINTER(TensorDesc)), ("output_tensor", POINTER(TensorDesc)),
                ("interpolation_mode", c_int), ("rounding_direction", c_int),
                ("dimension_count", c_uint32), ("scales", POINTER(c_float)),
                ("input_pixel_offsets", POINTER(c_float)),
                ("output_pixel_offsets", POINTER(c_float))]


# dmlcl_resample_grad1_desc has RESAMPLE2's fields in RESAMPLE2's order.
class ResampleGrad1Desc(Structure):
    _fields_ = [("input_gradient_tensor", POINTER(TensorDesc)),
                ("output_gradient_tensor", POINTER(TensorDesc)),
                ("interpolation_mode", c_int), ("rounding_direction", c_int),
                ("dimension_count", c_uint32), ("scales", POINTER(c_float)),
                ("input_pixel_offsets", POINTER(c_float)),
                ("output_pixel_offsets", POINTER(c_float))]


class Resample3Desc(Structure):
    _fields_ = Resample2Desc._fields_ + [("antialiased", c_int)]


class TileDesc(Structure):
    _fields_ = [("dimension_count", c_uint32), ("logical_sizes", POINTER(c_uint32)),
                ("start", POINTER(c_uint32))]


class OperatorDesc(Structure):
    _fields_ = [("type", c_int), ("desc", c_void_p)]


class BufferBinding(Structure):
    _fields_ = [("buffer", c_void_p), ("offset", c_uint64), ("size_in_bytes", c_uint64)]


class CacheStats(Structure):
    _fields_ = [("memory_hits", c_uint64), ("disk_hits", c_uint64), ("compiles", c_uint64)]


# Enum values.
OPERATOR_REVERSE_SUBSEQUENCES = 1
OPERATOR_RESAMPLE1 = 2
OPERATOR_RESAMPLE = 3
OPERATOR_RESAMPLE2 = 4
OPERATOR_RESAMPLE_GRAD1 = 5
OPERATOR_RESAMPLE3 = 6
MODE_NEAREST_NEIGHBOR = 0
MODE_LINEAR = 1
DIRECTION_INCREASING = 0
DIRECTION_DECREASING = 1

# ---- prototypes -------------------------------------------------------------------------------


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_proto("dmlcl_status_string", c_char_p, c_int)
_proto("dmlcl_last_error", c_char_p)
_proto("dmlcl_version", c_char_p)
_proto("dmlcl_data_type_size", c_uint32, c_int)
_proto("dmlcl_tensor_size_in_bytes", c_uint64, POINTER(TensorDesc))
_proto("dmlcl_context_create", c_int, c_void_p, c_void_p, c_void_p, POINTER(c_void_p))
_proto("dmlcl_context_create_default", c_int, POINTER(c_void_p))
_proto("dmlcl_context_create_for", c_int, c_char_p, POINTER(c_void_p))
_proto("dmlcl_context_release", None, c_void_p)
_proto("dmlcl_context_cl_context", c_void_p, c_void_p)
_proto("dmlcl_context_device", c_void_p, c_void_p)
_proto("dmlcl_context_queue", c_void_p, c_void_p)
_proto("dmlcl_operator_create", c_int, c_void_p, POINTER(OperatorDesc), POINTER(c_void_p))
_proto("dmlcl_operator_create_tile", c_int, c_void_p, POINTER(OperatorDesc), POINTER(TileDesc),
       POINTER(TileDesc), POINTER(c_void_p))
_proto("dmlcl_operator_input_box", c_int, POINTER(OperatorDesc), POINTER(c_uint32),
       POINTER(c_uint32), POINTER(c_uint32), POINTER(c_uint32))
_proto("dmlcl_resample_output_sizes", c_int, c_uint32, POINTER(c_uint32), POINTER(c_float),
       POINTER(c_uint32))
_proto("dmlcl_operator_release", None, c_void_p)
_proto("dmlcl_operator_plan", c_char_p, c_void_p)
_proto("dmlcl_operator_enqueue", c_int, c_void_p, POINTER(BufferBinding), c_uint32,
       POINTER(BufferBinding), c_uint32, c_uint32, POINTER(c_void_p), POINTER(c_void_p))
# Host pointers as plain integers (c_void_p arrays): the hot path of every call.
_proto("dmlcl_operator_execute_host", c_int, c_void_p, POINTER(c_void_p), POINTER(c_void_p))
_proto("dmlcl_cache_get_stats", None, POINTER(CacheStats))
_proto("dmlcl_cache_directory", c_char_p)
_proto("dmlcl_cache_clear", c_int)
_proto("dmlcl_cache_disk_usage", c_int, POINTER(c_uint64), POINTER(c_uint64))

