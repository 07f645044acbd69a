/*
 * dmlcl: DirectML tensor-operator semantics on OpenCL devices.
 *
 * One header, C99, usable from C++. The shape follows DirectML: descriptor structs,
 * one generic dmlcl_operator_create(), buffer bindings at dispatch.
 *
 * What each operator computes (fields, formulas, edge rules, tolerances, errors) is
 * doc/operators.md, installed with the README under $prefix/share/doc/dmlcl; the
 * comments below give a line each.
 *
 * Error model: every function that can fail returns a dmlcl_status. On failure,
 * dmlcl_last_error() returns a thread-local message naming the operator, the field and
 * the rule (or the OpenCL call and its error). Validation always runs before any
 * OpenCL call, so a rejected descriptor never touches the device.
 */
#ifndef DMLCL_H
#define DMLCL_H

#include <stdint.h>
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include "dmlcl_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ status */

/* Result of every fallible call. Values are stable (ABI). */
typedef enum dmlcl_status {
    DMLCL_SUCCESS = 0,
    DMLCL_INVALID_ARGUMENT = 1, /* a descriptor, binding or argument breaks a rule */
    DMLCL_UNSUPPORTED = 2,      /* valid, but not on this device (e.g. FLOAT64 without cl_khr_fp64) */
    DMLCL_OUT_OF_MEMORY = 3,    /* host or device allocation failed */
    DMLCL_OPENCL_ERROR = 4,     /* an OpenCL call failed; the message names it */
    DMLCL_BUILD_ERROR = 5,      /* a kernel failed to JIT-compile; the message holds the build log head */
    DMLCL_NO_DEVICE = 6,        /* no OpenCL device matches */
    DMLCL_IO_ERROR = 7          /* a file could not be read or written */
} dmlcl_status;

/* The enum's name, e.g. "DMLCL_INVALID_ARGUMENT"; "DMLCL_UNKNOWN_STATUS" otherwise. */
const char *dmlcl_status_string(dmlcl_status status);

/* Message for the last failing call on this thread (never NULL; "" if none failed yet).
 * Example: "reverse_subsequences: sequence_lengths_tensor sizes[2] must be 1 (the axis), got 3".
 * The text stays valid until the next failing dmlcl call on the same thread. */
const char *dmlcl_last_error(void);

/* The name of an OpenCL error code, e.g. "CL_INVALID_BUFFER_SIZE" for -61;
 * "CL_UNKNOWN_ERROR" for a code OpenCL 1.2 does not name. Never NULL. */
const char *dmlcl_opencl_error_name(cl_int err);

/* Library version, "MAJOR.MINOR.PATCH" (equals DMLCL_VERSION_STRING of the build). */
const char *dmlcl_version(void);

/* ------------------------------------------------------------------ tensors */

/* Values equal DirectML's DML_TENSOR_DATA_TYPE. */
typedef enum dmlcl_tensor_data_type {
    DMLCL_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DMLCL_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DMLCL_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DMLCL_TENSOR_DATA_TYPE_UINT32 = 3,
    DMLCL_TENSOR_DATA_TYPE_UINT16 = 4,
    DMLCL_TENSOR_DATA_TYPE_UINT8 = 5,
    DMLCL_TENSOR_DATA_TYPE_INT32 = 6,
    DMLCL_TENSOR_DATA_TYPE_INT16 = 7,
    DMLCL_TENSOR_DATA_TYPE_INT8 = 8,
    DMLCL_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DMLCL_TENSOR_DATA_TYPE_UINT64 = 10,
    DMLCL_TENSOR_DATA_TYPE_INT64 = 11
} dmlcl_tensor_data_type;

#define DMLCL_TENSOR_DIMENSION_COUNT_MAX 8

/* A tensor's shape and layout in a buffer.
 *   dimension_count: 1..8.   sizes: dimension_count values, each >= 1.
 *   strides: in elements, NULL = packed row-major (last dimension fastest); 0 broadcasts
 *            along that dimension (inputs only: an output whose indices share an element
 *            is rejected). Any order (transposed, padded, sliced layouts).
 *   total_tensor_size_in_bytes: 0 = compute it, else at least dmlcl_tensor_size_in_bytes(). */
typedef struct dmlcl_tensor_desc {
    dmlcl_tensor_data_type data_type;
    uint32_t dimension_count;
    const uint32_t *sizes;
    const uint32_t *strides;
    uint64_t total_tensor_size_in_bytes;
} dmlcl_tensor_desc;

/* DirectML's DMLCalcBufferTensorSize: (1 + sum (size-1)*stride) * element size (packed:
 * product of sizes * element size), rounded up to a multiple of 4. 0 for an invalid desc
 * (NULL, bad rank, size 0, unknown type, or a span that overflows 64 bits). */
uint64_t dmlcl_tensor_size_in_bytes(const dmlcl_tensor_desc *desc);

/* Bytes per element of a data type (1, 2, 4 or 8); 0 for UNKNOWN or an invalid value. */
uint32_t dmlcl_data_type_size(dmlcl_tensor_data_type type);

/* ------------------------------------------------------------------ operators */

/* REVERSE_SUBSEQUENCES: reverses the first lengths[j] elements (at most the line) of every
 * line along axis and copies the rest; the formula: doc/operators.md#reverse_subsequences.
 * Any of the 11 data types (bits are moved, never converted); sequence_lengths UINT32 or
 * UINT64, shaped like input but with sizes[axis] == 1. */
typedef struct dmlcl_reverse_subsequences_desc {
    const dmlcl_tensor_desc *input_tensor;
    const dmlcl_tensor_desc *sequence_lengths_tensor;
    const dmlcl_tensor_desc *output_tensor;
    uint32_t axis;
} dmlcl_reverse_subsequences_desc;

typedef enum dmlcl_interpolation_mode {
    DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR = 0,
    DMLCL_INTERPOLATION_MODE_LINEAR = 1
} dmlcl_interpolation_mode;

/* RESAMPLE1: resamples every dimension by its scale and pixel offsets (DirectML's order),
 * nearest-neighbour (ties round up) or linear, the edges clamped; the coordinate in float32
 * and the formulas: doc/operators.md#resample1-and-resample.
 * dimension_count must equal the tensors' rank; the three arrays hold that many values.
 * Types: FLOAT32, FLOAT16, FLOAT64 (cl_khr_fp64), INT8, UINT8, INT16, UINT16 (linear
 * rounds half to even and saturates), INT32 and UINT32 with NEAREST_NEIGHBOR only. */
typedef struct dmlcl_resample1_desc {
    const dmlcl_tensor_desc *input_tensor;
    const dmlcl_tensor_desc *output_tensor;
    dmlcl_interpolation_mode interpolation_mode;
    uint32_t dimension_count;
    const float *scales;
    const float *input_pixel_offsets;
    const float *output_pixel_offsets;
} dmlcl_resample1_desc;

/* The output sizes that scales give: input size times scale, rounded down, the product in
 * float32 as ONNX Runtime computes it (10 x 0.7f is 7; doc/operators.md#resample1-and-resample).
 * A pure host function. Errors (INVALID_ARGUMENT, nothing written): the tensor size rules
 * for input_sizes (dimension_count 1 to 8, sizes >= 1), the scale rule (finite and > 0), a
 * NULL array, an output size outside 1 to 4294967295. */
dmlcl_status dmlcl_resample_output_sizes(uint32_t dimension_count, const uint32_t *input_sizes,
                                         const float *scales, uint32_t *output_sizes);

/* RESAMPLE (DirectML's v0): RESAMPLE1 with input offsets 0.5 and output offsets -0.5
 * (pixel-centre sampling). scale_count must equal the tensors' rank. */
typedef struct dmlcl_resample_desc {
    const dmlcl_tensor_desc *input_tensor;
    const dmlcl_tensor_desc *output_tensor;
    dmlcl_interpolation_mode interpolation_mode;
    uint32_t scale_count;
    const float *scales;
} dmlcl_resample_desc;

/* RESAMPLE2's rounding direction for NEAREST_NEIGHBOR (values equal DirectML's
 * DML_AXIS_DIRECTION): the coordinate rounds up (INCREASING) or down (DECREASING). */
typedef enum dmlcl_axis_direction {
    DMLCL_AXIS_DIRECTION_INCREASING = 0, /* rounds up */
    DMLCL_AXIS_DIRECTION_DECREASING = 1  /* rounds down */
} dmlcl_axis_direction;

/* RESAMPLE2: RESAMPLE1 whose nearest neighbour rounds the coordinate up or down by
 * rounding_direction instead of half up. LINEAR ignores the direction (it must still be 0
 * or 1). ONNX's nearest modes as directions and offsets: doc/operators.md#resample2. */
typedef struct dmlcl_resample2_desc {
    const dmlcl_tensor_desc *input_tensor;
    const dmlcl_tensor_desc *output_tensor;
    dmlcl_interpolation_mode interpolation_mode;
    dmlcl_axis_direction rounding_direction;
    uint32_t dimension_count;
    const float *scales;
    const float *input_pixel_offsets;
    const float *output_pixel_offsets;
} dmlcl_resample2_desc;

/* RESAMPLE_GRAD1: the backward pass of RESAMPLE2 with the same mode, direction, scales
 * and offsets (the forward pass's values). input_gradient_tensor is shaped like the
 * forward output, output_gradient_tensor like the forward input. Deterministic: a gather,
 * no atomics, bit-identical to a forward-order scatter; the sums:
 * doc/operators.md#resample_grad1. RESAMPLE1's types but the
 * 32-bit integers (float32 holds them exactly only up to 2^24): FLOAT32, FLOAT16, FLOAT64
 * (with cl_khr_fp64), INT8, UINT8, INT16 and UINT16 (the float sum rounds half to even
 * and saturates once, on the store). */
typedef struct dmlcl_resample_grad1_desc {
    const dmlcl_tensor_desc *input_gradient_tensor;
    const dmlcl_tensor_desc *output_gradient_tensor;
    dmlcl_interpolation_mode interpolation_mode;
    dmlcl_axis_direction rounding_direction;
    uint32_t dimension_count;
    const float *scales;
    const float *input_pixel_offsets;
    const float *output_pixel_offsets;
} dmlcl_resample_grad1_desc;

/* RESAMPLE3: RESAMPLE2 plus antialiased (0 or 1, DirectML's BOOL): with 1, LINEAR
 * downsampling (scale < 1) through a widened, normalized triangle filter, as PyTorch's
 * antialias=True; the formulas: doc/operators.md#resample3. No effect on NEAREST_NEIGHBOR
 * or on dimensions with scale >= 1. */
typedef struct dmlcl_resample3_desc {
    const dmlcl_tensor_desc *input_tensor;
    const dmlcl_tensor_desc *output_tensor;
    dmlcl_interpolation_mode interpolation_mode;
    dmlcl_axis_direction rounding_direction;
    uint32_t dimension_count;
    const float *scales;
    const float *input_pixel_offsets;
    const float *output_pixel_offsets;
    int antialiased;
} dmlcl_resample3_desc;

typedef enum dmlcl_operator_type {
    DMLCL_OPERATOR_INVALID = 0,
    DMLCL_OPERATOR_REVERSE_SUBSEQUENCES = 1, /* desc: dmlcl_reverse_subsequences_desc */
    DMLCL_OPERATOR_RESAMPLE1 = 2,            /* desc: dmlcl_resample1_desc */
    DMLCL_OPERATOR_RESAMPLE = 3,             /* desc: dmlcl_resample_desc */
    DMLCL_OPERATOR_RESAMPLE2 = 4,            /* desc: dmlcl_resample2_desc */
    DMLCL_OPERATOR_RESAMPLE_GRAD1 = 5,       /* desc: dmlcl_resample_grad1_desc */
    DMLCL_OPERATOR_RESAMPLE3 = 6             /* desc: dmlcl_resample3_desc */
} dmlcl_operator_type;

typedef struct dmlcl_operator_desc {
    dmlcl_operator_type type;
    const void *desc;
} dmlcl_operator_desc;

/* ------------------------------------------------------------------ context */

typedef struct dmlcl_context dmlcl_context;

/* Wraps the caller's OpenCL objects; each is retained and released with the context.
 * queue may be NULL: an in-order queue with profiling enabled is created.
 * Errors: INVALID_ARGUMENT (NULL ctx/device/out, queue of another device),
 * OPENCL_ERROR, OUT_OF_MEMORY. */
dmlcl_status dmlcl_context_create(cl_context ctx, cl_device_id device, cl_command_queue queue,
                                  dmlcl_context **out);

/* Picks a device by $DMLCL_DEVICE: "gpu", "cpu", "P:D" (platform and device index), or a
 * case-insensitive substring of the platform or device name; unset or empty: the first
 * GPU, else the first CPU device. Errors: NO_DEVICE (naming what was asked), OPENCL_ERROR. */
dmlcl_status dmlcl_context_create_default(dmlcl_context **out);

/* Like dmlcl_context_create_default() with an explicit selector (NULL = default rule). */
dmlcl_status dmlcl_context_create_for(const char *selector, dmlcl_context **out);

/* Drops the caller's reference; the context lives on while operators created from it do.
 * NULL is ignored. */
void dmlcl_context_release(dmlcl_context *context);

cl_context dmlcl_context_cl_context(const dmlcl_context *context);
cl_device_id dmlcl_context_device(const dmlcl_context *context);
cl_command_queue dmlcl_context_queue(const dmlcl_context *context);

/* ------------------------------------------------------------------ operators: lifetime */

typedef struct dmlcl_operator dmlcl_operator;

/* Validates the descriptor (every rule, before any OpenCL call), plans, and gets the
 * compiled kernel from the program cache (JIT-compiling on a miss). The descriptor and
 * everything it points to may be freed once this returns. Thread-safe.
 * Errors: INVALID_ARGUMENT, UNSUPPORTED, BUILD_ERROR, OPENCL_ERROR, OUT_OF_MEMORY. */
dmlcl_status dmlcl_operator_create(dmlcl_context *context, const dmlcl_operator_desc *desc,
                                   dmlcl_operator **out);

/* NULL is ignored. */
void dmlcl_operator_release(dmlcl_operator *op);

/* The plan the planner chose, one line, e.g. "variant=generic rank=3 axis=2 elem=4B
 * len=4B idx32 global=4096 local=256 options='-DELEM_BYTES=4 ...'". Valid while op lives;
 * "" for NULL. */
const char *dmlcl_operator_plan(const dmlcl_operator *op);

/* A range of a cl_mem. offset in bytes, a multiple of the element size. size_in_bytes:
 * the bytes usable from offset; 0 means "to the end of the buffer". The range must hold
 * the tensor's span: (1 + sum (size-1)*stride) * element size bytes. */
typedef struct dmlcl_buffer_binding {
    cl_mem buffer;
    uint64_t offset;
    uint64_t size_in_bytes;
} dmlcl_buffer_binding;

/* Enqueues the operator on the context's queue. Inputs in descriptor order
 * (reverse_subsequences: input, sequence_lengths; resample: input), outputs likewise.
 * Bindings are checked before anything is enqueued: counts, NULL buffers, buffers of the
 * context's cl_context, alignment, range within CL_MEM_SIZE, span fits, no output range
 * overlapping an input range or another output (sub-buffers are resolved to their parent),
 * no NULL event in event_wait_list. event, if not NULL,
 * receives the completion event. Thread-safe (per-operator kernel arguments are locked).
 * Errors: INVALID_ARGUMENT, OPENCL_ERROR, OUT_OF_MEMORY. */
dmlcl_status dmlcl_operator_enqueue(dmlcl_operator *op,
                                    const dmlcl_buffer_binding *inputs, uint32_t input_count,
                                    const dmlcl_buffer_binding *outputs, uint32_t output_count,
                                    cl_uint num_events_in_wait_list,
                                    const cl_event *event_wait_list, cl_event *event);

/* Blocking convenience on host arrays laid out as the descriptors say (each holds at least
 * the tensor's span). Output elements outside the tensor (padding between strided
 * elements) are preserved. On a CPU device the arrays are used in place
 * (CL_MEM_USE_HOST_PTR, no copy: peak memory is the arrays'); an array whose address is not
 * a multiple of its element size, an output overlapping another array, and every array on
 * other devices are copied (doc/api.md, "Host arrays"). Works on an out-of-order queue too
 * (the outputs are fetched after the kernel's event). Errors as dmlcl_operator_enqueue,
 * and UNSUPPORTED, found before any buffer is created, when a buffer is over the device's
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE or the copies together over its CL_DEVICE_GLOBAL_MEM_SIZE
 * (the message names the tensor and the limit). */
dmlcl_status dmlcl_operator_execute_host(dmlcl_operator *op, const void *const *inputs,
                                         void *const *outputs);

/* Optional, ahead of dmlcl_operator_execute_host: makes now what the next call on this
 * operator would make first whatever its arrays, so that a caller may do it while it
 * reads its data (on another thread). Where the host path stages (GPUs): the context's
 * pinned buffers for this operator's array sizes, which the context keeps for its next
 * call (pinning cost about 10 ms per 16 MiB buffer on an H200 node); elsewhere nothing.
 * Thread-safe, as execute_host is. Errors: INVALID_ARGUMENT (op NULL; a malformed
 * DMLCL_HOST_PATH, DMLCL_HOST_THREADS or DMLCL_HOST_COPY), OPENCL_ERROR, OUT_OF_MEMORY. */
dmlcl_status dmlcl_operator_prepare_host(dmlcl_operator *op);

/* ------------------------------------------------------------------ tiles: past one device */

/* A tile: a box of a larger, logical tensor (a field domain-decomposed over processes or
 * devices). The tile's own sizes, strides and buffer are its dmlcl_tensor_desc's, as for
 * any tensor; this says where the box lies: per dimension, the logical tensor's size and
 * the global index of the tile's first element (HDF5's hyperslab start). dimension_count
 * equals the tensor's; start[d] + sizes[d] <= logical_sizes[d]. */
typedef struct dmlcl_tile_desc {
    uint32_t dimension_count;
    const uint32_t *logical_sizes;
    const uint32_t *start;
} dmlcl_tile_desc;

/* dmlcl_operator_create() for one tile of each tensor: the operator computes the output
 * tile's elements of the run on the whole logical tensors, bit for bit (coordinates,
 * nearest ties, weights, antialias taps and gradient sums come from global indices), reading
 * the input tile. input_tile places the operator's data input (RESAMPLE family:
 * input_tensor; RESAMPLE_GRAD1: input_gradient_tensor; REVERSE_SUBSEQUENCES: input_tensor,
 * whose sequence_lengths_tensor is then the same box with size 1 on the axis), output_tile
 * its output. NULL means the tensor is the whole logical tensor (start 0). The operator's
 * rules apply to the logical tensors; in addition the input tile must cover the input box
 * that dmlcl_operator_input_box() gives for the output tile (it may be larger), and a
 * REVERSE_SUBSEQUENCES output tile must span the whole axis (a sequence's elements would
 * come from other tiles; split along the other dimensions). Dispatch as for any operator,
 * with the tiles' buffers. Errors: as dmlcl_operator_create; a bad tile is INVALID_ARGUMENT
 * naming the field and the rule, before any OpenCL call. */
dmlcl_status dmlcl_operator_create_tile(dmlcl_context *context, const dmlcl_operator_desc *desc,
                                        const dmlcl_tile_desc *input_tile,
                                        const dmlcl_tile_desc *output_tile,
                                        dmlcl_operator **out);

/* The halo query, a pure host function (no device, no OpenCL call): for the operator
 * desc on whole (logical) tensors and a box of its output (output_start, output_sizes:
 * one value per dimension of the tensors), the smallest box of the data input (see
 * dmlcl_operator_create_tile) that holds every element those outputs read: nearest's
 * chosen indices, linear's lower corner and its upper one wherever its weight is not 0,
 * the antialiased filter's taps of nonzero weight, RESAMPLE_GRAD1's forward outputs that
 * read the box, REVERSE_SUBSEQUENCES' whole axis. Elements of weight 0 are not read. An
 * output box with a size of 0 reads nothing: every input size is then 0 (start 0).
 * Errors: INVALID_ARGUMENT (the descriptor breaks a rule, or the box leaves the output). */
dmlcl_status dmlcl_operator_input_box(const dmlcl_operator_desc *desc,
                                      const uint32_t *output_start,
                                      const uint32_t *output_sizes, uint32_t *input_start,
                                      uint32_t *input_sizes);

/* ------------------------------------------------------------------ descriptors held by layers */

/* For a layer that cuts operators into tiles (the MPI layer) without knowing each operator's
 * descriptor struct. dmlcl_operator_desc_copy: *copy = desc with its tensors and arrays, in
 * one allocation the caller frees with dmlcl_operator_desc_free (NULL is ignored); the
 * operator's rules are not checked (dmlcl_operator_input_box checks them). Errors:
 * INVALID_ARGUMENT (NULL desc or copy, an unknown type, a NULL tensor, a shape or array over
 * DMLCL_TENSOR_DIMENSION_COUNT_MAX), OUT_OF_MEMORY. */
dmlcl_status dmlcl_operator_desc_copy(const dmlcl_operator_desc *desc,
                                      dmlcl_operator_desc **copy);
void dmlcl_operator_desc_free(dmlcl_operator_desc *copy);
/* desc's data input (which 0: as dmlcl_operator_create_tile places it), data output
 * (which 1) or REVERSE_SUBSEQUENCES' sequence lengths (which 2) tensor; NULL for an
 * unknown type or a which the operator has not. */
const dmlcl_tensor_desc *dmlcl_operator_desc_tensor(const dmlcl_operator_desc *desc,
                                                    uint32_t which);

/* A tile of one tensor: its box of the logical tensor (start, sizes: one value per
 * dimension) and its strides in elements (NULL: packed). */
typedef struct dmlcl_tile_box {
    const uint32_t *start;
    const uint32_t *sizes;
    const uint32_t *strides;
} dmlcl_tile_box;

/* dmlcl_operator_create_tile from a descriptor of the whole (logical) tensors: the data
 * input and output become tiles of the boxes and strides of input and output (a
 * REVERSE_SUBSEQUENCES lengths tensor: the input's box with size 1 on the axis, packed).
 * Errors: as dmlcl_operator_create_tile; INVALID_ARGUMENT for a NULL box, start or sizes. */
dmlcl_status dmlcl_operator_create_tile_box(dmlcl_context *context,
                                            const dmlcl_operator_desc *whole,
                                            const dmlcl_tile_box *input,
                                            const dmlcl_tile_box *output, dmlcl_operator **out);

/* ------------------------------------------------------------------ program cache */

/* Process-wide counters of the program cache. */
typedef struct dmlcl_cache_stats {
    uint64_t memory_hits; /* program found in memory */
    uint64_t disk_hits;   /* program loaded from the on-disk cache */
    uint64_t compiles;    /* program JIT-compiled from source */
} dmlcl_cache_stats;

/* Fills *stats (NULL is ignored). */
void dmlcl_cache_get_stats(dmlcl_cache_stats *stats);

/* The on-disk cache folder in use ($DMLCL_CACHE_DIR, else $XDG_CACHE_HOME/dmlcl, else
 * ~/.cache/dmlcl, plus a versioned subfolder), or NULL when disabled (DMLCL_CACHE_DIR=off
 * or no home). The string is thread-local and valid until the next call on this thread.
 * The folder is created on the first store; it may not exist yet. It is used only while it
 * is trusted (the user's and writable by no one else, or DMLCL_CACHE_SHARED=group: see
 * doc/api.md, "Cache"); else it is not used, and stderr says why, once. */
const char *dmlcl_cache_directory(void);

/* Removes this library's entries (and leftover temporary files) from the on-disk cache
 * folder; other files there are left alone. Programs cached in memory stay. Success when
 * the disk cache is off or the folder does not exist. Errors: IO_ERROR (the folder cannot
 * be read, or an entry cannot be removed; the message names the file). */
dmlcl_status dmlcl_cache_clear(void);

/* Counts the entries of the on-disk cache folder and their total size in bytes (either
 * pointer may be NULL). Both 0 when the disk cache is off or the folder does not exist.
 * Errors: IO_ERROR (the folder cannot be read; the counts are then 0). */
dmlcl_status dmlcl_cache_disk_usage(uint64_t *entries, uint64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif /* DMLCL_H */
