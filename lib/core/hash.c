/* FNV-1a, 64-bit: cache keys and kernel-source identity. Not cryptographic; the disk cache
 * also stores and compares the full key text, so a collision cannot load a wrong program. */
#include "core/base.h"

uint64_t dmlcl__hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed ? seed : 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
