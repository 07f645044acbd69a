/* Internal interfaces shared by the library's files. Nothing here is exported. */
#ifndef DMLCL_INTERNAL_H
#define DMLCL_INTERNAL_H

#include "config.h"
#include "dmlcl.h"
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define DMLCL_MAXDIM DMLCL_TENSOR_DIMENSION_COUNT_MAX

/* ---- errors (error.c) -------------------------------------------------------------
 * Failure reporting never allocates: the message lives in a thread-local buffer. */
#if defined(__GNUC__)
#define DMLCL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DMLCL_PRINTF(a, b)
#endif
/* Sets this thread's message and returns status, so callers can `return dmlcl__fail(...)`. */
dmlcl_status dmlcl__fail(dmlcl_status status, const char *fmt, ...) DMLCL_PRINTF(2, 3);
/* "clCall: CL_ERROR_NAME"; maps CL_OUT_OF_HOST_MEMORY and friends to OUT_OF_MEMORY. */
dmlcl_status dmlcl__cl_fail(const char *call, cl_int err);

/* ---- allocation (alloc.c) ----------------------------------------------------------
 * Every library allocation goes through these, so tests can inject failures. */
void *dmlcl__malloc(size_t n);
void *dmlcl__calloc(size_t count, size_t n);
void *dmlcl__realloc(void *p, size_t n);
void dmlcl__free(void *p);
char *dmlcl__strdup(const char *s);
/* Test hook: fail the Nth allocation from now on (1 = next), 0 = never. Returns the
 * number of allocations since the last call. Not in the public header. */
uint64_t dmlcl_test_fail_alloc_after(uint64_t n);
/* Test hook: library allocations currently not freed (leak checks). */
int64_t dmlcl_test_live_allocations(void);

/* ---- hashing (hash.c) --------------------------------------------------------------- */
uint64_t dmlcl__hash64(const void *data, size_t len, uint64_t seed); /* FNV-1a 64 */

/* ---- tensors (tensor.c) -------------------------------------------------------------
 * A validated, normalized copy of a dmlcl_tensor_desc: strides always explicit. */
typedef struct dmlcl__tensor {
    dmlcl_tensor_data_type type;
    uint32_t rank;
    uint32_t elem_size;
    uint64_t sizes[DMLCL_MAXDIM];
    uint64_t strides[DMLCL_MAXDIM];
    uint64_t elements;   /* product of sizes */
    uint64_t span;       /* 1 + sum (size-1)*stride: elements the buffer must hold */
    uint64_t span_bytes; /* span * elem_size */
    /* Where the tensor lies in its logical tensor (tile.c): a tile's first element and the
     * whole's sizes; a whole tensor has origin 0 and whole = sizes. */
    uint64_t origin[DMLCL_MAXDIM];
    uint64_t whole[DMLCL_MAXDIM];
    int tiled;
} dmlcl__tensor;

/* Checks desc against the tensor rules (non-NULL, rank 1..8, sizes >= 1, known type,
 * no 64-bit overflow, total_tensor_size_in_bytes 0 or large enough) and fills *t.
 * Messages read "<op>: <field> ...". */
dmlcl_status dmlcl__tensor_check(const char *op, const char *field, const dmlcl_tensor_desc *desc,
                                 dmlcl__tensor *t);
/* Rejects an output layout in which two indices share one element. */
dmlcl_status dmlcl__tensor_check_no_alias(const char *op, const char *field, const dmlcl__tensor *t);
const char *dmlcl__type_name(dmlcl_tensor_data_type type); /* "FLOAT32", ... */
/* The part of t from index start with the given sizes (each within t): fills *v and
 * returns the element offset of its first element from t's. */
uint64_t dmlcl__tensor_view(const dmlcl__tensor *t, const uint64_t *start, const uint64_t *sizes,
                           dmlcl__tensor *v);

/* ---- tiles (tile.c) ---------------------------------------------------------------------
 * A box of a logical tensor: per dimension its first index and its extent (0: empty). */
typedef struct dmlcl__box {
    uint64_t start[DMLCL_MAXDIM];
    uint64_t size[DMLCL_MAXDIM];
} dmlcl__box;
/* Marks t as its own whole tensor (origin 0, whole = sizes). */
void dmlcl__tile_whole(dmlcl__tensor *t);
/* Places the validated tensor t (field tensor_field) in its logical tensor by tile (field
 * tile_field; NULL: t is the whole tensor): checks the tile's rules, fills origin/whole. */
dmlcl_status dmlcl__tile_place(const char *op, const char *tile_field, const char *tensor_field,
                               const dmlcl_tile_desc *tile, dmlcl__tensor *t);
/* The box t covers in its logical tensor. */
void dmlcl__tile_box(const dmlcl__tensor *t, dmlcl__box *b);
/* Fails unless input tile `in` holds the box `reads` (an empty box always fits). */
dmlcl_status dmlcl__tile_covers(const char *op, const dmlcl__tensor *in, const dmlcl__box *reads);

/* ---- context (context.c) ------------------------------------------------------------ */
typedef struct dmlcl__device_info {
    char name[256];
    char vendor[256];
    char driver_version[128];
    char platform_version[256];
    cl_uint vendor_id;
    cl_device_type type;
    cl_uint compute_units;
    size_t max_work_group_size;
    cl_ulong max_mem_alloc;
    cl_ulong global_mem;
    cl_uint mem_base_addr_align; /* bits */
    int is_cpu;
    int has_fp64;
} dmlcl__device_info;

struct dmlcl_context {
    cl_context cl_ctx;
    cl_device_id device;
    cl_command_queue queue;
    dmlcl__device_info info;
    int refs; /* atomic: the caller's reference plus one per live operator */
};
void dmlcl__context_retain(dmlcl_context *c);

/* ---- kernel sources (generated kernels.c) -------------------------------------------- */
typedef struct dmlcl__kernel_source {
    const char *name;   /* file name without .cl */
    const char *text;   /* not NUL-terminated in general: use length */
    size_t length;
    uint64_t hash;      /* FNV-1a 64 of the bytes */
} dmlcl__kernel_source;
extern const dmlcl__kernel_source dmlcl__kernel_sources[];
extern const size_t dmlcl__kernel_source_count;
const dmlcl__kernel_source *dmlcl__kernel_find(const char *name);

/* ---- program cache (cache.c) -----------------------------------------------------------
 * Returns a retained program for (context, device, common.cl + source, options):
 * from memory, else from disk, else compiled. Compiles happen outside the lock; the loser
 * of an insert race releases its copy. The caller releases the returned program. */
dmlcl_status dmlcl__program_get(dmlcl_context *c, const char *kernel_file, const char *options,
                                cl_program *out);
/* Creates a kernel from a cached program; the program reference is dropped. */
dmlcl_status dmlcl__kernel_get(dmlcl_context *c, const char *kernel_file, const char *options,
                               const char *kernel_name, cl_kernel *out);
/* Counts the dmlcl contexts wrapping cl_ctx; when the last detaches, its programs are
 * dropped from memory (the cl_context's address may be reused afterwards). */
dmlcl_status dmlcl__cache_attach(cl_context cl_ctx);
void dmlcl__cache_detach(cl_context cl_ctx);

/* ---- operators (operator.c + one file per operator) ---------------------------------- */
#define DMLCL_MAX_BINDINGS 2

typedef struct dmlcl__op_vtable {
    const char *name; /* "reverse_subsequences", used in messages */
    /* Sets all kernel arguments for the given buffers/element offsets and enqueues.
     * Called with the operator's lock held, after bindings were validated. */
    dmlcl_status (*enqueue)(dmlcl_operator *op, const cl_mem *in, const uint64_t *in_off,
                            const cl_mem *out, const uint64_t *out_off, cl_uint nwait,
                            const cl_event *wait, cl_event *event);
    void (*destroy)(dmlcl_operator *op); /* frees op->impl and its OpenCL objects */
} dmlcl__op_vtable;

struct dmlcl_operator {
    dmlcl_context *ctx;
    const dmlcl__op_vtable *vt;
    uint32_t n_in, n_out;
    dmlcl__tensor in[DMLCL_MAX_BINDINGS];
    dmlcl__tensor out[DMLCL_MAX_BINDINGS];
    pthread_mutex_t lock; /* kernel arguments are per cl_kernel: one enqueue at a time */
    void *impl;           /* operator-specific plan and kernels */
    /* During creation only: the tiles of dmlcl_operator_create_tile (NULL: whole). */
    const dmlcl_tile_desc *tile_in, *tile_out;
    char plan_text[850];  /* the planner's choice, for dmlcl_operator_plan() */
};

/* Per-operator constructors: validate (no OpenCL), plan, fetch kernels, fill op. */
dmlcl_status dmlcl__reverse_subsequences_create(dmlcl_operator *op,
                                                const dmlcl_reverse_subsequences_desc *d);
dmlcl_status dmlcl__resample1_create(dmlcl_operator *op, const dmlcl_resample1_desc *d);
dmlcl_status dmlcl__resample_create(dmlcl_operator *op, const dmlcl_resample_desc *d);
dmlcl_status dmlcl__resample2_create(dmlcl_operator *op, const dmlcl_resample2_desc *d);
dmlcl_status dmlcl__resample_grad1_create(dmlcl_operator *op,
                                          const dmlcl_resample_grad1_desc *d);
dmlcl_status dmlcl__resample3_create(dmlcl_operator *op, const dmlcl_resample3_desc *d);

/* Each operator's rules, before any OpenCL call (op->ctx may be NULL: the halo query). */
dmlcl_status dmlcl__reverse_subsequences_check(dmlcl_operator *op,
                                               const dmlcl_reverse_subsequences_desc *d);

/* Enqueue a 1-D NDRange of at least `items` work-items (rounded up to local). */
dmlcl_status dmlcl__enqueue_1d(dmlcl_operator *op, cl_kernel k, size_t global, size_t local,
                               cl_uint nwait, const cl_event *wait, cl_event *event);
/* The same over a 2-D range (global a multiple of local in each dimension). */
dmlcl_status dmlcl__enqueue_2d(dmlcl_operator *op, cl_kernel k, const size_t global[2],
                               const size_t local[2], cl_uint nwait, const cl_event *wait,
                               cl_event *event);
/* Device allocations start at CL_DEVICE_MEM_BASE_ADDR_ALIGN (at least 128 bytes in the
 * full profile); a CL_MEM_USE_HOST_PTR buffer starts wherever the caller's memory does.
 * Kernels move vectors of up to 128 bytes only through a base aligned to that: 1 if m's
 * is. */
int dmlcl__mem_aligned(cl_mem m);
/* clSetKernelArg with error reporting naming the argument index. */
dmlcl_status dmlcl__set_arg(cl_kernel k, cl_uint idx, size_t size, const void *value);

#endif
