/* Helpers for the on-disk cache tests (check_disk_cache.c, check_cache_processes.c):
 * private cache folders, folder scans, entry files, and one operator run checked against
 * a plain C reference. Nothing here uses Check assertions, so forked children can call it. */
#ifndef DMLCL_CACHETEST_H
#define DMLCL_CACHETEST_H
#include <dmlcl.h>
#include <stddef.h>
#include <stdint.h>

#define CT_PATH 4096

/* Makes a fresh empty folder and points DMLCL_CACHE_DIR at it; base receives its path.
 * Returns 0, or -1 if the folder cannot be made. */
int ct_use_fresh_dir(char base[CT_PATH]);
/* Puts DMLCL_CACHE_DIR back as it was before ct_use_fresh_dir and removes the folder tree. */
void ct_restore(const char *base);
/* Removes a folder tree (no symlinks followed). */
void ct_remove_tree(const char *path);

/* What a cache folder holds: entries ("<16 hex>.bin"), writers' temp files, anything else. */
typedef struct {
    int entries, temps, others;
    int locks; /* "compile.lock": the folder's compile lock, kept between compiles */
    char entry[CT_PATH]; /* path of the last entry seen */
} ct_scan;
ct_scan ct_scan_dir(const char *dir);

/* Whole-file read (malloc'd; NULL if unreadable) and write (0 on success). */
unsigned char *ct_read(const char *path, size_t *len);
int ct_write(const char *path, const void *data, size_t len);

/* What this process writes on stderr between the two calls: ct_stderr_begin sends it to a
 * temporary file (returns a handle, -1 on failure); ct_stderr_end puts stderr back and reads
 * the text into buf (empty if nothing). */
int ct_stderr_begin(void);
void ct_stderr_end(int handle, char *buf, size_t cap);

/* FNV-1a 64 as the cache format specifies it (seed 0 = the standard offset basis). */
uint64_t ct_fnv(const void *data, size_t len, uint64_t seed);

/* Creates REVERSE_SUBSEQUENCES on a 3x5 tensor of `type` (axis 1, lengths {5, 2, 0}) in
 * c, runs it and compares with the reference. Returns 0 when the result is right, the
 * failing status, or -1 for a wrong result. Each element width is a program variant. */
int ct_run_rs(dmlcl_context *c, dmlcl_tensor_data_type type);
#endif
