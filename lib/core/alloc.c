/* Allocation wrappers: the one place tests can make allocations fail on purpose. */
#include "core/base.h"
#include <stdlib.h>
#include <string.h>

/* Test-only fault injection. Atomics, not a mutex: allocation must stay cheap and the
 * counters are advisory (a test that uses them runs single-threaded). */
static uint64_t alloc_count;
static uint64_t fail_at; /* allocation number that fails; 0 = never */
static int64_t live;     /* allocations not yet freed: tests compare it to find leaks */

int64_t dmlcl_test_live_allocations(void) { return __atomic_load_n(&live, __ATOMIC_SEQ_CST); }

static void *counted(void *p)
{
    if (p)
        __atomic_add_fetch(&live, 1, __ATOMIC_SEQ_CST);
    return p;
}

uint64_t dmlcl_test_fail_alloc_after(uint64_t n)
{
    uint64_t seen = __atomic_exchange_n(&alloc_count, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_at, n, __ATOMIC_SEQ_CST);
    return seen;
}

static int should_fail(void)
{
    uint64_t k = __atomic_add_fetch(&alloc_count, 1, __ATOMIC_SEQ_CST);
    uint64_t f = __atomic_load_n(&fail_at, __ATOMIC_SEQ_CST);
    return f != 0 && k == f;
}

void *dmlcl__malloc(size_t n) { return should_fail() ? NULL : counted(malloc(n ? n : 1)); }

void *dmlcl__calloc(size_t count, size_t n)
{
    return should_fail() ? NULL : counted(calloc(count ? count : 1, n ? n : 1));
}

void *dmlcl__realloc(void *p, size_t n)
{
    if (should_fail())
        return NULL;
    void *q = realloc(p, n ? n : 1);
    return p ? q : counted(q);
}

void dmlcl__free(void *p)
{
    if (p)
        __atomic_sub_fetch(&live, 1, __ATOMIC_SEQ_CST);
    free(p);
}

char *dmlcl__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = dmlcl__malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}
