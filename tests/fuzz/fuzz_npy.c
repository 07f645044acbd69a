/* libFuzzer target: the .npy parser (tools/npy.c) on arbitrary bytes. Malformed, truncated
 * or lying files must give NPY_EFORMAT with a message naming the file, never a crash, an
 * out-of-bounds read or an allocation larger than the input. Accepted files are saved
 * again and must load back identically.
 * Build: ./configure CC=clang --enable-fuzzing && make tests/fuzz/fuzz_npy
 * Seeds: the .npy files in tests/data. */
#include "config.h"
#include "../../tools/npy.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    npy_array a, b;
    char err[NPY_ERR_MAX];
    npy_status st = npy_load_mem("fuzz.npy", data, size, &a, err);
    if (st) {
        if (strncmp(err, "fuzz.npy: ", 10) || a.data)
            abort();
        return 0;
    }
    if (a.data_bytes > size || a.rank < 1 || a.rank > 8)
        abort(); /* the data came from the input: it cannot be larger */
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_npy.%ld.npy", (long)getpid());
    if (npy_save(path, &a, err) || npy_load(path, &b, err) || b.data_bytes != a.data_bytes ||
        memcmp(a.data, b.data, a.data_bytes) || b.type != a.type || b.rank != a.rank ||
        memcmp(a.sizes, b.sizes, sizeof a.sizes) || b.fortran_order != a.fortran_order)
        abort();
    remove(path);
    npy_free(&b);
    npy_free(&a);
    return 0;
}
