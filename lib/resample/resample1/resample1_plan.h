/* The RESAMPLE family's planners: RESAMPLE1's (resample1_plan.c); the tap tables' are in
 * taps.h. Pure, like every planner (core/plan.h). */
#ifndef DMLCL_RESAMPLE_PLAN_H
#define DMLCL_RESAMPLE_PLAN_H
#include "resample/tune.h"
#include "core/plan.h"
#include "core/slab.h"

/* ---- RESAMPLE1 ------------------------------------------------------------------------
 * The coordinate mapping runs on the host in IEEE float32 (OpenCL's float division is not
 * correctly rounded): one table row per output coordinate of every resampled dimension.
 * A dimension whose row is affine (input index = first + o * step) with no weights, such
 * as identity, broadcast of size 1, FLT_MAX scales or an integer nearest downsample, is
 * "pass-through": plain strides, no table, no corners. */

/* The coordinate functions (coord.h): x = ((float)o - out_offset) / scale - in_offset,
 * every step rounded to float32; NEAREST_NEIGHBOR's clamp(floor(x + 0.5), 0, n - 1) and
 * RESAMPLE2's rules (dmlcl__resample_nearest_rule); LINEAR's x clamped to [0, n - 1], i0 =
 * floor(x), *w = x - i0 (dmlcl__resample1_linear; i1 = i0 + 1 whenever w != 0). */
#include "resample/coord.h"

/* Table words per row: NEAREST {index}; LINEAR {i0, bits of the float weight}. */
/* Outputs per item of the 2-D row kernels (RV in kernels/resample/resample1/resample1_rows.cl):
 * the default; LINEAR takes 4, 8 or 16 (the plan's rv: $DMLCL_RESAMPLE_PLAN's rv=N). */
#define DMLCL_R1_ROWS_VEC(linear) ((linear) ? 4u : 8u)
#define DMLCL_R1_ROWS_VEC_MAX 16u
#define DMLCL_RESAMPLE1_WORDS(linear) ((linear) ? 2u : 1u)
/* Outputs per item of the CPU row blocks (CR_XB in
 * kernels/resample/resample1/resample1_cpu_rows.cl). */
#define DMLCL_R1_CPU_BLOCK 1024u
/* Outputs an item of them holds at least, where rows are short (more rows an item). */
#define DMLCL_R1_CPU_ITEM 16384u
#define DMLCL_R1_CPU_PATTERNS 4 /* patterns a program of them takes at most */
/* Bytes of a block's weight products that their pairs of rows keep (LINEAR, CR_KEEP). */
#define DMLCL_R1_CPU_KEEP 8192u

typedef struct dmlcl__resample1_plan {
    int linear;                 /* 1: resample1_linear with K = nr; 0: resample1_gather */
    dmlcl__nearest_rule rule;   /* nearest index rule (RESAMPLE1: HALF_UP) */
    const char *variant;        /* "copy" (nr == 0), "gather" (nearest), "linear" */
    uint32_t np, nr;            /* pass-through / resampled dimensions after collapsing */
    int pass_inner;             /* the output's fastest-varying dimension is pass-through */
    uint64_t psize[DMLCL_MAXDIM], pin[DMLCL_MAXDIM], pout[DMLCL_MAXDIM];
    uint64_t rsize[DMLCL_MAXDIM], rin[DMLCL_MAXDIM], rout[DMLCL_MAXDIM];
    uint64_t rtab[DMLCL_MAXDIM];  /* first table row of each resampled dimension */
    uint32_t rdim[DMLCL_MAXDIM];  /* its dimension in the descriptor */
    uint64_t rnin[DMLCL_MAXDIM];  /* its input size */
    /* Tiles: the tiles' first output and input index in the logical tensors (rows are
     * computed from global indices; a whole tensor: 0, 0). */
    uint64_t ro0[DMLCL_MAXDIM], ri0[DMLCL_MAXDIM];
    dmlcl__resample_axis rax[DMLCL_MAXDIM]; /* its mapping, of the logical sizes */
    uint64_t in_base;           /* input element offset fixed by the pass-through maps */
    uint64_t count;             /* output elements */
    /* Work units: vec consecutive outputs along the inner dimension (the output's fastest-
     * varying one; inner_res says which list holds it, inner_k where). With nothing to
     * iterate (every size 1) the inner dimension is a virtual pass-through one of size 1. */
    int inner_res;
    uint32_t inner_k;
    uint64_t inner_size, inner_in, inner_out, inner_tab;
    uint64_t inner_nin;         /* a resampled inner dimension's input size */
    uint32_t vec;               /* outputs per work unit */
    uint64_t seg;               /* the *_seg kernels (CPUs): outputs per unit; 0 = off */
    int seg2;                   /* *_seg2: seg counts positions along a second inner
                                 * dimension, resampled entry inner2_k, each position a run
                                 * of the (pass-through, short) inner one */
    uint32_t inner2_k;
    uint64_t size2, in2, out2, tab2;
    int rows_2d;                /* the *_rows kernels: 2-D range (x vectors of rv
                                 * outputs, rows) */
    uint32_t rv;                /* their outputs per item (DMLCL_R1_ROWS_VEC, LINEAR: rv=N) */
    uint32_t rb;                /* ... and consecutive rows per item and step (pairs: groups
                                 * of rows), so that an item's rows share its cached input
                                 * rows and its loads are in flight together */
    size_t global2[2], local2[2];
    /* Row kernels: each item reads a window of `win` consecutive input columns (LINEAR: per
     * outer corner) once per row; output j's (lower) column is window entry
     * (wpat >> 4j) & 15. 0: no window (every output loads its own). Nearest loads it as
     * vectors of 4 where its first column is wph past a multiple of 4. */
    uint64_t wpat;
    uint32_t win, wph;
    int wplain;                 /* its sum: plain, redone with the choice where a result
                                 * is not finite (1), or the choice per term (0) */
    uint32_t regcap;            /* the row kernels' registers per item (0: the compiler's
                                 * choice; else -cl-nv-maxrregcount) */
    /* ... and with a window, output rows in pairs: resampled slot pair_k (the outer one
     * split first) counts pair_groups groups of 1 or 2 consecutive outputs with the same
     * lower input row (its size until dmlcl__resample1_fill counts them), whose {first
     * output, outputs} rows start at table row gtab; the pair shares its window loads.
     * pair = 2: the next outer resampled slot, pair_k2, too (pair_groups2 groups from
     * table row gtab2): up to 4 rows share each window load. 0: one output row per step. */
    int pair;
    uint32_t pair_k, pair_k2;
    uint64_t pair_groups, gtab, pair_groups2, gtab2;
    /* CPUs: the row blocks (resample1_cpu_rows.cl): items of DMLCL_R1_CPU_BLOCK
     * flat outputs of cpu_rows consecutive rows; 0 = off. chunks counts blocks per row. */
    uint64_t cpu_rows;
    uint64_t cpu_span;          /* the input row's span in elements (inner resampled) */
    uint32_t cpu_w;             /* lanes per vector: two registers (dmlcl__simd_lanes) */
    uint32_t cpu_np;            /* patterns of a vector's lower / upper inputs (0: none) */
    uint64_t cpu_pl[DMLCL_R1_CPU_PATTERNS], cpu_pu[DMLCL_R1_CPU_PATTERNS];
    uint32_t cpu_high[DMLCL_R1_CPU_PATTERNS]; /* their 5th bits (lower: 0-15, upper: 16-31) */
    int cpu_nt;                 /* non-temporal stores (outputs beyond the caches) */
    uint64_t chunks, units;     /* ceil(inner_size / vec); outer rows x chunks */
    dmlcl__fastdiv chunks_div, pdiv[DMLCL_MAXDIM], rdiv[DMLCL_MAXDIM];
    uint64_t table_rows;        /* sum of the resampled dimensions' output sizes */
    uint64_t table_bytes;       /* table_rows * words * 4 */
    int idx64;                  /* 64-bit index arithmetic needed (or forced by a test) */
    size_t global, local;
    char options[640];          /* complete build options: the program variant */
} dmlcl__resample1_plan;

/* Classifies and collapses the dimensions and picks the variant; `linear` is the mode.
 * Computes every row once but stores none (see dmlcl__resample1_fill). */
void dmlcl__resample1_plan_make(const dmlcl__tensor *in, const dmlcl__tensor *out, int linear,
                                const float *scales, const float *in_offsets,
                                const float *out_offsets, const dmlcl__limits *lim,
                                int force_idx64, dmlcl__resample1_plan *p);
/* The same with RESAMPLE2's nearest rule (ignored for LINEAR); stored in p->rule. */
void dmlcl__resample1_plan_make_rule(const dmlcl__tensor *in, const dmlcl__tensor *out,
                                     int linear, dmlcl__nearest_rule rule, const float *scales,
                                     const float *in_offsets, const float *out_offsets,
                                     const dmlcl__limits *lim, int force_idx64,
                                     dmlcl__resample1_plan *p);
/* The same for a part of a slabs operator (wd: its parts' shared facts, NULL: none), which
 * classifies each whole dimension once for all parts. */
void dmlcl__resample1_plan_make_part(const dmlcl__tensor *in, const dmlcl__tensor *out,
                                     int linear, dmlcl__nearest_rule rule, const float *scales,
                                     const float *in_offsets, const float *out_offsets,
                                     const dmlcl__limits *lim, int force_idx64,
                                     dmlcl__whole_dims *wd, dmlcl__resample1_plan *p);
/* Picks the inner dimension, the outputs per unit and the NDRange for a plan whose
 * dimensions are classified (called by plan_make_rule with no overrides). */
void dmlcl__resample1_plan_launch(dmlcl__resample1_plan *p, const dmlcl__tensor *in,
                                  const dmlcl__tensor *out, const dmlcl__limits *lim,
                                  const dmlcl__r1_tune *tune, int force_idx64);
/* The same for a part of a slabs operator (wd: its parts' shared facts, NULL: none), which
 * takes the last part's sampled searches where they read the same. */
void dmlcl__resample1_plan_launch_part(dmlcl__resample1_plan *p, const dmlcl__tensor *in,
                                       const dmlcl__tensor *out, const dmlcl__limits *lim,
                                       const dmlcl__r1_tune *tune, int force_idx64,
                                       dmlcl__whole_dims *wd);
/* The generic variant of a plan with constants of its scales and offsets compiled in (the
 * CPU row blocks' patterns, the rows kernels' window and pairs): *g the same plan without
 * them, reading the same table (its coordinate rows come first); 0 (g untouched) where p
 * has none. lib/core/specialize.h says why. */
int dmlcl__resample1_plan_generic(const dmlcl__resample1_plan *p, const dmlcl__tensor *in,
                                  dmlcl__resample1_plan *g);
/* Writes the plan's table (p->table_bytes bytes), from the maps the plan keeps; with pairs,
 * also counts them into p->pair_groups (and pair_groups2). */
void dmlcl__resample1_fill(dmlcl__resample1_plan *p, uint32_t *table);
#endif
