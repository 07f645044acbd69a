/* On-disk program cache (disk_cache.c). Every failure is a miss, never an error.
 *
 * Folder: $DMLCL_CACHE_DIR, else $XDG_CACHE_HOME/dmlcl, else $HOME/.cache/dmlcl, plus the
 * subfolder "v<format>"; DMLCL_CACHE_DIR=off disables it.
 * One file per program, named "<16 hex digits>.bin" after the FNV-1a 64 of the key text:
 *   dmlcl__disk_header | key text (key_length bytes, no NUL) | binary (payload_size bytes)
 * The key text names everything that changes the code (library version, source hash,
 * options, device, driver, platform) and is compared on load, so a hash collision or a
 * swapped file can never load a wrong program. Integers are in host byte order: a cache
 * folder belongs to one machine, and a foreign file fails the format check anyway.
 * Writers fill "<name>.tmp-<pid>-<thread>-<counter>" in the same folder and rename it;
 * stores sweep crashed writers' stale temp files (disk_cache.c). A process compiles an
 * entry under a byte-range lock of "compile.lock" in the same folder, so that others
 * that miss it at the same time wait and load it instead of compiling it too.
 * Trust: the folder and every file in it must be the effective user's and writable by no
 * one else (with DMLCL_CACHE_SHARED=group, the folder's group may write them too); anything
 * else is not used (disk_cache.c, "whom the cache trusts"). */
#ifndef DMLCL_DISK_CACHE_H
#define DMLCL_DISK_CACHE_H
#include "core/context.h"

#define DMLCL__DISK_MAGIC "dmlclPC\n" /* 8 bytes, no NUL stored */
#define DMLCL__DISK_FORMAT 1u         /* bump when the layout or key text changes */
#define DMLCL__DISK_SUBDIR "v1"       /* follows DMLCL__DISK_FORMAT */
#define DMLCL__DISK_MAX_FILE (1u << 30) /* larger files are not ours */

typedef struct dmlcl__disk_header {
    char magic[8];         /* DMLCL__DISK_MAGIC */
    uint32_t format;       /* DMLCL__DISK_FORMAT */
    uint32_t key_length;   /* bytes of key text after the header */
    uint64_t payload_size; /* bytes of program binary after the key text */
    uint64_t checksum;     /* dmlcl__hash64 over key text then binary (seed 0) */
} dmlcl__disk_header;      /* 32 bytes, no padding */

/* 0 and a built, retained program in *out on a valid entry; -1 on any miss. A bad entry
 * (truncated, garbage, other format, other key, refused by the driver) is deleted. */
int dmlcl__disk_load(dmlcl_context *c, uint64_t source_hash, const char *options, cl_program *out);
/* Best effort: stores the program's binary; silently gives up on any problem. */
void dmlcl__disk_store(dmlcl_context *c, uint64_t source_hash, const char *options, cl_program prog);
/* The compile lock of the entry for (source_hash, options): a handle >= 0 once this
 * process may compile it while others on the machine wait (disk_cache.c), -1 where there is
 * no lock to take; compile, store, then dmlcl__disk_unlock (which accepts -1). */
int dmlcl__disk_lock(dmlcl_context *c, uint64_t source_hash, const char *options);
void dmlcl__disk_unlock(int handle);
/* The cache folder for the current environment into buf; -1 when disabled or too long. */
int dmlcl__disk_dir(char *buf, size_t cap);
/* Test hook: each entry file takes at most `bytes` (then writes fail with ENOSPC, as on
 * a full disk); negative = no limit. Not in the public header. */
void dmlcl_test_disk_write_limit(int64_t bytes);
#endif
