/* On-disk program cache: TEMPORARY placeholder until the persistent cache lands
 * (issue 6); every lookup is a miss. */
#include "disk_cache.h"

int dmlcl__disk_load(dmlcl_context *c, uint64_t source_hash, const char *options, cl_program *out)
{
    return -1;
}

void dmlcl__disk_store(dmlcl_context *c, uint64_t source_hash, const char *options, cl_program prog)
{
}

const char *dmlcl_cache_directory(void) { return NULL; }
