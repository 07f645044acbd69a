"""dmlcl's MPI layer (libdmlcl_mpi, include/dmlcl_mpi.h) on mpi4py communicators: fields
distributed over the ranks of an MPI job, kept on each rank's device between steps, with
only halo faces moved (doc/mpi.md, "From Python").

- ``Layout(comm, dtype, shape, grid)``: a tensor cut over a grid of ranks (collective);
  ``layout.box(rank=None)`` is a rank's owned box, ``(start, size)``.
- ``Operator(op, input_layout, output_layout, overlap=False, lengths=None)``: a
  ``dmlcl.Resample``, ``dmlcl.ResampleGrad`` or ``dmlcl.ReverseSubsequences`` (``lengths``:
  the Layout of its sequence lengths) on the whole (logical) tensors, each rank computing
  its output box (collective); ``operator.input_box(rank=None)`` is the box a rank's
  outputs read.
- ``Field(layout, reader=None)``: this rank's part, owned box plus the reader's ghosts, in
  one device buffer (collective); ``write(owned)``, ``read()`` copy the owned box from or to
  a NumPy array; ``halo_update()``; ``halo_stats``; ``cl_buffer`` (PyOpenCL).
- ``operator.run(x, y, lengths=None)``: the halo update and the tile operators on every
  rank (collective); ``lengths``: REVERSE_SUBSEQUENCES' Field of sequence lengths.

Collective calls are made by every rank of the communicator, in the same order; their
errors are agreed, so every rank raises the same ``dmlcl.Error`` with the message
``"function: rank R: rule"``. ``close()`` (or ``with``) releases an object; a layout's
release is collective, so close layouts on every rank rather than leaving them to garbage
collection. The C library is ``$DMLCL_MPI_LIBRARY`` if set, else ``libdmlcl_mpi`` next to
the ``libdmlcl`` the package loaded (or in its build tree), else the loader's search path.
Importing this module imports ``mpi4py.MPI`` (which initialises MPI).
"""
import ctypes
import ctypes.util
import os
import re
from ctypes import POINTER, Structure, byref, c_int, c_uint32, c_uint64, c_void_p

import numpy as np
from mpi4py import MPI

from . import _capi as C
from . import _core

__all__ = ["Layout", "Operator", "Field", "library_path"]

_MAX = 8
OVERLAP = 1
HALO_CURRENT = 2


class _Box(Structure):
    _fields_ = [("dimension_count", c_uint32), ("start", c_uint32 * _MAX),
                ("sizes", c_uint32 * _MAX)]

    def pair(self):
        n = self.dimension_count
        return tuple(self.start[:n]), tuple(self.sizes[:n])


class _HaloStats(Structure):
    _fields_ = [("updates", c_uint64), ("bytes_sent", c_uint64), ("bytes_received", c_uint64),
                ("send_ranks", c_uint32), ("receive_ranks", c_uint32)]


# MPI_Comm is a pointer in Open MPI and an int in MPICH: the C type of mpi4py's handle.
_Comm = c_void_p if MPI._sizeof(MPI.Comm) == ctypes.sizeof(c_void_p) else c_int


def _candidates():
    env = os.environ.get("DMLCL_MPI_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(C.library_path)
    found = [os.path.join(here, "libdmlcl_mpi.so"),
             # the build tree: lib/.libs/libdmlcl.so beside mpi/.libs/libdmlcl_mpi.so
             os.path.join(here, os.pardir, os.pardir, "mpi", ".libs", "libdmlcl_mpi.so")]
    name = ctypes.util.find_library("dmlcl_mpi")
    return found + ([name] if name else [])


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), os.path.normpath(path)
        except OSError as e:
            tried.append("%s: %s" % (path, e))
    raise ImportError("dmlcl.mpi: cannot load libdmlcl_mpi (%s); build dmlcl where configure "
                      "finds MPI, or set DMLCL_MPI_LIBRARY" % "; ".join(tried))


_lib, library_path = _load()


def _proto(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype, f.argtypes = restype, list(argtypes)


_proto("dmlcl_mpi_last_error", ctypes.c_char_p)
_proto("dmlcl_mpi_layout_create", c_int, _Comm, c_int, c_uint32, POINTER(c_uint32),
       POINTER(c_uint32), POINTER(c_void_p))
_proto("dmlcl_mpi_layout_release", None, c_void_p)
_proto("dmlcl_mpi_layout_box", None, c_void_p, c_int, POINTER(_Box))
_proto("dmlcl_mpi_operator_create", c_int, c_void_p, POINTER(C.OperatorDesc), c_void_p,
       c_void_p, c_uint32, POINTER(c_void_p))
_proto("dmlcl_mpi_operator_release", None, c_void_p)
_proto("dmlcl_mpi_operator_input_box", None, c_void_p, c_int, POINTER(_Box))
_proto("dmlcl_mpi_field_create", c_int, c_void_p, c_void_p, c_void_p,
       POINTER(C.BufferBinding), POINTER(c_void_p))
_proto("dmlcl_mpi_field_release", None, c_void_p)
_proto("dmlcl_mpi_field_buffer", c_void_p, c_void_p, POINTER(_Box), POINTER(_Box),
       POINTER(c_uint64))
_proto("dmlcl_mpi_field_write", c_int, c_void_p, c_void_p)
_proto("dmlcl_mpi_field_read", c_int, c_void_p, c_void_p)
_proto("dmlcl_mpi_halo_begin", c_int, c_void_p)
_proto("dmlcl_mpi_halo_end", c_int, c_void_p)
_proto("dmlcl_mpi_halo_update", c_int, c_void_p)
_proto("dmlcl_mpi_field_halo_stats", None, c_void_p, POINTER(_HaloStats))
_proto("dmlcl_mpi_operator_run_inputs", c_int, c_void_p, POINTER(c_void_p), c_uint32, c_void_p,
       c_uint32)


def _check(status, terms=()):
    """A failed call's exception, with the layer's message (the same on every rank for a
    collective call), its C names put in the Python call's terms (``terms``: pairs of
    texts, replaced in order)."""
    if status:
        message = _lib.dmlcl_mpi_last_error().decode("utf-8", "replace")
        cls = C._ERRORS.get(status, C.Error)
        if status == C.INVALID_ARGUMENT and "data_type must be" in message:
            cls = C.DataTypeError  # as dmlcl's own calls raise it
        if terms:
            for c_text, py_text in terms:
                message = message.replace(c_text, py_text)
            message = re.sub(r"\btype (-?\d+)\b", _type_name, message)
            message = re.sub(r"\b(U?INT|FLOAT)(8|16|32|64)\b", lambda m: m.group(0).lower(),
                             message)
        raise cls(message, status)


_DTYPE_NAMES = {code: str(dt) for dt, code in _core.DTYPES.items()}


def _type_name(m):
    return "dtype " + _DTYPE_NAMES.get(int(m.group(1)), m.group(1))


# The descriptor's and the run's names, which the layer's messages quote, in the terms of
# Operator's arguments (the descriptor is made from op and the layouts) and NumPy's.
_CREATE_TERMS = (("desc: ", "op: "),
                 ("sequence_lengths_tensor", "lengths"), ("input_tensor", "input"),
                 ("output_tensor", "output"), ("data_type", "dtype"), (" sizes[", " shape["))
_RUN_TERMS = (("input_count is 1: the operator reads 2 input fields (input, sequence_lengths: "
               "dmlcl_mpi_operator_run_inputs)", "lengths is None: the operator "
               "(REVERSE_SUBSEQUENCES) reads x and its sequence lengths: pass lengths=, a "
               "Field of the operator's lengths layout"),
              ("input_count is 2: the operator reads 1 input field",
               "lengths is given: the operator (the RESAMPLE family) reads x only"),
              ("the sequence lengths field's layout", "lengths' layout"),
              ("the sequence lengths field holds", "lengths holds"),
              ("the descriptor's sequence_lengths_tensor", "the operator's lengths layout"),
              ("the input and output fields are", "x and y are"), ("the input field's", "x's"),
              ("the input field", "x"), ("the output field", "y"), (" sizes[", " shape["))


def _fail(name, text):
    return C.InvalidArgumentError("%s: %s" % (name, text), C.INVALID_ARGUMENT)


class _Handle(_core._Closes):
    """A C object released once, by close(), ``with`` or garbage collection."""
    _release = None
    _handle = None

    @property
    def handle(self):
        if self._handle is None:
            raise _fail(type(self).__name__, "used after close()")
        return self._handle

    def close(self):
        h, self._handle = self._handle, None
        if h is not None and _lib is not None:
            getattr(_lib, self._release)(h)


class Layout(_Handle):
    """A tensor of ``dtype`` and ``shape`` cut over a grid of ranks of ``comm`` (an mpi4py
    communicator): dimension d in ``grid[d]`` parts (their product is the communicator's
    size), the first ``shape[d] % grid[d]`` parts one element longer, parts past the
    elements empty; ranks numbered row-major over the grid. Collective; every rank passes
    the same dtype, shape and grid (ranks that disagree are named in the error).
    ``grid=None`` cuts the first dimension over every rank (slabs)."""
    _release = "dmlcl_mpi_layout_release"

    def __init__(self, comm, dtype, shape, grid=None):
        self.comm = comm
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(n) for n in shape)
        if grid is None:
            grid = (comm.Get_size(),) + (1,) * (len(self.shape) - 1)
        self.grid = tuple(int(g) for g in grid)
        if len(self.grid) != len(self.shape):
            raise _fail("dmlcl_mpi_layout_create", "grid has %d values, shape has %d"
                        % (len(self.grid), len(self.shape)))
        code = _core._dtype_code("dmlcl_mpi_layout_create", "dtype", self.dtype)
        r = len(self.shape)
        h = c_void_p()
        _check(_lib.dmlcl_mpi_layout_create(
            _Comm(MPI._handleof(comm)), code, r, (c_uint32 * r)(*self.shape),
            (c_uint32 * r)(*self.grid), byref(h)))
        self._handle = h.value

    def box(self, rank=None):
        """The box ``rank`` owns (None: this rank's), as ``(start, size)`` tuples; a size
        of 0 is an empty box."""
        b = _Box()
        _lib.dmlcl_mpi_layout_box(self.handle, -1 if rank is None else int(rank), byref(b))
        return b.pair()


class Operator(_Handle):
    """``op`` (a ``dmlcl.Resample``, ``dmlcl.ResampleGrad`` or ``dmlcl.ReverseSubsequences``)
    on the whole tensors that ``input`` and ``output`` lay out (same dtype and
    communicator): each rank computes its output box from the input box the halo query
    gives for it. ``lengths``: for a ``dmlcl.ReverseSubsequences`` (only), the Layout of its
    sequence lengths: uint32 or uint64, the input's shape with 1 on the axis, cut by the
    input's grid, which leaves the axis whole (grid 1 there: a sequence and its length stay
    on one rank) and equals the output's. ``overlap=True``: runs compute the interior while
    the faces are in flight. ``context``: this rank's ``dmlcl.Context`` (default
    ``dmlcl.default_context()``), which must outlive the operator. Collective."""
    _release = "dmlcl_mpi_operator_release"

    def __init__(self, op, input, output, overlap=False, context=None, lengths=None):
        if isinstance(op, _core.ReverseSubsequences):
            make = self._reverse
        elif isinstance(op, _core._ResampleBase):
            make = self._resample
        else:
            raise _fail("dmlcl_mpi_operator_create", "op must be a dmlcl.Resample, "
                        "dmlcl.ResampleGrad or dmlcl.ReverseSubsequences (the operators the "
                        "layer runs), got %s" % type(op).__name__)
        self.context = context or _core.default_context()
        self.input, self.output, self.lengths = input, output, lengths
        op_type, desc, keep = make(op, input, output, lengths)
        h = c_void_p()
        _check(_lib.dmlcl_mpi_operator_create(
            self.context.handle, byref(C.OperatorDesc(op_type, ctypes.addressof(desc))),
            input.handle, output.handle, OVERLAP if overlap else 0, byref(h)), _CREATE_TERMS)
        del keep  # the descriptor's tensors, alive through the call (the layer copies them)
        self._handle = h.value

    @staticmethod
    def _resample(op, input, output, lengths):
        if lengths is not None:
            raise _fail("dmlcl_mpi_operator_create", "lengths is given: a %s reads no "
                        "sequence lengths (lengths is for a dmlcl.ReverseSubsequences)"
                        % type(op).__name__)
        scales, _, io, oo = op._values(input.shape, output.shape, "the output layout's shape")
        xd, k1 = _core._packed_desc(_core._dtype_code(op._name, "dtype", input.dtype),
                                    input.shape)
        od, k2 = _core._packed_desc(_core.DTYPES[output.dtype], output.shape)
        f = (_core._floats(scales), _core._floats(io), _core._floats(oo))
        desc = op._desc(ctypes.pointer(xd), ctypes.pointer(od), len(input.shape), *f)
        return op._type, desc, (xd, od, k1, k2, f)

    @staticmethod
    def _reverse(op, input, output, lengths):
        if not isinstance(lengths, Layout):
            raise _fail("dmlcl_mpi_operator_create", "lengths must be the Layout of the "
                        "sequence lengths (uint32 or uint64, the input's shape with 1 on the "
                        "axis, cut by the input's grid) for a dmlcl.ReverseSubsequences, got %s"
                        % type(lengths).__name__)
        axis = op._axis(len(input.shape))
        keep = [_core._packed_desc(_core.DTYPES[t.dtype], t.shape)
                for t in (input, lengths, output)]
        xd, ld, od = (ctypes.pointer(k[0]) for k in keep)
        desc = C.ReverseSubsequencesDesc(xd, ld, od, axis)
        return C.OPERATOR_REVERSE_SUBSEQUENCES, desc, keep

    def input_box(self, rank=None):
        """The input box ``rank``'s outputs read (None: this rank's), ``(start, size)``;
        empty for an empty output box."""
        b = _Box()
        _lib.dmlcl_mpi_operator_input_box(self.handle, -1 if rank is None else int(rank),
                                          byref(b))
        return b.pair()

    def run(self, x, y, halo_current=False, lengths=None):
        """Updates x's halo (unless ``halo_current``) and enqueues the tile operator on
        every rank, on the context's queue; y's owned box gets this rank's outputs, bit for
        bit the whole run's. x: a Field of the input layout made with this operator as its
        reader; y: a Field of the output layout; ``lengths``: REVERSE_SUBSEQUENCES' sequence
        lengths, a Field of the operator's lengths layout made without a reader (None for
        the RESAMPLE family). Collective."""
        fields = [x] if lengths is None else [x, lengths]
        handles = (c_void_p * len(fields))(*(f.handle for f in fields))
        _check(_lib.dmlcl_mpi_operator_run_inputs(
            self.handle, handles, len(fields), y.handle,
            HALO_CURRENT if halo_current else 0), _RUN_TERMS)


class Field(_Handle):
    """This rank's part of a tensor laid out by ``layout``, in one buffer of the context's
    device: the ghost box (the owned box and, with ``reader`` an Operator, the input box
    it reads here), packed row-major. ``buffer``: a PyOpenCL array (or ``Buffer``) of the
    context's OpenCL context to use instead of a new buffer; it must hold the ghost box.
    Collective."""
    _release = "dmlcl_mpi_field_release"

    def __init__(self, layout, reader=None, context=None, buffer=None):
        self.layout = layout
        self.context = context or (reader.context if reader is not None else
                                   _core.default_context())
        self._buffer = buffer  # kept alive as long as the field
        binding = None
        if buffer is not None:
            mem = getattr(buffer, "base_data", buffer)
            binding = byref(C.BufferBinding(mem.int_ptr, getattr(buffer, "offset", 0), 0))
        h = c_void_p()
        _check(_lib.dmlcl_mpi_field_create(self.context.handle, layout.handle,
                                           reader.handle if reader is not None else None,
                                           binding, byref(h)))
        self._handle = h.value

    def _boxes(self):
        ghost, owned, offset = _Box(), _Box(), c_uint64()
        mem = _lib.dmlcl_mpi_field_buffer(self.handle, byref(ghost), byref(owned),
                                          byref(offset))
        return mem, ghost.pair(), owned.pair(), offset.value

    @property
    def owned_box(self):
        """This rank's owned box, ``(start, size)``."""
        return self._boxes()[2]

    @property
    def ghost_box(self):
        """The box the buffer holds (owned plus ghosts), ``(start, size)``."""
        return self._boxes()[1]

    @property
    def cl_buffer(self):
        """``(pyopencl.Buffer, byte offset)`` of the ghost box (None for an empty one);
        needs PyOpenCL."""
        mem, _, _, offset = self._boxes()
        if not mem:
            return None
        cl = _core.Context._need_pyopencl()
        return cl.Buffer.from_int_ptr(mem, retain=True), offset

    def _owned(self, a, name):
        size = self.owned_box[1]
        if a.shape != size or a.dtype != self.layout.dtype:
            raise _fail("dmlcl.mpi.Field.%s" % name, "the array has shape %s and dtype %s; "
                        "this rank's owned box is %s of %s"
                        % (a.shape, a.dtype, size, self.layout.dtype))
        return a

    def write(self, owned):
        """Copies this rank's owned box from ``owned``, an array of its shape (blocking)."""
        a = np.ascontiguousarray(owned)
        self._owned(a, "write")
        _check(_lib.dmlcl_mpi_field_write(self.handle, a.ctypes.data))

    def read(self, out=None):
        """This rank's owned box as a new array (or into ``out``, C-contiguous), after the
        work enqueued before (blocking)."""
        if out is None:
            out = np.empty(self.owned_box[1], self.layout.dtype)
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise _fail("dmlcl.mpi.Field.read", "out must be C-contiguous and writable")
        self._owned(out, "read")
        _check(_lib.dmlcl_mpi_field_read(self.handle, out.ctypes.data))
        return out

    def halo_update(self):
        """Fills the ghost region with the owners' elements, faces only (collective)."""
        _check(_lib.dmlcl_mpi_halo_update(self.handle))

    def halo_begin(self):
        """Posts the halo exchange (collective); ``halo_end()`` completes it."""
        _check(_lib.dmlcl_mpi_halo_begin(self.handle))

    def halo_end(self):
        _check(_lib.dmlcl_mpi_halo_end(self.handle))

    @property
    def halo_stats(self):
        """What this rank's halo updates moved: a dict of ``updates``, ``bytes_sent``,
        ``bytes_received``, ``send_ranks``, ``receive_ranks``."""
        s = _HaloStats()
        _lib.dmlcl_mpi_field_halo_stats(self.handle, byref(s))
        return {k: getattr(s, k) for k, _ in _HaloStats._fields_}
