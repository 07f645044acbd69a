/* Descriptors held and retiled by a layer above (the MPI layer): a copy of any operator's
 * descriptor, its data tensors, and a tile operator made from the whole descriptor and
 * each tensor's box and strides, all through the class's layout (core/op.h), so a layer
 * names no descriptor struct and a new operator needs nothing of it. */
#include "operator.h"
#include <string.h>

#define MAXDIM DMLCL_TENSOR_DIMENSION_COUNT_MAX

/* A descriptor with everything it points at, in one allocation (or on the stack). */
typedef struct held {
    dmlcl_operator_desc od; /* first: the copy's address is the held's */
    union {
        uint64_t align;
        void *pointer;
        unsigned char bytes[128];
    } desc;
    dmlcl_tensor_desc tensors[3];
    uint32_t sizes[3][MAXDIM], strides[3][MAXDIM];
    float arrays[3][MAXDIM];
} held;

static const dmlcl__op_class *class_of(const dmlcl_operator_desc *desc, const char *fn)
{
    if (!desc || !desc->desc) {
        dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: desc%s is NULL", fn, desc ? "->desc" : "");
        return NULL;
    }
    const dmlcl__op_class *cls = dmlcl__op_class_find(desc->type);
    if (!cls)
        dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: desc->type %d is not an operator type", fn,
                    (int)desc->type);
    return cls;
}

/* The pointer at byte `at` of a descriptor struct. */
static const void **field(void *desc, size_t at) { return (const void **)((char *)desc + at); }

/* *h = desc with its tensors and arrays copied into h. Shapes are bounded here (the most
 * dimensions) so the copy is; the operator's own rules are its check's. */
static dmlcl_status hold(const dmlcl__op_class *cls, const dmlcl_operator_desc *desc, held *h,
                         const char *fn)
{
    const dmlcl__desc_layout *l = &cls->layout;
    if (l->size > sizeof h->desc.bytes) /* a class whose struct outgrew the room: a bug */
        return dmlcl__fail(DMLCL_UNSUPPORTED, "%s: %s's descriptor (%zu bytes) is over %zu",
                           fn, cls->name, l->size, sizeof h->desc.bytes);
    memset(h, 0, sizeof *h);
    memcpy(h->desc.bytes, desc->desc, l->size);
    h->od.type = desc->type;
    h->od.desc = h->desc.bytes;
    for (uint32_t k = 0; k < l->tensors; k++) {
        const dmlcl_tensor_desc *t = *field(h->desc.bytes, l->tensor_at[k]);
        if (!t || !t->sizes)
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s's tensor %u%s is NULL", fn,
                               cls->name, k, t ? "'s sizes" : "");
        if (t->dimension_count > MAXDIM)
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: %s's tensor %u has %u dimensions, over the most (%u)", fn,
                               cls->name, k, t->dimension_count, MAXDIM);
        h->tensors[k] = *t;
        memcpy(h->sizes[k], t->sizes, sizeof *t->sizes * t->dimension_count);
        h->tensors[k].sizes = h->sizes[k];
        if (t->strides) {
            memcpy(h->strides[k], t->strides, sizeof *t->strides * t->dimension_count);
            h->tensors[k].strides = h->strides[k];
        }
        *field(h->desc.bytes, l->tensor_at[k]) = &h->tensors[k];
    }
    uint32_t count = 0;
    if (l->arrays)
        memcpy(&count, h->desc.bytes + l->count_at, sizeof count);
    for (uint32_t k = 0; k < l->arrays; k++) {
        const float *a = *field(h->desc.bytes, l->array_at[k]);
        if (!a)
            continue; /* an optional array (the check says which may be NULL) */
        if (count > MAXDIM)
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                               "%s: %s's arrays hold %u values, over the most dimensions (%u)",
                               fn, cls->name, count, MAXDIM);
        memcpy(h->arrays[k], a, sizeof *a * count);
        *field(h->desc.bytes, l->array_at[k]) = h->arrays[k];
    }
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl_operator_desc_copy(const dmlcl_operator_desc *desc,
                                      dmlcl_operator_desc **copy)
{
    static const char *const fn = "dmlcl_operator_desc_copy";
    if (!copy)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: copy is NULL", fn);
    *copy = NULL;
    const dmlcl__op_class *cls = class_of(desc, fn);
    if (!cls)
        return DMLCL_INVALID_ARGUMENT;
    held *h = dmlcl__malloc(sizeof *h);
    if (!h)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", fn);
    dmlcl_status st = hold(cls, desc, h, fn);
    if (st) {
        dmlcl__free(h);
        return st;
    }
    *copy = &h->od;
    return DMLCL_SUCCESS;
}

void dmlcl_operator_desc_free(dmlcl_operator_desc *copy) { dmlcl__free(copy); }

const dmlcl_tensor_desc *dmlcl_operator_desc_tensor(const dmlcl_operator_desc *desc,
                                                    uint32_t which)
{
    const dmlcl__op_class *cls = desc && desc->desc ? dmlcl__op_class_find(desc->type) : NULL;
    if (!cls || which >= cls->layout.tensors)
        return NULL;
    return *field((void *)desc->desc, cls->layout.tensor_at[which]);
}

/* Tensor k of h becomes its tile: box (start, sizes) and strides of b (NULL: packed). */
static dmlcl_status place(held *h, uint32_t k, const dmlcl_tile_box *b, const char *name,
                          const char *fn)
{
    dmlcl_tensor_desc *t = &h->tensors[k];
    if (!b || !b->start || !b->sizes)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s%s is NULL", fn, name,
                           !b ? "" : !b->start ? "->start" : "->sizes");
    memcpy(h->sizes[k], b->sizes, sizeof *b->sizes * t->dimension_count);
    t->strides = NULL;
    if (b->strides) {
        memcpy(h->strides[k], b->strides, sizeof *b->strides * t->dimension_count);
        t->strides = h->strides[k];
    }
    t->total_tensor_size_in_bytes = 0;
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl_operator_create_tile_box(dmlcl_context *context,
                                            const dmlcl_operator_desc *whole,
                                            const dmlcl_tile_box *input,
                                            const dmlcl_tile_box *output, dmlcl_operator **out)
{
    static const char *const fn = "dmlcl_operator_create_tile_box";
    const dmlcl__op_class *cls = class_of(whole, fn);
    held h;
    dmlcl_status st = cls ? hold(cls, whole, &h, fn) : DMLCL_INVALID_ARGUMENT;
    if (st)
        return st;
    const dmlcl_tensor_desc *wi = dmlcl_operator_desc_tensor(whole, 0);
    const dmlcl_tensor_desc *wo = dmlcl_operator_desc_tensor(whole, 1);
    if ((st = place(&h, 0, input, "input", fn)) || (st = place(&h, 1, output, "output", fn)))
        return st;
    if (cls->layout.tensors > 2) { /* the companion: the input's box, 1 long where it is */
        dmlcl_tensor_desc *c = &h.tensors[2];
        for (uint32_t d = 0; d < c->dimension_count && d < wi->dimension_count; d++)
            h.sizes[2][d] = h.sizes[2][d] == 1 ? 1 : input->sizes[d];
        c->strides = NULL, c->total_tensor_size_in_bytes = 0;
    }
    dmlcl_tile_desc ti = {wi->dimension_count, wi->sizes, input->start};
    dmlcl_tile_desc to = {wo->dimension_count, wo->sizes, output->start};
    return dmlcl_operator_create_tile(context, &h.od, &ti, &to, out);
}
