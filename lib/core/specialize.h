/* Specialised programs built off the caller's path (specialize.c).
 *
 * Some CPU and GPU kernels run fastest with constants of the operator's own scale and
 * offsets compiled in (the lane patterns of the CPU row blocks and the tap segments, the
 * GPUs' window and row pairs). Compiling such a program costs 0.1-2 s, and a scale seen
 * for the first time would pay it on the caller's path. So an operator whose specialised
 * program is in neither cache starts with the generic program of its family, layout,
 * type and mode (one per such combination: shapes, strides, scales and offsets are its
 * arguments), the specialised one is built on a thread of its own, and the operator takes
 * it at the first execution after it is ready; the disk cache keeps it for later
 * processes. Both compute the same bits (the tests compare them).
 *
 * $DMLCL_SPECIALIZE: "background" (the default), "sync" (build it on the caller's path, as
 * a benchmark of the specialised program wants) or "off" (the generic program only).
 * Builds are bounded: at most DMLCL__SPEC_PER_GENERIC specialised programs are compiled
 * per generic program and context (random scales would otherwise keep a core busy
 * compiling); past that, operators keep the generic program unless the specialised one
 * is already cached. */
#ifndef DMLCL_CORE_SPECIALIZE_H
#define DMLCL_CORE_SPECIALIZE_H
#include "core/base.h"
#include <pthread.h>

enum { DMLCL__SPEC_PER_GENERIC = 8, DMLCL__SPEC_SLOTS = 64 };

typedef enum dmlcl__spec_mode {
    DMLCL__SPEC_BACKGROUND,
    DMLCL__SPEC_SYNC,
    DMLCL__SPEC_OFF
} dmlcl__spec_mode;

/* A context's builds: those in flight, and how many each generic program has had. */
typedef struct dmlcl__builds {
    pthread_mutex_t lock;
    pthread_cond_t idle;  /* signalled as `running` drops to 0 */
    unsigned running;
    unsigned finished;    /* builds ended so far: operators poll only when it moves */
    struct {
        uint64_t key;     /* hash of the specialised program's file and options */
        int state;        /* 1 building, 2 ended (built, or failed: then never ready) */
    } spec[DMLCL__SPEC_SLOTS];
    unsigned n_spec;
    struct {
        uint64_t key;     /* hash of the generic program's file and options */
        unsigned n;
    } per_generic[DMLCL__SPEC_SLOTS];
    unsigned n_generic;
} dmlcl__builds;

void dmlcl__builds_init(dmlcl__builds *b);
/* Waits for the builds in flight, then frees b (the context's last release). */
void dmlcl__builds_finish(dmlcl__builds *b);

/* An operator's specialised program, while it waits for it. */
typedef struct dmlcl__spec {
    int pending;
    const char *file, *name; /* static strings */
    char options[640];
    unsigned seen;           /* builds->finished when last polled */
} dmlcl__spec;

/* $DMLCL_SPECIALIZE, DMLCL__SPEC_BACKGROUND when unset; a bad value is an error. */
dmlcl_status dmlcl__spec_mode_get(dmlcl__spec_mode *mode);

/* At creation: *out is the specialised kernel (options `spec`) where it is cached or the
 * mode builds it here (*took = 1), else the generic one (`generic`, built here if need
 * be; *took = 0) and, in the background mode and within the bound, a build of the
 * specialised program starts and *s records it. spec NULL or equal to generic: the
 * generic kernel, nothing pending. share: as dmlcl__kernel_get's. */
struct dmlcl__kernel_share; /* core/context.h */
dmlcl_status dmlcl__kernel_tiered(dmlcl_context *c, struct dmlcl__kernel_share *share,
                                  const char *file, const char *generic, const char *spec,
                                  const char *name, cl_kernel *out, int *took, dmlcl__spec *s);

/* At an execution (the operator locked): 1 and *out the specialised kernel where its
 * build has ended since and succeeded (s->pending cleared); 0 otherwise (s->pending is
 * cleared too where it never will). Cheap while nothing has changed: one atomic load. */
int dmlcl__spec_poll(dmlcl_context *c, dmlcl__spec *s, cl_kernel *out);

/* Test hook: waits until c has no build in flight. */
void dmlcl_test_wait_builds(dmlcl_context *c);

#endif
