/* Subcommands of the dmlcl tool that live in their own files. Each takes the arguments
 * after its name (argv[0] is the subcommand's name) and returns the process exit code. */
#ifndef DMLCL_CLI_H
#define DMLCL_CLI_H

#include <dmlcl.h>
#include <stddef.h>
#include <stdint.h>

/* tools/bench/bench.c: `dmlcl bench`, operator timings against clEnqueueCopyBuffer. */
int dmlcl_cmd_bench(int argc, char **argv);

/* Exit status of every subcommand (documented in `dmlcl --help` and dmlcl(1)). */
#define DMLCL_EXIT_OK 0        /* success */
#define DMLCL_EXIT_USAGE 1     /* the command line is wrong: unknown option, bad number, ... */
#define DMLCL_EXIT_INPUT 2     /* an input or output file, or the operator's validation */
#define DMLCL_EXIT_DEVICE 3    /* no device, OpenCL or kernel build error, unsupported here */
#define DMLCL_EXIT_DIFFERENT 4 /* `dmlcl npy compare`: the arrays differ */

/* tools/cmd_run.c: `dmlcl run <operator>` on .npy files. */
int dmlcl_cmd_run(int argc, char **argv);
/* tools/cmd_npy.c: `dmlcl npy info|compare`, inspecting and comparing .npy files. */
int dmlcl_cmd_npy(int argc, char **argv);
/* tools/cmd_clean.c: `dmlcl clean-tmp`, the temporary files killed runs left behind. */
int dmlcl_cmd_clean_tmp(int argc, char **argv);
/* Prints a note naming `dmlcl clean-tmp` when such files lie beside output (run's own
 * output, just written, so that they are found without knowing to look). */
void clean_tmp_note(const char *cmd, const char *output);

/* tools/cli_util.c: option parsing shared by cmd_run.c and cmd_npy.c. */
typedef struct cli_opt {
    const char *name;   /* "--input" */
    const char **value; /* receives the value; NULL for a flag */
    int *flag;          /* set to 1 for a flag */
} cli_opt;
/* Parses argv[1..] (--name value, --name=value, flags, and positionals up to
 * max_positional). Returns -1 to go on, DMLCL_EXIT_OK after printing help (--help/-h,
 * help_text to stdout), DMLCL_EXIT_USAGE after printing an error naming cmd. */
int cli_parse(const char *cmd, const char *help_text, int argc, char **argv,
              const cli_opt *opts, const char **positional, int max_positional,
              int *npositional);
/* Prints "dmlcl <cmd>: <message>\n" to stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The exit status for a failed dmlcl call: INVALID_ARGUMENT and IO_ERROR are input
 * errors (2), everything else is the device's (3). */
int cli_exit_for(int dmlcl_status_value);
/* "FLOAT32", ... for a dmlcl_tensor_data_type value. */
const char *cli_type_name(int type);

/* "176 bytes", "512.0 MiB", "5.96 GiB". */
const char *cli_bytes_text(uint64_t bytes, char buf[32]);
/* The device's CL_DEVICE_MAX_MEM_ALLOC_SIZE (0 when the query fails). */
uint64_t cli_max_alloc(cl_device_id dev);
/* Writes "CL_NAME (-N)" and, for the errors of an allocation of `bytes` (bytes > 0), what
 * the device allows and what to do. */
void cli_cl_describe(char *buf, size_t cap, cl_device_id dev, cl_int err, uint64_t bytes);
/* The context for --device SEL (NULL: $DMLCL_DEVICE, else the first GPU, else CPU).
 * Returns DMLCL_EXIT_OK, else prints why (naming --device when it was given) and
 * returns DMLCL_EXIT_DEVICE. */
int cli_open_context(const char *cmd, const char *device, dmlcl_context **c);
/* Prints a failed library call's message in the tool's voice and returns its exit status:
 * validation (INVALID_ARGUMENT) and IO errors 2, the rest 3. */
int cli_lib_fail(const char *cmd, dmlcl_status st);

#endif
