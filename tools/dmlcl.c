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
               "  info   list OpenCL platforms and devices, the default pick, the cache folder\n"
               "  run    run an operator on .npy files (dmlcl run --help)\n"
               "  npy    inspect or compare .npy files (dmlcl npy --help)\n"
               "  demo   run the REVERSE_SUBSEQUENCES reference examples and a RESAMPLE1 example\n"
               "  bench  time each operator case against a buffer copy (dmlcl bench --help)\n"
               "  cache  show the on-disk program cache: folder, entries, size;\n"
               "         'dmlcl cache clear' removes its entries\n"
               "environment: DMLCL_DEVICE (gpu, cpu, P:D or a name substring),\n"
               "             DMLCL_CACHE_DIR (folder, or 'off')\n"
               "exit status: 0 ok, 1 usage, 2 input error (bad file or arguments the\n"
               "             operator rejects), 3 device/OpenCL error\n");
    return f == stderr ? 1 : 0;
}

static int fail(const char *what, dmlcl_status st)
{
    fprintf(stderr, "dmlcl: %s: %s: %s\n", what, dmlcl_status_string(st), dmlcl_last_error());
    return 3;
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

static int cmd_info(void)
{
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
    return st ? 3 : 0;
}

/* ---- cache ------------------------------------------------------------------------------ */

/* `dmlcl cache`: where compiled programs are kept and how much; `dmlcl cache clear`. */
static int cmd_cache(int argc, char **argv)
{
    int clear = argc > 1 && !strcmp(argv[1], "clear");
    if (argc > 2 || (argc == 2 && !clear)) {
        fprintf(stderr, "usage: dmlcl cache [clear]\n");
        return 1;
    }
    const char *dir = dmlcl_cache_directory();
    if (!dir) {
        printf("program cache folder: none (disk cache off: DMLCL_CACHE_DIR=off, or no HOME)\n");
        return 0;
    }
    uint64_t n = 0, bytes = 0;
    dmlcl_status st = dmlcl_cache_disk_usage(&n, &bytes);
    if (st)
        return fail("cache", st);
    if (clear) {
        if ((st = dmlcl_cache_clear()))
            return fail("cache clear", st);
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

static void print_matrix(const char *title, const float *v, int rows, int cols)
{
    printf("%s\n", title);
    for (int r = 0; r < rows; r++) {
        printf("  [");
        for (int k = 0; k < cols; k++)
            printf("%s%3g", k ? ", " : "", v[r * cols + k]);
        printf("]\n");
    }
}

static int demo_reverse(dmlcl_context *c, uint32_t axis, const uint32_t *len_sizes,
                        const uint32_t *lengths, int nlen)
{
    static const float in[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    float out[12] = {0};
    const uint32_t sizes[4] = {1, 1, 3, 4};
    dmlcl_tensor_desc ti = {DMLCL_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, NULL, 0};
    dmlcl_tensor_desc tl = {DMLCL_TENSOR_DATA_TYPE_UINT32, 4, len_sizes, NULL, 0};
    dmlcl_reverse_subsequences_desc rd = {&ti, &tl, &ti, axis};
    dmlcl_operator_desc od = {DMLCL_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_operator_create(c, &od, &op);
    if (st)
        return fail("reverse_subsequences", st);
    const void *ins[2] = {in, lengths};
    void *outs[1] = {out};
    st = dmlcl_operator_execute_host(op, ins, outs);
    dmlcl_operator_release(op);
    if (st)
        return fail("reverse_subsequences", st);
    printf("\nREVERSE_SUBSEQUENCES, axis %u, input sizes {1,1,3,4}, lengths sizes {%u,%u,%u,%u} = [",
           axis, len_sizes[0], len_sizes[1], len_sizes[2], len_sizes[3]);
    for (int i = 0; i < nlen; i++)
        printf("%s%u", i ? ", " : "", lengths[i]);
    printf("]\n");
    print_matrix("input", in, 3, 4);
    print_matrix("output", out, 3, 4);
    return 0;
}

/* RESAMPLE1, LINEAR, pixel-centre offsets (DirectML's RESAMPLE): 2x2 -> 4x4. */
static int demo_resample(dmlcl_context *c)
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
    dmlcl_operator *op = NULL;
    dmlcl_status st = dmlcl_operator_create(c, &od, &op);
    if (st)
        return fail("resample1", st);
    const void *ins[1] = {in};
    void *outs[1] = {out};
    st = dmlcl_operator_execute_host(op, ins, outs);
    printf("\nRESAMPLE1, LINEAR, scales {2,2}, input offsets {0.5,0.5}, output offsets "
           "{-0.5,-0.5} (pixel centres)\nplan: %s\n", dmlcl_operator_plan(op));
    dmlcl_operator_release(op);
    if (st)
        return fail("resample1", st);
    print_matrix("input", in, 2, 2);
    print_matrix("output", out, 4, 4);
    return 0;
}

static int cmd_demo(void)
{
    dmlcl_context *c = NULL;
    dmlcl_status st = dmlcl_context_create_default(&c);
    if (st)
        return fail("context", st);
    char name[256] = "";
    clGetDeviceInfo(dmlcl_context_device(c), CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    printf("dmlcl %s on %s\n", dmlcl_version(), name);
    static const uint32_t ls1[4] = {1, 1, 3, 1}, l1[3] = {2, 4, 3};
    static const uint32_t ls2[4] = {1, 1, 1, 4}, l2[4] = {2, 3, 1, 0};
    int rc = demo_reverse(c, 3, ls1, l1, 3);
    if (!rc)
        rc = demo_reverse(c, 2, ls2, l2, 4);
    if (!rc)
        rc = demo_resample(c);
    dmlcl_context_release(c);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "info"))
        return cmd_info();
    if (!strcmp(argv[1], "demo"))
        return cmd_demo();
    if (!strcmp(argv[1], "bench"))
        return dmlcl_cmd_bench(argc - 1, argv + 1);
    if (!strcmp(argv[1], "cache"))
        return cmd_cache(argc - 1, argv + 1);
    if (!strcmp(argv[1], "run"))
        return dmlcl_cmd_run(argc - 1, argv + 1);
    if (!strcmp(argv[1], "npy"))
        return dmlcl_cmd_npy(argc - 1, argv + 1);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
        return usage(stdout);
    fprintf(stderr, "dmlcl: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
