/* On-disk program cache: compiled binaries survive the process, so a cold start skips
 * the JIT. Layout and key in disk_cache.h. Nothing here reports an error to the caller:
 * a missing, bad or unwritable entry is a miss, and the program is compiled from source. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fdatasync, O_CLOEXEC, fstatat, dirfd on older libcs */
#endif
#include "core/disk_cache.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define PATH_CAP 4096
#define KEY_CAP 4096

/* ---- the folder ----------------------------------------------------------------------- */

/* Joins base (trailing slashes dropped) and rest; -1 if it does not fit. */
static int join(char *buf, size_t cap, const char *base, const char *rest)
{
    size_t n = strlen(base);
    while (n > 1 && base[n - 1] == '/')
        n--;
    int w = snprintf(buf, cap, "%.*s/%s", (int)n, base, rest);
    return w < 0 || (size_t)w >= cap ? -1 : 0;
}

int dmlcl__disk_dir(char *buf, size_t cap)
{
    const char *env = getenv("DMLCL_CACHE_DIR");
    if (env && *env)
        return strcmp(env, "off") ? join(buf, cap, env, DMLCL__DISK_SUBDIR) : -1;
    /* The XDG spec says to ignore a relative XDG_CACHE_HOME. */
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/')
        return join(buf, cap, xdg, "dmlcl/" DMLCL__DISK_SUBDIR);
    const char *home = getenv("HOME");
    if (home && *home)
        return join(buf, cap, home, ".cache/dmlcl/" DMLCL__DISK_SUBDIR);
    return -1;
}

const char *dmlcl_cache_directory(void)
{
    static _Thread_local char dir[PATH_CAP];
    return dmlcl__disk_dir(dir, sizeof dir) ? NULL : dir;
}

/* ---- whom the cache trusts -------------------------------------------------------------------
 * Cached binaries are code that we will run (on POCL a program binary is native code run in
 * this process), and every field of an entry's key is predictable: whoever can write the
 * folder can plant an entry that we would load. So, as ssh and ccache check their files, the
 * folder that holds the entries and every file in it must be ours (the effective uid) and
 * writable by no one else. The folder is opened once and checked with fstat on its
 * descriptor; its files are opened relative to that descriptor with O_NOFOLLOW and checked
 * with fstat on the open file, so nothing can be swapped in between the check and the read.
 * The folders above it are not checked: one that others can write lets them move ours away
 * and put theirs in its place, which the check refuses, but not write into ours (and the
 * ones we create are 0700, unless shared). With DMLCL_CACHE_SHARED=group a team shares a folder whose group
 * is one of ours: its group may write the folder, and a file owned by another user is
 * trusted when its group is the folder's. Never a world-writable folder or file, never a
 * file through a symbolic link. Anything untrusted is a miss and is not written to; the
 * folder or file and the reason go to stderr, once per process, folder and reason, or a user
 * would pay for every compile with no idea why. */
#define CACHE_HINT "see DMLCL_CACHE_DIR and DMLCL_CACHE_SHARED in dmlcl(3)"

typedef struct {
    int fd;       /* the folder, open */
    gid_t team;   /* the group whose members may write it too (shared cache), else NO_TEAM */
} cache_folder;
#define NO_TEAM ((gid_t)-1)

static int shared_cache(void)
{
    const char *s = getenv("DMLCL_CACHE_SHARED");
    return s && !strcmp(s, "group");
}

static int my_group(gid_t g)
{
    gid_t groups[1024]; /* getgroups fails beyond it: then only the effective group counts */
    int n = getgroups(1024, groups);
    for (int i = 0; i < n; i++)
        if (groups[i] == g)
            return 1;
    return g == getegid();
}

/* 0 when st (the folder or a file in it) is trusted; else why not, in words, into why. */
static int distrust(const struct stat *st, gid_t team, int is_folder, char *why, size_t cap)
{
    unsigned mode = (unsigned)st->st_mode & 07777, uid = st->st_uid, me = geteuid();
    unsigned gid = st->st_gid;
    if (mode & S_IWOTH) {
        snprintf(why, cap, "is writable by others (mode %04o)", mode);
        return 1;
    }
    if ((team != NO_TEAM && st->st_gid == team) || (uid == me && !(mode & S_IWGRP)))
        return 0;
    const char *team_rule = is_folder ? "one of yours" : "the folder's";
    if (uid != me && shared_cache())
        snprintf(why, cap,
                 "is owned by uid %u, not by you (uid %u), and its group (gid %u) is not %s", uid,
                 me, gid, team_rule);
    else if (uid != me)
        snprintf(why, cap, "is owned by uid %u, not by you (uid %u)", uid, me);
    else if (shared_cache())
        snprintf(why, cap, "is writable by its group (gid %u, mode %04o), which is not %s", gid,
                 mode, team_rule);
    else
        snprintf(why, cap, "is writable by its group (mode %04o); a cache shared by a team "
                           "needs DMLCL_CACHE_SHARED=group", mode);
    return 1;
}

#define WARNED_CAP 64 /* lines; past that, say nothing more */
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t warned[WARNED_CAP];
static size_t n_warned;

/* One line on stderr per process for the folder, kind (the folder, or a file in it) and
 * reason: not one per entry of a folder that has many. */
static void warn_once(const char *dir, const char *file, const char *why)
{
    uint64_t h = dmlcl__hash64(why, strlen(why), dmlcl__hash64(dir, strlen(dir), file ? 2 : 1));
    int first = 0;
    pthread_mutex_lock(&warned_lock);
    size_t i = 0;
    while (i < n_warned && warned[i] != h)
        i++;
    if (i == n_warned && n_warned < WARNED_CAP)
        warned[n_warned++] = h, first = 1;
    pthread_mutex_unlock(&warned_lock);
    if (!first)
        return;
    if (file)
        fprintf(stderr, "dmlcl: cache file %s/%s %s: not used; " CACHE_HINT "\n", dir, file, why);
    else
        fprintf(stderr, "dmlcl: cache folder %s %s: disk cache not used; " CACHE_HINT "\n", dir,
                why);
}

/* Opens the cache folder (through symbolic links: what counts is the folder reached, checked
 * on its descriptor). 0 when it is trusted; -1, nothing open, when it is missing, unreadable
 * or untrusted (said once). */
static int open_folder(const char *dir, cache_folder *f)
{
    struct stat st;
    char why[192];
    f->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (f->fd < 0)
        return -1;
    if (fstat(f->fd, &st) == 0) {
        f->team = shared_cache() && my_group(st.st_gid) ? st.st_gid : NO_TEAM;
        if (!distrust(&st, f->team, 1, why, sizeof why))
            return 0;
        warn_once(dir, NULL, why);
    }
    close(f->fd);
    return -1;
}

/* Opens a file of a trusted folder (flags: O_RDONLY, or O_RDWR | O_CREAT), never through a
 * symbolic link, and fills *st: a descriptor only for a trusted regular file, else -1 (an
 * untrusted one said once; something else in its place, such as a folder, silently). */
static int open_file(const cache_folder *f, const char *dir, const char *name, int flags,
                     struct stat *st)
{
    char why[192];
    mode_t create = f->team == NO_TEAM ? 0600 : 0660;
    int fd = openat(f->fd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, create);
    if (fd < 0) {
        if (errno == ELOOP)
            warn_once(dir, name, "is a symbolic link");
        return -1;
    }
    if (fstat(fd, st) == 0 && S_ISREG(st->st_mode)) {
        if (!distrust(st, f->team, 0, why, sizeof why))
            return fd;
        warn_once(dir, name, why);
    }
    close(fd);
    return -1;
}

/* A folder we made for a shared cache: its group may write it, whatever the umask, and the
 * set-group-ID bit gives what is made in it the folder's group. */
static void share_folder(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        (void)!fchmod(fd, 02770);
        close(fd);
    }
}

/* mkdir -p: private to the user (cached binaries are code that we will run), or shared with
 * the group when asked. */
static int make_dirs(const char *dir)
{
    char p[PATH_CAP];
    size_t n = strlen(dir);
    int shared = shared_cache();
    if (n >= sizeof p)
        return -1;
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != 0)
            continue;
        char saved = p[i];
        p[i] = 0;
        if (mkdir(p, shared ? 0770 : 0700) == 0) {
            if (shared)
                share_folder(p);
        } else if (errno != EEXIST) {
            return -1;
        }
        p[i] = saved;
    }
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* ---- the key ---------------------------------------------------------------------------- */

/* Everything that changes the compiled code, one field per line. Returns its length, or
 * 0 if it does not fit (then the program simply is not cached on disk). */
static size_t key_text(const dmlcl_context *c, uint64_t source_hash, const char *options,
                       char *buf, size_t cap)
{
    const dmlcl__device_info *d = &c->info;
    int n = snprintf(buf, cap,
                     "dmlcl program cache format %u\n"
                     "library %s\n"
                     "source %016" PRIx64 "\n"
                     "options %s\n"
                     "device %s\n"
                     "vendor_id 0x%08x\n"
                     "driver %s\n"
                     "platform %s\n",
                     DMLCL__DISK_FORMAT, DMLCL_VERSION_STRING, source_hash, options, d->name,
                     (unsigned)d->vendor_id, d->driver_version, d->platform_version);
    return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

/* "<hash of key>.bin", the entry's name in the folder */
#define NAME_CAP 64
static void entry_name(const char *key, size_t key_len, char buf[NAME_CAP])
{
    snprintf(buf, NAME_CAP, "%016" PRIx64 ".bin", dmlcl__hash64(key, key_len, 0));
}

static uint64_t checksum(const char *key, size_t key_len, const void *bin, size_t bin_len)
{
    return dmlcl__hash64(bin, bin_len, dmlcl__hash64(key, key_len, 0));
}

/* ---- load ------------------------------------------------------------------------------- */

/* Reads the whole file (st: its fstat); -1 on a read error, 1 if it cannot be ours (too
 * small or large). */
static int read_file(int fd, const struct stat *st, unsigned char **data, size_t *len)
{
    if (st->st_size < (off_t)sizeof(dmlcl__disk_header) ||
        st->st_size > (off_t)DMLCL__DISK_MAX_FILE)
        return 1;
    size_t n = (size_t)st->st_size, got = 0;
    unsigned char *p = dmlcl__malloc(n);
    if (!p)
        return -1;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break; /* error, or the file shrank under us */
        got += (size_t)r;
    }
    if (got != n) {
        dmlcl__free(p);
        return 1;
    }
    *data = p;
    *len = n;
    return 0;
}

/* The binary inside a well-formed entry for exactly this key, or NULL. */
static const unsigned char *check_entry(const unsigned char *data, size_t len, const char *key,
                                        size_t key_len, size_t *bin_len)
{
    dmlcl__disk_header h;
    memcpy(&h, data, sizeof h);
    if (memcmp(h.magic, DMLCL__DISK_MAGIC, sizeof h.magic) || h.format != DMLCL__DISK_FORMAT ||
        h.key_length != key_len || len - sizeof h < key_len || h.payload_size == 0 ||
        h.payload_size != len - sizeof h - key_len)
        return NULL;
    const char *k = (const char *)data + sizeof h;
    const unsigned char *bin = data + sizeof h + key_len;
    if (memcmp(k, key, key_len) || checksum(k, key_len, bin, h.payload_size) != h.checksum)
        return NULL;
    *bin_len = h.payload_size;
    return bin;
}

/* Creates and builds a program from a binary; NULL if the driver refuses it. */
static cl_program from_binary(dmlcl_context *c, const unsigned char *bin, size_t len,
                              const char *options)
{
    cl_int err = CL_SUCCESS, bin_status = CL_SUCCESS;
    cl_program prog = clCreateProgramWithBinary(c->cl_ctx, 1, &c->device, &len, &bin,
                                                &bin_status, &err);
    if (err || bin_status) {
        if (prog)
            clReleaseProgram(prog);
        return NULL;
    }
    if (clBuildProgram(prog, 1, &c->device, options, NULL, NULL)) {
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}

/* Deletes a bad entry (ours: st), unless another process has meanwhile renamed a fresh one
 * into its place (then the name no longer names the file we read). */
static void discard(const cache_folder *f, const char *name, const struct stat *ours)
{
    struct stat now;
    if (fstatat(f->fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
        (ours->st_dev != now.st_dev || ours->st_ino != now.st_ino))
        return;
    unlinkat(f->fd, name, 0);
}

int dmlcl__disk_load(dmlcl_context *c, uint64_t source_hash, const char *options, cl_program *out)
{
    char dir[PATH_CAP], name[NAME_CAP], key[KEY_CAP];
    size_t key_len = key_text(c, source_hash, options, key, sizeof key);
    cache_folder f;
    if (!key_len || dmlcl__disk_dir(dir, sizeof dir) || open_folder(dir, &f))
        return -1;
    entry_name(key, key_len, name);
    struct stat st;
    int fd = open_file(&f, dir, name, O_RDONLY, &st);
    if (fd < 0) {
        close(f.fd);
        return -1;
    }
    unsigned char *data = NULL;
    size_t len = 0, bin_len = 0;
    cl_program prog = NULL;
    int r = read_file(fd, &st, &data, &len);
    if (r == 0) {
        const unsigned char *bin = check_entry(data, len, key, key_len, &bin_len);
        prog = bin ? from_binary(c, bin, bin_len, options) : NULL;
        dmlcl__free(data);
    }
    /* r < 0 (no memory, read error) says nothing about the entry: keep it. */
    if (r > 0 || (r == 0 && !prog))
        discard(&f, name, &st);
    close(fd);
    close(f.fd);
    if (!prog)
        return -1;
    *out = prog;
    return 0;
}

/* ---- store ------------------------------------------------------------------------------ */

/* The program's binary for c->device (programs may span all devices of the context). */
static unsigned char *program_binary(const dmlcl_context *c, cl_program prog, size_t *len)
{
    cl_uint ndev = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, NULL) || ndev == 0)
        return NULL;
    /* One block: devices, sizes, and the pointer array CL_PROGRAM_BINARIES fills. */
    size_t cap = ndev * (sizeof(cl_device_id) + sizeof(size_t) + sizeof(unsigned char *));
    void *block = dmlcl__calloc(1, cap);
    if (!block)
        return NULL;
    cl_device_id *devs = block;
    size_t *sizes = (size_t *)(devs + ndev);
    unsigned char **bins = (unsigned char **)(sizes + ndev);
    unsigned char *bin = NULL;
    cl_uint i = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_DEVICES, ndev * sizeof *devs, devs, NULL) ||
        clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, ndev * sizeof *sizes, sizes, NULL))
        goto out;
    while (i < ndev && devs[i] != c->device)
        i++;
    if (i == ndev || sizes[i] == 0 || sizes[i] > DMLCL__DISK_MAX_FILE / 2 ||
        !(bin = bins[i] = dmlcl__malloc(sizes[i])))
        goto out;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, ndev * sizeof *bins, bins, NULL)) {
        dmlcl__free(bin);
        bin = NULL;
        goto out;
    }
    *len = sizes[i];
out:
    dmlcl__free(block);
    return bin;
}

static int64_t write_limit = -1; /* test hook: simulated full disk */

void dmlcl_test_disk_write_limit(int64_t bytes)
{
    __atomic_store_n(&write_limit, bytes, __ATOMIC_SEQ_CST);
}

/* Writes all n bytes at *written; fails (errno set) on any error, as on a full disk. */
static int write_all(int fd, const void *data, size_t n, int64_t *written)
{
    const unsigned char *p = data;
    int64_t limit = __atomic_load_n(&write_limit, __ATOMIC_SEQ_CST);
    while (n > 0) {
        size_t chunk = n;
        if (limit >= 0 && *written + (int64_t)n > limit) {
            if (*written >= limit) {
                errno = ENOSPC;
                return -1;
            }
            chunk = (size_t)(limit - *written);
        }
        ssize_t w = write(fd, p, chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
        *written += w;
    }
    return 0;
}

/* A name no other writer (process, thread, or earlier call) uses at the same time. */
static int temp_name(const char *final, char *buf, size_t cap)
{
    static uint64_t counter;
    uint64_t k = __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
    pthread_t self = pthread_self();
    uint64_t thread = dmlcl__hash64(&self, sizeof self, 0);
    int n = snprintf(buf, cap, "%s.tmp-%ld-%08" PRIx64 "-%" PRIu64, final, (long)getpid(),
                     thread & 0xffffffffu, k);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* Temp file in the same folder, data synced, then renamed: readers see the old entry, no
 * entry, or the whole new one, never a half-written file, even across a crash. */
static void write_entry(const cache_folder *f, const char *name, const dmlcl__disk_header *h,
                        const char *key, const unsigned char *bin)
{
    char tmp[NAME_CAP + 64];
    if (temp_name(name, tmp, sizeof tmp))
        return;
    int fd = openat(f->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    if (f->team != NO_TEAM) /* readable by the team, whatever the umask; writable by us only */
        (void)!(fchown(fd, (uid_t)-1, f->team) | fchmod(fd, 0640));
    int64_t written = 0;
    int ok = !write_all(fd, h, sizeof *h, &written) &&
             !write_all(fd, key, h->key_length, &written) &&
             !write_all(fd, bin, h->payload_size, &written) && !fdatasync(fd);
    ok = !close(fd) && ok;
    if (!ok || renameat(f->fd, tmp, f->fd, name))
        unlinkat(f->fd, tmp, 0);
}

static void sweep_stale_temps(int dir_fd);

void dmlcl__disk_store(dmlcl_context *c, uint64_t source_hash, const char *options, cl_program prog)
{
    char dir[PATH_CAP], name[NAME_CAP], key[KEY_CAP];
    size_t key_len = key_text(c, source_hash, options, key, sizeof key), bin_len = 0;
    cache_folder f;
    if (!key_len || dmlcl__disk_dir(dir, sizeof dir))
        return;
    entry_name(key, key_len, name);
    unsigned char *bin = program_binary(c, prog, &bin_len);
    if (!bin)
        return;
    if (make_dirs(dir) == 0 && open_folder(dir, &f) == 0) {
        dmlcl__disk_header h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, DMLCL__DISK_MAGIC, sizeof h.magic);
        h.format = DMLCL__DISK_FORMAT;
        h.key_length = (uint32_t)key_len;
        h.payload_size = bin_len;
        h.checksum = checksum(key, key_len, bin, bin_len);
        write_entry(&f, name, &h, key, bin);
        sweep_stale_temps(f.fd);
        close(f.fd);
    }
    dmlcl__free(bin);
}

/* ---- the compile lock -------------------------------------------------------------------
 * Processes that miss the same entry at once (the ranks of an MPI job on one node, test
 * runs side by side) would each compile it: the JIT's seconds and memory N times over for
 * one program. A miss takes a lock on one byte of "<folder>/compile.lock", the byte the
 * entry's key picks, before it compiles: the first process compiles and stores, the others
 * wait for the byte (asleep, polling every few milliseconds, not spinning), then find the
 * entry and load it. Open-file-description locks exclude the threads of one process from
 * each other too, and the kernel drops them when their holder exits or crashes. The lock
 * only saves work: where it cannot be taken (no folder we may write, a file system without
 * locks) or after LOCK_WAIT_S, the caller compiles as it would without it. The lock file
 * passes the entries' trust rule, opened the same way: through a symbolic link, O_CREAT
 * would make a file wherever the link points, and a lock file someone else holds could make
 * us wait LOCK_WAIT_S for every program. */
#define LOCK_NAME "compile.lock"
#define LOCK_WAIT_S 120
#define LOCK_POLL_NS 5000000L
#ifdef F_OFD_SETLK
#define LOCK_CMD F_OFD_SETLK
#else
#define LOCK_CMD F_SETLK /* locks per process: threads of one process may both compile */
#endif

int dmlcl__disk_lock(dmlcl_context *c, uint64_t source_hash, const char *options)
{
    char dir[PATH_CAP], key[KEY_CAP];
    size_t key_len = key_text(c, source_hash, options, key, sizeof key);
    cache_folder f;
    struct stat st;
    if (!key_len || dmlcl__disk_dir(dir, sizeof dir) || make_dirs(dir) || open_folder(dir, &f))
        return -1;
    int fd = open_file(&f, dir, LOCK_NAME, O_RDWR | O_CREAT, &st);
    if (fd >= 0 && f.team != NO_TEAM && st.st_uid == geteuid()) /* every member locks it */
        (void)!(fchown(fd, (uid_t)-1, f.team) | fchmod(fd, 0660));
    close(f.fd);
    if (fd < 0)
        return -1;
    struct flock l;
    memset(&l, 0, sizeof l); /* OFD locks want l_pid 0 */
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    l.l_start = (off_t)(dmlcl__hash64(key, key_len, 0) & 0x3fffffffu);
    l.l_len = 1;
    const struct timespec poll = {0, LOCK_POLL_NS};
    for (long waited = 0; waited <= LOCK_WAIT_S * (1000000000L / LOCK_POLL_NS); waited++) {
        if (fcntl(fd, LOCK_CMD, &l) == 0)
            return fd;
        if (errno != EAGAIN && errno != EACCES && errno != EINTR)
            break; /* no locks here: compile without */
        nanosleep(&poll, NULL);
    }
    close(fd);
    return -1;
}

void dmlcl__disk_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* drops the lock */
}

/* ---- maintenance (public) ----------------------------------------------------------------- */

/* "<16 lowercase hex>.bin", or a writer's temp file "<that>.tmp-...". */
static int our_file(const char *name, int *is_temp)
{
    for (int i = 0; i < 16; i++)
        if (!strchr("0123456789abcdef", name[i]) || !name[i])
            return 0;
    if (strncmp(name + 16, ".bin", 4))
        return 0;
    *is_temp = name[20] != 0;
    return name[20] == 0 || !strncmp(name + 20, ".tmp-", 5);
}

/* ---- crashed writers' temp files ----------------------------------------------------------
 * A writer killed between open and rename leaves its temp file behind, and nothing else
 * ever names it again. Every store sweeps such files (stores follow compiles, so this is
 * rare): a temp file is stale when the writer named in it ("tmp-<pid>-...") no longer
 * runs and the file is over a minute old (the minute spares a live writer in another pid
 * namespace or on another host sharing the folder; a write takes milliseconds), or when
 * it is over an hour old whatever its pid says (pids are reused). Best effort, silent. */
#define STALE_DEAD_WRITER_S 60.0
#define STALE_ANY_S 3600.0

/* name is one of our temp files: "<16 hex>.bin.tmp-<pid>-...". */
static int writer_gone(const char *name)
{
    char *end = NULL;
    long pid = strtol(name + 25, &end, 10);
    if (end == name + 25 || *end != '-' || pid <= 0 || pid != (long)(pid_t)pid)
        return 0; /* no pid we can ask about: only the age rule applies */
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void sweep_stale_temps(int dir_fd)
{
    int fd = dup(dir_fd);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    time_t now = time(NULL);
    struct dirent *e;
    int is_temp = 0;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (!our_file(e->d_name, &is_temp) || !is_temp ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
            continue;
        double age = difftime(now, st.st_mtime);
        if (age > STALE_ANY_S || (age > STALE_DEAD_WRITER_S && writer_gone(e->d_name)))
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* Visits our files in the cache folder. Missing folder or disabled cache: nothing to do. */
typedef int (*visit_fn)(DIR *d, const char *name, int is_temp, void *arg);

static dmlcl_status each_file(const char *fn, visit_fn visit, void *arg)
{
    char dir[PATH_CAP];
    if (dmlcl__disk_dir(dir, sizeof dir))
        return DMLCL_SUCCESS;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? DMLCL_SUCCESS
                               : dmlcl__fail(DMLCL_IO_ERROR, "%s: cannot open %s: %s", fn, dir,
                                             strerror(errno));
    struct dirent *e;
    int is_temp = 0;
    dmlcl_status st = DMLCL_SUCCESS;
    while ((e = readdir(d)) != NULL) {
        if (!our_file(e->d_name, &is_temp) || visit(d, e->d_name, is_temp, arg) == 0 || st)
            continue;
        st = dmlcl__fail(DMLCL_IO_ERROR, "%s: cannot remove %s/%s: %s", fn, dir, e->d_name,
                         strerror(errno));
    }
    closedir(d);
    return st;
}

static int remove_file(DIR *d, const char *name, int is_temp, void *arg)
{
    return unlinkat(dirfd(d), name, 0) == 0 || errno == ENOENT ? 0 : -1;
}

dmlcl_status dmlcl_cache_clear(void) { return each_file("dmlcl_cache_clear", remove_file, NULL); }

typedef struct { uint64_t entries, bytes; } usage;

static int count_file(DIR *d, const char *name, int is_temp, void *arg)
{
    usage *u = arg;
    struct stat st;
    if (!is_temp && fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
        u->entries++;
        u->bytes += (uint64_t)st.st_size;
    }
    return 0;
}

dmlcl_status dmlcl_cache_disk_usage(uint64_t *entries, uint64_t *bytes)
{
    usage u = {0, 0};
    dmlcl_status st = each_file("dmlcl_cache_disk_usage", count_file, &u);
    if (entries)
        *entries = u.entries;
    if (bytes)
        *bytes = u.bytes;
    return st;
}
