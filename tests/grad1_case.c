/* RESAMPLE_GRAD1's randomized cases against a forward-order scatter: see grad1_case.h. */
#include "grad1_case.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


double gload(const gcase *c, const unsigned char *p)
{
    if (c->type == F32) { float v; memcpy(&v, p, 4); return v; }
    if (c->type == F64) { double v; memcpy(&v, p, 8); return v; }
    double lo, hi;
    if (tu_int_range(c->type, &lo, &hi))
        return tu_int_load(c->type, p);
    uint16_t h;
    memcpy(&h, p, 2);
    return tu_half_to_float(h);
}

/* The integers: round half to even, then saturate. */
void gstore(const gcase *c, unsigned char *p, double v)
{
    double lo, hi;
    if (tu_int_range(c->type, &lo, &hi)) tu_int_store(c->type, p, v);
    else if (c->type == F32) { float f = (float)v; memcpy(p, &f, 4); }
    else if (c->type == F64) memcpy(p, &v, 8);
    else { uint16_t h = tu_float_to_half((float)v); memcpy(p, &h, 2); }
}

/* The forward pass of one dimension, as the spec states it. */
static void forward_dim(const gcase *c, uint32_t d, uint32_t o, uint64_t *i0, uint64_t *i1,
                        float *w)
{
    float x = ((float)o - c->opo[d]) / c->sc[d] - c->ipo[d];
    uint64_t n = c->os[d];
    float top = (float)(n - 1);
    *w = 0;
    if (c->mode == LINEAR && c->sc[d] == 1 && c->ipo[d] + c->opo[d] == 0 && c->gs[d] == n) {
        *i0 = *i1 = o; /* the spec's identity dimension (not for nearest's floor and ceil) */
        return;
    }
    if (c->mode == NEAREST) {
        float f = c->dir == INC ? ceilf(x) : floorf(x);
        *i0 = *i1 = f < 0 ? 0 : f > top ? n - 1 : (uint64_t)f;
        return;
    }
    x = fminf(fmaxf(x, 0), top);
    *i0 = (uint64_t)floorf(x);
    *i1 = *i0 + 1 < n ? *i0 + 1 : n - 1;
    *w = x - floorf(x);
}

/* Scatter: every forward output (row-major), every corner (first dimension most
 * significant), acc[input] += weight * gradient; weights of 0 add nothing. */
static void scatter(const gcase *c, const unsigned char *g, double *accd, float *accf)
{
    uint32_t o[8] = {0};
    do {
        uint64_t i0[8], i1[8];
        float w[8];
        for (uint32_t d = 0; d < c->rank; d++)
            forward_dim(c, d, o[d], &i0[d], &i1[d], &w[d]);
        double gv = gload(c, g + tu_offset(c->rank, o, c->gstr) * c->elem);
        for (uint32_t k = 0; k < (1u << c->rank); k++) {
            float wf = 1;
            double wd = 1;
            uint64_t lin = 0;
            for (uint32_t d = 0; d < c->rank; d++) {
                int bit = (k >> (c->rank - 1 - d)) & 1;
                wf = wf * (bit ? w[d] : 1.0f - w[d]);
                wd = wd * (bit ? (double)w[d] : 1.0 - (double)w[d]);
                lin = lin * c->os[d] + (bit ? i1[d] : i0[d]);
            }
            if (c->type == F64 && wd != 0)
                accd[lin] = accd[lin] + wd * gv;
            else if (c->type != F64 && wf != 0)
                accf[lin] = accf[lin] + wf * (float)gv;
        }
    } while (tu_next_index(c->rank, c->gs, o));
}

size_t g_outputs, g_inexact;

dmlcl_status gcase_create(const gcase *c, dmlcl_operator **op)
{
    dmlcl_tensor_desc tg = {c->type, c->rank, c->gs, c->gstr, 0};
    dmlcl_tensor_desc to = {c->type, c->rank, c->os, c->ostr, 0};
    dmlcl_resample_grad1_desc gd = {&tg, &to, (dmlcl_interpolation_mode)c->mode,
                                    (dmlcl_axis_direction)c->dir, c->rank, c->sc, c->ipo, c->opo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE_GRAD1, &gd};
    return dmlcl_operator_create(tu_context(), &od, op);
}

void check_gcase(uint64_t *rng, const gcase *c, int n)
{
    size_t g_span = tu_span(c->rank, c->gs, c->gstr), o_span = tu_span(c->rank, c->os, c->ostr);
    unsigned char *g = malloc(g_span * c->elem);
    /* Integer gradients small enough that most sums fit and some saturate (16-bit: the
     * 8-bit values times 256). */
    double lo, hi;
    const int integer = tu_int_range(c->type, &lo, &hi);
    const double unit = integer && hi - lo > 255 ? 256 : 1;
    for (size_t k = 0; k < g_span; k++)
        gstore(c, g + k * c->elem,
               integer ? ((double)tu_range(rng, 0, 24) - (lo < 0) * 12) * unit
                       : (double)tu_range(rng, 0, 20000) / 100 - 100);
    dmlcl_operator *op = NULL;
    tu_assert_ok(gcase_create(c, &op));
    tu_devbuf bi = tu_devbuf_new(g_span * c->elem, tu_range(rng, 0, 3) * c->elem, g);
    tu_devbuf bo = tu_devbuf_new(o_span * c->elem, tu_range(rng, 0, 3) * c->elem, NULL);
    dmlcl_buffer_binding ins[1] = {{bi.mem, bi.offset, 0}}, outs[1] = {{bo.mem, bo.offset, 0}};
    tu_assert_ok(dmlcl_operator_enqueue(op, ins, 1, outs, 1, 0, NULL, NULL));
    unsigned char *got = malloc(bo.bytes), *mark = calloc(bo.bytes, 1);
    tu_devbuf_read(&bo, got);
    size_t n_in = 1;
    for (uint32_t d = 0; d < c->rank; d++)
        n_in *= c->os[d];
    double *accd = calloc(n_in, sizeof *accd);
    float *accf = calloc(n_in, sizeof *accf);
    scatter(c, g, accd, accf);
    uint32_t i[8] = {0};
    size_t lin = 0;
    do {
        size_t at = bo.offset + tu_offset(c->rank, i, c->ostr) * c->elem;
        unsigned char want[8];
        gstore(c, want, c->type == F64 ? accd[lin] : (double)accf[lin]);
        double gv = gload(c, got + at), wv = gload(c, want), diff = fabs(gv - wv);
        double tol = c->type == F64 ? fabs(wv) * 1e-12 + 1e-12
                     : c->type == F16 ? fabs(wv) / 1024 + 1e-6
                     : integer ? 0 : fabs(wv) * 1e-6 + 1e-6;
        tu_assert_each(diff <= tol, "case %d (rank %u, %s, %s, type %d, plan %s): element %zu is "
                       "%.9g, the scatter gives %.9g", n, c->rank, c->mode ? "linear" : "nearest",
                       c->dir == INC ? "INCREASING" : "DECREASING", c->type,
                       dmlcl_operator_plan(op), lin, gv, wv);
        g_outputs++;
        g_inexact += memcmp(got + at, want, c->elem) != 0;
        memset(mark + at, 1, c->elem);
        lin++;
    } while (tu_next_index(c->rank, c->os, i));
    for (size_t k = 0; k < bo.bytes; k++)
        tu_assert_each(mark[k] || got[k] == TU_FILL, "case %d: byte %zu outside the tensor "
                       "changed to 0x%02x", n, k, got[k]);
    dmlcl_operator_release(op);
    tu_devbuf_free(&bi);
    tu_devbuf_free(&bo);
    free(g), free(got), free(mark), free(accd), free(accf);
}

gcase random_gcase(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type, int mode)
{
    gcase c;
    memset(&c, 0, sizeof c);
    c.rank = rank;
    c.type = type;
    c.elem = dmlcl_data_type_size(type);
    c.mode = mode;
    c.dir = (int)tu_range(rng, 0, 1);
    uint32_t cap = rank <= 2 ? 14 : rank <= 4 ? 5 : 3;
    for (uint32_t d = 0; d < rank; d++) {
        c.os[d] = (uint32_t)tu_range(rng, 1, cap);
        c.gs[d] = (uint32_t)tu_range(rng, 1, cap);
        switch (tu_range(rng, 0, 4)) {
        case 0: c.sc[d] = (float)c.gs[d] / (float)c.os[d]; break;
        case 1: c.sc[d] = (float)tu_range(rng, 1, 6) / 2; break;
        case 2: c.sc[d] = 1; c.gs[d] = c.os[d]; break; /* identity: an affine dimension */
        case 3: c.sc[d] = 1.0f / (float)tu_range(rng, 2, 3); break;
        default: c.sc[d] = 0.2f + (float)tu_range(rng, 0, 100) / 31.0f;
        }
        int pix = (int)tu_range(rng, 0, 2);
        c.ipo[d] = pix == 0 ? 0.5f : pix == 1 ? 0 : (float)tu_range(rng, 0, 8) / 4 - 1;
        c.opo[d] = pix == 0 ? -0.5f : pix == 1 ? 0 : (float)tu_range(rng, 0, 8) / 4 - 1;
    }
    /* Input gradient: any layout, broadcast included; output gradient: no broadcast. */
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 3), rank, c.gs, -1, c.gstr);
    tu_make_strides(rng, (tu_layout)tu_range(rng, 0, 2), rank, c.os, -1, c.ostr);
    return c;
}

/* Packed arrays of type t through execute_host. */
void grad_host(dmlcl_tensor_data_type t, uint32_t rank, const uint32_t *gs,
                      const uint32_t *os, int mode, int dir, const float *sc, const float *ipo,
                      const float *opo, const void *g, void *out)
{
    dmlcl_tensor_desc tg = {t, rank, gs, NULL, 0}, to = {t, rank, os, NULL, 0};
    dmlcl_resample_grad1_desc gd = {&tg, &to, (dmlcl_interpolation_mode)mode,
                                    (dmlcl_axis_direction)dir, rank, sc, ipo, opo};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE_GRAD1, &gd};
    tu_run_host(&od, g, out);
}
