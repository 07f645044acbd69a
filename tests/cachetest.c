/* Helpers for the on-disk cache tests; see cachetest.h. */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include "cachetest.h"
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char saved_env[CT_PATH];
static int saved_set;

int ct_use_fresh_dir(char base[CT_PATH])
{
    const char *tmp = getenv("TMPDIR");
    snprintf(base, CT_PATH, "%s/dmlcl-cache-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base))
        return -1;
    const char *old = getenv("DMLCL_CACHE_DIR");
    saved_set = old != NULL;
    snprintf(saved_env, sizeof saved_env, "%s", old ? old : "");
    setenv("DMLCL_CACHE_DIR", base, 1);
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    remove(path);
    return 0;
}

void ct_remove_tree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void ct_restore(const char *base)
{
    if (saved_set)
        setenv("DMLCL_CACHE_DIR", saved_env, 1);
    else
        unsetenv("DMLCL_CACHE_DIR");
    if (base && *base) {
        ct_remove_tree(base);
    }
}

static int is_hex16(const char *s)
{
    for (int i = 0; i < 16; i++)
        if (!s[i] || !strchr("0123456789abcdef", s[i]))
            return 0;
    return 1;
}

ct_scan ct_scan_dir(const char *dir)
{
    ct_scan s;
    memset(&s, 0, sizeof s);
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d)
        return s;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, ".."))
            continue;
        if (is_hex16(n) && !strcmp(n + 16, ".bin")) {
            s.entries++;
            snprintf(s.entry, sizeof s.entry, "%s/%s", dir, n);
        } else if (strstr(n, ".tmp")) {
            s.temps++;
        } else if (!strcmp(n, "compile.lock")) {
            s.locks++;
        } else {
            s.others++;
        }
    }
    closedir(d);
    return s;
}

unsigned char *ct_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, r;
    unsigned char *p = malloc(cap);
    while (p && (r = fread(p + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            unsigned char *q = realloc(p, cap *= 2);
            if (!q)
                free(p);
            p = q;
        }
    }
    fclose(f);
    *len = n;
    return p;
}

int ct_write(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static FILE *captured;

int ct_stderr_begin(void)
{
    fflush(stderr);
    int saved = dup(2);
    captured = tmpfile();
    if (saved < 0 || !captured || dup2(fileno(captured), 2) < 0) {
        if (captured)
            fclose(captured);
        if (saved >= 0)
            close(saved);
        return -1;
    }
    return saved;
}

void ct_stderr_end(int handle, char *buf, size_t cap)
{
    buf[0] = 0;
    if (handle < 0)
        return;
    fflush(stderr);
    dup2(handle, 2);
    close(handle);
    rewind(captured);
    size_t n = fread(buf, 1, cap - 1, captured);
    buf[n] = 0;
    fclose(captured);
}

uint64_t ct_fnv(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed ? seed : 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

int ct_run_rs(dmlcl_context *c, dmlcl_tensor_data_type type)
{
    enum { ROWS = 3, COLS = 5 };
    const uint32_t sizes[2] = {ROWS, COLS}, len_sizes[2] = {ROWS, 1}, lens[ROWS] = {5, 2, 0};
    const uint32_t es = dmlcl_data_type_size(type);
    unsigned char in[ROWS * COLS * 8], out[ROWS * COLS * 8];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 7 + 1);
    memset(out, 0, sizeof out);
    dmlcl_tensor_desc ti = {type, 2, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 2, len_sizes, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, 1};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    const void *ins[2] = {in, lens};
    void *outs[1] = {out};
    dmlcl_status st = dmlcl_operator_create(c, &od, &op);
    if (!st)
        st = dmlcl_operator_execute_host(op, ins, outs);
    dmlcl_operator_release(op);
    if (st)
        return (int)st;
    for (uint32_t r = 0; r < ROWS; r++)
        for (uint32_t k = 0; k < COLS; k++) {
            uint32_t src = k < lens[r] ? lens[r] - 1 - k : k;
            if (memcmp(out + (r * COLS + k) * es, in + (r * COLS + src) * es, es))
                return -1;
        }
    return 0;
}
