/* The staged path's host copies (lib/stream_copy.c, lib/host_copy.c) byte for byte: the
 * streaming copy writes whole destination lines with streaming stores and the bytes
 * before the first line boundary and after the last with memcpy, so every size and
 * misalignment that moves those edges is copied here, each byte checked, and the bytes
 * around the destination checked untouched. No OpenCL. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "operator.h"
#include "stream_copy.h"

#define GUARD 64  /* bytes either side of the destination that must keep their poison */
#define POISON 0xA5

static const size_t sizes[] = {0, 1, 15, 16, 17, 31, 32, 63, 64, 65, 127, 4095, 4096,
                               (1u << 20) + 3};
static const size_t offsets[] = {0, 1, 7, 15, 16, 33, 63};
#define COUNT(a) (sizeof(a) / sizeof *(a))

/* A source with no byte equal to the poison (a byte left uncopied always shows), whose
 * bytes vary along lines and from line to line. */
static unsigned char *pattern(size_t n)
{
    unsigned char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)(i * 131u + (i >> 8) * 7u + 1u);
        p[i] = p[i] == POISON ? 0x5A : p[i];
    }
    return p;
}

/* dst[0, n) equals src, and the GUARD bytes before and after dst are still POISON (the
 * first difference is found before asserting: Check records every assertion it passes). */
static void check_copy(const unsigned char *dst, const unsigned char *src, size_t n,
                       const char *what, size_t so, size_t d_o)
{
    size_t i = 0, before = 0, after = 0;
    while (i < n && dst[i] == src[i])
        i++;
    while (before < GUARD && dst[-1 - (ptrdiff_t)before] == POISON)
        before++;
    while (after < GUARD && dst[n + after] == POISON)
        after++;
    ck_assert_msg(i == n, "%s of %zu bytes (source offset %zu, destination offset %zu): "
                  "byte %zu is %u, not %u", what, n, so, d_o, i, i < n ? dst[i] : 0,
                  i < n ? src[i] : 0);
    ck_assert_msg(before == GUARD && after == GUARD, "%s of %zu bytes (source offset %zu, "
                  "destination offset %zu) wrote outside its destination: byte -%zu or "
                  "byte %zu", what, n, so, d_o, before + 1, n + after);
}

/* On x86-64 the build targets SSE2 at least: the copy streams, or this file tests only
 * memcpy. */
START_TEST(streams_where_the_build_can)
{
#if defined(__x86_64__)
    ck_assert_int_eq(dmlcl__stream_copy_streams(), 1);
#else
    ck_assert_int_ge(dmlcl__stream_copy_streams(), 0);
#endif
}
END_TEST

START_TEST(stream_copy_every_byte_at_every_misalignment)
{
    /* aligned_alloc takes a size that is a multiple of the alignment (C11; ASan checks) */
    const size_t max = sizes[COUNT(sizes) - 1];
    const size_t span = (max + 2 * GUARD + 64 + 63) & ~(size_t)63;
    unsigned char *src = pattern(max + 64), *buf = aligned_alloc(64, span);
    ck_assert_ptr_nonnull(buf);
    for (size_t s = 0; s < COUNT(sizes); s++)
        for (size_t a = 0; a < COUNT(offsets); a++)
            for (size_t b = 0; b < COUNT(offsets); b++) {
                unsigned char *dst = buf + GUARD + offsets[b];
                memset(buf, POISON, span);
                dmlcl__stream_copy(dst, src + offsets[a], sizes[s]);
                check_copy(dst, src + offsets[a], sizes[s], "dmlcl__stream_copy", offsets[a],
                           offsets[b]);
            }
    free(buf);
    free(src);
}
END_TEST

/* The copier cuts a copy into parts of whole 64-byte lines counted from the copy's start,
 * so a misaligned destination gives every part a head and a tail of its own; both copy
 * modes, on 1 to 5 threads (a part is at least 64 KiB: 1 MiB + 3 bytes uses them all). */
START_TEST(copier_every_byte_on_threads)
{
    const size_t n = (1u << 20) + 3, span = (n + 2 * GUARD + 64 + 63) & ~(size_t)63;
    unsigned char *src = pattern(n + 64), *buf = aligned_alloc(64, span);
    ck_assert_ptr_nonnull(buf);
    for (int threads = 1; threads <= 5; threads++) {
        dmlcl__copier *c = NULL;
        ck_assert_int_eq(dmlcl__copier_start(&c, threads, n), DMLCL_SUCCESS);
        for (int stream = 0; stream <= 1; stream++)
            for (size_t a = 0; a < COUNT(offsets); a++) {
                const size_t d_o = offsets[COUNT(offsets) - 1 - a];
                unsigned char *dst = buf + GUARD + d_o;
                char what[64];
                snprintf(what, sizeof what, "the copier (%s, %d threads)",
                         stream ? "streaming" : "memcpy", threads);
                memset(buf, POISON, span);
                dmlcl__copier_copy(c, dst, src + offsets[a], n, stream);
                check_copy(dst, src + offsets[a], n, what, offsets[a], d_o);
            }
        dmlcl__copier_stop(c);
    }
    free(buf);
    free(src);
}
END_TEST

/* $DMLCL_HOST_COPY picks the directions that stream; anything else is refused by name
 * with the values it takes (execute_host checks it before copying: tests/check_host.c). */
START_TEST(host_copy_mode_from_the_environment)
{
    static const struct {
        const char *value;
        int up, down;
    } modes[] = {{NULL, 0, 1},        {"", 0, 1},
                 {"auto", 0, 1},      {"stream", 1, 1},
                 {"memcpy", 0, 0},    {"stream-upload", 1, 0},
                 {"stream-download", 0, 1}};
    for (size_t i = 0; i < COUNT(modes); i++) {
        int up = -1, down = -1;
        if (modes[i].value)
            setenv("DMLCL_HOST_COPY", modes[i].value, 1);
        else
            unsetenv("DMLCL_HOST_COPY");
        ck_assert_int_eq(dmlcl__host_copy_mode(&up, &down), DMLCL_SUCCESS);
        ck_assert_int_eq(up, modes[i].up);
        ck_assert_int_eq(down, modes[i].down);
    }
    int up, down;
    setenv("DMLCL_HOST_COPY", "nt", 1);
    ck_assert_int_eq(dmlcl__host_copy_mode(&up, &down), DMLCL_INVALID_ARGUMENT);
    ck_assert_str_eq(dmlcl_last_error(), "DMLCL_HOST_COPY must be auto, stream, stream-upload, "
                                         "stream-download or memcpy, got 'nt'");
    unsetenv("DMLCL_HOST_COPY");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_copy");
    TCase *tc = tcase_create("copies");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, streams_where_the_build_can);
    tcase_add_test(tc, stream_copy_every_byte_at_every_misalignment);
    tcase_add_test(tc, copier_every_byte_on_threads);
    tcase_add_test(tc, host_copy_mode_from_the_environment);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
