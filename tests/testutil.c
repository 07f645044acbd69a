#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dmlcl_context *shared_ctx;

static void release_shared(void) { dmlcl_context_release(shared_ctx); }

dmlcl_context *tu_context(void)
{
    if (!shared_ctx) {
        dmlcl_status st = dmlcl_context_create_default(&shared_ctx);
        ck_assert_msg(st == DMLCL_SUCCESS, "no test device: %s", dmlcl_last_error());
        atexit(release_shared);
    }
    return shared_ctx;
}

uint64_t tu_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tu_range(uint64_t *s, uint64_t lo, uint64_t hi) { return lo + tu_rand(s) % (hi - lo + 1); }

const char *const tu_layout_names[TU_LAYOUT_COUNT] = {"packed", "padded", "transposed", "broadcast"};

void tu_make_strides(uint64_t *rng, tu_layout layout, uint32_t rank, const uint32_t *sizes,
                     int keep, uint32_t *strides)
{
    uint32_t order[8];
    for (uint32_t i = 0; i < rank; i++)
        order[i] = i;
    if (layout == TU_TRANSPOSED) /* random order of packing, innermost first */
        for (uint32_t i = rank; i > 1; i--) {
            uint32_t j = (uint32_t)tu_range(rng, 0, i - 1), t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    uint32_t step = 1;
    for (int k = (int)rank - 1; k >= 0; k--) {
        uint32_t d = order[k];
        strides[d] = step;
        step *= sizes[d] + (layout == TU_PADDED ? (uint32_t)tu_range(rng, 0, 2) : 0);
    }
    if (layout == TU_BROADCAST) {
        int d = (int)tu_range(rng, 0, rank - 1);
        if (d != keep)
            strides[d] = 0;
    }
}

uint64_t tu_span(uint32_t rank, const uint32_t *sizes, const uint32_t *strides)
{
    uint64_t s = 1;
    for (uint32_t d = 0; d < rank; d++)
        s += (uint64_t)(sizes[d] - 1) * (strides ? strides[d] : 0);
    if (!strides) {
        s = 1;
        for (uint32_t d = 0; d < rank; d++)
            s *= sizes[d];
    }
    return s;
}

tu_devbuf tu_devbuf_new(size_t tensor_bytes, size_t extra_offset, const void *init)
{
    tu_devbuf b;
    b.offset = TU_GUARD + extra_offset;
    b.bytes = b.offset + tensor_bytes + TU_GUARD;
    unsigned char *host = malloc(b.bytes);
    ck_assert_ptr_nonnull(host);
    memset(host, TU_FILL, b.bytes);
    if (init)
        memcpy(host + b.offset, init, tensor_bytes);
    cl_int err = CL_SUCCESS;
    b.mem = clCreateBuffer(dmlcl_context_cl_context(tu_context()),
                           CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b.bytes, host, &err);
    free(host);
    ck_assert_int_eq(err, CL_SUCCESS);
    return b;
}

void tu_devbuf_read(const tu_devbuf *b, void *whole)
{
    cl_int err = clEnqueueReadBuffer(dmlcl_context_queue(tu_context()), b->mem, CL_TRUE, 0,
                                     b->bytes, whole, 0, NULL, NULL);
    ck_assert_int_eq(err, CL_SUCCESS);
}

void tu_devbuf_free(tu_devbuf *b)
{
    if (b->mem)
        clReleaseMemObject(b->mem);
    b->mem = NULL;
}

int tu_next_index(uint32_t rank, const uint32_t *sizes, uint32_t *idx)
{
    for (int d = (int)rank - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d])
            return 1;
        idx[d] = 0;
    }
    return 0;
}

uint64_t tu_offset(uint32_t rank, const uint32_t *idx, const uint32_t *strides)
{
    uint64_t o = 0;
    for (uint32_t d = 0; d < rank; d++)
        o += (uint64_t)idx[d] * strides[d];
    return o;
}

void tu_resample1_f32(uint32_t rank, const uint32_t *in_sizes, const uint32_t *out_sizes,
                      int mode, const float *scales, const float *ipo, const float *opo,
                      const float *in, float *out)
{
    const dmlcl_tensor_data_type f32 = DMLCL_TENSOR_DATA_TYPE_FLOAT32;
    dmlcl_tensor_desc ti = {f32, rank, in_sizes, NULL, 0}, to = {f32, rank, out_sizes, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, (dmlcl_interpolation_mode)mode, rank, scales, ipo, opo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    tu_run_host(&od, in, out);
}

uint64_t dmlcl_test_fail_alloc_after(uint64_t n);
int64_t dmlcl_test_live_allocations(void);

uint64_t tu_alloc_failures(const dmlcl_operator_desc *od, const void *in, void *out)
{
    const void *ins[1] = {in};
    void *outs[1] = {out};
    /* The shared context and the program cache live on: made and filled before counting
     * (run -1, which fails nothing and is not counted). */
    dmlcl_context *shared = tu_context();
    int64_t live0 = 0;
    uint64_t total = 0;
    for (int64_t n = -1; n <= 0 || (uint64_t)n <= total; n++) {
        if (n == 0)
            live0 = dmlcl_test_live_allocations();
        /* A context of its own each time (over the shared one's OpenCL objects, so the
         * programs stay cached): its memo starts empty, so every run makes the same
         * allocations, and releasing it frees what the memo kept. */
        dmlcl_context *ctx = NULL;
        tu_assert_ok(dmlcl_context_create(dmlcl_context_cl_context(shared),
                                          dmlcl_context_device(shared),
                                          dmlcl_context_queue(shared), &ctx));
        dmlcl_operator *op = NULL;
        dmlcl_test_fail_alloc_after(n < 0 ? 0 : (uint64_t)n);
        dmlcl_status st = dmlcl_operator_create(ctx, od, &op);
        if (!st)
            st = dmlcl_operator_execute_host(op, ins, outs);
        dmlcl_operator_release(op);
        uint64_t seen = dmlcl_test_fail_alloc_after(0);
        dmlcl_context_release(ctx);
        if (n < 0) {
            tu_assert_ok(st);
            continue;
        }
        if (n == 0) {
            tu_assert_ok(st);
            total = seen;
        } else if (st) {
            ck_assert_msg(st == DMLCL_OUT_OF_MEMORY &&
                              strstr(dmlcl_last_error(), "out of host memory"),
                          "allocation %llu failing: %s", (unsigned long long)n,
                          dmlcl_last_error());
        }
        ck_assert_int_eq(dmlcl_test_live_allocations(), live0);
    }
    return total;
}

void tu_run_host(const dmlcl_operator_desc *od, const void *in, void *out)
{
    dmlcl_operator *op = NULL;
    const void *ins[1] = {in};
    void *outs[1] = {out};
    tu_assert_ok(dmlcl_operator_create(tu_context(), od, &op));
    if (!tu_compile_only()) /* another CPU target's programs are built, not run */
        tu_assert_ok(dmlcl_operator_execute_host(op, ins, outs));
    dmlcl_operator_release(op);
}

const float tu_pix_in[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
const float tu_pix_out[8] = {-0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f};

float tu_half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                        : ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

uint16_t tu_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u)
        return sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0);
    if (ax >= 0x477ff000u) /* >= 65520 rounds to infinity */
        return sign | 0x7c00;
    if (ax < 0x38800000u) /* below 2^-14: subnormal; scaling by 2^24 is exact */
        return sign | (uint16_t)nearbyintf(fabsf(f) * 16777216.0f);
    uint32_t h = ((((ax >> 23) - 112) << 10) | ((ax & 0x7fffffu) >> 13)), rest = ax & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
        h++;
    return sign | (uint16_t)h;
}

void tu_channels_last(uint32_t rank, const uint32_t *sizes, uint32_t *strides)
{
    uint32_t step = sizes[1];
    strides[1] = 1;
    for (int d = (int)rank - 1; d >= 0; d--)
        if (d != 1) {
            strides[d] = step;
            step *= sizes[d];
        }
}

void tu_build_options(const char *extra)
{
    char both[256];
    snprintf(both, sizeof both, "%s%s%s", TU_BUILD_OPTIONS, extra ? " " : "", extra ? extra : "");
    setenv("DMLCL_BUILD_OPTIONS", both, 1);
}

int tu_compile_only(void)
{
    const char *v = getenv("DMLCL_TEST_COMPILE_ONLY");
    return v && *v && strcmp(v, "0") != 0;
}

/* The value to restore (the fixtures run on the test's thread, in this process). */
static char tu_spec_saved[32];
static int tu_spec_was_set;

void tu_specialize_sync(void)
{
    const char *v = getenv("DMLCL_SPECIALIZE");
    tu_spec_was_set = v != NULL;
    snprintf(tu_spec_saved, sizeof tu_spec_saved, "%s", v ? v : "");
    setenv("DMLCL_SPECIALIZE", "sync", 1);
}

void tu_specialize_restore(void)
{
    if (tu_spec_was_set)
        setenv("DMLCL_SPECIALIZE", tu_spec_saved, 1);
    else
        unsetenv("DMLCL_SPECIALIZE");
}

dmlcl_status tu_create_release(const dmlcl_operator_desc *od)
{
    dmlcl_operator *op = (dmlcl_operator *)1; /* must come back NULL on failure */
    dmlcl_status st = dmlcl_operator_create(tu_context(), od, &op);
    if (st == DMLCL_SUCCESS)
        dmlcl_operator_release(op);
    else
        ck_assert_ptr_null(op);
    return st;
}

int tu_int_range(dmlcl_tensor_data_type t, double *lo, double *hi)
{
    switch (t) {
    case I8: *lo = INT8_MIN, *hi = INT8_MAX; return 1;
    case U8: *lo = 0, *hi = UINT8_MAX; return 1;
    case I16: *lo = INT16_MIN, *hi = INT16_MAX; return 1;
    case U16: *lo = 0, *hi = UINT16_MAX; return 1;
    case I32: *lo = INT32_MIN, *hi = INT32_MAX; return 1;
    case U32: *lo = 0, *hi = UINT32_MAX; return 1;
    default: return 0;
    }
}

double tu_int_load(dmlcl_tensor_data_type t, const void *p)
{
    int8_t i8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
    switch (t) {
    case I8: memcpy(&i8, p, 1); return i8;
    case I16: memcpy(&i16, p, 2); return i16;
    case U16: memcpy(&u16, p, 2); return u16;
    case I32: memcpy(&i32, p, 4); return i32;
    case U32: memcpy(&u32, p, 4); return u32;
    default: return *(const uint8_t *)p;
    }
}

void tu_int_store(dmlcl_tensor_data_type t, void *p, double v)
{
    double lo = 0, hi = 0;
    tu_int_range(t, &lo, &hi);
    v = fmin(fmax(nearbyint(v), lo), hi); /* the default rounding mode: ties to even */
    int8_t i8 = (int8_t)v; int16_t i16 = (int16_t)v; uint16_t u16 = (uint16_t)v;
    int32_t i32 = (int32_t)v; uint32_t u32 = (uint32_t)v; uint8_t u8 = (uint8_t)v;
    switch (t) {
    case I8: memcpy(p, &i8, 1); break;
    case I16: memcpy(p, &i16, 2); break;
    case U16: memcpy(p, &u16, 2); break;
    case I32: memcpy(p, &i32, 4); break;
    case U32: memcpy(p, &u32, 4); break;
    default: memcpy(p, &u8, 1); break;
    }
}
