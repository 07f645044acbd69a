/* Faulting in a fresh array's pages on a few threads (see prefault.h). */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "config.h"
#include "prefault.h"
#include <unistd.h>

/* Parts begin on 2 MiB boundaries, so that no transparent huge page is faulted by two
 * threads at once (they would wait on each other in the kernel). */
#define PART_ALIGN ((size_t)2 << 20)

static void *touch(void *arg)
{
    const prefault_part *t = arg;
    for (volatile char *c = t->begin; c < t->end; c += t->page)
        *c = 0;
    return NULL;
}

int prefault_start(prefault *p, void *data, size_t bytes)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
    int n = cores < 1 ? 1 : cores > PREFAULT_THREADS_MAX ? PREFAULT_THREADS_MAX : (int)cores;
    size_t each = (bytes / (size_t)n + PART_ALIGN - 1) / PART_ALIGN * PART_ALIGN;
    char *c = data, *end = c + bytes;
    p->n = 0;
    int started = 0;
    for (int i = 0; i < n && c < end; i++, p->n++) {
        prefault_part *t = &p->parts[i];
        t->begin = c;
        t->end = (size_t)(end - c) > each ? c + each : end;
        t->page = page > 0 ? (size_t)page : 4096;
        c = t->end;
        p->started[i] = !pthread_create(&p->threads[i], NULL, touch, t);
        started += p->started[i];
    }
    return started;
}

void prefault_join(prefault *p)
{
    for (int i = 0; i < p->n; i++) {
        if (p->started[i])
            pthread_join(p->threads[i], NULL);
        else
            touch(&p->parts[i]);
    }
    p->n = 0;
}
