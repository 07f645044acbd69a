/* Tap tables and the generic tap operator (kernels/resample/taps/taps.cl), shared by
 * RESAMPLE_GRAD1 and RESAMPLE3.
 *
 * Table layout (32-bit words, one buffer): per tabled dimension, one row of 3 words per
 * result coordinate {first source index, tap count, word offset of its taps}, then the
 * taps, 2 words each {float bits of w, code}: weight (code & 1 ? 1 - w : 0) +
 * (code & 2 ? w : 0). A dimension whose rows all read one element with weight 1 at
 * first + r * step is affine and leaves no rows (a plain stride). The device's table
 * for a float accumulator (every data type but FLOAT64) holds each tap's weight itself
 * in place of w (dmlcl__taps_bake). */
#ifndef DMLCL_RESAMPLE_TAPS_H
#define DMLCL_RESAMPLE_TAPS_H
#include "core/op.h"
#include "resample/resample1/resample1_plan.h"

typedef struct dmlcl__taps_table {
    uint32_t *words;
    uint64_t n, cap; /* words used, allocated */
    int oom;         /* an allocation failed */
} dmlcl__taps_table;
void dmlcl__taps_table_free(dmlcl__taps_table *t);

/* One dimension: in (descriptor values, tiles), out (where its rows went, or affine).
 * Coordinates are global: the rows are those of the whole dimension's result indices
 * [res0, res0 + n), their source indices relative to src0; the source tile holds
 * [src0, src0 + src_n). A whole tensor: res0 = src0 = 0, n = n_res, src_n = n_src. */
typedef struct dmlcl__taps_dim {
    uint64_t n_res, n_src;          /* result and source sizes of the whole */
    float scale, in_offset, out_offset;
    uint64_t res0, n, src0, src_n;  /* the tiles */
    uint64_t row_word;              /* first row's word; UINT64_MAX = affine */
    uint64_t first, step;           /* affine: source index = first + r * step */
} dmlcl__taps_dim;

/* RESAMPLE3's antialiased row o: its taps of nonzero weight, [*first, *first + *count)
 * (the rows keep only those; the halo query reads them here). */
void dmlcl__taps_aa_row(const dmlcl__taps_dim *p, uint64_t o, int64_t *first, uint64_t *count);

/* RESAMPLE_GRAD1: result = forward input (n_res), source = forward output (n_src); each
 * row lists the forward outputs that read the input coordinate, with their weights (a
 * contiguous range: the forward map is monotone). Returns 0 when out of memory. */
int dmlcl__taps_add_grad(dmlcl__taps_table *t, int linear, dmlcl__nearest_rule rule,
                         dmlcl__taps_dim *p);
/* The rows of dimension p, the last one added (words [p->row_word, t->n)), into w with
 * their taps' word offsets relative to the first row, as the context's memo keeps them. */
void dmlcl__taps_rows_out(const dmlcl__taps_table *t, const dmlcl__taps_dim *p, uint32_t *w);
/* Appends rows saved by dmlcl__taps_rows_out (nwords words, p->n rows) and sets
 * p->row_word. Returns 0 when out of memory. */
int dmlcl__taps_rows_in(dmlcl__taps_table *t, dmlcl__taps_dim *p, const uint32_t *w,
                        uint64_t nwords);
/* Dimension p's taps for the kernels that accumulate in float (every data type but
 * FLOAT64): each tap's first word becomes its weight, computed in float as those kernels
 * computed it from {w, code} (1 - w rounded to float, then the sum of the coded parts), so
 * that they read one word a tap and decode nothing: the same weights, bit for bit. The
 * code stays. Call it once per dimension's rows (dimensions may share them). */
void dmlcl__taps_bake(dmlcl__taps_table *t, const dmlcl__taps_dim *p);

/* RESAMPLE3 (LINEAR): result = output, source = input; antialiased with scale < 1: the
 * widened, normalized triangle filter; otherwise RESAMPLE1's two taps. */
int dmlcl__taps_add_forward(dmlcl__taps_table *t, int antialiased, dmlcl__taps_dim *p);

/* Without building rows: if every row of the whole dimension would be one tap of weight 1
 * at source index first + r * step (then shifted to the tiles) (RESAMPLE3's unwidened linear taps on an affine map,
 * RESAMPLE_GRAD1 of a forward map o -> o), sets p's row_word to UINT64_MAX, first and step
 * and returns 1. Spares an identity dimension, however long, its rows. d: the dimension,
 * wd: what the parts of a slabs operator share (NULL: none; see core/slab.h). */
int dmlcl__taps_affine(int grad, int linear, dmlcl__nearest_rule rule, int antialiased,
                       dmlcl__taps_dim *p, uint32_t d, dmlcl__whole_dims *wd);

/* taps.c: builds the tables of every dimension, plans, gets the kernel and
 * uploads the table into op (op->in[0], op->out[0] validated: source and result). grad:
 * 1 = RESAMPLE_GRAD1 rows, 0 = RESAMPLE3 forward rows; tune: $DMLCL_RESAMPLE_PLAN as read. */
dmlcl_status dmlcl__taps_create(dmlcl_operator *op, const dmlcl__op_vtable *vt, int grad,
                                int linear, dmlcl__nearest_rule rule, int antialiased,
                                const float *scales, const float *in_offsets,
                                const float *out_offsets, const dmlcl__resample_tune *tune);
dmlcl_status dmlcl__taps_enqueue(dmlcl_operator *op, const cl_mem *in, const uint64_t *in_off,
                                 const cl_mem *out, const uint64_t *out_off, cl_uint nwait,
                                 const cl_event *wait, cl_event *event);
void dmlcl__taps_destroy(dmlcl_operator *op);
void dmlcl__taps_describe(dmlcl_operator *op); /* op->plan_text, on demand */
#endif
