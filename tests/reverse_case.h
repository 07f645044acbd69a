/* REVERSE_SUBSEQUENCES' test cases (reverse_case.c), shared by check_reverse_subsequences.c
 * (randomized cases against the reference) and check_reverse_variants.c (every kernel
 * variant forced): one case's descriptors and the spec's formula in plain C. */
#ifndef DMLCL_TESTS_REVERSE_CASE_H
#define DMLCL_TESTS_REVERSE_CASE_H
#include "testutil.h"

typedef struct reverse_case {
    uint32_t rank, axis, elem, len_bytes;
    dmlcl_tensor_data_type type, len_type;
    uint32_t sizes[8], len_sizes[8], in_str[8], len_str[8], out_str[8];
    size_t in_off, len_off, out_off; /* extra element offsets of the bindings */
} reverse_case;

/* The length at element offset off of the lengths array (UINT32 or UINT64). */
uint64_t reverse_read_len(const reverse_case *c, const unsigned char *lens, uint64_t off);
/* The spec's formula (doc/operators.md), element by element, on host arrays. */
void reverse_reference(const reverse_case *c, const unsigned char *in, const unsigned char *lens,
                       unsigned char *out);
#endif
