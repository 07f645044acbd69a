/* The temporary file an output is written to before it is renamed over the output
 * ("<output>.tmp-<pid>-<n>", tools/npy.c's npy_save): made, removed when the process is
 * stopped by a signal, and found again when a process died without removing it. */
#ifndef DMLCL_TEMP_OUTPUT_H
#define DMLCL_TEMP_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

/* Creates "<final>.tmp-<pid>-<n>" (the first n from 0 to 99 that is free) exclusively,
 * with mode 0666 less the umask, or the existing file's mode; writes its name to tmp.
 * Until temp_done(), it is the file the signal handler removes. Returns the descriptor,
 * or -1 with errno. */
int temp_open(const char *final, char *tmp, size_t cap);
/* The temporary was renamed over the output or removed: the handler forgets it. */
void temp_done(void);

/* From now on SIGINT, SIGTERM and SIGHUP remove the temporary being written (if any)
 * and then end the process as the signal would have (status 128 + signal in a shell).
 * Signals the process was started ignoring (nohup) stay ignored. */
void temp_remove_on_signals(void);

/* One file beside an output named exactly "<output>.tmp-<pid>-<n>". */
typedef struct temp_file {
    const char *path; /* the folder of the output (as given, or its link's target) + name */
    long pid;
    uint64_t bytes;
    int running; /* a process with that id is running: perhaps still writing it */
} temp_file;

/* Calls fn for every regular file (not a link, not a folder) in the output's folder whose
 * name is the output's name followed by ".tmp-<pid>-<n>" with pid and n as temp_open
 * writes them (decimal, no sign, no leading zeros, n below 100), and nothing else. A
 * symbolic link at output is followed, as npy_save follows it. fn returns nonzero to
 * stop. Returns 0, or -1 with errno when the folder cannot be read. */
int temp_find(const char *output, int (*fn)(const temp_file *t, void *arg), void *arg);

#endif
