/* RESAMPLE1's test cases (resample1_case.h). */
#include "resample1_case.h"

const float rc_zeros[8] = {0};

/* ---- one case: descriptors, the C reference, the device run ------------------------------ */


double rc_load(const rcase *c, const unsigned char *in, uint64_t off)
{
    const unsigned char *p = in + off * c->elem;
    switch (c->type) {
    case F32: { float v; memcpy(&v, p, 4); return v; }
    case F16: { uint16_t v; memcpy(&v, p, 2); return tu_half_to_float(v); }
    case F64: { double v; memcpy(&v, p, 8); return v; }
    default: return tu_int_load(c->type, p);
    }
}

void rc_store(const rcase *c, unsigned char *p, double v)
{
    switch (c->type) {
    case F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case F16: { uint16_t h = tu_float_to_half((float)v); memcpy(p, &h, 2); break; }
    case F64: memcpy(p, &v, 8); break;
    default: tu_int_store(c->type, p, v); /* round half to even, saturate */
    }
}

/* The spec's formula for one output element, written out plainly. */
void rc_reference_element(const rcase *c, const unsigned char *in, const uint32_t *o,
                              unsigned char *dst)
{
    uint64_t i0[8], i1[8];
    float w[8];
    for (uint32_t d = 0; d < c->rank; d++) {
        float x = ((float)o[d] - c->opo[d]) / c->scales[d] - c->ipo[d];
        float top = (float)(c->in_sizes[d] - 1);
        if (c->mode == NEAREST) {
            float f = floorf(x + 0.5f);
            i0[d] = f < 0 ? 0 : f > top ? c->in_sizes[d] - 1 : (uint64_t)f;
        } else {
            x = fminf(fmaxf(x, 0), top);
            i0[d] = (uint64_t)floorf(x);
            i1[d] = i0[d] + 1 < c->in_sizes[d] ? i0[d] + 1 : c->in_sizes[d] - 1;
            w[d] = x - floorf(x);
        }
    }
    if (c->mode == NEAREST) {
        uint64_t off = 0;
        for (uint32_t d = 0; d < c->rank; d++)
            off += i0[d] * c->in_str[d];
        memcpy(dst, in + off * c->elem, c->elem);
        return;
    }
    /* Corners with the first dimension as the most significant bit; weight = product in
     * dimension order; corners of weight 0 add nothing (dmlcl does not read them). */
    float accf = 0;
    double accd = 0;
    for (uint32_t k = 0; k < (1u << c->rank); k++) {
        float wf = 1;
        double wd = 1;
        uint64_t off = 0;
        for (uint32_t d = 0; d < c->rank; d++) {
            int bit = (k >> (c->rank - 1 - d)) & 1;
            wf = wf * (bit ? w[d] : 1.0f - w[d]);
            wd = wd * (bit ? (double)w[d] : 1.0 - (double)w[d]);
            off += (bit ? i1[d] : i0[d]) * c->in_str[d];
        }
        if (c->type == F64 && wd != 0)
            accd = accd + wd * rc_load(c, in, off);
        else if (c->type != F64 && wf != 0)
            accf = accf + wf * (float)rc_load(c, in, off);
    }
    rc_store(c, dst, c->type == F64 ? accd : (double)accf);
}

/* Largest allowed difference from the reference (nearest: none, bit for bit). */
int rc_close_enough(const rcase *c, const unsigned char *got, const unsigned char *want,
                        int *bit_exact)
{
    *bit_exact = !memcmp(got, want, c->elem);
    if (*bit_exact)
        return 1;
    if (c->mode == NEAREST)
        return 0;
    double g = rc_load(c, got, 0), r = rc_load(c, want, 0), diff = fabs(g - r);
    switch (c->type) {
    case F32: return diff <= 2 * (nextafterf(fabsf((float)r), INFINITY) - fabsf((float)r)) + 1e-6;
    case F16: return diff <= fabs(r) / 1024 + 1e-6; /* one FLOAT16 ulp */
    case F64: return diff <= fabs(r) * 1e-12 + 1e-12;
    default: return diff <= 1; /* a float sum within 2 ulp can round to the other side */
    }
}

void rc_descs(const rcase *c, dmlcl_tensor_desc *ti, dmlcl_tensor_desc *to)
{
    *ti = (dmlcl_tensor_desc){c->type, c->rank, c->in_sizes, c->in_str, 0};
    *to = (dmlcl_tensor_desc){c->type, c->rank, c->out_sizes, c->out_str, 0};
}

dmlcl_operator *rc_make_op(const rcase *c, int v0)
{
    dmlcl_tensor_desc ti, to;
    rc_descs(c, &ti, &to);
    dmlcl_resample1_desc r1 = {&ti, &to, (dmlcl_interpolation_mode)c->mode, c->rank,
                               c->scales, c->ipo, c->opo};
    dmlcl_resample_desc r0 = {&ti, &to, (dmlcl_interpolation_mode)c->mode, c->rank, c->scales};
    dmlcl_operator_desc od = {v0 ? DMLCL_OPERATOR_RESAMPLE : DMLCL_OPERATOR_RESAMPLE1,
                              v0 ? (const void *)&r0 : (const void *)&r1};
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_operator_create(tu_context(), &od, &op);
    ck_assert_msg(st == DMLCL_SUCCESS, "create: %s", dmlcl_last_error());
    return op;
}

size_t rc_case_outputs, rc_case_inexact; /* linear outputs not bit-identical to the reference */

/* Runs a case through dmlcl_operator_enqueue with guard-banded, offset bindings; returns
 * the whole output buffer (guards included) and checks every byte of it. */
unsigned char *rc_run_case(const rcase *c, const unsigned char *in, int v0, const char *what,
                               size_t *bytes)
{
    size_t in_span = tu_span(c->rank, c->in_sizes, c->in_str);
    size_t out_span = tu_span(c->rank, c->out_sizes, c->out_str);
    dmlcl_operator *op = rc_make_op(c, v0);
    tu_devbuf bi = tu_devbuf_new(in_span * c->elem, c->in_off * c->elem, in);
    tu_devbuf bo = tu_devbuf_new(out_span * c->elem, c->out_off * c->elem, NULL);
    dmlcl_buffer_binding ins[1] = {{bi.mem, bi.offset, 0}};
    dmlcl_buffer_binding outs[1] = {{bo.mem, bo.offset, out_span * c->elem}};
    dmlcl_status st = dmlcl_operator_enqueue(op, ins, 1, outs, 1, 0, NULL, NULL);
    ck_assert_msg(st == DMLCL_SUCCESS, "%s: %s", what, dmlcl_last_error());
    unsigned char *got = malloc(bo.bytes), *want = malloc(bo.bytes), *elem = calloc(bo.bytes, 1);
    tu_devbuf_read(&bo, got);
    memset(want, TU_FILL, bo.bytes);
    uint32_t o[8] = {0};
    do {
        size_t at = bo.offset + tu_offset(c->rank, o, c->out_str) * c->elem;
        rc_reference_element(c, in, o, want + at);
        memset(elem + at, 1, c->elem);
        int exact;
        tu_assert_each(rc_close_enough(c, got + at, want + at, &exact),
                       "%s (rank %u, %s, type %d, plan %s): output at byte %zu is %g, the "
                       "reference %g", what, c->rank, c->mode ? "linear" : "nearest", c->type,
                       dmlcl_operator_plan(op), at - bo.offset, rc_load(c, got + at, 0),
                       rc_load(c, want + at, 0));
        rc_case_outputs++;
        rc_case_inexact += !exact;
    } while (tu_next_index(c->rank, c->out_sizes, o));
    for (size_t k = 0; k < bo.bytes; k++)
        tu_assert_each(elem[k] || got[k] == TU_FILL,
                       "%s (plan %s): byte %zu outside the tensor changed to 0x%02x", what,
                       dmlcl_operator_plan(op), k, got[k]);
    dmlcl_operator_release(op);
    tu_devbuf_free(&bi);
    tu_devbuf_free(&bo);
    free(want);
    free(elem);
    *bytes = bo.bytes;
    return got;
}

/* ---- randomized cases against the reference ---------------------------------------------- */

const dmlcl_tensor_data_type rc_all_types[5] = {F32, F16, F64, I8, U8};

/* Sizes: at most a few hundred elements whatever the rank. */
uint32_t rc_size_cap(uint32_t rank)
{
    return rank <= 2 ? 20 : rank == 3 ? 8 : rank <= 5 ? 4 : 3;
}

float rc_random_scale(uint64_t *rng, uint32_t n_in, uint32_t n_out)
{
    switch (tu_range(rng, 0, 6)) {
    case 0: case 1: return (float)n_out / (float)n_in;
    case 2: return 1;
    case 3: return FLT_MAX;
    case 4: return (float)tu_range(rng, 2, 3);
    case 5: return 1.0f / (float)tu_range(rng, 2, 3);
    default: return 0.2f + (float)tu_range(rng, 0, 1000) / 300.0f; /* non-integer */
    }
}

/* Offset families: 0 pixel-centre (0.5/-0.5), 1 zero (0/0), 2 mixed per dimension. */
void rc_random_offsets(uint64_t *rng, int family, float *ip, float *op)
{
    int f = family < 2 ? family : (int)tu_range(rng, 0, 3);
    switch (f) {
    case 0: *ip = 0.5f, *op = -0.5f; break;
    case 1: *ip = 0, *op = 0; break;
    case 2: *ip = 0, *op = -0.5f; break;
    default:
        *ip = (float)tu_range(rng, 0, 12) / 4 - 1.5f;
        *op = (float)tu_range(rng, 0, 12) / 4 - 1.5f;
    }
}

void rc_random_layout(uint64_t *rng, uint32_t rank, const uint32_t *sizes, int is_input,
                          uint32_t *strides)
{
    uint32_t pick = (uint32_t)tu_range(rng, 0, is_input ? 4 : 3);
    if (pick == 4 || (pick == 3 && !is_input)) { /* channels-last */
        if (rank >= 3) {
            tu_channels_last(rank, sizes, strides);
            return;
        }
        pick = TU_TRANSPOSED;
    }
    tu_make_strides(rng, (tu_layout)pick, rank, sizes, -1, strides);
}

/* A random case with `res` resampled-looking dimensions; the others are pass-through
 * kinds (identity with cancelling offsets, or input size 1), so a LINEAR case compiles
 * the kernel for K <= res. */
rcase rc_random_case(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type, int mode,
                         uint32_t res)
{
    rcase c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.type = type;
    c.mode = mode;
    c.elem = dmlcl_data_type_size(type);
    int family = (int)tu_range(rng, 0, 2);
    uint32_t cap = rc_size_cap(rank), is_res[8] = {0};
    for (uint32_t k = 0; k < res; k++)
        is_res[tu_range(rng, 0, rank - 1)] = 1;
    for (uint32_t d = 0; d < rank; d++) {
        c.in_sizes[d] = (uint32_t)tu_range(rng, 1, cap);
        if (is_res[d]) {
            c.out_sizes[d] = (uint32_t)tu_range(rng, 1, cap);
            c.scales[d] = rc_random_scale(rng, c.in_sizes[d], c.out_sizes[d]);
            rc_random_offsets(rng, family, &c.ipo[d], &c.opo[d]);
        } else if (tu_range(rng, 0, 3) == 0) { /* input size 1: every output reads it */
            c.in_sizes[d] = 1;
            c.out_sizes[d] = (uint32_t)tu_range(rng, 1, cap);
            c.scales[d] = rc_random_scale(rng, 1, c.out_sizes[d]);
            rc_random_offsets(rng, family, &c.ipo[d], &c.opo[d]);
        } else { /* identity */
            c.out_sizes[d] = c.in_sizes[d];
            c.scales[d] = 1;
            float a = family == 0 ? 0.5f : family == 1 ? 0 : (float)tu_range(rng, 0, 4) / 4;
            c.ipo[d] = a;
            c.opo[d] = -a;
        }
    }
    rc_random_layout(rng, rank, c.in_sizes, 1, c.in_str);
    rc_random_layout(rng, rank, c.out_sizes, 0, c.out_str);
    c.in_off = tu_range(rng, 0, 3);
    c.out_off = tu_range(rng, 0, 3);
    return c;
}

unsigned char *rc_random_input(uint64_t *rng, const rcase *c, size_t *bytes)
{
    size_t n = tu_span(c->rank, c->in_sizes, c->in_str);
    unsigned char *in = malloc(n * c->elem);
    for (size_t k = 0; k < n; k++) {
        double v = (double)tu_range(rng, 0, 2000000) / 10000.0 - 100; /* [-100, 100] */
        double lo, hi; /* the integers: their whole range */
        if (tu_int_range(c->type, &lo, &hi))
            v = lo + (double)tu_range(rng, 0, (uint64_t)(hi - lo));
        rc_store(c, in + k * c->elem, v);
    }
    *bytes = n * c->elem;
    return in;
}

void rc_check_random(uint64_t *rng, const rcase *c, int n)
{
    size_t in_bytes, out_bytes;
    unsigned char *in = rc_random_input(rng, c, &in_bytes);
    char what[64];
    snprintf(what, sizeof what, "case %d", n);
    free(rc_run_case(c, in, 0, what, &out_bytes));
    free(in);
}

/* Each (type, mode) pair: ranks 1..8, five cases each, K within 1..3. */
/* every_launch_shape's override must not outlive it, even when a check fails midway. */
void rc_forget_plan_override(void)
{
    unsetenv("DMLCL_RESAMPLE_PLAN");
}

void rc_report_exactness(void)
{
    printf("resample1: %zu outputs checked against the C reference, %zu not bit-identical\n",
           rc_case_outputs, rc_case_inexact);
}

