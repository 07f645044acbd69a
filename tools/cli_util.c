/* Helpers shared by the dmlcl subcommands: option parsing, messages, exit statuses. */
#include "config.h"
#include "cli.h"
#include <dmlcl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dmlcl %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_exit_for(int status)
{
    return status == DMLCL_INVALID_ARGUMENT || status == DMLCL_IO_ERROR ? DMLCL_EXIT_INPUT
                                                                         : DMLCL_EXIT_DEVICE;
}

const char *cli_type_name(int type)
{
    static const char *const names[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16",
                                        "UINT8",   "INT32",   "INT16",   "INT8",   "FLOAT64",
                                        "UINT64",  "INT64"};
    return type >= 0 && type < (int)(sizeof names / sizeof names[0]) ? names[type] : "UNKNOWN";
}

const char *cli_bytes_text(uint64_t bytes, char buf[32])
{
    if (bytes < 1024)
        snprintf(buf, 32, "%llu bytes", (unsigned long long)bytes);
    else if (bytes < ((uint64_t)1 << 30))
        snprintf(buf, 32, "%.1f MiB", bytes / 1048576.0);
    else
        snprintf(buf, 32, "%.2f GiB", bytes / 1073741824.0);
    return buf;
}

uint64_t cli_max_alloc(cl_device_id dev)
{
    cl_ulong v = 0;
    return clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof v, &v, NULL) ? 0 : v;
}

void cli_cl_describe(char *buf, size_t cap, cl_device_id dev, cl_int err, uint64_t bytes)
{
    int n = snprintf(buf, cap, "%s (%d)", dmlcl_opencl_error_name(err), (int)err);
    int alloc = err == CL_INVALID_BUFFER_SIZE || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY;
    if (!bytes || !alloc || n < 0 || (size_t)n >= cap)
        return;
    cl_ulong global = 0;
    clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    char a[32], m[32], g[32];
    snprintf(buf + n, cap - (size_t)n,
             " allocating %s: this device allocates at most %s per buffer "
             "(CL_DEVICE_MAX_MEM_ALLOC_SIZE) and has %s in all (CL_DEVICE_GLOBAL_MEM_SIZE); "
             "use a smaller tensor, or split the work in tiles",
             cli_bytes_text(bytes, a), cli_bytes_text(cli_max_alloc(dev), m),
             cli_bytes_text(global, g));
}

int cli_open_context(const char *cmd, const char *device, dmlcl_context **c)
{
    dmlcl_status st = device ? dmlcl_context_create_for(device, c)
                             : dmlcl_context_create_default(c);
    if (!st)
        return DMLCL_EXIT_OK;
    /* In the tool's voice: the user gave --device, not a selector. */
    if (device && st == DMLCL_NO_DEVICE)
        cli_error(cmd, "--device '%s': no OpenCL device matches (give gpu, cpu, P:D or a "
                  "substring of a device's name; 'dmlcl info' lists them)", device);
    else
        cli_error(cmd, "%s", dmlcl_last_error());
    return DMLCL_EXIT_DEVICE;
}

int cli_lib_fail(const char *cmd, dmlcl_status st)
{
    if (st == DMLCL_INVALID_ARGUMENT)
        cli_error(cmd, "rejected by the operator: %s", dmlcl_last_error());
    else if (st == DMLCL_UNSUPPORTED)
        cli_error(cmd, "not supported on this device: %s", dmlcl_last_error());
    else
        cli_error(cmd, "%s", dmlcl_last_error());
    return cli_exit_for(st);
}

static const cli_opt *find(const cli_opt *opts, const char *arg, size_t len)
{
    for (const cli_opt *o = opts; o->name; o++)
        if (strlen(o->name) == len && !strncmp(o->name, arg, len))
            return o;
    return NULL;
}

int cli_parse(const char *cmd, const char *help_text, int argc, char **argv,
              const cli_opt *opts, const char **positional, int max_positional,
              int *npositional)
{
    *npositional = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(help_text, stdout);
            return DMLCL_EXIT_OK;
        }
        if (arg[0] != '-' || !arg[1]) {
            if (*npositional >= max_positional) {
                cli_error(cmd, "unexpected argument '%s' (see dmlcl %s --help)", arg, cmd);
                return DMLCL_EXIT_USAGE;
            }
            positional[(*npositional)++] = arg;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const cli_opt *o = find(opts, arg, len);
        if (!o) {
            cli_error(cmd, "unknown option '%.*s' (see dmlcl %s --help)", (int)len, arg, cmd);
            return DMLCL_EXIT_USAGE;
        }
        if (!o->value) {
            if (eq) {
                cli_error(cmd, "option '%s' takes no value", o->name);
                return DMLCL_EXIT_USAGE;
            }
            *o->flag = 1;
            continue;
        }
        if (!eq && i + 1 >= argc) {
            cli_error(cmd, "option '%s' needs a value (see dmlcl %s --help)", o->name, cmd);
            return DMLCL_EXIT_USAGE;
        }
        *o->value = eq ? eq + 1 : argv[++i];
    }
    return -1;
}
