/* `dmlcl bench`'s cases: each builds one operator's tensors and fields from --mb, and the
 * C reference that checks sampled outputs. The input data is a hash of each element's
 * offset, generated on the device by bench_helper_source and recomputed here, so that
 * multi-GiB inputs need no host copy. The references follow doc/operators.md and the
 * descriptors' comments in include/dmlcl.h directly, in double, with no library code. */
#include "config.h"
#include "bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tensors ------------------------------------------------------------------------ */

uint32_t bench_type_bytes(dmlcl_tensor_data_type t) { return dmlcl_data_type_size(t); }

static const char *type_label(dmlcl_tensor_data_type t)
{
    switch (t) {
    case DMLCL_TENSOR_DATA_TYPE_FLOAT32: return "fp32";
    case DMLCL_TENSOR_DATA_TYPE_FLOAT16: return "fp16";
    case DMLCL_TENSOR_DATA_TYPE_INT8: return "int8";
    default: return "?";
    }
}

static void set_packed(btensor *t, dmlcl_tensor_data_type type, uint32_t rank,
                       const uint32_t *sizes)
{
    uint64_t step = 1;
    t->type = type;
    t->rank = rank;
    for (int d = (int)rank - 1; d >= 0; d--) {
        t->sizes[d] = sizes[d];
        t->strides[d] = (uint32_t)step;
        step *= sizes[d];
    }
}

uint64_t bench_elements(const btensor *t)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < t->rank; d++)
        n *= t->sizes[d];
    return n;
}

uint64_t bench_span_elems(const btensor *t)
{
    uint64_t s = 1;
    for (uint32_t d = 0; d < t->rank; d++)
        s += (uint64_t)(t->sizes[d] - 1) * t->strides[d];
    return s;
}

static dmlcl_tensor_desc desc_of(const btensor *t)
{
    dmlcl_tensor_desc d = {t->type, t->rank, t->sizes, t->strides, 0};
    return d;
}

/* ---- the cases ---------------------------------------------------------------------- */

/* Mixed row lengths (short, partial and whole rows; a fixed pattern, so runs compare):
 * row r of 1024 reverses min((r*37) % 1124, 1024) elements. */
static int row_lengths(bcase *c, uint64_t rows)
{
    c->lengths = malloc(rows * sizeof *c->lengths);
    if (!c->lengths)
        return -1;
    for (uint64_t r = 0; r < rows; r++) {
        uint64_t l = r * 37 % 1124;
        c->lengths[r] = (uint32_t)(l < 1024 ? l : 1024);
    }
    return 0;
}

/* Rows of 1024 elements, reversed along the row; `transposed`: column-major input. */
static int make_reverse_rows(bcase *c, uint64_t mb, dmlcl_tensor_data_type type, int transposed)
{
    uint64_t rows = mb * MIB / (1024 * bench_type_bytes(type));
    uint32_t sizes[2] = {(uint32_t)(rows ? rows : 1), 1024}, lsizes[2] = {sizes[0], 1};
    c->kind = B_REVERSE;
    c->axis = 1;
    set_packed(&c->in, type, 2, sizes);
    set_packed(&c->out, type, 2, sizes);
    set_packed(&c->len, DMLCL_TENSOR_DATA_TYPE_UINT32, 2, lsizes);
    if (transposed) {
        c->in.strides[0] = 1;
        c->in.strides[1] = sizes[0];
    }
    snprintf(c->shape, sizeof c->shape, "%u x 1024 %s%s axis 1", sizes[0], type_label(type),
             transposed ? " col-major in," : ",");
    return row_lengths(c, sizes[0]);
}

static int b_rev_inner(bcase *c, uint64_t mb)
{
    return make_reverse_rows(c, mb, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 0);
}
static int b_rev_fp16(bcase *c, uint64_t mb)
{
    return make_reverse_rows(c, mb, DMLCL_TENSOR_DATA_TYPE_FLOAT16, 0);
}
static int b_rev_int8(bcase *c, uint64_t mb)
{
    return make_reverse_rows(c, mb, DMLCL_TENSOR_DATA_TYPE_INT8, 0);
}
static int b_rev_trans(bcase *c, uint64_t mb)
{
    return make_reverse_rows(c, mb, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 1);
}
static int b_big_rev(bcase *c, uint64_t mb)
{
    return make_reverse_rows(c, BIG_MB, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 0);
}
static int b_big_rev8(bcase *c, uint64_t mb)
{
    return make_reverse_rows(c, BIG_MB, DMLCL_TENSOR_DATA_TYPE_INT8, 0);
}

/* {512, 64, F} reversed along axis 0, one length per middle index broadcast over F. */
static int b_rev_outer(bcase *c, uint64_t mb)
{
    uint64_t f = mb * MIB / (4 * 512 * 64);
    uint32_t sizes[3] = {512, 64, (uint32_t)(f ? f : 1)}, lsizes[3] = {1, 64, sizes[2]};
    c->kind = B_REVERSE;
    c->axis = 0;
    set_packed(&c->in, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, sizes);
    set_packed(&c->out, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, sizes);
    set_packed(&c->len, DMLCL_TENSOR_DATA_TYPE_UINT32, 3, lsizes);
    c->len.strides[0] = c->len.strides[2] = 0;
    c->len.strides[1] = 1;
    snprintf(c->shape, sizeof c->shape, "512 x 64 x %u fp32, axis 0, lengths {1,64,1}", sizes[2]);
    c->lengths = malloc(64 * sizeof *c->lengths);
    if (!c->lengths)
        return -1;
    for (uint32_t m = 0; m < 64; m++)
        c->lengths[m] = m * 37 % 600; /* 0..599: some lines whole, some partial */
    return 0;
}

/* N x C x H x W (logical NCHW), NCHW or channels-last strides. */
static void set_image(btensor *t, uint32_t rank, const uint32_t *sizes, int channels_last)
{
    set_packed(t, DMLCL_TENSOR_DATA_TYPE_FLOAT32, rank, sizes);
    if (!channels_last)
        return;
    uint32_t step = sizes[1];
    t->strides[1] = 1;
    for (int d = (int)rank - 1; d >= 2; d--) {
        t->strides[d] = step;
        step *= sizes[d];
    }
    t->strides[0] = step;
}

/* A RESAMPLE1 case with pixel-centre offsets (0.5 / -0.5) over `planes` N*C planes
 * (C = 8 where there are 8) of `in_hw` to `out_hw` in every spatial dimension. */
static int make_resample(bcase *c, uint64_t planes, uint32_t spatial, uint32_t in_hw,
                         uint32_t out_hw, dmlcl_interpolation_mode mode, int channels_last)
{
    planes = planes ? planes : 1;
    uint32_t ch = planes >= 8 ? 8 : (uint32_t)planes, n = (uint32_t)(planes / ch);
    uint32_t rank = 2 + spatial, is[8] = {n, ch}, os[8] = {n, ch};
    for (uint32_t d = 2; d < rank; d++)
        is[d] = in_hw, os[d] = out_hw;
    c->kind = B_RESAMPLE1;
    c->mode = mode;
    set_image(&c->in, rank, is, channels_last);
    set_image(&c->out, rank, os, channels_last);
    for (uint32_t d = 0; d < rank; d++) {
        c->scales[d] = (float)os[d] / (float)is[d];
        c->in_off[d] = 0.5f;
        c->out_off[d] = -0.5f;
    }
    snprintf(c->shape, sizeof c->shape, "%u x %u x %u^%u -> %u^%u fp32%s", n, ch, in_hw, spatial,
             out_hw, spatial, channels_last ? " channels-last" : "");
    return 0;
}

static int b_near_nchw(bcase *c, uint64_t mb)
{
    return make_resample(c, mb, 2, 512, 1024, DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 0);
}
static int b_near_nhwc(bcase *c, uint64_t mb)
{
    return make_resample(c, mb, 2, 512, 1024, DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 1);
}
static int b_lin_nchw(bcase *c, uint64_t mb)
{
    return make_resample(c, mb, 2, 512, 1024, DMLCL_INTERPOLATION_MODE_LINEAR, 0);
}
static int b_lin_nhwc(bcase *c, uint64_t mb)
{
    return make_resample(c, mb, 2, 512, 1024, DMLCL_INTERPOLATION_MODE_LINEAR, 1);
}
static int b_lin_down(bcase *c, uint64_t mb)
{
    return make_resample(c, mb / 4, 2, 1024, 512, DMLCL_INTERPOLATION_MODE_LINEAR, 0);
}
static int b_lin_15(bcase *c, uint64_t mb)
{
    return make_resample(c, mb, 2, 512, 768, DMLCL_INTERPOLATION_MODE_LINEAR, 0);
}
static int b_trilin(bcase *c, uint64_t mb)
{
    return make_resample(c, mb, 3, 64, 128, DMLCL_INTERPOLATION_MODE_LINEAR, 0);
}
static int b_big_lin(bcase *c, uint64_t mb)
{
    return make_resample(c, BIG_MB / 4, 2, 1024, 512, DMLCL_INTERPOLATION_MODE_LINEAR, 0);
}

/* Appends `what` to the case's shape line. */
static void shape_note(bcase *c, const char *what)
{
    size_t l = strlen(c->shape);
    snprintf(c->shape + l, sizeof c->shape - l, "%s", what);
}

/* RESAMPLE2 nearest 2x with floor(x): pixel centres give x = o / 2 - 0.25, so index 0 is
 * read three times and 511 once, unlike RESAMPLE1's floor(x + 0.5) (pairs throughout). */
static int b_near_round(bcase *c, uint64_t mb)
{
    make_resample(c, mb, 2, 512, 1024, DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 0);
    c->kind = B_RESAMPLE2;
    c->direction = DMLCL_AXIS_DIRECTION_DECREASING;
    shape_note(c, ", rounding DECREASING");
    return 0;
}

/* RESAMPLE_GRAD1 of linear2x-nchw (same planes, scales and offsets): the forward output's
 * gradient in, the forward input's out. Its reference scans every forward output of a
 * line per sample, so it checks fewer samples. */
static int make_grad(bcase *c, uint64_t mb, uint32_t dims, uint32_t n, int channels_last)
{
    make_resample(c, mb, dims, n, 2 * n, DMLCL_INTERPOLATION_MODE_LINEAR, channels_last);
    btensor fwd_in = c->in;
    c->in = c->out;
    c->out = fwd_in;
    c->kind = B_GRAD1;
    c->max_samples = 512;
    snprintf(c->shape, sizeof c->shape, "%u x %u x %u^%u -> %u^%u fp32%s, backward of linear 2x",
             c->in.sizes[0], c->in.sizes[1], 2 * n, dims, n, dims,
             channels_last ? " channels-last" : "");
    return 0;
}
static int b_lin_grad(bcase *c, uint64_t mb)
{
    return make_grad(c, mb, 2, 512, 0);
}
/* Channels-last: the tabled dimensions are not the innermost. */
static int b_lin_grad_nhwc(bcase *c, uint64_t mb)
{
    return make_grad(c, mb, 2, 512, 1);
}
/* Volumes: three tabled dimensions. */
static int b_tri_grad(bcase *c, uint64_t mb)
{
    return make_grad(c, mb, 3, 64, 0);
}

/* RESAMPLE3 antialiased: linear-down0.5's shape with PyTorch's widened triangle filter
 * (4 taps per dimension instead of 2). */
static int b_aa_down(bcase *c, uint64_t mb)
{
    make_resample(c, mb / 4, 2, 1024, 512, DMLCL_INTERPOLATION_MODE_LINEAR, 0);
    c->kind = B_RESAMPLE3;
    c->antialiased = 1;
    shape_note(c, ", antialiased");
    return 0;
}

const case_entry bench_cases[] = {
    {"reverse-inner", 0, NULL, b_rev_inner},
    {"reverse-outer", 0, NULL, b_rev_outer},
    {"reverse-inner-fp16", 0, NULL, b_rev_fp16},
    {"reverse-inner-int8", 0, NULL, b_rev_int8},
    {"reverse-transposed", 0, NULL, b_rev_trans},
    {"nearest2x-nchw", 0, NULL, b_near_nchw},
    {"nearest2x-nhwc", 0, NULL, b_near_nhwc},
    {"nearest2x-round", 0, NULL, b_near_round},
    {"linear2x-nchw", 0, NULL, b_lin_nchw},
    {"linear2x-nhwc", 0, NULL, b_lin_nhwc},
    {"linear2x-grad", 0, "linear2x-nchw", b_lin_grad}, /* after its forward case */
    {"linear2x-grad-nhwc", 0, "linear2x-nhwc", b_lin_grad_nhwc},
    {"linear-down0.5", 0, NULL, b_lin_down},
    {"antialias-down0.5", 0, NULL, b_aa_down},
    {"linear-1.5", 0, NULL, b_lin_15},
    {"trilinear2x", 0, NULL, b_trilin},
    {"trilinear2x-grad", 0, "trilinear2x", b_tri_grad},
    {"big-reverse", 1, NULL, b_big_rev},
    {"big-reverse-int8", 1, NULL, b_big_rev8},
    {"big-linear", 1, NULL, b_big_lin},
};
const size_t bench_n_cases = sizeof bench_cases / sizeof bench_cases[0];

/* ---- input data: a hash of the element's offset in its buffer -------------------------
 * Generated on the device (8 GiB inputs would take long on the host); the checker
 * recomputes any element from its offset, so no host copy of the input is needed. */

static uint32_t mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static uint32_t hash_at(uint64_t i)
{
    return mix32((uint32_t)i ^ mix32((uint32_t)(i >> 32) + 0x9e3779b9u));
}

/* Element bits at buffer offset i. `floats`: values in [1, 2) (resample inputs); else raw
 * bits (reverse only moves bits, NaN patterns included). */
static uint32_t gen_bits(uint32_t elem, int floats, uint64_t i)
{
    uint32_t h = hash_at(i);
    if (elem == 1)
        return h & 0xff;
    if (elem == 2)
        return floats ? 0x3c00u | (h >> 22) : h & 0xffff;
    return floats ? 0x3f800000u | (h >> 9) : h;
}

const char bench_helper_source[] =
    "uint mix32(uint x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu;\n"
    "                     x ^= x >> 16; return x; }\n"
    "uint hash_at(ulong i) { return mix32((uint)i ^ mix32((uint)(i >> 32) + 0x9e3779b9u)); }\n"
    "#define LOOP for (ulong i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "__kernel void fill1(__global uchar *p, ulong n, uint fl) { LOOP p[i] = (uchar)hash_at(i); }\n"
    "__kernel void fill2(__global ushort *p, ulong n, uint fl) { LOOP {\n"
    "    uint h = hash_at(i); p[i] = (ushort)(fl ? 0x3c00u | (h >> 22) : h); } }\n"
    "__kernel void fill4(__global uint *p, ulong n, uint fl) { LOOP {\n"
    "    uint h = hash_at(i); p[i] = fl ? 0x3f800000u | (h >> 9) : h; } }\n"
    "__kernel void poison(__global uint *p, ulong n) { LOOP p[i] = 0xA5A5A5A5u; }\n"
    "#define GATHER { size_t i = get_global_id(0); d[i] = p[o[i]]; }\n"
    "__kernel void gather1(__global const uchar *p, __global const ulong *o, __global uint *d)\n"
    "GATHER\n"
    "__kernel void gather2(__global const ushort *p, __global const ulong *o, __global uint *d)\n"
    "GATHER\n"
    "__kernel void gather4(__global const uint *p, __global const ulong *o, __global uint *d)\n"
    "GATHER\n"
    /* The probe: item i reads input vector i and writes output vector i, as many of each as
     * the case moves; an input beyond the output still reaches a store, so that the compiler
     * keeps its load (taken for all-ones bits alone: the output is scratch by then). */
    "__kernel void probe(__global const float4 *in, ulong nin, __global float4 *out, ulong nout)\n"
    "{ size_t i = get_global_id(0); float4 v = i < nin ? in[i] : (float4)(0.0f);\n"
    "  if (i < nout) out[i] = v; else if (as_uint(v.x) == 0xffffffffu) out[0] = v; }\n";

/* ---- the C reference on sampled outputs --------------------------------------------- */

uint64_t bench_offset_of(const btensor *t, const uint32_t *idx)
{
    uint64_t o = 0;
    for (uint32_t d = 0; d < t->rank; d++)
        o += (uint64_t)idx[d] * t->strides[d];
    return o;
}

static void index_of(const btensor *t, uint64_t k, uint32_t *idx)
{
    for (int d = (int)t->rank - 1; d >= 0; d--) {
        idx[d] = (uint32_t)(k % t->sizes[d]);
        k /= t->sizes[d];
    }
}

static uint32_t reverse_expect(const bcase *c, const uint32_t *i)
{
    uint32_t j[8], src[8];
    memcpy(j, i, sizeof j);
    memcpy(src, i, sizeof src);
    j[c->axis] = 0;
    uint64_t n = c->in.sizes[c->axis], len = c->lengths[bench_offset_of(&c->len, j)];
    uint64_t l = len < n ? len : n;
    if (i[c->axis] < l)
        src[c->axis] = (uint32_t)(l - 1 - i[c->axis]);
    return gen_bits(bench_type_bytes(c->in.type), 0, bench_offset_of(&c->in, src));
}

static float in_value(const bcase *c, const uint32_t *idx)
{
    uint32_t bits = gen_bits(4, 1, bench_offset_of(&c->in, idx));
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* One dimension's taps: source indices and weights. 64 are enough for scales from 1/30
 * (antialiased) to 30 (gradients); the cases use 1/2 to 2. */
#define MAX_TAPS 64
typedef struct taps {
    uint32_t n, idx[MAX_TAPS];
    double w[MAX_TAPS];
} taps;

static void add_tap(taps *t, uint32_t i, double w)
{
    if (t->n < MAX_TAPS) {
        t->idx[t->n] = i;
        t->w[t->n++] = w;
    }
}

/* doc/operators.md's RESAMPLE1 coordinate of output o in dimension d, float32 in its order. */
static float coord(const bcase *c, uint32_t d, uint32_t o)
{
    return ((float)o - c->out_off[d]) / c->scales[d] - c->in_off[d];
}

/* The forward pass's taps of output o in dimension d from n inputs. Nearest: one index,
 * floor(x + 0.5) (RESAMPLE1) or ceil / floor(x) by the rounding direction (RESAMPLE2 on),
 * clamped. Linear: x clamped to [0, n - 1], floor(x) with weight 1 - w and, when
 * w = x - floor(x) is not 0, the next index with weight w. */
static void forward_taps(const bcase *c, uint32_t d, uint32_t o, uint32_t n, taps *t)
{
    float x = coord(c, d, o), top = (float)(n - 1);
    t->n = 0;
    if (c->mode == DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
        float f = c->kind == B_RESAMPLE1                               ? floorf(x + 0.5f)
                  : c->direction == DMLCL_AXIS_DIRECTION_INCREASING ? ceilf(x)
                                                                     : floorf(x);
        add_tap(t, (uint32_t)(f < 0 ? 0 : f > top ? top : f), 1);
        return;
    }
    x = x < 0 ? 0 : x > top ? top : x;
    float f = floorf(x), w = x - f;
    add_tap(t, (uint32_t)f, 1 - (double)w);
    if (w != 0)
        add_tap(t, (uint32_t)f + 1, w);
}

/* RESAMPLE3's antialiased taps (LINEAR, scale s < 1): centre ctr = x + 0.5, weights
 * max(0, 1 - |j + 0.5 - ctr| * s) over the inputs j (nonzero only where
 * |j + 0.5 - ctr| < 1 / s), normalized by their sum; a sample wholly outside the input
 * reads the edge element. */
static void antialiased_taps(const bcase *c, uint32_t d, uint32_t o, uint32_t n, taps *t)
{
    double ctr = (double)coord(c, d, o) + 0.5, s = c->scales[d], total = 0;
    double lo = floor(ctr - 1 / s - 0.5), hi = ceil(ctr + 1 / s - 0.5);
    t->n = 0;
    for (double j = lo > 0 ? lo : 0; j <= hi && j < n; j++) {
        double v = 1 - fabs(j + 0.5 - ctr) * s;
        if (v > 0) {
            add_tap(t, (uint32_t)j, v);
            total += v;
        }
    }
    if (total == 0) {
        add_tap(t, ctr < 0.5 ? 0 : n - 1, 1);
        return;
    }
    for (uint32_t k = 0; k < t->n; k++)
        t->w[k] /= total;
}

/* RESAMPLE_GRAD1's taps of output-gradient index i in dimension d: every forward output
 * (an input-gradient index) one of whose forward taps reads i, with that tap's weight.
 * Scans the whole line for each sample: plain, and why the case checks fewer samples. */
static void grad_taps(const bcase *c, uint32_t d, uint32_t i, taps *t)
{
    taps f;
    t->n = 0;
    for (uint32_t o = 0; o < c->in.sizes[d]; o++) {
        forward_taps(c, d, o, c->out.sizes[d], &f);
        for (uint32_t k = 0; k < f.n; k++)
            if (f.idx[k] == i)
                add_tap(t, o, f.w[k]);
    }
}

/* The sum over every combination of the dimensions' taps of the product of their weights
 * times the input element (in double: the order of the terms does not matter). */
static double weighted_sum(const bcase *c, const taps *t)
{
    uint32_t rank = c->in.rank, k[8] = {0}, idx[8];
    for (uint32_t d = 0; d < rank; d++)
        if (!t[d].n)
            return 0; /* a gradient element no forward output read */
    double sum = 0;
    for (;;) {
        double wt = 1;
        for (uint32_t d = 0; d < rank; d++) {
            wt *= t[d].w[k[d]];
            idx[d] = t[d].idx[k[d]];
        }
        if (wt != 0)
            sum += wt * in_value(c, idx);
        int d = (int)rank - 1;
        while (d >= 0 && ++k[d] == t[d].n)
            k[d--] = 0;
        if (d < 0)
            return sum;
    }
}

static int widened(const bcase *c, uint32_t d)
{
    return c->kind == B_RESAMPLE3 && c->antialiased &&
           c->mode == DMLCL_INTERPOLATION_MODE_LINEAR && c->scales[d] < 1;
}

static double resample_expect(const bcase *c, const uint32_t *o)
{
    taps t[8];
    for (uint32_t d = 0; d < c->out.rank; d++) {
        if (c->kind == B_GRAD1)
            grad_taps(c, d, o[d], &t[d]);
        else if (widened(c, d))
            antialiased_taps(c, d, o[d], c->in.sizes[d], &t[d]);
        else
            forward_taps(c, d, o[d], c->in.sizes[d], &t[d]);
    }
    return weighted_sum(c, t);
}

/* Compares one output element (its bits `got`); returns 0 when right, else describes it. */
int bench_check_one(const bcase *c, uint32_t got, const uint32_t *i, char *msg, size_t cap)
{
    uint64_t off = bench_offset_of(&c->out, i);
    if (c->kind == B_REVERSE) {
        uint32_t want = reverse_expect(c, i);
        if (got == want)
            return 0;
        snprintf(msg, cap, "output element at offset %llu is 0x%x, expected 0x%x",
                 (unsigned long long)off, got, want);
        return -1;
    }
    float g;
    memcpy(&g, &got, 4);
    double want = resample_expect(c, i);
    /* A forward nearest output is one input, exact. Sums carry float32 rounding: RESAMPLE1
     * and 2's two taps per dimension a few ulps; the tap kernels (gradients, antialiased
     * filters with float32 weights) add up to 16 terms. */
    int exact = c->kind != B_GRAD1 && c->mode == DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    double ulps = c->kind == B_GRAD1 || c->kind == B_RESAMPLE3 ? 32 : 4;
    double tol = exact ? 0 : 1e-6 + ulps * 1.1920929e-7 * fabs(want);
    if (fabs(g - want) <= tol)
        return 0;
    snprintf(msg, cap, "output element at offset %llu is %.9g, expected %.9g",
             (unsigned long long)off, g, want);
    return -1;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The first and last `edge` outputs in index order (4096 by default), then random ones. */
void bench_sample_index(const bcase *c, uint64_t k, uint64_t edge, uint64_t *rng, uint32_t *idx)
{
    uint64_t count = bench_elements(&c->out);
    if (k < edge)
        index_of(&c->out, k, idx);
    else if (k < 2 * edge)
        index_of(&c->out, count - 1 - (k - edge), idx);
    else
        for (uint32_t d = 0; d < c->out.rank; d++)
            idx[d] = (uint32_t)(splitmix(rng) % c->out.sizes[d]);
}

/* ---- the operator ------------------------------------------------------------------- */

/* Every kind's descriptor is filled in; the kind picks the one passed. */
dmlcl_status bench_create_op(const bcase *c, dmlcl_context *ctx, dmlcl_operator **op)
{
    dmlcl_tensor_desc ti = desc_of(&c->in), to = desc_of(&c->out), tl = desc_of(&c->len);
    const uint32_t n = c->in.rank;
    const float *s = c->scales, *io = c->in_off, *oo = c->out_off;
    dmlcl_reverse_subsequences_desc rev = {&ti, &tl, &to, c->axis};
    dmlcl_resample1_desc r1 = {&ti, &to, c->mode, n, s, io, oo};
    dmlcl_resample2_desc r2 = {&ti, &to, c->mode, c->direction, n, s, io, oo};
    dmlcl_resample_grad1_desc g1 = {&ti, &to, c->mode, c->direction, n, s, io, oo};
    dmlcl_resample3_desc r3 = {&ti, &to, c->mode, c->direction, n, s, io, oo, c->antialiased};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &r1};
    switch (c->kind) {
    case B_REVERSE: od = (dmlcl_operator_desc){DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rev}; break;
    case B_RESAMPLE1: break;
    case B_RESAMPLE2: od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE2, &r2}; break;
    case B_GRAD1: od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE_GRAD1, &g1}; break;
    case B_RESAMPLE3: od = (dmlcl_operator_desc){DMLCL_OPERATOR_RESAMPLE3, &r3}; break;
    }
    return dmlcl_operator_create(ctx, &od, op);
}
