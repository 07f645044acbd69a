/* Shared test helpers: one OpenCL context per test process (so compiled programs are
 * reused across suites), a seeded RNG, layouts, guard-banded device buffers. */
#ifndef DMLCL_TESTUTIL_H
#define DMLCL_TESTUTIL_H
#include <check.h>
#include <pthread.h>
#include <dmlcl.h>
#include <stddef.h>
#include <stdint.h>

/* Short names the test files share. */
#define F32 DMLCL_TENSOR_DATA_TYPE_FLOAT32
#define F16 DMLCL_TENSOR_DATA_TYPE_FLOAT16
#define F64 DMLCL_TENSOR_DATA_TYPE_FLOAT64
#define I8 DMLCL_TENSOR_DATA_TYPE_INT8
#define U8 DMLCL_TENSOR_DATA_TYPE_UINT8
#define I16 DMLCL_TENSOR_DATA_TYPE_INT16
#define U16 DMLCL_TENSOR_DATA_TYPE_UINT16
#define I32 DMLCL_TENSOR_DATA_TYPE_INT32
#define U32 DMLCL_TENSOR_DATA_TYPE_UINT32
#define NEAREST DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR
#define LINEAR DMLCL_INTERPOLATION_MODE_LINEAR
#define INC DMLCL_AXIS_DIRECTION_INCREASING
#define DEC DMLCL_AXIS_DIRECTION_DECREASING

/* The process-wide context on $DMLCL_DEVICE (tests run with cpu = POCL). */
dmlcl_context *tu_context(void);
/* Kernel build options every test program builds with (check_main.c sets them as
 * $DMLCL_BUILD_OPTIONS): warnings are errors, so every variant the suites build compiles
 * without one on the test device (OpenCL's -Werror). Tests that change the variable set
 * it back with tu_build_options(). */
#define TU_BUILD_OPTIONS "-Werror"
void tu_build_options(const char *extra);

/* splitmix64: deterministic across platforms for fixed seeds. */
uint64_t tu_rand(uint64_t *state);
uint64_t tu_range(uint64_t *state, uint64_t lo, uint64_t hi); /* inclusive */

/* Layout families for strided tests. */
typedef enum { TU_PACKED, TU_PADDED, TU_TRANSPOSED, TU_BROADCAST, TU_LAYOUT_COUNT } tu_layout;
extern const char *const tu_layout_names[TU_LAYOUT_COUNT];
/* Fills strides[rank] for the layout; BROADCAST puts stride 0 on one random dimension
 * (other than `keep`, -1 for none) and packs the rest. */
void tu_make_strides(uint64_t *rng, tu_layout layout, uint32_t rank, const uint32_t *sizes,
                     int keep, uint32_t *strides);
/* Channels-last for rank >= 3: dimension 1 innermost, then the others in order. */
void tu_channels_last(uint32_t rank, const uint32_t *sizes, uint32_t *strides);
/* Elements the buffer must hold: 1 + sum (size-1)*stride. */
uint64_t tu_span(uint32_t rank, const uint32_t *sizes, const uint32_t *strides);

/* A device buffer with GUARD bytes of a fill pattern before and after the tensor. */
#define TU_GUARD 64
#define TU_FILL 0xA5
typedef struct {
    cl_mem mem;
    size_t bytes;  /* whole buffer */
    size_t offset; /* where the tensor starts (a multiple of 8 plus the guard) */
} tu_devbuf;
tu_devbuf tu_devbuf_new(size_t tensor_bytes, size_t extra_offset, const void *init);
void tu_devbuf_read(const tu_devbuf *b, void *whole); /* reads all b->bytes */
void tu_devbuf_free(tu_devbuf *b);

/* Walks every index of a shape: returns 0 after the last. idx starts all zero. */
int tu_next_index(uint32_t rank, const uint32_t *sizes, uint32_t *idx);
uint64_t tu_offset(uint32_t rank, const uint32_t *idx, const uint32_t *strides);

/* Pixel-centre offsets for every dimension: input 0.5, output -0.5 (DirectML's RESAMPLE). */
extern const float tu_pix_in[8], tu_pix_out[8];

/* FLOAT16 on the host: exact widening, and narrowing rounded to nearest even as
 * vstore_half_rte (subnormals, infinities and NaN included). */
float tu_half_to_float(uint16_t h);
uint16_t tu_float_to_half(float f);

/* The integer data types on the host: the range lo..hi (0 for the float types, which it
 * leaves alone), an element as a double, and a value stored as the resample family's
 * kernels store it: rounded to nearest with ties to even, then saturated. */
int tu_int_range(dmlcl_tensor_data_type t, double *lo, double *hi);
double tu_int_load(dmlcl_tensor_data_type t, const void *p);
void tu_int_store(dmlcl_tensor_data_type t, void *p, double v);

/* Fails every library allocation of one create + execute_host of the operator in turn
 * (test hooks): each run ends cleanly with DMLCL_OUT_OF_MEMORY and "out of host memory", or
 * succeeds, and leaks nothing. Returns the allocation count of a clean run. */
uint64_t tu_alloc_failures(const dmlcl_operator_desc *od, const void *in, void *out);

/* Creates the operator in tu_context(), runs it once on one host input and output
 * through execute_host and releases it; asserts that create and run succeed. Under
 * $DMLCL_TEST_COMPILE_ONLY it creates and releases only (the output is not written). */
void tu_run_host(const dmlcl_operator_desc *od, const void *in, void *out);
/* Creates od on the shared context and releases it: its status; on failure the operator
 * pointer must have come back NULL. */
dmlcl_status tu_create_release(const dmlcl_operator_desc *od);
/* $DMLCL_TEST_COMPILE_ONLY set: the kernel-variant tests build their programs and run
 * nothing (tests/targets_test.sh, for a target the host cannot run). */
int tu_compile_only(void);

/* make check runs with DMLCL_SPECIALIZE=off (Makefile.am): the suites test the generic
 * programs, which every operator starts on, and random scales compile no program each.
 * The tests of the specialised programs (lane patterns, tap patterns, the GPUs' windows)
 * build them on the caller's path through this fixture pair: setup and teardown. */
void tu_specialize_sync(void);
void tu_specialize_restore(void);

/* RESAMPLE1 on packed FLOAT32 host arrays through execute_host in tu_context(); asserts
 * that create and run succeed. */
void tu_resample1_f32(uint32_t rank, const uint32_t *in_sizes, const uint32_t *out_sizes,
                      int mode, const float *scales, const float *ipo, const float *opo,
                      const float *in, float *out);

/* ck_assert_msg for the checks of every element or byte of an output: Check records the
 * place of each assertion that passes with a write(2), for its report of a crash, and make
 * check's loops over outputs made about 6 million of them (its system time fell from 82 to
 * 70 s without them). Here only a failing check reaches Check, with the same message.
 * `expr` is evaluated again on failure: no side effects. */
#define tu_assert_each(expr, ...)                                                           \
    do {                                                                                    \
        if (!(expr))                                                                        \
            ck_assert_msg(expr, __VA_ARGS__);                                               \
    } while (0)

/* Asserts that the last call failed with `status` and a message containing `needle`. */
#define tu_assert_fails(call, status, needle)                                               \
    do {                                                                                     \
        dmlcl_status st_ = (call);                                                           \
        ck_assert_msg(st_ == (status), "%s: expected %s, got %s (%s)", #call,                \
                      dmlcl_status_string(status), dmlcl_status_string(st_), dmlcl_last_error()); \
        ck_assert_msg(strstr(dmlcl_last_error(), (needle)) != NULL,                          \
                      "message \"%s\" lacks \"%s\"", dmlcl_last_error(), (needle));          \
    } while (0)

#define tu_assert_ok(call)                                                                   \
    do {                                                                                     \
        dmlcl_status st_ = (call);                                                           \
        ck_assert_msg(st_ == DMLCL_SUCCESS, "%s: %s: %s", #call, dmlcl_status_string(st_),  \
                      dmlcl_last_error());                                                   \
    } while (0)

/* Suites registered in check_main.c. */
Suite *reverse_subsequences_suite(void);
Suite *reverse_variants_suite(void);
Suite *resample1_suite(void);
Suite *resample1_layouts_suite(void);
Suite *resample1_cpu_rows_suite(void);
Suite *resample1_validation_suite(void);
Suite *resample2_suite(void);
Suite *resample_grad1_suite(void);
Suite *resample_grad1_layouts_suite(void);
Suite *resample_adjoint_suite(void);
Suite *resample3_suite(void);
Suite *validation_suite(void);
Suite *cache_suite(void);
Suite *disk_cache_suite(void);
Suite *threads_suite(void);
Suite *alloc_failure_suite(void);
Suite *conformance_suite(void);
Suite *kernel_args_suite(void);
Suite *tiles_suite(void);
Suite *specialize_suite(void);
Suite *slabs_suite(void);
Suite *host_suite(void);
#endif
