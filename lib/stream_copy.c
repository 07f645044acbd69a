/* A copy whose destination bypasses the caches (host_copy.c's threads, both directions of
 * the staged path): an ordinary store first reads the destination's line into the cache
 * (read-for-ownership), so a copy moves three bytes through memory per byte copied (read
 * the source, read and write the destination); a streaming (non-temporal) store writes
 * whole lines without reading them, two bytes per byte. Where the host's memory bandwidth
 * is the staged path's limit, that is a third less traffic; doc/performance.md ("Host
 * copies") has the figures. The destination is not read soon after: a pinned buffer that
 * the device's DMA reads next, or the caller's output, far larger than the caches. */
#include "stream_copy.h"
#include <stdint.h>
#include <string.h>

/* Only what the build targets: SSE2 is part of x86-64, AVX where the compiler was told
 * the CPU has it, so no CPU that runs the library lacks an instruction used here. */
#if defined(__AVX__)
#include <immintrin.h>
#define STREAMS 1
typedef __m256i vec;
#define LOAD(p) _mm256_loadu_si256((const __m256i *)(p))
#define STREAM(p, v) _mm256_stream_si256((__m256i *)(p), (v))
#elif defined(__SSE2__)
#include <emmintrin.h>
#define STREAMS 1
typedef __m128i vec;
#define LOAD(p) _mm_loadu_si128((const __m128i *)(p))
#define STREAM(p, v) _mm_stream_si128((__m128i *)(p), (v))
#else
#define STREAMS 0
#endif

#define LINE 64

#if STREAMS
/* Whole lines from a line-aligned dst: all of a line's stores together, so the
 * write-combining buffer sends the line to memory as one write. */
static void stream_lines(char *dst, const char *src, size_t lines)
{
    enum { PER_LINE = LINE / sizeof(vec) };
    for (size_t i = 0; i < lines; i++, dst += LINE, src += LINE) {
        vec v[PER_LINE];
        for (int k = 0; k < PER_LINE; k++)
            v[k] = LOAD(src + k * sizeof(vec));
        for (int k = 0; k < PER_LINE; k++)
            STREAM(dst + k * sizeof(vec), v[k]);
    }
}
#endif

int dmlcl__stream_copy_streams(void) { return STREAMS; }

/* The bytes before dst's first line boundary and after its last one go by memcpy (they
 * share lines with bytes that are not ours to write whole); the fence makes the streamed
 * stores visible to other threads and devices before the caller says the copy is done. */
void dmlcl__stream_copy(void *dst, const void *src, size_t n)
{
#if STREAMS
    char *d = dst;
    const char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & (LINE - 1));
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    const size_t lines = n / LINE;
    stream_lines(d, s, lines);
    memcpy(d + lines * LINE, s + lines * LINE, n - lines * LINE);
    _mm_sfence();
#else
    memcpy(dst, src, n);
#endif
}
