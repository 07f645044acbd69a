/* The context's memo: see memo.h. */
#include "core/memo.h"
#include "core/context.h"
#include <string.h>

/* 8 bytes a step: the keys are tables of up to 256 KiB, hashed at every creation. */
static uint64_t memo_hash(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
    for (; len >= 8; len -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return dmlcl__hash64(p, len, h | 1);
}

void dmlcl__memo_init(dmlcl__memo *m)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
}

static void drop(dmlcl__memo_entry *e)
{
    if (e->mem)
        clReleaseMemObject(e->mem);
    dmlcl__free(e->key);
    memset(e, 0, sizeof *e);
}

void dmlcl__memo_free(dmlcl__memo *m)
{
    for (unsigned i = 0; i < DMLCL__MEMO_ENTRIES; i++)
        drop(&m->e[i]);
    pthread_mutex_destroy(&m->lock);
}

static dmlcl__memo_entry *find(dmlcl__memo *m, uint64_t h, dmlcl__memo_kind kind,
                               const void *key, size_t klen)
{
    for (unsigned i = 0; i < DMLCL__MEMO_ENTRIES; i++) {
        dmlcl__memo_entry *e = &m->e[i];
        if (e->key && e->hash == h && e->kind == kind && e->klen == klen &&
            memcmp(e->key, key, klen) == 0)
            return e;
    }
    return NULL;
}

int dmlcl__memo_get(dmlcl__memo *m, dmlcl__memo_kind kind, const void *key, size_t klen,
                    void **blob, size_t *blen, cl_mem *mem)
{
    const uint64_t h = memo_hash(key, klen);
    int hit = 0;
    pthread_mutex_lock(&m->lock);
    const dmlcl__memo_entry *e = find(m, h, kind, key, klen);
    void *copy = NULL;
    if (e && blob && e->blen && (copy = dmlcl__malloc(e->blen)))
        memcpy(copy, e->blob, e->blen);
    if (e && (!blob || !e->blen || copy)) {
        hit = 1;
        if (blob)
            *blob = copy;
        if (blen)
            *blen = e->blen;
        if (mem) {
            *mem = e->mem;
            if (e->mem)
                clRetainMemObject(e->mem);
        }
    }
    hit ? m->hits++ : m->misses++;
    pthread_mutex_unlock(&m->lock);
    return hit;
}

int dmlcl__memo_read(dmlcl__memo *m, dmlcl__memo_kind kind, const void *key, size_t klen,
                     void *dst, size_t dlen, cl_mem *mem)
{
    const uint64_t h = memo_hash(key, klen);
    pthread_mutex_lock(&m->lock);
    const dmlcl__memo_entry *e = find(m, h, kind, key, klen);
    const int hit = e && e->blen == dlen;
    if (hit) {
        memcpy(dst, e->blob, dlen);
        if (mem && (*mem = e->mem))
            clRetainMemObject(e->mem);
    }
    hit ? m->hits++ : m->misses++;
    pthread_mutex_unlock(&m->lock);
    return hit;
}

int dmlcl__memo_visit(dmlcl__memo *m, dmlcl__memo_kind kind, const void *key, size_t klen,
                      int (*fn)(void *arg, const void *blob, size_t blen), void *arg)
{
    const uint64_t h = memo_hash(key, klen);
    pthread_mutex_lock(&m->lock);
    const dmlcl__memo_entry *e = find(m, h, kind, key, klen);
    int r = e ? fn(arg, e->blob, e->blen) : -1;
    e ? m->hits++ : m->misses++;
    pthread_mutex_unlock(&m->lock);
    return r;
}

void dmlcl__memo_put(dmlcl__memo *m, dmlcl__memo_kind kind, const void *key, size_t klen,
                     const void *blob, size_t blen, cl_mem mem)
{
    if (klen > DMLCL__MEMO_MAX_ENTRY || blen > DMLCL__MEMO_MAX_ENTRY - klen)
        return;
    const uint64_t h = memo_hash(key, klen);
    unsigned char *bytes = dmlcl__malloc(klen + blen + 1);
    if (!bytes)
        return;
    memcpy(bytes, key, klen);
    if (blen)
        memcpy(bytes + klen, blob, blen);
    pthread_mutex_lock(&m->lock);
    if (find(m, h, kind, key, klen)) { /* another thread's, meanwhile */
        pthread_mutex_unlock(&m->lock);
        dmlcl__free(bytes);
        return;
    }
    dmlcl__memo_entry *e = &m->e[m->next];
    m->next = (m->next + 1) % DMLCL__MEMO_ENTRIES;
    drop(e);
    if (mem)
        clRetainMemObject(mem);
    *e = (dmlcl__memo_entry){h, kind, bytes, bytes + klen, klen, blen, mem};
    pthread_mutex_unlock(&m->lock);
}

dmlcl_status dmlcl__table_buffer(dmlcl_context *c, const void *key, size_t klen,
                                 const void *words, size_t bytes, cl_mem *out)
{
    const dmlcl__memo_kind kind = key ? DMLCL__MEMO_TABLE_OF : DMLCL__MEMO_TABLE;
    if (!key)
        key = words, klen = bytes;
    const int keep = bytes <= DMLCL__MEMO_MAX_ENTRY && klen <= DMLCL__MEMO_MAX_ENTRY;
    if (keep && dmlcl__memo_get(&c->memo, kind, key, klen, NULL, NULL, out))
        return DMLCL_SUCCESS;
    cl_int err = CL_SUCCESS;
    *out = clCreateBuffer(c->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)words, &err);
    if (err) {
        *out = NULL;
        return dmlcl__cl_fail("clCreateBuffer", err);
    }
    if (keep)
        dmlcl__memo_put(&c->memo, kind, key, klen, NULL, 0, *out);
    return DMLCL_SUCCESS;
}
