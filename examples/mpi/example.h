/* What mpi_resample.c shares with resident.c (the benchmark on device-resident fields):
 * the cases, their descriptors, the input data and the helpers that end the job on an
 * error. Part of dmlcl's MPI example. */
#ifndef DMLCL_EXAMPLE_MPI_H
#define DMLCL_EXAMPLE_MPI_H

#include <dmlcl.h>
#include <dmlcl_mpi.h>
#include <mpi.h>
#include <stdint.h>

#include "host_exchange.h"

#define DIMS 3

extern int world_rank;

/* A failed call: say where and why, and end the whole job (the example may abort; the
 * library and its MPI layer never do). */
void check(dmlcl_status st, const char *what);
void check_cl(cl_int err, const char *what);
void lcheck(dmlcl_status st, const char *what); /* a dmlcl_mpi call: its message */
void *xmalloc(uint64_t bytes);
/* The watchdog: phase what (NULL: none) must end within phase_limit_s() (3 x
 * DMLCL_MPI_TIMEOUT, default 900 s), else the rank names it and exits 3. verbose: rank 0
 * prints how long the previous phase took. */
void watch(const char *what, int verbose);
double phase_limit_s(void);

typedef struct case_spec {
    const char *name;
    dmlcl_operator_type type; /* RESAMPLE1, RESAMPLE3, RESAMPLE_GRAD1, REVERSE_SUBSEQUENCES */
    dmlcl_interpolation_mode mode;
    float scale;     /* on every dimension; RESAMPLE_GRAD1: the forward pass's */
    int antialiased; /* RESAMPLE3 */
    dmlcl_tensor_data_type data_type;
} case_spec;

/* The operator's data input and output sizes for a field (GRAD1: its input is the
 * forward output). */
void case_sizes(const case_spec *c, const uint32_t *field, uint32_t *in, uint32_t *out);

/* A case's operator descriptor over one data input and one output tensor (packed;
 * REVERSE_SUBSEQUENCES also its UINT32 lengths, along REVERSE_AXIS). It points into
 * itself: build it in place with op_desc_init() and never copy it. */
#define REVERSE_AXIS 2 /* X: a grid that cuts it has no reverse case */
typedef struct op_desc {
    uint32_t in_sizes[DIMS], out_sizes[DIMS], len_sizes[DIMS];
    dmlcl_tensor_desc in, out, len;
    float scales[DIMS], in_offsets[DIMS], out_offsets[DIMS];
    union {
        dmlcl_resample1_desc r1;
        dmlcl_resample3_desc r3;
        dmlcl_resample_grad1_desc g1;
        dmlcl_reverse_subsequences_desc rs;
    } u;
    dmlcl_operator_desc op;
} op_desc;

void op_desc_init(op_desc *o, const case_spec *c, const uint32_t *in_sizes,
                  const uint32_t *out_sizes);

/* The input: element g (global linear index) is a function of g (mix: splitmix64's
 * finalizer), so every rank makes its own part. */
uint64_t mix(uint64_t x);
void fill_input(const case_spec *c, const halo_box *box, const uint32_t *sizes, void *data);
/* REVERSE_SUBSEQUENCES' lengths (sizes: the lengths tensor's): 0 .. axis_size + 1, a
 * function of the global index, as the input. */
uint32_t sequence_length(uint64_t g, uint32_t axis_size);
void fill_lengths(const halo_box *box, const uint32_t *sizes, uint32_t axis_size, uint32_t *data);
/* A field of about `bytes` of data input: Z planes of 512 x 512. */
void field_of_bytes(const case_spec *c, uint64_t bytes, uint32_t *field);

double now_ms(void);
double median(double *v, int n);
void quiet_barrier(MPI_Comm comm); /* waits without spinning */

/* The whole tensors' run on one device (the reference; *ms its time), and root's
 * comparison of a gathered output with it, byte for byte (1: the same; else the first
 * difference printed). */
void *whole_run(dmlcl_context *ctx, const case_spec *c, const op_desc *whole, double *ms);
int whole_compare(const op_desc *whole, uint32_t elem, const void *got, const void *want,
                  int ranks, const uint32_t *grid);

halo_box to_halo(const dmlcl_mpi_box *b);

/* test_mode.c: one case on one grid through the MPI layer, PASS (1) or FAIL (0) on every
 * rank. corrupt: -1, a rank, or CORRUPT_ALL (DMLCL_MPI_EXAMPLE_CORRUPT): that rank's
 * ghosts are broken after the halo update, so the check must fail. */
#define CORRUPT_ALL (-2)
int layer_check_case(MPI_Comm comm, dmlcl_context *ctx, const case_spec *c,
                     const uint32_t *field, const uint32_t *grid, int corrupt, int verbose);
/* DMLCL_MPI_EXAMPLE_STALL=R:S: rank R sleeps S seconds here, before its first step (the
 * test that a rank missing from the job ends it within DMLCL_MPI_TIMEOUT). */
void stall_if_asked(void);

/* resident.c: one case's layouts, operator and fields on the MPI layer, the input (and
 * lengths) written from the generators; rjob_run: one dmlcl_mpi_operator_run. */
typedef struct rjob {
    const case_spec *c;
    op_desc whole;
    dmlcl_mpi_layout *li, *lo, *ll; /* ll, fl: REVERSE_SUBSEQUENCES' lengths, else NULL */
    dmlcl_mpi_operator *op;
    dmlcl_mpi_field *fi, *fo, *fl;
    dmlcl_mpi_box owned, out;
} rjob;
void rjob_setup(rjob *j, MPI_Comm comm, dmlcl_context *ctx, const case_spec *c,
                const uint32_t *field, const uint32_t *grid, uint32_t op_flags);
void rjob_run(rjob *j, uint32_t flags);
void rjob_free(rjob *j);

/* resident.c: one --bench row on device-resident fields through the MPI layer. */
typedef struct resident_options {
    int weak, iters, check, overlap, header;
    int phases; /* each rank's phase medians (DMLCL_MPI_PROFILE) after the row */
    uint64_t mb;
    uint64_t max_buffer_mb; /* 0, or a smaller CL_DEVICE_MAX_MEM_ALLOC_SIZE to size for */
} resident_options;
void resident_bench(const case_spec *c, const uint32_t *grid, const resident_options *o,
                    dmlcl_context *ctx);

#endif
