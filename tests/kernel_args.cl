/* tests/check_kernel_args.c's probe: each argument struct's size, then its fields' offsets
 * in the order of its header's list, as the device's compiler lays them out. The embed
 * step inlines the headers, as it does into the library's programs. */
#include "core/kernel_args.h"
#include "reverse/args.h"
#include "resample/resample1/args.h"
#include "resample/taps/args.h"

#define OFF_S(name) out[n++] = (ulong)((__private char *)&x.name - (__private char *)&x);
#define OFF_A(name, count) OFF_S(name)
#define PROBE(T, LIST)                                                                      \
    {                                                                                       \
        T x;                                                                                \
        out[n++] = sizeof x;                                                                \
        LIST(OFF_S, OFF_A)                                                                  \
    }

__kernel void kernel_args_layout(__global ulong *out, __global uint *count)
{
    uint n = 0;
    PROBE(rs_args, RS_ARGS)
    PROBE(resample1_args, RESAMPLE1_ARGS)
    PROBE(taps_args, TAPS_ARGS)
    *count = n;
}
