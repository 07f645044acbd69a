/* memcpy with streaming stores where the build targets them (stream_copy.c), for
 * destinations not read again soon. No OpenCL: tools/bench/copy_bench links it alone. */
#ifndef DMLCL_STREAM_COPY_H
#define DMLCL_STREAM_COPY_H
#include <stddef.h>

void dmlcl__stream_copy(void *dst, const void *src, size_t n);
/* 1 where dmlcl__stream_copy streams, 0 where it is a plain memcpy. */
int dmlcl__stream_copy_streams(void);
#endif
