/* `dmlcl bench`'s command line: its help, its options and --list. */
#include "config.h"
#include "run.h"
#include "../cli.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

static const char BENCH_HELP[] =
    "usage: dmlcl bench [--mb N] [--case PATTERN[,PATTERN...]] [--device SEL] [--runs N]\n"
    "                   [--warmup N] [--samples N] [--threads N] [--max-buffer-mb N]\n"
    "                   [--host-path] [--json] [--list] [--verbose]\n"
    "Times each operator case with OpenCL profiling events after a check of sampled outputs\n"
    "against a C reference, and compares its GB/s (bytes read + written, 10^9 per second)\n"
    "with a clEnqueueCopyBuffer of as many bytes (CPU devices: also a host memcpy).\n"
    "  --mb N        input MiB per case, 1 to 1048576 (default 64; big-* cases use " STR(BIG_MB) ");\n"
    "                a gradient case's forward input, so its own input (the forward\n"
    "                output's gradient) is 4x (2-D) or 8x (3-D) that;\n"
    "                a case whose buffers would exceed the device's largest buffer\n"
    "                (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is made smaller, and says so\n"
    "  --case P      cases whose names match the glob patterns (default: all but big-*)\n"
    "  --max-buffer-mb N  make cases smaller so that no buffer exceeds N MiB, 1 to 1048576\n"
    "                (default: the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE)\n"
    "  --list        print the cases and their shapes at --mb, then exit\n"
    "  --device SEL  gpu, cpu, P:D or a name substring (default: $DMLCL_DEVICE, else the\n"
    "                first GPU, else the first CPU)\n"
    "  --runs N      timed runs, 1 to 100000 (default: as many as fit in ~0.3 s, 5..200)\n"
    "  --warmup N    untimed runs before timing, 0 to 1000 (default 2; cases slower than\n"
    "                0.5 s a round get one)\n"
    "  --samples N   random outputs checked against the C reference, 0 to 100000000\n"
    "                (default 65536; cases with a slow reference, like linear2x-grad, check\n"
    "                fewer)\n"
    "  --threads N   threads of the host memcpy baseline on CPU devices, 0 to 256 (0 = no\n"
    "                memcpy baseline; default: one per compute unit)\n"
    "  --host-path   also time dmlcl_operator_execute_host on host arrays, and pinned\n"
    "                uploads of the inputs plus the output's download (the same bytes)\n"
    "  --json        machine-readable results on stdout (the table goes to stderr)\n"
    "  -v, --verbose each case's shape, plan, runs and outputs checked under its row, and\n"
    "                each step's time on stderr\n"
    "  -h, --help    print this help\n"
    "exit status:\n"
    "  0  every case ran and was right (or was skipped as unsupported on the device)\n"
    "  1  usage: unknown option, missing or malformed value, a --case matching no case\n"
    "  2  a value out of its range (--mb 0, --mb -1, --runs 0, --threads 300)\n"
    "  3  device error: no such device, or an OpenCL call failed in a case\n"
    "  4  a case's output differs from its C reference\n";

/* A whole number in [lo, hi]: not a number is a usage error (1), out of range an input
 * error (2). A negative number (-1) is a number, so it is out of range, not a usage error. */
static int parse_count(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *v)
{
    if (!text)
        return DMLCL_EXIT_OK;
    char *end = NULL;
    int neg = *text == '-';
    errno = 0;
    unsigned long long x =
        text[neg] >= '0' && text[neg] <= '9' ? strtoull(text + neg, &end, 10) : 0;
    if (!end || *end) {
        cli_error("bench", "%s '%s': expected a whole number (see dmlcl bench --help)", opt, text);
        return DMLCL_EXIT_USAGE;
    }
    if (errno || (neg && x) || x < lo || x > hi) {
        cli_error("bench", "%s %s: out of range, give %llu to %llu", opt, text,
                  (unsigned long long)lo, (unsigned long long)hi);
        return DMLCL_EXIT_INPUT;
    }
    *v = x;
    return DMLCL_EXIT_OK;
}

/* Returns -1 to go on, else the exit status (after --help, or a message). */
int parse_args(int argc, char **argv, bopts *o, int *list)
{
    *o = (bopts){0, 64, NULL, NULL, 0, 2, 0.3, 65536, -1, 0, 0, 0};
    const char *mb = NULL, *runs = NULL, *warmup = NULL, *samples = NULL, *threads = NULL;
    const char *max_buffer = NULL;
    const cli_opt opts[] = {{"--json", NULL, &o->json},       {"--verbose", NULL, &o->verbose},
                            {"--host-path", NULL, &o->host_path},
                            {"-v", NULL, &o->verbose},        {"--list", NULL, list},
                            {"--case", &o->cases, NULL},      {"--device", &o->device, NULL},
                            {"--mb", &mb, NULL},              {"--runs", &runs, NULL},
                            {"--warmup", &warmup, NULL},      {"--samples", &samples, NULL},
                            {"--threads", &threads, NULL},    {"--max-buffer-mb", &max_buffer, NULL},
                            {NULL, NULL, NULL}};
    int npos = 0;
    int rc = cli_parse("bench", BENCH_HELP, argc, argv, opts, NULL, 0, &npos);
    if (rc >= 0)
        return rc;
    uint64_t v[5] = {o->mb, 0, (uint64_t)o->warmup, o->samples, 0};
    if ((rc = parse_count("--mb", mb, 1, 1u << 20, &v[0])) ||
        (rc = parse_count("--runs", runs, 1, 100000, &v[1])) ||
        (rc = parse_count("--warmup", warmup, 0, 1000, &v[2])) ||
        (rc = parse_count("--samples", samples, 0, 100000000, &v[3])) ||
        (rc = parse_count("--threads", threads, 0, 256, &v[4])) ||
        (rc = parse_count("--max-buffer-mb", max_buffer, 1, 1u << 20, &o->max_buffer_mb)))
        return rc;
    o->mb = v[0];
    o->runs = (int)v[1];
    o->warmup = (int)v[2];
    o->samples = (uint32_t)v[3];
    if (threads)
        o->threads = (int)v[4];
    if (o->cases && !*o->cases) {
        cli_error("bench", "--case '': give a case name or glob pattern (dmlcl bench --list)");
        return DMLCL_EXIT_USAGE;
    }
    return -1;
}

/* --list: every case with its shape at --mb. */
int list_cases(const bopts *o)
{
    printf("cases at --mb %llu (big-* at %d, run only when --case names them):\n",
           (unsigned long long)o->mb, BIG_MB);
    for (size_t i = 0; i < bench_n_cases; i++) {
        bcase c;
        memset(&c, 0, sizeof c);
        c.name = bench_cases[i].name;
        int bad = bench_cases[i].make(&c, o->mb);
        printf("  %-20s %s\n", c.name, bad ? "(out of host memory)" : c.shape);
        free(c.lengths);
    }
    return DMLCL_EXIT_OK;
}
