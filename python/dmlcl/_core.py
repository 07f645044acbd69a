"""Contexts, array layouts and the operator objects (see the package's docstring)."""
import ctypes
import ctypes.util
import math
import threading
from collections import OrderedDict
from ctypes import addressof, byref, c_float, c_size_t, c_uint32, c_void_p, pointer

import numpy as np

from . import _capi as C
from . import _dask
from . import _outputs
from ._capi import DataTypeError, InvalidArgumentError

__all__ = ["Context", "default_context", "ReverseSubsequences", "Resample", "ResampleGrad",
           "reverse_subsequences", "resample", "resample_grad", "version", "cache_stats",
           "DTYPES", "RESAMPLE_DTYPES"]

U32_MAX = 0xFFFFFFFF
MAX_RANK = 8

# NumPy dtypes and their dmlcl_tensor_data_type values (native byte order).
DTYPES = OrderedDict((np.dtype(t), code) for t, code in (
    (np.float32, 1), (np.float16, 2), (np.uint32, 3), (np.uint16, 4), (np.uint8, 5),
    (np.int32, 6), (np.int16, 7), (np.int8, 8), (np.float64, 9), (np.uint64, 10),
    (np.int64, 11)))
#: The data types of the RESAMPLE family (float64 needs cl_khr_fp64 on the device).
RESAMPLE_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float16, np.float64, np.int8,
                                               np.uint8, np.int16, np.uint16, np.int32,
                                               np.uint32))
_LENGTH_DTYPES = (np.dtype(np.uint32), np.dtype(np.uint64))


def version():
    """The C library's version, "MAJOR.MINOR.PATCH"."""
    return C.lib.dmlcl_version().decode()


def cache_stats():
    """The C library's process-wide program-cache counters, a dict with ``memory_hits``,
    ``disk_hits`` and ``compiles``. A second operator of the same kind and data type is a
    memory hit: nothing is compiled again."""
    s = C.CacheStats()
    C.lib.dmlcl_cache_get_stats(byref(s))
    return {"memory_hits": s.memory_hits, "disk_hits": s.disk_hits, "compiles": s.compiles}


# ---- PyOpenCL, only when it is used -----------------------------------------------------------

_cl = None


def _pyopencl():
    """(pyopencl, pyopencl.array), imported on first need; None when not installed."""
    global _cl
    if _cl is None:
        try:
            import pyopencl
            import pyopencl.array
            _cl = (pyopencl, pyopencl.array)
        except ImportError:
            _cl = False
    return _cl or None


def _is_device_array(a):
    if type(a) is np.ndarray or not hasattr(a, "base_data"):
        return False
    cl = _pyopencl()
    return cl is not None and isinstance(a, cl[1].Array)


_get_device_info = None


def _cl_get_device_info():
    """clGetDeviceInfo from the OpenCL ICD loader libdmlcl links (loaded already)."""
    global _get_device_info
    if _get_device_info is None:
        name = ctypes.util.find_library("OpenCL") or "libOpenCL.so.1"
        f = ctypes.CDLL(name).clGetDeviceInfo
        f.argtypes = [c_void_p, c_uint32, c_size_t, c_void_p, c_void_p]
        f.restype = ctypes.c_int32
        _get_device_info = f
    return _get_device_info


# ---- contexts -----------------------------------------------------------------------------------

class _Closes:
    """What an object owning one C handle does around its close(): `with` closes it, and so
    does the garbage collector (errors at interpreter exit swallowed)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Context(_Closes):
    """An OpenCL device (and queue) that operators run on.

    ``Context()`` picks the device as the C library does: ``$DMLCL_DEVICE`` if set, else the
    first GPU, else the first CPU device. ``Context(device="gpu")`` (``"cpu"``, ``"P:D"``
    platform and device index, or a case-insensitive substring of the platform or device
    name) picks one explicitly. ``Context(queue=q)`` wraps PyOpenCL's command queue (and its
    context and device): operators created with it take PyOpenCL arrays of that context and
    enqueue on ``q``. ``Context(cl_context=c)`` wraps a PyOpenCL context; dmlcl creates an
    in-order queue on its first device (``.queue``).

    The OpenCL objects are retained; ``close()`` (or a ``with`` block, or garbage
    collection) releases the context, which lives on in the C library while operators
    created from it do. Raises ``NoDeviceError`` when no device matches.
    """

    def __init__(self, device=None, *, cl_context=None, queue=None):
        self._handle = None
        self._spares = _outputs.Spares()  # memory for new outputs (_outputs.py)
        self._queue = queue
        self._cl_context = cl_context
        h = c_void_p()
        if queue is not None or cl_context is not None:
            if device is not None:
                raise InvalidArgumentError(
                    "Context: give device= (a selector) or PyOpenCL's cl_context=/queue=, "
                    "not both", C.INVALID_ARGUMENT)
            if queue is not None:
                if cl_context is None:
                    cl_context = queue.context
                elif queue.context.int_ptr != cl_context.int_ptr:
                    raise InvalidArgumentError("Context: queue belongs to another context "
                                               "than cl_context", C.INVALID_ARGUMENT)
                dev = queue.device
            else:
                dev = cl_context.devices[0]
            self._cl_context = cl_context
            C.check(C.lib.dmlcl_context_create(cl_context.int_ptr, dev.int_ptr,
                                               queue.int_ptr if queue is not None else None,
                                               byref(h)))
        elif device is None:
            C.check(C.lib.dmlcl_context_create_default(byref(h)))
        else:
            C.check(C.lib.dmlcl_context_create_for(str(device).encode(), byref(h)))
        self._handle = h.value

    @property
    def handle(self):
        """The ``dmlcl_context *`` as an int (for ctypes calls into the C API)."""
        if self._handle is None:
            raise InvalidArgumentError("Context: used after close()", C.INVALID_ARGUMENT)
        return self._handle

    @property
    def cl_context(self):
        """The PyOpenCL ``Context`` (needs PyOpenCL)."""
        if self._cl_context is None:
            cl = self._need_pyopencl()
            self._cl_context = cl.Context.from_int_ptr(
                C.lib.dmlcl_context_cl_context(self.handle), retain=True)
        return self._cl_context

    @property
    def queue(self):
        """The PyOpenCL ``CommandQueue`` that operators enqueue on (needs PyOpenCL)."""
        if self._queue is None:
            cl = self._need_pyopencl()
            self._queue = cl.CommandQueue.from_int_ptr(
                C.lib.dmlcl_context_queue(self.handle), retain=True)
        return self._queue

    @property
    def device_name(self):
        """The OpenCL device's name (``CL_DEVICE_NAME``)."""
        buf = ctypes.create_string_buffer(512)
        _cl_get_device_info()(C.lib.dmlcl_context_device(self.handle), 0x102B, 511, buf, None)
        return buf.value.decode("utf-8", "replace")

    def _max_alloc(self):
        """CL_DEVICE_MAX_MEM_ALLOC_SIZE in bytes (0: unknown)."""
        if getattr(self, "_max_alloc_bytes", None) is None:
            v = ctypes.c_uint64(0)
            _cl_get_device_info()(C.lib.dmlcl_context_device(self.handle), 0x1010, 8,
                                  byref(v), None)
            self._max_alloc_bytes = v.value
        return self._max_alloc_bytes

    @staticmethod
    def _need_pyopencl():
        cl = _pyopencl()
        if cl is None:
            raise InvalidArgumentError("Context: PyOpenCL is not installed (Debian: apt-get "
                                       "install python3-pyopencl)", C.INVALID_ARGUMENT)
        return cl[0]

    def close(self):
        """Releases the C context (operators created from it keep it alive)."""
        h, self._handle = self._handle, None
        self._spares.close()
        if h is not None and C is not None and C.lib is not None:
            C.lib.dmlcl_context_release(h)

    def __repr__(self):
        if self._handle is None:
            return "<dmlcl.Context (closed)>"
        return "<dmlcl.Context %r>" % self.device_name


_default = None
_queue_contexts = {}
_lock = threading.Lock()


def default_context():
    """The process's default ``Context()`` (``$DMLCL_DEVICE``, else the first GPU, else the
    first CPU), created on first use; functions and operators without ``context=`` use it."""
    global _default
    if _default is None:
        with _lock:
            if _default is None:
                _default = Context()
    return _default


def _context_for_queue(queue):
    """The Context wrapping a PyOpenCL queue, one per queue (kept with the queue)."""
    key = queue.int_ptr
    c = _queue_contexts.get(key)
    if c is None:
        with _lock:
            c = _queue_contexts.get(key)
            if c is None:
                c = _queue_contexts[key] = Context(queue=queue)
    return c


# ---- layouts ------------------------------------------------------------------------------------

def _fail(op, text, cls=InvalidArgumentError):
    return cls("%s: %s" % (op, text), cls.status)


def _plain(v):
    """v as a message shows it: NumPy scalars as Python numbers and strings, arrays as
    lists, inside tuples and lists too. NumPy 2's repr of a scalar is np.int64(-5) where
    NumPy 1's is -5; messages read the same under both."""
    if isinstance(v, np.floating):
        return float(str(v))  # the shortest digits of its own precision: 0.1, not 0.100000001
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (tuple, list)):
        return type(v)(_plain(e) for e in v)
    return v


def _dtype_code(op, role, dt):
    code = DTYPES.get(dt)
    if code is not None:
        return code
    if not dt.isnative and dt.newbyteorder("=") in DTYPES:
        raise _fail(op, "%s has dtype %s in non-native byte order; pass "
                        "%s.astype(%s.dtype.newbyteorder('='))" % (role, dt.str, role, role),
                    DataTypeError)
    raise _fail(op, "%s has dtype %s, which is not a dmlcl data type (%s)"
                % (role, dt, ", ".join(str(d) for d in DTYPES)), DataTypeError)


def _layout(op, role, dt, shape, byte_strides):
    """(data type code, sizes, element strides) of an array; the rules NumPy allows and
    dmlcl does not raise InvalidArgumentError naming the array and the dimension."""
    code = _dtype_code(op, role, dt)
    rank = len(shape)
    if not 1 <= rank <= MAX_RANK:
        raise _fail(op, "%s has %d dimensions; dmlcl tensors have 1 to 8" % (role, rank))
    item = dt.itemsize
    strides = []
    for d in range(rank):
        n, s = shape[d], byte_strides[d]
        if not 1 <= n <= U32_MAX:
            raise _fail(op, "%s shape[%d] is %d; dmlcl sizes are 1 to 4294967295"
                        % (role, d, n))
        if n == 1:
            strides.append(0)  # never stepped along: any value does
            continue
        if s % item:
            raise _fail(op, "%s strides[%d] is %d bytes, not a multiple of its %d-byte "
                            "itemsize (dmlcl strides count elements); pass "
                            "numpy.ascontiguousarray(%s)" % (role, d, s, item, role))
        e = s // item
        if e < 0:
            raise _fail(op, "%s strides[%d] is negative (%d bytes); dmlcl strides are "
                            "unsigned" % (role, d, s))
        if e > U32_MAX:
            raise _fail(op, "%s strides[%d] is %d elements, above dmlcl's 32-bit strides; "
                            "pass numpy.ascontiguousarray(%s)" % (role, d, e, role))
        strides.append(e)
    return code, tuple(shape), tuple(strides)


def _bytes_text(n):
    """"176 bytes", "512.0 MiB", "2.48 GiB": the C library's words for sizes."""
    if n < 1024:
        return "%d bytes" % n
    if n < 1 << 30:
        return "%.1f MiB" % (n / 1048576.0)
    return "%.2f GiB" % (n / 1073741824.0)


def _fits(op, ctx, role, shape, dt, advice):
    """Raises the C library's limit message, in the caller's names, when an array of this
    shape and dtype is over the device's largest buffer: asked before NumPy allocates it
    (NumPy's own refusal, "array is too big", names neither the limit nor the cause)."""
    n = dt.itemsize * math.prod(shape)
    limit = ctx._max_alloc()
    if limit and n > limit:
        raise _fail(op, "%s (shape %s, %s) needs a buffer of %s, over this device's limit of "
                        "%s per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE); %s, or split the work "
                        "in tiles" % (role, tuple(shape), dt, _bytes_text(n),
                                      _bytes_text(limit), advice), C.UnsupportedError)


def _negative(a):
    return any(s < 0 and n > 1 for n, s in zip(a.shape, a.strides))


def _host_input(op, role, a):
    """A NumPy array as dmlcl can read it: itself, or (negative strides only) a C-order
    copy. Anything else that is not an ndarray goes through numpy.asarray."""
    if type(a) is not np.ndarray:
        if _is_device_array(a):
            raise _fail(op, "%s is a PyOpenCL array but another argument is a NumPy array; "
                            "pass both on the host or both on the device" % role)
        a = np.asarray(a)
    if _negative(a):
        a = np.ascontiguousarray(a)
    return a


def _tensor_desc(layout):
    code, sizes, strides = layout
    r = len(sizes)
    s = (c_uint32 * r)(*sizes)
    st = (c_uint32 * r)(*strides)
    return C.TensorDesc(code, r, s, st, 0), (s, st)


def _tile_desc(logical, start):
    """A dmlcl_tile_desc (by reference) and the arrays it points to; None (NULL, the whole
    tensor) when the tensor is not a tile."""
    if logical is None:
        return None, None
    r = len(logical)
    ls, st = (c_uint32 * r)(*logical), (c_uint32 * r)(*start)
    return byref(C.TileDesc(r, ls, st)), (ls, st)


def _packed_desc(code, shape):
    """A packed tensor descriptor of a logical shape (the halo query's whole tensors)."""
    s = (c_uint32 * len(shape))(*shape)
    return C.TensorDesc(code, len(shape), s, None, 0), s


def _floats(values):
    return (c_float * len(values))(*values)


class _Entry:
    """One C operator (a layout of the arguments) with what a call needs; releases the
    operator when the last reference goes (a call in flight holds one)."""
    __slots__ = ("handle", "context", "out_shape", "plan")

    def __init__(self, context, desc, tiles=None):
        self.handle = None
        h = c_void_p()
        if tiles is None:
            C.check(C.lib.dmlcl_operator_create(context.handle, byref(desc), byref(h)))
        else:
            (ti, k1), (to, k2) = _tile_desc(tiles[0], tiles[1]), _tile_desc(tiles[2], tiles[3])
            C.check(C.lib.dmlcl_operator_create_tile(context.handle, byref(desc), ti, to,
                                                     byref(h)))
        self.handle = h.value
        self.context = context
        self.plan = C.lib.dmlcl_operator_plan(self.handle).decode()

    def __del__(self):
        h, self.handle = self.handle, None
        try:
            if h is not None and C.lib is not None:
                C.lib.dmlcl_operator_release(h)
        except Exception:
            pass


_ptr1 = c_void_p * 1
_ptr2 = c_void_p * 2


class _Operator:
    """Shared machinery: the C operators this object made, one per layout of its
    arguments (data types, shapes, strides, context), kept for reuse."""
    _name = "operator"
    _max_layouts = 16

    def __init__(self, context):
        if context is not None and not isinstance(context, Context):
            raise TypeError("%s: context must be a dmlcl.Context, got %r"
                            % (self._name, type(context).__name__))
        self._context = context
        self._entries = OrderedDict()
        self._last = None

    def _ctx(self, device_array=None):
        if self._context is not None:
            return self._context
        if device_array is not None:
            return _context_for_queue(device_array.queue)
        return default_context()

    def _entry(self, key, make):
        e = self._entries.get(key)
        if e is None:
            e = make()
            self._entries[key] = e
            while len(self._entries) > self._max_layouts:
                self._entries.popitem(last=False)
        self._last = e
        return e

    @property
    def plan(self):
        """The C planner's choice for the most recent call (``dmlcl_operator_plan``)."""
        return self._last.plan if self._last is not None else ""

    def close(self):
        """Releases the C operators (each goes when no call is using it)."""
        self._entries.clear()
        self._last = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the two paths -----------------------------------------------------------------------

    @staticmethod
    def _run_host(entry, ins, out):
        if len(ins) == 1:
            ip = _ptr1(ins[0].ctypes.data)
        else:
            ip = _ptr2(ins[0].ctypes.data, ins[1].ctypes.data)
        st = C.lib.dmlcl_operator_execute_host(entry.handle, ip, _ptr1(out.ctypes.data))
        if st:
            raise C.error(st)

    def _check_out(self, out, role="out"):
        if not out.flags.writeable:
            raise _fail(self._name, "%s is not writable (out.flags.writeable is False)" % role)

    def _enqueue(self, entry, ins, out, wait_for):
        """Enqueues on the context's queue after the arrays' events and wait_for; returns
        the completion event, which is also added to out's events."""
        cl = _pyopencl()[0]
        waits = [e for a in tuple(ins) + (out,) for e in a.events]
        if wait_for:
            waits.extend(wait_for)
        wl = (c_void_p * max(len(waits), 1))(*[e.int_ptr for e in waits])
        bi = (C.BufferBinding * len(ins))(*[_binding(self._name, "inputs[%d]" % i, a)
                                            for i, a in enumerate(ins)])
        bo = (C.BufferBinding * 1)(_binding(self._name, "out", out))
        ev = c_void_p()
        C.check(C.lib.dmlcl_operator_enqueue(entry.handle, bi, len(ins), bo, 1, len(waits),
                                             wl if waits else None, byref(ev)))
        event = cl.Event.from_int_ptr(ev.value, retain=False)
        out.add_event(event)
        return event


def _binding(op, role, a):
    item = a.dtype.itemsize
    if a.offset % item:
        raise _fail(op, "%s starts %d bytes into its buffer, not a multiple of its %d-byte "
                        "itemsize" % (role, a.offset, item))
    return C.BufferBinding(a.base_data.int_ptr, a.offset, 0)


def _device_layout(op, role, a):
    if _negative(a):
        raise _fail(op, "%s (a PyOpenCL array) has negative strides %s; dmlcl strides are "
                        "unsigned: pass a copy" % (role, _plain(a.strides)))
    return _layout(op, role, a.dtype, a.shape, a.strides)


def _per_dim(op, name, value, rank, convert):
    """A scalar (every dimension) or one value per dimension."""
    if np.ndim(value) == 0:
        return (convert(value),) * rank
    values = tuple(convert(v) for v in np.asarray(value).ravel())
    if np.ndim(value) != 1 or len(values) != rank:
        raise _fail(op, "%s has %d values but the input has %d dimensions"
                    % (name, len(values), rank))
    return values


def _f32(v):
    return float(np.float32(v))


def _size(op, name, v):
    try:
        n = int(v)
    except (TypeError, ValueError):
        raise _fail(op, "%s: %r is not an integer" % (name, _plain(v)))
    if n != v or not 1 <= n <= U32_MAX:
        raise _fail(op, "%s: %r is not a size from 1 to 4294967295" % (name, _plain(v)))
    return n


def _indices(op, name, value, rank, role, low):
    """One integer per dimension of role (rank of them; None: a shape, 1 to 8 of them),
    each from low to 4294967295."""
    if np.ndim(value) != 1:
        raise _fail(op, "%s must be a sequence of integers, one per dimension, got %r"
                    % (name, _plain(value)))
    values = []
    for d, v in enumerate(value):
        try:
            n = int(v)
        except (TypeError, ValueError):
            n = None
        if n is None or n != v:
            raise _fail(op, "%s[%d] is %r, not an integer" % (name, d, _plain(v)))
        if not low <= n <= U32_MAX:
            raise _fail(op, "%s[%d] is %d, outside %d to 4294967295" % (name, d, n, low))
        values.append(n)
    if rank is None and not 1 <= len(values) <= MAX_RANK:
        raise _fail(op, "%s has %d dimensions; dmlcl tensors have 1 to 8"
                    % (name, len(values)))
    if rank is not None and len(values) != rank:
        raise _fail(op, "%s has %d values, %s has %d dimensions"
                    % (name, len(values), role, rank))
    return tuple(values)


def _tile(op, name, tile, rank, role, sized=False):
    """A tile argument, (logical_shape, start) or, where sized, (logical_shape, start,
    size), as (logical, start, size) tuples of ints; (None, None, None) for None."""
    if tile is None:
        return None, None, None
    n = len(tile) if isinstance(tile, (tuple, list)) else 0
    if n != 2 and not (sized and n == 3):
        raise _fail(op, "%s must be (logical_shape, start)%s, got %r"
                    % (name, " or (logical_shape, start, size)" if sized else "", _plain(tile)))
    logical = _indices(op, name + " logical_shape", tile[0], rank, role, 1)
    start = _indices(op, name + " start", tile[1], rank, role, 0)
    size = _indices(op, name + " size", tile[2], rank, role, 1) if n == 3 else None
    return logical, start, size


def _box_query(op_type, desc, start, size):
    """dmlcl_operator_input_box on a descriptor of the whole tensors: (start, size)."""
    r = len(start)
    ist, isz = (c_uint32 * r)(), (c_uint32 * r)()
    C.check(C.lib.dmlcl_operator_input_box(byref(C.OperatorDesc(op_type, _addr(desc))),
                                           (c_uint32 * r)(*start), (c_uint32 * r)(*size),
                                           ist, isz))
    return tuple(ist), tuple(isz)


_FLOAT32 = DTYPES[np.dtype(np.float32)]
_UINT32 = DTYPES[np.dtype(np.uint32)]


# ---- REVERSE_SUBSEQUENCES -------------------------------------------------------------------------

class ReverseSubsequences(_Operator):
    """A reusable REVERSE_SUBSEQUENCES along ``axis``: ``op(x, lengths, out=None)``.

    See ``help(dmlcl.reverse_subsequences)`` for the contract. The object keeps one C
    operator per layout of its arguments (dtypes, shapes, strides, context), so calling it
    again on arrays of the same layout reuses the compiled program and the plan.
    ``close()`` (or a ``with`` block) releases them. Tiles (``input_tile``,
    ``output_tile``) and the halo query ``input_box`` as on ``dmlcl.Resample``.
    """
    _name = "reverse_subsequences"

    def __init__(self, axis, context=None):
        super().__init__(context)
        if int(axis) != axis:
            raise _fail(self._name, "axis must be an integer, got %r" % (_plain(axis),))
        self.axis = int(axis)

    def _axis(self, rank):
        a = self.axis
        if not -rank <= a < rank:
            raise _fail(self._name, "axis %d is out of range for an input of %d dimensions"
                        % (a, rank))
        return a % rank

    def _lengths(self, x, lengths, axis, device):
        """lengths broadcast (stride 0, no copy) to x's shape with 1 on the axis; for a
        PyOpenCL x, host lengths are copied to the device."""
        target = x.shape[:axis] + (1,) + x.shape[axis + 1:]
        if device and _is_device_array(lengths):
            if lengths.shape != target:
                raise _fail(self._name, "lengths (a PyOpenCL array) has shape %s, expected %s "
                                        "(x's shape with 1 on the axis)"
                            % (_plain(lengths.shape), target))
            return lengths
        lengths = self._host_lengths(lengths)
        if lengths.ndim == x.ndim - 1 and lengths.ndim:
            lengths = np.expand_dims(lengths, axis)
        try:
            lengths = np.broadcast_to(lengths, target)
        except ValueError:
            raise _fail(self._name, "lengths has shape %s, which does not broadcast to %s "
                                    "(x's shape with 1 on the axis)" % (lengths.shape, target))
        if device:
            return _pyopencl()[1].to_device(x.queue, np.ascontiguousarray(lengths))
        return lengths

    def _host_lengths(self, lengths):
        lengths = _host_input(self._name, "lengths", lengths)
        if lengths.dtype in _LENGTH_DTYPES:
            return lengths
        if lengths.dtype.kind not in "iu":
            raise _fail(self._name, "lengths has dtype %s; it must be integers (uint32 or "
                                    "uint64 are used as they are)" % lengths.dtype,
                        DataTypeError)
        if lengths.size and lengths.min() < 0:
            raise _fail(self._name, "lengths has a negative value (%d)" % lengths.min())
        return lengths.astype(np.uint64)

    def _make(self, ctx, x_layout, l_layout, o_layout, axis, tiles):
        def make():
            xd, k1 = _tensor_desc(x_layout)
            ld, k2 = _tensor_desc(l_layout)
            od, k3 = _tensor_desc(o_layout)
            d = C.ReverseSubsequencesDesc(_p(xd), _p(ld), _p(od), axis)
            return _Entry(ctx, C.OperatorDesc(C.OPERATOR_REVERSE_SUBSEQUENCES,
                                              _addr(d)), tiles)
        return make

    def _out_shape(self, shape, out, input_tile, output_tile):
        """(the output array's shape, the tile placement for the cache key and the C call:
        None, or (input logical, input start, output logical, output start))."""
        if input_tile is None and output_tile is None:
            return shape, None
        r = len(shape)
        li, si, _ = _tile(self._name, "input_tile", input_tile, r, "x")
        lo, so, size = _tile(self._name, "output_tile", output_tile, r, "x", sized=True)
        if lo is None:
            want, what = li, "the logical tensor (input_tile's logical_shape) is"
        elif size is not None:
            want, what = size, "output_tile's size is"
        elif out is not None:
            want, what = tuple(out.shape), None
        else:
            raise _fail(self._name, "give out= or output_tile's size, "
                                    "(logical_shape, start, size)")
        if out is not None and tuple(out.shape) != want:
            raise _fail(self._name, "out has shape %s, %s %s"
                        % (_plain(tuple(out.shape)), what, want))
        return want, (li, si, lo, so)

    def __call__(self, x, lengths, out=None, input_tile=None, output_tile=None):
        """Runs the operator: returns ``out`` (a new array when None). PyOpenCL arrays stay
        on the device (see ``enqueue``). ``input_tile=(logical_shape, start)`` and
        ``output_tile=(logical_shape, start)`` (or ``(logical_shape, start, size)`` without
        ``out``) run it on tiles of larger logical tensors (see
        ``help(dmlcl.reverse_subsequences)``)."""
        if _is_device_array(x):
            out, _ = self._device(x, lengths, out, None, input_tile, output_tile)
            return out
        if _dask.is_dask_array(x):
            return _dask.run(self, x, (lengths,), out, input_tile, output_tile)
        x = _host_input(self._name, "x", x)
        axis = self._axis(x.ndim)
        lengths = self._lengths(x, lengths, axis, False)
        if out is not None:
            if type(out) is not np.ndarray:
                raise _fail(self._name, "out must be a numpy.ndarray, got %s"
                            % type(out).__name__)
            self._check_out(out)
        tiles = None
        if input_tile is None and output_tile is None:
            shape = x.shape
            if out is not None and out.shape != x.shape:
                raise _fail(self._name, "out has shape %s, x has %s" % (out.shape, x.shape))
        else:
            shape, tiles = self._out_shape(x.shape, out, input_tile, output_tile)
        ctx = self._ctx()
        y = ctx._spares.empty(shape, x.dtype) if out is None else out
        target = y
        if out is not None and _negative(out):
            target = np.empty(shape, x.dtype)  # written, then copied into out
        key = (id(ctx), axis, x.dtype, x.shape, x.strides, lengths.dtype, lengths.strides,
               target.dtype, target.shape, target.strides, tiles)
        e = self._entries.get(key)
        if e is None:
            e = self._entry(key, self._make(
                ctx, _layout(self._name, "x", x.dtype, x.shape, x.strides),
                _layout(self._name, "lengths", lengths.dtype, lengths.shape, lengths.strides),
                _layout(self._name, "out", target.dtype, target.shape, target.strides), axis,
                tiles))
        self._last = e
        self._run_host(e, (x, lengths), target)
        if target is not y:
            np.copyto(y, target)
        return y

    def enqueue(self, x, lengths, out=None, wait_for=None, input_tile=None,
                output_tile=None):
        """PyOpenCL arrays: enqueues the operator on the context's queue (after the events
        of x, lengths and out and ``wait_for``) and returns ``(out, event)``; nothing is
        copied. ``lengths`` may also be a NumPy array or a list (copied to the device).
        ``input_tile``, ``output_tile``: as for calling the operator."""
        return self._device(x, lengths, out, wait_for, input_tile, output_tile)

    def _device(self, x, lengths, out, wait_for, input_tile, output_tile):
        if not _is_device_array(x):
            raise _fail(self._name, "enqueue needs PyOpenCL arrays; x is %s"
                        % type(x).__name__)
        ctx = self._ctx(x)
        axis = self._axis(x.ndim)
        lengths = self._lengths(x, lengths, axis, True)
        if out is not None and not _is_device_array(out):
            raise _fail(self._name, "out must be a PyOpenCL array when x is one")
        shape, tiles = self._out_shape(x.shape, out, input_tile, output_tile)
        if out is None:
            out = _pyopencl()[1].empty(ctx.queue, shape, x.dtype)
        key = ("dev", id(ctx), axis, x.dtype, x.shape, x.strides, lengths.dtype,
               lengths.strides, out.dtype, out.shape, out.strides, tiles)
        e = self._entry(key, self._make(
            ctx, _device_layout(self._name, "x", x),
            _device_layout(self._name, "lengths", lengths),
            _device_layout(self._name, "out", out), axis, tiles))
        return out, self._enqueue(e, (x, lengths), out, wait_for)

    def input_box(self, input_shape, start, size, output_shape=None):
        """The halo query (``dmlcl_operator_input_box``): the box of x, a tensor of the
        logical shape ``input_shape``, that the output box (``start``, ``size``: one value
        per dimension, global indices) reads, as ``(start, size)`` tuples: the output box
        itself, widened to the whole axis (a sequence's elements come from anywhere along
        it). ``output_shape``, if given, must equal ``input_shape`` (as for the resample
        operators' ``input_box``). A size of 0 reads nothing: ``size`` all 0. Pure host
        arithmetic, no device."""
        op = self._name
        shape = _indices(op, "input_shape", input_shape, None, None, 1)
        r = len(shape)
        if output_shape is not None:
            output_shape = _indices(op, "output_shape", output_shape, r, "x", 1)
            if output_shape != shape:
                raise _fail(op, "output_shape %s differs from input_shape %s (the output "
                                "has the input's shape)" % (output_shape, shape))
        axis = self._axis(r)
        start = _indices(op, "start", start, r, "the output", 0)
        size = _indices(op, "size", size, r, "the output", 0)
        xd, k1 = _packed_desc(_FLOAT32, shape)
        ld, k2 = _packed_desc(_UINT32, shape[:axis] + (1,) + shape[axis + 1:])
        d = C.ReverseSubsequencesDesc(_p(xd), _p(ld), _p(xd), axis)
        return _box_query(C.OPERATOR_REVERSE_SUBSEQUENCES, d, start, size)


_p = pointer
_addr = addressof


def reverse_subsequences(x, lengths, axis, out=None, context=None, input_tile=None,
                         output_tile=None):
    """Reverses the first ``lengths[j]`` elements of every line of ``x`` along ``axis``
    (REVERSE_SUBSEQUENCES); returns a new array, or writes ``out`` and returns it.

    The line through each index with 0 on ``axis`` takes its length from ``lengths`` at
    that index; the formula is doc/operators.md's (REVERSE_SUBSEQUENCES). Lengths 0 and 1
    copy the line; lengths above ``x.shape[axis]`` act as it. Bits are moved, never converted (NaN payloads and signed
    zeros come out unchanged).

    Parameters
    ----------
    x : numpy.ndarray (or array-like, or a PyOpenCL Array)
        1 to 8 dimensions, any of the 11 dtypes: float16/32/64, int8/16/32/64,
        uint8/16/32/64 (native byte order). Any layout: C or Fortran order, sliced and
        transposed views and broadcast views (stride 0) are read in place, through
        strides. Only an array with a negative stride (e.g. ``x[::-1]``) is copied first:
        dmlcl's strides are unsigned.
    lengths : array-like of integers
        One length per line: shaped like x with 1 on the axis, or like x without the axis,
        or anything that broadcasts to that (a scalar: the same length for every line;
        broadcasting is a stride-0 view, not a copy). uint32 and uint64 arrays are used as
        they are; other integer arrays are converted to uint64 (negative values raise).
    axis : int
        The axis to reverse along; negative counts from the end.
    out : numpy.ndarray, optional
        Written in place: x's shape and dtype, writable, any layout but broadcast (an
        output whose elements are shared is refused); a negative-strided ``out`` is
        written through a temporary. ``out`` may be ``x`` itself.
    context : dmlcl.Context, optional
        The device; default ``dmlcl.default_context()`` (``$DMLCL_DEVICE``, else the first
        GPU, else the first CPU). For PyOpenCL arrays, default: a context on their queue.
    input_tile, output_tile : optional
        x and out as tiles (boxes) of larger logical tensors, e.g. one MPI rank's part of
        a domain-decomposed field: ``input_tile=(logical_shape, start)`` says x is the box
        of the logical input starting at global index ``start``; ``output_tile`` likewise
        for out, ``(logical_shape, start, size)`` when there is no ``out``. None: that
        array is the whole tensor. The result is the whole run's box bit for bit
        (``dmlcl_operator_create_tile``). The tiles may cut any dimension but the axis;
        lengths are then x's box with 1 on the axis. The operator object's
        ``input_box(x_shape, start, size)`` gives the input box an output box reads.

    Returns
    -------
    The output array (``out`` when given). With PyOpenCL arrays the operator is enqueued
    on the context's queue without copies and the returned PyOpenCL array carries the
    completion event in its ``events`` (``ReverseSubsequences.enqueue`` returns it).

    Raises
    ------
    dmlcl.InvalidArgumentError (a ValueError) with the library's message naming the rule,
    e.g. ``reverse_subsequences: axis 2 is out of range for an input of 2 dimensions``;
    dmlcl.DataTypeError (also a TypeError) for a dtype dmlcl does not take;
    dmlcl.NoDeviceError, dmlcl.OpenCLError, dmlcl.BuildError, dmlcl.OutOfMemoryError.

    Example
    -------
    >>> dmlcl.reverse_subsequences(np.arange(1, 13.).reshape(3, 4), [2, 4, 3], axis=1)
    array([[ 2.,  1.,  3.,  4.],
           [ 8.,  7.,  6.,  5.],
           [11., 10.,  9., 12.]])
    """
    return ReverseSubsequences(axis, context)(x, lengths, out=out, input_tile=input_tile,
                                              output_tile=output_tile)


# ---- the RESAMPLE family -----------------------------------------------------------------------

_MODES = {"nearest": C.MODE_NEAREST_NEIGHBOR, "nearest_neighbor": C.MODE_NEAREST_NEIGHBOR,
          "nearest-neighbor": C.MODE_NEAREST_NEIGHBOR, "linear": C.MODE_LINEAR}
_ROUNDINGS = {"increasing": C.DIRECTION_INCREASING, "decreasing": C.DIRECTION_DECREASING}


def _resample_dtype(op, role, dt, computes):
    """The RESAMPLE family's data types, checked here so that the message names the Python
    function (``resample:``), not the C operator it picked (resample1, 2 or 3). A dtype
    dmlcl has no type for is left to _layout's message. int32 and uint32 are moved, never
    computed (``computes``: linear, or resample_grad's sums): float32 holds them exactly
    only up to 2**24."""
    if dt in DTYPES and dt not in RESAMPLE_DTYPES:
        raise _fail(op, "%s has dtype %s; %s takes float32, float16, float64 (where the "
                        "device has cl_khr_fp64), int8, uint8, int16, uint16, and int32 and "
                        "uint32 with mode='nearest' (not resample_grad)" % (role, dt, op),
                    DataTypeError)
    if computes and dt.kind in "iu" and dt.itemsize == 4:
        raise _fail(op, "%s has dtype %s; %s takes int32 and uint32 %s only: it computes in "
                        "float32, which holds 32-bit integers exactly only up to 2**24"
                    % (role, dt, op, "in no mode" if op == "resample_grad"
                       else "with mode='nearest'"), DataTypeError)


class _ResampleBase(_Operator):
    def __init__(self, scales, size, mode, input_offsets, output_offsets, rounding, context):
        super().__init__(context)
        if mode not in _MODES:
            raise _fail(self._name, "mode must be 'nearest' or 'linear', got %r"
                        % (_plain(mode),))
        if rounding is not None and rounding not in _ROUNDINGS:
            raise _fail(self._name, "rounding must be None, 'increasing' (ceil) or "
                                    "'decreasing' (floor), got %r" % (_plain(rounding),))
        self.mode = mode
        self.rounding = rounding
        self.scales = scales
        self.size = size
        self.input_offsets = input_offsets
        self.output_offsets = output_offsets
        self._resolved = {}

    def _computes(self):
        """Whether the operator computes with its elements (not only moves them)."""
        return self._name == "resample_grad" or self.mode == "linear"

    def _values(self, in_shape, out_shape, out_name="out"):
        """(scales, output shape, input offsets, output offsets) for an input shape and
        the ``out`` shape (None: computed), as float32 values and ints. With tiles, the
        shapes are the logical tensors'; out_name names the output shape in messages."""
        key = (in_shape, out_shape)
        v = self._resolved.get(key)
        if v is None:
            v = self._resolved[key] = self._resolve(in_shape, out_shape, out_name)
        return v

    def _resolve(self, in_shape, out_shape, out_name):
        op, rank = self._name, len(in_shape)
        if not 1 <= rank <= MAX_RANK:
            raise _fail(op, "%s has %d dimensions; dmlcl tensors have 1 to 8"
                        % (self._in_role, rank))
        scales = None if self.scales is None else _per_dim(op, "scales", self.scales, rank, _f32)
        size = None if self.size is None else _per_dim(
            op, self._size_name, self.size, rank, lambda v: _size(op, self._size_name, v))
        if out_shape is not None:
            if len(out_shape) != rank:
                raise _fail(op, "%s has %d dimensions, %s has %d"
                            % (out_name, len(out_shape), self._in_role, rank))
            if size is not None and tuple(size) != tuple(out_shape):
                raise _fail(op, "%s has shape %s but %s is %s"
                            % (out_name, _plain(tuple(out_shape)), self._size_name,
                               tuple(size)))
            size = tuple(out_shape)
        if scales is None and size is None:
            raise _fail(op, "give scales, %s or out" % self._size_name)
        if scales is None:
            scales = tuple(self._scale_of(n, m) for n, m in zip(in_shape, size))
        if size is None:
            sz = []
            for d, (n, s) in enumerate(zip(in_shape, scales)):
                if not (math.isfinite(s) and s > 0):
                    raise _fail(op, "scales[%d] must be finite and > 0, got %g" % (d, s))
                m = self._size_of(n, s)
                if not 1 <= m <= U32_MAX:
                    raise _fail(op, "output size of dimension %d is floor(%d %s %g) = %d, "
                                    "outside 1 to 4294967295; change scales or give %s"
                                % (d, n, self._size_sign, s, m, self._size_name))
                sz.append(m)
            size = tuple(sz)
        io = _per_dim(op, "input_offsets", self.input_offsets, rank, _f32)
        oo = _per_dim(op, "output_offsets", self.output_offsets, rank, _f32)
        return scales, tuple(size), io, oo

    def _make(self, ctx, x_layout, o_layout, scales, io, oo, tiles):
        def make():
            xd, k1 = _tensor_desc(x_layout)
            od, k2 = _tensor_desc(o_layout)
            r = len(scales)
            fs, fi, fo = _floats(scales), _floats(io), _floats(oo)
            d = self._desc(_p(xd), _p(od), r, fs, fi, fo)
            return _Entry(ctx, C.OperatorDesc(self._type, _addr(d)), tiles)
        return make

    def _placed_values(self, in_shape, out_shape, input_tile, output_tile):
        """_values with the tiles: (scales, the output array's shape, offsets, offsets) of
        the logical tensors, and the placement (input logical, input start, output
        logical, output start) for the cache key and the C call, None without tiles."""
        if input_tile is None and output_tile is None:
            return self._values(in_shape, out_shape) + (None,)
        op, r, role = self._name, len(in_shape), self._in_role
        li, si, _ = _tile(op, "input_tile", input_tile, r, role)
        lo, so, size = _tile(op, "output_tile", output_tile, r, role, sized=True)
        if lo is None:
            scales, shape, io, oo = self._values(li or in_shape, out_shape)
        else:
            scales, _, io, oo = self._values(li or in_shape, lo,
                                             "output_tile's logical_shape")
            if out_shape is None and size is None:
                raise _fail(op, "give out= or output_tile's size, "
                                "(logical_shape, start, size)")
            if out_shape is not None and size is not None and tuple(out_shape) != size:
                raise _fail(op, "out has shape %s, output_tile's size is %s"
                            % (_plain(tuple(out_shape)), size))
            shape = size if out_shape is None else tuple(out_shape)
        return scales, shape, io, oo, (li, si, lo, so)

    def __call__(self, x, out=None, input_tile=None, output_tile=None):
        """Runs the operator on ``x``: returns ``out`` (a new array when None). PyOpenCL
        arrays stay on the device (see ``enqueue``). ``input_tile=(logical_shape,
        start)`` and ``output_tile=(logical_shape, start)`` (or ``(logical_shape, start,
        size)`` without ``out``) say that x and out are tiles of larger logical tensors
        (see ``help(dmlcl.resample)``)."""
        if _is_device_array(x):
            return self._device(x, out, None, input_tile, output_tile)[0]
        if _dask.is_dask_array(x):  # a lazy Dask array of tile runs (python/dmlcl/_dask.py)
            return _dask.run(self, x, (), out, input_tile, output_tile)
        x = _host_input(self._name, self._in_role, x)
        if out is not None:
            if type(out) is not np.ndarray:
                raise _fail(self._name, "out must be a numpy.ndarray, got %s"
                            % type(out).__name__)
            self._check_out(out)
        oshape = None if out is None else out.shape
        # The input's own rules first: an empty input is the size rule's, not a zero
        # output size's.
        _layout(self._name, self._in_role, x.dtype, x.shape, x.strides)
        scales, size, io, oo, tiles = self._placed_values(x.shape, oshape, input_tile,
                                                          output_tile)
        ctx = self._ctx()
        if out is None:
            _fits(self._name, ctx, "the output", size, x.dtype,
                  "use smaller scales or size")
            y = target = ctx._spares.empty(size, x.dtype)
        else:
            y = target = out
            if _negative(out):
                target = np.empty(size, out.dtype)  # written, then copied into out
        key = (id(ctx), x.dtype, x.shape, x.strides, target.dtype, target.shape,
               target.strides, tiles)
        e = self._entries.get(key)
        if e is None:
            _resample_dtype(self._name, self._in_role, x.dtype, self._computes())
            if target.dtype != x.dtype:
                raise _fail(self._name, "out has dtype %s, %s has %s"
                            % (target.dtype, self._in_role, x.dtype), DataTypeError)
            e = self._entry(key, self._make(
                ctx, _layout(self._name, self._in_role, x.dtype, x.shape, x.strides),
                _layout(self._name, "out", target.dtype, target.shape, target.strides),
                scales, io, oo, tiles))
        self._last = e
        self._run_host(e, (x,), target)
        if target is not y:
            np.copyto(y, target)
        return y

    def enqueue(self, x, out=None, wait_for=None, input_tile=None, output_tile=None):
        """PyOpenCL arrays: enqueues the operator on the context's queue (after the events
        of x and out, and ``wait_for``) and returns ``(out, event)``, a
        ``pyopencl.Event``; nothing is copied and nothing waits. ``input_tile``,
        ``output_tile``: as for calling the operator."""
        return self._device(x, out, wait_for, input_tile, output_tile)

    def _device(self, x, out, wait_for, input_tile, output_tile):
        if not _is_device_array(x):
            raise _fail(self._name, "enqueue needs PyOpenCL arrays; %s is %s"
                        % (self._in_role, type(x).__name__))
        ctx = self._ctx(x)
        oshape = None if out is None else out.shape
        scales, size, io, oo, tiles = self._placed_values(x.shape, oshape, input_tile,
                                                          output_tile)
        if out is None:
            out = _pyopencl()[1].empty(ctx.queue, size, x.dtype)
        elif not _is_device_array(out):
            raise _fail(self._name, "out must be a PyOpenCL array when %s is one"
                        % self._in_role)
        _resample_dtype(self._name, self._in_role, x.dtype, self._computes())
        if out.dtype != x.dtype:
            raise _fail(self._name, "out has dtype %s, %s has %s"
                        % (out.dtype, self._in_role, x.dtype), DataTypeError)
        key = ("dev", id(ctx), x.dtype, x.shape, x.strides, out.dtype, out.shape,
               out.strides, tiles)
        e = self._entry(key, self._make(
            ctx, _device_layout(self._name, self._in_role, x),
            _device_layout(self._name, "out", out), scales, io, oo, tiles))
        return out, self._enqueue(e, (x,), out, wait_for)

    def input_box(self, input_shape, start, size, output_shape=None):
        """The halo query (``dmlcl_operator_input_box``): the box of the logical input
        (of shape ``input_shape``) that the output box (``start``, ``size``: one value per
        dimension, global indices into the logical output) reads, as ``(start, size)``
        tuples, the smallest box that holds every element those outputs read. The
        logical output's shape is ``output_shape``, else computed from ``input_shape`` as
        a call computes it. A size of 0 reads nothing: ``size`` all 0. Pure host
        arithmetic, no device; the box does not depend on the dtype."""
        op = self._name
        in_shape = _indices(op, "input_shape", input_shape, None, None, 1)
        r = len(in_shape)
        if output_shape is not None:
            output_shape = _indices(op, "output_shape", output_shape, r, self._in_role, 1)
        scales, out_shape, io, oo = self._values(in_shape, output_shape, "output_shape")
        start = _indices(op, "start", start, r, "the output", 0)
        size = _indices(op, "size", size, r, "the output", 0)
        xd, k1 = _packed_desc(_FLOAT32, in_shape)
        od, k2 = _packed_desc(_FLOAT32, out_shape)
        fs, fi, fo = _floats(scales), _floats(io), _floats(oo)
        return _box_query(self._type, self._desc(_p(xd), _p(od), r, fs, fi, fo), start, size)


class Resample(_ResampleBase):
    """A reusable resample: ``op = dmlcl.Resample(scales=2); op(x, out=y)``.

    The parameters are those of ``dmlcl.resample`` (see ``help(dmlcl.resample)``), fixed
    when the object is made; ``op(x, out=None)`` runs it. The object keeps one C operator
    (compiled program, plan and coordinate tables) per layout of its arguments (dtype,
    shape, strides, context), so a loop over arrays of one layout pays for the setup once.
    ``op.enqueue(x_dev, out=None, wait_for=None)`` takes PyOpenCL arrays and returns
    ``(out, event)``. ``close()`` (or a ``with`` block) releases the C operators.

    Tiles: ``op.input_box(input_shape, start, size)`` is the halo query, the input box
    that an output box of the logical tensors reads; ``op(x_box, input_tile=(input_shape,
    in_start), output_tile=(output_shape, start, size))`` runs the output box, bit for
    bit the whole run's (one C operator per placement is kept too).

    >>> op = dmlcl.Resample(scales=2)
    >>> x = np.arange(32, dtype=np.float32).reshape(4, 8)
    >>> start, size = op.input_box(x.shape, (4, 0), (4, 16))   # output rows 4..7
    >>> start, size
    ((1, 0), (3, 8))
    >>> tile = op(x[1:4], input_tile=(x.shape, start), output_tile=((8, 16), (4, 0), (4, 16)))
    >>> bool((tile == op(x)[4:]).all())
    True
    """
    _name = "resample"
    _in_role = "x"
    _size_name = "size"
    _size_sign = "x"

    def __init__(self, scales=None, size=None, mode="linear", input_offsets=0.5,
                 output_offsets=-0.5, rounding=None, antialias=False, context=None):
        super().__init__(scales, size, mode, input_offsets, output_offsets, rounding, context)
        self.antialias = bool(antialias)
        m = _MODES[mode]
        if self.antialias and m == C.MODE_LINEAR:
            # RESAMPLE3; linear ignores the rounding direction.
            self._type = C.OPERATOR_RESAMPLE3
            self._desc = lambda x, o, r, s, i, oo: C.Resample3Desc(
                x, o, m, _ROUNDINGS.get(rounding, 0), r, s, i, oo, 1)
        elif rounding is None:
            # RESAMPLE1: nearest rounds half up.
            self._type = C.OPERATOR_RESAMPLE1
            self._desc = lambda x, o, r, s, i, oo: C.Resample1Desc(x, o, m, r, s, i, oo)
        else:
            self._type = C.OPERATOR_RESAMPLE2
            self._desc = lambda x, o, r, s, i, oo: C.Resample2Desc(
                x, o, m, _ROUNDINGS[rounding], r, s, i, oo)

    @staticmethod
    def _scale_of(n, m):
        return float(np.float32(m) / np.float32(n))

    @staticmethod
    def _size_of(n, s):
        return int(math.floor(float(np.float32(n) * np.float32(s))))


def resample_output_shape(shape, scales):
    """The output shape that ``scales`` give an input of ``shape``: n x s rounded down per
    dimension, the product in float32, the shape ``dmlcl.resample(x, scales)`` returns (the C
    library's ``dmlcl_resample_output_sizes``). ``scales`` is one value for every
    dimension or one per dimension. A size that rounds to 0 or passes 4294967295, a bad
    scale or an empty shape raises ``InvalidArgumentError`` with the library's message.

    >>> dmlcl.resample_output_shape((10, 3), 0.7)
    (7, 2)
    """
    op = "resample_output_shape"
    sizes = tuple(shape)
    for d, n in enumerate(sizes):
        if not isinstance(n, (int, np.integer)) or not 0 <= n <= U32_MAX:
            raise _fail(op, "shape[%d] must be an integer from 1 to 4294967295, got %r"
                        % (d, n))
    r = len(sizes)
    fs = _per_dim(op, "scales", scales, r, _f32) if r else ()
    out = (c_uint32 * max(r, 1))()
    status = C.lib.dmlcl_resample_output_sizes(r, (c_uint32 * max(r, 1))(*sizes),
                                               (c_float * max(r, 1))(*fs), out)
    if status:
        e = C.error(status)
        # The library's rule in Python's names: the shape is its input sizes.
        text = e.message.replace("dmlcl_resample_output_sizes: ", op + ": ", 1)
        text = text.replace("input dimension_count", "len(shape)").replace("input sizes", "shape")
        raise type(e)(text, status)
    return tuple(out[:r])


def resample(x, scales=None, size=None, mode="linear", input_offsets=0.5,
             output_offsets=-0.5, rounding=None, antialias=False, out=None, context=None,
             input_tile=None, output_tile=None):
    """Resamples ``x`` by ``scales`` (or to ``size``) with nearest or linear interpolation
    (DirectML's RESAMPLE1, RESAMPLE2 and RESAMPLE3); returns a new array, or writes
    ``out`` and returns it.

    Every dimension may be resampled (batch and channel included; give scale 1 to keep
    one) by its scale and pixel offsets, the input coordinate computed in IEEE float32 in
    DirectML's order; the formulas: doc/operators.md#resample1-and-resample.

    - mode="nearest": the nearest input element, clamped to the input (ties round up;
      RESAMPLE1); with rounding="increasing" the coordinate rounds up, with "decreasing"
      down (RESAMPLE2, doc/operators.md#resample2). Bits are copied.
    - mode="linear" (default): the weighted sum over the 2^k corners of the k resampled
      dimensions, computed in float32 (float64: double) and rounded once
      (int8/uint8/int16/uint16: half to even, then saturated). Edges repeat the edge
      element.
    - antialias=True with mode="linear": RESAMPLE2 plus antialiased linear downsampling
      (a widened, normalized triangle filter, as PyTorch's
      ``F.interpolate(..., antialias=True, align_corners=False)``) in every dimension with
      scale < 1; no effect on other dimensions or on nearest
      (doc/operators.md#resample3).

    The default offsets 0.5 and -0.5 are pixel-centre sampling (ONNX ``half_pixel``);
    offsets 0 and 0 are ONNX ``asymmetric`` (doc/operators.md lists every ONNX mode).

    Parameters
    ----------
    x : numpy.ndarray (or array-like, or a PyOpenCL Array)
        1 to 8 dimensions; dtype float32, float16, float64 (on devices with cl_khr_fp64;
        else UnsupportedError), int8, uint8, int16 or uint16; int32 and uint32 with
        mode="nearest" only (moved, never computed: float32 holds them exactly only up to
        2**24); native byte order. Any layout is read in
        place through strides, without a copy: C or Fortran order, sliced and transposed
        views, broadcast views (stride 0). Only an array with a negative stride (e.g.
        ``x[::-1]``) is copied first: dmlcl's strides are unsigned. A stride that is not a
        multiple of the itemsize raises.
    scales : float or sequence of floats, optional
        Output over input size per dimension (a scalar: every dimension), each finite and
        > 0. Used as float32.
    size : sequence of ints, optional
        The output shape. Without it, the output shape is n x scale rounded down per
        dimension with the product in float32 (10 x 0.7 gives 7), as ``dmlcl run``
        computes it. With ``size`` (or ``out``) and no ``scales``, each scale is
        ``size / n`` in float32. With both, both are used as given: output sizes need not
        equal n x scale. At least one of scales, size and out is needed.
    mode : "linear" or "nearest"
    input_offsets, output_offsets : float or sequence of floats
        Per dimension (a scalar: every dimension); default 0.5 and -0.5.
    rounding : None, "increasing" or "decreasing"
        nearest's rounding: None rounds half up; "increasing" rounds up and "decreasing"
        down. Linear ignores it.
    antialias : bool
        The widened, normalized filter for linear downsampling.
    out : numpy.ndarray, optional
        Written in place (padding between its strided elements is left alone): x's dtype,
        x's rank, writable, any layout but broadcast; its shape is the output size (it
        must equal ``size`` when both are given). A negative-strided ``out`` is written
        through a temporary.
    context : dmlcl.Context, optional
        Default: ``dmlcl.default_context()``; for PyOpenCL arrays, a context on their
        queue.
    input_tile, output_tile : optional
        x and out as tiles (boxes) of larger logical tensors, e.g. one MPI rank's part of
        a domain-decomposed field: ``input_tile=(logical_shape, start)`` says x is the box
        of the logical input that starts at global index ``start`` (per dimension);
        ``output_tile=(logical_shape, start)`` likewise for out, or
        ``(logical_shape, start, size)`` to get a new array of that size. None: that
        array is the whole tensor. Scales, sizes and every rule apply to the logical
        shapes, and the result is the whole run's box bit for bit
        (``dmlcl_operator_create_tile``). x must hold what the output box reads:
        ``dmlcl.Resample(...).input_box(logical_input_shape, start, size)`` says which
        box that is (the halo query, ``dmlcl_operator_input_box``); it may hold more.

    Returns
    -------
    The output array; a new one of 4 MiB or more is memory the context kept from an
    earlier output that is gone (its pages already in place; doc/python.md, "NumPy
    arrays in place"). With PyOpenCL arrays (x and out), nothing is copied: the operator
    is enqueued on the context's queue after the arrays' events, and the returned array
    carries the completion event in ``.events`` (``dmlcl.Resample(...).enqueue`` returns
    it).

    Raises
    ------
    dmlcl.InvalidArgumentError (a ValueError) with the library's message naming the rule,
    e.g. ``resample: scales[1] must be finite and > 0, got -2`` or
    ``resample: x has dtype int64; resample takes float32, float16, float64 (where the
    device has cl_khr_fp64), int8, uint8, int16, uint16, and int32 and uint32 with
    mode='nearest' (not resample_grad)``; dmlcl.DataTypeError (also a TypeError) for a dtype dmlcl has no type
    for or an ``out`` of another dtype; dmlcl.UnsupportedError, dmlcl.NoDeviceError,
    dmlcl.OpenCLError, dmlcl.BuildError, dmlcl.OutOfMemoryError.

    Each call creates the C operator (its compiled program comes from the library's
    in-memory cache after the first call with that kind and dtype); in a loop, make a
    ``dmlcl.Resample(...)`` once and call it.

    Example
    -------
    >>> x = np.arange(24, dtype=np.float16).reshape(4, 6)
    >>> y = dmlcl.resample(x[1:, ::2].T, scales=2)       # sliced, transposed: no copy
    >>> y.shape, y.dtype
    ((6, 6), dtype('float16'))
    """
    return Resample(scales, size, mode, input_offsets, output_offsets, rounding, antialias,
                    context)(x, out=out, input_tile=input_tile, output_tile=output_tile)


class ResampleGrad(_ResampleBase):
    """A reusable resample backward pass: ``op = dmlcl.ResampleGrad(input_shape,
    scales=2); op(dy, out=dx)``. Parameters as ``dmlcl.resample_grad`` (see its help);
    reuse, ``enqueue``, tiles and ``input_box`` as ``dmlcl.Resample`` (the input is dy)."""
    _name = "resample_grad"
    _in_role = "dy"
    _size_name = "input_shape"
    _size_sign = "/"
    _type = C.OPERATOR_RESAMPLE_GRAD1

    def __init__(self, input_shape=None, scales=None, mode="linear", input_offsets=0.5,
                 output_offsets=-0.5, rounding=None, context=None):
        super().__init__(scales, input_shape, mode, input_offsets, output_offsets, rounding,
                         context)
        m = _MODES[mode]
        if m == C.MODE_NEAREST_NEIGHBOR and rounding is None:
            # RESAMPLE_GRAD1 rounds nearest coordinates only down or up (DirectML's
            # too). Shifting the offsets by 0.5 to mimic round half up rounds
            # differently in float32, so it is refused, not approximated.
            raise _fail(self._name, "rounding=None (round half up) has no backward "
                                    "operator: RESAMPLE_GRAD1 rounds down or up only, and "
                                    "no shift of the offsets gives round half up exactly; "
                                    "give the forward pass's rounding, 'increasing' or "
                                    "'decreasing' (RESAMPLE2)")
        direction = _ROUNDINGS.get(rounding, 0)

        def desc(x, o, r, s, i, oo):
            return C.ResampleGrad1Desc(x, o, m, direction, r, s, i, oo)
        self._desc = desc

    @staticmethod
    def _scale_of(n, m):
        return float(np.float32(n) / np.float32(m))

    @staticmethod
    def _size_of(n, s):
        return int(math.floor(float(np.float32(n) / np.float32(s))))


def resample_grad(dy, input_shape, scales=None, mode="linear", input_offsets=0.5,
                  output_offsets=-0.5, rounding=None, out=None, context=None,
                  input_tile=None, output_tile=None):
    """The backward pass of ``dmlcl.resample`` (RESAMPLE_GRAD1): the gradient with respect
    to the forward input, given ``dy``, the gradient of the forward output; returns a new
    array of shape ``input_shape``, or writes ``out`` and returns it.

    Give the forward pass's ``scales``, ``mode``, offsets and ``rounding``: each element
    of dy is added to the input elements the forward pass read, times the weights it used
    (doc/operators.md#resample_grad1); elements nothing read get 0. The sums
    are deterministic (a gather in a fixed order, no atomics), in float32 (float64:
    double), rounded once (int8/uint8/int16/uint16: half to even, saturated once).
    Antialiased forward
    passes have no backward operator.

    Parameters
    ----------
    dy : numpy.ndarray (or array-like, or a PyOpenCL Array)
        Shaped like the forward output; dtype float32, float16, float64 (cl_khr_fp64),
        int8, uint8, int16 or uint16 (not int32 or uint32: the sums are in float32); any
        layout, read in place (broadcast views too), except negative
        strides (copied first).
    input_shape : sequence of ints
        The forward input's shape, the output's shape (``out``'s shape when None).
    scales : float or sequence of floats, optional
        The forward scales; default ``dy.shape / input_shape`` in float32 (the forward
        pass's default when it was given ``size=``).
    mode, input_offsets, output_offsets, rounding :
        The forward pass's (see ``help(dmlcl.resample)``); mode="nearest" needs
        rounding="increasing" or "decreasing": RESAMPLE_GRAD1 has no round-half-up,
        and no shift of the offsets mimics it exactly in float32 (rounding=None raises
        InvalidArgumentError). The result is the exact transpose of the forward pass
        (identity dimensions included: scale 1 with offsets that cancel).
    out : numpy.ndarray, optional
        Written in place: dy's dtype, shape ``input_shape``, writable.
    context : dmlcl.Context, optional
    input_tile, output_tile : optional
        dy and out as tiles of larger logical tensors, as for ``dmlcl.resample``
        (input_tile places dy, output_tile the gradient returned);
        ``ResampleGrad(...).input_box(logical_dy_shape, start, size)`` gives the box of dy
        that an output box reads (the forward outputs that read it).

    Returns and raises as ``dmlcl.resample``.

    Example
    -------
    >>> dmlcl.resample_grad(np.array([[4., 5., 6.]], np.float32), (2, 2),
    ...                     scales=(0.5, 1.5), mode="nearest", rounding="decreasing")
    array([[9., 6.],
           [0., 0.]], dtype=float32)
    """
    return ResampleGrad(input_shape, scales, mode, input_offsets, output_offsets, rounding,
                        context)(dy, out=out, input_tile=input_tile, output_tile=output_tile)
