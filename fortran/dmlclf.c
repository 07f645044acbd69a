/* The C side of the Fortran module's array routines (fortran/dmlcl.f90): Fortran passes
 * its arrays, of any type and rank, as ISO_Fortran_binding descriptors (type(*),
 * dimension(..) dummies of bind(C) interfaces); this file turns a descriptor into a
 * dmlcl_tensor_desc (sizes in Fortran's dimension order, strides from the descriptor's
 * byte strides: column-major, sections and transposes included, nothing copied), creates
 * the operator on a process-wide default context, runs it on the host arrays and releases
 * it.
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

static int run(dmlcl_operator_desc *od, const void *in0, const void *in1, void *out)
{
    dmlcl_context *c = NULL;
    dmlcl_operator *op = NULL;
    dmlcl_status st = context(&c);
    if (!st)
        st = dmlcl_operator_create(c, od, &op);
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
                     const int *rounding, int antialias, int grad, int *status)
{
    const char *op = grad ? "dmlcl_resample_grad" : "dmlcl_resample";
    const char *xn = grad ? "dy" : "x", *yn = grad ? "dx" : "y";
    farray fx, fy;
    float s[8], io[8], oo[8];
    int st = describe(op, xn, x, &fx);
    if (!st)
        st = describe(op, yn, y, &fy);
    if (!st && fx.desc.dimension_count != fy.desc.dimension_count)
        st = fail(DMLCL_INVALID_ARGUMENT, "%s: %s has rank %u, %s has rank %u", op, xn,
                  fx.desc.dimension_count, yn, fy.desc.dimension_count);
    int rank = st ? 0 : (int)fx.desc.dimension_count;
    if (!st)
        st = floats(op, "scales", scales, rank, 0, s);
    if (!st)
        st = floats(op, "input_offsets", input_offsets, rank, 0.5f, io);
    if (!st)
        st = floats(op, "output_offsets", output_offsets, rank, -0.5f, oo);
    if (st) {
        *status = st;
        return;
    }
    /* Without scales: output size over input size (forward), or the gradient's size over
     * the forward input's (backward), in float32. */
    for (int d = 0; !scales && d < rank; d++)
        s[d] = grad ? (float)fx.sizes[d] / (float)fy.sizes[d]
                    : (float)fy.sizes[d] / (float)fx.sizes[d];
    dmlcl_axis_direction dir = rounding ? (dmlcl_axis_direction)*rounding
                                        : DMLCL_AXIS_DIRECTION_INCREASING;
    const dmlcl_tensor_desc *a = &fx.desc, *b = &fy.desc;
    uint32_t n = (uint32_t)rank;
    dmlcl_resample1_desc r1 = {a, b, (dmlcl_interpolation_mode)mode, n, s, io, oo};
    dmlcl_resample2_desc r2 = {a, b, (dmlcl_interpolation_mode)mode, dir, n, s, io, oo};
    dmlcl_resample3_desc r3 = {a, b, (dmlcl_interpolation_mode)mode, dir, n, s, io, oo, 1};
    dmlcl_resample_grad1_desc g1 = {a, b, (dmlcl_interpolation_mode)mode, dir, n, s, io, oo};
    dmlcl_operator_desc od;
    if (grad) {
        if (!rounding && mode == DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
            /* The forward pass rounded half up, floor(x + 0.5): RESAMPLE2's floor with the
             * input offsets 0.5 lower (README, RESAMPLE2). */
            g1.rounding_direction = DMLCL_AXIS_DIRECTION_DECREASING;
            for (int d = 0; d < rank; d++)
                io[d] -= 0.5f;
        }
        od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE_GRAD1, &g1};
    } else if (antialias && mode == DMLCL_INTERPOLATION_MODE_LINEAR)
        od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE3, &r3};
    else if (rounding)
        od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE2, &r2};
    else
        od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE1, &r1};
    *status = run(&od, fx.data, NULL, fy.data);
}

void dmlclf_reverse_subsequences(const CFI_cdesc_t *x, const CFI_cdesc_t *lengths,
                                 CFI_cdesc_t *y, int axis, int *status)
{
    const char *op = "dmlcl_reverse_subsequences";
    farray fx, fl, fy;
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
    *status = run(&od, fx.data, fl.data, fy.data);
}
