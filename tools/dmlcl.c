/* dmlcl: the command-line tool. `dmlcl info`, `dmlcl demo`. */
#include "config.h"
#include "cli.h"
#include <dmlcl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(FILE *f)
{
    fprintf(f, "usage: dmlcl <command> [options]\n"
               "commands:\n"
               "  info       list OpenCL platforms and devices, the default pick, the cache\n"
               "             folder\n"
               "  run        run an operator on .npy files (dmlcl run --help)\n"
               "  npy        inspect or compare .npy files (dmlcl npy --help)\n"
               "  clean-tmp  remove the temporary files that killed runs left beside an\n"
               "             output (dmlcl clean-tmp --help)\n"
               "  demo       run three small examples and explain them (dmlcl demo --help)\n"
               "  bench      time each operator case against a buffer copy (dmlcl bench --help)\n"
               "  cache      show the on-disk program cache: folder, entries, size;\n"
               "             'dmlcl cache clear' removes its entries\n"
               "  version    print dmlcl's version (also --version)\n"
               "environment: DMLCL_DEVICE (gpu, cpu, P:D or a name substring),\n"
               "             DMLCL_CACHE_DIR (folder, or 'off')\n"
               "exit status (every command):\n"
               "  0  success\n"
               "  1  usage: unknown command, option or name, missing option or value, a value\n"
               "     that does not parse (not a number, an empty list item)\n"
               "  2  input error: a file cannot be read, is malformed or cannot be written; a\n"
               "     value out of its range or that does not fit the input (a negative scale or\n"
               "     size, a zero size, three scales for a 4-D input, an axis past the rank)\n"
               "  3  device error: no matching device, an OpenCL call or kernel build failed,\n"
               "     not supported on this device\n"
               "  4  the results differ: npy compare's arrays, a bench case's output\n");
    return f == stderr ? 1 : 0;
}

static const char *type_name(cl_device_type t)
{
    return t & CL_DEVICE_TYPE_GPU ? "GPU" : t & CL_DEVICE_TYPE_CPU ? "CPU"
         : t & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "other";
}

static void list_devices(cl_device_id chosen)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS)
        np = 0;
    if (np == 0)
        printf("no OpenCL platforms (install an ICD, e.g. pocl-opencl-icd)\n");
    for (cl_uint p = 0; p < np; p++) {
        char name[256] = "", ver[256] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
        clGetPlatformInfo(plats[p], CL_PLATFORM_VERSION, sizeof ver - 1, ver, NULL);
        printf("platform %u: %s (%s)\n", p, name, ver);
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS)
            nd = 0;
        for (cl_uint d = 0; d < nd; d++) {
            char dn[256] = "", drv[128] = "";
            cl_device_type t = 0;
            cl_uint cu = 0;
            cl_ulong mem = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dn - 1, dn, NULL);
            clGetDeviceInfo(devs[d], CL_DRIVER_VERSION, sizeof drv - 1, drv, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
            printf("  %s device %u:%u: %s [%s], %u compute units, %.1f GiB, driver %s\n",
                   devs[d] == chosen ? "*" : " ", p, d, dn, type_name(t), cu,
                   mem / 1073741824.0, drv);
        }
    }
}

static const char INFO_HELP[] =
    "usage: dmlcl info\n"
    "Lists the OpenCL platforms and devices (P:D indices for --device), marks with * the\n"
    "device the library picks by default ($DMLCL_DEVICE, else the first GPU, else the first\n"
    "CPU) and prints the program cache folder.\n"
    "exit status: 0 success, 1 usage, 3 no default device (DMLCL_DEVICE matches none, or no\n"
    "OpenCL device at all)\n";

static const char CACHE_HELP[] =
    "usage: dmlcl cache [clear]\n"
    "Shows the on-disk program cache: its folder ($DMLCL_CACHE_DIR, else\n"
    "$XDG_CACHE_HOME/dmlcl, else ~/.cache/dmlcl), entries and size; 'clear' removes the\n"
    "entries.\n"
    "exit status: 0 success, 1 usage, 2 the folder cannot be read or cleared\n";

static const char DEMO_HELP[] =
    "usage: dmlcl demo [--device SEL] [--verbose]\n"
    "Runs three small examples on the device and prints, in plain words, what each does,\n"
    "its input and its output: REVERSE_SUBSEQUENCES on the rows of a 3x4 matrix, on its\n"
    "columns, and a 2x2 image resampled to 4x4 (RESAMPLE1, linear).\n"
    "  --device SEL   gpu, cpu, P:D or a name substring (default: $DMLCL_DEVICE, else\n"
    "                 the first GPU, else the first CPU)\n"
    "  -v, --verbose  also print each operator's plan (kernel variant, work sizes, build\n"
    "                 options)\n"
    "  -h, --help     print this help\n"
    "exit status: 0 success, 1 usage, 3 device error (no device, OpenCL or build failure)\n";

static int cmd_info(int argc, char **argv)
{
    int npos = 0;
    const cli_opt opts[] = {{NULL, NULL, NULL}};
    int rc = cli_parse("info", INFO_HELP, argc, argv, opts, NULL, 0, &npos);
    if (rc >= 0)
        return rc;
    const char *sel = getenv("DMLCL_DEVICE");
    printf("dmlcl %s\n", dmlcl_version());
    dmlcl_context *c = NULL;
    dmlcl_status st = dmlcl_context_create_default(&c);
    list_devices(st ? NULL : dmlcl_context_device(c));
    if (st)
        printf("default device: none (%s: %s)\n", dmlcl_status_string(st), dmlcl_last_error());
    else if (sel && *sel)
        printf("default device (*): the first matching DMLCL_DEVICE=\"%s\"\n", sel);
    else
        printf("default device (*): the first GPU, else the first CPU (DMLCL_DEVICE unset)\n");
    const char *dir = dmlcl_cache_directory();
    printf("program cache: %s\n", dir ? dir : "memory only (disk cache off)");
    dmlcl_context_release(c);
    return st ? DMLCL_EXIT_DEVICE : DMLCL_EXIT_OK;
}

/* ---- cache ------------------------------------------------------------------------------ */

/* `dmlcl cache`: where compiled programs are kept and how much; `dmlcl cache clear`. */
static int cmd_cache(int argc, char **argv)
{
    const char *what = NULL;
    int npos = 0;
    const cli_opt opts[] = {{NULL, NULL, NULL}};
    int rc = cli_parse("cache", CACHE_HELP, argc, argv, opts, &what, 1, &npos);
    if (rc >= 0)
        return rc;
    int clear = npos && !strcmp(what, "clear");
    if (npos && !clear) {
        cli_error("cache", "unknown subcommand '%s' (dmlcl cache [clear])", what);
        return DMLCL_EXIT_USAGE;
    }
    const char *dir = dmlcl_cache_directory();
    if (!dir) {
        printf("program cache folder: none (disk cache off: DMLCL_CACHE_DIR=off, or no HOME)\n");
        return 0;
    }
    uint64_t n = 0, bytes = 0;
    dmlcl_status st = dmlcl_cache_disk_usage(&n, &bytes);
    if (st)
        return cli_lib_fail("cache", st);
    if (clear) {
        if ((st = dmlcl_cache_clear()))
            return cli_lib_fail("cache", st);
        printf("removed %llu entries (%.1f KiB) from %s\n", (unsigned long long)n,
               bytes / 1024.0, dir);
        return 0;
    }
    printf("program cache folder: %s\n", dir);
    printf("entries: %llu, %.1f KiB (%llu bytes)\n", (unsigned long long)n, bytes / 1024.0,
           (unsigned long long)bytes);
    return 0;
}

/* ---- demo ------------------------------------------------------------------------------ */

/* "[  1,   2,   3,   4]" with each number in `width` columns. */
static const char *row_text(char *buf, size_t cap, const float *v, int n, int width)
{
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < n && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%*g", k ? ", " : "[", width, v[k]);
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
    return buf;
}

/* Input and output matrices side by side (the output may have more rows), with each
 * row's length between them when row_lengths is given. */
static void print_pair(const float *in, int in_rows, int in_cols, int in_width, const float *out,
                       int out_rows, int out_cols, int out_width, const uint32_t *row_lengths)
{
    char a[64], b[64], l[16] = "";
    int col = in_cols * (in_width + 2);
    printf("   %-*s  %s%s\n", col, "input", row_lengths ? "lengths  " : "", "output");
    for (int r = 0; r < out_rows; r++) {
        if (row_lengths)
            snprintf(l, sizeof l, "%-7u  ", row_lengths[r]);
        printf("   %-*s  %s%s\n", col,
               r < in_rows ? row_text(a, sizeof a, in + in_cols * r, in_cols, in_width) : "", l,
               row_text(b, sizeof b, out + out_cols * r, out_cols, out_width));
    }
}

/* Creates and runs op_desc on host arrays; prints the plan with --verbose. */
static int demo_run(dmlcl_context *c, const dmlcl_operator_desc *od, const void **ins,
                    void **outs, int verbose)
{
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_operator_create(c, od, &op);
    if (!st)
        st = dmlcl_operator_execute_host(op, ins, outs);
    if (!st && verbose)
        printf("   plan: %s\n", dmlcl_operator_plan(op));
    dmlcl_operator_release(op);
    return st ? cli_lib_fail("demo", st) : DMLCL_EXIT_OK;
}

static const float demo_in[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

/* REVERSE_SUBSEQUENCES of the 3x4 matrix 1..12 along axis 3 (rows: one length per row)
 * or axis 2 (columns: one length per column), as a {1,1,3,4} tensor. */
static int demo_reverse(dmlcl_context *c, int rows, const uint32_t *lengths, int verbose)
{
    float out[12] = {0};
    const uint32_t sizes[4] = {1, 1, 3, 4}, rows_l[4] = {1, 1, 3, 1}, cols_l[4] = {1, 1, 1, 4};
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 4, rows ? rows_l : cols_l, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, rows ? 3 : 2};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    const void *ins[2] = {demo_in, lengths};
    void *outs[1] = {out};
    if (rows)
        printf("\n1. REVERSE_SUBSEQUENCES along the rows (axis 3 of a 1x1x3x4 tensor): each row\n"
               "   reverses its first L elements, L being its entry in lengths, and keeps the\n"
               "   rest in place.\n");
    else
        printf("\n2. The same operator along the columns (axis 2): now lengths holds one L per\n"
               "   column. Column 1 reverses 1 5 to 5 1, column 2 reverses all of 2 6 10, and\n"
               "   lengths 1 and 0 leave columns 3 and 4 as they were.\n");
    int rc = demo_run(c, &od, ins, outs, verbose);
    if (rc)
        return rc;
    print_pair(demo_in, 3, 4, 3, out, 3, 4, 3, rows ? lengths : NULL);
    if (!rows)
        printf("   lengths: %u %u %u %u (one per column)\n", lengths[0], lengths[1], lengths[2],
               lengths[3]);
    return DMLCL_EXIT_OK;
}

/* RESAMPLE1, LINEAR, pixel-centre offsets (DirectML's RESAMPLE): 2x2 -> 4x4. */
static int demo_resample(dmlcl_context *c, int verbose)
{
    static const float in[4] = {1, 2, 3, 4};
    float out[16] = {0};
    const uint32_t in_sizes[2] = {2, 2}, out_sizes[2] = {4, 4};
    const float scales[2] = {2, 2}, in_offsets[2] = {0.5f, 0.5f}, out_offsets[2] = {-0.5f, -0.5f};
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL, 0};
    dmlcl_tensor_desc to = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 2, out_sizes, NULL, 0};
    dmlcl_resample1_desc rd = {&ti, &to, DMLCL_INTERPOLATION_MODE_LINEAR, 2, scales,
                               in_offsets, out_offsets};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_RESAMPLE1, &rd};
    const void *ins[1] = {in};
    void *outs[1] = {out};
    printf("\n3. RESAMPLE1, linear, scale 2: a 2x2 image becomes 4x4. Each output pixel blends\n"
           "   the nearest input pixels by distance, with pixel centres lined up (offsets 0.5\n"
           "   and -0.5, DirectML's RESAMPLE); past the last centre the edge pixel repeats.\n");
    int rc = demo_run(c, &od, ins, outs, verbose);
    if (!rc)
        print_pair(in, 2, 2, 1, out, 4, 4, 4, NULL);
    return rc;
}

static int cmd_demo(int argc, char **argv)
{
    const char *device = NULL;
    int verbose = 0, npos = 0;
    const cli_opt opts[] = {{"--device", &device, NULL},
                            {"--verbose", NULL, &verbose},
                            {"-v", NULL, &verbose},
                            {NULL, NULL, NULL}};
    int rc = cli_parse("demo", DEMO_HELP, argc, argv, opts, NULL, 0, &npos);
    if (rc >= 0)
        return rc;
    dmlcl_context *c = NULL;
    if ((rc = cli_open_context("demo", device, &c)))
        return rc;
    char name[256] = "";
    clGetDeviceInfo(dmlcl_context_device(c), CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    printf("dmlcl %s demo on %s\n", dmlcl_version(), name);
    static const uint32_t by_row[3] = {2, 4, 3}, by_column[4] = {2, 3, 1, 0};
    rc = demo_reverse(c, 1, by_row, verbose);
    if (!rc)
        rc = demo_reverse(c, 0, by_column, verbose);
    if (!rc)
        rc = demo_resample(c, verbose);
    dmlcl_context_release(c);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "info"))
        return cmd_info(argc - 1, argv + 1);
    if (!strcmp(argv[1], "demo"))
        return cmd_demo(argc - 1, argv + 1);
    if (!strcmp(argv[1], "bench"))
        return dmlcl_cmd_bench(argc - 1, argv + 1);
    if (!strcmp(argv[1], "cache"))
        return cmd_cache(argc - 1, argv + 1);
    if (!strcmp(argv[1], "run"))
        return dmlcl_cmd_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "npy"))
        return dmlcl_cmd_npy(argc - 1, argv + 1);
    /* The library's version: the tool is built with it and loads it, so they agree. */
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
        printf("dmlcl %s\n", dmlcl_version());
        return DMLCL_EXIT_OK;
    }
    if (!strcmp(argv[1], "clean-tmp"))
        return dmlcl_cmd_clean_tmp(argc - 1, argv + 1);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
        return usage(stdout);
    fprintf(stderr, "dmlcl: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
