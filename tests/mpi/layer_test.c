/* The MPI layer (include/dmlcl_mpi.h) on real MPI processes and POCL: every case, cut
 * over grids of the job's ranks (slabs, 2-D, cuts of the last dimension, uneven cuts,
 * empty boxes, 4-D), run twice through dmlcl_mpi_operator_run on device-resident fields
 * and compared bit for bit with one device's run of the whole tensors; each halo update
 * moves exactly the elements a rank reads and does not own (the layer's byte counts
 * against the box arithmetic); with DMLCL_MPI_OVERLAP the same bits. REVERSE_SUBSEQUENCES
 * with its lengths cut alike, bit for bit, and its rules. Then the faults,
 * each on every rank with the failing rank and the rule in the message, and the job
 * going on afterwards (no hang): ranks that disagree on the tensor or the grid, a grid
 * that does not fit, a descriptor that does not match the layouts, a field without the
 * halo, a buffer too small on one rank, a rank out of device memory, a buffer over the
 * device's largest allocation. Run under mpiexec with 1-4 ranks (tests/mpi/mpi_test.sh);
 * prints PASS/FAIL lines and "layer: N passed, N failed" on rank 0. */
#include <dmlcl_mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, ranks, passed, failed;
static dmlcl_context *ctx;

/* Every rank's verdict, one line from rank 0. */
static void verdict(const char *name, int ok, const char *why)
{
    int all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
        fprintf(stderr, "rank %d: %s: %s\n", rank, name, why);
    if (rank == 0)
        printf("%s: %s (%d rank%s)\n", all ? "PASS" : "FAIL", name, ranks, ranks == 1 ? "" : "s");
    fflush(stdout);
    all ? passed++ : failed++;
}

/* ------------------------------------------------------------------ cases */

typedef struct tcase {
    const char *name;
    dmlcl_operator_type type;
    dmlcl_interpolation_mode mode;
    float scale;
} tcase;

static const tcase LINEAR2X = {"linear2x", DMLCL_OPERATOR_RESAMPLE1, DMLCL_INTERPOLATION_MODE_LINEAR, 2};
static const tcase NEAREST = {"nearest0.5x", DMLCL_OPERATOR_RESAMPLE1,
                              DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 0.5f};
static const tcase ANTIALIAS = {"antialias0.5x", DMLCL_OPERATOR_RESAMPLE3,
                                DMLCL_INTERPOLATION_MODE_LINEAR, 0.5f};
static const tcase GRAD = {"linear2x-grad", DMLCL_OPERATOR_RESAMPLE_GRAD1,
                           DMLCL_INTERPOLATION_MODE_LINEAR, 2};

/* A descriptor over packed FLOAT32 tensors that points into itself. */
typedef struct tdesc {
    uint32_t dims, in_sizes[8], out_sizes[8];
    dmlcl_tensor_desc in, out;
    float scales[8], ioff[8], ooff[8];
    union {
        dmlcl_resample1_desc r1;
        dmlcl_resample3_desc r3;
        dmlcl_resample_grad1_desc g1;
    } u;
    dmlcl_operator_desc op;
} tdesc;

static uint32_t resized(uint32_t n, float s)
{
    double m = floor(n * (double)s + 0.5);
    return m < 1 ? 1 : (uint32_t)m;
}

/* field: the forward input's sizes (GRAD1: its output gradient's). */
static void tdesc_init(tdesc *t, const tcase *c, uint32_t dims, const uint32_t *field)
{
    memset(t, 0, sizeof *t);
    t->dims = dims;
    for (uint32_t d = 0; d < dims; d++) {
        uint32_t big = resized(field[d], c->scale);
        t->in_sizes[d] = c->type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? big : field[d];
        t->out_sizes[d] = c->type == DMLCL_OPERATOR_RESAMPLE_GRAD1 ? field[d] : big;
        t->scales[d] = c->scale, t->ioff[d] = 0.5f, t->ooff[d] = -0.5f;
    }
    t->in = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_FLOAT32, dims, t->in_sizes, NULL, 0};
    t->out = (dmlcl_tensor_desc){DMLCL_TENSOR_DATA_TYPE_FLOAT32, dims, t->out_sizes, NULL, 0};
    t->op.type = c->type;
    t->op.desc = &t->u;
    if (c->type == DMLCL_OPERATOR_RESAMPLE3)
        t->u.r3 = (dmlcl_resample3_desc){&t->in, &t->out, c->mode, DMLCL_AXIS_DIRECTION_INCREASING,
                                         dims, t->scales, t->ioff, t->ooff, 1};
    else if (c->type == DMLCL_OPERATOR_RESAMPLE_GRAD1)
        t->u.g1 = (dmlcl_resample_grad1_desc){&t->in, &t->out, c->mode,
                                              DMLCL_AXIS_DIRECTION_INCREASING, dims, t->scales,
                                              t->ioff, t->ooff};
    else
        t->u.r1 = (dmlcl_resample1_desc){&t->in, &t->out, c->mode, dims, t->scales, t->ioff, t->ooff};
}

static uint64_t count(const dmlcl_mpi_box *b)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < b->dimension_count; d++)
        n *= b->sizes[d];
    return n;
}

/* The value at global linear index g: exact floats in [-1, 1). */
static float value(uint64_t g)
{
    uint64_t x = (g + 1) * 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9u;
    return (float)((int64_t)((x ^ (x >> 29)) >> 40) - (1 << 23)) * 0x1p-23f;
}

/* Linear index in `whole` of the k-th element (row-major) of box b. */
static uint64_t global_of(const dmlcl_mpi_box *b, const uint32_t *whole, uint64_t k)
{
    uint64_t g = 0, div = count(b);
    for (uint32_t d = 0; d < b->dimension_count; d++) {
        div /= b->sizes[d];
        g = g * whole[d] + b->start[d] + k / div;
        k %= div;
    }
    return g;
}

/* Gathers every rank's packed box into `whole` on rank 0 (small fields: plain messages). */
static void gather(const dmlcl_mpi_box *mine, const float *data, const uint32_t *sizes,
                   float *whole)
{
    if (rank != 0) {
        MPI_Send(mine, sizeof *mine, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        MPI_Send(data, (int)count(mine), MPI_FLOAT, 0, 2, MPI_COMM_WORLD);
        return;
    }
    for (int r = 0; r < ranks; r++) {
        dmlcl_mpi_box b = *mine;
        float *part = (float *)data;
        if (r) {
            MPI_Recv(&b, sizeof b, MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            part = malloc(sizeof *part * (count(&b) + 1));
            MPI_Recv(part, (int)count(&b), MPI_FLOAT, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        for (uint64_t k = 0; k < count(&b); k++)
            whole[global_of(&b, sizes, k)] = part[k];
        if (r)
            free(part);
    }
}

/* The whole tensor of `sizes` on rank 0 from every rank's box (NULL on the others); *n:
 * its elements. */
static float *gather_whole(const dmlcl_mpi_box *mine, const float *data, uint32_t dims,
                           const uint32_t *sizes, uint64_t *n)
{
    *n = 1;
    for (uint32_t d = 0; d < dims; d++)
        *n *= sizes[d];
    float *whole = rank == 0 ? calloc(*n, sizeof *whole) : NULL;
    gather(mine, data, sizes, whole);
    return whole;
}

/* The whole tensors on one device: the reference. */
static float *reference(const tdesc *t)
{
    uint64_t ni = 1, no = 1;
    for (uint32_t d = 0; d < t->dims; d++)
        ni *= t->in_sizes[d], no *= t->out_sizes[d];
    float *in = malloc(sizeof *in * ni), *out = malloc(sizeof *out * no);
    for (uint64_t g = 0; g < ni; g++)
        in[g] = value(g);
    dmlcl_operator *op = NULL;
    if (dmlcl_operator_create(ctx, &t->op, &op) != DMLCL_SUCCESS ||
        dmlcl_operator_execute_host(op, (const void *const[]){in}, (void *const[]){out}) !=
            DMLCL_SUCCESS) {
        fprintf(stderr, "reference: %s\n", dmlcl_last_error());
        exit(2);
    }
    dmlcl_operator_release(op);
    free(in);
    return out;
}

/* 1 if the gathered outputs are the one-device run's, bit for bit; else why names the
 * first that differs. */
static int same_bits(const float *got, const float *want, uint64_t n, char *why, size_t cap)
{
    for (uint64_t g = 0; g < n; g++)
        if (memcmp(&got[g], &want[g], sizeof *got)) {
            snprintf(why, cap, "output %llu is %.9g, the one-device run %.9g",
                     (unsigned long long)g, got[g], want[g]);
            return 0;
        }
    return 1;
}

#define TRY(call)                                                                          \
    do {                                                                                   \
        dmlcl_status s_ = (call);                                                          \
        if (s_ != DMLCL_SUCCESS) {                                                         \
            snprintf(why, sizeof why, "%s: %s: %s", #call, dmlcl_status_string(s_),        \
                     dmlcl_mpi_last_error());                                              \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

/* A profiled run's phases (DMLCL_MPI_PROFILE): timed where this rank had them (faces read
 * where it sends, ghosts written where it receives, the host's waits where a halo moved),
 * each inside the device's span; "" if so, else why not. */
static const char *profile_problem(const dmlcl_mpi_run_profile *p, const dmlcl_mpi_halo_stats *st)
{
    const double starts[4] = {p->reads_start_ms, p->kernel_start_ms, p->writes_start_ms,
                              p->slabs_start_ms},
                 lengths[4] = {p->reads_ms, p->kernel_ms, p->writes_ms, p->slabs_ms};
    if (p->kernel_ms < 0 || p->device_ms < p->kernel_ms)
        return "the kernel or the device span is untimed";
    if ((p->reads_ms >= 0) != (st->send_ranks > 0))
        return "the faces' reads are timed where none ran, or untimed";
    if ((p->writes_ms >= 0) != (st->receive_ranks > 0))
        return "the ghosts' writes are timed where none ran, or untimed";
    if (p->reads_wait_ms < 0 || p->exchange_ms < 0)
        return "the host's waits are untimed";
    for (int k = 0; k < 4; k++)
        if (lengths[k] >= 0 && starts[k] + lengths[k] > p->device_ms + 1e-3)
            return "a phase ends after the device span";
    return "";
}

/* One case on one grid: two runs, bit for bit; faces only. */
static void bit_for_bit(const tcase *c, uint32_t dims, const uint32_t *field, const uint32_t *grid,
                        uint32_t flags, const char *label)
{
    char name[200], why[1200] = "";
    snprintf(name, sizeof name, "%s %s, %s%s", c->name, label,
             flags & DMLCL_MPI_OVERLAP ? "overlapped, bit for bit" : "bit for bit",
             flags & DMLCL_MPI_PROFILE ? ", profiled: every phase timed" : "");
    tdesc t;
    tdesc_init(&t, c, dims, field);
    dmlcl_mpi_layout *li = NULL, *lo = NULL;
    dmlcl_mpi_operator *op = NULL;
    dmlcl_mpi_field *fi = NULL, *fo = NULL;
    float *in = NULL, *out = NULL, *got = NULL, *want = NULL;
    int ok = 0;
    TRY(dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, dims, t.in_sizes, grid, &li));
    TRY(dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, dims, t.out_sizes, grid, &lo));
    TRY(dmlcl_mpi_operator_create(ctx, &t.op, li, lo, flags, &op));
    TRY(dmlcl_mpi_field_create(ctx, li, op, NULL, &fi));
    TRY(dmlcl_mpi_field_create(ctx, lo, NULL, NULL, &fo));
    dmlcl_mpi_box owned, oout, needed, ghost;
    dmlcl_mpi_field_buffer(fi, &ghost, &owned, NULL);
    dmlcl_mpi_field_buffer(fo, NULL, &oout, NULL);
    dmlcl_mpi_operator_input_box(op, -1, &needed);
    in = malloc(sizeof *in * (count(&owned) + 1));
    out = malloc(sizeof *out * (count(&oout) + 1));
    for (uint64_t k = 0; k < count(&owned); k++)
        in[k] = value(global_of(&owned, t.in_sizes, k));
    TRY(dmlcl_mpi_field_write(fi, in));
    TRY(dmlcl_mpi_operator_run(op, fi, fo, 0));
    TRY(dmlcl_mpi_operator_run(op, fi, fo, 0)); /* a second update: the same ghosts again */
    TRY(dmlcl_mpi_field_read(fo, out));

    /* Faces only: each update moves what this rank reads and does not own, nothing more
     * (the owned boxes tile the tensor, so each such element comes once). */
    dmlcl_mpi_halo_stats st;
    dmlcl_mpi_field_halo_stats(fi, &st);
    uint64_t inside = 1;
    for (uint32_t d = 0; d < dims; d++) {
        int64_t lo_ = needed.start[d] > owned.start[d] ? needed.start[d] : owned.start[d];
        int64_t hi = (int64_t)needed.start[d] + needed.sizes[d];
        int64_t ohi = (int64_t)owned.start[d] + owned.sizes[d];
        hi = hi < ohi ? hi : ohi;
        inside *= hi > lo_ ? (uint64_t)(hi - lo_) : 0;
    }
    uint64_t expect = (count(&needed) - inside) * sizeof(float);
    if (st.updates != 2 || st.bytes_received != 2 * expect) {
        snprintf(why, sizeof why, "halo stats: %llu updates, %llu bytes received; expected 2 "
                 "updates of %llu bytes (the needed box less the owned part)",
                 (unsigned long long)st.updates, (unsigned long long)st.bytes_received,
                 (unsigned long long)expect);
        goto done;
    }
    dmlcl_mpi_run_profile prof;
    if (flags & DMLCL_MPI_PROFILE) { /* field_read waited for the run */
        TRY(dmlcl_mpi_operator_profile(op, &prof));
        const char *problem = profile_problem(&prof, &st);
        if (*problem) {
            snprintf(why, sizeof why, "%s (kernel %g ms, device %g, reads %g, writes %g)",
                     problem, prof.kernel_ms, prof.device_ms, prof.reads_ms, prof.writes_ms);
            goto done;
        }
    }
    uint64_t no;
    got = gather_whole(&oout, out, dims, t.out_sizes, &no);
    ok = 1;
    if (rank == 0) {
        want = reference(&t);
        ok = same_bits(got, want, no, why, sizeof why);
    }
done:
    verdict(name, ok, why);
    dmlcl_mpi_field_release(fi);
    dmlcl_mpi_field_release(fo);
    dmlcl_mpi_operator_release(op);
    dmlcl_mpi_layout_release(li);
    dmlcl_mpi_layout_release(lo);
    free(in), free(out), free(got), free(want);
}

/* Runs in a chain, each reading the field the one before wrote (A -> B -> A -> B -> A):
 * a linear resample of scale 1 shifted by a quarter of an element, so that every output
 * reads a neighbour and each cut leaves boundary slabs, which run beside the interior on
 * the operator's second queue. Bit for bit against as many runs of the whole tensor on one
 * device: a run whose slabs were not done before the next run read their outputs (its
 * faces, its interior) would differ. */
static void chained_runs(uint32_t dims, const uint32_t *field, const uint32_t *grid,
                         const char *label)
{
    static const tcase SHIFT = {"linear1x-shifted", DMLCL_OPERATOR_RESAMPLE1,
                                DMLCL_INTERPOLATION_MODE_LINEAR, 1};
    enum { RUNS = 4 };
    char name[200], why[1200] = "";
    snprintf(name, sizeof name, "%s %s, %d chained runs overlapped, bit for bit", SHIFT.name,
             label, RUNS);
    tdesc t;
    tdesc_init(&t, &SHIFT, dims, field);
    for (uint32_t d = 0; d < dims; d++)
        t.ooff[d] = -0.25f; /* x = o - 0.25: outputs o - 1 and o, weights 1/4 and 3/4 */
    dmlcl_mpi_layout *l = NULL;
    dmlcl_mpi_operator *op = NULL;
    dmlcl_mpi_field *f[2] = {NULL, NULL};
    float *data = NULL, *got = NULL, *want = NULL, *tmp = NULL;
    dmlcl_operator *whole = NULL;
    int ok = 0;
    TRY(dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, dims, t.in_sizes, grid, &l));
    TRY(dmlcl_mpi_operator_create(ctx, &t.op, l, l, DMLCL_MPI_OVERLAP, &op));
    TRY(dmlcl_mpi_field_create(ctx, l, op, NULL, &f[0]));
    TRY(dmlcl_mpi_field_create(ctx, l, op, NULL, &f[1]));
    dmlcl_mpi_box owned;
    dmlcl_mpi_field_buffer(f[0], NULL, &owned, NULL);
    data = malloc(sizeof *data * (count(&owned) + 1));
    for (uint64_t k = 0; k < count(&owned); k++)
        data[k] = value(global_of(&owned, t.in_sizes, k));
    TRY(dmlcl_mpi_field_write(f[0], data));
    for (int r = 0; r < RUNS; r++)
        TRY(dmlcl_mpi_operator_run(op, f[r % 2], f[(r + 1) % 2], 0));
    TRY(dmlcl_mpi_field_read(f[RUNS % 2], data));
    uint64_t n;
    got = gather_whole(&owned, data, dims, t.in_sizes, &n);
    ok = 1;
    if (rank == 0) { /* the whole tensor, RUNS times on one device */
        want = malloc(sizeof *want * n), tmp = malloc(sizeof *tmp * n);
        for (uint64_t g = 0; g < n; g++)
            want[g] = value(g);
        TRY(dmlcl_operator_create(ctx, &t.op, &whole));
        for (int r = 0; r < RUNS; r++) {
            TRY(dmlcl_operator_execute_host(whole, (const void *const[]){want},
                                            (void *const[]){tmp}));
            float *swap = want;
            want = tmp, tmp = swap;
        }
        ok = same_bits(got, want, n, why, sizeof why);
    }
done:
    verdict(name, ok, why);
    dmlcl_operator_release(whole);
    dmlcl_mpi_field_release(f[0]);
    dmlcl_mpi_field_release(f[1]);
    dmlcl_mpi_operator_release(op);
    dmlcl_mpi_layout_release(l);
    free(data), free(got), free(want), free(tmp);
}

/* ------------------------------------------------------------------ REVERSE_SUBSEQUENCES */

static void expect_fault(const char *name, dmlcl_status got, dmlcl_status status,
                         const char *needle1, const char *needle2);

/* Sequence length of lengths element g: 0 .. axis length + 1 (past the axis: the whole). */
static uint32_t length_of(uint64_t g, uint32_t axis_size)
{
    return (uint32_t)(((g + 7) * 0x9e3779b97f4a7c15u >> 40) % (axis_size + 2));
}

/* Reverses a field cut by grid (1 along axis) with lengths cut alike, twice, and compares
 * the gathered output with one device's run of the whole tensors, bit for bit. */
static void reverse_case(uint32_t dims, const uint32_t *sizes, uint32_t axis, const uint32_t *grid,
                         uint32_t flags, const char *label)
{
    char name[200], why[1200] = "";
    snprintf(name, sizeof name, "reverse_subsequences %s, %s", label,
             flags & DMLCL_MPI_OVERLAP ? "overlapped, bit for bit" : "bit for bit");
    uint32_t lsizes[8];
    memcpy(lsizes, sizes, sizeof *sizes * dims);
    lsizes[axis] = 1;
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, dims, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, dims, lsizes, NULL, 0};
    dmlcl_reverse_subsequences_desc rs = {&ti, &tl, &ti, axis};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rs};
    dmlcl_mpi_layout *li = NULL, *ll = NULL, *lo = NULL;
    dmlcl_mpi_operator *op = NULL;
    dmlcl_mpi_field *fi = NULL, *fl = NULL, *fo = NULL;
    float *in = NULL, *out = NULL, *got = NULL, *want = NULL, *whole = NULL;
    uint32_t *len = NULL, *wlen = NULL;
    int ok = 0;
    TRY(dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, dims, sizes, grid, &li));
    TRY(dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_UINT32, dims, lsizes, grid, &ll));
    TRY(dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, dims, sizes, grid, &lo));
    TRY(dmlcl_mpi_operator_create(ctx, &od, li, lo, flags, &op));
    TRY(dmlcl_mpi_field_create(ctx, li, op, NULL, &fi));
    TRY(dmlcl_mpi_field_create(ctx, ll, NULL, NULL, &fl));
    TRY(dmlcl_mpi_field_create(ctx, lo, NULL, NULL, &fo));
    dmlcl_mpi_box owned, lbox, obox;
    dmlcl_mpi_field_buffer(fi, NULL, &owned, NULL);
    dmlcl_mpi_field_buffer(fl, NULL, &lbox, NULL);
    dmlcl_mpi_field_buffer(fo, NULL, &obox, NULL);
    in = malloc(sizeof *in * (count(&owned) + 1));
    out = malloc(sizeof *out * (count(&obox) + 1));
    len = malloc(sizeof *len * (count(&lbox) + 1));
    for (uint64_t k = 0; k < count(&owned); k++)
        in[k] = value(global_of(&owned, sizes, k));
    for (uint64_t k = 0; k < count(&lbox); k++)
        len[k] = length_of(global_of(&lbox, lsizes, k), sizes[axis]);
    TRY(dmlcl_mpi_field_write(fi, in));
    TRY(dmlcl_mpi_field_write(fl, len));
    dmlcl_mpi_field *inputs[2] = {fi, fl}, *wrong[2] = {fi, fi};
    if (flags & DMLCL_MPI_OVERLAP) { /* the rules of the lengths, once */
        dmlcl_status st = dmlcl_mpi_operator_run(op, fi, fo, 0);
        expect_fault("reverse_subsequences run without its lengths", st, DMLCL_INVALID_ARGUMENT,
                     "input_count is 1: the operator reads 2 input fields (input, "
                     "sequence_lengths: dmlcl_mpi_operator_run_inputs)", "rank 0");
        st = dmlcl_mpi_operator_run_inputs(op, wrong, 2, fo, 0);
        expect_fault("reverse_subsequences with a lengths field of another tensor", st,
                     DMLCL_INVALID_ARGUMENT, "the sequence lengths field's layout (type",
                     "is not the descriptor's sequence_lengths_tensor");
    }
    TRY(dmlcl_mpi_operator_run_inputs(op, inputs, 2, fo, 0));
    TRY(dmlcl_mpi_operator_run_inputs(op, inputs, 2, fo, 0));
    TRY(dmlcl_mpi_field_read(fo, out));
    uint64_t n = 1, nl = 1;
    for (uint32_t d = 0; d < dims; d++)
        n *= sizes[d], nl *= lsizes[d];
    if (rank == 0)
        got = calloc(n, sizeof *got);
    gather(&obox, out, sizes, got);
    ok = 1;
    if (rank == 0) {
        whole = malloc(sizeof *whole * n), want = malloc(sizeof *want * n);
        wlen = malloc(sizeof *wlen * nl);
        for (uint64_t g = 0; g < n; g++)
            whole[g] = value(g);
        for (uint64_t g = 0; g < nl; g++)
            wlen[g] = length_of(g, sizes[axis]);
        dmlcl_operator *ref = NULL;
        if (dmlcl_operator_create(ctx, &od, &ref) != DMLCL_SUCCESS ||
            dmlcl_operator_execute_host(ref, (const void *const[]){whole, wlen},
                                        (void *const[]){want}) != DMLCL_SUCCESS) {
            snprintf(why, sizeof why, "reference: %s", dmlcl_last_error());
            ok = 0;
        }
        dmlcl_operator_release(ref);
        ok = ok && same_bits(got, want, n, why, sizeof why);
    }
done:
    verdict(name, ok, why);
    dmlcl_mpi_field_release(fi);
    dmlcl_mpi_field_release(fl);
    dmlcl_mpi_field_release(fo);
    dmlcl_mpi_operator_release(op);
    dmlcl_mpi_layout_release(li);
    dmlcl_mpi_layout_release(ll);
    dmlcl_mpi_layout_release(lo);
    free(in), free(out), free(len), free(got), free(want), free(whole), free(wlen);
}

/* ------------------------------------------------------------------ faults */

/* The call failed on every rank with `status` and a message holding every needle. */
static void expect_fault(const char *name, dmlcl_status got, dmlcl_status status,
                         const char *needle1, const char *needle2)
{
    char why[1400] = "";
    int ok = got == status && strstr(dmlcl_mpi_last_error(), needle1) &&
             (!needle2 || strstr(dmlcl_mpi_last_error(), needle2));
    if (!ok)
        snprintf(why, sizeof why, "got %s \"%s\"; expected %s with \"%s\"%s%s",
                 dmlcl_status_string(got), dmlcl_mpi_last_error(), dmlcl_status_string(status),
                 needle1, needle2 ? " and " : "", needle2 ? needle2 : "");
    verdict(name, ok, why);
}

/* DMLCL_MPI_PROFILE on a context queue that does not profile (the last rank's), and a
 * profile asked before any run. */
static void profile_faults(const dmlcl_operator_desc *desc, dmlcl_mpi_layout *l,
                           dmlcl_mpi_layout *lo)
{
    cl_int err;
    dmlcl_context *plain = NULL;
    dmlcl_mpi_operator *op = NULL;
    cl_command_queue q = clCreateCommandQueue(dmlcl_context_cl_context(ctx),
                                              dmlcl_context_device(ctx), 0, &err);
    dmlcl_context_create(dmlcl_context_cl_context(ctx), dmlcl_context_device(ctx), q, &plain);
    clReleaseCommandQueue(q);
    dmlcl_status st = dmlcl_mpi_operator_create(rank == ranks - 1 ? plain : ctx, desc, l, lo,
                                                DMLCL_MPI_PROFILE, &op);
    char needle[64];
    snprintf(needle, sizeof needle, "rank %d: flags: DMLCL_MPI_PROFILE needs", ranks - 1);
    expect_fault("DMLCL_MPI_PROFILE on a queue without profiling", st, DMLCL_INVALID_ARGUMENT,
                 needle, "made with CL_QUEUE_PROFILING_ENABLE");
    dmlcl_context_release(plain);
    st = dmlcl_mpi_operator_create(ctx, desc, l, lo, DMLCL_MPI_PROFILE, &op);
    dmlcl_mpi_run_profile prof;
    if (st == DMLCL_SUCCESS)
        st = dmlcl_mpi_operator_profile(op, &prof);
    expect_fault("a profile before any run", st, DMLCL_INVALID_ARGUMENT, "has not run yet", NULL);
    dmlcl_mpi_operator_release(op);
}

static void faults(void)
{
    const uint32_t grid[3] = {(uint32_t)ranks, 1, 1}, field[3] = {6, 5, 7};
    dmlcl_mpi_layout *l = NULL, *lo = NULL;
    dmlcl_mpi_operator *op = NULL;
    dmlcl_mpi_field *f = NULL, *g = NULL;
    char needle[64];
    dmlcl_status st;

    if (ranks > 1) { /* the last rank passes another tensor */
        uint32_t mine[3] = {6, 5, rank == ranks - 1 ? 8u : 7u};
        snprintf(needle, sizeof needle, "rank %d's sizes[2] is 8, rank 0's 7", ranks - 1);
        st = dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, mine, grid, &l);
        expect_fault("ranks that disagree on the tensor", st, DMLCL_INVALID_ARGUMENT, needle,
                     "every rank must pass the same tensor and grid");
        uint32_t their[3] = {(uint32_t)ranks, 1, 1};
        if (rank == ranks - 1)
            their[0] = 1, their[2] = (uint32_t)ranks;
        st = dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, field, their, &l);
        snprintf(needle, sizeof needle, "rank %d's grid[0] is 1", ranks - 1);
        expect_fault("ranks that disagree on the grid", st, DMLCL_INVALID_ARGUMENT, needle, NULL);
    }
    uint32_t wrong[3] = {(uint32_t)ranks + 1, 1, 1};
    st = dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, field, wrong, &l);
    expect_fault("a grid that does not fit the ranks", st, DMLCL_INVALID_ARGUMENT, "rank 0: the grid has",
                 "must equal the communicator's size");

    /* REVERSE_SUBSEQUENCES on layouts that cut its axis. */
    if (ranks > 1) {
        uint32_t ls[3] = {6, 5, 1};
        dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, field, NULL, 0};
        dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 3, ls, NULL, 0};
        dmlcl_reverse_subsequences_desc rs = {&ti, &tl, &ti, 0};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rs};
        ls[0] = 1, ls[2] = 7;
        dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, field, grid, &l);
        st = dmlcl_mpi_operator_create(ctx, &od, l, l, 0, &op);
        snprintf(needle, sizeof needle, "cuts the axis (grid[0] = %d)", ranks);
        expect_fault("REVERSE_SUBSEQUENCES on a cut axis", st, DMLCL_INVALID_ARGUMENT, needle,
                     "rank 0: REVERSE_SUBSEQUENCES");
        dmlcl_mpi_layout_release(l);
    }

    /* A descriptor whose input is not the layout's tensor. */
    tdesc t;
    tdesc_init(&t, &LINEAR2X, 3, field);
    uint32_t other[3] = {6, 5, 9};
    if (dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, other, grid, &l) ||
        dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, t.out_sizes, grid, &lo)) {
        verdict("layouts for the faults", 0, dmlcl_mpi_last_error());
        return;
    }
    st = dmlcl_mpi_operator_create(ctx, &t.op, l, lo, 0, &op);
    expect_fault("a descriptor that is not the layouts' tensors", st, DMLCL_INVALID_ARGUMENT,
                 "input tensor has sizes[2] = 7, the input layout 9", "rank 0");
    dmlcl_mpi_layout_release(l);
    dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3, t.in_sizes, grid, &l);
    profile_faults(&t.op, l, lo);
    st = dmlcl_mpi_operator_create(ctx, &t.op, l, lo, 0, &op);
    verdict("the operator after the faults", st == DMLCL_SUCCESS, dmlcl_mpi_last_error());
    if (st != DMLCL_SUCCESS)
        return;
    dmlcl_mpi_run_profile prof;
    expect_fault("a profile of an operator made without DMLCL_MPI_PROFILE",
                 dmlcl_mpi_operator_profile(op, &prof), DMLCL_INVALID_ARGUMENT,
                 "made without DMLCL_MPI_PROFILE", NULL);

    if (ranks > 1) { /* a field created without the operator's halo */
        dmlcl_mpi_field_create(ctx, l, NULL, NULL, &f);
        dmlcl_mpi_field_create(ctx, lo, NULL, NULL, &g);
        st = dmlcl_mpi_operator_run(op, f, g, 0);
        expect_fault("a field without the halo", st, DMLCL_INVALID_ARGUMENT, "does not hold the halo",
                     "dmlcl_mpi_operator_run: rank "); /* the lowest rank whose halo is outside */
        dmlcl_mpi_field_release(f), f = NULL;
    }

    /* The last rank's own buffer is too small. */
    cl_int err;
    cl_mem small = clCreateBuffer(dmlcl_context_cl_context(ctx), CL_MEM_READ_WRITE, 64, NULL, &err);
    dmlcl_buffer_binding b = {small, 0, 0};
    st = dmlcl_mpi_field_create(ctx, l, op, rank == ranks - 1 ? &b : NULL, &f);
    snprintf(needle, sizeof needle, "rank %d: buffer too small", ranks - 1);
    expect_fault("a buffer too small on one rank", st, DMLCL_INVALID_ARGUMENT, needle, "holds 64");
    clReleaseMemObject(small);

    /* The last rank runs out of device memory. */
    dmlcl_mpi_test_fail_next_alloc(rank == ranks - 1);
    st = dmlcl_mpi_field_create(ctx, l, op, NULL, &f);
    snprintf(needle, sizeof needle, "rank %d: clCreateBuffer", ranks - 1);
    expect_fault("a rank out of device memory", st, DMLCL_OUT_OF_MEMORY, needle,
                 "CL_MEM_OBJECT_ALLOCATION_FAILURE");

    /* After all that, the same objects still work. */
    st = dmlcl_mpi_field_create(ctx, l, op, NULL, &f);
    if (st == DMLCL_SUCCESS && !g)
        st = dmlcl_mpi_field_create(ctx, lo, NULL, NULL, &g);
    if (st == DMLCL_SUCCESS)
        st = dmlcl_mpi_operator_run(op, f, g, 0);
    verdict("a run after the faults", st == DMLCL_SUCCESS, dmlcl_mpi_last_error());
    dmlcl_mpi_field_release(f);
    dmlcl_mpi_field_release(g);
    dmlcl_mpi_operator_release(op);
    dmlcl_mpi_layout_release(l);
    dmlcl_mpi_layout_release(lo);

    /* A buffer over the device's largest allocation: refused before allocating. */
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(dmlcl_context_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                    &max_alloc, NULL);
    if (max_alloc / 8 + 1 <= UINT32_MAX) {
        uint32_t huge[2] = {(uint32_t)ranks, (uint32_t)(max_alloc / 8 + 1)}, g2[2] = {(uint32_t)ranks, 1};
        dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT64, 2, huge, g2, &l);
        st = dmlcl_mpi_field_create(ctx, l, NULL, NULL, &f);
        expect_fault("a buffer over CL_DEVICE_MAX_MEM_ALLOC_SIZE", st, DMLCL_OUT_OF_MEMORY,
                     "rank 0: the ghosted buffer", "CL_DEVICE_MAX_MEM_ALLOC_SIZE");
        dmlcl_mpi_layout_release(l);
    }
}

/* ------------------------------------------------------------------ time limits */

/* Fields for a 2x linear run on slabs; 0 on failure (reported). */
static int timeout_setup(tdesc *t, dmlcl_mpi_layout **li, dmlcl_mpi_layout **lo,
                         dmlcl_mpi_operator **op, dmlcl_mpi_field **fi, dmlcl_mpi_field **fo)
{
    /* 4 planes per rank: rank 0's last outputs read rank 1's first plane. */
    const uint32_t grid[3] = {(uint32_t)ranks, 1, 1}, field[3] = {4 * (uint32_t)ranks, 5, 7};
    tdesc_init(t, &LINEAR2X, 3, field);
    dmlcl_status st = dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3,
                                              t->in_sizes, grid, li);
    if (!st)
        st = dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 3,
                                     t->out_sizes, grid, lo);
    if (!st)
        st = dmlcl_mpi_operator_create(ctx, &t->op, *li, *lo, 0, op);
    if (!st)
        st = dmlcl_mpi_field_create(ctx, *li, *op, NULL, fi);
    if (!st)
        st = dmlcl_mpi_field_create(ctx, *lo, NULL, NULL, fo);
    if (st)
        verdict("fields for the time limits", 0, dmlcl_mpi_last_error());
    return !st;
}

/* Every wait is bounded by DMLCL_MPI_TIMEOUT (set per rank here). A peer late past rank
 * 0's limit: rank 0 names the receive it waited in, and every rank returns that error
 * once the late rank arrives (within the limit of the agreement). A device that does not
 * finish (rank 1's queue held by a user event): the same, naming the device wait. */
static void time_limits(void)
{
    tdesc t;
    dmlcl_mpi_layout *li = NULL, *lo = NULL;
    dmlcl_mpi_operator *op = NULL;
    dmlcl_mpi_field *fi = NULL, *fo = NULL;
    dmlcl_status st;
    setenv("DMLCL_MPI_TIMEOUT", "0.5s", 1);
    st = dmlcl_mpi_layout_create(MPI_COMM_WORLD, DMLCL_TENSOR_DATA_TYPE_FLOAT32, 1,
                                 (uint32_t[]){8}, (uint32_t[]){(uint32_t)ranks}, &li);
    expect_fault("a malformed DMLCL_MPI_TIMEOUT", st, DMLCL_INVALID_ARGUMENT,
                 "DMLCL_MPI_TIMEOUT \"0.5s\": must be a number of seconds above 0", "rank 0");
    setenv("DMLCL_MPI_TIMEOUT", rank == 0 ? "2" : "30", 1);
    if (!timeout_setup(&t, &li, &lo, &op, &fi, &fo))
        return;
    if (rank == 1) /* past rank 0's 2 s, within its agreement's next 2 s */
        nanosleep(&(struct timespec){3, 0}, NULL);
    st = dmlcl_mpi_halo_update(fi); /* begin has no collective: the wait is end's */
    expect_fault("a rank late past the time limit", st, DMLCL_IO_ERROR,
                 "dmlcl_mpi_halo_end: rank 0: dmlcl_mpi_halo_end: MPI_Waitall: waited 2 s "
                 "(DMLCL_MPI_TIMEOUT) for the receive of 140 bytes from rank 1",
                 "did not take part in time");
    st = dmlcl_mpi_operator_run(op, fi, fo, 0);
    expect_fault("a field whose update ran out of time is done", st, DMLCL_IO_ERROR,
                 "rank 0: dmlcl_mpi_halo_begin: an earlier halo update of this field ran out "
                 "of time", NULL);
    dmlcl_mpi_field_release(fi), fi = NULL;
    st = dmlcl_mpi_field_create(ctx, li, op, NULL, &fi);

    setenv("DMLCL_MPI_TIMEOUT", rank == 1 ? "1" : "30", 1);
    cl_event hold = NULL;
    cl_command_queue q = dmlcl_context_queue(ctx);
    if (rank == 1) {
        hold = clCreateUserEvent(dmlcl_context_cl_context(ctx), NULL);
        clEnqueueMarkerWithWaitList(q, 1, &hold, NULL);
    }
    if (!st)
        st = dmlcl_mpi_operator_run(op, fi, fo, 0);
    expect_fault("a device that does not finish", st, DMLCL_OPENCL_ERROR,
                 "rank 1: dmlcl_mpi_halo_begin: the faces' reads: the device did not finish "
                 "within 1 s (DMLCL_MPI_TIMEOUT)", NULL);
    if (hold)
        clSetUserEventStatus(hold, CL_COMPLETE), clReleaseEvent(hold), clFinish(q);
    unsetenv("DMLCL_MPI_TIMEOUT");
    dmlcl_mpi_field_release(fi);
    dmlcl_mpi_field_release(fo);
    dmlcl_mpi_operator_release(op);
    dmlcl_mpi_layout_release(li);
    dmlcl_mpi_layout_release(lo);
}

/* Rank 1 stays away from a collective call (asleep 60 s) past the others' 2 s: no answer
 * can be agreed, so rank 0 prints what it waited in and ends the job (mpi_test.sh checks
 * the message and a failing exit within seconds). */
static void absent_rank(void)
{
    tdesc t;
    dmlcl_mpi_layout *li = NULL, *lo = NULL;
    dmlcl_mpi_operator *op = NULL;
    dmlcl_mpi_field *fi = NULL, *fo = NULL;
    if (!timeout_setup(&t, &li, &lo, &op, &fi, &fo))
        return;
    setenv("DMLCL_MPI_TIMEOUT", "2", 1);
    if (rank == 1)
        nanosleep(&(struct timespec){60, 0}, NULL);
    dmlcl_mpi_operator_run(op, fi, fo, 0);
    verdict("the job ended at the time limit", 0, "the run returned");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (dmlcl_context_create_default(&ctx) != DMLCL_SUCCESS) {
        fprintf(stderr, "rank %d: %s\n", rank, dmlcl_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2); /* the test may; the layer never does */
    }
    const char *only = argc > 1 ? argv[1] : "all";
    int dims2[2] = {0, 0};
    MPI_Dims_create(ranks, 2, dims2);
    const uint32_t P = (uint32_t)ranks, slab[3] = {P, 1, 1}, two[3] = {(uint32_t)dims2[0], (uint32_t)dims2[1], 1},
                   xcut[3] = {1, 1, P}, f657[3] = {6, 5, 7}, f3[3] = {3, 4, 3}, f12[3] = {12, 4, 5};
    if (!strcmp(only, "all") || !strcmp(only, "cases")) {
        bit_for_bit(&LINEAR2X, 3, f657, slab, 0, "6x5x7 slabs");
        bit_for_bit(&LINEAR2X, 3, f657, two, 0, "6x5x7 2-D grid");
        bit_for_bit(&LINEAR2X, 3, f657, xcut, 0, "6x5x7 cut along X");
        bit_for_bit(&ANTIALIAS, 3, f657, slab, 0, "6x5x7 slabs");
        bit_for_bit(&GRAD, 3, f657, two, 0, "6x5x7 2-D grid");
        bit_for_bit(&NEAREST, 3, f3, slab, 0, "3x4x3 slabs (empty boxes)");
        bit_for_bit(&ANTIALIAS, 3, f3, slab, 0, "3x4x3 slabs (tiles thinner than the halo)");
        bit_for_bit(&LINEAR2X, 3, f12, slab, DMLCL_MPI_OVERLAP, "12x4x5 slabs");
        bit_for_bit(&GRAD, 3, f12, two, DMLCL_MPI_OVERLAP | DMLCL_MPI_PROFILE, "12x4x5 2-D grid");
        const uint32_t f20[3] = {20, 6, 9};
        chained_runs(3, f20, slab, "20x6x9 slabs");
        chained_runs(3, f20, two, "20x6x9 2-D grid");
        const uint32_t f4[4] = {3, 2, 3, 5}, g4[4] = {1, 1, 1, P};
        bit_for_bit(&LINEAR2X, 4, f4, g4, 0, "4-D 3x2x3x5 cut along the last dimension");
    }
    if (!strcmp(only, "all") || !strcmp(only, "reverse")) {
        const uint32_t zy[3] = {(uint32_t)dims2[0], 1, (uint32_t)dims2[1]}, f4[4] = {2, 3, 4, 6},
                       g4[4] = {1, P, 1, 1};
        reverse_case(3, f657, 2, slab, 0, "6x5x7 along X, slabs");
        reverse_case(3, f657, 1, zy, DMLCL_MPI_OVERLAP, "6x5x7 along Y, a 2-D grid over Z and X");
        reverse_case(3, f3, 2, two, 0, "3x4x3 along X, a 2-D grid (empty boxes)");
        reverse_case(4, f4, 3, g4, 0, "4-D 2x3x4x6 along the last dimension");
    }
    if (!strcmp(only, "all") || !strcmp(only, "faults"))
        faults();
    if (ranks > 1 && !strcmp(only, "timeouts")) /* seconds of waiting: run once, at 2 ranks */
        time_limits();
    if (ranks > 1 && !strcmp(only, "absent"))
        absent_rank();
    if (rank == 0)
        printf("layer: %d passed, %d failed\n", passed, failed);
    dmlcl_context_release(ctx);
    MPI_Finalize();
    return failed ? 1 : 0;
}
