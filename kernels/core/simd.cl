/* The width of the device compiler's vector registers, for the host to read (lib/core/
 * context.c) as this kernel's compile-time work-group size. CPU kernels size their vectors
 * to it: a vector wider than the target's registers, passed to or returned from a builtin,
 * changes the call's ABI, and clang warns on every build ("AVX vector argument of type
 * 'float16' without 'avx512f' enabled changes the ABI"). The target is the compiler's, not
 * the host's: POCL builds for the kernel library variant it picked (POCL_KERNELLIB_NAME
 * picks another), so only the compiler can say. */
#if defined(__AVX512F__)
#define SIMD_BYTES 64
#elif defined(__AVX__)
#define SIMD_BYTES 32
#else
#define SIMD_BYTES 16 /* SSE, NEON and the like */
#endif

__kernel __attribute__((reqd_work_group_size(SIMD_BYTES, 1, 1))) void dmlcl_simd_bytes(void) {}
