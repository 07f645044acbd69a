/* `dmlcl bench`'s driver state, shared by its files: tools/bench/bench.c (devices, timing,
 * the driver), tools/bench/report.c (the table and the JSON) and tools/bench/options.c
 * (the command line). The cases are in bench.h / cases.c. */
#ifndef DMLCL_BENCH_RUN_H
#define DMLCL_BENCH_RUN_H
#include "bench.h"
#include <CL/cl.h>
#include <stdio.h>

typedef struct bopts {
    int json;
    uint64_t mb;
    const char *cases; /* comma-separated fnmatch patterns; NULL = every non-big case */
    const char *device;
    int runs, warmup; /* runs 0 = as many as fit in `budget` seconds (5..200) */
    double budget;
    uint32_t samples;
    int threads; /* host memcpy threads; -1 = the device's compute units, CPUs only */
    int verbose; /* each case's shape and plan, each step's time on stderr */
    uint64_t max_buffer_mb; /* --max-buffer-mb: a smaller cap than the device's, 0 = none */
    int host_path; /* --host-path: execute_host on host arrays and pinned copies, timed */
} bopts;

typedef struct bench {
    bopts o;
    dmlcl_context *ctx;
    cl_context cl;
    cl_device_id dev;
    cl_command_queue q;
    cl_program fill_prog;
    int is_cpu;
    cl_uint compute_units;
    uint64_t max_alloc;        /* the largest buffer a case may use, 0 if unknown */
    uint64_t device_max_alloc; /* CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0 if unknown */
    char err[512]; /* the current case's failure message */
    int wrong;     /* the current case failed its check against the reference */
    double t0;     /* start, for --verbose */
} bench;

typedef struct timing {
    int runs;
    double best_ms, med_ms;
} timing;

typedef enum { R_OK, R_SKIPPED, R_FAIL } rstatus;

typedef struct result {
    rstatus status;
    uint64_t bytes, copy_bytes, host_bytes; /* moved by the operator and by each baseline */
    uint64_t probe_bytes;                   /* moved by the probe (whole float4s) */
    uint64_t in_bytes, out_bytes;           /* the input and output tensors' buffers */
    char note[256];                         /* why the case is smaller than --mb says */
    timing op, copy, host, probe;
    timing hostpath, pinned; /* --host-path: execute_host; pinned uploads + download */
    timing hostcopy;         /* --host-path, GPUs: host memcpy of the same bytes */
    int hostcopy_threads;
    double first_create_ms, create_us_med, create_us_best;
    /* A scale never seen (its offsets shifted) once the case's generic program is built:
     * create + first run, and the seconds until its specialised program took over (0:
     * none to build; -1: not within the wait). 0 ms: not measured (REVERSE_SUBSEQUENCES). */
    double new_scale_ms, new_scale_special_s;
    int64_t checked;
    char plan[512];
    const char *forward; /* a backward case: its forward case, and that case's best time */
    double forward_best_ms; /* 0: the forward case did not run (or failed) */
} result;

/* The device's name and versions, for the header. */
typedef struct devinfo {
    char name[256], driver[128], version[256], platform[256];
    cl_uint cu;
} devinfo;

/* report.c */
void query_device(bench *b, devinfo *d);
void json_string(const char *s);
void print_header_text(bench *b, const devinfo *d, FILE *f);
void print_result_text(bench *b, const bcase *c, const result *r, FILE *f);
void print_result_json(bench *b, const bcase *c, const result *r, int first);
/* options.c: 0 to run, else the exit status (--help, --list and usage errors) */
int parse_args(int argc, char **argv, bopts *o, int *list);
int list_cases(const bopts *o);
#endif
