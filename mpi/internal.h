/* What the MPI layer's files share: its objects, boxes, errors and the operator
 * descriptor copy. Built on the public API only (dmlcl.h, dmlcl_mpi.h): the layer is a
 * library of its own on top of libdmlcl. */
#ifndef DMLCL_MPI_INTERNAL_H
#define DMLCL_MPI_INTERNAL_H

#include "dmlcl_mpi.h"
#include <stddef.h>

#define MAXDIM DMLCL_TENSOR_DIMENSION_COUNT_MAX
typedef dmlcl_mpi_box box;

/* ---- errors (error.c): a thread-local message, as libdmlcl's ------------------------- */
#if defined(__GNUC__)
#define MPI_LAYER_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MPI_LAYER_PRINTF(a, b)
#endif
dmlcl_status mpil_fail(dmlcl_status status, const char *fmt, ...) MPI_LAYER_PRINTF(2, 3);
/* A libdmlcl call failed: its status, "call: its message". */
dmlcl_status mpil_dmlcl_fail(dmlcl_status status, const char *call);
/* "call: CL_ERROR"; allocation failures are OUT_OF_MEMORY. */
dmlcl_status mpil_cl_fail(const char *call, cl_int err);
/* "call: MPI's error string", IO_ERROR. */
dmlcl_status mpil_mpi_fail(const char *call, int err);
/* Collective (agree.c): every rank returns the lowest failing rank's status with the
 * message "function: rank R: its message"; SUCCESS where every rank succeeded. */
dmlcl_status mpil_agree(MPI_Comm comm, const char *function, dmlcl_status status);

/* ---- bounded waits (wait.c): each polls until done or DMLCL_MPI_TIMEOUT seconds ------- */
double mpil_timeout_s(void);          /* DMLCL_MPI_TIMEOUT, default 300 */
dmlcl_status mpil_timeout_check(void); /* INVALID_ARGUMENT for a malformed value */
/* clFinish, bounded: "what: the device did not finish within T s" on expiry. */
dmlcl_status mpil_finish(cl_command_queue q, const char *what);
dmlcl_status mpil_event_wait(cl_event e, const char *what);
/* MPI_Waitall, bounded: on expiry the open requests are cancelled and freed, and the
 * message names the first one through describe (ctx, its index). IO_ERROR. */
dmlcl_status mpil_requests_wait(int n, MPI_Request *req, const char *what,
                                void (*describe)(const void *ctx, int i, char *buf, size_t cap),
                                const void *ctx);
/* A collective's request (the agreement's), bounded: on expiry the rank prints what it
 * waited in and its own status (mine), and calls MPI_Abort: no answer can be agreed. */
int mpil_collective_wait(MPI_Comm comm, MPI_Request *req, const char *function,
                         dmlcl_status mine);

/* ---- boxes (box.c) ------------------------------------------------------------------ */
uint64_t box_count(const box *b);
int box_intersect(const box *a, const box *b, box *out); /* 1 if not empty */
int box_contains(const box *outer, const box *inner);    /* an empty inner is held */
void box_hull(const box *a, const box *b, box *out);     /* smallest box holding both */
void box_empty(uint32_t dims, box *b);
void box_grid(uint32_t dims, const uint32_t *sizes, const uint32_t *grid, int rank, box *b);
/* "[s+n, s+n, ...]" for messages. */
const char *box_text(const box *b, char *buf, size_t cap);

/* ---- layouts (layout.c) ------------------------------------------------------------- */
struct dmlcl_mpi_layout {
    MPI_Comm comm; /* ours (a duplicate), returning MPI errors */
    int rank, size;
    dmlcl_tensor_data_type type;
    uint32_t elem, dims, sizes[MAXDIM], grid[MAXDIM];
    int fields; /* fields created on it: each field's message tag */
};

/* ---- the operator descriptor, copied (desc.c) ----------------------------------------
 * The layer creates tile operators after the caller's descriptor is gone (when a run's
 * fields have other ghost boxes than creation assumed), so it keeps its own copy. */
typedef struct desc_copy {
    dmlcl_operator_type type;
    union {
        dmlcl_resample_desc r0;
        dmlcl_resample1_desc r1;
        dmlcl_resample2_desc r2;
        dmlcl_resample_grad1_desc g1;
        dmlcl_resample3_desc r3;
        dmlcl_reverse_subsequences_desc rs;
    } u;
    dmlcl_tensor_desc in, out, len; /* len: REVERSE_SUBSEQUENCES' sequence lengths */
    uint32_t in_sizes[MAXDIM], out_sizes[MAXDIM], in_strides[MAXDIM], out_strides[MAXDIM];
    uint32_t len_sizes[MAXDIM], len_strides[MAXDIM];
    float scales[MAXDIM], in_offsets[MAXDIM], out_offsets[MAXDIM];
    dmlcl_operator_desc op;
} desc_copy;

/* Copies a valid descriptor of the RESAMPLE family or REVERSE_SUBSEQUENCES (the whole
 * tensors, packed). Errors: UNSUPPORTED for other operators. */
dmlcl_status desc_copy_init(desc_copy *c, const dmlcl_operator_desc *d);
/* *tile = whole with the tensors' sizes and strides replaced (REVERSE_SUBSEQUENCES: the
 * lengths' sizes are the input's with the axis 1 long, their strides len_strides). */
void desc_copy_tile(const desc_copy *whole, desc_copy *tile, const uint32_t *in_sizes,
                    const uint32_t *in_strides, const uint32_t *out_sizes,
                    const uint32_t *out_strides, const uint32_t *len_strides);
/* The operator's data input and output tensors of a descriptor (NULL if unknown type). */
const dmlcl_tensor_desc *desc_input(const dmlcl_operator_desc *d);
const dmlcl_tensor_desc *desc_output(const dmlcl_operator_desc *d);

/* ---- fields and their halo exchange (field.c, face_exchange.c) ------------------------- */
typedef struct face {
    int rank;
    box region;       /* global indices, inside the field's ghost box */
    uint64_t bytes;   /* of the region */
    uint64_t at;      /* its place in the staging memory */
} face;

typedef struct exchange {
    face *send, *recv;
    int nsend, nrecv;
    cl_mem staging;     /* pinned host memory (CL_MEM_ALLOC_HOST_PTR), mapped once */
    unsigned char *host;
    uint64_t staging_bytes;
    MPI_Request *req;
    int nreq;
    cl_event last_write; /* the ghosts' writes read staging until this completes */
    cl_command_queue xq; /* the ghosts' writes: a queue of their own, so they run while the
                          * interior's kernel (which reads no ghost) runs on the context's */
    int in_flight;
    int timed_out;        /* an update's requests ran out of time: the field is done */
    dmlcl_status pending; /* a failure of begin, reported (agreed) by end */
} exchange;

struct dmlcl_mpi_field {
    dmlcl_context *ctx;
    const dmlcl_mpi_layout *layout;
    box owned, ghost, needed;
    uint64_t stride[MAXDIM]; /* elements: the ghost box packed row-major */
    cl_mem buffer;
    uint64_t offset;
    int owns_buffer, tag;
    exchange ex;
    dmlcl_mpi_halo_stats stats;
};

/* Makes a field whose ghost box holds needed_all[its rank] (every rank's read box, as the
 * face exchange plans from them); found: a failure the caller found, agreed like the
 * field's own (field.c). Collective. */
dmlcl_status field_create(dmlcl_context *context, const dmlcl_mpi_layout *layout,
                          const box *needed_all, dmlcl_status found,
                          const dmlcl_buffer_binding *buffer, dmlcl_mpi_field **out);
/* Copies region (inside the ghost box) between the device buffer and a packed host array
 * of it, enqueued (not blocking); *event: the last command's (field_rect.c). */
cl_int field_rect(const dmlcl_mpi_field *f, cl_command_queue q, const box *region, void *host,
                  int read,
                  cl_event *event);
/* Plans the exchange from every rank's needed box (face_exchange.c); local. */
dmlcl_status exchange_plan(dmlcl_mpi_field *f, const box *needed_all);
void exchange_free(exchange *ex, cl_command_queue q);

/* 1 if op's input layout is l (operator.c). */
int operator_reads(const dmlcl_mpi_operator *op, const dmlcl_mpi_layout *l);

#endif
