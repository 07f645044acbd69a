/* The temporary file of an output being written: made, removed on a signal, found again.
 * See temp_output.h. */
#define _POSIX_C_SOURCE 200809L /* sigaction, kill, fchmod, lstat, realpath */
#define _XOPEN_SOURCE 700         /* realpath */
#include "config.h"
#include "temp_output.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the signal handler may touch: a handler can only call async-signal-safe functions
 * (unlink, raise), so the name is kept ready in a static buffer, and `live` says whether
 * it names our temporary right now. */
static char live_path[4096 + 32];
static volatile sig_atomic_t live;

int temp_open(const char *final, char *tmp, size_t cap)
{
    struct stat old;
    int have_old = !stat(final, &old) && S_ISREG(old.st_mode);
    for (unsigned n = 0; n < 100; n++) {
        if (snprintf(tmp, cap, "%s.tmp-%ld-%u", final, (long)getpid(), n) >= (int)cap ||
            strlen(tmp) >= sizeof live_path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            /* Set only once the file is ours: a name that existed (EEXIST) belongs to an
             * earlier process and is never removed here. A signal in the few instructions
             * between open and this store leaves the file, as before; temp_find finds it. */
            memcpy(live_path, tmp, strlen(tmp) + 1);
            live = 1;
            if (have_old)
                (void)fchmod(fd, old.st_mode & 07777);
            return fd;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

void temp_done(void) { live = 0; }

static void on_signal(int sig)
{
    if (live)
        (void)unlink(live_path);
    /* SA_RESETHAND restored the default action: die of the signal itself, so the parent
     * (a shell, make, a job runner) sees the signal, not an exit status. */
    raise(sig);
}

void temp_remove_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        (void)sigaction(sigs[i], &sa, NULL);
    }
}

/* "<digits>" as temp_open prints a number: no sign, no leading zero, at most max. Returns
 * the text after it, NULL if it is not such a number. */
static const char *number(const char *s, long max, long *v)
{
    if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
        return NULL;
    long x = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        x = x * 10 + (*s - '0');
        if (x > max)
            return NULL;
    }
    *v = x;
    return s;
}

/* The pid and n of "<base>.tmp-<pid>-<n>", or 0 when name is anything else. */
static int temp_name(const char *name, const char *base, long *pid)
{
    size_t blen = strlen(base);
    long n = 0;
    const char *p = strncmp(name, base, blen) || strncmp(name + blen, ".tmp-", 5)
                        ? NULL
                        : number(name + blen + 5, INT_MAX, pid);
    if (!p || *p != '-' || *pid == 0)
        return 0;
    p = number(p + 1, 99, &n);
    return p && !*p;
}

int temp_find(const char *output, int (*fn)(const temp_file *t, void *arg), void *arg)
{
    char target[4096], path[8192];
    struct stat st;
    if (!lstat(output, &st) && S_ISLNK(st.st_mode) && realpath(output, target))
        ; /* npy_save writes beside the link's target, named after it */
    else if (snprintf(target, sizeof target, "%s", output) >= (int)sizeof target) {
        errno = ENAMETOOLONG;
        return -1;
    }
    char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    int dlen = !slash ? 0 : slash == target ? 1 : (int)(slash - target);
    char dir[4096] = ".";
    if (dlen)
        snprintf(dir, sizeof dir, "%.*s", dlen, target);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int stop = 0;
    for (struct dirent *e; !stop && (e = readdir(d));) {
        temp_file t = {path, 0, 0, 0};
        if (!*base || !temp_name(e->d_name, base, &t.pid))
            continue;
        snprintf(path, sizeof path, "%s%s%s", dlen ? dir : "", dlen > 1 ? "/" : "", e->d_name);
        if (lstat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        t.bytes = (uint64_t)st.st_size;
        /* EPERM: another user's process has that id; it is running all the same. */
        t.running = !kill((pid_t)t.pid, 0) || errno == EPERM;
        stop = fn(&t, arg);
    }
    closedir(d);
    return 0;
}
