/* `dmlcl clean-tmp OUTPUT...`: the temporary files that runs killed without a chance to
 * clean up (SIGKILL, a crash, a power cut) left beside their outputs, found by their exact
 * name and removed only when the process that wrote them is gone. */
#include "config.h"
#include "cli.h"
#include "temp_output.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char CLEAN_HELP[] =
    "usage: dmlcl clean-tmp [--dry-run] OUTPUT.npy...\n"
    "Removes the temporary files that 'dmlcl run --output OUTPUT.npy' leaves beside\n"
    "OUTPUT.npy when it is killed outright (SIGKILL, a crash, a power cut; on SIGINT,\n"
    "SIGTERM and SIGHUP it removes its own). Only regular files named exactly\n"
    "OUTPUT.npy.tmp-PID-N are considered, and only those whose process PID is no longer\n"
    "running on this machine are removed: a run still writing one is left alone, and no\n"
    "other file is touched. (Over a file system shared between machines, run it where no\n"
    "other machine is writing OUTPUT.npy.)\n"
    "  -n, --dry-run  list the temporary files, remove nothing\n"
    "  -h, --help     print this help\n"
    "exit status: 0 success (also when there are none), 1 usage, 2 a folder cannot be read\n"
    "or a file cannot be removed\n";

typedef struct clean_state {
    int dry_run, quiet;
    unsigned stale, kept, failed;
    uint64_t stale_bytes;
} clean_state;

static int visit(const temp_file *t, void *arg)
{
    clean_state *s = arg;
    char size[32];
    cli_bytes_text(t->bytes, size);
    if (t->running) {
        s->kept++;
        if (!s->quiet)
            printf("kept %s (%s): process %ld is running\n", t->path, size, t->pid);
        return 0;
    }
    s->stale++;
    s->stale_bytes += t->bytes;
    if (s->quiet)
        return 0;
    if (s->dry_run)
        printf("stale %s (%s): process %ld is gone\n", t->path, size, t->pid);
    else if (unlink(t->path) && errno != ENOENT) {
        s->failed++;
        cli_error("clean-tmp", "%s: cannot remove: %s", t->path, strerror(errno));
    } else
        printf("removed %s (%s): process %ld is gone\n", t->path, size, t->pid);
    return 0;
}

int dmlcl_cmd_clean_tmp(int argc, char **argv)
{
    int dry_run = 0;
    const char *outputs[64];
    const cli_opt opts[] = {{"--dry-run", NULL, &dry_run}, {"-n", NULL, &dry_run},
                            {NULL, NULL, NULL}};
    int npos = 0;
    int rc = cli_parse("clean-tmp", CLEAN_HELP, argc, argv, opts, outputs, 64, &npos);
    if (rc >= 0)
        return rc;
    if (!npos) {
        cli_error("clean-tmp", "give the output file(s) whose temporary files to remove "
                  "(see dmlcl clean-tmp --help)");
        return DMLCL_EXIT_USAGE;
    }
    rc = DMLCL_EXIT_OK;
    for (int i = 0; i < npos; i++) {
        clean_state s = {dry_run, 0, 0, 0, 0, 0};
        if (temp_find(outputs[i], visit, &s)) {
            cli_error("clean-tmp", "%s: cannot read its folder: %s", outputs[i], strerror(errno));
            rc = DMLCL_EXIT_INPUT;
            continue;
        }
        if (s.failed)
            rc = DMLCL_EXIT_INPUT;
        if (!s.stale && !s.kept)
            printf("%s: no temporary files\n", outputs[i]);
    }
    return rc;
}

void clean_tmp_note(const char *cmd, const char *output)
{
    clean_state s = {1, 1, 0, 0, 0, 0};
    char size[32];
    if (temp_find(output, visit, &s) || !s.stale)
        return;
    cli_error(cmd, "note: %u temporary file%s of killed runs (%s) beside %s; "
              "'dmlcl clean-tmp %s' removes %s", s.stale, s.stale == 1 ? "" : "s",
              cli_bytes_text(s.stale_bytes, size), output, output,
              s.stale == 1 ? "it" : "them");
}
