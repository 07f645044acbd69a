/* RESAMPLE_GRAD1's randomized cases, shared by tests/check_resample_grad1.c (the spec,
 * randomized, validation) and tests/check_resample_grad1_layouts.c (every layout forced,
 * the memo): a case, its operator, and the check of its outputs against a plain C scatter
 * of the forward pass's weights. */
#ifndef DMLCL_GRAD1_CASE_H
#define DMLCL_GRAD1_CASE_H
#include "testutil.h"

typedef struct {
    uint32_t rank, elem;
    int mode, dir;
    dmlcl_tensor_data_type type;
    uint32_t gs[8], os[8], gstr[8], ostr[8]; /* g: forward output shape; o: forward input */
    float sc[8], ipo[8], opo[8];
} gcase;

extern size_t g_outputs, g_inexact; /* elements checked, and those not bit-identical */
double gload(const gcase *c, const unsigned char *p);
void gstore(const gcase *c, unsigned char *p, double v);
dmlcl_status gcase_create(const gcase *c, dmlcl_operator **op);
/* Runs c on random gradients (guard bands, odd binding offsets) and checks every element
 * against the scatter and every byte outside the tensor (n: the case's number, for
 * messages). */
void check_gcase(uint64_t *rng, const gcase *c, int n);
/* Packed arrays of type t through execute_host. */
void grad_host(dmlcl_tensor_data_type t, uint32_t rank, const uint32_t *gs, const uint32_t *os,
               int mode, int dir, const float *sc, const float *ipo, const float *opo,
               const void *g, void *out);
gcase random_gcase(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type, int mode);
#endif
