/* The C side of the Fortran module's array routines (fortran/dmlcl.f90): Fortran passes
 * its arrays, of any type and rank, as ISO_Fortran_binding descriptors (type(*),
 * dimension(..) dummies of bind(C) interfaces); this file turns a descriptor into a
 * dmlcl_tensor_desc (sizes in Fortran's dimension order, strides from the descriptor's
 * byte strides: column-major, sections and transposes included, nothing copied), creates
 * the operator on a process-wide default context, runs it on the host arrays and releases
 * it. Tiles: a logical shape and a 0-based start per array (rank-1 integer(int32/int64)
 * arrays, Fortran's dimension order as the arrays') become dmlcl_tile_descs; the halo
 * queries run dmlcl_operator_input_box on packed descriptors of the logical shapes.
 *
 * Errors: every routine writes a dmlcl_status. Rules only Fortran can break (a negative
 * stride, a wrong number of scales) are reported here, with a message of our own that
 * dmlclf_last_error() returns until the library fails again. */
#include <ISO_Fortran_binding.h>
#include <dmlcl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dmlclf.h"

#define MSG_MAX 512

static _Thread_local char own_msg[MSG_MAX];     /* our message for the last failure here */
static _Thread_local char lib_snapshot[MSG_MAX]; /* the library's message at that time */
static _Thread_local int own_failed;

static pthread_mutex_t context_lock = PTHREAD_MUTEX_INITIALIZER;
static dmlcl_context *default_context;

static int fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(own_msg, sizeof own_msg, fmt, ap);
    va_end(ap);
    snprintf(lib_snapshot, sizeof lib_snapshot, "%s", dmlcl_last_error());
    own_failed = 1;
    return status;
}

const char *dmlclf_last_error(void)
{
    const char *lib = dmlcl_last_error();
    if (own_failed && strcmp(lib, lib_snapshot) == 0)
        return own_msg;
    return lib;
}

static dmlcl_status context(dmlcl_context **out)
{
    dmlcl_status st = DMLCL_SUCCESS;
    pthread_mutex_lock(&context_lock);
    if (!default_context)
        st = dmlcl_context_create_default(&default_context);
    *out = default_context;
    pthread_mutex_unlock(&context_lock);
    return st;
}

void dmlclf_release_default_context(void)
{
    pthread_mutex_lock(&context_lock);
    dmlcl_context_release(default_context);
    default_context = NULL;
    pthread_mutex_unlock(&context_lock);
}

/* A Fortran array as a dmlcl tensor. */
typedef struct farray {
    uint32_t sizes[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    uint32_t strides[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    dmlcl_tensor_desc desc;
    void *data;
} farray;

static dmlcl_tensor_data_type cfi_type(CFI_type_t t)
{
    if (t == CFI_type_float)
        return DMLCL_TENSOR_DATA_TYPE_FLOAT32;
    if (t == CFI_type_double)
        return DMLCL_TENSOR_DATA_TYPE_FLOAT64;
    if (t == CFI_type_int8_t)
        return DMLCL_TENSOR_DATA_TYPE_INT8;
    if (t == CFI_type_int16_t)
        return DMLCL_TENSOR_DATA_TYPE_INT16;
    if (t == CFI_type_int32_t)
        return DMLCL_TENSOR_DATA_TYPE_INT32;
    if (t == CFI_type_int64_t)
        return DMLCL_TENSOR_DATA_TYPE_INT64;
    return DMLCL_TENSOR_DATA_TYPE_UNKNOWN;
}

static int describe(const char *op, const char *role, const CFI_cdesc_t *a, farray *f)
{
    if (!a || !a->base_addr)
        return fail(DMLCL_INVALID_ARGUMENT, "%s: %s is not allocated", op, role);
    dmlcl_tensor_data_type type = cfi_type(a->type);
    if (type == DMLCL_TENSOR_DATA_TYPE_UNKNOWN)
        return fail(DMLCL_INVALID_ARGUMENT, "%s: %s has a type dmlcl does not take from Fortran "
                    "(real(c_float), real(c_double), integer(int8/16/32/64))", op, role);
    if (a->rank < 1 || a->rank > DMLCL_TENSOR_DIMENSION_COUNT_MAX)
        return fail(DMLCL_INVALID_ARGUMENT, "%s: %s has rank %d; dmlcl tensors have 1 to 8 "
                    "dimensions", op, role, (int)a->rank);
    for (int d = 0; d < a->rank; d++) {
        CFI_index_t n = a->dim[d].extent, sm = a->dim[d].sm;
        if (n < 1 || n > (CFI_index_t)UINT32_MAX)
            return fail(DMLCL_INVALID_ARGUMENT, "%s: %s has extent %ld along dimension %d; "
                        "dmlcl sizes are 1 to 4294967295", op, role, (long)n, d + 1);
        f->sizes[d] = (uint32_t)n;
        if (n == 1) {
            f->strides[d] = 0; /* never stepped along */
            continue;
        }
        if (sm < 0)
            return fail(DMLCL_INVALID_ARGUMENT, "%s: %s has a negative stride along dimension "
                        "%d (a section such as a(n:1:-1)); dmlcl strides are unsigned: pass a "
                        "copy", op, role, d + 1);
        if (sm % (CFI_index_t)a->elem_len || sm / (CFI_index_t)a->elem_len > UINT32_MAX)
            return fail(DMLCL_INVALID_ARGUMENT, "%s: %s's stride along dimension %d (%ld "
                        "bytes) is not a multiple of its %zu-byte elements below 2^32 of them",
                        op, role, d + 1, (long)sm, a->elem_len);
        f->strides[d] = (uint32_t)(sm / (CFI_index_t)a->elem_len);
    }
    f->desc = (dmlcl_tensor_desc){type, (uint32_t)a->rank, f->sizes, f->strides, 0};
    f->data = a->base_addr;
    return DMLCL_SUCCESS;
}

/* A rank-1 real(c_float) argument of `rank` values, or the default when absent. */
static int floats(const char *op, const char *name, const CFI_cdesc_t *a, int rank, float dflt,
                  float *v)
{
    for (int d = 0; d < rank; d++)
        v[d] = dflt;
    if (!a)
        return DMLCL_SUCCESS;
    if (a->rank != 1 || a->type != CFI_type_float || a->dim[0].extent != rank)
        return fail(DMLCL_INVALID_ARGUMENT, "%s: %s needs one real(c_float) per dimension "
                    "(%d), got %ld", op, name, rank, a->rank == 1 ? (long)a->dim[0].extent : -1L);
    for (int d = 0; d < rank; d++)
        v[d] = *(const float *)((const char *)a->base_addr + d * a->dim[0].sm);
    return DMLCL_SUCCESS;
}

/* Whether a is a rank-1 integer(int32) or integer(int64) array of `rank` values. */
static int index_array(const char *op, const char *name, const CFI_cdesc_t *a, int rank,
                       const char *needs)
{
    if (a->rank != 1 || (a->type != CFI_type_int32_t && a->type != CFI_type_int64_t) ||
        a->dim[0].extent != rank)
        return fail(DMLCL_INVALID_ARGUMENT, "%s: %s needs %sone integer(int32) or "
                    "integer(int64) per dimension (%d), got %ld", op, name, needs, rank,
                    a->rank == 1 ? (long)a->dim[0].extent : -1L);
    return DMLCL_SUCCESS;
}

/* A rank-1 integer(int32) or integer(int64) argument of `rank` values, each from lo to
 * 2^32 - 1, read into v. */
static int indices(const char *op, const char *name, const CFI_cdesc_t *a, int rank,
                   int64_t lo, uint32_t *v)
{
    if (index_array(op, name, a, rank, ""))
        return DMLCL_INVALID_ARGUMENT;
    for (int d = 0; d < rank; d++) {
        const char *p = (const char *)a->base_addr + d * a->dim[0].sm;
        int64_t x = a->type == CFI_type_int32_t ? *(const int32_t *)p : *(const int64_t *)p;
        if (x < lo || x > (int64_t)UINT32_MAX)
            return fail(DMLCL_INVALID_ARGUMENT, "%s: %s(%d) is %lld, outside %lld to "
                        "4294967295", op, name, d + 1, (long long)x, (long long)lo);
        v[d] = (uint32_t)x;
    }
    return DMLCL_SUCCESS;
}

/* Writes `rank` values into a rank-1 integer(int32) or integer(int64) argument. */
static int store_indices(const char *op, const char *name, CFI_cdesc_t *a, int rank,
                         const uint32_t *v)
{
    if (index_array(op, name, a, rank, "room for "))
        return DMLCL_INVALID_ARGUMENT;
    for (int d = 0; d < rank; d++) {
        char *p = (char *)a->base_addr + d * a->dim[0].sm;
        if (a->type == CFI_type_int32_t && v[d] > INT32_MAX)
            return fail(DMLCL_INVALID_ARGUMENT, "%s: %s(%d) would be %u, above "
                        "integer(int32): pass integer(int64)", op, name, d + 1, v[d]);
        if (a->type == CFI_type_int32_t)
            *(int32_t *)p = (int32_t)v[d];
        else
            *(int64_t *)p = (int64_t)v[d];
    }
    return DMLCL_SUCCESS;
}

/* A Fortran array's placement in its logical array: <role>_whole and <role>_start. */
typedef struct ftile {
    uint32_t whole[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    uint32_t start[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    dmlcl_tile_desc desc;
    const dmlcl_tile_desc *p; /* &desc, or NULL: the array is the whole tensor */
} ftile;

static int tile(const char *op, const char *role, const CFI_cdesc_t *whole,
                const CFI_cdesc_t *start, const farray *f, ftile *t)
{
    char wn[32], sn[32];
    int rank = (int)f->desc.dimension_count;
    t->p = NULL;
    for (int d = 0; d < rank; d++)
        t->whole[d] = f->sizes[d]; /* the logical shape of a whole array */
    if (!whole && !start)
        return DMLCL_SUCCESS;
    snprintf(wn, sizeof wn, "%s_whole", role);
    snprintf(sn, sizeof sn, "%s_start", role);
    if (!whole || !start)
        return fail(DMLCL_INVALID_ARGUMENT, "%s: %s and %s come together (the logical shape "
                    "and where %s starts in it)", op, wn, sn, role);
    int st = indices(op, wn, whole, rank, 1, t->whole);
    if (!st)
        st = indices(op, sn, start, rank, 0, t->start);
    t->desc = (dmlcl_tile_desc){(uint32_t)rank, t->whole, t->start};
    t->p = &t->desc;
    return st;
}

/* A resample-family operator descriptor on tensors a (input) and b (output) whose logical
 * shapes are a_whole and b_whole (the default scales' sizes). */
typedef struct rdesc {
    float s[8], io[8], oo[8];
    dmlcl_resample1_desc r1;
    dmlcl_resample2_desc r2;
    dmlcl_resample3_desc r3;
    dmlcl_resample_grad1_desc g1;
    dmlcl_operator_desc od;
} rdesc;

static int resample_desc(const char *op, const dmlcl_tensor_desc *a, const dmlcl_tensor_desc *b,
                         const uint32_t *a_whole, const uint32_t *b_whole,
                         const CFI_cdesc_t *scales, int mode, const CFI_cdesc_t *input_offsets,
                         const CFI_cdesc_t *output_offsets, const int *rounding, int antialias,
                         int grad, rdesc *r)
{
    int rank = (int)a->dimension_count;
    int st = floats(op, "scales", scales, rank, 0, r->s);
    if (!st)
        st = floats(op, "input_offsets", input_offsets, rank, 0.5f, r->io);
    if (!st)
        st = floats(op, "output_offsets", output_offsets, rank, -0.5f, r->oo);
    if (st)
        return st;
    /* Without scales: output size over input size (forward), or the gradient's size over
     * the forward input's (backward), in float32, of the logical shapes. */
    for (int d = 0; !scales && d < rank; d++)
        r->s[d] = (float)b_whole[d] / (float)a_whole[d];
    float *s = r->s, *io = r->io, *oo = r->oo;
    dmlcl_axis_direction dir = rounding ? (dmlcl_axis_direction)*rounding
                                        : DMLCL_AXIS_DIRECTION_INCREASING;
    dmlcl_interpolation_mode m = (dmlcl_interpolation_mode)mode;
    uint32_t n = (uint32_t)rank;
    r->r1 = (dmlcl_resample1_desc){a, b, m, n, s, io, oo};
    r->r2 = (dmlcl_resample2_desc){a, b, m, dir, n, s, io, oo};
    r->r3 = (dmlcl_resample3_desc){a, b, m, dir, n, s, io, oo, 1};
    r->g1 = (dmlcl_resample_grad1_desc){a, b, m, dir, n, s, io, oo};
    if (grad) {
        /* RESAMPLE_GRAD1 rounds nearest coordinates down or up only (DirectML's too).
         * Offsets shifted by 0.5 would mimic floor(c + 0.5) but round differently at rare
         * float32 ties, so that is refused, not approximated (as in Python). */
        if (!rounding && mode == DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR)
            return fail(DMLCL_INVALID_ARGUMENT,
                        "%s: rounding absent (round half up) has no backward operator; give "
                        "the forward pass's rounding, DMLCL_AXIS_DIRECTION_INCREASING or "
                        "DMLCL_AXIS_DIRECTION_DECREASING (RESAMPLE2)", op);
        r->od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE_GRAD1, &r->g1};
    } else if (antialias && mode == DMLCL_INTERPOLATION_MODE_LINEAR)
        r->od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE3, &r->r3};
    else if (rounding)
        r->od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE2, &r->r2};
    else
        r->od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE1, &r->r1};
    return DMLCL_SUCCESS;
}

static int run(dmlcl_operator_desc *od, const ftile *in_tile, const ftile *out_tile,
               const void *in0, const void *in1, void *out)
{
    dmlcl_context *c = NULL;
    dmlcl_operator *op = NULL;
    dmlcl_status st = context(&c);
    if (!st && !in_tile->p && !out_tile->p)
        st = dmlcl_operator_create(c, od, &op);
    else if (!st)
        st = dmlcl_operator_create_tile(c, od, in_tile->p, out_tile->p, &op);
    if (!st) {
        const void *ins[2] = {in0, in1};
        void *outs[1] = {out};
        st = dmlcl_operator_execute_host(op, ins, outs);
    }
    dmlcl_operator_release(op);
    if (st)
        own_failed = 0;
    return st;
}

void dmlclf_resample(const CFI_cdesc_t *x, CFI_cdesc_t *y, const CFI_cdesc_t *scales, int mode,
                     const CFI_cdesc_t *input_offsets, const CFI_cdesc_t *output_offsets,
                     const int *rounding, int antialias, int grad, const CFI_cdesc_t *x_whole,
                     const CFI_cdesc_t *x_start, const CFI_cdesc_t *y_whole,
                     const CFI_cdesc_t *y_start, int *status)
{
    const char *op = grad ? "dmlcl_resample_grad" : "dmlcl_resample";
    const char *xn = grad ? "dy" : "x", *yn = grad ? "dx" : "y";
    farray fx, fy;
    ftile tx, ty;
    rdesc r;
    int st = describe(op, xn, x, &fx);
    if (!st)
        st = describe(op, yn, y, &fy);
    if (!st && fx.desc.dimension_count != fy.desc.dimension_count)
        st = fail(DMLCL_INVALID_ARGUMENT, "%s: %s has rank %u, %s has rank %u", op, xn,
                  fx.desc.dimension_count, yn, fy.desc.dimension_count);
    if (!st)
        st = tile(op, xn, x_whole, x_start, &fx, &tx);
    if (!st)
        st = tile(op, yn, y_whole, y_start, &fy, &ty);
    if (!st)
        st = resample_desc(op, &fx.desc, &fy.desc, tx.whole, ty.whole, scales, mode,
                           input_offsets, output_offsets, rounding, antialias, grad, &r);
    *status = st ? st : run(&r.od, &tx, &ty, fx.data, NULL, fy.data);
}

/* The logical shapes of a halo query: packed FLOAT32 descriptors of a_whole and b_whole. */
typedef struct wholes {
    uint32_t a[DMLCL_TENSOR_DIMENSION_COUNT_MAX], b[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    dmlcl_tensor_desc da, db;
    int rank;
} wholes;

static int whole_shapes(const char *op, const char *an, const CFI_cdesc_t *a, const char *bn,
                        const CFI_cdesc_t *b, wholes *w)
{
    w->rank = a->rank == 1 ? (int)a->dim[0].extent : 0;
    if (w->rank < 1 || w->rank > DMLCL_TENSOR_DIMENSION_COUNT_MAX)
        return fail(DMLCL_INVALID_ARGUMENT, "%s: %s needs 1 to 8 values (one per dimension), "
                    "got %d", op, an, w->rank);
    int st = indices(op, an, a, w->rank, 1, w->a);
    if (!st)
        st = indices(op, bn, b, w->rank, 1, w->b);
    w->da = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_FLOAT32, (uint32_t)w->rank, w->a, NULL, 0};
    w->db = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_FLOAT32, (uint32_t)w->rank, w->b, NULL, 0};
    return st;
}

/* dmlcl_operator_input_box with the box in and out as Fortran integer arrays. */
static int input_box(const char *op, const dmlcl_operator_desc *od, int rank, const char *xn,
                     const char *yn, const CFI_cdesc_t *y_start, const CFI_cdesc_t *y_count,
                     CFI_cdesc_t *x_start, CFI_cdesc_t *x_count)
{
    uint32_t ys[8], yc[8], xs[8], xc[8];
    char n[4][32];
    snprintf(n[0], sizeof n[0], "%s_start", yn);
    snprintf(n[1], sizeof n[1], "%s_count", yn);
    snprintf(n[2], sizeof n[2], "%s_start", xn);
    snprintf(n[3], sizeof n[3], "%s_count", xn);
    int st = indices(op, n[0], y_start, rank, 0, ys);
    if (!st)
        st = indices(op, n[1], y_count, rank, 0, yc);
    if (!st && (st = dmlcl_operator_input_box(od, ys, yc, xs, xc)) != DMLCL_SUCCESS)
        own_failed = 0;
    if (!st)
        st = store_indices(op, n[2], x_start, rank, xs);
    if (!st)
        st = store_indices(op, n[3], x_count, rank, xc);
    return st;
}

void dmlclf_resample_input_box(const CFI_cdesc_t *x_whole, const CFI_cdesc_t *y_whole,
                               const CFI_cdesc_t *y_start, const CFI_cdesc_t *y_count,
                               CFI_cdesc_t *x_start, CFI_cdesc_t *x_count,
                               const CFI_cdesc_t *scales, int mode,
                               const CFI_cdesc_t *input_offsets,
                               const CFI_cdesc_t *output_offsets, const int *rounding,
                               int antialias, int grad, int *status)
{
    const char *op = grad ? "dmlcl_resample_grad_input_box" : "dmlcl_resample_input_box";
    const char *xn = grad ? "dy" : "x", *yn = grad ? "dx" : "y";
    wholes w;
    rdesc r;
    int st = whole_shapes(op, grad ? "dy_whole" : "x_whole", x_whole,
                          grad ? "dx_whole" : "y_whole", y_whole, &w);
    if (!st)
        st = resample_desc(op, &w.da, &w.db, w.a, w.b, scales, mode, input_offsets,
                           output_offsets, rounding, antialias, grad, &r);
    *status = st ? st : input_box(op, &r.od, w.rank, xn, yn, y_start, y_count, x_start,
                                  x_count);
}

void dmlclf_reverse_subsequences_input_box(const CFI_cdesc_t *whole, int axis,
                                           const CFI_cdesc_t *y_start,
                                           const CFI_cdesc_t *y_count, CFI_cdesc_t *x_start,
                                           CFI_cdesc_t *x_count, int *status)
{
    const char *op = "dmlcl_reverse_subsequences_input_box";
    wholes w;
    int st = whole_shapes(op, "whole", whole, "whole", whole, &w);
    if (!st && (axis < 1 || axis > w.rank))
        st = fail(DMLCL_INVALID_ARGUMENT, "%s: dim %d is not a dimension (1 to %d)", op, axis,
                  w.rank);
    if (st) {
        *status = st;
        return;
    }
    w.b[axis - 1] = 1; /* the lengths: the shape with 1 on the axis */
    w.db.data_type = DMLCL_TENSOR_DATA_TYPE_UINT32;
    dmlcl_reverse_subsequences_desc rd = {&w.da, &w.db, &w.da, (uint32_t)(axis - 1)};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    *status = input_box(op, &od, w.rank, "x", "y", y_start, y_count, x_start, x_count);
}

void dmlclf_reverse_subsequences(const CFI_cdesc_t *x, const CFI_cdesc_t *lengths,
                                 CFI_cdesc_t *y, int axis, const CFI_cdesc_t *x_whole,
                                 const CFI_cdesc_t *x_start, const CFI_cdesc_t *y_whole,
                                 const CFI_cdesc_t *y_start, int *status)
{
    const char *op = "dmlcl_reverse_subsequences";
    farray fx, fl, fy;
    ftile tx, ty;
    int st = describe(op, "x", x, &fx);
    if (!st)
        st = describe(op, "lengths", lengths, &fl);
    if (!st)
        st = describe(op, "y", y, &fy);
    if (!st && fl.desc.data_type != DMLCL_TENSOR_DATA_TYPE_INT32 &&
        fl.desc.data_type != DMLCL_TENSOR_DATA_TYPE_INT64)
        st = fail(DMLCL_INVALID_ARGUMENT, "%s: lengths must be integer(int32) or "
                  "integer(int64)", op);
    if (!st && (axis < 1 || axis > (int)fx.desc.dimension_count))
        st = fail(DMLCL_INVALID_ARGUMENT, "%s: dim %d is not a dimension of x (1 to %u)", op,
                  axis, fx.desc.dimension_count);
    if (!st)
        st = tile(op, "x", x_whole, x_start, &fx, &tx);
    if (!st)
        st = tile(op, "y", y_whole, y_start, &fy, &ty);
    if (st) {
        *status = st;
        return;
    }
    /* Fortran has no unsigned integers: the lengths are read as UINT32/UINT64, so a
     * negative one is refused here (it would act as a huge length). */
    uint64_t count = 1, off[8] = {0};
    for (uint32_t d = 0; d < fl.desc.dimension_count; d++)
        count *= fl.sizes[d];
    for (uint64_t i = 0; i < count; i++) {
        uint64_t e = 0, r = i;
        for (uint32_t d = 0; d < fl.desc.dimension_count; d++) {
            off[d] = r % fl.sizes[d];
            r /= fl.sizes[d];
            e += off[d] * fl.strides[d];
        }
        int64_t v = fl.desc.data_type == DMLCL_TENSOR_DATA_TYPE_INT32
                        ? ((const int32_t *)fl.data)[e]
                        : ((const int64_t *)fl.data)[e];
        if (v < 0) {
            *status = fail(DMLCL_INVALID_ARGUMENT, "%s: lengths has a negative value (%lld)",
                           op, (long long)v);
            return;
        }
    }
    fl.desc.data_type = fl.desc.data_type == DMLCL_TENSOR_DATA_TYPE_INT32
                            ? DMLCL_TENSOR_DATA_TYPE_UINT32
                            : DMLCL_TENSOR_DATA_TYPE_UINT64;
    dmlcl_reverse_subsequences_desc rd = {&fx.desc, &fl.desc, &fy.desc, (uint32_t)(axis - 1)};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    *status = run(&od, &tx, &ty, fx.data, fl.data, fy.data);
}
