/* The program cache: in memory per (cl_context, device, source hash, options), backed by
 * the on-disk cache (disk_cache.c). The only global mutable state of the library. */
#include "core/context.h"
#include "core/disk_cache.h"
#include "core/kernel_order.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    cl_context ctx;
    cl_device_id dev;
    uint64_t source_hash;
    char *options;
    cl_program program;
} entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static entry *entries;
static size_t n_entries, cap_entries;
static dmlcl_cache_stats stats; /* updated with atomics, read without the lock */

void dmlcl_cache_get_stats(dmlcl_cache_stats *out)
{
    if (!out)
        return;
    out->memory_hits = __atomic_load_n(&stats.memory_hits, __ATOMIC_SEQ_CST);
    out->disk_hits = __atomic_load_n(&stats.disk_hits, __ATOMIC_SEQ_CST);
    out->compiles = __atomic_load_n(&stats.compiles, __ATOMIC_SEQ_CST);
}

/* Caller holds cache_lock. */
static entry *lookup(cl_context ctx, cl_device_id dev, uint64_t hash, const char *options)
{
    for (size_t i = 0; i < n_entries; i++) {
        entry *e = &entries[i];
        if (e->ctx == ctx && e->dev == dev && e->source_hash == hash && !strcmp(e->options, options))
            return e;
    }
    return NULL;
}

/* The program's source is common.cl followed by the operator's file. */
static dmlcl_status sources(const char *kernel_file, const dmlcl__kernel_source *src[2],
                            uint64_t *hash)
{
    src[0] = dmlcl__kernel_find("common");
    src[1] = dmlcl__kernel_find(kernel_file);
    if (!src[0] || !src[1])
        return dmlcl__fail(DMLCL_BUILD_ERROR, "no embedded kernel source named %s", kernel_file);
    *hash = dmlcl__hash64(&src[1]->hash, sizeof src[1]->hash, src[0]->hash);
    return DMLCL_SUCCESS;
}

static dmlcl_status build_failed(cl_program prog, cl_device_id dev, const char *kernel_file,
                                 cl_int err)
{
    char log[700] = "";
    size_t n = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &n);
    if (n == 0) /* log longer than our buffer: the call fails, so fetch it whole */
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    if (n >= sizeof log) {
        char *full = dmlcl__malloc(n + 1);
        if (full && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, full, NULL) == 0)
            memcpy(log, full, sizeof log - 1);
        dmlcl__free(full);
    }
    log[sizeof log - 1] = 0;
    clReleaseProgram(prog);
    return dmlcl__fail(DMLCL_BUILD_ERROR, "clBuildProgram: %s building %s.cl; build log: %s",
                       dmlcl_opencl_error_name(err), kernel_file, log);
}

static dmlcl_status compile(dmlcl_context *c, const dmlcl__kernel_source *src[2],
                            const char *kernel_file, const char *options, cl_program *out)
{
    const char *texts[2] = {src[0]->text, src[1]->text};
    size_t lens[2] = {src[0]->length, src[1]->length};
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(c->cl_ctx, 2, texts, lens, &err);
    if (err)
        return dmlcl__cl_fail("clCreateProgramWithSource", err);
    err = clBuildProgram(prog, 1, &c->device, options, NULL, NULL);
    if (err)
        return build_failed(prog, c->device, kernel_file, err);
    __atomic_add_fetch(&stats.compiles, 1, __ATOMIC_SEQ_CST);
    *out = prog;
    return DMLCL_SUCCESS;
}

/* A disk miss: compiles and stores the program under the folder's compile lock, unless
 * the process that held the lock before us stored it meanwhile (then loads it). */
static dmlcl_status compile_once(dmlcl_context *c, const dmlcl__kernel_source *src[2],
                                 const char *kernel_file, uint64_t hash, const char *options,
                                 cl_program *out)
{
    int lock = dmlcl__disk_lock(c, hash, options);
    dmlcl_status st = DMLCL_SUCCESS;
    if (lock >= 0 && dmlcl__disk_load(c, hash, options, out) == 0) {
        __atomic_add_fetch(&stats.disk_hits, 1, __ATOMIC_SEQ_CST);
    } else if ((st = compile(c, src, kernel_file, options, out)) == DMLCL_SUCCESS) {
        dmlcl__disk_store(c, hash, options, *out);
    }
    dmlcl__disk_unlock(lock);
    return st;
}

/* Adds (or, if another thread won the race, swaps in) the entry; returns the program to
 * use, retained for the caller. Caller holds cache_lock. */
static cl_program insert(dmlcl_context *c, uint64_t hash, const char *options, cl_program prog)
{
    entry *e = lookup(c->cl_ctx, c->device, hash, options);
    if (e) { /* lost the race: keep the winner's program */
        clReleaseProgram(prog);
        clRetainProgram(e->program);
        return e->program;
    }
    char *opt = dmlcl__strdup(options);
    if (opt && n_entries == cap_entries) {
        size_t cap = cap_entries ? 2 * cap_entries : 16;
        entry *grown = dmlcl__realloc(entries, cap * sizeof *grown);
        if (grown) {
            entries = grown;
            cap_entries = cap;
        }
    }
    if (!opt || n_entries == cap_entries) { /* no room to remember it: still usable */
        dmlcl__free(opt);
        return prog;
    }
    entries[n_entries++] = (entry){c->cl_ctx, c->device, hash, opt, prog};
    clRetainProgram(prog);
    return prog;
}

/* The complete build options: the variant's defines, DMLCL_CPU on CPU devices (kernels
 * leave out what only GPUs' compilers do well: common.cl), and $DMLCL_BUILD_OPTIONS (extra
 * compiler flags for debugging or tests, e.g. -cl-opt-disable, -Werror). All are part of
 * the cache key. */
dmlcl_status dmlcl__full_options(const dmlcl_context *c, const char *variant, char *buf,
                                size_t cap)
{
    const char *extra = getenv("DMLCL_BUILD_OPTIONS");
    int n = snprintf(buf, cap, "%s%s%s%s", variant, c->info.is_cpu ? " -DDMLCL_CPU=1" : "",
                     extra && *extra ? " " : "", extra ? extra : "");
    if (n < 0 || (size_t)n >= cap)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "DMLCL_BUILD_OPTIONS is too long (max %zu bytes)",
                           cap - strlen(variant) - 2);
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__program_full(dmlcl_context *c, const char *kernel_file, const char *options,
                                 dmlcl__reach reach, cl_program *out)
{
    const dmlcl__kernel_source *src[2];
    uint64_t hash = 0;
    *out = NULL;
    dmlcl_status st = sources(kernel_file, src, &hash);
    if (st)
        return st;
    pthread_mutex_lock(&cache_lock);
    entry *e = lookup(c->cl_ctx, c->device, hash, options);
    if (e) {
        clRetainProgram(e->program);
        *out = e->program;
        pthread_mutex_unlock(&cache_lock);
        __atomic_add_fetch(&stats.memory_hits, 1, __ATOMIC_SEQ_CST);
        return DMLCL_SUCCESS;
    }
    pthread_mutex_unlock(&cache_lock);
    if (reach == DMLCL__REACH_MEMORY)
        return DMLCL_SUCCESS;

    /* Miss: load or compile outside the lock so other variants are not held up. */
    cl_program prog = NULL;
    if (dmlcl__disk_load(c, hash, options, &prog) == 0) {
        __atomic_add_fetch(&stats.disk_hits, 1, __ATOMIC_SEQ_CST);
    } else {
        if (reach == DMLCL__REACH_DISK)
            return DMLCL_SUCCESS;
        if ((st = compile_once(c, src, kernel_file, hash, options, &prog)))
            return st;
    }
    pthread_mutex_lock(&cache_lock);
    *out = insert(c, hash, options, prog);
    pthread_mutex_unlock(&cache_lock);
    return DMLCL_SUCCESS;
}

/* The program from memory, else from disk (where `reach` allows), else compiled (where it
 * allows that too); *out NULL where it stops short. */
static dmlcl_status program_reach(dmlcl_context *c, const char *kernel_file, const char *variant,
                                  dmlcl__reach reach, cl_program *out)
{
    char options[1024];
    *out = NULL;
    dmlcl_status st = dmlcl__full_options(c, variant, options, sizeof options);
    return st ? st : dmlcl__program_full(c, kernel_file, options, reach, out);
}

dmlcl_status dmlcl__program_get(dmlcl_context *c, const char *kernel_file, const char *variant,
                                cl_program *out)
{
    return program_reach(c, kernel_file, variant, DMLCL__REACH_COMPILE, out);
}

/* The shared kernel of (file, options, name), retained into *out: 1, or 0 where s holds
 * none. */
static int shared_kernel(const dmlcl__kernel_share *s, const char *file, const char *options,
                         const char *name, cl_kernel *out)
{
    for (unsigned i = 0; s && i < s->n; i++)
        if (!strcmp(s->k[i].file, file) && !strcmp(s->k[i].name, name) &&
            !strcmp(s->k[i].options, options)) {
            clRetainKernel(s->k[i].kernel);
            *out = s->k[i].kernel;
            return 1;
        }
    return 0;
}

static void share_kernel(dmlcl__kernel_share *s, const char *file, const char *options,
                         const char *name, cl_kernel k)
{
    if (!s || s->n == DMLCL__SHARED_KERNELS || strlen(options) >= sizeof s->k[0].options)
        return;
    s->k[s->n].file = file;
    s->k[s->n].name = name;
    strcpy(s->k[s->n].options, options);
    s->k[s->n++].kernel = k;
    clRetainKernel(k);
}

void dmlcl__kernel_share_release(dmlcl__kernel_share *s)
{
    for (unsigned i = 0; i < s->n; i++)
        clReleaseKernel(s->k[i].kernel);
    s->n = 0;
}

/* Kernels created, for the tests (an atomic counter: operators are created on many
 * threads). */
static uint64_t kernels_created;

uint64_t dmlcl_test_kernels_created(void);
uint64_t dmlcl_test_kernels_created(void)
{
    return __atomic_load_n(&kernels_created, __ATOMIC_RELAXED);
}

dmlcl_status dmlcl__kernel_reach(dmlcl_context *c, dmlcl__kernel_share *share,
                                 const char *kernel_file, const char *options,
                                 const char *kernel_name, dmlcl__reach reach, cl_kernel *out)
{
    cl_program prog;
    *out = NULL;
    if (shared_kernel(share, kernel_file, options, kernel_name, out))
        return DMLCL_SUCCESS;
    dmlcl_status st = program_reach(c, kernel_file, options, reach, &prog);
    if (st || !prog)
        return st;
    cl_int err = CL_SUCCESS;
    *out = clCreateKernel(prog, kernel_name, &err);
    clReleaseProgram(prog);
    if (err)
        return dmlcl__cl_fail("clCreateKernel", err);
    __atomic_add_fetch(&kernels_created, 1, __ATOMIC_RELAXED);
    share_kernel(share, kernel_file, options, kernel_name, *out);
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__kernel_get(dmlcl_context *c, dmlcl__kernel_share *share,
                               const char *kernel_file, const char *options,
                               const char *kernel_name, cl_kernel *out)
{
    return dmlcl__kernel_reach(c, share, kernel_file, options, kernel_name,
                               DMLCL__REACH_COMPILE, out);
}

/* What the device compilers' targets are: a device's vector registers (cl_device_ids live
 * as long as the process for the platforms we know; a full table forgets nothing, it
 * only probes again). */
static struct { cl_device_id dev; uint32_t bytes; } simd[16];

uint32_t dmlcl__simd_memo(cl_device_id dev, uint32_t bytes)
{
    pthread_mutex_lock(&cache_lock);
    size_t i = 0;
    while (i < sizeof simd / sizeof simd[0] && simd[i].dev && simd[i].dev != dev)
        i++;
    if (i < sizeof simd / sizeof simd[0]) {
        if (bytes && !simd[i].dev)
            simd[i].dev = dev, simd[i].bytes = bytes;
        bytes = simd[i].dev == dev ? simd[i].bytes : bytes;
    }
    pthread_mutex_unlock(&cache_lock);
    return bytes;
}

/* dmlcl contexts wrapping each cl_context: its programs are dropped when the last goes,
 * because a released cl_context's address may be reused by a new one. */
typedef struct { cl_context ctx; int refs; } attached;
static attached *contexts;
static size_t n_contexts, cap_contexts;

dmlcl_status dmlcl__cache_attach(cl_context ctx)
{
    dmlcl_status st = DMLCL_SUCCESS;
    pthread_mutex_lock(&cache_lock);
    size_t i = 0;
    while (i < n_contexts && contexts[i].ctx != ctx)
        i++;
    if (i == n_contexts && n_contexts == cap_contexts) {
        size_t cap = cap_contexts ? 2 * cap_contexts : 8;
        attached *grown = dmlcl__realloc(contexts, cap * sizeof *grown);
        if (grown) {
            contexts = grown;
            cap_contexts = cap;
        }
    }
    if (i < n_contexts)
        contexts[i].refs++;
    else if (n_contexts < cap_contexts)
        contexts[n_contexts++] = (attached){ctx, 1};
    else
        st = dmlcl__fail(DMLCL_OUT_OF_MEMORY, "dmlcl_context_create: out of host memory");
    pthread_mutex_unlock(&cache_lock);
    return st;
}

/* Caller holds cache_lock. */
static void forget_programs(cl_context ctx)
{
    size_t kept = 0;
    for (size_t i = 0; i < n_entries; i++) {
        if (entries[i].ctx == ctx) {
            clReleaseProgram(entries[i].program);
            dmlcl__free(entries[i].options);
        } else {
            entries[kept++] = entries[i];
        }
    }
    n_entries = kept;
}

void dmlcl__cache_detach(cl_context ctx)
{
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < n_contexts; i++) {
        if (contexts[i].ctx != ctx || --contexts[i].refs > 0)
            continue;
        contexts[i] = contexts[--n_contexts];
        forget_programs(ctx);
        dmlcl__kernel_order_forget(ctx);
        break;
    }
    /* Empty arrays go back, so a finished process (or test) holds nothing of ours. */
    if (n_entries == 0) {
        dmlcl__free(entries);
        entries = NULL;
        cap_entries = 0;
    }
    if (n_contexts == 0) {
        dmlcl__free(contexts);
        contexts = NULL;
        cap_contexts = 0;
    }
    pthread_mutex_unlock(&cache_lock);
}

const dmlcl__kernel_source *dmlcl__kernel_find(const char *name)
{
    for (size_t i = 0; i < dmlcl__kernel_source_count; i++)
        if (!strcmp(dmlcl__kernel_sources[i].name, name))
            return &dmlcl__kernel_sources[i];
    return NULL;
}
