/* A fresh array's pages faulted in on other threads while the caller's thread does other
 * work (`dmlcl run` reads its inputs meanwhile). Each first write to a fresh anonymous
 * page costs the kernel a fault and a zeroing; done here, they are not paid inside the
 * operator's run, one page at a time, by the threads that write the output. */
#ifndef DMLCL_TOOLS_PREFAULT_H
#define DMLCL_TOOLS_PREFAULT_H

#include <pthread.h>
#include <stddef.h>

#define PREFAULT_THREADS_MAX 4

typedef struct prefault_part {
    char *begin, *end;
    size_t page;
} prefault_part;

typedef struct prefault {
    pthread_t threads[PREFAULT_THREADS_MAX];
    prefault_part parts[PREFAULT_THREADS_MAX];
    int started[PREFAULT_THREADS_MAX];
    int n;
} prefault;

/* Starts min(4, online cores) threads that each write one byte of every page of their
 * part of data[0, bytes) (memory the caller overwrites entirely later: the byte's value
 * is lost). A part whose thread cannot start is touched by prefault_join. Returns the
 * number of threads started. */
int prefault_start(prefault *p, void *data, size_t bytes);

/* Waits for the threads (and touches the parts no thread took). */
void prefault_join(prefault *p);

#endif
