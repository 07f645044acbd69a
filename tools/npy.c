/* .npy reader and writer (see npy.h for the format and what is accepted). */
#define _POSIX_C_SOURCE 200809L /* fileno, fchmod, fsync, lstat, realpath */
#define _XOPEN_SOURCE 700         /* realpath */
#include "config.h"
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise, MADV_HUGEPAGE */
#endif
#include "npy.h"
#include "temp_output.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const unsigned char MAGIC[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
#define PREAMBLE_MAX 12 /* magic 6 + version 2 + header length 4 */

/* ---- types -------------------------------------------------------------------------- */

static const struct {
    dmlcl_tensor_data_type type;
    char kind; /* NumPy's kind letter */
    uint32_t size;
} TYPES[] = {
    {DMLCL_TENSOR_DATA_TYPE_FLOAT16, 'f', 2}, {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 'f', 4},
    {DMLCL_TENSOR_DATA_TYPE_FLOAT64, 'f', 8}, {DMLCL_TENSOR_DATA_TYPE_INT8, 'i', 1},
    {DMLCL_TENSOR_DATA_TYPE_INT16, 'i', 2},   {DMLCL_TENSOR_DATA_TYPE_INT32, 'i', 4},
    {DMLCL_TENSOR_DATA_TYPE_INT64, 'i', 8},   {DMLCL_TENSOR_DATA_TYPE_UINT8, 'u', 1},
    {DMLCL_TENSOR_DATA_TYPE_UINT16, 'u', 2},  {DMLCL_TENSOR_DATA_TYPE_UINT32, 'u', 4},
    {DMLCL_TENSOR_DATA_TYPE_UINT64, 'u', 8},
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

uint32_t npy_type_size(dmlcl_tensor_data_type type)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (TYPES[i].type == type)
            return TYPES[i].size;
    return 0;
}

const char *npy_descr(dmlcl_tensor_data_type type, int big_endian, char buf[8])
{
    for (size_t i = 0; i < NTYPES; i++)
        if (TYPES[i].type == type) {
            char order = TYPES[i].size == 1 ? '|' : big_endian ? '>' : '<';
            snprintf(buf, 8, "%c%c%u", order, TYPES[i].kind, (unsigned)TYPES[i].size);
            return buf;
        }
    snprintf(buf, 8, "?");
    return buf;
}

int npy_host_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 0;
}

static void swap_bytes(void *data, uint64_t count, uint32_t size)
{
    unsigned char *p = data;
    for (uint64_t i = 0; i < count; i++, p += size)
        for (uint32_t lo = 0, hi = size - 1; lo < hi; lo++, hi--) {
            unsigned char t = p[lo];
            p[lo] = p[hi];
            p[hi] = t;
        }
}

/* ---- messages ------------------------------------------------------------------------- */

static npy_status fail(char *err, npy_status st, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static npy_status fail(char *err, npy_status st, const char *name, const char *fmt, ...)
{
    int n = snprintf(err, NPY_ERR_MAX, "%s: ", name);
    if (n < 0 || n >= NPY_ERR_MAX)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, NPY_ERR_MAX - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

const char *npy_shape_text(const npy_array *a, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    n += (size_t)snprintf(buf + n, cap - n, "(");
    for (uint32_t d = 0; d < a->rank && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, d ? ", %u" : "%u", (unsigned)a->sizes[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, a->rank == 1 ? ",)" : ")");
    return buf;
}

/* ---- the header: a Python dict literal ------------------------------------------------ */

typedef struct {
    const char *s;
    size_t n, pos;
    const char *name;
    char *err;
} parser;

static int peek(const parser *p) { return p->pos < p->n ? (unsigned char)p->s[p->pos] : -1; }

static void skip_space(parser *p)
{
    while (p->pos < p->n && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos])
        p->pos++;
}

/* What is at the cursor, for messages: "'x'", "byte 0x93" or "the end of the header". */
static const char *found(const parser *p, char buf[32])
{
    int c = peek(p);
    if (c < 0)
        snprintf(buf, 32, "the end of the header");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 32, "'%c'", c);
    else
        snprintf(buf, 32, "byte 0x%02x", (unsigned)c);
    return buf;
}

static npy_status syntax(parser *p, const char *expected)
{
    char f[32];
    return fail(p->err, NPY_EFORMAT, p->name,
                "bad header: expected %s at header offset %zu, found %s", expected, p->pos,
                found(p, f));
}

static npy_status expect(parser *p, char c, const char *what)
{
    skip_space(p);
    if (peek(p) != c)
        return syntax(p, what);
    p->pos++;
    return NPY_OK;
}

/* A quoted string without escapes (no key or dtype we accept needs one). */
static npy_status parse_string(parser *p, char *out, size_t cap, const char *what)
{
    skip_space(p);
    int q = peek(p);
    if (q != '\'' && q != '"')
        return syntax(p, what);
    size_t start = ++p->pos;
    while (p->pos < p->n && p->s[p->pos] != q) {
        if (p->s[p->pos] == '\\' || p->s[p->pos] == '\n')
            return syntax(p, "a closing quote");
        p->pos++;
    }
    if (p->pos >= p->n)
        return syntax(p, "a closing quote");
    size_t len = p->pos - start;
    p->pos++;
    if (len >= cap)
        return fail(p->err, NPY_EFORMAT, p->name, "bad header: string '%.*s' at header offset "
                    "%zu is too long", (int)(len > 40 ? 40 : len), p->s + start, start - 1);
    memcpy(out, p->s + start, len);
    out[len] = '\0';
    return NPY_OK;
}

static int word_at(const parser *p, const char *w)
{
    size_t len = strlen(w);
    if (p->n - p->pos < len || memcmp(p->s + p->pos, w, len))
        return 0;
    char next = p->pos + len < p->n ? p->s[p->pos + len] : ' ';
    return !(next == '_' || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') ||
             (next >= '0' && next <= '9'));
}

static npy_status parse_bool(parser *p, int *out)
{
    skip_space(p);
    if (word_at(p, "True"))
        *out = 1, p->pos += 4;
    else if (word_at(p, "False"))
        *out = 0, p->pos += 5;
    else
        return syntax(p, "True or False for 'fortran_order'");
    return NPY_OK;
}

/* A tuple of non-negative integers: (), (3,), (2, 3), (2, 3,). Python 2 files may write
 * 3L. Up to 8 sizes are stored; *count says how many there were. */
static npy_status parse_shape(parser *p, uint64_t *sizes, uint32_t *count)
{
    npy_status st = expect(p, '(', "'(' opening the 'shape' tuple");
    if (st)
        return st;
    *count = 0;
    skip_space(p);
    if (peek(p) == ')') {
        p->pos++;
        return NPY_OK;
    }
    for (;;) {
        skip_space(p);
        int c = peek(p);
        if (c == '-')
            return fail(p->err, NPY_EFORMAT, p->name, "bad header: shape[%u] is negative",
                        (unsigned)*count);
        if (c < '0' || c > '9')
            return syntax(p, "a dimension size (a non-negative integer)");
        uint64_t v = 0;
        while ((c = peek(p)) >= '0' && c <= '9') {
            if (v > (UINT64_MAX - (uint64_t)(c - '0')) / 10)
                return fail(p->err, NPY_EFORMAT, p->name,
                            "bad header: shape[%u] does not fit in 64 bits", (unsigned)*count);
            v = v * 10 + (uint64_t)(c - '0');
            p->pos++;
        }
        if (peek(p) == 'L')
            p->pos++;
        if (*count < DMLCL_TENSOR_DIMENSION_COUNT_MAX)
            sizes[*count] = v;
        if (*count < UINT32_MAX)
            (*count)++;
        skip_space(p);
        if (peek(p) == ')') {
            if (*count == 1) /* "(3)" is the integer 3 in Python, not a tuple */
                return fail(p->err, NPY_EFORMAT, p->name, "bad header: 'shape' (%llu) is not "
                            "a tuple (a 1-D shape is written (%llu,))",
                            (unsigned long long)v, (unsigned long long)v);
            p->pos++;
            return NPY_OK;
        }
        if ((st = expect(p, ',', "',' or ')' in the 'shape' tuple")))
            return st;
        skip_space(p);
        if (peek(p) == ')') {
            p->pos++;
            return NPY_OK;
        }
    }
}

/* "<f4" -> type and byte order. */
static npy_status parse_descr(parser *p, const char *descr, npy_array *a)
{
    const char *d = descr;
    char order = 0;
    if (*d && strchr("<>|=", *d))
        order = *d++;
    char kind = *d ? *d++ : 0;
    char *end = NULL;
    unsigned long size = 0;
    if (*d >= '0' && *d <= '9')
        size = strtoul(d, &end, 10);
    for (size_t i = 0; end && !*end && i < NTYPES; i++)
        if (TYPES[i].kind == kind && TYPES[i].size == size) {
            if (order == '|' && size > 1)
                return fail(p->err, NPY_EFORMAT, p->name, "dtype '%s' has no byte order "
                            "(a %lu-byte type needs '<' or '>')", descr, size);
            a->type = TYPES[i].type;
            a->big_endian = order == '>' || ((order == '=' || !order) && npy_host_big_endian());
            if (size == 1)
                a->big_endian = 0;
            return NPY_OK;
        }
    return fail(p->err, NPY_EFORMAT, p->name, "unsupported dtype '%s' (dmlcl reads f2 f4 f8 "
                "i1 i2 i4 i8 u1 u2 u4 u8, either byte order)", descr);
}

static npy_status parse_dict(parser *p, npy_array *a, uint64_t *sizes, uint32_t *rank)
{
    int have_descr = 0, have_order = 0, have_shape = 0;
    char key[32], descr[64];
    npy_status st = expect(p, '{', "'{' opening the header dict");
    if (st)
        return st;
    for (;;) {
        skip_space(p);
        if (peek(p) == '}') {
            p->pos++;
            break;
        }
        if ((st = parse_string(p, key, sizeof key, "a quoted key or '}'")))
            return st;
        size_t key_pos = p->pos;
        if ((st = expect(p, ':', "':' after the key")))
            return st;
        int *seen = !strcmp(key, "descr") ? &have_descr
                  : !strcmp(key, "fortran_order") ? &have_order
                  : !strcmp(key, "shape") ? &have_shape : NULL;
        if (!seen)
            return fail(p->err, NPY_EFORMAT, p->name, "bad header: unknown key '%s' (a .npy "
                        "header has 'descr', 'fortran_order' and 'shape')", key);
        if (*seen)
            return fail(p->err, NPY_EFORMAT, p->name, "bad header: key '%s' appears twice "
                        "(again at header offset %zu)", key, key_pos);
        *seen = 1;
        if (seen == &have_descr) {
            skip_space(p);
            if (peek(p) != '\'' && peek(p) != '"')
                return fail(p->err, NPY_EFORMAT, p->name, "unsupported dtype: 'descr' is not a "
                            "string (structured dtypes are not supported)");
            if ((st = parse_string(p, descr, sizeof descr, "a dtype string")) ||
                (st = parse_descr(p, descr, a)))
                return st;
        } else if (seen == &have_order) {
            st = parse_bool(p, &a->fortran_order);
        } else {
            st = parse_shape(p, sizes, rank);
        }
        if (st)
            return st;
        skip_space(p);
        if (peek(p) == ',')
            p->pos++;
        else if (peek(p) != '}')
            return syntax(p, "',' or '}' after a value");
    }
    skip_space(p);
    if (p->pos < p->n)
        return syntax(p, "only padding after the closing '}'");
    const char *missing = !have_descr ? "descr" : !have_order ? "fortran_order"
                        : !have_shape ? "shape" : NULL;
    if (missing)
        return fail(p->err, NPY_EFORMAT, p->name, "bad header: the key '%s' is missing", missing);
    return NPY_OK;
}

/* Rank, sizes, element count and strides, with every limit dmlcl has. */
static npy_status check_shape(const char *name, const uint64_t *sizes, uint32_t rank,
                              npy_array *a, char *err)
{
    if (rank == 0)
        return fail(err, NPY_EFORMAT, name, "shape () is a scalar: dmlcl tensors have 1 to 8 "
                    "dimensions");
    if (rank > DMLCL_TENSOR_DIMENSION_COUNT_MAX)
        return fail(err, NPY_EFORMAT, name, "shape has %u dimensions: dmlcl tensors have 1 to 8",
                    (unsigned)rank);
    a->rank = rank;
    uint64_t elements = 1;
    for (uint32_t d = 0; d < rank; d++) {
        if (sizes[d] == 0)
            return fail(err, NPY_EFORMAT, name, "shape[%u] is 0: dmlcl tensors cannot be "
                        "empty", (unsigned)d);
        if (sizes[d] > UINT32_MAX)
            return fail(err, NPY_EFORMAT, name, "shape[%u] = %llu is above dmlcl's limit of "
                        "%lu per dimension", (unsigned)d, (unsigned long long)sizes[d],
                        (unsigned long)UINT32_MAX);
        a->sizes[d] = (uint32_t)sizes[d];
        if (elements > UINT64_MAX / sizes[d])
            return fail(err, NPY_EFORMAT, name, "shape overflows: more than 2^64 elements");
        elements *= sizes[d];
    }
    uint32_t esize = npy_type_size(a->type);
    if (elements > UINT64_MAX / esize)
        return fail(err, NPY_EFORMAT, name, "shape overflows: more than 2^64 bytes of data");
    a->elements = elements;
    a->data_bytes = elements * esize;
    uint64_t s = 1;
    for (uint32_t k = 0; k < rank; k++) {
        uint32_t d = a->fortran_order ? k : rank - 1 - k;
        a->strides[d] = s; /* no overflow: s <= elements */
        s *= a->sizes[d];
    }
    return NPY_OK;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Checks magic and version and reads the header length. *preamble says how many bytes the
 * preamble has (10 or 12). file_size: the whole file. */
static npy_status parse_preamble(const char *name, const unsigned char *b, uint64_t file_size,
                                 npy_array *a, size_t *preamble, uint32_t *hlen, char *err)
{
    size_t have = file_size < PREAMBLE_MAX ? (size_t)file_size : PREAMBLE_MAX;
    if (memcmp(b, MAGIC, have < 6 ? have : 6))
        return fail(err, NPY_EFORMAT, name, "not a .npy file (it does not start with "
                    "\\x93NUMPY)");
    if (have < 8)
        return fail(err, NPY_EFORMAT, name, "truncated: %zu bytes, a .npy file has at least 10",
                    have);
    if (b[6] < 1 || b[6] > 3 || b[7] != 0)
        return fail(err, NPY_EFORMAT, name, "unsupported .npy format version %u.%u (dmlcl reads "
                    "1.0, 2.0 and 3.0)", b[6], b[7]);
    a->version = b[6];
    *preamble = a->version == 1 ? 10 : 12;
    if (have < *preamble)
        return fail(err, NPY_EFORMAT, name, "truncated: %zu bytes, a version %d.0 .npy file has "
                    "at least %zu", have, a->version, *preamble);
    *hlen = (uint32_t)b[8] | (uint32_t)b[9] << 8;
    if (a->version > 1)
        *hlen |= (uint32_t)b[10] << 16 | (uint32_t)b[11] << 24;
    if (*hlen > file_size - *preamble)
        return fail(err, NPY_EFORMAT, name, "header length %lu runs past the end of the file "
                    "(%llu bytes)", (unsigned long)*hlen, (unsigned long long)file_size);
    if (*hlen > NPY_HEADER_MAX)
        return fail(err, NPY_EFORMAT, name, "header length %lu is above the %u bytes dmlcl "
                    "accepts", (unsigned long)*hlen, NPY_HEADER_MAX);
    return NPY_OK;
}

/* Parses the header text and checks the data length against what follows it. */
static npy_status parse_header(const char *name, const char *text, size_t len,
                               uint64_t data_avail, npy_array *a, char *err)
{
    parser p = {text, len, 0, name, err};
    uint64_t sizes[DMLCL_TENSOR_DIMENSION_COUNT_MAX] = {0};
    uint32_t rank = 0;
    npy_status st = parse_dict(&p, a, sizes, &rank);
    if (!st)
        st = check_shape(name, sizes, rank, a, err);
    if (st)
        return st;
    char shape[160], descr[8];
    npy_shape_text(a, shape, sizeof shape);
    npy_descr(a->type, a->big_endian, descr);
    if (data_avail < a->data_bytes)
        return fail(err, NPY_EFORMAT, name, "data truncated: shape %s of '%s' needs %llu bytes, "
                    "the file has %llu after the header", shape, descr,
                    (unsigned long long)a->data_bytes, (unsigned long long)data_avail);
    if (data_avail > a->data_bytes)
        return fail(err, NPY_EFORMAT, name, "the file has %llu bytes after the header but shape "
                    "%s of '%s' needs %llu: the header does not describe the data",
                    (unsigned long long)data_avail, shape, descr,
                    (unsigned long long)a->data_bytes);
    if (a->data_bytes > SIZE_MAX)
        return fail(err, NPY_ENOMEM, name, "%llu bytes of data do not fit in this process's "
                    "address space", (unsigned long long)a->data_bytes);
    return NPY_OK;
}

/* Brings loaded data into host byte order. */
static void to_host_order(npy_array *a)
{
    uint32_t size = npy_type_size(a->type);
    if (size > 1 && a->big_endian != npy_host_big_endian())
        swap_bytes(a->data, a->elements, size);
}

npy_status npy_load_mem(const char *name, const void *buf, size_t len, npy_array *a,
                        char err[NPY_ERR_MAX])
{
    memset(a, 0, sizeof *a);
    const unsigned char *b = buf;
    size_t preamble = 0;
    uint32_t hlen = 0;
    npy_status st = parse_preamble(name, b, len, a, &preamble, &hlen, err);
    if (!st)
        st = parse_header(name, (const char *)b + preamble, hlen, len - preamble - hlen, a, err);
    if (st) {
        memset(a, 0, sizeof *a);
        return st;
    }
    if (npy_alloc_data(a)) {
        memset(a, 0, sizeof *a);
        return fail(err, NPY_ENOMEM, name, "out of memory for %llu bytes of data",
                    (unsigned long long)a->data_bytes);
    }
    memcpy(a->data, b + preamble + hlen, a->data_bytes);
    to_host_order(a);
    return NPY_OK;
}

static npy_status read_exact(FILE *f, void *buf, size_t n, const char *name, char *err)
{
    if (fread(buf, 1, n, f) == n)
        return NPY_OK;
    if (ferror(f))
        return fail(err, NPY_EIO, name, "read error: %s", strerror(errno));
    return fail(err, NPY_EIO, name, "the file became shorter while it was read");
}

/* The preamble and header of an open file; leaves f at the data's first byte. */
static npy_status read_header(FILE *f, const char *name, npy_array *a, char *err)
{
    struct stat sb;
    if (fstat(fileno(f), &sb))
        return fail(err, NPY_EIO, name, "cannot stat: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return fail(err, NPY_EIO, name, "not a regular file");
    uint64_t size = (uint64_t)sb.st_size;
    unsigned char pre[PREAMBLE_MAX] = {0};
    size_t have = size < PREAMBLE_MAX ? (size_t)size : PREAMBLE_MAX;
    size_t preamble = 0;
    uint32_t hlen = 0;
    npy_status st = read_exact(f, pre, have, name, err);
    if (!st)
        st = parse_preamble(name, pre, size, a, &preamble, &hlen, err);
    if (st)
        return st;
    /* hlen is bounded by the file size and NPY_HEADER_MAX: safe to allocate. */
    char *text = malloc((size_t)hlen + 1);
    if (!text)
        return fail(err, NPY_ENOMEM, name, "out of memory for a %lu-byte header",
                    (unsigned long)hlen);
    if (fseek(f, (long)preamble, SEEK_SET))
        st = fail(err, NPY_EIO, name, "cannot seek: %s", strerror(errno));
    if (!st)
        st = read_exact(f, text, hlen, name, err);
    if (!st)
        st = parse_header(name, text, hlen, size - preamble - hlen, a, err);
    free(text);
    return st;
}

npy_status npy_open(const char *path, npy_array *a, FILE **f, char err[NPY_ERR_MAX])
{
    memset(a, 0, sizeof *a);
    *f = fopen(path, "rb");
    if (!*f)
        return fail(err, NPY_EIO, path, "cannot open: %s", strerror(errno));
    npy_status st = read_header(*f, path, a, err);
    if (st) {
        fclose(*f);
        *f = NULL;
        memset(a, 0, sizeof *a);
    }
    return st;
}

npy_status npy_read_data(FILE *f, const char *path, npy_array *a, char err[NPY_ERR_MAX])
{
    /* npy_open checked data_bytes against the file size: this allocation is bounded. */
    if (npy_alloc_data(a))
        return fail(err, NPY_ENOMEM, path, "out of memory for %llu bytes of data",
                    (unsigned long long)a->data_bytes);
    npy_status st = read_exact(f, a->data, a->data_bytes, path, err);
    if (st) {
        npy_free_data(a);
        return st;
    }
    to_host_order(a);
    return NPY_OK;
}

npy_status npy_load(const char *path, npy_array *a, char err[NPY_ERR_MAX])
{
    FILE *f = NULL;
    npy_status st = npy_open(path, a, &f, err);
    if (st)
        return st;
    st = npy_read_data(f, path, a, err);
    fclose(f);
    if (st)
        memset(a, 0, sizeof *a);
    return st;
}

#define HUGE_PAGE ((size_t)2 << 20)

int npy_alloc_data(npy_array *a)
{
    const size_t n = (size_t)a->data_bytes;
    a->mapped = 0;
#ifdef MADV_HUGEPAGE
    if (n >= 4 * HUGE_PAGE) {
        /* Whole huge pages from a huge-page boundary: map one more, trim both ends. */
        const size_t body = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        char *p = mmap(NULL, body + HUGE_PAGE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            const size_t head = (HUGE_PAGE - (uintptr_t)p % HUGE_PAGE) % HUGE_PAGE;
            if (head)
                munmap(p, head);
            munmap(p + head + body, HUGE_PAGE - head); /* never empty: head < HUGE_PAGE */
            madvise(p + head, body, MADV_HUGEPAGE); /* advice: none is no error */
            a->data = p + head;
            a->mapped = body;
            return 0;
        }
    }
#endif
    a->data = malloc(n ? n : 1);
    return a->data ? 0 : -1;
}

void npy_free_data(npy_array *a)
{
    if (a->mapped)
        munmap(a->data, a->mapped);
    else
        free(a->data);
    a->data = NULL;
    a->mapped = 0;
}

void npy_free(npy_array *a)
{
    if (!a)
        return;
    npy_free_data(a);
    memset(a, 0, sizeof *a);
}

/* ---- writing ---------------------------------------------------------------------------- */

/* The header NumPy itself writes: the dict, spaces, '\n', the whole preamble + header
 * a multiple of 64 bytes. Returns its length, 0 if it does not fit cap. */
static size_t make_header(const npy_array *a, int version, char *buf, size_t cap)
{
    char descr[8], shape[160];
    size_t pre = version == 1 ? 10 : 12;
    int n = snprintf(buf, cap, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
                     npy_descr(a->type, a->big_endian, descr), a->fortran_order ? "True" : "False",
                     npy_shape_text(a, shape, sizeof shape));
    if (n < 0)
        return 0;
    size_t len = (size_t)n;
    size_t total = (pre + len + 1 + 63) / 64 * 64;
    if (total - pre >= cap)
        return 0;
    memset(buf + len, ' ', total - pre - len - 1);
    buf[total - pre - 1] = '\n';
    return total - pre;
}

static int write_data(FILE *f, const npy_array *a)
{
    uint32_t size = npy_type_size(a->type);
    if (size == 1 || a->big_endian == npy_host_big_endian())
        return fwrite(a->data, 1, a->data_bytes, f) == a->data_bytes ? 0 : -1;
    unsigned char chunk[65536];
    const unsigned char *p = a->data;
    for (uint64_t left = a->data_bytes; left;) {
        size_t n = left < sizeof chunk ? (size_t)left : sizeof chunk;
        memcpy(chunk, p, n);
        swap_bytes(chunk, n / size, size);
        if (fwrite(chunk, 1, n, f) != n)
            return -1;
        p += n;
        left -= n;
    }
    return 0;
}

/* The folder of path, synced so that the rename survives a crash (best effort). */
static void sync_folder(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    int n = !slash ? snprintf(dir, sizeof dir, ".")
          : slash == path ? snprintf(dir, sizeof dir, "/")
                          : snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = n > 0 && (size_t)n < sizeof dir ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* A device or pipe (/dev/stdout, a FIFO) is written directly: it cannot be replaced. */
static npy_status write_special(const char *path, const unsigned char *pre, size_t npre,
                                const char *header, size_t hlen, const npy_array *h, char *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail(err, NPY_EIO, path, "cannot open: %s", strerror(errno));
    int bad = fwrite(pre, 1, npre, f) != npre || fwrite(header, 1, hlen, f) != hlen ||
              write_data(f, h);
    int saved = errno;
    if (fclose(f) && !bad)
        bad = 1, saved = errno;
    return bad ? fail(err, NPY_EIO, path, "write error: %s", strerror(saved)) : NPY_OK;
}

/* Writes the preamble, header and data to a temporary file in path's folder, syncs it and
 * renames it over path. On any failure the temporary file is removed and whatever was at
 * path (an older file, or nothing) is left exactly as it was. A symbolic link at path is
 * followed: the file it names is replaced, the link stays. */
static npy_status write_replacing(const char *path, const unsigned char *pre, size_t npre,
                                  const char *header, size_t hlen, const npy_array *h, char *err)
{
    char target[4096], tmp[4096 + 32];
    struct stat lst, st;
    int existed = !lstat(path, &lst);
    if (!stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return write_special(path, pre, npre, header, hlen, h, err);
    if (existed && S_ISLNK(lst.st_mode) && realpath(path, target))
        ; /* write beside the link's target */
    else if (snprintf(target, sizeof target, "%s", path) >= (int)sizeof target)
        return fail(err, NPY_EIO, path, "cannot create: %s", strerror(ENAMETOOLONG));
    const char *what = "cannot create";
    int saved = 0, bad = 0, fd = temp_open(target, tmp, sizeof tmp);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
    if (!f) {
        saved = errno;
        if (fd >= 0)
            close(fd), unlink(tmp), temp_done();
        return fail(err, NPY_EIO, path, "%s: %s%s", what, strerror(saved),
                    existed ? " (the existing file is unchanged)" : "");
    }
    what = "write error";
    bad = fwrite(pre, 1, npre, f) != npre || fwrite(header, 1, hlen, f) != hlen ||
          write_data(f, h) || fflush(f);
    saved = errno;
    if (!bad && fsync(fileno(f)))
        bad = 1, saved = errno;
    if (fclose(f) && !bad)
        bad = 1, saved = errno;
    if (!bad && rename(tmp, target))
        bad = 1, saved = errno, what = "cannot replace";
    if (bad)
        unlink(tmp);
    temp_done(); /* renamed or removed: no longer ours to remove on a signal */
    if (bad)
        return fail(err, NPY_EIO, path, "%s: %s (%s)", what, strerror(saved),
                    existed ? "the existing file is unchanged" : "no file was left");
    sync_folder(target);
    return NPY_OK;
}

npy_status npy_save(const char *path, const npy_array *a, char err[NPY_ERR_MAX])
{
    if (!npy_type_size(a->type))
        return fail(err, NPY_EFORMAT, path, "cannot write data type %d to .npy", (int)a->type);
    /* The same checks as on reading, which also fill in elements and data_bytes. */
    npy_array h = *a;
    uint64_t sizes[DMLCL_TENSOR_DIMENSION_COUNT_MAX] = {0};
    for (uint32_t d = 0; d < a->rank && d < DMLCL_TENSOR_DIMENSION_COUNT_MAX; d++)
        sizes[d] = a->sizes[d];
    npy_status st = check_shape(path, sizes, a->rank, &h, err);
    if (st)
        return st;
    if (a->version < 0 || a->version > 3)
        return fail(err, NPY_EFORMAT, path, "cannot write .npy format version %d", a->version);
    char header[512];
    int version = a->version ? a->version : 1;
    size_t hlen = make_header(&h, version, header, sizeof header);
    if (!hlen)
        return fail(err, NPY_EFORMAT, path, "header too long");
    unsigned char pre[PREAMBLE_MAX];
    memcpy(pre, MAGIC, 6);
    pre[6] = (unsigned char)version;
    pre[7] = 0;
    for (int i = 0; i < 4; i++)
        pre[8 + i] = (unsigned char)(hlen >> (8 * i));
    return write_replacing(path, pre, version == 1 ? 10 : 12, header, hlen, &h, err);
}
