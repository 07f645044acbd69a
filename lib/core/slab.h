/* Slabs (slab.c): an operator whose tensors pass what 32-bit index arithmetic holds runs
 * as several launches, each over a box of its output (a slab) and the box of its input
 * that slab reads, so that every element offset inside a launch fits 32 bits; the 64-bit
 * part is only each launch's base offsets, added to the buffers' pointers once (the tile
 * machinery's views: a slab is a tile of the operator's logical tensors). lib/slabs.c
 * creates and enqueues the parts; this planner, pure like the others (core/plan.h), picks
 * the cut (tests/check_resample1_planner.c, tests/check_reverse_planner.c). */
#ifndef DMLCL_CORE_SLAB_H
#define DMLCL_CORE_SLAB_H
#include "core/tensor.h"

/* The default bound on a slab's spans, in elements (DMLCL_RESAMPLE_PLAN's and
 * DMLCL_RS_PLAN's slab=N lowers it; slab=0 turns slabs off): below 2^31, so that a
 * launch's element offsets, counts and grid-stride sums stay below 2^32 with room to
 * spare. */
#define DMLCL__SLAB_LIMIT ((uint64_t)1 << 31)
/* At most this many slabs; a cut that needs more is not made (64-bit indices instead). */
#define DMLCL__SLAB_MAX 4096u

/* What output coordinates [a, b) of dimension d (logical indices) read of the input's
 * dimension d: [*lo, *hi), empty (lo == hi) where they read nothing. The operators' reads
 * are separable (each input dimension depends on its output dimension alone: RESAMPLE's
 * maps, REVERSE_SUBSEQUENCES' whole axis), so a slab's input box is the product of its
 * dimensions' ranges. */
typedef void (*dmlcl__slab_reads_fn)(const void *ctx, uint32_t d, uint64_t a, uint64_t b,
                                     uint64_t *lo, uint64_t *hi);

/* What the parts of one slabs operator share about its whole tensors, each fact computed
 * by the first part that needs it (lib/slabs.c hands every part the same one): per output
 * dimension, whether its map is a pass-through (rows first + o * step, no weights; see
 * lib/resample/coord.h), which is a property of the whole dimension, the same for every
 * part, and may take up to 2^24 map evaluations to tell. */
typedef struct dmlcl__whole_dims {
    uint8_t known[DMLCL_MAXDIM], affine[DMLCL_MAXDIM];
    uint64_t first[DMLCL_MAXDIM], step[DMLCL_MAXDIM];
    /* A family planner's sampled searches (RESAMPLE1's window, row pairs and CPU lane
     * patterns: hundreds of map evaluations each), in its own layout, with the inputs
     * they read: a part whose inputs are the last one's takes its results (a slab cut
     * along a dimension they do not read). Two slots (the planner's own choice, and the
     * one under the planner variable's overrides); bit i of searched: slot i written. */
    unsigned searched;
    union {
        uint64_t align;
        unsigned char bytes[2048];
    } search;
} dmlcl__whole_dims;

typedef struct dmlcl__slabs {
    uint64_t limit;                  /* every slab's input and output span is below it */
    uint32_t rank;
    uint64_t chunk[DMLCL_MAXDIM];    /* output indices per slab along each dimension */
    uint64_t count[DMLCL_MAXDIM];    /* slabs along it */
    uint64_t n;                      /* slabs in all; 1: one launch (see split) */
    int split;                       /* 1: n >= 2 slabs, each within limit */
    int over;                        /* the whole passes limit (split, or no cut fits) */
    const char *why;                 /* over && !split: why no cut fits */
    uint64_t in_span, out_span;      /* the largest slab's spans (not split: the whole's) */
} dmlcl__slabs;

/* The cut of operator (in, out) (either may be a tile: boxes are in logical indices):
 * none where both spans are below limit; otherwise the grid with the fewest cuts the
 * greedy search finds (it cuts the dimension that adds most to whichever span is over,
 * outermost first, as few times as that dimension needs) such that every slab's output
 * span and input span are below limit. Dimensions whose bit is set in keep are never cut
 * (REVERSE_SUBSEQUENCES' axis). Where no such grid exists within DMLCL__SLAB_MAX slabs
 * (a transposed input whose every slab still spans it, a kept axis too long) s->split is
 * 0 and s->why says why: the operator runs whole, with 64-bit indices. */
void dmlcl__slabs_plan(const dmlcl__tensor *in, const dmlcl__tensor *out, uint32_t keep,
                       uint64_t limit, dmlcl__slab_reads_fn reads, const void *ctx,
                       dmlcl__slabs *s);

/* Slab i (0 <= i < s->n, the first dimension slowest): its output box and the input box
 * it reads, in logical indices. A dimension whose range reads nothing (RESAMPLE_GRAD1's
 * rows no forward output reads) gets the input tile's first element there: nothing is
 * read from it, and every box stays a part of the tiles. */
void dmlcl__slabs_box(const dmlcl__slabs *s, const dmlcl__tensor *in, const dmlcl__tensor *out,
                      dmlcl__slab_reads_fn reads, const void *ctx, uint64_t i, dmlcl__box *ob,
                      dmlcl__box *ib);

/* "grid=AxBxC" of s (the slabs along each dimension) into buf. */
void dmlcl__slabs_grid_text(const dmlcl__slabs *s, char *buf, size_t cap);

#endif
