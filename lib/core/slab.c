/* The slab planner (slab.h): pure C, no OpenCL and no environment. */
#include "core/slab.h"
#include <stdio.h>
#include <string.h>

/* 1 + sum (len[d] - 1) * str[d]: the span of a box of those lengths. */
static uint64_t span_of(uint32_t rank, const uint64_t *len, const uint64_t *str)
{
    uint64_t s = 1;
    for (uint32_t d = 0; d < rank; d++)
        s += (len[d] - 1) * str[d];
    return s;
}

/* The longest input range that any slab of `chunk` output indices along d reads (at
 * least 1: a range that reads nothing becomes one element, see dmlcl__slabs_box). */
static uint64_t in_len(const dmlcl__tensor *out, uint32_t d, uint64_t chunk,
                       dmlcl__slab_reads_fn reads, const void *ctx)
{
    uint64_t most = 1;
    for (uint64_t a = 0; a < out->sizes[d]; a += chunk) {
        const uint64_t b = a + chunk < out->sizes[d] ? a + chunk : out->sizes[d];
        uint64_t lo, hi;
        reads(ctx, d, out->origin[d] + a, out->origin[d] + b, &lo, &hi);
        most = hi - lo > most ? hi - lo : most;
    }
    return most;
}

static void whole(dmlcl__slabs *s, const dmlcl__tensor *in, const dmlcl__tensor *out)
{
    s->n = 1;
    for (uint32_t d = 0; d < DMLCL_MAXDIM; d++) {
        s->chunk[d] = d < out->rank ? out->sizes[d] : 1;
        s->count[d] = 1;
    }
    s->in_span = in->span;
    s->out_span = out->span;
}

void dmlcl__slabs_plan(const dmlcl__tensor *in, const dmlcl__tensor *out, uint32_t keep,
                       uint64_t limit, dmlcl__slab_reads_fn reads, const void *ctx,
                       dmlcl__slabs *s)
{
    memset(s, 0, sizeof *s);
    s->limit = limit;
    s->rank = out->rank;
    whole(s, in, out);
    s->over = limit > 1 && (out->span >= limit || in->span >= limit);
    if (!s->over)
        return;
    const uint32_t rank = out->rank;
    uint64_t chunk[DMLCL_MAXDIM], count[DMLCL_MAXDIM], ilen[DMLCL_MAXDIM];
    for (uint32_t d = 0; d < rank; d++) {
        chunk[d] = out->sizes[d];
        count[d] = 1;
        ilen[d] = in_len(out, d, chunk[d], reads, ctx);
    }
    for (;;) {
        const uint64_t ospan = span_of(rank, chunk, out->strides),
                       ispan = span_of(rank, ilen, in->strides);
        if (ospan < limit && ispan < limit) {
            s->in_span = ispan;
            s->out_span = ospan;
            break;
        }
        /* Cut the dimension that adds most to the span that is over (the output's first). */
        const int over_out = ospan >= limit;
        const uint64_t *len = over_out ? chunk : ilen;
        const uint64_t *str = over_out ? out->strides : in->strides;
        const uint64_t span = over_out ? ospan : ispan;
        int best = -1;
        uint64_t most = 0;
        for (uint32_t d = 0; d < rank; d++) {
            const uint64_t add = (len[d] - 1) * str[d];
            if (!(keep >> d & 1) && chunk[d] > 1 && add > most)
                best = (int)d, most = add;
        }
        /* The kept dimensions alone (the others cut to one index) reach the limit. */
        uint64_t floor = 1;
        for (uint32_t d = 0; d < rank; d++)
            floor += keep >> d & 1 ? (len[d] - 1) * str[d] : 0;
        if (floor >= limit)
            best = -1;
        if (best < 0) {
            s->why = over_out ? "the output's slabs cannot be cut below the limit"
                              : "every slab's input range spans the limit or more (a strided "
                                "or transposed input)";
            return;
        }
        /* The longest range along best that brings the span below limit with the other
         * dimensions as they are; the input's through the map, in proportion. */
        const uint64_t rest = span - 1 - most;
        const uint64_t fits = rest + 2 <= limit ? (limit - 2 - rest) / str[best] + 1 : 1;
        uint64_t c = over_out ? fits : chunk[best] * fits / len[best];
        /* At least a 16th less each round: where the input range does not shrink with
         * the cut (a map that reads the whole input), rounds of one index less would
         * take thousands, each planning every slab; these reach 4096 slabs in ~130. */
        const uint64_t most_c = chunk[best] - (chunk[best] >= 32 ? chunk[best] / 16 : 1);
        c = c > most_c ? most_c : c < 1 ? 1 : c;
        /* As many slabs as that needs, of even sizes. */
        const uint64_t size = out->sizes[best], k = (size + c - 1) / c;
        chunk[best] = (size + k - 1) / k;
        count[best] = k;
        uint64_t n = 1;
        for (uint32_t d = 0; d < rank; d++)
            n = n * count[d] > DMLCL__SLAB_MAX ? DMLCL__SLAB_MAX + 1 : n * count[d];
        if (n > DMLCL__SLAB_MAX) {
            s->why = "a cut below the limit needs more than 4096 slabs";
            return;
        }
        ilen[best] = in_len(out, (uint32_t)best, chunk[best], reads, ctx);
    }
    s->split = 1;
    s->n = 1;
    for (uint32_t d = 0; d < rank; d++) {
        s->chunk[d] = chunk[d];
        s->count[d] = count[d];
        s->n *= count[d];
    }
}

void dmlcl__slabs_box(const dmlcl__slabs *s, const dmlcl__tensor *in, const dmlcl__tensor *out,
                      dmlcl__slab_reads_fn reads, const void *ctx, uint64_t i, dmlcl__box *ob,
                      dmlcl__box *ib)
{
    for (uint32_t d = 0; d < DMLCL_MAXDIM; d++)
        ob->start[d] = ib->start[d] = 0, ob->size[d] = ib->size[d] = 1;
    for (int d = (int)s->rank - 1; d >= 0; d--) {
        const uint64_t c = i % s->count[d], a = c * s->chunk[d];
        i /= s->count[d];
        const uint64_t b = a + s->chunk[d] < out->sizes[d] ? a + s->chunk[d] : out->sizes[d];
        ob->start[d] = out->origin[d] + a;
        ob->size[d] = b - a;
        uint64_t lo, hi;
        reads(ctx, (uint32_t)d, ob->start[d], out->origin[d] + b, &lo, &hi);
        if (hi == lo)
            lo = in->origin[d], hi = lo + 1;
        ib->start[d] = lo;
        ib->size[d] = hi - lo;
    }
}

void dmlcl__slabs_grid_text(const dmlcl__slabs *s, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t d = 0; d < s->rank && n < cap; d++) {
        int w = snprintf(buf + n, cap - n, "%s%llu", d ? "x" : "", (unsigned long long)s->count[d]);
        if (w < 0)
            return;
        n += (size_t)w;
    }
}
