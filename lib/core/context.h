/* The context (context.c), the embedded kernel sources (generated kernels_gen.c) and the
 * program cache (cache.c, backed by disk_cache.c). */
#ifndef DMLCL_CORE_CONTEXT_H
#define DMLCL_CORE_CONTEXT_H
#include "core/base.h"
#include "core/memo.h"
#include "core/specialize.h"

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
    int kernel_order; /* launches of one kernel in order (kernel_order.h) */
    uint32_t simd_bytes; /* the compiler's vector registers (kernels/core/simd.cl); 64 on GPUs */
    /* 32-bit registers a work-group may hold (cl_nv_device_attribute_query), where the
     * compiler takes a cap on each item's (cl_nv_compiler_options); 0 elsewhere. */
    uint32_t registers;
} dmlcl__device_info;

struct dmlcl_context {
    cl_context cl_ctx;
    cl_device_id device;
    cl_command_queue queue;
    dmlcl__device_info info;
    int refs; /* atomic: the caller's reference plus one per live operator */
    dmlcl__memo memo; /* tables its operators built (memo.h) */
    dmlcl__builds builds; /* specialised programs built in the background (specialize.h) */
    /* The host path's pinned buffers, kept for the next call (staging.c), taken and given
     * back atomically: a call that finds none makes its own; freed with staging_free. */
    struct dmlcl__pinned *staging_kept;
    void (*staging_free)(struct dmlcl__pinned *);
};
void dmlcl__context_retain(dmlcl_context *c);
/* Whether one buffer of `bytes` fits the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE, asked
 * before clCreateBuffer: its CL_INVALID_BUFFER_SIZE names neither the limit nor the tensor,
 * and every binding shows this library's message. what: "resample1: inputs[0]". Returns
 * SUCCESS, else UNSUPPORTED (valid, but not on this device) with "<what> needs a buffer
 * of 2.48 GiB, over this device's limit of 2.00 GiB per buffer (...)". */
dmlcl_status dmlcl__buffer_fits(const dmlcl_context *c, const char *what, uint64_t bytes);
/* Whether buffers of `bytes` in all fit the device's CL_DEVICE_GLOBAL_MEM_SIZE, asked
 * before the first is created. what (plural): "resample1: the copies of its host arrays".
 * Returns SUCCESS, else UNSUPPORTED with "<what> need 6.00 GiB, over this device's memory
 * of 4.94 GiB (CL_DEVICE_GLOBAL_MEM_SIZE); ...". */
dmlcl_status dmlcl__device_mem_fits(const dmlcl_context *c, const char *what, uint64_t bytes);
/* A read-only buffer holding the table's bytes, shared with the context's other
 * operators whose tables hold the same bytes (key NULL: compared byte for byte) or were
 * built from the same key (the caller's: every input of the table, nothing else), from
 * the memo (memo.c); the caller releases it. */
dmlcl_status dmlcl__table_buffer(dmlcl_context *c, const void *key, size_t klen,
                                 const void *words, size_t bytes, cl_mem *out);

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
/* The kernels the parts of one slabs operator share (lib/slabs.c hands every part the
 * same table): a part whose kernel (program file, variant options, kernel name) an earlier
 * part took gets a reference to that cl_kernel, with no program lookup and no
 * clCreateKernel (NVIDIA's costs some microseconds a part). Sound because a part runs
 * only inside its operator's enqueue, under the operator's lock, one part after the
 * other, and sets every argument of its kernel at each launch (OpenCL takes the arguments
 * at clEnqueueNDRangeKernel). A full table, or options too long for it, shares nothing. */
enum { DMLCL__SHARED_KERNELS = 4 };
typedef struct dmlcl__kernel_share {
    unsigned n;
    struct {
        const char *file, *name;
        char options[640];
        cl_kernel kernel; /* retained by the table */
    } k[DMLCL__SHARED_KERNELS];
} dmlcl__kernel_share;
/* Releases the table's references (the parts keep theirs). */
void dmlcl__kernel_share_release(dmlcl__kernel_share *s);
/* Creates a kernel from a cached program; the program reference is dropped. share: the
 * table of the parts of one operator (NULL: none), looked in first and added to. */
dmlcl_status dmlcl__kernel_get(dmlcl_context *c, dmlcl__kernel_share *share,
                               const char *kernel_file, const char *options,
                               const char *kernel_name, cl_kernel *out);
/* How far a lookup may go: memory only, memory and disk (no compiler), or compile too. */
typedef enum dmlcl__reach {
    DMLCL__REACH_MEMORY,
    DMLCL__REACH_DISK,
    DMLCL__REACH_COMPILE
} dmlcl__reach;
/* The complete build options of a variant (the cache's key): the variant's defines,
 * DMLCL_CPU on CPU devices and $DMLCL_BUILD_OPTIONS, read now. */
dmlcl_status dmlcl__full_options(const dmlcl_context *c, const char *variant, char *buf,
                                size_t cap);
/* The program of complete options `options` within `reach` (*out NULL where not found). */
dmlcl_status dmlcl__program_full(dmlcl_context *c, const char *kernel_file, const char *options,
                                 dmlcl__reach reach, cl_program *out);
/* dmlcl__kernel_get within `reach`: *out NULL (and success) where the program is not
 * found there. */
dmlcl_status dmlcl__kernel_reach(dmlcl_context *c, dmlcl__kernel_share *share,
                                 const char *kernel_file, const char *options,
                                 const char *kernel_name, dmlcl__reach reach, cl_kernel *out);
/* The devices' vector register widths, kept with the programs (simd_bytes in context.c):
 * bytes 0 looks dev up (0: unknown), else records it; returns the width kept. */
uint32_t dmlcl__simd_memo(cl_device_id dev, uint32_t bytes);
/* Counts the dmlcl contexts wrapping cl_ctx; when the last detaches, its programs are
 * dropped from memory (the cl_context's address may be reused afterwards). */
dmlcl_status dmlcl__cache_attach(cl_context cl_ctx);
void dmlcl__cache_detach(cl_context cl_ctx);

#endif
