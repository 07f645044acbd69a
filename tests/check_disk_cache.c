/* The on-disk program cache: folder resolution, store then hit in a fresh context, every
 * kind of bad entry is a miss that gets rewritten, unwritable and full folders, folders and
 * files others could have written are not used, clear and usage, allocation failures on the
 * disk paths. Programs are cached in memory per
 * cl_context, so a fresh context misses memory and must go to disk: the counters show it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setenv, mkdtemp */
#endif
#include "testutil.h"
#include "cachetest.h"
#include "core/disk_cache.h" /* the entry layout: dmlcl__disk_header and its constants */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

/* Test hooks exported by the library (not in the public header). */
uint64_t dmlcl_test_fail_alloc_after(uint64_t n);
int64_t dmlcl_test_live_allocations(void);

static char base[CT_PATH]; /* this test's DMLCL_CACHE_DIR */

static void fresh_folder(void)
{
    ck_assert_msg(ct_use_fresh_dir(base) == 0, "mkdtemp failed");
}

static void restore_off(void)
{
    dmlcl_test_disk_write_limit(-1);
    unsetenv("DMLCL_CACHE_SHARED");
    ct_restore(base);
    base[0] = 0;
}

static dmlcl_context *fresh_context(void)
{
    dmlcl_context *c = NULL;
    tu_assert_ok(dmlcl_context_create_default(&c));
    return c;
}

/* In a fresh context (cold in memory): runs the operator, checks its result and how the
 * program was obtained; what the library said on stderr meanwhile goes to `said`, if any. */
static void run_fresh_said(dmlcl_tensor_data_type type, uint64_t compiles, uint64_t disk_hits,
                           char *said, size_t cap)
{
    dmlcl_context *c = fresh_context();
    dmlcl_cache_stats s0, s1;
    int err = said ? ct_stderr_begin() : -1;
    dmlcl_cache_get_stats(&s0);
    int r = ct_run_rs(c, type);
    dmlcl_cache_get_stats(&s1);
    dmlcl_context_release(c);
    if (said) {
        ct_stderr_end(err, said, cap);
        ck_assert_msg(err >= 0, "cannot capture stderr");
    }
    ck_assert_msg(r == 0, "run: %s (%s)", r < 0 ? "wrong result" : dmlcl_status_string(r),
                  dmlcl_last_error());
    ck_assert_uint_eq(s1.compiles - s0.compiles, compiles);
    ck_assert_uint_eq(s1.disk_hits - s0.disk_hits, disk_hits);
}

static void run_fresh(dmlcl_tensor_data_type type, uint64_t compiles, uint64_t disk_hits)
{
    run_fresh_said(type, compiles, disk_hits, NULL, 0);
}

/* The folder holds exactly `entries` entries, no temp files, nothing else. */
static ct_scan expect_folder(int entries)
{
    const char *dir = dmlcl_cache_directory();
    ck_assert_ptr_nonnull(dir);
    ct_scan s = ct_scan_dir(dir);
    ck_assert_int_eq(s.entries, entries);
    ck_assert_int_eq(s.temps, 0);
    ck_assert_int_eq(s.others, 0);
    return s;
}

/* ---- where the folder is ---------------------------------------------------------------- */

static void expect_dir(const char *expect)
{
    const char *dir = dmlcl_cache_directory();
    if (!expect) {
        ck_assert_msg(dir == NULL, "expected no folder, got %s", dir);
        return;
    }
    ck_assert_ptr_nonnull(dir);
    ck_assert_str_eq(dir, expect);
}

START_TEST(folder_from_environment)
{
    char home[CT_PATH] = "", xdg[CT_PATH] = "", env[CT_PATH] = "";
    int had_home = getenv("HOME") != NULL, had_xdg = getenv("XDG_CACHE_HOME") != NULL;
    int had_env = getenv("DMLCL_CACHE_DIR") != NULL;
    snprintf(home, sizeof home, "%s", had_home ? getenv("HOME") : "");
    snprintf(xdg, sizeof xdg, "%s", had_xdg ? getenv("XDG_CACHE_HOME") : "");
    snprintf(env, sizeof env, "%s", had_env ? getenv("DMLCL_CACHE_DIR") : "");

    setenv("DMLCL_CACHE_DIR", "off", 1);
    expect_dir(NULL);
    setenv("DMLCL_CACHE_DIR", "/some/where//", 1);
    expect_dir("/some/where/" DMLCL__DISK_SUBDIR);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/u", 1);
    unsetenv("DMLCL_CACHE_DIR");
    expect_dir("/xdg/dmlcl/" DMLCL__DISK_SUBDIR);
    setenv("DMLCL_CACHE_DIR", "", 1); /* empty = unset */
    expect_dir("/xdg/dmlcl/" DMLCL__DISK_SUBDIR);
    setenv("XDG_CACHE_HOME", "relative/path", 1); /* the XDG spec: ignore it */
    expect_dir("/home/u/.cache/dmlcl/" DMLCL__DISK_SUBDIR);
    unsetenv("XDG_CACHE_HOME");
    expect_dir("/home/u/.cache/dmlcl/" DMLCL__DISK_SUBDIR);
    unsetenv("HOME");
    expect_dir(NULL);
    /* Disabled or missing folder: nothing to clear or count, and no error. */
    uint64_t n = 7, bytes = 7;
    tu_assert_ok(dmlcl_cache_clear());
    tu_assert_ok(dmlcl_cache_disk_usage(&n, &bytes));
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(bytes, 0);

    had_home ? setenv("HOME", home, 1) : unsetenv("HOME");
    had_xdg ? setenv("XDG_CACHE_HOME", xdg, 1) : unsetenv("XDG_CACHE_HOME");
    had_env ? setenv("DMLCL_CACHE_DIR", env, 1) : unsetenv("DMLCL_CACHE_DIR");
}
END_TEST

/* ---- store, then hit ------------------------------------------------------------------- */

START_TEST(store_then_disk_hit_in_fresh_context)
{
    char expect[CT_PATH + 8];
    snprintf(expect, sizeof expect, "%s/%s", base, DMLCL__DISK_SUBDIR);
    expect_dir(expect);
    run_fresh(F32, 1, 0);
    expect_folder(1);
    run_fresh(F32, 0, 1);
    run_fresh(DMLCL_TENSOR_DATA_TYPE_INT16, 1, 0); /* another variant, another entry */
    expect_folder(2);
    run_fresh(DMLCL_TENSOR_DATA_TYPE_INT16, 0, 1);

    /* In one context the second create is a memory hit, not another disk read. */
    dmlcl_context *c = fresh_context();
    dmlcl_cache_stats s0, s1;
    dmlcl_cache_get_stats(&s0);
    ck_assert_int_eq(ct_run_rs(c, F32), 0);
    ck_assert_int_eq(ct_run_rs(c, F32), 0);
    dmlcl_cache_get_stats(&s1);
    dmlcl_context_release(c);
    ck_assert_uint_eq(s1.disk_hits - s0.disk_hits, 1);
    ck_assert_uint_eq(s1.memory_hits - s0.memory_hits, 1);
    ck_assert_uint_eq(s1.compiles - s0.compiles, 0);

    struct stat st;
    ck_assert_int_eq(stat(expect, &st), 0);
    ck_assert_uint_eq(st.st_mode & 077, 0); /* private: cached binaries are code we run */
}
END_TEST

/* The extra build options are part of the key: they select another entry. */
START_TEST(build_options_are_part_of_the_key)
{
    run_fresh(F32, 1, 0);
    tu_build_options("-cl-opt-disable");
    run_fresh(F32, 1, 0);
    run_fresh(F32, 0, 1);
    tu_build_options(NULL);
    run_fresh(F32, 0, 1);
    expect_folder(2);
}
END_TEST

/* ---- bad entries ------------------------------------------------------------------------- */

enum {
    TRUNCATED_HALF, TRUNCATED_IN_HEADER, EMPTY, GARBAGE, FLIPPED_BINARY_BYTE, WRONG_FORMAT,
    WRONG_MAGIC, OTHER_DEVICE_SAME_LENGTH, OTHER_DEVICE_IN_KEY, DRIVER_REFUSES_BINARY,
    CORRUPTION_COUNT
};
static const char *const corruption_names[CORRUPTION_COUNT] = {
    "truncated to half", "truncated inside the header", "empty", "garbage",
    "flipped byte in the binary", "wrong format version", "wrong magic",
    "another device name of the same length in the key (valid header and checksum)",
    "another device name in the key (valid checksum)",
    "binary the driver refuses (valid header, key and checksum)"};

/* Recomputes the checksum, so only the intended defect remains. */
static void reseal(unsigned char *data)
{
    dmlcl__disk_header h;
    memcpy(&h, data, sizeof h);
    const unsigned char *key = data + sizeof h;
    h.checksum = ct_fnv(key + h.key_length, h.payload_size, ct_fnv(key, h.key_length, 0));
    memcpy(data, &h, sizeof h);
}

/* Replaces the device name in the key with another device's: of the same length (so
 * only the key comparison can catch it) or not (the key length differs too). */
static unsigned char *swap_device(const unsigned char *data, int same_length, size_t *out_len)
{
    dmlcl__disk_header h;
    memcpy(&h, data, sizeof h);
    const char *key = (const char *)data + sizeof h;
    const char *line = NULL;
    for (const char *p = key; p < key + h.key_length - 7; p++)
        if ((p == key || p[-1] == '\n') && !strncmp(p, "device ", 7))
            line = p;
    ck_assert_msg(line != NULL, "no device line in the key");
    const char *end = memchr(line, '\n', (size_t)(key + h.key_length - line));
    ck_assert_ptr_nonnull(end);
    char other[600] = "device Some Other Accelerator 9000";
    if (same_length) { /* "device " then the old name's length of other letters */
        size_t n = (size_t)(end - line);
        ck_assert_uint_lt(n, sizeof other);
        for (size_t i = 7; i < n; i++)
            other[i] = line[i] == 'Q' ? 'R' : 'Q';
        other[n] = 0;
    }
    size_t head = (size_t)(line - key), tail = h.key_length - (size_t)(end - key);
    size_t key_len = head + strlen(other) + tail;
    unsigned char *o = malloc(sizeof h + key_len + h.payload_size);
    ck_assert_ptr_nonnull(o);
    h.key_length = (uint32_t)key_len;
    memcpy(o, &h, sizeof h);
    memcpy(o + sizeof h, key, head);
    memcpy(o + sizeof h + head, other, strlen(other));
    memcpy(o + sizeof h + head + strlen(other), end, tail + h.payload_size);
    reseal(o);
    *out_len = sizeof h + key_len + h.payload_size;
    return o;
}

static unsigned char *corrupt(int kind, const unsigned char *data, size_t len, size_t *out_len)
{
    if (kind == OTHER_DEVICE_IN_KEY || kind == OTHER_DEVICE_SAME_LENGTH)
        return swap_device(data, kind == OTHER_DEVICE_SAME_LENGTH, out_len);
    unsigned char *o = malloc(len);
    ck_assert_ptr_nonnull(o);
    memcpy(o, data, len);
    *out_len = len;
    dmlcl__disk_header h;
    memcpy(&h, o, sizeof h);
    uint64_t rng = 12345;
    switch (kind) {
    case TRUNCATED_HALF: *out_len = len / 2; break;
    case TRUNCATED_IN_HEADER: *out_len = sizeof h / 3; break;
    case EMPTY: *out_len = 0; break;
    case GARBAGE:
        for (size_t i = 0; i < len; i++)
            o[i] = (unsigned char)tu_rand(&rng);
        break;
    case FLIPPED_BINARY_BYTE: o[len - h.payload_size / 2] ^= 0x40; break;
    case WRONG_FORMAT: h.format = DMLCL__DISK_FORMAT + 1; memcpy(o, &h, sizeof h); break;
    case WRONG_MAGIC: o[0] ^= 0x20; break;
    case DRIVER_REFUSES_BINARY:
        for (size_t i = sizeof h + h.key_length; i < len; i++)
            o[i] = (unsigned char)tu_rand(&rng);
        reseal(o);
        break;
    }
    return o;
}

/* Store, damage the entry, then a fresh context: a compile (never an error, and no
 * message on the caller's thread), the right result, and a valid entry again. */
START_TEST(bad_entry_is_a_miss_and_rewritten)
{
    int kind = _i;
    run_fresh(F32, 1, 0);
    ct_scan s = expect_folder(1);
    size_t len = 0, bad_len = 0;
    unsigned char *good = ct_read(s.entry, &len);
    ck_assert_ptr_nonnull(good);
    ck_assert_uint_gt(len, sizeof(dmlcl__disk_header));
    unsigned char *bad = corrupt(kind, good, len, &bad_len);
    ck_assert_int_eq(ct_write(s.entry, bad, bad_len), 0);

    /* A known message first: the miss must leave it alone. */
    ck_assert_int_eq(dmlcl_context_create(NULL, NULL, NULL, NULL), DMLCL_INVALID_ARGUMENT);
    char before[512];
    snprintf(before, sizeof before, "%s", dmlcl_last_error());
    run_fresh(F32, 1, 0);
    ck_assert_msg(!strcmp(before, dmlcl_last_error()), "%s: message changed to \"%s\"",
                  corruption_names[kind], dmlcl_last_error());

    /* Rewritten under the same name, and valid: the next fresh context loads it. */
    ct_scan again = expect_folder(1);
    ck_assert_str_eq(again.entry, s.entry);
    size_t now_len = 0;
    unsigned char *now = ct_read(again.entry, &now_len);
    ck_assert_ptr_nonnull(now);
    ck_assert_msg(now_len != bad_len || memcmp(now, bad, bad_len), "%s: entry not rewritten",
                  corruption_names[kind]);
    run_fresh(F32, 0, 1);
    free(now);
    free(bad);
    free(good);
}
END_TEST

/* The control for the cases above: an entry resealed by this test, unchanged otherwise,
 * still loads. So the resealed cases fail on their one defect, not on the checksum. */
START_TEST(resealed_entry_still_loads)
{
    run_fresh(F32, 1, 0);
    ct_scan s = expect_folder(1);
    size_t len = 0;
    unsigned char *data = ct_read(s.entry, &len);
    ck_assert_ptr_nonnull(data);
    dmlcl__disk_header h;
    memcpy(&h, data, sizeof h);
    uint64_t sum = h.checksum;
    reseal(data);
    memcpy(&h, data, sizeof h);
    ck_assert_uint_eq(h.checksum, sum);
    ck_assert_int_eq(ct_write(s.entry, data, len), 0);
    run_fresh(F32, 0, 1);
    free(data);
}
END_TEST

/* An entry file that is not a regular file (a folder in its place) is a miss, too. */
START_TEST(folder_in_place_of_entry)
{
    run_fresh(F32, 1, 0);
    ct_scan s = expect_folder(1);
    ck_assert_int_eq(unlink(s.entry), 0);
    ck_assert_int_eq(mkdir(s.entry, 0700), 0);
    run_fresh(F32, 1, 0); /* the store's rename onto a folder fails: silently */
    run_fresh(F32, 1, 0);
    ck_assert_int_eq(rmdir(s.entry), 0);
}
END_TEST

/* ---- whom the cache trusts ---------------------------------------------------------------
 * An entry is code we run, so the folder and its files must be ours and writable by no one
 * else (doc/api.md, "Cache"). Each case starts from a valid entry that would be a disk hit,
 * so only the trust check makes the run a compile. The tests run as root in CI: root owns
 * what it makes, so "another user" means a chown to nobody, skipped where that is refused. */

/* nobody, unless that is who runs the tests */
#define OTHER_UID (geteuid() == 65534 ? 65533 : 65534)
#define OTHER_GID (getegid() == 65534 ? 65533 : 65534)
#define HINT "see DMLCL_CACHE_DIR and DMLCL_CACHE_SHARED in dmlcl(3)\n"

/* The one line the library says about the folder (file NULL) or a file in it. */
static void expect_said(const char *said, const char *file, const char *why)
{
    char expect[2 * CT_PATH];
    const char *dir = dmlcl_cache_directory();
    if (file)
        snprintf(expect, sizeof expect, "dmlcl: cache file %s/%s %s: not used; " HINT, dir,
                 file, why);
    else
        snprintf(expect, sizeof expect,
                 "dmlcl: cache folder %s %s: disk cache not used; " HINT, dir, why);
    ck_assert_str_eq(said, expect);
}

/* Gives path to another user (group: -1 keeps it); 0 where this process may not. */
static int give_away(const char *path, gid_t group)
{
    if (chown(path, OTHER_UID, group) == 0)
        return 1;
    printf("disk_cache: skipped a case owned by uid %d: cannot chown (not root)\n",
           (int)OTHER_UID);
    return 0;
}

enum { FOLDER_WORLD_WRITABLE, FOLDER_GROUP_WRITABLE, FOLDER_OTHER_OWNER, FOLDER_CASES };

START_TEST(untrusted_folder_is_not_used)
{
    run_fresh(F32, 1, 0);
    ct_scan s = expect_folder(1);
    const char *dir = dmlcl_cache_directory();
    char why[256], said[2 * CT_PATH];
    switch (_i) {
    case FOLDER_WORLD_WRITABLE:
        ck_assert_int_eq(chmod(dir, 0777), 0);
        snprintf(why, sizeof why, "is writable by others (mode 0777)");
        break;
    case FOLDER_GROUP_WRITABLE:
        ck_assert_int_eq(chmod(dir, 0770), 0);
        snprintf(why, sizeof why, "is writable by its group (mode 0770); a cache shared by a "
                                  "team needs DMLCL_CACHE_SHARED=group");
        break;
    case FOLDER_OTHER_OWNER:
        if (!give_away(dir, (gid_t)-1))
            return;
        snprintf(why, sizeof why, "is owned by uid %d, not by you (uid %u)", (int)OTHER_UID,
                 (unsigned)geteuid());
        break;
    }
    run_fresh_said(F32, 1, 0, said, sizeof said); /* its valid entry is not loaded */
    expect_said(said, NULL, why);
    /* Said once per process; and nothing is stored into it. */
    ck_assert_int_eq(unlink(s.entry), 0);
    run_fresh_said(F32, 1, 0, said, sizeof said);
    ck_assert_str_eq(said, "");
    expect_folder(0);
}
END_TEST

enum { ENTRY_SYMLINK, ENTRY_WORLD_WRITABLE, ENTRY_GROUP_WRITABLE, ENTRY_OTHER_OWNER, LOCK_SYMLINK,
       FILE_CASES };

/* A file of a trusted folder that is not trusted is a miss (the lock file: no lock), the
 * compile's store puts a trusted entry in its place, and the next run loads that. */
START_TEST(untrusted_file_is_not_used)
{
    run_fresh(F32, 1, 0);
    ct_scan s = expect_folder(1);
    const char *dir = dmlcl_cache_directory(), *file = strrchr(s.entry, '/') + 1;
    char why[256], said[2 * CT_PATH], planted[CT_PATH + 16], lock[CT_PATH + 16];
    size_t good_len = 0, len = 0;
    unsigned char *good = ct_read(s.entry, &good_len);
    ck_assert_ptr_nonnull(good);
    snprintf(planted, sizeof planted, "%s/planted", base); /* outside the cache folder */
    snprintf(lock, sizeof lock, "%s/compile.lock", dir);
    snprintf(why, sizeof why, "is a symbolic link");
    switch (_i) {
    case ENTRY_SYMLINK:
        ck_assert_int_eq(rename(s.entry, planted), 0);
        ck_assert_int_eq(symlink(planted, s.entry), 0);
        break;
    case ENTRY_WORLD_WRITABLE:
        ck_assert_int_eq(chmod(s.entry, 0606), 0);
        snprintf(why, sizeof why, "is writable by others (mode 0606)");
        break;
    case ENTRY_GROUP_WRITABLE:
        ck_assert_int_eq(chmod(s.entry, 0660), 0);
        snprintf(why, sizeof why, "is writable by its group (mode 0660); a cache shared by a "
                                  "team needs DMLCL_CACHE_SHARED=group");
        break;
    case ENTRY_OTHER_OWNER:
        if (!give_away(s.entry, (gid_t)-1))
            goto out;
        snprintf(why, sizeof why, "is owned by uid %d, not by you (uid %u)", (int)OTHER_UID,
                 (unsigned)geteuid());
        break;
    case LOCK_SYMLINK: /* O_CREAT through it would make the file it names */
        file = "compile.lock";
        ck_assert_int_eq(unlink(lock), 0);
        ck_assert_int_eq(symlink(planted, lock), 0);
        ck_assert_int_eq(unlink(s.entry), 0); /* a miss, so the lock is taken */
        break;
    }
    run_fresh_said(F32, 1, 0, said, sizeof said);
    expect_said(said, file, why);
    struct stat st;
    ck_assert_int_eq(lstat(s.entry, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077),
                  "the entry was not replaced by a private one of ours (mode %o, uid %u)",
                  (unsigned)st.st_mode, (unsigned)st.st_uid);
    if (_i == ENTRY_SYMLINK) { /* the link is gone, not what it named */
        unsigned char *still = ct_read(planted, &len);
        ck_assert_msg(still && len == good_len && !memcmp(still, good, len), "planted changed");
        free(still);
    }
    if (_i == LOCK_SYMLINK) {
        ck_assert_int_eq(lstat(lock, &st), 0);
        ck_assert(S_ISLNK(st.st_mode));
        ck_assert_msg(access(planted, F_OK) != 0, "a file was made through the link");
    }
    run_fresh(F32, 0, 1);
out:
    free(good);
}
END_TEST

/* DMLCL_CACHE_SHARED=group: a folder whose group is ours may be written by that group, and a
 * file owned by another user is trusted when its group is the folder's. Never a world-writable
 * file, never a group that is not ours. */
START_TEST(shared_cache_trusts_the_folders_group)
{
    char dir[CT_PATH], why[256], said[2 * CT_PATH];
    setenv("DMLCL_CACHE_SHARED", "group", 1);
    run_fresh(F32, 1, 0);
    ct_scan s = expect_folder(1);
    snprintf(dir, sizeof dir, "%s", dmlcl_cache_directory());
    struct stat fs, es;
    ck_assert_int_eq(stat(dir, &fs), 0);
    ck_assert_int_eq(stat(s.entry, &es), 0);
    ck_assert_uint_eq(fs.st_mode & 07777, 02770); /* made for the team, whatever the umask */
    ck_assert_uint_eq(es.st_mode & 07777, 0640);  /* the team reads it, its writer writes it */
    ck_assert_uint_eq(es.st_gid, fs.st_gid);
    run_fresh(F32, 0, 1);
    if (give_away(s.entry, fs.st_gid)) /* a teammate's entry */
        run_fresh(F32, 0, 1);

    /* Without the variable the group-writable folder is not used. */
    unsetenv("DMLCL_CACHE_SHARED");
    run_fresh_said(F32, 1, 0, said, sizeof said);
    expect_said(said, NULL, "is writable by its group (mode 2770); a cache shared by a team "
                            "needs DMLCL_CACHE_SHARED=group");
    setenv("DMLCL_CACHE_SHARED", "group", 1);

    /* A world-writable entry, shared or not: not loaded, and replaced by ours. */
    ck_assert_int_eq(chmod(s.entry, 0646), 0);
    run_fresh_said(F32, 1, 0, said, sizeof said);
    expect_said(said, strrchr(s.entry, '/') + 1, "is writable by others (mode 0646)");
    run_fresh(F32, 0, 1);

    /* A folder whose group is not one of ours (where the test can give it one). */
    gid_t groups[1024];
    int n = getgroups(1024, groups), member = 0;
    for (int i = 0; i < n; i++)
        member |= groups[i] == OTHER_GID;
    if (member || chown(dir, (uid_t)-1, OTHER_GID)) {
        printf("disk_cache: skipped a folder of gid %d: cannot chown (not root)\n",
               (int)OTHER_GID);
        return;
    }
    ck_assert_int_eq(stat(dir, &fs), 0);
    snprintf(why, sizeof why,
             "is writable by its group (gid %d, mode %04o), which is not one of yours",
             (int)OTHER_GID, (unsigned)fs.st_mode & 07777);
    run_fresh_said(F32, 1, 0, said, sizeof said);
    expect_said(said, NULL, why);
}
END_TEST

/* ---- folders we cannot write --------------------------------------------------------------- */

START_TEST(unwritable_folder_still_works)
{
    /* A regular file where the folder should be: fails even for root. */
    char path[CT_PATH + 16];
    snprintf(path, sizeof path, "%s/file", base);
    ck_assert_int_eq(ct_write(path, "x", 1), 0);
    setenv("DMLCL_CACHE_DIR", path, 1);
    run_fresh(F32, 1, 0);
    run_fresh(F32, 1, 0);
    /* The versioned subfolder name taken by a file. */
    snprintf(path, sizeof path, "%s/%s", base, DMLCL__DISK_SUBDIR);
    ck_assert_int_eq(ct_write(path, "x", 1), 0);
    setenv("DMLCL_CACHE_DIR", base, 1);
    run_fresh(F32, 1, 0);
    ck_assert_int_eq(unlink(path), 0);
    /* A read-only folder (permissions do not bind root, so only as another user). */
    if (geteuid() != 0) {
        ck_assert_int_eq(mkdir(path, 0500), 0);
        run_fresh(F32, 1, 0);
        run_fresh(F32, 1, 0);
        chmod(path, 0700);
    }
}
END_TEST

/* A full disk (simulated by a test hook: writes past 2 KiB fail with ENOSPC, after the
 * header and key but inside the binary): no entry, no temp file, and no error. */
START_TEST(full_disk_leaves_no_file)
{
    dmlcl_test_disk_write_limit(2048);
    run_fresh(F32, 1, 0);
    expect_folder(0);
    dmlcl_test_disk_write_limit(0); /* nothing fits */
    run_fresh(F32, 1, 0);
    expect_folder(0);
    dmlcl_test_disk_write_limit(-1); /* room again: stored */
    run_fresh(F32, 1, 0);
    expect_folder(1);
    run_fresh(F32, 0, 1);
}
END_TEST

/* ---- clear and usage ---------------------------------------------------------------------- */

START_TEST(clear_removes_only_our_files)
{
    uint64_t n = 9, bytes = 9;
    tu_assert_ok(dmlcl_cache_disk_usage(&n, &bytes)); /* folder not made yet */
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(bytes, 0);
    run_fresh(F32, 1, 0);
    run_fresh(DMLCL_TENSOR_DATA_TYPE_INT8, 1, 0);
    ct_scan s = expect_folder(2);
    char path[CT_PATH + 64];
    struct stat st;
    uint64_t total = 0;
    const char *dir = dmlcl_cache_directory();
    snprintf(path, sizeof path, "%s", s.entry);
    ck_assert_int_eq(stat(path, &st), 0);
    total += (uint64_t)st.st_size;
    tu_assert_ok(dmlcl_cache_disk_usage(&n, NULL));
    ck_assert_uint_eq(n, 2);
    tu_assert_ok(dmlcl_cache_disk_usage(NULL, &bytes));
    ck_assert_uint_gt(bytes, total); /* two entries, one of which is `total` bytes */
    /* A crashed writer's temp file is ours; a user's file is not. */
    snprintf(path, sizeof path, "%s/0123456789abcdef.bin.tmp-1-2-3", dir);
    ck_assert_int_eq(ct_write(path, "tmp", 3), 0);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    ck_assert_int_eq(ct_write(path, "mine", 4), 0);
    tu_assert_ok(dmlcl_cache_disk_usage(&n, NULL));
    ck_assert_uint_eq(n, 2);
    tu_assert_ok(dmlcl_cache_clear());
    s = ct_scan_dir(dir);
    ck_assert_int_eq(s.entries, 0);
    ck_assert_int_eq(s.temps, 0);
    ck_assert_int_eq(s.others, 1);
    tu_assert_ok(dmlcl_cache_disk_usage(&n, &bytes));
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(bytes, 0);
    run_fresh(F32, 1, 0); /* cleared means compiled again */
}
END_TEST

/* ---- allocation failures on the disk paths ------------------------------------------------- */

/* Every allocation of an operator create that loads (entry present) or stores (folder
 * empty) fails in turn: success or a clean OUT_OF_MEMORY, right results, no leak, and
 * never a half-written or temp file. */
static void alloc_sweep(int with_entry)
{
    const dmlcl_tensor_data_type type = DMLCL_TENSOR_DATA_TYPE_UINT32;
    run_fresh(type, 1, 0); /* the entry, and the driver's caches warm */
    for (uint64_t n = 1;; n++) {
        if (!with_entry)
            tu_assert_ok(dmlcl_cache_clear());
        int64_t live0 = dmlcl_test_live_allocations();
        dmlcl_context *c = fresh_context();
        dmlcl_test_fail_alloc_after(n);
        int r = ct_run_rs(c, type);
        uint64_t seen = dmlcl_test_fail_alloc_after(0);
        dmlcl_context_release(c);
        ck_assert_msg(r == 0 || r == DMLCL_OUT_OF_MEMORY, "allocation %llu: %s (%s)",
                      (unsigned long long)n, r < 0 ? "wrong result" : dmlcl_status_string(r),
                      dmlcl_last_error());
        ck_assert_msg(dmlcl_test_live_allocations() == live0, "allocation %llu leaked",
                      (unsigned long long)n);
        ck_assert_int_eq(ct_scan_dir(dmlcl_cache_directory()).temps, 0);
        if (seen < n) /* the Nth allocation never happened: all were covered */
            break;
    }
    run_fresh(type, 0, 1); /* whatever failed, the folder ends valid */
}

START_TEST(allocation_failures_while_loading) { alloc_sweep(1); }
END_TEST

START_TEST(allocation_failures_while_storing) { alloc_sweep(0); }
END_TEST

Suite *disk_cache_suite(void)
{
    Suite *s = suite_create("disk_cache");
    TCase *env = tcase_create("folder");
    tcase_add_test(env, folder_from_environment);
    suite_add_tcase(s, env);

    TCase *tc = tcase_create("entries");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, fresh_folder, restore_off);
    tcase_add_test(tc, store_then_disk_hit_in_fresh_context);
    tcase_add_test(tc, build_options_are_part_of_the_key);
    tcase_add_loop_test(tc, bad_entry_is_a_miss_and_rewritten, 0, CORRUPTION_COUNT);
    tcase_add_test(tc, resealed_entry_still_loads);
    tcase_add_test(tc, folder_in_place_of_entry);
    tcase_add_test(tc, unwritable_folder_still_works);
    tcase_add_test(tc, full_disk_leaves_no_file);
    tcase_add_test(tc, clear_removes_only_our_files);
    tcase_add_test(tc, allocation_failures_while_loading);
    tcase_add_test(tc, allocation_failures_while_storing);
    suite_add_tcase(s, tc);

    TCase *trust = tcase_create("trust");
    tcase_set_timeout(trust, 120);
    tcase_add_checked_fixture(trust, fresh_folder, restore_off);
    tcase_add_loop_test(trust, untrusted_folder_is_not_used, 0, FOLDER_CASES);
    tcase_add_loop_test(trust, untrusted_file_is_not_used, 0, FILE_CASES);
    tcase_add_test(trust, shared_cache_trusts_the_folders_group);
    suite_add_tcase(s, trust);
    return s;
}
