/* Layouts: a tensor cut over a grid of ranks, the same on every rank. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* What every rank must agree on, sent as bytes. */
typedef struct layout_key {
    int32_t type;
    uint32_t dims, sizes[MAXDIM], grid[MAXDIM];
} layout_key;

/* Every rule that one rank can check alone, before any MPI or OpenCL call. */
static dmlcl_status validate(MPI_Comm comm, dmlcl_tensor_data_type type, uint32_t dims,
                             const uint32_t *sizes, const uint32_t *grid,
                             dmlcl_mpi_layout **out)
{
    int ranks = 0;
    if (!out)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "out is NULL");
    if (mpil_timeout_check() != DMLCL_SUCCESS)
        return DMLCL_INVALID_ARGUMENT;
    if (dmlcl_data_type_size(type) == 0)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "data_type %d is not a data type", (int)type);
    if (dims < 1 || dims > MAXDIM)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "dimension_count must be 1..%d, got %u",
                         MAXDIM, dims);
    if (!sizes || !grid)
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "%s is NULL", sizes ? "grid" : "sizes");
    uint64_t cells = 1;
    for (uint32_t d = 0; d < dims; d++) {
        if (sizes[d] == 0)
            return mpil_fail(DMLCL_INVALID_ARGUMENT, "sizes[%u] is 0", d);
        if (grid[d] == 0)
            return mpil_fail(DMLCL_INVALID_ARGUMENT, "grid[%u] is 0", d);
        cells *= grid[d];
    }
    MPI_Comm_size(comm, &ranks);
    if (cells != (uint64_t)ranks)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "the grid has %llu cells for %d ranks: their product must equal the "
                         "communicator's size",
                         (unsigned long long)cells, ranks);
    return DMLCL_SUCCESS;
}

/* The first field in which rank r's key differs from rank 0's, as a message. */
static dmlcl_status compare_keys(const layout_key *keys, int ranks)
{
    for (int r = 1; r < ranks; r++) {
        const layout_key *a = &keys[0], *b = &keys[r];
        const char *field = NULL;
        uint32_t d = 0, va = 0, vb = 0;
        if (a->type != b->type)
            field = "data_type", va = (uint32_t)a->type, vb = (uint32_t)b->type;
        else if (a->dims != b->dims)
            field = "dimension_count", va = a->dims, vb = b->dims;
        for (d = 0; !field && d < a->dims; d++)
            if (a->sizes[d] != b->sizes[d])
                field = "sizes", va = a->sizes[d], vb = b->sizes[d];
            else if (a->grid[d] != b->grid[d])
                field = "grid", va = a->grid[d], vb = b->grid[d];
        if (!field)
            continue;
        if (!strcmp(field, "sizes") || !strcmp(field, "grid"))
            return mpil_fail(DMLCL_INVALID_ARGUMENT,
                             "dmlcl_mpi_layout_create: rank %d's %s[%u] is %u, rank 0's %u: "
                             "every rank must pass the same tensor and grid",
                             r, field, d - 1, vb, va);
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "dmlcl_mpi_layout_create: rank %d's %s is %u, rank 0's %u: every rank "
                         "must pass the same tensor and grid",
                         r, field, vb, va);
    }
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl_mpi_layout_create(MPI_Comm comm, dmlcl_tensor_data_type data_type,
                                     uint32_t dimension_count, const uint32_t *sizes,
                                     const uint32_t *grid, dmlcl_mpi_layout **out)
{
    if (comm == MPI_COMM_NULL) /* nobody to agree with */
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "dmlcl_mpi_layout_create: comm is MPI_COMM_NULL");
    if (out)
        *out = NULL;
    dmlcl_status st = validate(comm, data_type, dimension_count, sizes, grid, out);
    if ((st = mpil_agree(comm, "dmlcl_mpi_layout_create", st)) != DMLCL_SUCCESS)
        return st;

    int ranks, rank;
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_rank(comm, &rank);
    layout_key mine, *keys = calloc((size_t)ranks, sizeof *keys);
    dmlcl_mpi_layout *l = calloc(1, sizeof *l);
    memset(&mine, 0, sizeof mine);
    mine.type = (int32_t)data_type;
    mine.dims = dimension_count;
    memcpy(mine.sizes, sizes, sizeof *sizes * dimension_count);
    memcpy(mine.grid, grid, sizeof *grid * dimension_count);
    st = keys && l ? DMLCL_SUCCESS : mpil_fail(DMLCL_OUT_OF_MEMORY, "out of host memory");
    if ((st = mpil_agree(comm, "dmlcl_mpi_layout_create", st)) != DMLCL_SUCCESS)
        goto fail;
    int err = MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, keys, (int)sizeof mine, MPI_BYTE,
                            comm);
    if (err != MPI_SUCCESS) {
        st = mpil_mpi_fail("dmlcl_mpi_layout_create: MPI_Allgather", err);
        goto fail;
    }
    /* Every rank holds every key, so every rank finds the same first difference. */
    if ((st = compare_keys(keys, ranks)) != DMLCL_SUCCESS)
        goto fail;

    /* Our own communicator: the layer's messages never match the caller's, and an MPI
     * error comes back as a status instead of ending the job. */
    err = MPI_Comm_dup(comm, &l->comm);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_set_errhandler(l->comm, MPI_ERRORS_RETURN);
    if (err != MPI_SUCCESS) {
        st = mpil_mpi_fail("dmlcl_mpi_layout_create: MPI_Comm_dup", err);
        goto fail;
    }
    l->rank = rank, l->size = ranks;
    l->type = data_type;
    l->elem = dmlcl_data_type_size(data_type);
    l->dims = dimension_count;
    memcpy(l->sizes, sizes, sizeof *sizes * dimension_count);
    memcpy(l->grid, grid, sizeof *grid * dimension_count);
    free(keys);
    *out = l;
    return DMLCL_SUCCESS;
fail:
    free(keys);
    free(l);
    return st;
}

void dmlcl_mpi_layout_release(dmlcl_mpi_layout *layout)
{
    if (!layout)
        return;
    MPI_Comm_free(&layout->comm);
    free(layout);
}

void dmlcl_mpi_layout_box(const dmlcl_mpi_layout *l, int rank, dmlcl_mpi_box *b)
{
    box_grid(l->dims, l->sizes, l->grid, rank < 0 ? l->rank : rank, b);
}
