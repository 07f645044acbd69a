/* --bench on device-resident fields: the MPI layer (dmlcl_mpi.h) keeps each rank's tile on
 * its device between steps and moves only halo faces. Part of dmlcl's MPI example.
 *
 * Per rank, medians of --iters after a warm-up, each to clFinish:
 *   kernel: the operator on the whole tile, its halo current (no exchange);
 *   halo:   one halo update alone (faces read, exchanged, written);
 *   step:   one dmlcl_mpi_operator_run (halo update and operator; with overlap the
 *           interior computes while the faces are in flight).
 * The row shows the slowest rank's; step/kernel is what the exchange costs a step. The
 * 1-rank reference (rank 0 alone, first) runs one rank's share (weak) or the whole field
 * (strong) through the same code; efficiency: weak t1 / tP, strong t1 / (P tP), on steps.
 * GB/s per GPU: the tile's input and output bytes per step. --phases: each rank's
 * medians of the timed steps' phases (dmlcl_mpi_operator_profile: the faces' reads, the
 * host's wait for them, the MPI exchange, the ghosts' writes, the interior, the boundary
 * slabs), printed after the row, so a step slower than its kernel shows where it went.
 *
 * Sizing: every case is sized to the smallest device of the job (its global memory and
 * CL_DEVICE_MAX_MEM_ALLOC_SIZE, as `dmlcl bench` does): a field whose tiles would not fit
 * is made smaller, and the row says so. A field whose whole output no single device can
 * hold gets no one-device run: --check then compares sampled outputs on every rank with
 * a C reference computed from the input's generator. */
#include "example.h"

#include <dmlcl_mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lcheck(dmlcl_status st, const char *what)
{
    if (st == DMLCL_SUCCESS)
        return;
    fprintf(stderr, "rank %d: %s: %s: %s\n", world_rank, what, dmlcl_status_string(st),
            dmlcl_mpi_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static uint64_t box_count(const dmlcl_mpi_box *b)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < b->dimension_count; d++)
        n *= b->sizes[d];
    return n;
}

halo_box to_halo(const dmlcl_mpi_box *b)
{
    halo_box h;
    memset(&h, 0, sizeof h);
    h.dims = b->dimension_count;
    memcpy(h.start, b->start, sizeof b->start);
    memcpy(h.size, b->sizes, sizeof b->sizes);
    return h;
}

/* ------------------------------------------------------------------ devices and sizes */

typedef struct limits {
    uint64_t max_alloc, global; /* the smallest device's, over the job */
} limits;

static limits job_limits(dmlcl_context *ctx)
{
    cl_ulong v[2] = {0, 0};
    clGetDeviceInfo(dmlcl_context_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof v[0], &v[0], NULL);
    clGetDeviceInfo(dmlcl_context_device(ctx), CL_DEVICE_GLOBAL_MEM_SIZE, sizeof v[1], &v[1], NULL);
    unsigned long long mine[2] = {v[0], v[1]}, least[2];
    MPI_Allreduce(mine, least, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    return (limits){least[0], least[1]};
}

/* The largest tiles of a field cut by grid (the first cells are the longest): the
 * ghosted input (owned box and what the output box reads) and the output, in bytes. */
static void tile_bytes(const case_spec *c, const uint32_t *field, const uint32_t *grid,
                       uint64_t *in_bytes, uint64_t *out_bytes)
{
    uint32_t in[DIMS], out[DIMS];
    op_desc o;
    case_sizes(c, field, in, out);
    op_desc_init(&o, c, in, out);
    halo_box ob, ib, nb;
    halo_grid_box(DIMS, out, grid, 0, &ob);
    halo_grid_box(DIMS, in, grid, 0, &ib);
    nb = ib;
    if (halo_box_count(&ob))
        dmlcl_operator_input_box(&o.op, ob.start, ob.size, nb.start, nb.size);
    uint64_t ghost = 1, e = dmlcl_data_type_size(c->data_type);
    for (int d = 0; d < DIMS; d++) {
        uint32_t lo = ib.start[d] < nb.start[d] ? ib.start[d] : nb.start[d];
        uint32_t hi = ib.start[d] + ib.size[d] > nb.start[d] + nb.size[d] ? ib.start[d] + ib.size[d]
                                                                         : nb.start[d] + nb.size[d];
        ghost *= hi - lo;
    }
    *in_bytes = ghost * e;
    *out_bytes = halo_box_count(&ob) * e;
}

static int fits(uint64_t in, uint64_t out, const limits *l)
{
    return in <= l->max_alloc && out <= l->max_alloc && in + out <= l->global / 10 * 9;
}

/* The field for mb MiB (per rank when weak), made smaller until its tiles fit; note says
 * what happened. */
static void size_field(const case_spec *c, const uint32_t *grid, int weak, uint64_t mb,
                       const limits *l, uint32_t *field, char *note, size_t cap)
{
    uint64_t bytes = mb << 20, in = 0, out = 0;
    for (;;) {
        uint32_t base[DIMS];
        field_of_bytes(c, bytes, base);
        for (int d = 0; d < DIMS; d++)
            field[d] = weak ? base[d] * grid[d] : base[d];
        tile_bytes(c, field, grid, &in, &out);
        if (fits(in, out, l) || bytes <= (1u << 20))
            break;
        bytes /= 2;
    }
    if (bytes == mb << 20)
        snprintf(note, cap, "fits the devices (largest tiles: %.0f MiB in, %.0f MiB out; "
                 "CL_DEVICE_MAX_MEM_ALLOC_SIZE %.0f MiB, global %.0f MiB)",
                 in / 1048576.0, out / 1048576.0, l->max_alloc / 1048576.0, l->global / 1048576.0);
    else
        snprintf(note, cap, "sized to the devices: %llu MiB asked, %llu MiB used (tiles %.0f MiB "
                 "in, %.0f MiB out; CL_DEVICE_MAX_MEM_ALLOC_SIZE %.0f MiB, global %.0f MiB)",
                 (unsigned long long)mb, (unsigned long long)(bytes >> 20), in / 1048576.0,
                 out / 1048576.0, l->max_alloc / 1048576.0, l->global / 1048576.0);
}

/* ------------------------------------------------------------------ one job */

void rjob_setup(rjob *j, MPI_Comm comm, dmlcl_context *ctx, const case_spec *c,
                const uint32_t *field, const uint32_t *grid, uint32_t op_flags)
{
    uint32_t in[DIMS], out[DIMS];
    memset(j, 0, sizeof *j);
    j->c = c;
    case_sizes(c, field, in, out);
    op_desc_init(&j->whole, c, in, out);
    lcheck(dmlcl_mpi_layout_create(comm, c->data_type, DIMS, in, grid, &j->li), "layout (input)");
    lcheck(dmlcl_mpi_layout_create(comm, c->data_type, DIMS, out, grid, &j->lo), "layout (output)");
    lcheck(dmlcl_mpi_operator_create(ctx, &j->whole.op, j->li, j->lo, op_flags, &j->op),
           "dmlcl_mpi_operator_create");
    lcheck(dmlcl_mpi_field_create(ctx, j->li, j->op, NULL, &j->fi), "dmlcl_mpi_field_create (input)");
    lcheck(dmlcl_mpi_field_create(ctx, j->lo, NULL, NULL, &j->fo), "dmlcl_mpi_field_create (output)");
    dmlcl_mpi_field_buffer(j->fi, NULL, &j->owned, NULL);
    dmlcl_mpi_field_buffer(j->fo, NULL, &j->out, NULL);
    /* The input once, from the generator; it stays on the device from here on. */
    void *host = xmalloc(box_count(&j->owned) * dmlcl_data_type_size(c->data_type));
    halo_box hb = to_halo(&j->owned);
    fill_input(c, &hb, in, host);
    lcheck(dmlcl_mpi_field_write(j->fi, host), "dmlcl_mpi_field_write");
    free(host);
    if (c->type != DMLCL_OPERATOR_REVERSE_SUBSEQUENCES)
        return;
    /* REVERSE_SUBSEQUENCES' lengths: a field cut by the same grid, its box's lengths. */
    dmlcl_mpi_box lb;
    lcheck(dmlcl_mpi_layout_create(comm, DMLCL_TENSOR_DATA_TYPE_UINT32, DIMS, j->whole.len_sizes,
                                   grid, &j->ll),
           "layout (sequence lengths)");
    lcheck(dmlcl_mpi_field_create(ctx, j->ll, NULL, NULL, &j->fl),
           "dmlcl_mpi_field_create (sequence lengths)");
    dmlcl_mpi_field_buffer(j->fl, NULL, &lb, NULL);
    hb = to_halo(&lb);
    uint32_t *lengths = xmalloc(box_count(&lb) * sizeof *lengths);
    fill_lengths(&hb, j->whole.len_sizes, in[REVERSE_AXIS], lengths);
    lcheck(dmlcl_mpi_field_write(j->fl, lengths), "dmlcl_mpi_field_write (sequence lengths)");
    free(lengths);
}

void rjob_free(rjob *j)
{
    dmlcl_mpi_field_release(j->fi);
    dmlcl_mpi_field_release(j->fl);
    dmlcl_mpi_field_release(j->fo);
    dmlcl_mpi_operator_release(j->op);
    dmlcl_mpi_layout_release(j->li);
    dmlcl_mpi_layout_release(j->ll);
    dmlcl_mpi_layout_release(j->lo);
}

void rjob_run(rjob *j, uint32_t flags)
{
    dmlcl_mpi_field *inputs[2] = {j->fi, j->fl};
    lcheck(dmlcl_mpi_operator_run_inputs(j->op, inputs, j->fl ? 2 : 1, j->fo, flags),
           "dmlcl_mpi_operator_run");
}

enum { KERNEL, HALO, STEP, PARTS };

/* One timed part, every rank starting together. */
static double timed(rjob *j, MPI_Comm comm, cl_command_queue q, int part, int first)
{
    MPI_Barrier(comm);
    if (first)
        stall_if_asked();
    double t0 = now_ms();
    if (part == HALO)
        lcheck(dmlcl_mpi_halo_update(j->fi), "dmlcl_mpi_halo_update");
    else
        rjob_run(j, part == KERNEL ? DMLCL_MPI_HALO_CURRENT : 0);
    check_cl(clFinish(q), "clFinish");
    return now_ms() - t0;
}

/* --phases: a timed step's wall time and its profile, in the order printed. */
enum { PH_STEP, PH_DEVICE, PH_KERNEL0, PH_KERNEL, PH_READS0, PH_READS, PH_WAIT, PH_EXCHANGE,
       PH_WRITES0, PH_WRITES, PH_SLABS0, PH_SLABS, PHASES };

static void phases_of(const rjob *j, double step_ms, double *ph)
{
    dmlcl_mpi_run_profile p;
    lcheck(dmlcl_mpi_operator_profile(j->op, &p), "dmlcl_mpi_operator_profile");
    const double v[PHASES] = {step_ms, p.device_ms, p.kernel_start_ms, p.kernel_ms,
                              p.reads_start_ms, p.reads_ms, p.reads_wait_ms, p.exchange_ms,
                              p.writes_start_ms, p.writes_ms, p.slabs_start_ms, p.slabs_ms};
    memcpy(ph, v, sizeof v);
}

/* ph (NULL: no --phases): the medians of the timed steps' phases. */
static void time_parts(rjob *j, MPI_Comm comm, cl_command_queue q, int iters, double *ms,
                       double *ph)
{
    double *v = xmalloc(sizeof *v * (size_t)iters * (PHASES + 1)), *pv = v + iters;
    for (int p = 0; p < PARTS; p++) {
        timed(j, comm, q, p, p == 0); /* warm-up */
        for (int i = 0; i < iters; i++) {
            v[i] = timed(j, comm, q, p, 0);
            if (ph && p == STEP)
                phases_of(j, v[i], pv + (size_t)i * PHASES);
        }
        ms[p] = median(v, iters);
    }
    for (int k = 0; ph && k < PHASES; k++) { /* each phase's median, over the steps */
        for (int i = 0; i < iters; i++)
            v[i] = pv[(size_t)i * PHASES + k];
        ph[k] = median(v, iters);
    }
    free(v);
}

/* "start+length" of a device phase, or its length; "-" where the run had none. */
static const char *phase_text(const double *ph, int start, int length, char *buf, size_t cap)
{
    if (ph[length] < 0)
        snprintf(buf, cap, "-");
    else if (start < 0)
        snprintf(buf, cap, "%.3f", ph[length]);
    else
        snprintf(buf, cap, "%.3f+%.3f", ph[start], ph[length]);
    return buf;
}

/* Rank 0 prints every rank's phase medians, a line each. */
static void print_phases(const case_spec *c, const double *ph, int iters)
{
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    double *all = world_rank == 0 ? xmalloc(sizeof *all * PHASES * (size_t)ranks) : NULL;
    MPI_Gather(ph, PHASES, MPI_DOUBLE, all, PHASES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (world_rank != 0)
        return;
    printf("# phases of %s, ms, medians of %d steps; device phases as start+length from the "
           "step's first device command (OpenCL profiling), host waits as lengths:\n",
           c->name, iters);
    for (int r = 0; r < ranks; r++) {
        const double *p = all + (size_t)r * PHASES;
        char b[8][40];
        printf("#   rank %d: step %.3f | device %s | interior %s | face reads %s | "
               "wait for reads %s | MPI exchange %s | ghost writes %s | boundary slabs %s\n",
               r, p[PH_STEP], phase_text(p, -1, PH_DEVICE, b[0], 40),
               phase_text(p, PH_KERNEL0, PH_KERNEL, b[1], 40),
               phase_text(p, PH_READS0, PH_READS, b[2], 40),
               phase_text(p, -1, PH_WAIT, b[3], 40), phase_text(p, -1, PH_EXCHANGE, b[4], 40),
               phase_text(p, PH_WRITES0, PH_WRITES, b[5], 40),
               phase_text(p, PH_SLABS0, PH_SLABS, b[6], 40));
    }
    fflush(stdout);
    free(all);
}

/* ------------------------------------------------------------------ checks */

/* The C reference of one output (RESAMPLE1 linear or nearest, RESAMPLE3 antialiased,
 * RESAMPLE_GRAD1 of linear), in double from the input's generator: per dimension the
 * taps and weights of doc/operators.md, then the sum over their product. */
#define MAX_TAPS 16
typedef struct taps {
    int n;
    uint32_t idx[MAX_TAPS];
    double w[MAX_TAPS];
} taps;

static float coord(const case_spec *c, uint32_t o) { return ((float)o + 0.5f) / c->scale - 0.5f; }

static void forward_taps(const case_spec *c, uint32_t o, uint32_t n, taps *t)
{
    float x = coord(c, o), top = (float)(n - 1);
    t->n = 0;
    if (c->mode == DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR) {
        float f = floorf(x + 0.5f);
        t->idx[t->n] = (uint32_t)(f < 0 ? 0 : f > top ? top : f), t->w[t->n++] = 1;
        return;
    }
    x = x < 0 ? 0 : x > top ? top : x;
    float f = floorf(x), w = x - f;
    t->idx[t->n] = (uint32_t)f, t->w[t->n++] = 1 - (double)w;
    if (w != 0)
        t->idx[t->n] = (uint32_t)f + 1, t->w[t->n++] = w;
}

static void antialiased_taps(const case_spec *c, uint32_t o, uint32_t n, taps *t)
{
    double ctr = (double)coord(c, o) + 0.5, s = c->scale, total = 0;
    t->n = 0;
    for (double jj = floor(ctr - 1 / s - 0.5); jj <= ceil(ctr + 1 / s - 0.5) && jj < n; jj++) {
        double v = 1 - fabs(jj + 0.5 - ctr) * s;
        if (jj >= 0 && v > 0 && t->n < MAX_TAPS)
            t->idx[t->n] = (uint32_t)jj, t->w[t->n++] = v, total += v;
    }
    for (int k = 0; k < t->n; k++)
        t->w[k] /= total;
}

/* GRAD1: the forward outputs (of the forward input's n = out_n elements) reading i. */
static void grad_taps(const case_spec *c, uint32_t i, uint32_t in_n, uint32_t out_n, taps *t)
{
    taps f;
    t->n = 0;
    uint32_t lo = (uint32_t)(i * c->scale > 4 ? i * c->scale - 4 : 0);
    for (uint32_t o = lo; o < in_n && o < i * c->scale + 4; o++) {
        forward_taps(c, o, out_n, &f);
        for (int k = 0; k < f.n; k++)
            if (f.idx[k] == i && t->n < MAX_TAPS)
                t->idx[t->n] = o, t->w[t->n++] = f.w[k];
    }
}

static float input_value(uint64_t g)
{
    return (float)((int64_t)(mix(g + 1) >> 40) - (1 << 23)) * 0x1p-23f;
}

/* REVERSE_SUBSEQUENCES: output o is input o with X reversed within its sequence. */
static double reversed(const rjob *j, const uint32_t *o)
{
    const uint32_t *in = j->whole.in_sizes, n = in[REVERSE_AXIS];
    uint64_t line = (uint64_t)o[0] * in[1] + o[1]; /* the lengths tensor's index */
    uint32_t len = sequence_length(line, n), x = o[2];
    len = len < n ? len : n;
    x = x < len ? len - 1 - x : x;
    return input_value((line * n) + x);
}

static double expected(const rjob *j, const uint32_t *o)
{
    const case_spec *c = j->c;
    const uint32_t *in = j->whole.in_sizes;
    taps t[DIMS];
    if (c->type == DMLCL_OPERATOR_REVERSE_SUBSEQUENCES)
        return reversed(j, o);
    for (int d = 0; d < DIMS; d++) {
        if (c->type == DMLCL_OPERATOR_RESAMPLE_GRAD1)
            grad_taps(c, o[d], in[d], j->whole.out_sizes[d], &t[d]);
        else if (c->antialiased && c->scale < 1)
            antialiased_taps(c, o[d], in[d], &t[d]);
        else
            forward_taps(c, o[d], in[d], &t[d]);
        if (!t[d].n)
            return 0;
    }
    double sum = 0;
    for (int a = 0; a < t[0].n; a++)
        for (int b = 0; b < t[1].n; b++)
            for (int k = 0; k < t[2].n; k++) {
                uint64_t g = ((uint64_t)t[0].idx[a] * in[1] + t[1].idx[b]) * in[2] + t[2].idx[k];
                sum += t[0].w[a] * t[1].w[b] * t[2].w[k] * input_value(g);
            }
    return sum;
}

/* Sampled outputs of this rank's tile (its first and last 64, then random ones), each
 * read from the device and compared within float32 rounding; returns the failures, summed
 * over the job. */
static int sampled_check(rjob *j, cl_command_queue q, int samples, char *msg, size_t cap)
{
    uint64_t n = box_count(&j->out), bad = 0, rng = 0x9e3779b97f4a7c15u + (uint64_t)world_rank;
    cl_mem buf = dmlcl_mpi_field_buffer(j->fo, NULL, NULL, NULL);
    msg[0] = 0;
    for (int s = 0; n && s < samples; s++) {
        uint64_t k = s < 64 ? (uint64_t)s : s < 128 ? n - 1 - (uint64_t)(s - 64) % n
                                                    : (rng = mix(rng)) % n;
        k %= n;
        uint32_t o[DIMS];
        uint64_t rest = k;
        for (int d = DIMS - 1; d >= 0; d--)
            o[d] = j->out.start[d] + (uint32_t)(rest % j->out.sizes[d]), rest /= j->out.sizes[d];
        float got;
        check_cl(clEnqueueReadBuffer(q, buf, CL_TRUE, k * sizeof got, sizeof got, &got, 0, NULL, NULL),
                 "clEnqueueReadBuffer (a sample)");
        double want = expected(j, o);
        double ulps = j->c->type == DMLCL_OPERATOR_RESAMPLE1 ? 4 : 32;
        double tol = j->c->mode == DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
                         ? 0 : 1e-6 + ulps * 1.1920929e-7 * fabs(want);
        if (fabs(got - want) > tol && !bad++)
            snprintf(msg, cap, "rank %d: output [%u,%u,%u] is %.9g, expected %.9g", world_rank,
                     o[0], o[1], o[2], got, want);
    }
    unsigned long long total = 0, mine = bad;
    MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (bad)
        fprintf(stderr, "%s\n", msg);
    return (int)total;
}

/* Every rank compares its tile, byte for byte, with its box of one device's run of the
 * whole tensors, made on its own device (the input's generator gives every rank the same
 * whole input): the ranks check side by side, and no tile crosses the network (gathered
 * on rank 0, a 32 GiB output took 79 s on 4 H200s, mostly host copies and one memcmp).
 * Returns 1 on a pass (on every rank). */
static int full_check(rjob *j, dmlcl_context *ctx)
{
    const uint32_t elem = dmlcl_data_type_size(j->c->data_type);
    const halo_box hb = to_halo(&j->out);
    const uint64_t row = (uint64_t)hb.size[2] * elem;
    char *mine = xmalloc(box_count(&j->out) * elem);
    lcheck(dmlcl_mpi_field_read(j->fo, mine), "dmlcl_mpi_field_read");
    double ms;
    const char *want = whole_run(ctx, j->c, &j->whole, &ms);
    const uint32_t *all = j->whole.out_sizes;
    int pass = 1;
    for (uint32_t z = 0; pass && z < hb.size[0]; z++)
        for (uint32_t y = 0; pass && y < hb.size[1]; y++) {
            uint64_t at = (((uint64_t)hb.start[0] + z) * all[1] + hb.start[1] + y) * all[2] +
                          hb.start[2];
            pass = !memcmp(mine + ((uint64_t)z * hb.size[1] + y) * row, want + at * elem, row);
        }
    if (!pass)
        fprintf(stderr, "rank %d: its tile differs from one device's run of the whole\n",
                world_rank);
    MPI_Allreduce(MPI_IN_PLACE, &pass, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    free(mine), free((void *)want);
    return pass;
}

/* ------------------------------------------------------------------ the row */

static double gbps(const rjob *j, double ms)
{
    double bytes = (double)(box_count(&j->owned) + box_count(&j->out)) *
                   dmlcl_data_type_size(j->c->data_type);
    return ms > 0 ? bytes / ms / 1e6 : 0;
}

void resident_bench(const case_spec *c, const uint32_t *grid, const resident_options *o,
                    dmlcl_context *ctx)
{
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    cl_command_queue q = dmlcl_context_queue(ctx);
    const uint32_t flags = (o->overlap ? DMLCL_MPI_OVERLAP : 0) | (o->phases ? DMLCL_MPI_PROFILE : 0);
    limits lim = job_limits(ctx);
    if (o->max_buffer_mb && (o->max_buffer_mb << 20) < lim.max_alloc) /* as dmlcl bench's */
        lim.max_alloc = o->max_buffer_mb << 20;
    uint32_t field[DIMS], one[DIMS] = {1, 1, 1}, ref_field[DIMS];
    char note[400];
    size_field(c, grid, o->weak, o->mb, &lim, field, note, sizeof note);

    /* The reference: one rank's share (weak) or the whole field (strong) on rank 0 alone,
     * where it fits one device; else none (a field past one device is the point). */
    uint64_t rin, rout;
    for (int d = 0; d < DIMS; d++)
        ref_field[d] = o->weak ? field[d] / grid[d] : field[d];
    tile_bytes(c, ref_field, one, &rin, &rout);
    const int ref_fits = fits(rin, rout, &lim);
    double ref[PARTS] = {0, 0, 0}, ref_gbps = 0;
    watch("the 1-rank reference (rank 0 alone; the others wait)", 1);
    if (world_rank == 0 && ref_fits) {
        rjob r;
        rjob_setup(&r, MPI_COMM_SELF, ctx, c, ref_field, one, flags);
        time_parts(&r, MPI_COMM_SELF, q, o->iters, ref, NULL);
        ref_gbps = gbps(&r, ref[STEP]);
        rjob_free(&r);
    }
    quiet_barrier(MPI_COMM_WORLD);

    rjob j;
    watch("setup: layouts, operator, fields, the input written", 1);
    rjob_setup(&j, MPI_COMM_WORLD, ctx, c, field, grid, flags);
    watch("the timed steps", 1);
    double ms[PARTS], worst[PARTS], rate = 0, slowest_rate, ph[PHASES];
    time_parts(&j, MPI_COMM_WORLD, q, o->iters, ms, o->phases ? ph : NULL);
    watch(o->check ? "the check" : "the row", 1);
    rate = gbps(&j, ms[STEP]);
    MPI_Reduce(ms, worst, PARTS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&rate, &slowest_rate, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    dmlcl_mpi_halo_stats hs;
    dmlcl_mpi_field_halo_stats(j.fi, &hs);
    unsigned long long face = hs.updates ? hs.bytes_received / hs.updates : 0, most_face;
    MPI_Reduce(&face, &most_face, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);

    /* The check: bit for bit where one device holds the whole field, else sampled. */
    const char *verdict = "-";
    char why[300] = "";
    uint64_t win, wout;
    tile_bytes(c, field, one, &win, &wout);
    if (o->check) {
        if (fits(win, wout, &lim)) {
            verdict = full_check(&j, ctx) ? "PASS (bit for bit)" : "FAIL (bit for bit)";
        } else if (c->data_type != DMLCL_TENSOR_DATA_TYPE_FLOAT32) {
            verdict = "not checked (no sampled reference for this type)";
        } else {
            int bad = sampled_check(&j, q, 2048, why, sizeof why);
            verdict = bad ? "FAIL (sampled)" : "PASS (2048 sampled outputs per rank)";
        }
    }
    if (world_rank == 0) {
        uint32_t in[DIMS], out[DIMS];
        case_sizes(c, field, in, out);
        const double eb = dmlcl_data_type_size(c->data_type);
        double eff = !ref_fits ? 0 : o->weak ? ref[STEP] / worst[STEP]
                                             : ref[STEP] / (ranks * worst[STEP]);
        printf("# %s %s: %s; whole output %.0f MiB (%s one device); halo faces %.2f MiB per "
               "update (largest)\n",
               o->weak ? "weak" : "strong", c->name, note, wout / 1048576.0,
               fits(win, wout, &lim) ? "fits" : "exceeds", most_face / 1048576.0);
        if (o->header)
            printf("| mode | case | ranks | grid | field (input) | MiB in per rank | kernel ms | "
                   "halo ms | step ms | step/kernel | 1-rank step ms | efficiency | GB/s per GPU | "
                   "1-rank GB/s | check |\n"
                   "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        char ref_ms[32] = "-", eff_s[32] = "-", ref_rate[32] = "-";
        if (ref_fits) {
            snprintf(ref_ms, sizeof ref_ms, "%.2f", ref[STEP]);
            snprintf(eff_s, sizeof eff_s, "%.2f", eff);
            snprintf(ref_rate, sizeof ref_rate, "%.0f", ref_gbps);
        }
        printf("| resident %s | %s | %d | %ux%ux%u | %ux%ux%u | %.1f | %.2f | %.2f | %.2f | %.3f | "
               "%s | %s | %.0f | %s | %s |\n",
               o->weak ? "weak" : "strong", c->name, ranks, grid[0], grid[1], grid[2], in[0], in[1],
               in[2], (double)in[0] * in[1] * in[2] * eb / ranks / 1048576.0, worst[KERNEL],
               worst[HALO], worst[STEP], worst[STEP] / worst[KERNEL], ref_ms, eff_s, slowest_rate,
               ref_rate, verdict);
        fflush(stdout);
    }
    if (o->phases)
        print_phases(c, ph, o->iters);
    rjob_free(&j);
    watch("between rows", 1);
}
