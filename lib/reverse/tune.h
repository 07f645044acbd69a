/* REVERSE_SUBSEQUENCES' tuning overrides (tune.c): $DMLCL_RS_PLAN, in core's syntax
 * (core/overrides.h), e.g. "variant=lines,wg=128,waves=8". */
#ifndef DMLCL_REVERSE_TUNE_H
#define DMLCL_REVERSE_TUNE_H
#include "core/overrides.h"

/* 0 / -1 = the planner's choice. A variant that does not apply to the shape is ignored. */
typedef struct dmlcl__rs_tune {
    int variant;     /* -1 or a dmlcl__rs_variant */
    uint32_t wg;     /* GPU work-group size */
    uint32_t waves;  /* GPU work-groups per compute unit before items loop (grid stride) */
    uint32_t slab;   /* slabs (core/slab.h): the bound on a launch's spans in elements,
                      * 2^31 unless given; 0: no slabs (64-bit indices past 2^32) */
    uint32_t seg;    /* BLOCKS: line elements per block (DMLCL_RS_BLOCK_SEG unless given) */
} dmlcl__rs_tune;

/* Parses a string of the variable's syntax into *t: 0, or -1. NULL or "" = none. */
int dmlcl__rs_tune_parse(const char *s, dmlcl__rs_tune *t);
/* Reads $DMLCL_RS_PLAN for operator `op` (its message names it when malformed). */
dmlcl_status dmlcl__rs_tune_read(const char *op, dmlcl__rs_tune *t);
#endif
