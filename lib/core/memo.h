/* A context's memo (memo.c): what the operators of one context build alike, kept for the
 * next one: read-only table buffers by their content, and host results under a key that
 * the caller composes from everything the result depends on. Creating the same operator
 * again (a loop that creates and releases, tiles of one grid) then skips the tables' work
 * and their upload. Entries never change once in; a hit hands out a copy of the host
 * result and a retained buffer, so operators share nothing writable. Bounded (entries and
 * bytes, the oldest dropped first) and behind its own mutex: operators of one context may
 * be created on several threads. */
#ifndef DMLCL_CORE_MEMO_H
#define DMLCL_CORE_MEMO_H
#include "core/base.h"
#include <pthread.h>

enum { DMLCL__MEMO_ENTRIES = 32 };
/* Larger results are not kept: at most 32 x 256 KiB of host copies and table buffers. */
#define DMLCL__MEMO_MAX_ENTRY ((size_t)256 << 10)

/* What an entry holds: core's kinds, and from DMLCL__MEMO_FAMILY on those the families
 * number in their own headers. */
typedef int dmlcl__memo_kind;
enum {
    DMLCL__MEMO_TABLE = 1, /* key: a table's bytes; the entry: its read-only buffer */
    DMLCL__MEMO_TABLE_OF,  /* key: what a table was built from; the entry: its buffer */
    DMLCL__MEMO_FAMILY = 16
};

typedef struct dmlcl__memo_entry {
    uint64_t hash;
    dmlcl__memo_kind kind;
    void *key, *blob; /* one allocation: key bytes, then blob bytes */
    size_t klen, blen;
    cl_mem mem;       /* retained by the memo; NULL for host results */
} dmlcl__memo_entry;

typedef struct dmlcl__memo {
    pthread_mutex_t lock;
    dmlcl__memo_entry e[DMLCL__MEMO_ENTRIES];
    unsigned next;           /* the slot the next insert takes (the oldest when full) */
    uint64_t hits, misses;   /* for tests and the curious */
} dmlcl__memo;

void dmlcl__memo_init(dmlcl__memo *m);
void dmlcl__memo_free(dmlcl__memo *m);
/* On a hit returns 1 with *blob a dmlcl__malloc'd copy of the result (NULL when its
 * length is 0; the caller frees it) and *mem retained (the caller releases it); else 0
 * (also when the copy cannot be allocated). blob, blen and mem may be NULL. */
int dmlcl__memo_get(dmlcl__memo *m, dmlcl__memo_kind kind, const void *key, size_t klen,
                    void **blob, size_t *blen, cl_mem *mem);
/* On a hit whose result is dlen bytes returns 1 with the result copied into dst and *mem
 * retained (the caller releases it; mem may be NULL); else 0. Spares the allocation of
 * dmlcl__memo_get's copy for a result of known size. */
int dmlcl__memo_read(dmlcl__memo *m, dmlcl__memo_kind kind, const void *key, size_t klen,
                     void *dst, size_t dlen, cl_mem *mem);
/* On a hit calls fn(arg, blob, blen) with the memo locked (fn must be short and must not
 * use the memo) and returns its result (>= 0); else -1. Spares the copy of a hit. */
int dmlcl__memo_visit(dmlcl__memo *m, dmlcl__memo_kind kind, const void *key, size_t klen,
                      int (*fn)(void *arg, const void *blob, size_t blen), void *arg);
/* Keeps a copy of key and blob and a reference to mem (may be NULL); does nothing when
 * they are larger than DMLCL__MEMO_MAX_ENTRY or out of host memory. */
void dmlcl__memo_put(dmlcl__memo *m, dmlcl__memo_kind kind, const void *key, size_t klen,
                     const void *blob, size_t blen, cl_mem mem);

#endif
