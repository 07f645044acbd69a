/* The operator object every family fills (created and dispatched by lib/operator.c). */
#ifndef DMLCL_CORE_OP_H
#define DMLCL_CORE_OP_H
#include "core/context.h"
#include "core/slab.h"
#include "core/tensor.h"

/* ---- operators --------------------------------------------------------------------------- */
#define DMLCL_MAX_BINDINGS 2

typedef struct dmlcl__op_vtable {
    const char *name; /* "reverse_subsequences", used in messages */
    /* Sets all kernel arguments for the given buffers/element offsets and enqueues.
     * Called with the operator's lock held, after bindings were validated. */
    dmlcl_status (*enqueue)(dmlcl_operator *op, const cl_mem *in, const uint64_t *in_off,
                            const cl_mem *out, const uint64_t *out_off, cl_uint nwait,
                            const cl_event *wait, cl_event *event);
    void (*destroy)(dmlcl_operator *op); /* frees op->impl and its OpenCL objects */
    /* Optional: writes op->plan_text when dmlcl_operator_plan() first asks, for operators
     * whose text costs a noticeable part of a creation. NULL: written at creation. */
    void (*describe)(dmlcl_operator *op);
} dmlcl__op_vtable;

struct dmlcl_operator {
    dmlcl_context *ctx;
    const dmlcl__op_vtable *vt;
    uint32_t n_in, n_out;
    dmlcl__tensor in[DMLCL_MAX_BINDINGS];
    dmlcl__tensor out[DMLCL_MAX_BINDINGS];
    pthread_mutex_t lock; /* kernel arguments are per cl_kernel: one enqueue at a time */
    void *impl;           /* operator-specific plan and kernels */
    /* During creation only: the tiles of dmlcl_operator_create_tile (NULL: whole). */
    const dmlcl_tile_desc *tile_in, *tile_out;
    /* During creation only: the slab of a larger operator this part computes (lib/slabs.c,
     * core/slab.h): boxes of the logical output and input (NULL: all of op's tensors). */
    const dmlcl__box *slab_out, *slab_in;
    /* During creation only: what the parts of one slabs operator share (NULL: no part):
     * facts of the whole tensors, and kernels (core/context.h). */
    dmlcl__whole_dims *whole_dims;
    dmlcl__kernel_share *kernels;
    /* A part's tensors' first elements, from the larger operator's bindings' (elements;
     * 0 for an operator that is no part): its enqueue's binding offsets add them. */
    uint64_t shift_in[DMLCL_MAX_BINDINGS], shift_out[DMLCL_MAX_BINDINGS];
    char plan_text[1024]; /* the planner's choice, for dmlcl_operator_plan() */
};

/* A part's creation, after its check: narrows op->out[0] to the slab and, where `input`
 * (RESAMPLE: the input box the slab reads), op->in[0] to its box, recording the shifts.
 * REVERSE_SUBSEQUENCES narrows its output alone (its planner takes the input and lengths
 * under the output box itself). Nothing where op is no part. */
void dmlcl__op_slab_narrow(dmlcl_operator *op, int input);

/* ---- operator classes: one row each in lib/operator.c's table -----------------------------
 * What an operator reads, in the form its family's input_box wants (the RESAMPLE family's
 * map, REVERSE_SUBSEQUENCES' axis): filled by check, read by input_box. */
typedef union dmlcl__reads {
    uint64_t align;
    unsigned char bytes[64];
} dmlcl__reads;

/* A family's overrides (its planner variable, parsed), in the form its create wants. */
typedef union dmlcl__tune {
    uint64_t align;
    unsigned char bytes[128];
} dmlcl__tune;

/* What one creation's check and overrides found, read once (lib/operator.c) and handed to
 * create, and to each part of a slabs operator: no part checks or reads the variable again. */
typedef struct dmlcl__checked {
    dmlcl__reads r;
    dmlcl__tune tune;
} dmlcl__checked;

/* Where a descriptor keeps what a copy or a retiled copy must follow (lib/desc_layout.c),
 * so that layers (the MPI layer) copy and retile any operator's descriptor without knowing
 * its struct: offsets of its tensor pointers (the data input, the data output, then the
 * input's companion, a tensor of the input's box with size 1 where its whole is; 0: none
 * past tensors) and of its float arrays, each of `count_at`'s uint32 elements. */
typedef struct dmlcl__desc_layout {
    size_t size;
    uint32_t tensors, arrays;
    size_t tensor_at[3], array_at[3], count_at;
} dmlcl__desc_layout;

typedef struct dmlcl__op_class {
    dmlcl_operator_type type;
    const char *name;      /* "resample1": messages */
    const char *out_field; /* the data output's field: "output_tensor", ... */
    /* Every rule of the operator (op->ctx may be NULL: no device rules), the tiles placed
     * from op->tile_in / tile_out and checked, and what it reads into *r. No OpenCL call. */
    dmlcl_status (*check)(dmlcl_operator *op, const void *desc, dmlcl__reads *r);
    /* Reads the family's planner variable into *t (a malformed one fails, naming `name`). */
    dmlcl_status (*overrides)(const char *name, dmlcl__tune *t);
    /* Slabs (lib/slabs.h): the bound on a launch's spans in elements the overrides give
     * (0: no slabs), and the dimensions a slab never cuts (bit d: dimension d, e.g. an axis
     * whose lines the kernel reads whole). */
    uint64_t (*slab_bound)(const dmlcl__tune *t);
    uint32_t (*kept_axes)(const void *desc);
    /* From op checked (its tensors placed, c found by check and overrides): narrows op to
     * its slab where it is a part, plans, fetches kernels and fills op (op->ctx set). */
    dmlcl_status (*create)(dmlcl_operator *op, const void *desc, const dmlcl__checked *c);
    /* The box of op->in[0]'s logical tensor that box `out` of op->out[0]'s reads (op
     * checked); an empty box reads nothing: all sizes 0. */
    void (*input_box)(const dmlcl_operator *op, const dmlcl__reads *r, const dmlcl__box *out,
                      dmlcl__box *in);
    /* The same along dimension d alone (the reads are separable): the input range
     * [*lo, *hi) that output coordinates [a, b) (a < b, logical) read, empty (lo == hi)
     * where they read nothing. The slab planner asks it range by range; a box would
     * compute every other dimension again each time. */
    void (*input_range)(const dmlcl_operator *op, const dmlcl__reads *r, uint32_t d,
                        uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi);
    dmlcl__desc_layout layout;
} dmlcl__op_class;

/* Counts a class's check (its hook calls this once per run), for the tests' hook
 * dmlcl_test_op_checks, which proves one creation checks once. */
void dmlcl__op_count_check(void);

#endif
