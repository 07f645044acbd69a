/* The host exchange (its functions named halo_*): boxes of a domain-decomposed array and the MPI exchange that fills a rank's
 * halo (ghost) region from the ranks that own it. Part of dmlcl's MPI example; no dmlcl
 * or OpenCL in here, copy it into your own code.
 *
 * The model is PETSc's DMDA: a global array of up to 8 dimensions, each rank owning one
 * box of it (any decomposition: slabs, pencils, uneven or empty boxes) and needing
 * another box, which for dmlcl is what dmlcl_operator_input_box() says the rank's output
 * box reads. halo_plan_create() works out, once, which part of whose owned box lands where
 * in whose needed box (for every pair of ranks: the intersection of the receiver's needed
 * box with the sender's owned box); halo_plan_exchange() then moves the data, as often as
 * the caller likes, with one MPI_Neighbor_alltoallv over a graph of the ranks that really
 * exchange, so the cost grows with the neighbours, not with the number of ranks.
 *
 * Layout: every buffer is a packed row-major array of its box (last dimension fastest),
 * elements of elem_size bytes. A box of size 0 in any dimension is empty: its buffer may
 * be NULL.
 *
 * Errors: functions returning int give MPI_SUCCESS, an MPI error code, or
 * HALO_ERR_NOMEM, HALO_ERR_TOO_BIG (a message over MPI's int counts: split the field
 * further) or HALO_ERR_PEER (another rank failed). They are collective where they say so: every rank of the communicator calls
 * them, also a rank whose boxes are empty. */
#ifndef DMLCL_EXAMPLE_HOST_EXCHANGE_H
#define DMLCL_EXAMPLE_HOST_EXCHANGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define HALO_MAX_DIMS 8
#define HALO_ERR_NOMEM (-1)
#define HALO_ERR_TOO_BIG (-2)
#define HALO_ERR_PEER (-3) /* another rank failed; this one is fine */

/* A box of a global array: global index of its first element and its size, per dimension
 * (HDF5's hyperslab start and count). dims: 1..HALO_MAX_DIMS. Not dmlcl_mpi_box, the
 * box libdmlcl_mpi and the rest of the example use: this helper is to be copied into code
 * without dmlcl, so it includes no dmlcl header. */
typedef struct halo_box {
    uint32_t dims;
    uint32_t start[HALO_MAX_DIMS];
    uint32_t size[HALO_MAX_DIMS];
} halo_box;

/* Number of elements (0 for an empty box). */
uint64_t halo_box_count(const halo_box *box);

/* *out = a ∩ b (same dims). Returns 1 if it is not empty, else 0 (and *out has size 0). */
int halo_box_intersect(const halo_box *a, const halo_box *b, halo_box *out);

/* Copies the elements of region (inside both boxes) from src, a packed array of src_box,
 * to dst, a packed array of dst_box. Packing is dst_box == region, unpacking
 * src_box == region. */
void halo_box_copy(void *dst, const halo_box *dst_box, const void *src, const halo_box *src_box,
                   const halo_box *region, size_t elem_size);

/* The even split of n items into parts: part index gets [*start, *start + *size), the
 * first n % parts parts one item more. With more parts than items, the last parts are
 * empty. */
void halo_split(uint32_t n, uint32_t parts, uint32_t index, uint32_t *start, uint32_t *size);

/* The box of grid cell `rank` when a global array of `sizes` is cut by a grid of
 * grid[0] x ... x grid[dims-1] cells, each dimension split by halo_split(). Cells are
 * numbered row-major (the last dimension fastest, as MPI_Cart_create numbers them). */
void halo_grid_box(uint32_t dims, const uint32_t *sizes, const uint32_t *grid, int rank,
                   halo_box *box);

typedef struct halo_plan halo_plan;

/* Collective. owned: the box this rank holds; needed: the box it wants filled (it may
 * reach past the owned box, or not overlap it at all). Every element of needed must be
 * owned by exactly one rank: the owned boxes tile the array. The plan keeps copies; it
 * is tied to comm (which must outlive it) and to elem_size. */
int halo_plan_create(MPI_Comm comm, size_t elem_size, const halo_box *owned,
                     const halo_box *needed, halo_plan **out);

/* Collective. Fills needed_data (a packed array of the needed box) from every rank's
 * owned_data (a packed array of its owned box). The part this rank owns itself is copied
 * locally, the rest arrives through one MPI_Neighbor_alltoallv. */
int halo_plan_exchange(halo_plan *plan, const void *owned_data, void *needed_data);

/* Ranks this rank receives from / sends to (self excluded), and the elements received
 * from them; for reports and tests. */
int halo_plan_sources(const halo_plan *plan);
int halo_plan_destinations(const halo_plan *plan);
uint64_t halo_plan_received(const halo_plan *plan);

/* The owned and needed boxes of rank r, as given to halo_plan_create (either pointer may
 * be NULL). */
void halo_plan_boxes(const halo_plan *plan, int r, halo_box *owned, halo_box *needed);

/* NULL is ignored. Not collective. */
void halo_plan_free(halo_plan *plan);

/* Collective. Assembles a global array on root: every rank sends its box (mine, data: a
 * packed array of it; boxes may be empty and must not overlap); root writes each into
 * out, a packed array of `whole` (out and whole are read on root only). Messages go in
 * pieces of at most 1 GiB, so outputs past MPI's int counts are fine. */
int halo_gather(MPI_Comm comm, int root, size_t elem_size, const halo_box *mine,
                const void *data, const halo_box *whole, void *out);

#endif
