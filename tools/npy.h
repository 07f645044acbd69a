/* NumPy .npy files (format versions 1.0, 2.0 and 3.0), read and written without NumPy.
 *
 * A .npy file is the magic "\x93NUMPY", a version (major, minor), the header length
 * (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), a Python dict literal such as
 * {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and
 * ending in '\n', then the raw elements.
 *
 * Only what dmlcl tensors can hold is accepted: the 11 dtypes f2 f4 f8 i1 i2 i4 i8 u1 u2
 * u4 u8 in either byte order, 1 to 8 dimensions, every size 1 to 2^32-1. Data is loaded
 * into host byte order; Fortran order is kept as it is and described by strides. Every
 * check runs before the data is allocated, and the data must be exactly as long as the
 * header says, so a lying header is an error, never a huge allocation or a short read. */
#ifndef DMLCL_TOOLS_NPY_H
#define DMLCL_TOOLS_NPY_H

#include <dmlcl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NPY_ERR_MAX 512 /* size of the message buffers below */
#define NPY_HEADER_MAX (1u << 20) /* longer headers are rejected: ours are ~128 bytes */

typedef enum npy_status {
    NPY_OK = 0,
    NPY_EIO = 1,     /* the file cannot be opened, read or written */
    NPY_EFORMAT = 2, /* not a .npy file dmlcl can use; the message says why */
    NPY_ENOMEM = 3   /* the data does not fit in host memory */
} npy_status;

typedef struct npy_array {
    dmlcl_tensor_data_type type;
    uint32_t rank;                                     /* 1..8 */
    uint32_t sizes[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    uint64_t strides[DMLCL_TENSOR_DIMENSION_COUNT_MAX]; /* in elements, for either order */
    int fortran_order;     /* 1: first dimension fastest (strides say so) */
    int big_endian;        /* byte order of the file (data is in host order after loading) */
    int version;           /* 1, 2 or 3 (all minor version 0) */
    uint64_t elements;     /* product of sizes */
    uint64_t data_bytes;   /* elements * element size */
    void *data;            /* owned; free with npy_free() */
    size_t mapped;         /* data's mapping (npy_alloc_data of a large array), else 0 */
} npy_array;

/* a->data for a->data_bytes bytes: an array of 8 MiB or more on a mapping of its own
 * that asks for transparent huge pages (a fresh page costs the kernel a fault and a
 * zeroing; 2 MiB pages fault 512 times less often), smaller ones from malloc. Returns 0,
 * or -1 with a->data NULL when memory is short. */
int npy_alloc_data(npy_array *a);

/* Reads path into *a (zeroed first): npy_open then npy_read_data. On failure *a holds
 * nothing to free and err holds "<path>: <problem>". */
npy_status npy_load(const char *path, npy_array *a, char err[NPY_ERR_MAX]);

/* The two halves of npy_load, so that a caller can check all that a header says (and
 * what it implies: an output's size, a device's limits) before any work proportional to
 * the data. npy_open reads and checks the header into *a (zeroed first; data NULL) and
 * leaves *f, open, at the data's first byte; on failure *f is NULL and nothing is open.
 * npy_read_data allocates a->data, reads it and brings it into host byte order; on
 * failure a->data is NULL again. The caller closes f either way. */
npy_status npy_open(const char *path, npy_array *a, FILE **f, char err[NPY_ERR_MAX]);
npy_status npy_read_data(FILE *f, const char *path, npy_array *a, char err[NPY_ERR_MAX]);

/* Same for a file already in memory; name is used in messages only. */
npy_status npy_load_mem(const char *name, const void *buf, size_t len, npy_array *a,
                        char err[NPY_ERR_MAX]);

/* Writes a: type, rank, sizes, fortran_order, big_endian (byte order to write), version
 * (0 = the lowest that fits, else 1, 2 or 3) and data (host order, laid out in the order
 * fortran_order names, elements * element size bytes). strides are ignored. The file is
 * written to a temporary file in path's folder, synced and renamed over path: on any
 * failure (a full disk, a read-only folder) the temporary file is removed and an existing
 * file at path keeps its bytes. */
npy_status npy_save(const char *path, const npy_array *a, char err[NPY_ERR_MAX]);

void npy_free(npy_array *a);
/* Frees only the data (a->data NULL), keeping the header's fields. */
void npy_free_data(npy_array *a);

/* Element size in bytes of a data type, 0 for UNKNOWN. */
uint32_t npy_type_size(dmlcl_tensor_data_type type);

/* "<f4" style descriptor of a type in the given byte order ("|i1" for bytes). */
const char *npy_descr(dmlcl_tensor_data_type type, int big_endian, char buf[8]);

/* "(2, 3)"-style shape text. */
const char *npy_shape_text(const npy_array *a, char *buf, size_t cap);

/* 1 when the host stores multi-byte numbers most significant byte first. */
int npy_host_big_endian(void);

#endif
