/* What the MPI layer's files share: its objects, boxes and errors. Built on the public
 * API only (dmlcl.h, dmlcl_mpi.h): the layer is a library of its own on top of libdmlcl,
 * and it holds and retiles operator descriptors through libdmlcl's (dmlcl_operator_desc_copy,
 * dmlcl_operator_create_tile_box), so it names no operator's descriptor struct. */
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
double mpil_now_s(void); /* CLOCK_MONOTONIC */
dmlcl_status mpil_event_wait(cl_event e, const char *what);
/* dmlcl_mpi_halo_begin in two halves, so that a run can enqueue its interior before the
 * host waits for the faces' reads. reads: the receives posted and the faces' reads
 * enqueued on the field's own queue after `after` (an event of the context's queue that
 * follows whatever wrote the field; NULL: a marker of the field's context queue made
 * here), *reads the last one's event (NULL for none); sends: that event waited for (and
 * released), the sends posted. */
dmlcl_status mpil_halo_reads(dmlcl_mpi_field *f, cl_event after, cl_event *reads);
dmlcl_status mpil_halo_sends(dmlcl_mpi_field *f, cl_event reads);
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
    cl_command_queue xq; /* the faces' reads and the ghosts' writes: a queue of their own,
                          * so they run while the interior's kernel (which reads owned
                          * elements only) runs on the context's */
    int in_flight;
    int posted, post_err; /* between begin's halves: requests posted, the receives' error */
    int timed_out;        /* an update's requests ran out of time: the field is done */
    /* The last update's timeline (a run's profile, profile.c): with `profile` (xq made
     * with CL_QUEUE_PROFILING_ENABLE) span[SPAN_*], the events of its first and last face
     * read and ghost write; always, the host's waits. */
    int profile;
    cl_event span[4];
    double sends_at_s, reads_wait_ms, exchange_ms;
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
 * field's own; profile: its halo's queue profiles (field.c). Collective. */
dmlcl_status field_create(dmlcl_context *context, const dmlcl_mpi_layout *layout,
                          const box *needed_all, dmlcl_status found, int profile,
                          const dmlcl_buffer_binding *buffer, dmlcl_mpi_field **out);
/* Copies region (inside the ghost box) between the device buffer and a packed host array
 * of it, enqueued (not blocking); *event: the last command's; first (may be NULL): where
 * still NULL, the first command's, retained (field_rect.c). */
cl_int field_rect(const dmlcl_mpi_field *f, cl_command_queue q, const box *region, void *host,
                  int read, cl_event *event, cl_event *first);
/* Plans the exchange from every rank's needed box (face_exchange.c); local. */
dmlcl_status exchange_plan(dmlcl_mpi_field *f, const box *needed_all);
void exchange_free(exchange *ex, cl_command_queue q);

/* 1 if op's input layout is l; 1 if op was made with DMLCL_MPI_PROFILE (operator.c). */
int operator_reads(const dmlcl_mpi_operator *op, const dmlcl_mpi_layout *l);
int operator_profiles(const dmlcl_mpi_operator *op);

/* ---- a run's profile (profile.c): the events of DMLCL_MPI_PROFILE's timeline ---------- */
enum { SPAN_READ0, SPAN_READ1, SPAN_WRITE0, SPAN_WRITE1, SPAN_KERNEL, SPAN_SLAB0, SPAN_SLAB1,
       SPANS };
typedef struct run_spans {
    cl_event ev[SPANS]; /* NULL: the run had no such command, or it was not timed */
    double reads_wait_ms, exchange_ms;
    int runs;
} run_spans;
void spans_release(cl_event *ev, int n);
/* The profile of a finished run: INVALID_ARGUMENT if a command has not finished. */
dmlcl_status spans_profile(const run_spans *r, dmlcl_mpi_run_profile *p);

#endif
