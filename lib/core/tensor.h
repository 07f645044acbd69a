/* Tensors (tensor.c) and tiles of logical tensors (tile.c). */
#ifndef DMLCL_CORE_TENSOR_H
#define DMLCL_CORE_TENSOR_H
#include "core/base.h"

/* ---- tensors (tensor.c) -------------------------------------------------------------
 * A validated, normalized copy of a dmlcl_tensor_desc: strides always explicit. */
typedef struct dmlcl__tensor {
    dmlcl_tensor_data_type type;
    uint32_t rank;
    uint32_t elem_size;
    uint64_t sizes[DMLCL_MAXDIM];
    uint64_t strides[DMLCL_MAXDIM];
    uint64_t elements;   /* product of sizes */
    uint64_t span;       /* 1 + sum (size-1)*stride: elements the buffer must hold */
    uint64_t span_bytes; /* span * elem_size */
    /* Where the tensor lies in its logical tensor (tile.c): a tile's first element and the
     * whole's sizes; a whole tensor has origin 0 and whole = sizes. */
    uint64_t origin[DMLCL_MAXDIM];
    uint64_t whole[DMLCL_MAXDIM];
    int tiled;
} dmlcl__tensor;

/* Checks desc against the tensor rules (non-NULL, rank 1..8, sizes >= 1, known type,
 * no 64-bit overflow, total_tensor_size_in_bytes 0 or large enough) and fills *t.
 * Messages read "<op>: <field> ...". */
dmlcl_status dmlcl__tensor_check(const char *op, const char *field, const dmlcl_tensor_desc *desc,
                                 dmlcl__tensor *t);
/* Rejects an output layout in which two indices share one element. */
dmlcl_status dmlcl__tensor_check_no_alias(const char *op, const char *field, const dmlcl__tensor *t);
const char *dmlcl__type_name(dmlcl_tensor_data_type type); /* "FLOAT32", ... */
/* Marks t as its own whole tensor (origin 0, whole = sizes): not a tile (tile.c places
 * tiles). */
void dmlcl__tensor_whole(dmlcl__tensor *t);
/* The part of t from index start with the given sizes (each within t): fills *v and
 * returns the element offset of its first element from t's. */
uint64_t dmlcl__tensor_view(const dmlcl__tensor *t, const uint64_t *start, const uint64_t *sizes,
                           dmlcl__tensor *v);

/* ---- tiles (tile.c) ---------------------------------------------------------------------
 * A box of a logical tensor: per dimension its first index and its extent (0: empty). */
typedef struct dmlcl__box {
    uint64_t start[DMLCL_MAXDIM];
    uint64_t size[DMLCL_MAXDIM];
} dmlcl__box;
/* Places the validated tensor t (field tensor_field) in its logical tensor by tile (field
 * tile_field; NULL: t is the whole tensor): checks the tile's rules, fills origin/whole. */
dmlcl_status dmlcl__tile_place(const char *op, const char *tile_field, const char *tensor_field,
                               const dmlcl_tile_desc *tile, dmlcl__tensor *t);
/* The box t covers in its logical tensor. */
void dmlcl__tile_box(const dmlcl__tensor *t, dmlcl__box *b);
/* Narrows t to box b of its logical tensor (b within t's box): t becomes the tile of b,
 * with t's strides; returns the element offset of b's first element from t's. */
uint64_t dmlcl__tile_narrow(dmlcl__tensor *t, const dmlcl__box *b);
/* Fails unless input tile `in` holds the box `reads` (an empty box always fits). */
dmlcl_status dmlcl__tile_covers(const char *op, const dmlcl__tensor *in, const dmlcl__box *reads);

#endif
