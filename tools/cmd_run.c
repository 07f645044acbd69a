/* `dmlcl run <operator>`: runs one operator on .npy files.
 *
 * Every run takes the same path, every check before any work proportional to a size, so
 * that a bad value or a too-large output on a file of gigabytes is refused at once: read
 * and check the inputs' headers only (exit 2 on a bad one, before any device is
 * touched), compute the output's shape, open the device, check every buffer against its
 * limits, create the operator (its validation errors exit 2, the program is built).
 * Then the inputs' data is read while other threads fault in the output array's fresh
 * pages and prepare the host path (dmlcl_operator_prepare_host),
 * dmlcl_operator_execute_host() runs on the host arrays (doc/api.md, "Host arrays"), and
 * the output is written as a C-order little-endian .npy file. */
#include "config.h"
#include "cli.h"
#include "npy.h"
#include "prefault.h"
#include "temp_output.h"
#include <dmlcl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_STATUS_HELP                                                                     \
    "exit status:\n"                                                                         \
    "  0  success\n"                                                                         \
    "  1  usage: unknown option, missing option or value, a value that does not parse\n"     \
    "     (not a number, not one of the listed words, an empty list item)\n"                 \
    "  2  input error: a .npy file cannot be read, is malformed or cannot be written; a\n"   \
    "     value out of range or that does not fit the input (a negative scale or size, a\n" \
    "     zero size, three scales for a 4-D input, an axis past the rank); or the operator\n" \
    "     rejects the tensors (the message names the rule)\n"                               \
    "  3  device error: no such device, a buffer over the device's limit, an OpenCL call\n" \
    "     or kernel build failure, or not supported on this device\n"

/* The resample family's types: README and dmlcl(1) say the same, word for word. */
#define RESAMPLE_TYPES                                                                        \
    "Dtypes: f4, f2, i1, u1, i2 and u2 on every device; f8 where the device has cl_khr_fp64;\n" \
    "i4 and u4 with nearest only (not resample-grad1)"

#define COMMON_HELP                                                                          \
    "  --device SEL           OpenCL device: gpu, cpu, P:D or a name substring\n"         \
    "                         (default: $DMLCL_DEVICE, else the first GPU, else CPU)\n"    \
    "  -v, --verbose          print the device, the input files, the plan, where the\n"    \
    "                         compiled program came from (memory, disk cache or a\n"       \
    "                         compile), the load time (the inputs read) and the run\n"     \
    "                         time, to stderr\n"                                           \
    "  -h, --help             print this help\n"

static const char RUN_HELP[] =
    "usage: dmlcl run <operator> [options]\n"
    "Runs one operator on NumPy .npy files (format 1.0, 2.0, 3.0; either byte order;\n"
    "C or Fortran order; dtypes f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8) and writes the output\n"
    "as a C-order little-endian .npy file. Every check (the files' headers, the output's\n"
    "shape, the device's buffer limit, the operator's rules) comes before any data is read.\n"
    "operators:\n"
    "  reverse-subsequences  reverse the first lengths[j] elements of each line along an axis\n"
    "  resample1             resample by scales with pixel offsets, nearest or linear\n"
    "  resample              DirectML's RESAMPLE: resample1 with pixel-centre offsets\n"
    "  resample2             resample1 whose nearest rounds up or down, as asked\n"
    "  resample-grad1        the backward pass of resample2: gradient in, gradient out\n"
    "  resample3             resample2 with antialiased linear downsampling\n"
    "The output is written to OUTPUT.tmp-PID-N beside it, then renamed over it: a run\n"
    "stopped by Ctrl-C, kill (SIGTERM) or a closed terminal removes that file; 'dmlcl\n"
    "clean-tmp OUTPUT' removes those of runs killed outright (kill -9, a crash).\n"
    "Run 'dmlcl run <operator> --help' for the operator's options; doc/operators.md (in\n"
    "the documentation folder) specifies what each operator computes.\n" EXIT_STATUS_HELP;

static const char REVERSE_HELP[] =
    "usage: dmlcl run reverse-subsequences --input X.npy --lengths L.npy --axis N\n"
    "                 --output Y.npy [--device SEL] [--verbose]\n"
    "REVERSE_SUBSEQUENCES: along the axis, the first lengths[j] elements (at most the line)\n"
    "of each line are reversed, the rest copied (doc/operators.md). Any of the 11 dtypes\n"
    "(bits are moved).\n"
    "  --input X.npy          the input tensor, 1 to 8 dimensions\n"
    "  --lengths L.npy        uint32 or uint64, the input's shape with 1 on the axis\n"
    "  --axis N               0 to rank-1; negative counts from the end (-1 = last)\n"
    "  --output Y.npy         written with the input's shape and dtype\n" COMMON_HELP
    EXIT_STATUS_HELP;

static const char RESAMPLE1_HELP[] =
    "usage: dmlcl run resample1 --input X.npy --output Y.npy [--mode nearest|linear]\n"
    "                 [--scales S,...] [--output-size N,...] [--input-offsets O,...]\n"
    "                 [--output-offsets O,...] [--device SEL] [--verbose]\n"
    "RESAMPLE1: resamples every dimension by its scale and pixel offsets, nearest (ties\n"
    "round up) or linear, the edges clamped; the formulas: doc/operators.md (in the\n"
    "documentation folder; see dmlcl(1)), section RESAMPLE1.\n"
    RESAMPLE_TYPES ".\n"
    "(i1, u1, i2 and u2 linear: computed in float, rounded half to even, saturated.)\n"
    "  --input X.npy          the input tensor, 1 to 8 dimensions\n"
    "  --output Y.npy         written with the input's dtype\n"
    "  --mode M               linear (the default) or nearest\n"
    "  --scales S,...         one scale per dimension (> 0), or one for all\n"
    "  --output-size N,...    the output shape; default input size x scale rounded down,\n"
    "                         in float32; without --scales, scale = output / input size\n"
    "  --input-offsets O,...  one per dimension, default 0.5 (pixel centres)\n"
    "  --output-offsets O,... one per dimension, default -0.5 (pixel centres)\n"
    "At least one of --scales and --output-size is needed.\n" COMMON_HELP EXIT_STATUS_HELP;

static const char RESAMPLE2_HELP[] =
    "usage: dmlcl run resample2 [resample1's options] [--rounding increasing|decreasing]\n"
    "RESAMPLE2: resample1, but nearest rounds the coordinate up (increasing, the default)\n"
    "or down (decreasing); linear ignores it. Options as 'dmlcl run resample1 --help'.\n"
    RESAMPLE_TYPES ".\n" COMMON_HELP
    EXIT_STATUS_HELP;

static const char RESAMPLE_HELP[] =
    "usage: dmlcl run resample --input X.npy --output Y.npy [--mode nearest|linear]\n"
    "                 [--scales S,...] [--output-size N,...] [--device SEL] [--verbose]\n"
    "RESAMPLE (DirectML's first version): resample1 with input offsets 0.5 and output\n"
    "offsets -0.5 (pixel-centre sampling).\n"
    RESAMPLE_TYPES ".\n"
    "  --input X.npy          the input tensor, 1 to 8 dimensions\n"
    "  --output Y.npy         written with the input's dtype\n"
    "  --mode M               linear (the default) or nearest\n"
    "  --scales S,...         one scale per dimension (> 0), or one for all\n"
    "  --output-size N,...    the output shape; default input size x scale rounded down,\n"
    "                         in float32; without --scales, scale = output / input size\n"
    "At least one of --scales and --output-size is needed.\n" COMMON_HELP EXIT_STATUS_HELP;

static const char RESAMPLE_GRAD1_HELP[] =
    "usage: dmlcl run resample-grad1 --input G.npy --output DX.npy [--mode nearest|linear]\n"
    "                 [--rounding increasing|decreasing] [--scales S,...]\n"
    "                 [--output-size N,...] [--input-offsets O,...] [--output-offsets O,...]\n"
    "                 [--device SEL] [--verbose]\n"
    "RESAMPLE_GRAD1: the backward pass of resample2. Give the forward pass's mode, rounding,\n"
    "scales and offsets; each gradient element is added to the forward-input elements the\n"
    "forward pass read, times the weights it used (the sums: doc/operators.md).\n"
    RESAMPLE_TYPES "\n"
    "(i1, u1, i2 and u2: summed in float, rounded half to even, saturated once).\n"
    "  --input G.npy          the incoming gradient, shaped like the forward output\n"
    "  --output DX.npy        the forward input's gradient, written with G's dtype\n"
    "  --mode M               linear (the default) or nearest\n"
    "  --rounding R           the forward nearest's rounding: increasing = up (default),\n"
    "                         decreasing = down\n"
    "  --scales S,...         the forward scales, one per dimension (> 0) or one for all\n"
    "  --output-size N,...    the forward input's shape; default floor(gradient size /\n"
    "                         scale), computed in float32, which is not always the forward\n"
    "                         input's (5 x 0.5 -> 2, but 2 / 0.5 = 4): give it unless the\n"
    "                         sizes divide evenly; without --scales, scale = gradient size /\n"
    "                         output size\n"
    "  --input-offsets O,...  the forward ones, one per dimension, default 0.5\n"
    "  --output-offsets O,... the forward ones, one per dimension, default -0.5\n"
    "At least one of --scales and --output-size is needed.\n" COMMON_HELP EXIT_STATUS_HELP;

static const char RESAMPLE3_HELP[] =
    "usage: dmlcl run resample3 [resample2's options] [--antialias]\n"
    "RESAMPLE3: resample2, plus antialiasing: with --antialias, every linear dimension with\n"
    "scale < 1 (downsampling) uses a widened, normalized triangle filter (PyTorch's\n"
    "antialias=True; formulas: doc/operators.md). No effect on nearest or on scales >= 1.\n"
    "Options as 'dmlcl run resample2 --help'.\n"
    RESAMPLE_TYPES ".\n"
    "  --antialias            the widened filter (without it: resample2, bit for bit)\n"
    COMMON_HELP EXIT_STATUS_HELP;

/* ---- tensors from files ----------------------------------------------------------------- */

typedef struct tensor_file {
    const char *role; /* "input", "lengths" */
    const char *path;
    FILE *f;       /* open at the data's first byte until the data is read */
    npy_array arr; /* the header's fields; data once read_tensor has run */
    uint32_t strides[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    dmlcl_tensor_desc desc;
} tensor_file;

/* Opens path, reads its header only and describes it: C order is packed (NULL strides),
 * Fortran order keeps the file's layout through strides, so nothing is transposed on the
 * host. The data is read by read_tensor, once everything has been checked. */
static int open_tensor(const char *cmd, const char *role, const char *path, tensor_file *t)
{
    char err[NPY_ERR_MAX];
    t->role = role;
    t->path = path;
    if (npy_open(path, &t->arr, &t->f, err)) {
        cli_error(cmd, "%s", err);
        return DMLCL_EXIT_INPUT;
    }
    for (uint32_t d = 0; d < t->arr.rank; d++) {
        if (t->arr.fortran_order && t->arr.strides[d] > UINT32_MAX) {
            cli_error(cmd, "%s: Fortran-order strides exceed 2^32 elements (dmlcl strides are "
                      "32-bit); save the array in C order", path);
            return DMLCL_EXIT_INPUT;
        }
        t->strides[d] = (uint32_t)t->arr.strides[d];
    }
    t->desc = (dmlcl_tensor_desc){t->arr.type, t->arr.rank, t->arr.sizes,
                                  t->arr.fortran_order ? t->strides : NULL, 0};
    return DMLCL_EXIT_OK;
}

static int read_tensor(const char *cmd, tensor_file *t)
{
    char err[NPY_ERR_MAX];
    npy_status st = npy_read_data(t->f, t->path, &t->arr, err);
    fclose(t->f);
    t->f = NULL;
    if (st)
        cli_error(cmd, "%s", err);
    return st ? DMLCL_EXIT_INPUT : DMLCL_EXIT_OK;
}

static void close_tensor(tensor_file *t)
{
    if (t->f)
        fclose(t->f);
    t->f = NULL;
    npy_free(&t->arr);
}

static void describe(const tensor_file *t)
{
    char shape[160], descr[8];
    fprintf(stderr, "dmlcl: %s %s: %s ('%s'), shape %s, %s order, .npy format %d.0\n", t->role,
            t->path, cli_type_name(t->arr.type), npy_descr(t->arr.type, t->arr.big_endian, descr),
            npy_shape_text(&t->arr, shape, sizeof shape), t->arr.fortran_order ? "Fortran" : "C",
            t->arr.version);
}

/* An output array of the given type and shape, C order; its data is allocated by
 * dispatch(), once the device is known to hold it. */
static int new_output(const char *cmd, dmlcl_tensor_data_type type, uint32_t rank,
                      const uint32_t *sizes, npy_array *out)
{
    memset(out, 0, sizeof *out);
    out->type = type;
    out->rank = rank;
    uint64_t bytes = npy_type_size(type);
    for (uint32_t d = 0; d < rank; d++) {
        out->sizes[d] = sizes[d];
        if (bytes > UINT64_MAX / sizes[d]) {
            cli_error(cmd, "the output would exceed 2^64 bytes");
            return DMLCL_EXIT_INPUT;
        }
        bytes *= sizes[d];
    }
    out->elements = bytes / npy_type_size(type);
    out->data_bytes = bytes;
    return DMLCL_EXIT_OK;
}

static int save_output(const char *cmd, const char *path, npy_array *out, int verbose)
{
    char err[NPY_ERR_MAX], shape[160], descr[8];
    out->big_endian = 0; /* what NumPy writes on every common machine */
    if (npy_save(path, out, err)) {
        cli_error(cmd, "%s", err);
        return DMLCL_EXIT_INPUT;
    }
    if (verbose)
        fprintf(stderr, "dmlcl: output %s: %s ('%s'), shape %s, C order\n", path,
                cli_type_name(out->type), npy_descr(out->type, 0, descr),
                npy_shape_text(out, shape, sizeof shape));
    clean_tmp_note(cmd, path);
    return DMLCL_EXIT_OK;
}

/* ---- the device run ------------------------------------------------------------------------ */

/* Every buffer within CL_DEVICE_MAX_MEM_ALLOC_SIZE, checked before anything is compiled
 * or allocated: clCreateBuffer would answer CL_INVALID_BUFFER_SIZE. */
static int fits_device(const char *cmd, cl_device_id dev, const char *what, const npy_array *a,
                       const char *advice)
{
    uint64_t max = cli_max_alloc(dev);
    if (!max || a->data_bytes <= max)
        return DMLCL_EXIT_OK;
    char shape[160], need[32], have[32];
    cli_error(cmd, "%s (shape %s, %s) needs a buffer of %s, over this device's limit of %s "
              "per buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE; clCreateBuffer would fail with "
              "CL_INVALID_BUFFER_SIZE); %s, or split the work in tiles", what,
              npy_shape_text(a, shape, sizeof shape), cli_type_name(a->type),
              cli_bytes_text(a->data_bytes, need), cli_bytes_text(max, have), advice);
    return DMLCL_EXIT_DEVICE;
}

static void print_device(dmlcl_context *c)
{
    char name[256] = "", plat_name[256] = "", ver[256] = "";
    cl_platform_id plat = NULL;
    cl_device_id dev = dmlcl_context_device(c);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof plat_name - 1, plat_name, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof ver - 1, ver, NULL);
    fprintf(stderr, "dmlcl: device: %s (%s, %s)\n", name, plat_name, ver);
}

static void print_cache(const dmlcl_cache_stats *a, const dmlcl_cache_stats *b)
{
    const char *from = b->compiles > a->compiles     ? "compiled from source"
                     : b->disk_hits > a->disk_hits   ? "loaded from the disk cache"
                     : b->memory_hits > a->memory_hits ? "found in memory"
                                                       : "no program needed";
    fprintf(stderr, "dmlcl: program cache: %s (memory hits %llu -> %llu, disk hits %llu -> "
            "%llu, compiles %llu -> %llu)\n", from, (unsigned long long)a->memory_hits,
            (unsigned long long)b->memory_hits, (unsigned long long)a->disk_hits,
            (unsigned long long)b->disk_hits, (unsigned long long)a->compiles,
            (unsigned long long)b->compiles);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

typedef struct run_opts {
    const char *device;
    int verbose;
    const char *output_advice; /* what to change when the output is too large */
} run_opts;

/* dmlcl_operator_prepare_host on a thread of its own while the inputs are read: a GPU's
 * pinned buffers are made then, not in the run (30 ms of a 1 GiB input's 150 on the
 * H200 node). Its status is not needed: where it fails, execute_host makes what is
 * missing and reports its own error. */
static void *prepare_host(void *op)
{
    dmlcl_operator_prepare_host(op);
    return NULL;
}

/* The first work proportional to a size, once all is checked: the inputs' data is read
 * on this thread while others fault in the output's fresh pages, which execute_host
 * would otherwise fault one by one while it writes them, and another prepares the run. */
static int load(const char *cmd, dmlcl_operator *op, tensor_file **ins, uint32_t n_in,
                npy_array *out, int verbose)
{
    if (out->data_bytes > SIZE_MAX || npy_alloc_data(out)) {
        char need[32];
        cli_error(cmd, "out of host memory for the %s output",
                  cli_bytes_text(out->data_bytes, need));
        return DMLCL_EXIT_INPUT;
    }
    double t0 = now_ms();
    prefault pf = {0};
    /* Only a mapping of its own is fresh; a small array from malloc may not be. */
    int threads = out->mapped ? prefault_start(&pf, out->data, (size_t)out->data_bytes) : 0;
    pthread_t preparer;
    const int preparing = !pthread_create(&preparer, NULL, prepare_host, op);
    int rc = DMLCL_EXIT_OK;
    for (uint32_t i = 0; i < n_in && !rc; i++)
        rc = read_tensor(cmd, ins[i]);
    prefault_join(&pf);
    if (preparing)
        pthread_join(preparer, NULL);
    if (!rc && verbose && threads)
        fprintf(stderr, "dmlcl: load time: %.3f ms (the inputs read while %d thread%s "
                "faulted in the output's pages)\n", now_ms() - t0, threads,
                threads == 1 ? "" : "s");
    else if (!rc && verbose)
        fprintf(stderr, "dmlcl: load time: %.3f ms (the inputs read)\n", now_ms() - t0);
    return rc;
}

/* The run on the host arrays, through dmlcl_operator_execute_host: on a CPU device the
 * loaded inputs and the output array are the buffers, nothing copied (doc/api.md, "Host
 * arrays"); on other devices they are copied there and back. */
static int dispatch(const char *cmd, dmlcl_operator *op, tensor_file **ins, uint32_t n_in,
                    npy_array *out, int verbose)
{
    int rc = load(cmd, op, ins, n_in, out, verbose);
    if (rc)
        return rc;
    const void *in_data[4];
    for (uint32_t i = 0; i < n_in; i++)
        in_data[i] = ins[i]->arr.data;
    void *out_data[1] = {out->data};
    double t0 = now_ms();
    dmlcl_status st = dmlcl_operator_execute_host(op, in_data, out_data);
    if (st)
        return cli_lib_fail(cmd, st);
    if (verbose)
        fprintf(stderr, "dmlcl: run time: %.3f ms (the kernel, and the copies on a device "
                "that is not a CPU)\n", now_ms() - t0);
    return DMLCL_EXIT_OK;
}

static int run_operator(const char *cmd, const run_opts *o, const dmlcl_operator_desc *od,
                        tensor_file **ins, uint32_t n_in, npy_array *out)
{
    dmlcl_context *c = NULL;
    int rc = cli_open_context(cmd, o->device, &c);
    if (rc)
        return rc;
    if (o->verbose)
        print_device(c);
    cl_device_id dev = dmlcl_context_device(c);
    for (uint32_t i = 0; i < n_in && !rc; i++) {
        char what[300];
        snprintf(what, sizeof what, "the %s %.256s", ins[i]->role, ins[i]->path);
        rc = fits_device(cmd, dev, what, &ins[i]->arr, "use a smaller input");
    }
    if (!rc)
        rc = fits_device(cmd, dev, "the output", out, o->output_advice);
    dmlcl_cache_stats before, after;
    dmlcl_cache_get_stats(&before);
    dmlcl_operator *op = NULL;
    dmlcl_status st = rc ? DMLCL_SUCCESS : dmlcl_operator_create(c, od, &op);
    if (st)
        rc = cli_lib_fail(cmd, st);
    if (!rc && o->verbose) {
        dmlcl_cache_get_stats(&after);
        fprintf(stderr, "dmlcl: plan: %s\n", dmlcl_operator_plan(op));
        print_cache(&before, &after);
    }
    if (!rc)
        rc = dispatch(cmd, op, ins, n_in, out, o->verbose);
    dmlcl_operator_release(op);
    dmlcl_context_release(c);
    return rc;
}

/* ---- argument values ---------------------------------------------------------------------- */

/* "1,1,2,2" -> numbers, each as strtod reads it (sizes: digits, maybe after a minus sign).
 * Returns the count, or -1 after printing why the text is not such a list: a usage error. */
static int parse_list(const char *cmd, const char *opt, const char *text, int sizes, double *v)
{
    int n = 0;
    for (const char *p = text;; n++) {
        char *end = NULL;
        if (n == DMLCL_TENSOR_DIMENSION_COUNT_MAX) {
            cli_error(cmd, "%s '%s': more than %d values", opt, text,
                      DMLCL_TENSOR_DIMENSION_COUNT_MAX);
            return -1;
        }
        /* A size may carry a minus sign: -4 is a number out of range (exit 2, as a
         * negative scale is), not text that does not parse (1). */
        int neg = sizes && *p == '-';
        if (!sizes)
            v[n] = strtod(p, &end);
        else if (p[neg] >= '0' && p[neg] <= '9') /* above 2^64: ULLONG_MAX, out of range */
            v[n] = (neg ? -1.0 : 1.0) * (double)strtoull(p + neg, &end, 10);
        if (!end || end == p || (*end && *end != ',')) {
            cli_error(cmd, "%s '%s': expected comma-separated %s", opt, text,
                      sizes ? "sizes (whole numbers)" : "numbers");
            return -1;
        }
        if (!*end)
            return n + 1;
        p = end + 1;
    }
}

static int parse_mode(const char *cmd, const char *text, dmlcl_interpolation_mode *mode)
{
    /* Linear by default, as in the Python binding (doc/python.md). */
    if (!text || !strcmp(text, "linear"))
        *mode = DMLCL_INTERPOLATION_MODE_LINEAR;
    else if (!strcmp(text, "nearest") || !strcmp(text, "nearest-neighbor"))
        *mode = DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    else {
        cli_error(cmd, "--mode '%s': expected nearest or linear", text);
        return DMLCL_EXIT_USAGE;
    }
    return DMLCL_EXIT_OK;
}

static int need(const char *cmd, const char *opt, const char *value)
{
    if (value)
        return DMLCL_EXIT_OK;
    cli_error(cmd, "%s is required (see dmlcl %s --help)", opt, cmd);
    return DMLCL_EXIT_USAGE;
}

/* ---- reverse-subsequences ------------------------------------------------------------------- */

/* Only the form: whether the axis fits the input is known once its header is read. */
static int parse_axis(const char *cmd, const char *text, long *axis)
{
    char *end = NULL;
    errno = 0;
    *axis = strtol(text, &end, 10);
    if (end == text || *end) {
        cli_error(cmd, "--axis '%s': expected an integer", text);
        return DMLCL_EXIT_USAGE;
    }
    return DMLCL_EXIT_OK;
}

/* The axis against the input's rank, and the lengths' type and shape (the input's with
 * 1 on the axis), in the tool's words; the operator checks the same again. */
static int check_reverse(const char *cmd, const char *axis_text, long axis, const tensor_file *in,
                         const tensor_file *len, uint32_t *ax)
{
    long rank = (long)in->arr.rank;
    if (axis < -rank || axis >= rank) {
        cli_error(cmd, "--axis %s: %s has %ld dimension%s: give 0 to %ld, or -%ld to -1", axis_text,
                  in->path, rank, rank == 1 ? "" : "s", rank - 1, rank);
        return DMLCL_EXIT_INPUT;
    }
    *ax = (uint32_t)(axis < 0 ? axis + rank : axis);
    dmlcl_tensor_data_type t = len->arr.type;
    if (t != DMLCL_TENSOR_DATA_TYPE_UINT32 && t != DMLCL_TENSOR_DATA_TYPE_UINT64) {
        cli_error(cmd, "--lengths %s holds %s: lengths are uint32 or uint64", len->path,
                  cli_type_name(t));
        return DMLCL_EXIT_INPUT;
    }
    npy_array want = in->arr;
    want.sizes[*ax] = 1;
    int same = len->arr.rank == want.rank;
    for (uint32_t d = 0; same && d < want.rank; d++)
        same = len->arr.sizes[d] == want.sizes[d];
    if (!same) {
        char got[160], need[160], shape[160];
        cli_error(cmd, "--lengths %s has shape %s; expected %s: the input's shape %s with 1 on "
                  "axis %u", len->path, npy_shape_text(&len->arr, got, sizeof got),
                  npy_shape_text(&want, need, sizeof need),
                  npy_shape_text(&in->arr, shape, sizeof shape), (unsigned)*ax);
        return DMLCL_EXIT_INPUT;
    }
    return DMLCL_EXIT_OK;
}

static int cmd_reverse(int argc, char **argv)
{
    const char *cmd = "run reverse-subsequences";
    const char *input = NULL, *lengths = NULL, *axis_text = NULL, *output = NULL;
    run_opts o = {NULL, 0, "use a smaller input"};
    const cli_opt opts[] = {{"--input", &input, NULL},     {"--lengths", &lengths, NULL},
                            {"--axis", &axis_text, NULL},  {"--output", &output, NULL},
                            {"--device", &o.device, NULL}, {"--verbose", NULL, &o.verbose},
                            {"-v", NULL, &o.verbose},      {NULL, NULL, NULL}};
    int npos = 0;
    int rc = cli_parse(cmd, REVERSE_HELP, argc, argv, opts, NULL, 0, &npos);
    if (rc >= 0)
        return rc;
    long axis = 0;
    if ((rc = need(cmd, "--input", input)) || (rc = need(cmd, "--lengths", lengths)) ||
        (rc = need(cmd, "--axis", axis_text)) || (rc = need(cmd, "--output", output)) ||
        (rc = parse_axis(cmd, axis_text, &axis)))
        return rc;
    tensor_file in = {0}, len = {0};
    npy_array out = {0};
    rc = open_tensor(cmd, "input", input, &in);
    if (!rc)
        rc = open_tensor(cmd, "lengths", lengths, &len);
    uint32_t ax = 0;
    if (!rc)
        rc = check_reverse(cmd, axis_text, axis, &in, &len, &ax);
    if (!rc) {
        if (o.verbose)
            describe(&in), describe(&len);
        rc = new_output(cmd, in.arr.type, in.arr.rank, in.arr.sizes, &out);
        dmlcl_tensor_desc out_desc = {out.type, out.rank, out.sizes, NULL, 0};
        dmlcl_reverse_subsequences_desc rd = {&in.desc, &len.desc, &out_desc, ax};
        dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
        tensor_file *ins[2] = {&in, &len};
        if (!rc)
            rc = run_operator(cmd, &o, &od, ins, 2, &out);
    }
    if (!rc)
        rc = save_output(cmd, output, &out, o.verbose);
    close_tensor(&in);
    close_tensor(&len);
    npy_free(&out);
    return rc;
}

/* ---- the RESAMPLE family ------------------------------------------------------------------- */

/* Which operator a resample subcommand runs. Each has the options of the one before it:
 * offsets from RESAMPLE1 on, --rounding from RESAMPLE2 on, --antialias for RESAMPLE3. */
typedef enum rs_kind { RS_RESAMPLE, RS_RESAMPLE1, RS_RESAMPLE2, RS_GRAD1, RS_RESAMPLE3 } rs_kind;

typedef struct resample_args {
    const char *input, *output, *mode, *scales, *sizes, *in_off, *out_off, *rounding;
    int antialias;
    run_opts o;
} resample_args;

/* What every RESAMPLE descriptor is built from, parsed and checked. */
typedef struct resample_values {
    dmlcl_interpolation_mode mode;
    dmlcl_axis_direction dir;
    float scales[8], in_off[8], out_off[8];
    uint32_t sizes[8];
} resample_values;

/* A per-dimension list option, one value per dimension of the input. A list that does
 * not parse is a usage error (1); a count or a value that does not fit, an input error (2).
 * what: "scale" (finite, > 0), "offset" (finite) or "size" (1 to 2^32-1). */
static int dim_list(const char *cmd, const char *opt, const char *text, const char *what,
                    const npy_array *in, const char *input, double *v)
{
    int n = parse_list(cmd, opt, text, !strcmp(what, "size"), v);
    if (n < 0)
        return DMLCL_EXIT_USAGE;
    /* One value is every dimension's, as in the Python binding. */
    if (n == 1)
        for (; (uint32_t)n < in->rank; n++)
            v[n] = v[0];
    if ((uint32_t)n != in->rank) {
        char shape[160];
        cli_error(cmd, "%s has %d value%s but %s has %u dimension%s %s: give one per dimension or "
                  "one for all",
                  opt, n, n == 1 ? "" : "s", input, (unsigned)in->rank, in->rank == 1 ? "" : "s",
                  npy_shape_text(in, shape, sizeof shape));
        return DMLCL_EXIT_INPUT;
    }
    for (int d = 0; d < n; d++) {
        int ok = !strcmp(what, "scale")  ? isfinite((float)v[d]) && (float)v[d] > 0
                 : !strcmp(what, "size") ? v[d] >= 1 && v[d] <= UINT32_MAX
                                         : isfinite((float)v[d]);
        if (!ok) {
            cli_error(cmd, "%s: %g for dimension %d; %s", opt, v[d], d,
                      !strcmp(what, "scale")  ? "scales must be finite and > 0"
                      : !strcmp(what, "size") ? "sizes are 1 to 4294967295"
                                              : "offsets must be finite");
            return DMLCL_EXIT_INPUT;
        }
    }
    return DMLCL_EXIT_OK;
}

/* Fills in whichever of scales and output sizes is missing. The forward operators map
 * input size n to n x scale; RESAMPLE_GRAD1 runs that map backwards (its input is the
 * forward output), n / scale, and its scale is the input's size over the output's. */
static int resample_shape(const char *cmd, const resample_args *a, int grad, const npy_array *in,
                          float *scales, uint32_t *sizes)
{
    uint32_t rank = in->rank;
    double v[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    int rc = 0;
    if (a->scales) {
        if ((rc = dim_list(cmd, "--scales", a->scales, "scale", in, a->input, v)))
            return rc;
        for (uint32_t d = 0; d < rank; d++)
            scales[d] = (float)v[d];
    }
    if (a->sizes) {
        if ((rc = dim_list(cmd, "--output-size", a->sizes, "size", in, a->input, v)))
            return rc;
        for (uint32_t d = 0; d < rank; d++)
            sizes[d] = (uint32_t)v[d];
    }
    for (uint32_t d = 0; d < rank; d++) {
        float n_in = (float)in->sizes[d];
        if (!a->scales) {
            scales[d] = grad ? n_in / (float)sizes[d] : (float)sizes[d] / n_in;
            continue;
        }
        if (a->sizes)
            continue;
        /* float32, as ONNX Runtime computes it: 10 x 0.7f gives 7, not 6. */
        double size = floor((double)(grad ? n_in / scales[d] : n_in * scales[d]));
        if (size < 1 || size > UINT32_MAX) {
            cli_error(cmd, "output size of dimension %u is floor(%u %s %g) = %.0f, outside 1 to "
                      "4294967295; change --scales or give --output-size", (unsigned)d,
                      (unsigned)in->sizes[d], grad ? "/" : "x", (double)scales[d], size);
            return DMLCL_EXIT_INPUT;
        }
        sizes[d] = (uint32_t)size;
    }
    return DMLCL_EXIT_OK;
}

static int parse_rounding(const char *cmd, const char *text, dmlcl_axis_direction *dir)
{
    if (!text || !strcmp(text, "increasing"))
        *dir = DMLCL_AXIS_DIRECTION_INCREASING;
    else if (!strcmp(text, "decreasing"))
        *dir = DMLCL_AXIS_DIRECTION_DECREASING;
    else {
        cli_error(cmd, "--rounding must be increasing or decreasing, got '%s'", text);
        return DMLCL_EXIT_USAGE;
    }
    return DMLCL_EXIT_OK;
}

/* Shapes, scales and offsets from the options and the input's header. */
static int resample_values_get(const char *cmd, const resample_args *a, rs_kind kind,
                               const npy_array *in, resample_values *v)
{
    int rc = resample_shape(cmd, a, kind == RS_GRAD1, in, v->scales, v->sizes);
    double in_off[DMLCL_TENSOR_DIMENSION_COUNT_MAX], out_off[DMLCL_TENSOR_DIMENSION_COUNT_MAX];
    for (uint32_t d = 0; d < DMLCL_TENSOR_DIMENSION_COUNT_MAX; d++)
        in_off[d] = 0.5, out_off[d] = -0.5;
    if (!rc && a->in_off)
        rc = dim_list(cmd, "--input-offsets", a->in_off, "offset", in, a->input, in_off);
    if (!rc && a->out_off)
        rc = dim_list(cmd, "--output-offsets", a->out_off, "offset", in, a->input, out_off);
    for (uint32_t d = 0; d < DMLCL_TENSOR_DIMENSION_COUNT_MAX; d++)
        v->in_off[d] = (float)in_off[d], v->out_off[d] = (float)out_off[d];
    return rc;
}

/* The operator's descriptor (each kind reads only the fields it has) and the run. */
static int resample_run(const char *cmd, rs_kind kind, const resample_args *a, tensor_file *in,
                        npy_array *out, const resample_values *v)
{
    dmlcl_tensor_desc out_desc = {out->type, out->rank, out->sizes, NULL, 0};
    const dmlcl_tensor_desc *x = &in->desc, *y = &out_desc;
    uint32_t n = in->arr.rank;
    dmlcl_resample_desc r0 = {x, y, v->mode, n, v->scales};
    dmlcl_resample1_desc r1 = {x, y, v->mode, n, v->scales, v->in_off, v->out_off};
    dmlcl_resample2_desc r2 = {x, y, v->mode, v->dir, n, v->scales, v->in_off, v->out_off};
    dmlcl_resample_grad1_desc g1 = {x, y, v->mode, v->dir, n, v->scales, v->in_off, v->out_off};
    dmlcl_resample3_desc r3 = {x,         y,         v->mode,    v->dir,      n,
                               v->scales, v->in_off, v->out_off, a->antialias};
    static const dmlcl_operator_type types[] = {
        DMLCL_OPERATOR_RESAMPLE, DMLCL_OPERATOR_RESAMPLE1, DMLCL_OPERATOR_RESAMPLE2,
        DMLCL_OPERATOR_RESAMPLE_GRAD1, DMLCL_OPERATOR_RESAMPLE3};
    const void *descs[] = {&r0, &r1, &r2, &g1, &r3};
    dmlcl_operator_desc od = {types[kind], descs[kind]};
    tensor_file *ins[1] = {in};
    return run_operator(cmd, &a->o, &od, ins, 1, out);
}

static int resample_common(const char *cmd, const char *help, rs_kind kind, int argc,
                           char **argv)
{
    resample_args a = {0};
    const cli_opt opts[] = {{"--input", &a.input, NULL},
                            {"--output", &a.output, NULL},
                            {"--mode", &a.mode, NULL},
                            {"--scales", &a.scales, NULL},
                            {"--output-size", &a.sizes, NULL},
                            {kind >= RS_RESAMPLE1 ? "--input-offsets" : "", &a.in_off, NULL},
                            {kind >= RS_RESAMPLE1 ? "--output-offsets" : "", &a.out_off, NULL},
                            {kind >= RS_RESAMPLE2 ? "--rounding" : "", &a.rounding, NULL},
                            {kind == RS_RESAMPLE3 ? "--antialias" : "", NULL, &a.antialias},
                            {"--device", &a.o.device, NULL},
                            {"--verbose", NULL, &a.o.verbose},
                            {"-v", NULL, &a.o.verbose},
                            {NULL, NULL, NULL}};
    a.o.output_advice = kind == RS_GRAD1 ? "use a smaller --output-size"
                                         : "use smaller --scales or --output-size";
    int npos = 0;
    int rc = cli_parse(cmd, help, argc, argv, opts, NULL, 0, &npos);
    if (rc >= 0)
        return rc;
    resample_values v;
    if ((rc = need(cmd, "--input", a.input)) || (rc = need(cmd, "--output", a.output)) ||
        (rc = parse_mode(cmd, a.mode, &v.mode)) || (rc = parse_rounding(cmd, a.rounding, &v.dir)))
        return rc;
    if (!a.scales && !a.sizes) {
        cli_error(cmd, "give --scales, --output-size or both (see dmlcl %s --help)", cmd);
        return DMLCL_EXIT_USAGE;
    }
    tensor_file in = {0};
    npy_array out = {0};
    rc = open_tensor(cmd, kind == RS_GRAD1 ? "input gradient" : "input", a.input, &in);
    if (!rc)
        rc = resample_values_get(cmd, &a, kind, &in.arr, &v);
    if (!rc) {
        if (a.o.verbose)
            describe(&in);
        rc = new_output(cmd, in.arr.type, in.arr.rank, v.sizes, &out);
    }
    if (!rc)
        rc = resample_run(cmd, kind, &a, &in, &out, &v);
    if (!rc)
        rc = save_output(cmd, a.output, &out, a.o.verbose);
    close_tensor(&in);
    npy_free(&out);
    return rc;
}

/* ---- dispatch ---------------------------------------------------------------------------------- */

static const struct resample_cmd {
    const char *name, *alias, *cmd, *help;
    rs_kind kind;
} resample_cmds[] = {
    {"resample1", NULL, "run resample1", RESAMPLE1_HELP, RS_RESAMPLE1},
    {"resample", NULL, "run resample", RESAMPLE_HELP, RS_RESAMPLE},
    {"resample2", NULL, "run resample2", RESAMPLE2_HELP, RS_RESAMPLE2},
    {"resample-grad1", "resample_grad1", "run resample-grad1", RESAMPLE_GRAD1_HELP, RS_GRAD1},
    {"resample3", NULL, "run resample3", RESAMPLE3_HELP, RS_RESAMPLE3},
};

int dmlcl_cmd_run(int argc, char **argv)
{
    /* Ctrl-C, kill or a closed terminal while the output is written: no temporary file
     * left (the old output stays as it was either way). */
    temp_remove_on_signals();
    if (argc < 2) {
        fputs(RUN_HELP, stderr);
        return DMLCL_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        fputs(RUN_HELP, stdout);
        return DMLCL_EXIT_OK;
    }
    if (!strcmp(name, "reverse-subsequences") || !strcmp(name, "reverse_subsequences"))
        return cmd_reverse(argc - 1, argv + 1);
    for (size_t k = 0; k < sizeof resample_cmds / sizeof resample_cmds[0]; k++) {
        const struct resample_cmd *r = &resample_cmds[k];
        if (!strcmp(name, r->name) || (r->alias && !strcmp(name, r->alias)))
            return resample_common(r->cmd, r->help, r->kind, argc - 1, argv + 1);
    }
    cli_error("run", "unknown operator '%s' (reverse-subsequences, resample1, resample, "
              "resample2, resample-grad1 or resample3)", name);
    return DMLCL_EXIT_USAGE;
}
