/* Specialised programs built off the caller's path: see specialize.h. */
#include "core/specialize.h"
#include "core/context.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dmlcl__builds_init(dmlcl__builds *b)
{
    memset(b, 0, sizeof *b);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->idle, NULL);
}

void dmlcl__builds_finish(dmlcl__builds *b)
{
    pthread_mutex_lock(&b->lock);
    while (b->running)
        pthread_cond_wait(&b->idle, &b->lock);
    pthread_mutex_unlock(&b->lock);
    pthread_cond_destroy(&b->idle);
    pthread_mutex_destroy(&b->lock);
}

void dmlcl_test_wait_builds(dmlcl_context *c)
{
    pthread_mutex_lock(&c->builds.lock);
    while (c->builds.running)
        pthread_cond_wait(&c->builds.idle, &c->builds.lock);
    pthread_mutex_unlock(&c->builds.lock);
}

dmlcl_status dmlcl__spec_mode_get(dmlcl__spec_mode *mode)
{
    const char *v = getenv("DMLCL_SPECIALIZE");
    *mode = DMLCL__SPEC_BACKGROUND;
    if (!v || !*v || !strcmp(v, "background"))
        return DMLCL_SUCCESS;
    if (!strcmp(v, "sync"))
        *mode = DMLCL__SPEC_SYNC;
    else if (!strcmp(v, "off"))
        *mode = DMLCL__SPEC_OFF;
    else
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "DMLCL_SPECIALIZE='%s': must be background, "
                           "sync or off", v);
    return DMLCL_SUCCESS;
}

static uint64_t program_key(const char *file, const char *options)
{
    return dmlcl__hash64(options, strlen(options), dmlcl__hash64(file, strlen(file), 0));
}

typedef struct job {
    dmlcl_context *c;
    const char *file;
    uint64_t key;
    char options[1024]; /* complete, read on the caller's thread (the environment too) */
} job;

/* Caller holds b->lock. The slot of spec key `key`, or NULL. */
static int *spec_state(dmlcl__builds *b, uint64_t key)
{
    for (unsigned i = 0; i < b->n_spec; i++)
        if (b->spec[i].key == key)
            return &b->spec[i].state;
    return NULL;
}

/* The build's thread: compiles the program into the caches (memory and disk), then says
 * so. The context outlives it: its last release waits for the builds in flight. */
static void *build(void *arg)
{
    job *j = arg;
    dmlcl__builds *b = &j->c->builds;
    const uint64_t key = j->key;
    cl_program prog = NULL;
    if (dmlcl__program_full(j->c, j->file, j->options, DMLCL__REACH_COMPILE, &prog) == 0 && prog)
        clReleaseProgram(prog);
    dmlcl__free(j); /* before the waiters may go on and the process end */
    pthread_mutex_lock(&b->lock);
    int *state = spec_state(b, key);
    if (state)
        *state = 2;
    __atomic_add_fetch(&b->finished, 1, __ATOMIC_RELEASE);
    if (--b->running == 0)
        pthread_cond_broadcast(&b->idle);
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* Caller holds b->lock. Whether generic program `gkey` may have another specialisation
 * (counting it), within the bound. */
static int within_bound(dmlcl__builds *b, uint64_t gkey)
{
    unsigned i = 0;
    while (i < b->n_generic && b->per_generic[i].key != gkey)
        i++;
    if (i == b->n_generic) {
        if (i == DMLCL__SPEC_SLOTS)
            return 0;
        b->per_generic[b->n_generic++].key = gkey;
        b->per_generic[i].n = 0;
    }
    if (b->per_generic[i].n >= DMLCL__SPEC_PER_GENERIC)
        return 0;
    b->per_generic[i].n++;
    return 1;
}

/* Starts (or joins) the build of `spec`; 1 if it is in flight for s to wait on. */
static int start(dmlcl_context *c, const char *file, const char *generic, const char *spec)
{
    dmlcl__builds *b = &c->builds;
    const uint64_t key = program_key(file, spec);
    int waiting = 0;
    pthread_mutex_lock(&b->lock);
    int *state = spec_state(b, key);
    if (state) {
        waiting = *state == 1; /* ended without reaching the cache: not again */
    } else if (b->n_spec < DMLCL__SPEC_SLOTS && within_bound(b, program_key(file, generic))) {
        job *j = dmlcl__malloc(sizeof *j);
        pthread_attr_t attr;
        pthread_t t;
        if (j && dmlcl__full_options(c, spec, j->options, sizeof j->options) == 0 &&
            pthread_attr_init(&attr) == 0) {
            j->c = c;
            j->file = file;
            j->key = key;
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            b->spec[b->n_spec].key = key;
            b->spec[b->n_spec].state = 1;
            b->running++;
            if (pthread_create(&t, &attr, build, j) == 0) {
                b->n_spec++;
                waiting = 1;
                j = NULL;
            } else {
                b->running--;
            }
            pthread_attr_destroy(&attr);
        }
        dmlcl__free(j);
    }
    pthread_mutex_unlock(&b->lock);
    return waiting;
}

dmlcl_status dmlcl__kernel_tiered(dmlcl_context *c, dmlcl__kernel_share *share,
                                  const char *file, const char *generic, const char *spec,
                                  const char *name, cl_kernel *out, int *took, dmlcl__spec *s)
{
    dmlcl__spec_mode mode;
    dmlcl_status st;
    memset(s, 0, sizeof *s);
    *took = 0;
    *out = NULL;
    if (!spec || !strcmp(spec, generic) || strlen(spec) >= sizeof s->options)
        return dmlcl__kernel_get(c, share, file, generic, name, out);
    if ((st = dmlcl__spec_mode_get(&mode)))
        return st;
    if (mode == DMLCL__SPEC_OFF)
        return dmlcl__kernel_get(c, share, file, generic, name, out);
    const dmlcl__reach reach = mode == DMLCL__SPEC_SYNC ? DMLCL__REACH_COMPILE : DMLCL__REACH_DISK;
    if ((st = dmlcl__kernel_reach(c, share, file, spec, name, reach, out)) || *out) {
        *took = *out != NULL;
        return st;
    }
    if ((st = dmlcl__kernel_get(c, share, file, generic, name, out)))
        return st;
    if (start(c, file, generic, spec)) {
        s->pending = 1;
        s->file = file;
        s->name = name;
        snprintf(s->options, sizeof s->options, "%s", spec);
        s->seen = __atomic_load_n(&c->builds.finished, __ATOMIC_ACQUIRE);
    }
    return DMLCL_SUCCESS;
}

int dmlcl__spec_poll(dmlcl_context *c, dmlcl__spec *s, cl_kernel *out)
{
    *out = NULL;
    if (!s->pending)
        return 0;
    const unsigned f = __atomic_load_n(&c->builds.finished, __ATOMIC_ACQUIRE);
    if (f == s->seen)
        return 0;
    s->seen = f;
    if (dmlcl__kernel_reach(c, NULL, s->file, s->options, s->name, DMLCL__REACH_MEMORY,
                            out) == 0 &&
        *out) {
        s->pending = 0;
        return 1;
    }
    pthread_mutex_lock(&c->builds.lock);
    const int *state = spec_state(&c->builds, program_key(s->file, s->options));
    s->pending = state && *state == 1;
    pthread_mutex_unlock(&c->builds.lock);
    return 0;
}
