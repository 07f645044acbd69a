/* dmlcl on many devices and nodes: a 3-D field of floats, domain-decomposed over the
 * ranks of an MPI job, resampled tile by tile, every tile bit for bit the matching part
 * of the one-device result.
 *
 * The test mode (test_mode.c) runs each case through the MPI layer (dmlcl_mpi.h):
 *   1. two layouts cut the input and the output field by the same grid (slabs along Z,
 *      a 2-D grid over Z and Y, or any AxBxC); a rank's output box is what it computes;
 *   2. the distributed operator asks dmlcl which input box each output box reads
 *      (dmlcl_operator_input_box(), the halo query) and creates the rank's tile operators
 *      (dmlcl_operator_create_tile(), the interior apart so that it runs while the faces
 *      are in flight);
 *   3. the input field lives on the rank's device with ghosts for that halo; one
 *      dmlcl_mpi_operator_run() moves the faces (device -> pinned host -> MPI -> device)
 *      and runs the tiles.
 * Rank 0 then gathers the output boxes and compares them with its own run of the whole
 * tensors (dmlcl_operator_create), byte for byte: PASS or FAIL per case, exit status 1 on
 * any FAIL. Uneven cuts, empty tiles (more ranks than rows) and tiles thinner than the
 * halo (a rank reading from ranks beyond its neighbours) are all fine: the layer works
 * on any boxes. host_exchange.c (MPI_Neighbor_alltoallv on host arrays) remains
 * as the gather and as --bench --staged, the host-staged baseline (job_setup() below
 * shows the tile API with it, step by step).
 *
 * Cases, on every dimension (the decomposed ones too: cutting a resampled dimension is
 * where the tile API earns its keep): RESAMPLE1 linear 2x (pixel-centre offsets 0.5 /
 * -0.5), RESAMPLE1 nearest 0.5x, RESAMPLE3 antialiased linear 0.5x, RESAMPLE_GRAD1 of
 * linear 2x (its data input, the gradient, is the large field), and linear 2x in FLOAT16.
 *
 * Devices: each rank takes one from its node-local rank (MPI_COMM_TYPE_SHARED): the
 * (local rank mod GPUs)-th GPU of the node, else the CPU device; DMLCL_DEVICE, when set,
 * overrides this for every rank (dmlcl_context_create_default). Any number of GPUs per
 * node works; ranks share GPUs when there are more ranks than GPUs.
 *
 * --bench: weak scaling (--mb-per-rank N: the same input bytes per rank, the field grows
 * with the grid) or strong scaling (--mb-total N: one field, cut finer). Per rank: the
 * exchange time (the halo exchange), the upload of the input tile and the kernel time (the
 * operator on device buffers, to clFinish), medians of --iters runs after a warm-up;
 * rank 0 prints one table row with the slowest rank's times. The reference is measured
 * in the same job, first: rank 0 alone (the others wait without spinning) runs one
 * rank's share (weak) or the whole field (strong) through the same code on
 * MPI_COMM_SELF. Efficiency: weak t_ref / t_P, strong t_ref / (P t_P). scaling.sh runs
 * it for several rank counts and prints one table.
 *
 *   mpiexec -np 4 ./mpi_resample                  # every case, slab and 2-D grids
 *   mpiexec -np 4 ./mpi_resample --z 3 --grid slab --case nearest0.5x --verbose
 *   mpiexec -np 8 ./mpi_resample --bench --mb-per-rank 256 --case linear2x
 *
 * Environment: DMLCL_DEVICE (see above); DMLCL_MPI_EXAMPLE_CORRUPT=R (a rank, or all):
 * rank R changes every ghost element its halo update received, before computing (the
 * test that a broken halo is caught: a case where R receives anything must FAIL);
 * DMLCL_MPI_EXAMPLE_STALL=R:S: rank R sleeps S seconds before its first step (with
 * DMLCL_MPI_TIMEOUT below S, the job must end with the layer's message, not hang). */
#include <dmlcl.h>
#include <mpi.h>

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "example.h"
#include "host_exchange.h"


/* ------------------------------------------------------------------ errors */

int world_rank;

/* A dmlcl call failed: say where and why, and end the whole job (the other ranks would
 * wait forever in the next collective). */
void check(dmlcl_status st, const char *what)
{
    if (st == DMLCL_SUCCESS)
        return;
    fprintf(stderr, "rank %d: %s: %s: %s\n", world_rank, what, dmlcl_status_string(st),
            dmlcl_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void check_halo(int err, const char *what)
{
    if (err == MPI_SUCCESS)
        return;
    fprintf(stderr, "rank %d: %s failed (%d: %s)\n", world_rank, what, err,
            err == HALO_ERR_NOMEM     ? "out of memory"
            : err == HALO_ERR_TOO_BIG ? "a message over MPI's int counts"
                                      : "MPI error");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

void check_cl(cl_int err, const char *what)
{
    if (err == CL_SUCCESS)
        return;
    fprintf(stderr, "rank %d: %s failed: %s (%d)\n", world_rank, what,
            dmlcl_opencl_error_name(err), (int)err);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The watchdog: each phase of a run must end within 3 x DMLCL_MPI_TIMEOUT seconds (default
 * 900), or the rank says which phase it was in and exits, and mpiexec ends the job. It
 * covers what the MPI layer's own bounds do not: the example's blocking MPI calls and
 * clFinish. */
static const char *volatile phase = "start-up";
static double phase_t0;

static void on_alarm(int sig)
{
    char msg[256];
    (void)sig;
    int n = snprintf(msg, sizeof msg, "rank %d: the example's watchdog: no end of the phase "
                     "\"%s\" within 3 x DMLCL_MPI_TIMEOUT; exiting\n", world_rank, phase);
    if (n > 0)
        (void)!write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    _exit(3);
}

/* Three times the layer's bound: a halo wait and the agreement after it take up to two,
 * so where the layer can name the wait it does so first. */
double phase_limit_s(void)
{
    const char *v = getenv("DMLCL_MPI_TIMEOUT");
    return 3 * (v && atof(v) > 0 ? atof(v) : 300);
}

void watch(const char *what, int verbose)
{
    double t = MPI_Wtime();
    if (verbose && world_rank == 0 && phase_t0 > 0)
        printf("# %.1f s: %s\n", t - phase_t0, phase);
    phase = what, phase_t0 = t;
    if (verbose && world_rank == 0)
        fflush(stdout);
    alarm(what ? (unsigned)ceil(phase_limit_s()) : 0);
}

void *xmalloc(uint64_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "rank %d: out of memory (%llu bytes)\n", world_rank,
                (unsigned long long)bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ------------------------------------------------------------------ the cases */


static const case_spec CASES[] = {
    {"linear2x", DMLCL_OPERATOR_RESAMPLE1, DMLCL_INTERPOLATION_MODE_LINEAR, 2.0f, 0,
     DMLCL_TENSOR_DATA_TYPE_FLOAT32},
    {"nearest0.5x", DMLCL_OPERATOR_RESAMPLE1, DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 0.5f, 0,
     DMLCL_TENSOR_DATA_TYPE_FLOAT32},
    {"antialias0.5x", DMLCL_OPERATOR_RESAMPLE3, DMLCL_INTERPOLATION_MODE_LINEAR, 0.5f, 1,
     DMLCL_TENSOR_DATA_TYPE_FLOAT32},
    {"linear2x-grad", DMLCL_OPERATOR_RESAMPLE_GRAD1, DMLCL_INTERPOLATION_MODE_LINEAR, 2.0f, 0,
     DMLCL_TENSOR_DATA_TYPE_FLOAT32},
    {"linear2x-fp16", DMLCL_OPERATOR_RESAMPLE1, DMLCL_INTERPOLATION_MODE_LINEAR, 2.0f, 0,
     DMLCL_TENSOR_DATA_TYPE_FLOAT16},
    {"reverse", DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
     1.0f, 0, DMLCL_TENSOR_DATA_TYPE_FLOAT32},
};
#define CASE_COUNT (int)(sizeof CASES / sizeof CASES[0])

/* n resampled by scale: round(n * scale), at least 1. */
static uint32_t resized(uint32_t n, float scale)
{
    double m = floor((double)n * scale + 0.5);
    return m < 1 ? 1 : (uint32_t)m;
}

/* The operator's data input and output sizes for a field: a forward pass reads the field;
 * the backward pass (GRAD1) writes a gradient shaped like the field and reads one shaped
 * like the forward output. */
void case_sizes(const case_spec *c, const uint32_t *field, uint32_t *in, uint32_t *out)
{
    for (int d = 0; d < DIMS; d++) {
        uint32_t big = resized(field[d], c->scale);
        in[d] = c->type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? big : field[d];
        out[d] = c->type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? field[d] : big;
    }
}

/* ------------------------------------------------------------------ descriptors */


void op_desc_init(op_desc *o, const case_spec *c, const uint32_t *in_sizes,
                  const uint32_t *out_sizes)
{
    memset(o, 0, sizeof *o);
    for (int d = 0; d < DIMS; d++) {
        o->in_sizes[d] = in_sizes[d];
        o->out_sizes[d] = out_sizes[d];
        o->scales[d] = c->scale;
        o->in_offsets[d] = 0.5f; /* pixel centres, as DirectML's RESAMPLE */
        o->out_offsets[d] = -0.5f;
    }
    o->in = (dmlcl_tensor_desc){c->data_type, DIMS, o->in_sizes, NULL, 0};
    o->out = (dmlcl_tensor_desc){c->data_type, DIMS, o->out_sizes, NULL, 0};
    o->op.type = c->type;
    o->op.desc = &o->u;
    switch (c->type) {
    case DMLCL_OPERATOR_REVERSE_SUBSEQUENCES:
        memcpy(o->len_sizes, in_sizes, sizeof o->len_sizes);
        o->len_sizes[REVERSE_AXIS] = 1;
        o->len = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_UINT32, DIMS, o->len_sizes, NULL, 0};
        o->u.rs = (dmlcl_reverse_subsequences_desc){&o->in, &o->len, &o->out, REVERSE_AXIS};
        break;
    case DMLCL_OPERATOR_RESAMPLE3:
        o->u.r3 = (dmlcl_resample3_desc){&o->in, &o->out, c->mode,
                                         DMLCL_AXIS_DIRECTION_INCREASING, DIMS, o->scales,
                                         o->in_offsets, o->out_offsets, c->antialiased};
        break;
    case DMLCL_OPERATOR_RESAMPLE_GRAD1:
        o->u.g1 = (dmlcl_resample_grad1_desc){&o->in, &o->out, c->mode,
                                              DMLCL_AXIS_DIRECTION_INCREASING, DIMS, o->scales,
                                              o->in_offsets, o->out_offsets};
        break;
    default:
        o->u.r1 = (dmlcl_resample1_desc){&o->in, &o->out, c->mode, DIMS, o->scales,
                                         o->in_offsets, o->out_offsets};
    }
}

/* ------------------------------------------------------------------ input data */

/* The input is a function of the global index, so each rank makes its own part and rank
 * 0 the whole for its reference, with no scatter. */
uint64_t mix(uint64_t x) /* splitmix64's finalizer */
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

void fill_input(const case_spec *c, const halo_box *box, const uint32_t *sizes,
                       void *data)
{
    uint64_t n = halo_box_count(box);
    uint32_t i[DIMS] = {0};
    for (uint64_t k = 0; k < n; k++) {
        uint64_t g = ((uint64_t)(box->start[0] + i[0]) * sizes[1] + box->start[1] + i[1]) *
                         sizes[2] + box->start[2] + i[2];
        uint64_t h = mix(g + 1);
        if (c->data_type == DMLCL_TENSOR_DATA_TYPE_FLOAT16) /* ±[2^-3, 8): normal halves */
            ((uint16_t *)data)[k] = (uint16_t)((h >> 63) << 15 | (12 + (h >> 32) % 6) << 10 |
                                               (h & 0x3ff));
        else /* [-1, 1), 24 significant bits: exact */
            ((float *)data)[k] = (float)((int64_t)(h >> 40) - (1 << 23)) * 0x1p-23f;
        for (int d = DIMS - 1; d >= 0 && ++i[d] == box->size[d]; d--)
            i[d] = 0;
    }
}

uint32_t sequence_length(uint64_t g, uint32_t axis_size)
{
    return (uint32_t)(mix(g + 0x5eed) % (axis_size + 2u));
}

void fill_lengths(const halo_box *box, const uint32_t *sizes, uint32_t axis_size, uint32_t *data)
{
    uint64_t n = halo_box_count(box);
    uint32_t i[DIMS] = {0};
    for (uint64_t k = 0; k < n; k++) {
        uint64_t g = ((uint64_t)(box->start[0] + i[0]) * sizes[1] + box->start[1] + i[1]) *
                         sizes[2] + box->start[2] + i[2];
        data[k] = sequence_length(g, axis_size);
        for (int d = DIMS - 1; d >= 0 && ++i[d] == box->size[d]; d--)
            i[d] = 0;
    }
}

/* ------------------------------------------------------------------ devices */

/* This rank's number among the ranks of its node (those that share memory). Launchers
 * export it too (Open MPI: OMPI_COMM_WORLD_LOCAL_RANK, MPICH: MPI_LOCALRANKID, Slurm:
 * SLURM_LOCALID), which is what to read where a device must be chosen before MPI_Init;
 * after it, MPI_COMM_TYPE_SHARED is the portable way. */
static int node_local_rank(int *local_size, int *nodes)
{
    MPI_Comm node;
    int local, leader;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, local_size);
    MPI_Comm_free(&node);
    leader = local == 0;
    MPI_Allreduce(&leader, nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return local;
}

/* The node's GPUs, over every platform; returns how many (at most max). */
static int list_gpus(cl_device_id *gpus, cl_platform_id *platform_of, int max)
{
    cl_platform_id platforms[16];
    cl_uint np = 0, nd;
    int n = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS)
        return 0;
    for (cl_uint p = 0; p < np && n < max; p++) {
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, (cl_uint)(max - n), gpus + n, &nd) !=
            CL_SUCCESS)
            continue;
        for (cl_uint i = 0; i < nd; i++)
            platform_of[n + (int)i] = platforms[p];
        n += (int)nd;
    }
    return n;
}

/* One context per rank: DMLCL_DEVICE if set, else GPU (local rank mod GPUs), else CPU.
 * why: a short account of the choice, for the report. */
static dmlcl_context *open_context(int local_rank, char *why, size_t why_size)
{
    dmlcl_context *ctx = NULL;
    cl_device_id gpus[64];
    cl_platform_id platforms[64];
    const char *selector = getenv("DMLCL_DEVICE");
    int n;
    if (selector && *selector) {
        check(dmlcl_context_create_default(&ctx), "dmlcl_context_create_default");
        snprintf(why, why_size, "DMLCL_DEVICE=%s", selector);
    } else if ((n = list_gpus(gpus, platforms, 64)) > 0) {
        int pick = local_rank % n;
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         (cl_context_properties)platforms[pick], 0};
        cl_int err;
        cl_context cl = clCreateContext(props, 1, &gpus[pick], NULL, NULL, &err);
        check_cl(err, "clCreateContext");
        check(dmlcl_context_create(cl, gpus[pick], NULL, &ctx), "dmlcl_context_create");
        clReleaseContext(cl); /* the dmlcl context holds its own reference */
        snprintf(why, why_size, "GPU %d of %d (node-local rank %d)", pick, n, local_rank);
    } else {
        check(dmlcl_context_create_for("cpu", &ctx), "dmlcl_context_create_for(cpu)");
        snprintf(why, why_size, "no GPU: the CPU device");
    }
    return ctx;
}

/* Rank 0 prints every rank's device, in rank order. */
static void report_devices(dmlcl_context *ctx, int local_rank, const char *why)
{
    char line[256], name[128] = "?";
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    clGetDeviceInfo(dmlcl_context_device(ctx), CL_DEVICE_NAME, sizeof name, name, NULL);
    snprintf(line, sizeof line, "rank %d (node-local %d): %s [%s]", world_rank, local_rank,
             name, why);
    char *all = world_rank == 0 ? xmalloc(sizeof line * (size_t)size) : NULL;
    MPI_Gather(line, sizeof line, MPI_CHAR, all, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
    for (int r = 0; all && r < size; r++)
        printf("# %s\n", all + sizeof line * (size_t)r);
    free(all);
}

/* ------------------------------------------------------------------ one tile per rank */

/* Everything one rank holds for one case on one decomposition. */
typedef struct tile_job {
    const case_spec *c;
    op_desc whole;                   /* the logical tensors: halo query and reference */
    halo_box out, owned, needed;     /* its output box, owned and needed input boxes */
    halo_plan *plan;                 /* who sends which part of `needed` */
    void *owned_data, *needed_data;  /* packed arrays of those boxes */
    void *out_data;
    dmlcl_operator *op;              /* NULL where the output box is empty */
    uint32_t elem;                   /* bytes per element */
} tile_job;

static void box_of_sizes(const uint32_t *sizes, halo_box *box)
{
    memset(box, 0, sizeof *box);
    box->dims = DIMS;
    memcpy(box->size, sizes, sizeof *sizes * DIMS);
}

/* Steps 1-3 and the operator of step 4 (see the top of the file). Collective over comm. */
static void job_setup(tile_job *j, MPI_Comm comm, dmlcl_context *ctx, const case_spec *c,
                      const uint32_t *field, const uint32_t *grid)
{
    uint32_t in_sizes[DIMS], out_sizes[DIMS];
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(j, 0, sizeof *j);
    j->c = c;
    j->elem = dmlcl_data_type_size(c->data_type);
    case_sizes(c, field, in_sizes, out_sizes);
    op_desc_init(&j->whole, c, in_sizes, out_sizes);

    /* 1. The output cut decides the work; the input is owned by the same grid's cut of
     * the input field (any other ownership would do: the exchange takes any boxes). */
    halo_grid_box(DIMS, out_sizes, grid, rank, &j->out);
    halo_grid_box(DIMS, in_sizes, grid, rank, &j->owned);

    /* 2. The halo query: the input box the output box reads (empty for an empty box). */
    j->needed.dims = DIMS;
    if (halo_box_count(&j->out))
        check(dmlcl_operator_input_box(&j->whole.op, j->out.start, j->out.size, j->needed.start,
                                       j->needed.size),
              "dmlcl_operator_input_box");

    /* 3. Who sends what: worked out once, used for every exchange. */
    check_halo(halo_plan_create(comm, j->elem, &j->owned, &j->needed, &j->plan),
               "halo_plan_create");
    j->owned_data = xmalloc(halo_box_count(&j->owned) * j->elem);
    j->needed_data = xmalloc(halo_box_count(&j->needed) * j->elem);
    j->out_data = xmalloc(halo_box_count(&j->out) * j->elem);
    fill_input(c, &j->owned, in_sizes, j->owned_data);

    /* 4. The tile operator: tensors the size of the boxes, tiles placing them in the
     * logical tensors. A rank with nothing to compute creates nothing but still takes
     * part in the exchange and the gather. */
    if (halo_box_count(&j->out)) {
        op_desc tile;
        op_desc_init(&tile, c, j->needed.size, j->out.size);
        dmlcl_tile_desc in_tile = {DIMS, j->whole.in_sizes, j->needed.start};
        dmlcl_tile_desc out_tile = {DIMS, j->whole.out_sizes, j->out.start};
        check(dmlcl_operator_create_tile(ctx, &tile.op, &in_tile, &out_tile, &j->op),
              "dmlcl_operator_create_tile");
    }
}

static void job_free(tile_job *j)
{
    dmlcl_operator_release(j->op);
    halo_plan_free(j->plan);
    free(j->owned_data);
    free(j->needed_data);
    free(j->out_data);
}

/* ------------------------------------------------------------------ checking */

double now_ms(void) { return MPI_Wtime() * 1e3; }

/* The whole-tensor run on one device, the reference every tile must match. */
void *whole_run(dmlcl_context *ctx, const case_spec *c, const op_desc *whole, double *ms)
{
    halo_box in_box, out_box;
    dmlcl_operator *op = NULL;
    const uint32_t elem = dmlcl_data_type_size(c->data_type);
    box_of_sizes(whole->in_sizes, &in_box);
    box_of_sizes(whole->out_sizes, &out_box);
    void *in = xmalloc(halo_box_count(&in_box) * elem);
    void *out = xmalloc(halo_box_count(&out_box) * elem);
    fill_input(c, &in_box, whole->in_sizes, in);
    uint32_t *lengths = NULL;
    if (c->type == DMLCL_OPERATOR_REVERSE_SUBSEQUENCES) {
        halo_box lb;
        box_of_sizes(whole->len_sizes, &lb);
        lengths = xmalloc(halo_box_count(&lb) * sizeof *lengths);
        fill_lengths(&lb, whole->len_sizes, whole->in_sizes[REVERSE_AXIS], lengths);
    }
    check(dmlcl_operator_create(ctx, &whole->op, &op), "dmlcl_operator_create (whole)");
    const void *ins[2] = {in, lengths};
    void *outs[1] = {out};
    double t0 = now_ms();
    check(dmlcl_operator_execute_host(op, ins, outs), "dmlcl_operator_execute_host (whole)");
    *ms = now_ms() - t0;
    dmlcl_operator_release(op);
    free(in);
    free(lengths);
    return out;
}

/* Root: compares the gathered field with the reference; prints the first difference. */
int whole_compare(const op_desc *whole, uint32_t elem, const void *got, const void *want,
                  int ranks, const uint32_t *grid)
{
    halo_box all;
    box_of_sizes(whole->out_sizes, &all);
    uint64_t n = halo_box_count(&all), bad = 0, first = 0;
    if (!memcmp(got, want, n * elem))
        return 1;
    for (uint64_t i = 0; i < n; i++)
        if (memcmp((const char *)got + i * elem, (const char *)want + i * elem, elem) && !bad++)
            first = i;
    uint32_t x = (uint32_t)(first % all.size[2]), y = (uint32_t)(first / all.size[2] % all.size[1]),
             z = (uint32_t)(first / all.size[2] / all.size[1]);
    int owner = -1;
    for (int r = 0; r < ranks && owner < 0; r++) {
        halo_box b;
        halo_grid_box(DIMS, whole->out_sizes, grid, r, &b);
        if (z - b.start[0] < b.size[0] && y - b.start[1] < b.size[1] && x - b.start[2] < b.size[2])
            owner = r;
    }
    uint32_t g = 0, w = 0;
    memcpy(&g, (const char *)got + first * elem, elem);
    memcpy(&w, (const char *)want + first * elem, elem);
    printf("  %llu of %llu outputs differ; first at [%u,%u,%u] (rank %d's tile): bits 0x%x, "
           "expected 0x%x\n",
           (unsigned long long)bad, (unsigned long long)n, z, y, x, owner, g, w);
    return 0;
}

/* ------------------------------------------------------------------ benchmark */

/* Waits for the other ranks without spinning (MPI's blocking calls busy-poll, which would
 * take cores from the rank being timed), and not forever: past phase_limit_s() a rank is
 * gone, and the job ends. */
void quiet_barrier(MPI_Comm comm)
{
    MPI_Request req;
    int done = 0;
    struct timespec ms = {0, 1000000};
    double limit = phase_limit_s(), t0 = MPI_Wtime();
    MPI_Ibarrier(comm, &req);
    while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
        if (MPI_Wtime() - t0 > limit) {
            fprintf(stderr, "rank %d: waited %g s (3 x DMLCL_MPI_TIMEOUT) in the example's "
                    "barrier (MPI_Ibarrier): a rank did not arrive; ending the job\n",
                    world_rank, limit);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        nanosleep(&ms, NULL);
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One step's parts, in ms: the halo exchange (MPI, packing and the rank's own part), the
 * upload of the input tile to the device, the operator up to clFinish, and their sum. */
enum { EXCHANGE, UPLOAD, KERNEL, TOTAL, PARTS };
typedef struct timing {
    double ms[PARTS];
} timing;

/* The device buffers of a job's tiles (none where its output box is empty). */
typedef struct tile_buffers {
    cl_mem in, out;
    uint64_t in_bytes, out_bytes;
} tile_buffers;

static tile_buffers buffers_create(dmlcl_context *ctx, const tile_job *j)
{
    tile_buffers b = {NULL, NULL, halo_box_count(&j->needed) * j->elem,
                      halo_box_count(&j->out) * j->elem};
    cl_int err = CL_SUCCESS;
    if (!j->op)
        return b;
    b.in = clCreateBuffer(dmlcl_context_cl_context(ctx), CL_MEM_READ_ONLY, b.in_bytes, NULL, &err);
    check_cl(err, "clCreateBuffer (input tile)");
    b.out = clCreateBuffer(dmlcl_context_cl_context(ctx), CL_MEM_READ_WRITE, b.out_bytes, NULL,
                           &err);
    check_cl(err, "clCreateBuffer (output tile)");
    return b;
}

static void buffers_release(tile_buffers *b)
{
    if (b->in)
        clReleaseMemObject(b->in);
    if (b->out)
        clReleaseMemObject(b->out);
}

/* One step, every rank starting together. The whole input tile is uploaded: a code that
 * keeps its field on the device would upload only the received halo, so the upload
 * column bounds that cost. The output stays on the device. */
static timing one_step(tile_job *j, MPI_Comm comm, cl_command_queue q, const tile_buffers *b)
{
    timing t;
    MPI_Barrier(comm);
    double t0 = now_ms();
    check_halo(halo_plan_exchange(j->plan, j->owned_data, j->needed_data), "halo_plan_exchange");
    double t1 = now_ms();
    if (j->op)
        check_cl(clEnqueueWriteBuffer(q, b->in, CL_TRUE, 0, b->in_bytes, j->needed_data, 0, NULL,
                                      NULL),
                 "clEnqueueWriteBuffer");
    double t2 = now_ms();
    if (j->op) {
        dmlcl_buffer_binding in = {b->in, 0, 0}, out = {b->out, 0, 0};
        check(dmlcl_operator_enqueue(j->op, &in, 1, &out, 1, 0, NULL, NULL),
              "dmlcl_operator_enqueue");
        check_cl(clFinish(q), "clFinish");
    }
    double t3 = now_ms();
    t.ms[EXCHANGE] = t1 - t0, t.ms[UPLOAD] = t2 - t1, t.ms[KERNEL] = t3 - t2, t.ms[TOTAL] = t3 - t0;
    return t;
}

/* --check: reads the tiles back, gathers them and compares on root. */
static void check_device_output(tile_job *j, MPI_Comm comm, dmlcl_context *ctx,
                                const tile_buffers *b, const uint32_t *grid)
{
    int ranks, rank;
    MPI_Comm_size(comm, &ranks);
    MPI_Comm_rank(comm, &rank);
    if (j->op)
        check_cl(clEnqueueReadBuffer(dmlcl_context_queue(ctx), b->out, CL_TRUE, 0, b->out_bytes,
                                     j->out_data, 0, NULL, NULL),
                 "clEnqueueReadBuffer");
    halo_box all;
    box_of_sizes(j->whole.out_sizes, &all);
    void *got = rank == 0 ? xmalloc(halo_box_count(&all) * j->elem) : NULL;
    check_halo(halo_gather(comm, 0, j->elem, &j->out, j->out_data, &all, got), "halo_gather");
    if (rank == 0) {
        double ms;
        void *want = whole_run(ctx, j->c, &j->whole, &ms);
        printf("# check (%d rank%s): %s\n", ranks, ranks == 1 ? "" : "s",
               whole_compare(&j->whole, j->elem, got, want, ranks, grid) ? "PASS" : "FAIL");
        free(want);
    }
    free(got);
}

/* Medians of `iters` steps after one warm-up, on this rank. */
static timing time_job(MPI_Comm comm, dmlcl_context *ctx, const case_spec *c,
                       const uint32_t *field, const uint32_t *grid, int iters, int check_out)
{
    tile_job j;
    job_setup(&j, comm, ctx, c, field, grid);
    tile_buffers b = buffers_create(ctx, &j);
    double *samples = xmalloc(sizeof *samples * PARTS * (size_t)iters);
    one_step(&j, comm, dmlcl_context_queue(ctx), &b); /* warm-up: first touches, first run */
    for (int i = 0; i < iters; i++) {
        timing t = one_step(&j, comm, dmlcl_context_queue(ctx), &b);
        for (int p = 0; p < PARTS; p++)
            samples[p * iters + i] = t.ms[p];
    }
    timing med;
    for (int p = 0; p < PARTS; p++)
        med.ms[p] = median(samples + p * iters, iters);
    if (check_out)
        check_device_output(&j, comm, ctx, &b, grid);
    free(samples);
    buffers_release(&b);
    job_free(&j);
    return med;
}

/* A field of about `bytes` of data input: Z planes of 512 x 512 (GRAD1: its output, half
 * that on each dimension, so that its input, the forward output, is 512 x 512 planes). */
void field_of_bytes(const case_spec *c, uint64_t bytes, uint32_t *field)
{
    uint64_t plane = 512u * 512u * dmlcl_data_type_size(c->data_type);
    uint64_t planes = bytes / plane ? bytes / plane : 1;
    if (c->type == DMLCL_OPERATOR_RESAMPLE_GRAD1) {
        field[0] = (uint32_t)(planes / 2 ? planes / 2 : 1), field[1] = field[2] = 256;
    } else {
        field[0] = (uint32_t)planes, field[1] = field[2] = 512;
    }
}

/* Root: one table row (each column the slowest rank's), then every rank's total. */
static void print_row(const case_spec *c, const uint32_t *grid, int weak, const uint32_t *in_sizes,
                      double mib_per_rank, const timing *worst, double ref_ms,
                      const double *totals, int header)
{
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    double eff = weak ? ref_ms / worst->ms[TOTAL] : ref_ms / (ranks * worst->ms[TOTAL]);
    if (header)
        printf("| scaling | case | ranks | grid | field (input) | MiB per rank | kernel ms | "
               "exchange ms | upload ms | total ms | 1-rank ms | efficiency |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    printf("| %s | %s | %d | %ux%ux%u | %ux%ux%u | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |\n",
           weak ? "weak" : "strong", c->name, ranks, grid[0], grid[1], grid[2], in_sizes[0],
           in_sizes[1], in_sizes[2], mib_per_rank, worst->ms[KERNEL], worst->ms[EXCHANGE],
           worst->ms[UPLOAD], worst->ms[TOTAL], ref_ms, eff);
    printf("# total ms per rank:");
    for (int r = 0; r < ranks; r++)
        printf(" %.1f", totals[r]);
    printf("\n");
    fflush(stdout);
}

/* One table row: the reference on rank 0 alone, then the parallel run. */
static void bench(const case_spec *c, const uint32_t *grid, int weak, uint64_t mb, int iters,
                  int check_out, dmlcl_context *ctx, int header)
{
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    uint32_t base[DIMS], field[DIMS], in_sizes[DIMS], out_sizes[DIMS], one[DIMS] = {1, 1, 1};
    field_of_bytes(c, mb << 20, base);
    for (int d = 0; d < DIMS; d++) /* weak: each rank's share is the base field */
        field[d] = weak ? base[d] * grid[d] : base[d];
    case_sizes(c, field, in_sizes, out_sizes);
    uint64_t in_total = (uint64_t)in_sizes[0] * in_sizes[1] * in_sizes[2] *
                        dmlcl_data_type_size(c->data_type);

    /* The reference: the same code on one rank, the machine otherwise idle. */
    double ref_ms = 0;
    if (world_rank == 0) {
        uint32_t ref_field[DIMS];
        for (int d = 0; d < DIMS; d++)
            ref_field[d] = weak ? base[d] : field[d];
        ref_ms = time_job(MPI_COMM_SELF, ctx, c, ref_field, one, iters, 0).ms[TOTAL];
    }
    quiet_barrier(MPI_COMM_WORLD);

    timing t = time_job(MPI_COMM_WORLD, ctx, c, field, grid, iters, check_out), worst;
    double *totals = world_rank == 0 ? xmalloc(sizeof *totals * (size_t)ranks) : NULL;
    MPI_Reduce(t.ms, worst.ms, PARTS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Gather(&t.ms[TOTAL], 1, MPI_DOUBLE, totals, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        print_row(c, grid, weak, in_sizes, (double)in_total / ranks / (1 << 20), &worst, ref_ms,
                  totals, header);
    free(totals);
}

/* ------------------------------------------------------------------ options and main */

typedef struct options {
    uint32_t field[DIMS];
    const char *grids, *cases;
    int verbose, bench, weak, iters, check, header;
    uint64_t mb;
    int staged, no_overlap; /* --bench: the host-staged baseline; no interior overlap */
    int phases;             /* --bench: each rank's phases of the timed steps */
    uint64_t max_buffer_mb; /* --bench: size for a smaller largest buffer */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec -np P mpi_resample [options]\n"
            "  --z N --y N --x N     field sizes (default 6 5 7)\n"
            "  --grid LIST           comma-separated: slab (P x 1 x 1), 2d (over Z and Y),\n"
            "                        AxBxC (A*B*C = P); default slab,2d (--bench: slab)\n"
            "  --case LIST           comma-separated case names, or all (default):");
    for (int i = 0; i < CASE_COUNT; i++)
        fprintf(f, " %s", CASES[i].name);
    fprintf(f, "\n"
               "  --verbose             each rank's boxes\n"
               "  --bench               time instead of test: one table row per case and grid\n"
               "  --mb-per-rank N       weak scaling, N MiB of input per rank (default 64)\n"
               "  --mb-total N          strong scaling, N MiB of input in all\n"
               "  --iters N             timed runs after a warm-up (default 5)\n"
               "  --check               --bench: also check the output: bit for bit against one\n"
               "                        device where it holds the whole field, else sampled\n"
               "                        outputs against a C reference\n"
               "  --staged              --bench: the host-staged path (the whole input tile\n"
               "                        uploaded every step, host_exchange.c): the baseline\n"
               "  --no-overlap          --bench: no interior compute while the faces fly\n"
               "  --phases              --bench: after each row, every rank's medians of its\n"
               "                        steps' phases (OpenCL profiling): face reads, the wait\n"
               "                        for them, MPI exchange, ghost writes, interior, slabs\n"
               "  --max-buffer-mb N     --bench: size the fields as if the devices' largest\n"
               "                        buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) were N MiB\n"
               "  --no-header           --bench: rows only\n");
}

static int parse(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"z", required_argument, 0, 'z'},        {"y", required_argument, 0, 'y'},
        {"x", required_argument, 0, 'x'},        {"grid", required_argument, 0, 'g'},
        {"case", required_argument, 0, 'c'},     {"verbose", no_argument, 0, 'v'},
        {"bench", no_argument, 0, 'b'},          {"mb-per-rank", required_argument, 0, 'w'},
        {"mb-total", required_argument, 0, 's'}, {"iters", required_argument, 0, 'i'},
        {"check", no_argument, 0, 'k'},          {"no-header", no_argument, 0, 'n'},
        {"staged", no_argument, 0, 'S'},         {"no-overlap", no_argument, 0, 'O'},
        {"max-buffer-mb", required_argument, 0, 'M'}, {"phases", no_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    *o = (options){{6, 5, 7}, NULL, "all", 0, 0, 1, 5, 0, 1, 64, 0, 0, 0, 0};
    int ch;
    while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (ch) {
        case 'z': o->field[0] = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'y': o->field[1] = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'x': o->field[2] = (uint32_t)strtoul(optarg, NULL, 10); break;
        case 'g': o->grids = optarg; break;
        case 'c': o->cases = optarg; break;
        case 'v': o->verbose = 1; break;
        case 'b': o->bench = 1; break;
        case 'w': o->weak = 1, o->mb = strtoull(optarg, NULL, 10); break;
        case 's': o->weak = 0, o->mb = strtoull(optarg, NULL, 10); break;
        case 'i': o->iters = atoi(optarg); break;
        case 'k': o->check = 1; break;
        case 'n': o->header = 0; break;
        case 'S': o->staged = 1; break;
        case 'O': o->no_overlap = 1; break;
        case 'P': o->phases = 1; break;
        case 'M': o->max_buffer_mb = strtoull(optarg, NULL, 10); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return -1;
        }
    }
    if (!o->grids) /* a test covers both cuts; a benchmark row is one */
        o->grids = o->bench ? "slab" : "slab,2d";
    if (optind < argc || !o->field[0] || !o->field[1] || !o->field[2] || o->iters < 1 || !o->mb) {
        usage(stderr);
        return -1;
    }
    return 1;
}

/* A grid name for P ranks: slab, 2d, or AxBxC. Returns 0 if it does not fit P. */
static int grid_of(const char *name, int ranks, uint32_t *grid)
{
    unsigned a, b, c;
    grid[0] = grid[1] = grid[2] = 1;
    if (!strcmp(name, "slab")) {
        grid[0] = (uint32_t)ranks;
    } else if (!strcmp(name, "2d")) {
        int dims[2] = {0, 0};
        MPI_Dims_create(ranks, 2, dims);
        grid[0] = (uint32_t)dims[0], grid[1] = (uint32_t)dims[1];
    } else if (sscanf(name, "%ux%ux%u", &a, &b, &c) == 3 && a && b && c &&
               (uint64_t)a * b * c == (uint64_t)ranks) {
        grid[0] = a, grid[1] = b, grid[2] = c;
    } else {
        return 0;
    }
    return 1;
}

/* Calls run(case, grid) for every selected case and grid; returns the number of failures
 * (-1: a name that matches nothing). */
static int for_each(const options *o, int ranks, dmlcl_context *ctx, int corrupt)
{
    char grids[256], cases[256];
    int failures = 0, header = o->header;
    snprintf(grids, sizeof grids, "%s", o->grids);
    for (char *gs = NULL, *g = strtok_r(grids, ",", &gs); g; g = strtok_r(NULL, ",", &gs)) {
        uint32_t grid[DIMS];
        if (!grid_of(g, ranks, grid))
            return -1;
        snprintf(cases, sizeof cases, "%s", o->cases);
        for (char *cs = NULL, *c = strtok_r(cases, ",", &cs); c; c = strtok_r(NULL, ",", &cs)) {
            int found = 0;
            for (int i = 0; i < CASE_COUNT; i++) {
                if (strcmp(c, "all") && strcmp(c, CASES[i].name))
                    continue;
                found = 1;
                if (CASES[i].type == DMLCL_OPERATOR_REVERSE_SUBSEQUENCES &&
                    (grid[REVERSE_AXIS] > 1 || (o->bench && o->staged))) {
                    if (world_rank == 0 && strcmp(c, "all"))
                        printf("SKIP %-14s grid %ux%ux%u%s: its axis (X) must stay whole\n",
                               CASES[i].name, grid[0], grid[1], grid[2],
                               o->staged ? " (and not --staged)" : "");
                    continue;
                }
                if (o->bench && o->staged) {
                    bench(&CASES[i], grid, o->weak, o->mb, o->iters, o->check, ctx, header);
                    header = 0;
                } else if (o->bench) {
                    resident_options ro = {o->weak,  o->iters, o->check,        !o->no_overlap,
                                           header,   o->phases, o->mb, o->max_buffer_mb};
                    resident_bench(&CASES[i], grid, &ro, ctx);
                    header = 0;
                }
                else
                    failures += !layer_check_case(MPI_COMM_WORLD, ctx, &CASES[i], o->field, grid,
                                            corrupt, o->verbose);
            }
            if (!found)
                return -1;
        }
    }
    return failures;
}

int main(int argc, char **argv)
{
    int ranks, local_size, nodes;
    options o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int parsed = parse(argc, argv, &o);
    if (parsed <= 0) {
        MPI_Finalize();
        return parsed < 0 ? 2 : 0;
    }
    const char *corrupt_env = getenv("DMLCL_MPI_EXAMPLE_CORRUPT");
    int corrupt = !corrupt_env || !*corrupt_env      ? -1
                  : !strcmp(corrupt_env, "all") ? CORRUPT_ALL
                                                : atoi(corrupt_env);

    char why[160];
    signal(SIGALRM, on_alarm);
    watch("start-up: devices", 0);
    int local_rank = node_local_rank(&local_size, &nodes);
    dmlcl_context *ctx = open_context(local_rank, why, sizeof why);
    if (world_rank == 0)
        printf("# dmlcl %s, %d rank%s on %d node%s, field %ux%ux%u%s\n", dmlcl_version(), ranks,
               ranks == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", o.field[0], o.field[1],
               o.field[2], corrupt >= 0 ? ", DMLCL_MPI_EXAMPLE_CORRUPT set" : "");
    report_devices(ctx, local_rank, why);

    int failures = for_each(&o, ranks, ctx, corrupt);
    watch(NULL, 0);
    if (failures < 0 && world_rank == 0)
        fprintf(stderr, "mpi_resample: --grid %s or --case %s names nothing for %d ranks\n",
                o.grids, o.cases, ranks);
    else if (world_rank == 0 && !o.bench)
        printf("%s: %d failure%s\n", failures ? "FAIL" : "PASS", failures,
               failures == 1 ? "" : "s");
    dmlcl_context_release(ctx);
    MPI_Finalize();
    return failures < 0 ? 2 : failures ? 1 : 0;
}
