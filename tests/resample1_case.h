/* RESAMPLE1's test cases (resample1_case.c), shared by the RESAMPLE1 test files:
 * check_resample1.c (spec examples, randomized exactness), check_resample1_layouts.c
 * (every kernel layout forced through $DMLCL_RESAMPLE_PLAN) and
 * check_resample1_validation.c (every rule and its message). One case: descriptors, the
 * C float32 reference with guard bands, the device run. */
#ifndef DMLCL_TESTS_RESAMPLE1_CASE_H
#define DMLCL_TESTS_RESAMPLE1_CASE_H
#include "testutil.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dmlcl_test_resample_force_idx64(int on); /* test hooks exported by the library */
uint64_t dmlcl_test_fail_alloc_after(uint64_t n);
int64_t dmlcl_test_live_allocations(void);


typedef struct rcase {
    uint32_t rank, elem;
    int mode;
    dmlcl_tensor_data_type type;
    uint32_t in_sizes[8], out_sizes[8], in_str[8], out_str[8];
    float scales[8], ipo[8], opo[8];
    size_t in_off, out_off; /* extra element offsets of the bindings */
} rcase;

extern const float rc_zeros[8];
extern const dmlcl_tensor_data_type rc_all_types[5];
extern size_t rc_case_outputs, rc_case_inexact; /* linear outputs not bit-identical */
double rc_load(const rcase *c, const unsigned char *in, uint64_t off);
void rc_store(const rcase *c, unsigned char *p, double v);
void rc_reference_element(const rcase *c, const unsigned char *in, const uint32_t *o,
                          unsigned char *dst);
int rc_close_enough(const rcase *c, const unsigned char *got, const unsigned char *want,
                    int *bit_exact);
void rc_descs(const rcase *c, dmlcl_tensor_desc *ti, dmlcl_tensor_desc *to);
dmlcl_operator *rc_make_op(const rcase *c, int v0);
unsigned char *rc_run_case(const rcase *c, const unsigned char *in, int v0, const char *what,
                           size_t *bytes);
uint32_t rc_size_cap(uint32_t rank);
float rc_random_scale(uint64_t *rng, uint32_t n_in, uint32_t n_out);
void rc_random_offsets(uint64_t *rng, int family, float *ip, float *op);
void rc_random_layout(uint64_t *rng, uint32_t rank, const uint32_t *sizes, int is_input,
                      uint32_t *strides);
rcase rc_random_case(uint64_t *rng, uint32_t rank, dmlcl_tensor_data_type type, int mode,
                     uint32_t res);
unsigned char *rc_random_input(uint64_t *rng, const rcase *c, size_t *bytes);
void rc_check_random(uint64_t *rng, const rcase *c, int n);
void rc_forget_plan_override(void);
void rc_report_exactness(void);
#endif
