/* What mpi_resample.c shares with resident.c (the benchmark on device-resident fields):
 * the cases, their descriptors, the input data and the helpers that end the job on an
 * error. Part of dmlcl's MPI example. */
#ifndef DMLCL_EXAMPLE_MPI_H
#define DMLCL_EXAMPLE_MPI_H

#include <dmlcl.h>
#include <mpi.h>
#include <stdint.h>

#include "halo.h"

#define DIMS 3

extern int world_rank;

/* A failed call: say where and why, and end the whole job (the example may abort; the
 * library and its MPI layer never do). */
void check(dmlcl_status st, const char *what);
void check_cl(cl_int err, const char *what);
void *xmalloc(uint64_t bytes);

typedef struct case_spec {
    const char *name;
    dmlcl_operator_type type; /* RESAMPLE1, RESAMPLE3 or RESAMPLE_GRAD1 */
    dmlcl_interpolation_mode mode;
    float scale;     /* on every dimension; RESAMPLE_GRAD1: the forward pass's */
    int antialiased; /* RESAMPLE3 */
    dmlcl_tensor_data_type data_type;
} case_spec;

/* The operator's data input and output sizes for a field (GRAD1: its input is the
 * forward output). */
void case_sizes(const case_spec *c, const uint32_t *field, uint32_t *in, uint32_t *out);

/* A case's operator descriptor over one data input and one output tensor (packed). It
 * points into itself: build it in place with op_desc_init() and never copy it. */
typedef struct op_desc {
    uint32_t in_sizes[DIMS], out_sizes[DIMS];
    dmlcl_tensor_desc in, out;
    float scales[DIMS], in_offsets[DIMS], out_offsets[DIMS];
    union {
        dmlcl_resample1_desc r1;
        dmlcl_resample3_desc r3;
        dmlcl_resample_grad1_desc g1;
    } u;
    dmlcl_operator_desc op;
} op_desc;

void op_desc_init(op_desc *o, const case_spec *c, const uint32_t *in_sizes,
                  const uint32_t *out_sizes);

/* The input: element g (global linear index) is a function of g (mix: splitmix64's
 * finalizer), so every rank makes its own part. */
uint64_t mix(uint64_t x);
void fill_input(const case_spec *c, const halo_box *box, const uint32_t *sizes, void *data);
/* A field of about `bytes` of data input: Z planes of 512 x 512. */
void field_of_bytes(const case_spec *c, uint64_t bytes, uint32_t *field);

double now_ms(void);
double median(double *v, int n);
void quiet_barrier(MPI_Comm comm); /* waits without spinning */

/* resident.c: one --bench row on device-resident fields through the MPI layer. */
typedef struct resident_options {
    int weak, iters, check, overlap, header;
    uint64_t mb;
    uint64_t max_buffer_mb; /* 0, or a smaller CL_DEVICE_MAX_MEM_ALLOC_SIZE to size for */
} resident_options;
void resident_bench(const case_spec *c, const uint32_t *grid, const resident_options *o,
                    dmlcl_context *ctx);

#endif
