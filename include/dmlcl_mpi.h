/*
 * dmlcl_mpi: dmlcl operators on fields distributed over the ranks of an MPI job, the
 * fields kept on each rank's device between steps and only halo faces moved.
 *
 * The model is PETSc's DMDA: a layout cuts a tensor over a grid of ranks (each rank owns
 * one box); a field is one rank's OpenCL buffer of its owned box plus the ghost (halo)
 * elements an operator reads, the owned region inside it; a halo update reads the faces
 * other ranks need straight from the device buffers, exchanges them with non-blocking MPI
 * and writes them into the ghost regions; a distributed operator updates the halo and runs
 * the tile operator (dmlcl_operator_create_tile) on every rank, reading the ghosted buffer
 * through strides. What a rank needs is what dmlcl_operator_input_box() says its output
 * box reads, so the halo is exact per operator and per box. Guide: doc/mpi.md; manual
 * page: dmlcl_mpi(3).
 *
 * Build: mpicc prog.c $(pkg-config --cflags --libs dmlcl-mpi).
 *
 * Collective calls (marked so) are called by every rank of the layout's communicator, in
 * the same order, also by ranks whose boxes are empty. Their errors are agreed: when any
 * rank fails, every rank returns the failing rank's status, and dmlcl_mpi_last_error()
 * says on every rank "FUNCTION: rank R: RULE" (the lowest failing rank), so no rank is
 * left waiting and no partial result is reported as success. MPI never aborts: the
 * layer's communicators return MPI errors, reported as DMLCL_IO_ERROR naming the MPI
 * call. Every wait on a peer or on the device lasts at most DMLCL_MPI_TIMEOUT seconds
 * (environment, default 300): a halo update that runs out is an agreed DMLCL_IO_ERROR
 * naming the wait (operation, peer rank, bytes); where the agreement itself runs out (a
 * rank gone), the rank prints why and calls MPI_Abort (error code 3), the one place the
 * layer ends the job. Not thread-safe: one thread per rank calls it.
 */
#ifndef DMLCL_MPI_H
#define DMLCL_MPI_H

#include <dmlcl.h>
#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A box of a tensor: global index of its first element and its size per dimension
 * (HDF5's hyperslab start and count). A box with a size of 0 is empty (start 0). */
typedef struct dmlcl_mpi_box {
    uint32_t dimension_count;
    uint32_t start[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    uint32_t sizes[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
} dmlcl_mpi_box;

/* Message for the last failing dmlcl_mpi call on this thread (never NULL). */
const char *dmlcl_mpi_last_error(void);

/* ------------------------------------------------------------------ layouts */

typedef struct dmlcl_mpi_layout dmlcl_mpi_layout;

/* Collective. A tensor of data_type and sizes (dimension_count values, 1..8) cut by a
 * grid of grid[0] x ... x grid[n-1] ranks (their product is the communicator's size):
 * dimension d in grid[d] parts, the first sizes[d] % grid[d] parts one element longer,
 * parts past the elements empty; ranks numbered row-major over the grid (the last
 * dimension fastest, as MPI_Cart_create numbers them). comm is duplicated. Every rank
 * must pass the same type, sizes and grid. Errors: INVALID_ARGUMENT (a rule, or ranks that
 * disagree: the message names the rank and the field), OUT_OF_MEMORY, IO_ERROR. */
dmlcl_status dmlcl_mpi_layout_create(MPI_Comm comm, dmlcl_tensor_data_type data_type,
                                     uint32_t dimension_count, const uint32_t *sizes,
                                     const uint32_t *grid, dmlcl_mpi_layout **out);

/* Collective (frees the duplicated communicator once nothing uses it). NULL is ignored. */
void dmlcl_mpi_layout_release(dmlcl_mpi_layout *layout);

/* The box rank owns (rank < 0: this rank's). */
void dmlcl_mpi_layout_box(const dmlcl_mpi_layout *layout, int rank, dmlcl_mpi_box *box);

/* ------------------------------------------------------------------ operators */

typedef struct dmlcl_mpi_operator dmlcl_mpi_operator;

/* dmlcl_mpi_operator_create flags. */
#define DMLCL_MPI_OVERLAP 1u /* run: interior outputs while the halo is in flight, then the rest */
#define DMLCL_MPI_PROFILE 4u /* runs keep their commands' events: dmlcl_mpi_operator_profile */

/* Collective. desc: any libdmlcl operator (the RESAMPLE family, REVERSE_SUBSEQUENCES) on the
 * whole (logical) tensors, held through dmlcl_operator_desc_copy (the caller's may go),
 * whose data input (RESAMPLE_GRAD1: the input gradient) is laid out by
 * `input` and output by `output` (same sizes and data type, same communicator;
 * REVERSE_SUBSEQUENCES: both grids alike, 1 along the axis, so a sequence and its length
 * stay on one rank; its lengths are a field given to dmlcl_mpi_operator_run_inputs). Each rank computes its
 * output box, reading the input box dmlcl_operator_input_box() gives for it; the tile
 * operators are created here (with DMLCL_MPI_OVERLAP also one for the outputs that read
 * only owned elements and one per boundary slab). context: this rank's; it must outlive
 * the operator. DMLCL_MPI_PROFILE needs a context queue made with
 * CL_QUEUE_PROFILING_ENABLE (dmlcl_context_create's own queue is). Errors: INVALID_ARGUMENT
 * (descriptor, layouts, flags), as dmlcl_operator_create_tile_box, all agreed. */
dmlcl_status dmlcl_mpi_operator_create(dmlcl_context *context, const dmlcl_operator_desc *desc,
                                       const dmlcl_mpi_layout *input,
                                       const dmlcl_mpi_layout *output, uint32_t flags,
                                       dmlcl_mpi_operator **out);

/* Not collective. NULL is ignored. */
void dmlcl_mpi_operator_release(dmlcl_mpi_operator *op);

/* The input box rank's outputs read (rank < 0: this rank's); empty for an empty output. */
void dmlcl_mpi_operator_input_box(const dmlcl_mpi_operator *op, int rank, dmlcl_mpi_box *box);

/* ------------------------------------------------------------------ fields */

typedef struct dmlcl_mpi_field dmlcl_mpi_field;

/* Collective. This rank's part of a tensor laid out by layout, in one buffer of the
 * context's device: the ghost box (the smallest box holding the owned box and the input
 * box of reader on this rank; reader NULL: the owned box), packed row-major. buffer NULL:
 * the layer allocates it; else the caller's (buffer->buffer of the context's cl_context,
 * offset a multiple of the element size, holding the ghost box's bytes; an empty ghost
 * box needs none). Errors: INVALID_ARGUMENT (reader of another layout, a buffer too small
 * or of another context), OUT_OF_MEMORY (a device buffer over the device's
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE, or the allocation failed), OPENCL_ERROR, all agreed. */
dmlcl_status dmlcl_mpi_field_create(dmlcl_context *context, const dmlcl_mpi_layout *layout,
                                    const dmlcl_mpi_operator *reader,
                                    const dmlcl_buffer_binding *buffer, dmlcl_mpi_field **out);

/* Not collective. NULL is ignored. */
void dmlcl_mpi_field_release(dmlcl_mpi_field *field);

/* The device buffer (NULL for an empty ghost box), its ghost box and owned box, and where
 * the ghost box starts in it (bytes). Any argument but field may be NULL. */
cl_mem dmlcl_mpi_field_buffer(const dmlcl_mpi_field *field, dmlcl_mpi_box *ghost,
                              dmlcl_mpi_box *owned, uint64_t *offset);

/* Not collective, blocking: copy this rank's owned box from (write) or to (read) a packed
 * row-major host array of it. Errors: OPENCL_ERROR. */
dmlcl_status dmlcl_mpi_field_write(dmlcl_mpi_field *field, const void *owned_data);
dmlcl_status dmlcl_mpi_field_read(dmlcl_mpi_field *field, void *owned_data);

/* Collective. Fills the ghost region of every rank's field with the owners' elements:
 * only the elements a rank reads and does not own move, each face read from the owner's
 * device buffer (clEnqueueReadBufferRect into pinned staging), sent with non-blocking
 * point-to-point MPI to the ranks that need it and written into their ghost regions
 * (clEnqueueWriteBufferRect). begin posts the receives, reads and sends; end waits and
 * writes (enqueued: kernels enqueued after it see the ghosts). update = begin + end.
 * Errors: OPENCL_ERROR, IO_ERROR (MPI), INVALID_ARGUMENT (end without begin), agreed in end. */
dmlcl_status dmlcl_mpi_halo_begin(dmlcl_mpi_field *field);
dmlcl_status dmlcl_mpi_halo_end(dmlcl_mpi_field *field);
dmlcl_status dmlcl_mpi_halo_update(dmlcl_mpi_field *field);

/* What this rank's halo updates moved since the field was created (for reports and for
 * tests that only faces move). */
typedef struct dmlcl_mpi_halo_stats {
    uint64_t updates;        /* halo updates completed */
    uint64_t bytes_sent;     /* element bytes sent to other ranks */
    uint64_t bytes_received; /* element bytes received into the ghost region */
    uint32_t send_ranks;     /* ranks one update sends to */
    uint32_t receive_ranks;  /* ranks one update receives from */
} dmlcl_mpi_halo_stats;

void dmlcl_mpi_field_halo_stats(const dmlcl_mpi_field *field, dmlcl_mpi_halo_stats *stats);

/* dmlcl_mpi_operator_run flags. */
#define DMLCL_MPI_HALO_CURRENT 2u /* the input's ghosts are current: no halo update */

/* Collective. Updates input's halo and enqueues the tile operator on every rank, on the
 * context's queue (clFinish or a read waits for it): output's owned box gets this rank's
 * outputs, bit for bit the whole run's. input: a field of the operator's input layout
 * created with op as its reader; output: a field of its output layout. With
 * DMLCL_MPI_OVERLAP (at creation) the interior starts at once, on the context's queue,
 * while the faces are read (on a queue of the field's own) and in flight, and the
 * boundary slabs, once the ghosts are in, on a second queue of the device beside it (a
 * barrier on the context's queue keeps the caller's order).
 * Errors: INVALID_ARGUMENT (fields of other layouts, a ghost box that lacks the halo, the
 * same field twice), as dmlcl_operator_enqueue and the halo update, all agreed. */
dmlcl_status dmlcl_mpi_operator_run(dmlcl_mpi_operator *op, dmlcl_mpi_field *input,
                                    dmlcl_mpi_field *output, uint32_t flags);

/* Collective. dmlcl_mpi_operator_run with the operator's input fields in descriptor order:
 * REVERSE_SUBSEQUENCES reads two, input and sequence_lengths (a field, created without a
 * reader, of a layout of the sequence_lengths_tensor cut by the input layout's grid: a
 * rank's lengths are those of its box); the RESAMPLE family one. Errors as
 * dmlcl_mpi_operator_run, and INVALID_ARGUMENT for another count or a lengths field of
 * another tensor, grid or box, all agreed. */
dmlcl_status dmlcl_mpi_operator_run_inputs(dmlcl_mpi_operator *op,
                                           dmlcl_mpi_field *const *inputs, uint32_t input_count,
                                           dmlcl_mpi_field *output, uint32_t flags);

/* Where the time of op's last run went (op made with DMLCL_MPI_PROFILE), in ms. Device
 * phases are OpenCL profiling times, from the start of the run's first device command
 * (each phase: its first command's start and its length to its last command's end);
 * host phases, the host's waits. -1: the run had no such phase (no faces, no overlap,
 * DMLCL_MPI_HALO_CURRENT), or it was not timed: the faces' reads and the ghosts' writes
 * are timed where the input field was created with op as its reader (its own queue then
 * profiles). A tile of several launches (past 2^31 elements) is timed by its completion
 * marker. */
typedef struct dmlcl_mpi_run_profile {
    double reads_start_ms, reads_ms;   /* device: the faces' reads into host memory */
    double kernel_start_ms, kernel_ms; /* device: the interior (without overlap: the tile) */
    double writes_start_ms, writes_ms; /* device: the ghosts' writes */
    double slabs_start_ms, slabs_ms;   /* device: the boundary slabs */
    double device_ms;                  /* device: the first command's start to the last end */
    double reads_wait_ms;              /* host: waiting for the faces' reads */
    double exchange_ms;                /* host: the sends posted to the last request done */
} dmlcl_mpi_run_profile;

/* Not collective. The profile of op's last run, once its commands have finished (after
 * clFinish of the context's queue). Errors: INVALID_ARGUMENT (op NULL or made without
 * DMLCL_MPI_PROFILE, no run yet, a run not finished), and the message says which. */
dmlcl_status dmlcl_mpi_operator_profile(const dmlcl_mpi_operator *op,
                                        dmlcl_mpi_run_profile *profile);

/* Test hook: the next field buffer this rank allocates fails as if the device were out of
 * memory (on = 1), to test that every rank reports it. */
void dmlcl_mpi_test_fail_next_alloc(int on);

#ifdef __cplusplus
}
#endif
#endif /* DMLCL_MPI_H */
