/* The halo update: faces read from the owners' device buffers into pinned staging, sent
 * with non-blocking MPI to the ranks that read them, written into their ghost regions. */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI counts are ints: a face goes in pieces of at most this many bytes. */
#define PIECE ((uint64_t)1 << 30)

static int pieces(uint64_t bytes) { return (int)((bytes + PIECE - 1) / PIECE); }

void exchange_free(exchange *ex, cl_command_queue q)
{
    static const char *const fn = "dmlcl_mpi_field_release";
    if (ex->last_write)
        mpil_event_wait(ex->last_write, fn), clReleaseEvent(ex->last_write);
    spans_release(ex->span, 4);
    if (ex->xq)
        mpil_finish(ex->xq, fn), clReleaseCommandQueue(ex->xq);
    if (ex->staging) {
        if (ex->host && clEnqueueUnmapMemObject(q, ex->staging, ex->host, 0, NULL, NULL) ==
                            CL_SUCCESS)
            mpil_finish(q, fn);
        clReleaseMemObject(ex->staging);
    }
    free(ex->send);
    free(ex->recv);
    free(ex->req);
    memset(ex, 0, sizeof *ex);
}

/* The faces of one side: receiving, rank r's face = our needed box ∩ r's owned box (what
 * we read and r owns); sending, r's needed box ∩ our owned box. Our own part never moves:
 * it is already in the buffer. */
static dmlcl_status list_faces(dmlcl_mpi_field *f, const box *needed_all, int receiving,
                               face **out, int *count, uint64_t *bytes)
{
    const dmlcl_mpi_layout *l = f->layout;
    face *list = calloc((size_t)l->size, sizeof *list);
    if (!list)
        return mpil_fail(DMLCL_OUT_OF_MEMORY, "out of host memory");
    int n = 0;
    for (int r = 0; r < l->size; r++) {
        box theirs, region;
        if (r == l->rank)
            continue;
        if (receiving) {
            dmlcl_mpi_layout_box(l, r, &theirs);
            if (!box_intersect(&f->needed, &theirs, &region))
                continue;
        } else if (!box_intersect(&needed_all[r], &f->owned, &region)) {
            continue;
        }
        list[n].rank = r;
        list[n].region = region;
        list[n].bytes = box_count(&region) * l->elem;
        list[n].at = *bytes;
        *bytes += list[n].bytes;
        n++;
    }
    *out = list;
    *count = n;
    return DMLCL_SUCCESS;
}

dmlcl_status exchange_plan(dmlcl_mpi_field *f, const box *needed_all)
{
    exchange *ex = &f->ex;
    uint64_t bytes = 0;
    dmlcl_status st = list_faces(f, needed_all, 1, &ex->recv, &ex->nrecv, &bytes);
    if (st == DMLCL_SUCCESS)
        st = list_faces(f, needed_all, 0, &ex->send, &ex->nsend, &bytes);
    if (st != DMLCL_SUCCESS)
        return st;
    f->stats.receive_ranks = (uint32_t)ex->nrecv;
    f->stats.send_ranks = (uint32_t)ex->nsend;
    for (int i = 0; i < ex->nrecv; i++)
        ex->nreq += pieces(ex->recv[i].bytes);
    for (int i = 0; i < ex->nsend; i++)
        ex->nreq += pieces(ex->send[i].bytes);
    ex->req = calloc((size_t)ex->nreq + 1, sizeof *ex->req);
    if (!ex->req)
        return mpil_fail(DMLCL_OUT_OF_MEMORY, "out of host memory");
    ex->staging_bytes = bytes;
    if (!bytes)
        return DMLCL_SUCCESS;
    /* Pinned host memory: the driver copies faces to and from it by DMA, and MPI reads
     * and writes it like any host memory. */
    cl_int err;
    ex->staging = clCreateBuffer(dmlcl_context_cl_context(f->ctx),
                                 CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        return mpil_cl_fail("clCreateBuffer (pinned staging for the halo faces)", err);
    ex->host = clEnqueueMapBuffer(dmlcl_context_queue(f->ctx), ex->staging, CL_TRUE,
                                  CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return mpil_cl_fail("clEnqueueMapBuffer (pinned staging for the halo faces)", err);
    cl_device_id dev = NULL;
    err = clGetCommandQueueInfo(dmlcl_context_queue(f->ctx), CL_QUEUE_DEVICE, sizeof dev, &dev,
                                NULL);
    if (err == CL_SUCCESS)
        ex->xq = clCreateCommandQueue(dmlcl_context_cl_context(f->ctx), dev,
                                      ex->profile ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    if (err != CL_SUCCESS)
        return mpil_cl_fail("clCreateCommandQueue (the halo's reads and writes)", err);
    return DMLCL_SUCCESS;
}

/* Posts one face's pieces (receives or sends). */
static int post(exchange *ex, const face *fc, int sending, MPI_Comm comm, int tag, int *k)
{
    for (uint64_t off = 0; off < fc->bytes; off += PIECE) {
        uint64_t n = fc->bytes - off < PIECE ? fc->bytes - off : PIECE;
        void *p = ex->host + fc->at + off;
        int err = sending ? MPI_Isend(p, (int)n, MPI_BYTE, fc->rank, tag, comm, &ex->req[*k])
                          : MPI_Irecv(p, (int)n, MPI_BYTE, fc->rank, tag, comm, &ex->req[*k]);
        if (err != MPI_SUCCESS)
            return err;
        ++*k;
    }
    return MPI_SUCCESS;
}

static int tag_of(const dmlcl_mpi_field *f) { return f->tag % 32000; }

dmlcl_status dmlcl_mpi_halo_begin(dmlcl_mpi_field *f)
{
    cl_event reads = NULL;
    dmlcl_status st = mpil_halo_reads(f, NULL, &reads);
    return st == DMLCL_SUCCESS ? mpil_halo_sends(f, reads) : st;
}

/* The field's own queue waits for `after` (NULL: a marker of everything enqueued on the
 * field's context queue so far), so that the faces' reads see the field as the caller
 * last wrote it and the ghosts' writes behind them (the queue is in order) come after the
 * last step's readers of the ghosts; the context's queue goes on meanwhile (a run's
 * interior). Made even where this rank sends nothing: its ghosts' writes need the order. */
static cl_int order_after(dmlcl_mpi_field *f, cl_event after)
{
    cl_command_queue q = dmlcl_context_queue(f->ctx);
    cl_event mine = NULL;
    cl_int err = CL_SUCCESS;
    if (!after && (err = clEnqueueMarkerWithWaitList(q, 0, NULL, &mine)) == CL_SUCCESS)
        err = clFlush(q); /* another queue waits for it */
    if (err == CL_SUCCESS)
        err = clEnqueueBarrierWithWaitList(f->ex.xq, 1, after ? &after : &mine, NULL);
    if (mine)
        clReleaseEvent(mine);
    return err;
}

dmlcl_status mpil_halo_reads(dmlcl_mpi_field *f, cl_event after, cl_event *reads)
{
    exchange *ex = &f->ex;
    MPI_Comm comm = f->layout->comm;
    *reads = NULL;
    if (ex->in_flight)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "dmlcl_mpi_halo_begin: the field's update is in flight (call "
                         "dmlcl_mpi_halo_end first)");
    dmlcl_status st = DMLCL_SUCCESS;
    ex->in_flight = 1;
    for (int i = 0; i < ex->nreq; i++)
        ex->req[i] = MPI_REQUEST_NULL;
    if (ex->timed_out) /* its late messages would match this update's receives */
        st = mpil_fail(DMLCL_IO_ERROR,
                       "dmlcl_mpi_halo_begin: an earlier halo update of this field ran out "
                       "of time (DMLCL_MPI_TIMEOUT): release the field");
    if (ex->last_write) { /* the previous ghosts' writes still read the staging memory */
        dmlcl_status w = mpil_event_wait(ex->last_write,
                                         "dmlcl_mpi_halo_begin: the previous ghosts' writes");
        st = st == DMLCL_SUCCESS ? w : st;
        clReleaseEvent(ex->last_write);
        ex->last_write = NULL;
    }
    spans_release(ex->span, 4); /* a run took them, or nobody asks */
    int k = 0, err = MPI_SUCCESS;
    for (int i = 0; i < ex->nrecv && err == MPI_SUCCESS; i++)
        err = post(ex, &ex->recv[i], 0, comm, tag_of(f), &k);
    /* Every face in one go on the field's own queue, then one wait (in mpil_halo_sends):
     * the reads overlap each other's latency, and no kernel of the context's queue waits
     * for them. */
    cl_int cerr = ex->xq ? order_after(f, after) : CL_SUCCESS;
    if (cerr != CL_SUCCESS && st == DMLCL_SUCCESS)
        st = mpil_cl_fail("dmlcl_mpi_halo_begin: clEnqueueBarrierWithWaitList (the faces' "
                          "queue)", cerr);
    for (int i = 0; i < ex->nsend && cerr == CL_SUCCESS; i++)
        cerr = field_rect(f, ex->xq, &ex->send[i].region, ex->host + ex->send[i].at, 1, reads,
                          ex->profile ? &ex->span[SPAN_READ0] : NULL);
    if (cerr != CL_SUCCESS && st == DMLCL_SUCCESS)
        st = mpil_cl_fail("dmlcl_mpi_halo_begin: clEnqueueReadBufferRect (a face)", cerr);
    if (cerr == CL_SUCCESS && *reads && (cerr = clFlush(ex->xq)) && st == DMLCL_SUCCESS)
        st = mpil_cl_fail("dmlcl_mpi_halo_begin: clFlush (the faces' reads)", cerr);
    ex->posted = k, ex->post_err = err;
    ex->pending = st;
    return DMLCL_SUCCESS;
}

dmlcl_status mpil_halo_sends(dmlcl_mpi_field *f, cl_event reads)
{
    exchange *ex = &f->ex;
    MPI_Comm comm = f->layout->comm;
    dmlcl_status st = ex->pending;
    int k = ex->posted, err = ex->post_err;
    const double t0 = mpil_now_s();
    if (reads) { /* the last face's read: the queue is in order */
        dmlcl_status w = mpil_event_wait(reads, "dmlcl_mpi_halo_begin: the faces' reads");
        st = st == DMLCL_SUCCESS ? w : st;
        if (ex->profile)
            ex->span[SPAN_READ1] = reads;
        else
            clReleaseEvent(reads);
    }
    ex->sends_at_s = mpil_now_s();
    ex->reads_wait_ms = (ex->sends_at_s - t0) * 1e3;
    /* Sent even after a failed read (its bytes are then wrong, and end reports the failure
     * on every rank): a rank that stopped sending would leave its neighbours waiting. */
    for (int i = 0; i < ex->nsend && err == MPI_SUCCESS; i++)
        err = post(ex, &ex->send[i], 1, comm, tag_of(f), &k);
    if (err != MPI_SUCCESS && st == DMLCL_SUCCESS)
        st = mpil_mpi_fail("dmlcl_mpi_halo_begin: MPI_Isend/MPI_Irecv", err);
    ex->pending = st;
    return DMLCL_SUCCESS;
}

/* Request i of an update (the receives' pieces, then the sends'), for a timeout's message. */
static void describe(const void *ctx, int i, char *buf, size_t cap)
{
    const dmlcl_mpi_field *f = ctx;
    const exchange *ex = &f->ex;
    for (int side = 0; side < 2; side++) {
        const face *list = side ? ex->send : ex->recv;
        for (int k = 0, n = side ? ex->nsend : ex->nrecv; k < n; k++) {
            if (i < pieces(list[k].bytes)) {
                snprintf(buf, cap, "the %s of %llu bytes %s rank %d (a halo face, piece %d)",
                         side ? "send" : "receive", (unsigned long long)list[k].bytes,
                         side ? "to" : "from", list[k].rank, i);
                return;
            }
            i -= pieces(list[k].bytes);
        }
    }
}

dmlcl_status dmlcl_mpi_halo_end(dmlcl_mpi_field *f)
{
    exchange *ex = &f->ex;
    if (!ex->in_flight)
        return mpil_fail(DMLCL_INVALID_ARGUMENT,
                         "dmlcl_mpi_halo_end: no update in flight (call dmlcl_mpi_halo_begin "
                         "first)");
    ex->in_flight = 0;
    dmlcl_status st = ex->pending;
    dmlcl_status w = mpil_requests_wait(ex->nreq, ex->req, "dmlcl_mpi_halo_end: MPI_Waitall",
                                        describe, f);
    if (w != DMLCL_SUCCESS)
        ex->timed_out = w == DMLCL_IO_ERROR;
    ex->exchange_ms = (mpil_now_s() - ex->sends_at_s) * 1e3;
    st = st == DMLCL_SUCCESS ? w : st;
    /* Enqueued on the field's own queue, not waited for: they run beside whatever the
     * context's queue runs now (dmlcl_mpi_operator_run's interior, which reads no ghost),
     * and a barrier makes everything enqueued on the context's queue after this return
     * wait for them (in-order semantics for the caller). They queue behind begin's
     * barrier, so after the previous step's readers of the ghosts; the next begin waits
     * for these writes before reusing the staging memory. */
    cl_int cerr = CL_SUCCESS;
    for (int i = 0; i < ex->nrecv && cerr == CL_SUCCESS && st == DMLCL_SUCCESS; i++)
        cerr = field_rect(f, ex->xq, &ex->recv[i].region, ex->host + ex->recv[i].at, 0,
                          &ex->last_write, ex->profile ? &ex->span[SPAN_WRITE0] : NULL);
    if (ex->profile && ex->last_write)
        clRetainEvent(ex->last_write), ex->span[SPAN_WRITE1] = ex->last_write;
    if (cerr == CL_SUCCESS && ex->last_write && (cerr = clFlush(ex->xq)) == CL_SUCCESS)
        cerr = clEnqueueBarrierWithWaitList(dmlcl_context_queue(f->ctx), 1, &ex->last_write,
                                            NULL);
    if (cerr == CL_SUCCESS && ex->last_write)
        cerr = clFlush(dmlcl_context_queue(f->ctx));
    if (cerr != CL_SUCCESS && st == DMLCL_SUCCESS)
        st = mpil_cl_fail("dmlcl_mpi_halo_end: clEnqueueWriteBufferRect (a ghost face)", cerr);
    if (st == DMLCL_SUCCESS) {
        f->stats.updates++;
        for (int i = 0; i < ex->nrecv; i++)
            f->stats.bytes_received += ex->recv[i].bytes;
        for (int i = 0; i < ex->nsend; i++)
            f->stats.bytes_sent += ex->send[i].bytes;
    }
    return mpil_agree(f->layout->comm, "dmlcl_mpi_halo_end", st);
}

dmlcl_status dmlcl_mpi_halo_update(dmlcl_mpi_field *f)
{
    dmlcl_status st = dmlcl_mpi_halo_begin(f);
    if (st != DMLCL_SUCCESS)
        return st;
    return dmlcl_mpi_halo_end(f);
}
