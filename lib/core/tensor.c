/* Tensor descriptor rules shared by every operator: validation, sizes, aliasing. */
#include "core/tensor.h"
#include <stdlib.h>
#include <string.h>

const char *dmlcl__type_name(dmlcl_tensor_data_type type)
{
    static const char *const names[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32",
                                        "UINT16",  "UINT8",   "INT32",   "INT16",
                                        "INT8",    "FLOAT64", "UINT64",  "INT64"};
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : "INVALID";
}

uint32_t dmlcl_data_type_size(dmlcl_tensor_data_type type)
{
    switch (type) {
    case DMLCL_TENSOR_DATA_TYPE_UINT8: case DMLCL_TENSOR_DATA_TYPE_INT8: return 1;
    case DMLCL_TENSOR_DATA_TYPE_FLOAT16: case DMLCL_TENSOR_DATA_TYPE_UINT16:
    case DMLCL_TENSOR_DATA_TYPE_INT16: return 2;
    case DMLCL_TENSOR_DATA_TYPE_FLOAT32: case DMLCL_TENSOR_DATA_TYPE_UINT32:
    case DMLCL_TENSOR_DATA_TYPE_INT32: return 4;
    case DMLCL_TENSOR_DATA_TYPE_FLOAT64: case DMLCL_TENSOR_DATA_TYPE_UINT64:
    case DMLCL_TENSOR_DATA_TYPE_INT64: return 8;
    default: return 0;
    }
}

/* Shape checks: pointers, rank, sizes, type. */
static dmlcl_status check_shape(const char *op, const char *field, const dmlcl_tensor_desc *d)
{
    if (!d)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s is NULL", op, field);
    if (d->dimension_count < 1 || d->dimension_count > DMLCL_MAXDIM)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s dimension_count must be 1..%d, got %u",
                           op, field, DMLCL_MAXDIM, d->dimension_count);
    if (!d->sizes)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s sizes is NULL", op, field);
    for (uint32_t i = 0; i < d->dimension_count; i++)
        if (d->sizes[i] == 0)
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s sizes[%u] must be >= 1, got 0",
                               op, field, i);
    if (dmlcl_data_type_size(d->data_type) == 0)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s data_type %d is not a valid data type",
                           op, field, (int)d->data_type);
    return DMLCL_SUCCESS;
}

/* Element count and span, each checked against 64-bit overflow. */
static dmlcl_status compute_extent(const char *op, const char *field, dmlcl__tensor *t)
{
    uint64_t n = 1, span = 1, bytes;
    for (uint32_t i = 0; i < t->rank; i++) {
        uint64_t step;
        if (__builtin_mul_overflow(n, t->sizes[i], &n) ||
            __builtin_mul_overflow(t->sizes[i] - 1, t->strides[i], &step) ||
            __builtin_add_overflow(span, step, &span))
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: %s sizes and strides overflow 64-bit element arithmetic",
                               op, field);
    }
    if (__builtin_mul_overflow(span, (uint64_t)t->elem_size, &bytes) || bytes > UINT64_MAX - 3)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s byte size overflows 64 bits", op, field);
    t->elements = n;
    t->span = span;
    t->span_bytes = bytes;
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__tensor_check(const char *op, const char *field, const dmlcl_tensor_desc *d,
                                 dmlcl__tensor *t)
{
    dmlcl_status st = check_shape(op, field, d);
    if (st)
        return st;
    memset(t, 0, sizeof *t);
    t->type = d->data_type;
    t->rank = d->dimension_count;
    t->elem_size = dmlcl_data_type_size(d->data_type);
    uint64_t packed = 1;
    for (int i = (int)t->rank - 1; i >= 0; i--) {
        t->sizes[i] = d->sizes[i];
        t->strides[i] = d->strides ? d->strides[i] : packed;
        if (!d->strides && __builtin_mul_overflow(packed, t->sizes[i], &packed))
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: %s sizes overflow 64-bit element arithmetic", op, field);
    }
    if ((st = compute_extent(op, field, t)))
        return st;
    dmlcl__tensor_whole(t);
    uint64_t need = (t->span_bytes + 3) & ~(uint64_t)3;
    if (d->total_tensor_size_in_bytes != 0 && d->total_tensor_size_in_bytes < need)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s total_tensor_size_in_bytes must be 0 or >= %llu, got %llu", op,
                           field, (unsigned long long)need,
                           (unsigned long long)d->total_tensor_size_in_bytes);
    return DMLCL_SUCCESS;
}

void dmlcl__tensor_whole(dmlcl__tensor *t)
{
    for (uint32_t d = 0; d < DMLCL_MAXDIM; d++) {
        t->origin[d] = 0;
        t->whole[d] = d < t->rank ? t->sizes[d] : 1;
    }
    t->tiled = 0;
}

uint64_t dmlcl__tensor_view(const dmlcl__tensor *t, const uint64_t *start, const uint64_t *sizes,
                           dmlcl__tensor *v)
{
    *v = *t;
    uint64_t shift = 0;
    v->elements = 1;
    v->span = 1;
    for (uint32_t d = 0; d < t->rank; d++) {
        shift += start[d] * t->strides[d];
        v->sizes[d] = sizes[d];
        v->elements *= sizes[d];
        v->span += (sizes[d] - 1) * t->strides[d];
    }
    v->span_bytes = v->span * t->elem_size;
    return shift;
}

uint64_t dmlcl_tensor_size_in_bytes(const dmlcl_tensor_desc *desc)
{
    dmlcl__tensor t;
    if (dmlcl__tensor_check("dmlcl_tensor_size_in_bytes", "desc", desc, &t))
        return 0;
    return (t.span_bytes + 3) & ~(uint64_t)3;
}

/* ---- aliasing ---------------------------------------------------------------------- */

typedef struct { uint64_t size, stride; } dim_t;

static int by_stride(const void *a, const void *b)
{
    const dim_t *x = a, *y = b;
    return x->stride < y->stride ? -1 : x->stride > y->stride;
}

/* Exact check for layouts that are not nested (each stride at least the extent of the
 * smaller ones): mark every element in a bitmap. Bounded so it cannot take long. */
#define ALIAS_BITMAP_MAX (1ull << 26)
static dmlcl_status exact_alias_check(const char *op, const char *field, const dmlcl__tensor *t)
{
    if (t->span > ALIAS_BITMAP_MAX || t->elements > ALIAS_BITMAP_MAX)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s strides interleave dimensions and the tensor is too large to "
                           "prove that no two indices share an element", op, field);
    unsigned char *seen = dmlcl__calloc((size_t)(t->span + 7) / 8, 1);
    if (!seen)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory checking %s", op, field);
    uint64_t idx[DMLCL_MAXDIM] = {0};
    dmlcl_status st = DMLCL_SUCCESS;
    for (uint64_t n = 0; n < t->elements && !st; n++) {
        uint64_t off = 0;
        for (uint32_t d = 0; d < t->rank; d++)
            off += idx[d] * t->strides[d];
        if (seen[off / 8] & (1u << (off % 8)))
            st = dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                             "%s: %s strides make two indices share element %llu (output must "
                             "not alias itself)", op, field, (unsigned long long)off);
        seen[off / 8] |= (unsigned char)(1u << (off % 8));
        for (int d = (int)t->rank - 1; d >= 0 && ++idx[d] == t->sizes[d]; d--)
            idx[d] = 0;
    }
    dmlcl__free(seen);
    return st;
}

dmlcl_status dmlcl__tensor_check_no_alias(const char *op, const char *field, const dmlcl__tensor *t)
{
    dim_t dims[DMLCL_MAXDIM];
    int n = 0;
    for (uint32_t d = 0; d < t->rank; d++) {
        if (t->sizes[d] == 1)
            continue;
        if (t->strides[d] == 0)
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: %s strides[%u] is 0 with sizes[%u] = %llu: output elements "
                               "would alias (broadcast is for inputs only)",
                               op, field, d, d, (unsigned long long)t->sizes[d]);
        dims[n++] = (dim_t){t->sizes[d], t->strides[d]};
    }
    qsort(dims, (size_t)n, sizeof dims[0], by_stride);
    uint64_t extent = 1; /* elements covered by the smaller-stride dimensions */
    for (int i = 0; i < n; i++) {
        if (dims[i].stride < extent)
            return exact_alias_check(op, field, t);
        extent += (dims[i].size - 1) * dims[i].stride;
    }
    return DMLCL_SUCCESS;
}
