/* What the libFuzzer targets share: a reader of fuzz bytes and the operator descriptors
 * built from them (tensors, scales, offsets, every descriptor struct). Header-only: each
 * target is one program of its own. */
#ifndef DMLCL_FUZZ_DESC_H
#define DMLCL_FUZZ_DESC_H
#include <dmlcl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The POCL targets' environment, set before their context (a variable the caller set
 * stays as it is):
 * - a device of 1 GB: the tables an operator may build (up to its largest allocation)
 *   stay within libFuzzer's memory limit, so that a valid descriptor with large tables
 *   costs a bounded time rather than an out-of-memory report;
 * - the generic programs only, as make check: no specialised builds on threads of their
 *   own, compiling beside the inputs (a cold compile is seconds on a busy host);
 * - no disk cache: storing a new program's binary makes POCL compile every kernel in it
 *   to machine code on the create path (7 s for one under a load of 3.6 on 2 cores,
 *   libFuzzer's timeout in a 10-minute run); without it POCL compiles only the kernel a
 *   launch takes. What the fuzzers test never reads the cache's files. */
static void fuzz_pocl_environment(void)
{
    setenv("POCL_MEMORY_LIMIT", "1", 0);
    setenv("DMLCL_SPECIALIZE", "off", 0);
    setenv("DMLCL_CACHE_DIR", "off", 0);
}

typedef struct { const uint8_t *p; size_t n; } reader;

/* The next 4 bytes (fewer at the end, then zeros): an input that ends early reads zeros. */
static uint32_t take32(reader *r)
{
    uint32_t v = 0;
    size_t k = r->n < 4 ? r->n : 4;
    memcpy(&v, r->p, k);
    r->p += k;
    r->n -= k;
    return v;
}

/* One byte (the seeds are written so: tests/fuzz/seeds.py). */
static uint8_t take8(reader *r)
{
    const uint8_t v = r->n ? r->p[0] : 0;
    if (r->n)
        r->p++, r->n--;
    return v;
}

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

/* One operator descriptor of any type from the bytes; t[0] is the data input and t[2]
 * the output (RESAMPLE_GRAD1: the other way round), t[1] REVERSE_SUBSEQUENCES' lengths. */
typedef struct {
    ftensor t[3];
    float scales[9], in_off[9], out_off[9];
    dmlcl_reverse_subsequences_desc rd;
    dmlcl_resample1_desc r1;
    dmlcl_resample_desc r0;
    dmlcl_resample2_desc r2;
    dmlcl_resample_grad1_desc g1;
    dmlcl_resample3_desc r3;
    dmlcl_operator_desc od;
} fdesc;

static void take_desc(reader *r, fdesc *f)
{
    ftensor *t = f->t;
    for (int i = 0; i < 3; i++)
        take_tensor(r, &t[i]);
    for (int i = 0; i < 9; i++) {
        uint32_t a = take32(r), b = take32(r), c = take32(r);
        memcpy(&f->scales[i], &a, 4);
        memcpy(&f->in_off[i], &b, 4);
        memcpy(&f->out_off[i], &c, 4);
    }
    f->rd = (dmlcl_reverse_subsequences_desc){&t[0].d, &t[1].d, &t[2].d, take8(r) % 10};
    const dmlcl_interpolation_mode mode = (dmlcl_interpolation_mode)(take8(r) % 3);
    const uint32_t count = take8(r) % 10;
    f->r1 = (dmlcl_resample1_desc){&t[0].d, &t[2].d, mode, count, f->scales, f->in_off,
                                   f->out_off};
    const dmlcl_interpolation_mode mode0 = (dmlcl_interpolation_mode)(take8(r) % 3);
    const uint32_t count0 = take8(r) % 10;
    f->r0 = (dmlcl_resample_desc){&t[0].d, &t[2].d, mode0, count0, f->scales};
    dmlcl_axis_direction dir = (dmlcl_axis_direction)(take8(r) % 3);
    f->r2 = (dmlcl_resample2_desc){&t[0].d, &t[2].d, mode, dir, count, f->scales, f->in_off,
                                   f->out_off};
    f->g1 = (dmlcl_resample_grad1_desc){&t[2].d, &t[0].d, mode, dir, count, f->scales,
                                        f->in_off, f->out_off};
    f->r3 = (dmlcl_resample3_desc){&t[0].d, &t[2].d, mode, dir, count, f->scales, f->in_off,
                                   f->out_off, take8(r) % 3};
    f->od.type = (dmlcl_operator_type)(take8(r) % 8);
    f->od.desc = f->od.type == DMLCL_OPERATOR_RESAMPLE1       ? (const void *)&f->r1
                 : f->od.type == DMLCL_OPERATOR_RESAMPLE      ? (const void *)&f->r0
                 : f->od.type == DMLCL_OPERATOR_RESAMPLE2     ? (const void *)&f->r2
                 : f->od.type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? (const void *)&f->g1
                 : f->od.type == DMLCL_OPERATOR_RESAMPLE3     ? (const void *)&f->r3
                                                              : (const void *)&f->rd;
}

/* An input's reader, past the descriptor it starts with (into *f). */
static reader fuzz_begin(const uint8_t *data, size_t size, fdesc *f)
{
    reader r = {data, size};
    take_desc(&r, f);
    return r;
}

/* The tensors that tiles place: the operator's data input and its output. */
static const dmlcl_tensor_desc *fdesc_input(const fdesc *f)
{
    return f->od.type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? &f->t[2].d : &f->t[0].d;
}

static const dmlcl_tensor_desc *fdesc_output(const fdesc *f)
{
    return f->od.type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? &f->t[0].d : &f->t[2].d;
}

/* 1 + sum (size - 1) * stride of a tensor, at most 2^40 (0: it has no valid shape). */
static uint64_t fuzz_span(const dmlcl_tensor_desc *t)
{
    if (!t->sizes || t->dimension_count == 0 || t->dimension_count > 8)
        return 0;
    const uint64_t most = 1ull << 40;
    uint64_t span = 1, packed = 1;
    for (int d = (int)t->dimension_count - 1; d >= 0; d--) {
        const uint64_t n = t->sizes[d], str = t->strides ? t->strides[d] : packed;
        if (n == 0)
            return 0;
        const uint64_t add = str && n - 1 > most / str ? most : (n - 1) * str;
        span = add >= most || span + add >= most ? most : span + add;
        packed = n > most / packed ? most : packed * n; /* packed >= 1 */
    }
    return span;
}

/* Whether creating the operator costs little: creation builds tables linear in the
 * tensors' sizes, one per slab (doc/api.md's "What creation costs"), up to the device's
 * largest allocation; under the fuzzers' sanitizers a table of millions of rows takes
 * seconds, which -timeout would report as a hang. So the targets create operators whose
 * rows (the sizes' sum) times slabs stay under 2^22, and only query the others' halo, whose
 * cost does not grow with the sizes. slab: the slab bound in elements. */
static int fdesc_cheap(const fdesc *f, uint64_t slab)
{
    const dmlcl_tensor_desc *t[2] = {fdesc_input(f), fdesc_output(f)};
    uint64_t rows = 0, span = 0;
    for (int i = 0; i < 2; i++) {
        const uint64_t s = fuzz_span(t[i]);
        span = s > span ? s : span;
        for (uint32_t d = 0; s && d < t[i]->dimension_count; d++)
            rows += t[i]->sizes[d];
    }
    const uint64_t slabs = span / slab + 1; /* rows < 2^37, slabs <= 2^40 / 64 + 1 */
    return slabs < (1u << 22) && rows * slabs < (1u << 22);
}

/* Indices or sizes of 9 dimensions: mostly near `base` (a tensor's own sizes, or 0),
 * sometimes anything, such as a logical tensor of billions of elements. */
static void take_near(reader *r, const uint32_t *base, uint32_t *v)
{
    for (int i = 0; i < 9; i++) {
        uint8_t mode = take8(r);
        v[i] = mode < 160 ? (base ? base[i] : 0) + mode % 5 : mode < 200 ? mode % 9 : take32(r);
    }
}
#endif
