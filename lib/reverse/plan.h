/* REVERSE_SUBSEQUENCES' planner (plan.c). */
#ifndef DMLCL_REVERSE_PLAN_H
#define DMLCL_REVERSE_PLAN_H
#include "reverse/tune.h"
#include "core/plan.h"

/* ---- REVERSE_SUBSEQUENCES -------------------------------------------------------------- */

/* Rank classes the kernel is compiled for: collapsed ranks are padded up to one of these
 * so that the number of programs stays small. */
#define DMLCL_RS_MAXRANK 8

/* Kernel variants. The "line" is the innermost collapsed dimension (the axis or not).
 *   GENERIC: one output element per step, any layout (the fallback on GPUs).
 *   LINES:   CPUs. Each work-item loops over a contiguous block of line segments,
 *            coordinates once per segment; contiguous lines move 64-byte vectors.
 *   CHUNKS:  GPUs, lines contiguous in input and output. One 16-byte vector of outputs per
 *            step: an aligned vector store of an aligned vector load (reversed in
 *            registers), or of the two aligned loads around an unaligned mirrored block,
 *            joined with word selects and funnel shifts.
 *   TILE:    GPUs, the axis the line, contiguous in the output but strided in the input,
 *            where another dimension (the "rows", moved next to the line) is contiguous in
 *            the input. A work-group moves tiles of DMLCL_RS_TILE_ROWS rows by as many line
 *            elements through local memory: it reads along the rows and writes along the
 *            line, both coalesced (the mirror permutes a row's elements among themselves,
 *            so a tile of input columns lands in one run of output columns per row).
 *   BLOCKS:  CPUs, TILE's layout. Each work-item a contiguous run of blocks of
 *            DMLCL_RS_BLOCK_ROWS rows by a segment of the line: per line element, the
 *            rows' elements (consecutive in the input: one vector) go to their output
 *            rows, each of which the block writes along its line. */
typedef enum {
    DMLCL_RS_GENERIC = 0,
    DMLCL_RS_LINES = 1,
    DMLCL_RS_CHUNKS = 2,
    DMLCL_RS_TILE = 3,
    DMLCL_RS_BLOCKS = 4
} dmlcl__rs_variant;
extern const char *const dmlcl__rs_variant_names[5];

/* TILE's tile edge (rows and line elements; the kernel's TP and TQ), and the fewest rows
 * for which the planner picks it (fewer leave most of a tile's work-items idle). */
#define DMLCL_RS_TILE_ROWS 32
#define DMLCL_RS_TILE_MIN_ROWS 8
/* BLOCKS' rows per block (the kernel's BR: 64 bytes of FLOAT32, a cache line per line
 * element read) and line elements per segment. */
#define DMLCL_RS_BLOCK_ROWS 16
#define DMLCL_RS_BLOCK_SEG 512


typedef struct dmlcl__rs_plan {
    dmlcl__rs_variant variant;
    int axis_last;                   /* the axis is the line (innermost collapsed dim) */
    uint32_t vec;                    /* CHUNKS: elements per 16-byte vector */
    uint64_t units;                  /* work units: elements, line segments or chunks */
    uint64_t segs, seg_len;          /* segments per line, elements per segment (TILE:
                                      * tiles per line, line elements per tile) */
    uint64_t ptiles;                 /* TILE, BLOCKS: tiles (blocks) across the rows */
    dmlcl__fastdiv ptile_div;        /* by ptiles */
    uint64_t per_item;               /* LINES, BLOCKS: units per work-item */
    uint64_t in_span;                /* input elements from the binding's start */
    dmlcl__fastdiv div[DMLCL_RS_MAXRANK]; /* by sizes[d] */
    dmlcl__fastdiv seg_div;          /* by segs */
    uint32_t rank;                   /* collapsed rank, padded to the rank class */
    uint32_t axis;                   /* the axis in the collapsed shape */
    uint64_t sizes[DMLCL_RS_MAXRANK];
    uint64_t in_str[DMLCL_RS_MAXRANK];
    uint64_t len_str[DMLCL_RS_MAXRANK]; /* 0 at the axis */
    uint64_t out_str[DMLCL_RS_MAXRANK];
    uint64_t count;                  /* output elements */
    uint32_t elem_bytes, len_bytes;  /* 1/2/4/8 and 4/8 */
    int idx64;                       /* 64-bit index arithmetic needed */
    size_t global, local;            /* NDRange; local 0 = let the runtime choose */
    char options[160];               /* complete build options: the program variant */
} dmlcl__rs_plan;

void dmlcl__rs_plan_make(const dmlcl__tensor *in, const dmlcl__tensor *lengths,
                         const dmlcl__tensor *out, uint32_t axis, const dmlcl__limits *lim,
                         dmlcl__rs_plan *p);
/* The same with overrides (NULL = none). */
void dmlcl__rs_plan_make_tuned(const dmlcl__tensor *in, const dmlcl__tensor *lengths,
                               const dmlcl__tensor *out, uint32_t axis, const dmlcl__limits *lim,
                               const dmlcl__rs_tune *tune, dmlcl__rs_plan *p);

#endif
