/* The halo helper of examples/mpi on plain arrays, no dmlcl and no OpenCL: random global
 * arrays of 1-4 dimensions, cut by random grids (uneven, with empty cells where a grid
 * has more cells than elements), random needed boxes (empty ones too, boxes far from the
 * owned one, the whole array), element sizes 1, 2, 4, 8 and 12 bytes. After
 * halo_plan_exchange() every needed element must hold its global index's pattern; after
 * halo_gather() the whole array on root must. Run under mpiexec with any number of ranks
 * (tests/mpi/mpi_test.sh: 1 to 4). Exit status 0 when every configuration passed. */
#include "host_exchange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The same stream on every rank, so that every rank draws the same configuration. */
static uint64_t state = 0x9e3779b97f4a7c15u;
static uint32_t draw(uint32_t n) /* uniform-ish in [0, n) */
{
    state = state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)((state >> 33) % n);
}

/* Byte b of the element at global linear index g. */
static unsigned char pattern(uint64_t g, size_t b)
{
    return (unsigned char)((g * 2654435761u >> (b % 4 * 8)) + b * 17);
}

static uint64_t global_index(const halo_box *box, const uint32_t *sizes, uint64_t i)
{
    uint64_t g = 0, rest = i, div = halo_box_count(box);
    for (uint32_t d = 0; d < box->dims; d++) {
        div /= box->size[d];
        g = g * sizes[d] + box->start[d] + rest / div;
        rest %= div;
    }
    return g;
}

static void fill(const halo_box *box, const uint32_t *sizes, size_t elem, unsigned char *data)
{
    for (uint64_t i = 0; i < halo_box_count(box); i++)
        for (size_t b = 0; b < elem; b++)
            data[i * elem + b] = pattern(global_index(box, sizes, i), b);
}

/* Number of elements of data (a packed array of box) that do not hold their pattern. */
static uint64_t wrong(const halo_box *box, const uint32_t *sizes, size_t elem,
                      const unsigned char *data)
{
    uint64_t bad = 0;
    for (uint64_t i = 0; i < halo_box_count(box); i++)
        for (size_t b = 0; b < elem; b++)
            if (data[i * elem + b] != pattern(global_index(box, sizes, i), b)) {
                bad++;
                break;
            }
    return bad;
}

/* A grid of `ranks` cells over dims dimensions: the prime factors of ranks dealt to
 * random dimensions. */
static void random_grid(uint32_t dims, int ranks, uint32_t *grid)
{
    for (uint32_t d = 0; d < dims; d++)
        grid[d] = 1;
    for (uint32_t n = (uint32_t)ranks, f = 2; n > 1;) {
        if (n % f) {
            f++;
            continue;
        }
        grid[draw(dims)] *= f;
        n /= f;
    }
}

static void random_box(uint32_t dims, const uint32_t *sizes, halo_box *box)
{
    box->dims = dims;
    for (uint32_t d = 0; d < dims; d++) {
        box->start[d] = draw(sizes[d]);
        box->size[d] = 1 + draw(sizes[d] - box->start[d]);
    }
    switch (draw(8)) {
    case 0: /* empty (a rank whose output tile is empty needs nothing) */
        memset(box->start, 0, sizeof box->start);
        memset(box->size, 0, sizeof box->size);
        break;
    case 1: /* everything */
        memset(box->start, 0, sizeof box->start);
        memcpy(box->size, sizes, sizeof *sizes * dims);
        break;
    }
}

/* One configuration; returns the number of wrong elements on this rank. */
static uint64_t one_case(MPI_Comm comm, int rank, int ranks, int verbose)
{
    static const size_t elems[] = {1, 2, 4, 8, 12};
    uint32_t dims = 1 + draw(4), sizes[HALO_MAX_DIMS], grid[HALO_MAX_DIMS];
    size_t elem = elems[draw(5)];
    for (uint32_t d = 0; d < dims; d++)
        sizes[d] = 1 + draw(9);
    random_grid(dims, ranks, grid);
    halo_box owned, needed, whole = {dims, {0}, {0}};
    memcpy(whole.size, sizes, sizeof *sizes * dims);
    halo_grid_box(dims, sizes, grid, rank, &owned);
    for (int r = 0; r < ranks; r++) { /* draw every rank's box, keep ours */
        halo_box b;
        random_box(dims, sizes, &b);
        if (r == rank)
            needed = b;
    }

    unsigned char *mine = malloc(halo_box_count(&owned) * elem + 1);
    unsigned char *got = malloc(halo_box_count(&needed) * elem + 1);
    unsigned char *all = malloc(halo_box_count(&whole) * elem);
    halo_plan *plan = NULL;
    fill(&owned, sizes, elem, mine);
    memset(got, 0xa5, halo_box_count(&needed) * elem);
    int err = halo_plan_create(comm, elem, &owned, &needed, &plan);
    if (err == MPI_SUCCESS)
        err = halo_plan_exchange(plan, mine, got);
    if (err == MPI_SUCCESS)
        err = halo_gather(comm, 0, elem, &owned, mine, &whole, all);
    uint64_t bad = err != MPI_SUCCESS ? 1 : wrong(&needed, sizes, elem, got);
    if (rank == 0 && err == MPI_SUCCESS)
        bad += wrong(&whole, sizes, elem, all);
    if (verbose || bad)
        printf("rank %d: dims %u elem %zu grid %ux%ux%ux%u needed %llu from %d ranks: %s\n",
               rank, dims, elem, grid[0], dims > 1 ? grid[1] : 1, dims > 2 ? grid[2] : 1,
               dims > 3 ? grid[3] : 1, (unsigned long long)halo_box_count(&needed),
               plan ? halo_plan_sources(plan) : -1, bad ? "WRONG" : "ok");
    halo_plan_free(plan);
    free(mine);
    free(got);
    free(all);
    return bad;
}

/* halo_split and halo_box_intersect on their own (every rank checks, cheap). */
static int unit_checks(void)
{
    int bad = 0;
    for (uint32_t n = 0; n < 20; n++)
        for (uint32_t parts = 1; parts < 8; parts++) {
            uint32_t next = 0;
            for (uint32_t i = 0; i < parts; i++) {
                uint32_t s, z;
                halo_split(n, parts, i, &s, &z);
                bad |= (z && s != next) || z > n / parts + 1 || z + 1 < n / parts + 1;
                next += z;
            }
            bad |= next != n;
        }
    halo_box a = {2, {0, 0}, {4, 4}}, b = {2, {3, 4}, {2, 2}}, c = {2, {2, 1}, {5, 2}}, r;
    bad |= halo_box_intersect(&a, &b, &r) || halo_box_count(&r) != 0; /* touching: empty */
    bad |= !halo_box_intersect(&a, &c, &r) || r.start[0] != 2 || r.size[0] != 2 ||
           r.start[1] != 1 || r.size[1] != 2;
    return bad;
}

int main(int argc, char **argv)
{
    int rank, ranks, cases = argc > 1 ? atoi(argv[1]) : 200;
    int verbose = getenv("HALO_TEST_VERBOSE") != NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* Errors come back as codes, so that the test can say which configuration failed. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    unsigned long long bad = (unsigned long long)unit_checks();
    for (int i = 0; i < cases; i++)
        bad += one_case(MPI_COMM_WORLD, rank, ranks, verbose);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("host_exchange_test: %d ranks, %d configurations: %s (%llu wrong)\n", ranks, cases,
               bad ? "FAIL" : "PASS", bad);
    MPI_Finalize();
    return bad ? 1 : 0;
}
