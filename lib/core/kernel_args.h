/* What the argument structs that kernels share with their host code are made of. Each
 * kernel's struct is one header beside it (reverse/args.h, resample/resample1/args.h,
 * resample/taps/args.h), #included by the host code and by the kernel (the embed step
 * inlines it into the program, tools/embed_kernels.c), so the two sides cannot drift.
 *
 * A header lists its fields once, as a macro LIST(S, A) that names each field S(name) (a
 * scalar) or A(name, count) (an array); DMLCL__ARGS_STRUCT(LIST) declares the struct's
 * fields, and tests/check_kernel_args.c compares every field's offset and the struct's
 * size on the device with the host's. Every field is 64-bit: an 8-byte field aligns to 8
 * in C and in OpenCL C alike, so neither side pads and the layouts agree. Included by
 * OpenCL C, so no quoted include here (the embed step would inline it on both sides). */
#ifndef DMLCL_CORE_KERNEL_ARGS_H
#define DMLCL_CORE_KERNEL_ARGS_H
#ifdef __OPENCL_VERSION__
typedef ulong dmlcl__arg;
#else
#include <stdint.h>
typedef uint64_t dmlcl__arg;
#endif

#define DMLCL__ARG_S(name) dmlcl__arg name;
#define DMLCL__ARG_A(name, count) dmlcl__arg name[count];
#define DMLCL__ARGS_STRUCT(LIST) LIST(DMLCL__ARG_S, DMLCL__ARG_A)
#endif
