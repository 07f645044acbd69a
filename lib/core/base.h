/* The floor under everything: configuration, the public header, errors, allocation and
 * hashing. Nothing here is exported. */
#ifndef DMLCL_CORE_BASE_H
#define DMLCL_CORE_BASE_H

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

#endif
