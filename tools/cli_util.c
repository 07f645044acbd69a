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
