/* The host exchange: see host_exchange.h. */
#include "host_exchange.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ boxes */

uint64_t halo_box_count(const halo_box *box)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < box->dims; d++)
        n *= box->size[d];
    return n;
}

int halo_box_intersect(const halo_box *a, const halo_box *b, halo_box *out)
{
    halo_box r = {a->dims, {0}, {0}};
    int empty = 0;
    for (uint32_t d = 0; d < a->dims; d++) {
        uint64_t lo = a->start[d] > b->start[d] ? a->start[d] : b->start[d];
        uint64_t a_end = (uint64_t)a->start[d] + a->size[d];
        uint64_t b_end = (uint64_t)b->start[d] + b->size[d];
        uint64_t hi = a_end < b_end ? a_end : b_end;
        if (hi <= lo)
            empty = 1;
        r.start[d] = (uint32_t)lo;
        r.size[d] = hi > lo ? (uint32_t)(hi - lo) : 0;
    }
    if (empty) /* one canonical empty box, whatever the other dimensions say */
        memset(r.size, 0, sizeof r.size), memset(r.start, 0, sizeof r.start);
    *out = r;
    return !empty;
}

/* Element strides of a packed row-major array of box. */
static void packed_strides(const halo_box *box, uint64_t *stride)
{
    uint64_t s = 1;
    for (uint32_t d = box->dims; d-- > 0;) {
        stride[d] = s;
        s *= box->size[d];
    }
}

void halo_box_copy(void *dst, const halo_box *dst_box, const void *src, const halo_box *src_box,
                   const halo_box *region, size_t elem_size)
{
    const uint32_t n = region->dims;
    uint64_t ds[HALO_MAX_DIMS], ss[HALO_MAX_DIMS];
    if (halo_box_count(region) == 0)
        return;
    packed_strides(dst_box, ds);
    packed_strides(src_box, ss);

    /* Dimensions the region spans whole in both arrays merge with the one above them
     * into one contiguous block: a slab is one memcpy, not one per row. */
    uint32_t k = n - 1;
    while (k > 0 && region->size[k] == dst_box->size[k] && region->size[k] == src_box->size[k])
        k--;
    uint64_t block = 1;
    for (uint32_t d = k; d < n; d++)
        block *= region->size[d];

    uint32_t idx[HALO_MAX_DIMS] = {0}; /* position in dimensions 0..k-1 */
    for (;;) {
        uint64_t doff = 0, soff = 0;
        for (uint32_t d = 0; d < n; d++) {
            uint64_t g = (uint64_t)region->start[d] + (d < k ? idx[d] : 0);
            doff += (g - dst_box->start[d]) * ds[d];
            soff += (g - src_box->start[d]) * ss[d];
        }
        memcpy((char *)dst + doff * elem_size, (const char *)src + soff * elem_size,
               block * elem_size);
        int d = (int)k - 1; /* odometer over the outer dimensions */
        while (d >= 0 && ++idx[d] == region->size[d])
            idx[d--] = 0;
        if (d < 0)
            break;
    }
}

/* ------------------------------------------------------------------ decompositions */

void halo_split(uint32_t n, uint32_t parts, uint32_t index, uint32_t *start, uint32_t *size)
{
    uint32_t base = n / parts, extra = n % parts;
    *start = index * base + (index < extra ? index : extra);
    *size = base + (index < extra ? 1 : 0);
}

void halo_grid_box(uint32_t dims, const uint32_t *sizes, const uint32_t *grid, int rank,
                   halo_box *box)
{
    uint32_t cell = (uint32_t)rank;
    box->dims = dims;
    for (uint32_t d = dims; d-- > 0;) { /* row-major: the last dimension varies fastest */
        halo_split(sizes[d], grid[d], cell % grid[d], &box->start[d], &box->size[d]);
        cell /= grid[d];
    }
    if (halo_box_count(box) == 0) /* canonical empty box */
        for (uint32_t d = 0; d < dims; d++)
            box->start[d] = box->size[d] = 0;
}

/* ------------------------------------------------------------------ the exchange */

/* One side of the exchange: the ranks on it and, per rank, the region and its place in
 * the packed message buffer (counts and displacements in elements, as MPI wants ints). */
typedef struct halo_side {
    int n;
    int *rank;
    halo_box *region;
    int *count, *displ;
    void *buffer;
} halo_side;

struct halo_plan {
    MPI_Comm graph; /* distributed graph: sources send to us, destinations get from us */
    MPI_Datatype elem_type;
    size_t elem_size;
    int rank, size;
    halo_box *owned, *needed; /* every rank's, indexed by rank */
    halo_box self_region;     /* what we own of what we need: copied, not sent */
    halo_side recv, send;
    uint64_t received;
};

static void side_free(halo_side *s)
{
    free(s->rank);
    free(s->region);
    free(s->count);
    free(s->displ);
    free(s->buffer);
}

/* Lists the ranks with a non-empty region on one side: receiving, region r = our needed
 * box ∩ r's owned box; sending, region r = r's needed box ∩ our owned box. */
static int side_build(halo_plan *p, int receiving, halo_side *s)
{
    const int n = p->size;
    uint64_t total = 0;
    s->rank = malloc(sizeof *s->rank * (size_t)n);
    s->region = malloc(sizeof *s->region * (size_t)n);
    s->count = malloc(sizeof *s->count * (size_t)n);
    s->displ = malloc(sizeof *s->displ * (size_t)n);
    if (!s->rank || !s->region || !s->count || !s->displ)
        return HALO_ERR_NOMEM;
    for (int r = 0; r < n; r++) {
        halo_box region;
        int overlap = receiving ? halo_box_intersect(&p->needed[p->rank], &p->owned[r], &region)
                                : halo_box_intersect(&p->needed[r], &p->owned[p->rank], &region);
        if (r == p->rank || !overlap)
            continue;
        uint64_t count = halo_box_count(&region);
        if (count > INT_MAX || total + count > INT_MAX)
            return HALO_ERR_TOO_BIG;
        s->rank[s->n] = r;
        s->region[s->n] = region;
        s->count[s->n] = (int)count;
        s->displ[s->n] = (int)total;
        s->n++;
        total += count;
    }
    s->buffer = malloc(total ? total * p->elem_size : 1);
    if (receiving)
        p->received = total;
    return s->buffer ? MPI_SUCCESS : HALO_ERR_NOMEM;
}

/* Collective: 1 if ok is true on every rank. */
static int all_ok(MPI_Comm comm, int ok)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    return ok;
}

int halo_plan_create(MPI_Comm comm, size_t elem_size, const halo_box *owned,
                     const halo_box *needed, halo_plan **out)
{
    halo_plan *p = calloc(1, sizeof *p);
    halo_box mine[2] = {*owned, *needed}, *all = NULL;
    int size, err = HALO_ERR_NOMEM;
    *out = NULL;
    MPI_Comm_size(comm, &size);
    if (p) {
        p->graph = MPI_COMM_NULL;
        p->elem_type = MPI_DATATYPE_NULL;
        p->elem_size = elem_size;
        p->size = size;
        MPI_Comm_rank(comm, &p->rank);
        all = malloc(sizeof *all * 2 * (size_t)size);
        p->owned = malloc(sizeof *p->owned * (size_t)size);
        p->needed = malloc(sizeof *p->needed * (size_t)size);
    }
    /* Every step that can fail on one rank is agreed on by all before the next collective,
     * so a failure anywhere makes every rank return an error instead of hanging. */
    if (!all_ok(comm, p && all && p->owned && p->needed))
        goto fail;

    /* Everybody learns everybody's boxes: the plan is then worked out locally, and the two
     * sides of every pair agree on what moves without another message. */
    err = MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, comm);
    if (err != MPI_SUCCESS)
        goto fail;
    for (int r = 0; r < size; r++) {
        p->owned[r] = all[2 * r];
        p->needed[r] = all[2 * r + 1];
    }
    halo_box_intersect(needed, owned, &p->self_region);
    err = side_build(p, 1, &p->recv);
    if (err == MPI_SUCCESS)
        err = side_build(p, 0, &p->send);
    if (!all_ok(comm, err == MPI_SUCCESS)) {
        err = err != MPI_SUCCESS ? err : HALO_ERR_PEER;
        goto fail;
    }

    /* The graph of who really talks to whom: MPI_Neighbor_alltoallv then costs in
     * neighbours, not in ranks. The weights are the elements each edge carries (a hint
     * for MPIs that place ranks). Some MPIs dislike NULL arrays for a degree of 0. */
    int none = 0;
    err = MPI_Dist_graph_create_adjacent(comm, p->recv.n, p->recv.n ? p->recv.rank : &none,
                                         p->recv.n ? p->recv.count : &none, p->send.n,
                                         p->send.n ? p->send.rank : &none,
                                         p->send.n ? p->send.count : &none, MPI_INFO_NULL, 0,
                                         &p->graph);
    if (err == MPI_SUCCESS)
        err = MPI_Type_contiguous((int)elem_size, MPI_BYTE, &p->elem_type);
    if (err == MPI_SUCCESS)
        err = MPI_Type_commit(&p->elem_type);
    if (err != MPI_SUCCESS)
        goto fail;
    free(all);
    *out = p;
    return MPI_SUCCESS;

fail:
    free(all);
    halo_plan_free(p);
    return err == MPI_SUCCESS ? HALO_ERR_PEER : err;
}

int halo_plan_exchange(halo_plan *p, const void *owned_data, void *needed_data)
{
    const halo_box *owned = &p->owned[p->rank], *needed = &p->needed[p->rank];
    for (int i = 0; i < p->send.n; i++) /* pack what each destination needs of ours */
        halo_box_copy((char *)p->send.buffer + (size_t)p->send.displ[i] * p->elem_size,
                      &p->send.region[i], owned_data, owned, &p->send.region[i], p->elem_size);
    int err = MPI_Neighbor_alltoallv(p->send.buffer, p->send.count, p->send.displ, p->elem_type,
                                     p->recv.buffer, p->recv.count, p->recv.displ, p->elem_type,
                                     p->graph);
    if (err != MPI_SUCCESS)
        return err;
    halo_box_copy(needed_data, needed, owned_data, owned, &p->self_region, p->elem_size);
    for (int i = 0; i < p->recv.n; i++) /* unpack each source's part into place */
        halo_box_copy(needed_data, needed,
                      (const char *)p->recv.buffer + (size_t)p->recv.displ[i] * p->elem_size,
                      &p->recv.region[i], &p->recv.region[i], p->elem_size);
    return MPI_SUCCESS;
}

int halo_plan_sources(const halo_plan *p) { return p->recv.n; }
int halo_plan_destinations(const halo_plan *p) { return p->send.n; }
uint64_t halo_plan_received(const halo_plan *p) { return p->received; }

void halo_plan_boxes(const halo_plan *p, int r, halo_box *owned, halo_box *needed)
{
    if (owned)
        *owned = p->owned[r];
    if (needed)
        *needed = p->needed[r];
}

void halo_plan_free(halo_plan *p)
{
    if (!p)
        return;
    if (p->graph != MPI_COMM_NULL)
        MPI_Comm_free(&p->graph);
    if (p->elem_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&p->elem_type);
    side_free(&p->recv);
    side_free(&p->send);
    free(p->owned);
    free(p->needed);
    free(p);
}

/* ------------------------------------------------------------------ gather */

#define HALO_CHUNK ((uint64_t)1 << 30) /* bytes per message: well inside an int count */
#define HALO_GATHER_TAG 7014

static int send_chunks(const void *data, uint64_t bytes, int to, MPI_Comm comm)
{
    for (uint64_t off = 0; off < bytes; off += HALO_CHUNK) {
        uint64_t n = bytes - off < HALO_CHUNK ? bytes - off : HALO_CHUNK;
        int err = MPI_Send((const char *)data + off, (int)n, MPI_BYTE, to, HALO_GATHER_TAG, comm);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

static int recv_chunks(void *data, uint64_t bytes, int from, MPI_Comm comm)
{
    for (uint64_t off = 0; off < bytes; off += HALO_CHUNK) {
        uint64_t n = bytes - off < HALO_CHUNK ? bytes - off : HALO_CHUNK;
        int err = MPI_Recv((char *)data + off, (int)n, MPI_BYTE, from, HALO_GATHER_TAG, comm,
                           MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

int halo_gather(MPI_Comm comm, int root, size_t elem_size, const halo_box *mine,
                const void *data, const halo_box *whole, void *out)
{
    int rank, size, err;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    halo_box *boxes = rank == root ? malloc(sizeof *boxes * (size_t)size) : NULL;
    if (rank == root && !boxes)
        return HALO_ERR_NOMEM; /* the others then block in MPI_Gather: callers abort */
    err = MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, boxes, (int)sizeof *mine, MPI_BYTE, root,
                     comm);
    if (err != MPI_SUCCESS || rank != root) {
        free(boxes);
        return err != MPI_SUCCESS ? err : send_chunks(data, halo_box_count(mine) * elem_size,
                                                      root, comm);
    }
    /* Root: its own box is copied; the others arrive packed, one rank after the other. */
    for (int r = 0; r < size && err == MPI_SUCCESS; r++) {
        uint64_t bytes = halo_box_count(&boxes[r]) * elem_size;
        if (bytes == 0)
            continue;
        if (r == root) {
            halo_box_copy(out, whole, data, mine, mine, elem_size);
            continue;
        }
        void *tmp = malloc(bytes);
        if (!tmp) {
            err = HALO_ERR_NOMEM;
            break;
        }
        err = recv_chunks(tmp, bytes, r, comm);
        if (err == MPI_SUCCESS)
            halo_box_copy(out, whole, tmp, &boxes[r], &boxes[r], elem_size);
        free(tmp);
    }
    free(boxes);
    return err;
}
