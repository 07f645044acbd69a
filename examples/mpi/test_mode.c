/* The example's test mode on the MPI layer (dmlcl_mpi.h): one case on one grid, the field
 * resident on each rank's device, the halo faces moved by the layer, the interior
 * overlapped with them; root gathers the output boxes and compares them with one device's
 * run of the whole tensors, byte for byte. Part of dmlcl's MPI example. */
#include "example.h"

#include <dmlcl_mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The negative test: after the halo update, change every ghost element (read, not owned)
 * in the device buffer, so that any output reading one must differ from the reference. */
static void corrupt_ghosts(rjob *j, cl_command_queue q)
{
    dmlcl_mpi_box ghost, needed;
    uint64_t offset;
    cl_mem buf = dmlcl_mpi_field_buffer(j->fi, &ghost, NULL, &offset);
    dmlcl_mpi_operator_input_box(j->op, -1, &needed);
    halo_box g = to_halo(&ghost), nb = to_halo(&needed), ob = to_halo(&j->owned);
    uint64_t n = halo_box_count(&g);
    if (!n)
        return;
    const uint32_t elem = dmlcl_data_type_size(j->c->data_type);
    unsigned char *data = xmalloc(n * elem);
    check_cl(clEnqueueReadBuffer(q, buf, CL_TRUE, offset, n * elem, data, 0, NULL, NULL),
             "clEnqueueReadBuffer (ghosts)");
    uint32_t i[DIMS] = {0};
    for (uint64_t k = 0; k < n; k++) {
        int in_needed = 1, in_owned = halo_box_count(&ob) > 0;
        for (int d = 0; d < DIMS; d++) {
            uint32_t x = g.start[d] + i[d];
            in_needed &= x - nb.start[d] < nb.size[d];
            in_owned &= x - ob.start[d] < ob.size[d];
        }
        if (in_needed && !in_owned) /* the top exponent bit: no rounding hides it */
            data[k * elem + elem - 1] ^= 0x40;
        for (int d = DIMS - 1; d >= 0 && ++i[d] == g.size[d]; d--)
            i[d] = 0;
    }
    check_cl(clEnqueueWriteBuffer(q, buf, CL_TRUE, offset, n * elem, data, 0, NULL, NULL),
             "clEnqueueWriteBuffer (ghosts)");
    free(data);
}

/* The facts that make a decomposition interesting, on root from the layouts and the
 * halo query: empty output boxes, the thinnest non-empty owned box and the widest halo
 * along the cut dimensions, the most ranks a box's input comes from. */
static void describe(const rjob *j, MPI_Comm comm, const uint32_t *grid, char *s, size_t n)
{
    int ranks, most = 0;
    dmlcl_mpi_halo_stats hs;
    dmlcl_mpi_field_halo_stats(j->fi, &hs);
    int sources = (int)hs.receive_ranks;
    MPI_Comm_size(comm, &ranks);
    MPI_Reduce(&sources, &most, 1, MPI_INT, MPI_MAX, 0, comm);
    int empty = 0;
    uint32_t thinnest = UINT32_MAX, widest = 0;
    for (int r = 0; r < ranks; r++) {
        dmlcl_mpi_box out, owned, needed;
        dmlcl_mpi_layout_box(j->lo, r, &out);
        dmlcl_mpi_layout_box(j->li, r, &owned);
        dmlcl_mpi_operator_input_box(j->op, r, &needed);
        halo_box ho = to_halo(&out), hw = to_halo(&owned), hn = to_halo(&needed);
        empty += halo_box_count(&ho) == 0;
        for (int d = 0; d < DIMS; d++) {
            if (grid[d] == 1)
                continue;
            if (halo_box_count(&hw) && owned.sizes[d] < thinnest)
                thinnest = owned.sizes[d];
            if (!halo_box_count(&hn))
                continue;
            int64_t below = (int64_t)owned.start[d] - needed.start[d];
            int64_t above = ((int64_t)needed.start[d] + needed.sizes[d]) -
                            ((int64_t)owned.start[d] + owned.sizes[d]);
            int64_t halo = halo_box_count(&hw) ? (below > above ? below : above)
                                               : (int64_t)needed.sizes[d];
            if (halo > (int64_t)widest)
                widest = (uint32_t)halo;
        }
    }
    snprintf(s, n, "%d empty tile%s, thinnest tile %u, widest halo %u%s, up to %d source%s",
             empty, empty == 1 ? "" : "s", thinnest == UINT32_MAX ? 0 : thinnest, widest,
             thinnest < widest ? " (a tile thinner than the halo)" : "", most,
             most == 1 ? "" : "s");
}

/* Root: PASS or FAIL, the facts, every rank's time and the efficiency. */
static int report(const rjob *j, dmlcl_context *ctx, const uint32_t *grid, const void *got,
                  const double *times, int ranks, const char *facts)
{
    double whole_ms, slowest = 0;
    void *want = whole_run(ctx, j->c, &j->whole, &whole_ms);
    int pass = whole_compare(&j->whole, dmlcl_data_type_size(j->c->data_type), got, want,
                             ranks, grid);
    const uint32_t *wi = j->whole.in_sizes, *wo = j->whole.out_sizes;
    printf("%s %-14s grid %ux%ux%u  %ux%ux%u -> %ux%ux%u  %s\n", pass ? "PASS" : "FAIL",
           j->c->name, grid[0], grid[1], grid[2], wi[0], wi[1], wi[2], wo[0], wo[1], wo[2], facts);
    printf("     ms per rank (halo update + run, the MPI layer):");
    for (int r = 0; r < ranks; r++) {
        printf(" %.2f", times[r]);
        slowest = times[r] > slowest ? times[r] : slowest;
    }
    printf("; whole field on one device %.2f ms; efficiency %.2f\n", whole_ms,
           whole_ms / (ranks * slowest));
    free(want);
    return pass;
}

int layer_check_case(MPI_Comm comm, dmlcl_context *ctx, const case_spec *c,
                     const uint32_t *field, const uint32_t *grid, int corrupt, int verbose)
{
    int ranks, rank;
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_rank(comm, &rank);
    cl_command_queue q = dmlcl_context_queue(ctx);
    rjob j;
    const uint32_t elem = dmlcl_data_type_size(c->data_type);
    watch("a test case: setup", verbose);
    rjob_setup(&j, comm, ctx, c, field, grid, DMLCL_MPI_OVERLAP);
    watch("a test case: the run", verbose);

    quiet_barrier(comm); /* start together: the times are then comparable */
    stall_if_asked();
    double t0 = now_ms();
    if (corrupt != -1) { /* every rank updates apart (the same collectives); one corrupts */
        lcheck(dmlcl_mpi_halo_update(j.fi), "dmlcl_mpi_halo_update");
        if (corrupt == rank || corrupt == CORRUPT_ALL)
            corrupt_ghosts(&j, q);
        rjob_run(&j, DMLCL_MPI_HALO_CURRENT);
    } else {
        rjob_run(&j, 0);
    }
    check_cl(clFinish(q), "clFinish");
    double ms = now_ms() - t0;
    if (verbose) {
        dmlcl_mpi_box needed;
        dmlcl_mpi_operator_input_box(j.op, -1, &needed);
        printf("# rank %d %s: output [%u+%u, %u+%u, %u+%u] reads [%u+%u, %u+%u, %u+%u]\n", rank,
               c->name, j.out.start[0], j.out.sizes[0], j.out.start[1], j.out.sizes[1],
               j.out.start[2], j.out.sizes[2], needed.start[0], needed.sizes[0], needed.start[1],
               needed.sizes[1], needed.start[2], needed.sizes[2]);
    }

    watch("a test case: the gather and the check", verbose);
    halo_box all = {DIMS, {0}, {0}}, mine = to_halo(&j.out);
    memcpy(all.size, j.whole.out_sizes, sizeof j.whole.out_sizes);
    void *out = xmalloc(halo_box_count(&mine) * elem);
    lcheck(dmlcl_mpi_field_read(j.fo, out), "dmlcl_mpi_field_read");
    void *got = rank == 0 ? xmalloc(halo_box_count(&all) * elem) : NULL;
    if (halo_gather(comm, 0, elem, &mine, out, &all, got) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: halo_gather failed\n", world_rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *times = rank == 0 ? xmalloc(sizeof *times * (size_t)ranks) : NULL;
    MPI_Gather(&ms, 1, MPI_DOUBLE, times, 1, MPI_DOUBLE, 0, comm);
    char facts[200];
    describe(&j, comm, grid, facts, sizeof facts);
    int pass = rank == 0 ? report(&j, ctx, grid, got, times, ranks, facts) : 1;
    MPI_Bcast(&pass, 1, MPI_INT, 0, comm);
    free(out), free(got), free(times);
    rjob_free(&j);
    return pass;
}

void stall_if_asked(void)
{
    const char *v = getenv("DMLCL_MPI_EXAMPLE_STALL");
    int who = -1;
    unsigned seconds = 0;
    if (!v || sscanf(v, "%d:%u", &who, &seconds) != 2 || who != world_rank)
        return;
    fprintf(stderr, "rank %d: DMLCL_MPI_EXAMPLE_STALL: asleep %u s before the first step\n",
            world_rank, seconds);
    nanosleep(&(struct timespec){(time_t)seconds, 0}, NULL);
}
