/* libFuzzer target: descriptors, tiles, output boxes and bindings built from fuzz bytes go
 * through dmlcl_operator_create or dmlcl_operator_create_tile, dmlcl_operator_input_box
 * and dmlcl_operator_enqueue on a real device (POCL), with the slab bound sometimes
 * lowered so that small operators split into slabs. Invalid input must give a status and
 * a message, never a crash, a hang (libFuzzer's -timeout) or an out-of-bounds access;
 * logical tensors of billions of elements must cost no more than small ones to query.
 * Build: ./configure CC=clang --enable-fuzzing && make tests/fuzz/fuzz_validation
 * Seeds: tests/fuzz/corpus/validation (tests/fuzz/seeds.py writes them). */
#include "fuzz_desc.h"
#include <stdio.h>
#include <stdlib.h>

static dmlcl_context *ctx;
static cl_mem bufs[2];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_pocl_environment();
    if (dmlcl_context_create_default(&ctx))
        abort();
    for (int i = 0; i < 2; i++)
        bufs[i] = clCreateBuffer(dmlcl_context_cl_context(ctx), CL_MEM_READ_WRITE, 4096, NULL,
                                 NULL);
    return 0;
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

/* The slab bound: unset (2^31 elements), or slab=N for both families' planners; returns
 * it. */
static uint64_t take_slab(reader *r)
{
    const uint8_t mode = take8(r);
    if (mode < 128) {
        unsetenv("DMLCL_RESAMPLE_PLAN");
        unsetenv("DMLCL_RS_PLAN");
        return 1ull << 31;
    }
    const uint32_t n = 64 + take32(r) % 4032;
    char v[32];
    snprintf(v, sizeof v, "slab=%u", n);
    setenv("DMLCL_RESAMPLE_PLAN", v, 1);
    setenv("DMLCL_RS_PLAN", v, 1);
    return n;
}

/* A tile of tensor t: its logical sizes near t's own (sometimes anything), its start. */
typedef struct {
    uint32_t logical[9], start[9];
    dmlcl_tile_desc d;
} ftile;

static const dmlcl_tile_desc *take_tile(reader *r, const dmlcl_tensor_desc *t, ftile *f)
{
    const uint8_t mode = take8(r);
    take_near(r, t->sizes, f->logical);
    take_near(r, NULL, f->start);
    f->d.dimension_count = mode < 200 ? t->dimension_count : mode % 10;
    f->d.logical_sizes = mode == 255 ? NULL : f->logical;
    f->d.start = mode == 254 ? NULL : f->start;
    return mode < 64 ? NULL : &f->d;
}

/* The halo query on a box of the output: its answer must lie in the input. */
static void query(reader *r, const fdesc *f)
{
    uint32_t start[9], sizes[9], in_start[9], in_sizes[9];
    take_near(r, NULL, start);
    take_near(r, fdesc_output(f)->sizes, sizes);
    if (dmlcl_operator_input_box(&f->od, start, sizes, in_start, in_sizes) != DMLCL_SUCCESS) {
        if (dmlcl_last_error()[0] == 0)
            abort();
        return;
    }
    const dmlcl_tensor_desc *in = fdesc_input(f);
    for (uint32_t d = 0; d < in->dimension_count; d++)
        if ((uint64_t)in_start[d] + in_sizes[d] > in->sizes[d])
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fdesc f;
    reader r = fuzz_begin(data, size, &f);
    dmlcl_buffer_binding in[2], out[1];
    take_bindings(&r, in, 2);
    take_bindings(&r, out, 1);
    const uint8_t counts = take8(&r);
    /* 0: create on the whole tensors; 1: on tiles; 2: the halo query alone (also where the
     * tables would take long to build: fdesc_cheap). */
    const uint8_t path = take8(&r) % 3;
    const uint64_t slab = take_slab(&r);
    ftile ti, to;
    const dmlcl_tile_desc *tin = take_tile(&r, fdesc_input(&f), &ti);
    const dmlcl_tile_desc *tout = take_tile(&r, fdesc_output(&f), &to);
    if (path == 2 || !fdesc_cheap(&f, slab)) {
        query(&r, &f);
        return 0;
    }
    dmlcl_operator *op = NULL;
    dmlcl_status st = path == 1 ? dmlcl_operator_create_tile(ctx, &f.od, tin, tout, &op)
                                : dmlcl_operator_create(ctx, &f.od, &op);
    if (st != DMLCL_SUCCESS) {
        if (op != NULL || dmlcl_last_error()[0] == 0)
            abort(); /* a failure must reset *out and explain itself */
        return 0;
    }
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
