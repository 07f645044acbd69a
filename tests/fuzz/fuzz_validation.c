/* libFuzzer target: descriptors and bindings built from fuzz bytes go through
 * dmlcl_operator_create and dmlcl_operator_enqueue on a real device (POCL). Invalid input
 * must give a status and a message, never a crash, a hang or an out-of-bounds access.
 * Build: ./configure CC=clang --enable-fuzzing && make tests/fuzz/fuzz_validation */
#include <dmlcl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const uint8_t *p; size_t n; } reader;

static uint32_t take32(reader *r)
{
    uint32_t v = 0;
    size_t k = r->n < 4 ? r->n : 4;
    memcpy(&v, r->p, k);
    r->p += k;
    r->n -= k;
    return v;
}

static uint8_t take8(reader *r) { return (uint8_t)take32(r); }

/* Sizes mostly small (so that valid descriptors stay cheap), sometimes anything. */
static uint32_t take_size(reader *r)
{
    uint8_t mode = take8(r);
    return mode < 200 ? mode % 9 : take32(r);
}

typedef struct {
    uint32_t sizes[9], strides[9];
    dmlcl_tensor_desc d;
} ftensor;

static void take_tensor(reader *r, ftensor *t)
{
    t->d.data_type = (dmlcl_tensor_data_type)(take8(r) % 13);
    t->d.dimension_count = take8(r) % 10;
    for (int i = 0; i < 9; i++)
        t->sizes[i] = take_size(r);
    int strided = take8(r) & 1;
    for (int i = 0; i < 9 && strided; i++)
        t->strides[i] = take_size(r);
    t->d.sizes = take8(r) == 255 ? NULL : t->sizes;
    t->d.strides = strided ? t->strides : NULL;
    t->d.total_tensor_size_in_bytes = take8(r) < 240 ? 0 : take32(r);
}

static dmlcl_context *ctx;
static cl_mem bufs[2];

static void setup(void)
{
    if (ctx)
        return;
    if (dmlcl_context_create_default(&ctx))
        abort();
    for (int i = 0; i < 2; i++)
        bufs[i] = clCreateBuffer(dmlcl_context_cl_context(ctx), CL_MEM_READ_WRITE, 4096, NULL, NULL);
}

static void take_bindings(reader *r, dmlcl_buffer_binding *b, int n)
{
    for (int i = 0; i < n; i++) {
        uint8_t which = take8(r);
        b[i].buffer = which < 128 ? bufs[which % 2] : NULL;
        b[i].offset = take8(r) < 200 ? take8(r) * 4u : take32(r);
        b[i].size_in_bytes = take8(r) < 200 ? 0 : take32(r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    reader r = {data, size};
    ftensor t[3];
    for (int i = 0; i < 3; i++)
        take_tensor(&r, &t[i]);
    float scales[9], in_off[9], out_off[9];
    for (int i = 0; i < 9; i++) {
        uint32_t a = take32(&r), b = take32(&r), c = take32(&r);
        memcpy(&scales[i], &a, 4);
        memcpy(&in_off[i], &b, 4);
        memcpy(&out_off[i], &c, 4);
    }
    dmlcl_reverse_subsequences_desc rd = {&t[0].d, &t[1].d, &t[2].d, take8(&r) % 10};
    dmlcl_resample1_desc r1 = {&t[0].d, &t[2].d, (dmlcl_interpolation_mode)(take8(&r) % 3),
                               take8(&r) % 10, scales, in_off, out_off};
    dmlcl_resample_desc r0 = {&t[0].d, &t[2].d, (dmlcl_interpolation_mode)(take8(&r) % 3),
                              take8(&r) % 10, scales};
    dmlcl_axis_direction dir = (dmlcl_axis_direction)(take8(&r) % 3);
    dmlcl_resample2_desc r2 = {r1.input_tensor, r1.output_tensor, r1.interpolation_mode, dir,
                               r1.dimension_count, scales, in_off, out_off};
    dmlcl_resample_grad1_desc g1 = {&t[2].d, &t[0].d, r1.interpolation_mode, dir,
                                    r1.dimension_count, scales, in_off, out_off};
    dmlcl_resample3_desc r3 = {r1.input_tensor, r1.output_tensor, r1.interpolation_mode, dir,
                               r1.dimension_count, scales, in_off, out_off, take8(&r) % 3};
    dmlcl_operator_desc od = {(dmlcl_operator_type)(take8(&r) % 8), NULL};
    od.desc = od.type == DMLCL_OPERATOR_RESAMPLE1       ? (const void *)&r1
            : od.type == DMLCL_OPERATOR_RESAMPLE        ? (const void *)&r0
            : od.type == DMLCL_OPERATOR_RESAMPLE2       ? (const void *)&r2
            : od.type == DMLCL_OPERATOR_RESAMPLE_GRAD1  ? (const void *)&g1
            : od.type == DMLCL_OPERATOR_RESAMPLE3       ? (const void *)&r3 : (const void *)&rd;
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_operator_create(ctx, &od, &op);
    if (st != DMLCL_SUCCESS) {
        if (op != NULL || dmlcl_last_error()[0] == 0)
            abort(); /* a failure must reset *out and explain itself */
        return 0;
    }
    dmlcl_buffer_binding in[2], out[1];
    take_bindings(&r, in, 2);
    take_bindings(&r, out, 1);
    uint8_t counts = take8(&r);
    cl_event ev = NULL;
    st = dmlcl_operator_enqueue(op, in, counts & 3, out, (counts >> 2) & 3, 0, NULL, &ev);
    if (st == DMLCL_SUCCESS) {
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
    } else if (dmlcl_last_error()[0] == 0) {
        abort();
    }
    dmlcl_operator_release(op);
    return 0;
}
