/* `dmlcl bench`: what the driver (tools/bench/bench.c: devices, timing, output) and the cases
 * (tools/bench/cases.c: shapes, descriptors, input data and the C references) share. */
#ifndef DMLCL_BENCH_H
#define DMLCL_BENCH_H
#include <dmlcl.h>
#include <stddef.h>
#include <stdint.h>

#define MIB ((uint64_t)1 << 20)
#define BIG_MB 8192 /* the >4 GiB cases: 8 GiB inputs whatever --mb says */

typedef struct btensor {
    dmlcl_tensor_data_type type;
    uint32_t rank, sizes[8], strides[8];
} btensor;

typedef enum bkind { B_REVERSE, B_RESAMPLE1, B_RESAMPLE2, B_GRAD1, B_RESAMPLE3 } bkind;

/* One case: the operator's tensors and fields. `in` and `out` are the operator's input
 * and output (RESAMPLE_GRAD1: the input gradient, shaped like the forward output, and the
 * output gradient, shaped like the forward input); scales and offsets are the forward
 * pass's in every resample kind. */
typedef struct bcase {
    const char *name;
    bkind kind;
    btensor in, out, len;
    uint32_t axis;
    uint32_t *lengths; /* host copy of the lengths buffer (UINT32, len's span) */
    dmlcl_interpolation_mode mode;
    dmlcl_axis_direction direction; /* RESAMPLE2, RESAMPLE_GRAD1, RESAMPLE3 */
    int antialiased;                /* RESAMPLE3 */
    float scales[8], in_off[8], out_off[8];
    uint32_t max_samples; /* a reference too slow for --samples: check at most this many */
    char shape[128];
} bcase;

typedef struct case_entry {
    const char *name;
    int big;             /* run only when --case names it */
    const char *forward; /* a backward pass: the forward case its best time is compared with */
    int (*make)(bcase *c, uint64_t mb);
} case_entry;

extern const case_entry bench_cases[];
extern const size_t bench_n_cases;

uint32_t bench_type_bytes(dmlcl_tensor_data_type t);
uint64_t bench_elements(const btensor *t);
uint64_t bench_span_elems(const btensor *t);
uint64_t bench_offset_of(const btensor *t, const uint32_t *idx);

dmlcl_status bench_create_op(const bcase *c, dmlcl_context *ctx, dmlcl_operator **op);

/* OpenCL C of the helper kernels: fill1/2/4 (the input data: the same hash as the C
 * references read), poison and gather1/2/4 (sampled outputs), probe (a case's data
 * movement alone: its input read once, its output written once, float4). */
extern const char bench_helper_source[];

/* The k-th sampled output's index: the first and last `edge` outputs in index order, then
 * random ones from *rng. */
void bench_sample_index(const bcase *c, uint64_t k, uint64_t edge, uint64_t *rng, uint32_t *idx);
/* Compares the output element at index i (its bits `got`) with the C reference; returns 0
 * when right, else -1 with msg describing it. */
int bench_check_one(const bcase *c, uint32_t got, const uint32_t *i, char *msg, size_t cap);

#endif
