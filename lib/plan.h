/* Planners: pure functions from (operator, sizes, strides, device limits) to a plan.
 * No OpenCL calls, so they are unit-tested directly (tests/check_planner.c). */
#ifndef DMLCL_PLAN_H
#define DMLCL_PLAN_H
#include "internal.h"

/* What a planner needs to know about the device. */
typedef struct dmlcl__limits {
    size_t max_work_group_size;
    uint32_t compute_units;
    int is_cpu;
} dmlcl__limits;

/* ---- fast division (fastdiv.c) ---------------------------------------------------------
 * q = n / d for every n < 2^bits as t = mul_hi(n, mul); q = (t + ((n - t) >> sh1)) >> sh2
 * (Granlund & Montgomery): kernels get mul and sh1 | sh2 << 8 instead of dividing. */
typedef struct dmlcl__fastdiv {
    uint64_t mul;
    uint32_t sh1, sh2;
} dmlcl__fastdiv;
dmlcl__fastdiv dmlcl__fastdiv_make(uint64_t d, unsigned bits); /* d >= 1; bits 32 or 64 */
uint64_t dmlcl__fastdiv_apply(const dmlcl__fastdiv *f, uint64_t n, unsigned bits); /* host mirror */

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
 *            joined with word selects and funnel shifts. */
typedef enum { DMLCL_RS_GENERIC = 0, DMLCL_RS_LINES = 1, DMLCL_RS_CHUNKS = 2 } dmlcl__rs_variant;
extern const char *const dmlcl__rs_variant_names[3];

/* Overrides for tuning and tests ($DMLCL_RS_PLAN, e.g. "variant=lines,wg=128,waves=8");
 * 0 / -1 = the planner's choice. A variant that does not apply to the shape is ignored. */
typedef struct dmlcl__rs_tune {
    int variant;     /* -1 or a dmlcl__rs_variant */
    uint32_t wg;     /* GPU work-group size */
    uint32_t waves;  /* GPU work-groups per compute unit before items loop (grid stride) */
} dmlcl__rs_tune;

typedef struct dmlcl__rs_plan {
    dmlcl__rs_variant variant;
    int axis_last;                   /* the axis is the line (innermost collapsed dim) */
    uint32_t vec;                    /* CHUNKS: elements per 16-byte vector */
    uint64_t units;                  /* work units: elements, line segments or chunks */
    uint64_t segs, seg_len;          /* segments per line, elements per segment */
    uint64_t per_item;               /* LINES: units per work-item */
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
/* Parses "key=value,..." (variant=generic|lines|chunks, wg=N, waves=N) into *t; returns 0,
 * or -1 naming nothing (callers report the whole string). NULL or "" = no overrides. */
int dmlcl__rs_tune_parse(const char *s, dmlcl__rs_tune *t);

/* Tuning strings ("key=value,..."): parses the next item at *s into key and val and
 * steps past it; 1 = an item, 0 = the end, -1 = malformed. */
int dmlcl__tune_item(const char **s, char key[16], char val[16]);

/* Work-group and global size for a grid-stride loop over `items` elements. */
void dmlcl__plan_ndrange(uint64_t items, const dmlcl__limits *lim, size_t *global, size_t *local);

/* ---- RESAMPLE1 ------------------------------------------------------------------------
 * The coordinate mapping runs on the host in IEEE float32 (OpenCL's float division is not
 * correctly rounded): one table row per output coordinate of every resampled dimension.
 * A dimension whose row is affine (input index = first + o * step) with no weights, such
 * as identity, broadcast of size 1, FLT_MAX scales or an integer nearest downsample, is
 * "pass-through": plain strides, no table, no corners. */

/* x = ((float)o - out_offset) / scale - in_offset, every step rounded to float32. */
float dmlcl__resample1_coord(uint64_t o, float scale, float in_offset, float out_offset);
/* NEAREST_NEIGHBOR: clamp(floor(x + 0.5), 0, n - 1) (ties round up). */
uint32_t dmlcl__resample1_nearest(float x, uint64_t n);
/* The nearest-neighbour index rule: RESAMPLE1's floor(x + 0.5), or RESAMPLE2's rounding
 * directions (INCREASING = ceil(x), DECREASING = floor(x)); always clamped to [0, n - 1]. */
typedef enum {
    DMLCL__NEAREST_HALF_UP = 0,
    DMLCL__NEAREST_CEIL = 1,
    DMLCL__NEAREST_FLOOR = 2
} dmlcl__nearest_rule;
uint32_t dmlcl__resample_nearest_rule(float x, uint64_t n, dmlcl__nearest_rule rule);
/* LINEAR: x clamped to [0, n - 1]; returns i0 = floor(x) and sets *w = x - i0.
 * i1 = min(i0 + 1, n - 1) equals i0 + 1 whenever w != 0. */
uint32_t dmlcl__resample1_linear(float x, uint64_t n, float *w);

/* Table words per row: NEAREST {index}; LINEAR {i0, bits of the float weight}. */
/* Outputs per item of the 2-D row kernels (RV in kernels/resample1.cl). */
#define DMLCL_R1_ROWS_VEC(linear) ((linear) ? 4u : 8u)
#define DMLCL_RESAMPLE1_WORDS(linear) ((linear) ? 2u : 1u)
/* Flat outputs per item of the CPU row blocks (CR_XB in kernels/resample1_cpu_rows.cl). */
#define DMLCL_R1_CPU_BLOCK 1024u
#define DMLCL_R1_CPU_PATTERNS 4 /* patterns a program of them takes at most */

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
    /* Tiles: its logical input size and the tiles' first output and input index there
     * (rows are computed from global indices; a whole tensor: rnin, 0, 0). */
    uint64_t rwhole[DMLCL_MAXDIM], ro0[DMLCL_MAXDIM], ri0[DMLCL_MAXDIM];
    float rscale[DMLCL_MAXDIM], rip[DMLCL_MAXDIM], rop[DMLCL_MAXDIM]; /* its mapping */
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
    int rows_2d;                /* the *_rows kernels: 2-D range (x vectors of
                                 * DMLCL_R1_ROWS_VEC(linear) outputs, rows) */
    size_t global2[2], local2[2];
    /* LINEAR row kernels: each item reads a window of `win` consecutive input columns per
     * outer corner once per row; output j's lower column is window entry
     * (wpat >> 4j) & 15. 0: no window (every output loads its own corners). */
    uint32_t wpat, win;
    /* ... and with a window, output rows in pairs: resampled slot pair_k (the outer one
     * split first) counts pair_groups groups of 1 or 2 consecutive outputs with the same
     * lower input row (its size until dmlcl__resample1_fill counts them), whose {first
     * output, outputs} rows start at table row gtab; the pair shares its window loads.
     * 0: one output row per step. */
    int pair;
    uint32_t pair_k;
    uint64_t pair_groups, gtab;
    /* CPUs: the row blocks (kernels/resample1_cpu_rows.cl): items of DMLCL_R1_CPU_BLOCK
     * flat outputs of cpu_rows consecutive rows; 0 = off. chunks counts blocks per row. */
    uint64_t cpu_rows;
    uint64_t cpu_span;          /* the input row's span in elements (inner resampled) */
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
/* Overrides for tuning and tests ($DMLCL_RESAMPLE_PLAN, e.g. "v=8,wg=128,rows=1"); 0 = the
 * planner's choice. */
typedef struct dmlcl__r1_tune {
    uint32_t vec, wg;
    int rows; /* -1: the planner's choice; 0/1: the 2-D row kernels off/on where they apply */
    int seg;  /* -1: the planner's choice; 0: off; N: the *_seg kernels with N outputs */
    int win;  /* -1: the planner's choice; 0: no window; 1: a window wherever one unit fits
               * (the kernel checks each item, so tests can mix both paths in one launch) */
    int pair; /* -1: the planner's choice; 0: off; 1: wherever some rows pair up */
    uint32_t gpc; /* GPUs: work-groups per compute unit before items loop (0: the planner's) */
    int cpu;  /* -1: the planner's choice; 0: off; N: the CPU row blocks, N rows per item */
    int nt;   /* -1: the planner's choice; 0/1: their non-temporal stores off/on */
} dmlcl__r1_tune;
int dmlcl__r1_tune_parse(const char *s, dmlcl__r1_tune *t); /* 0, or -1 if malformed */
/* The keys it takes, for the messages that refuse a malformed value. */
#define DMLCL__R1_TUNE_KEYS                                                                     \
    "v=1..64, wg=1..4096, rows=0|1, seg=0..65536, win=0|1, pair=0|1, gpc=1..4096, "            \
    "cpu=0..65536, nt=0|1"
/* The tests' hook dmlcl_test_resample_force_idx64 (resample1.c): 1 = 64-bit indices. */
int dmlcl__resample_idx64_forced(void);
/* Picks the inner dimension, the outputs per unit and the NDRange for a plan whose
 * dimensions are classified (called by plan_make_rule with no overrides). */
void dmlcl__resample1_plan_launch(dmlcl__resample1_plan *p, const dmlcl__tensor *in,
                                  const dmlcl__tensor *out, const dmlcl__limits *lim,
                                  const dmlcl__r1_tune *tune, int force_idx64);
/* Writes the plan's table (p->table_bytes bytes), from the maps the plan keeps; with pairs,
 * also counts them into p->pair_groups. */
void dmlcl__resample1_fill(dmlcl__resample1_plan *p, uint32_t *table);
#endif
