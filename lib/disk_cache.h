/* On-disk program cache (disk_cache.c). Every failure is a miss, never an error. */
#ifndef DMLCL_DISK_CACHE_H
#define DMLCL_DISK_CACHE_H
#include "internal.h"

/* 0 and a built, retained program in *out on a valid entry; -1 on any miss. */
int dmlcl__disk_load(dmlcl_context *c, uint64_t source_hash, const char *options, cl_program *out);
/* Best effort: stores the program's binary; silently gives up on any problem. */
void dmlcl__disk_store(dmlcl_context *c, uint64_t source_hash, const char *options, cl_program prog);
#endif
