/* Fields: one rank's ghosted device buffer, its owned box inside, and copies of boxes
 * between it and host memory. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int fail_next_alloc; /* dmlcl_mpi_test_fail_next_alloc */

void dmlcl_mpi_test_fail_next_alloc(int on) { fail_next_alloc = on; }

/* The rules one rank checks alone, before any MPI work (buffer queries excepted). */
static dmlcl_status validate(const dmlcl_mpi_field *f, const dmlcl_buffer_binding *buffer)
{
    const uint64_t bytes = box_count(&f->ghost) * f->layout->elem;
    char a[200];
    if (!bytes)
        return DMLCL_SUCCESS; /* nothing owned or read here: no buffer */
    if (buffer) {
        cl_context cl = NULL;
        size_t size = 0;
        if (!buffer->buffer)
            return mpil_fail(DMLCL_INVALID_ARGUMENT, "buffer->buffer is NULL");
        cl_int err = clGetMemObjectInfo(buffer->buffer, CL_MEM_CONTEXT, sizeof cl, &cl, NULL);
        if (err == CL_SUCCESS)
            err = clGetMemObjectInfo(buffer->buffer, CL_MEM_SIZE, sizeof size, &size, NULL);
        if (err != CL_SUCCESS)
            return mpil_cl_fail("clGetMemObjectInfo (buffer)", err);
        if (cl != dmlcl_context_cl_context(f->ctx))
            return mpil_fail(DMLCL_INVALID_ARGUMENT, "buffer is not of the context's cl_context");
        if (buffer->offset % f->layout->elem)
            return mpil_fail(DMLCL_INVALID_ARGUMENT,
                             "buffer->offset %llu is not a multiple of the element size %u",
                             (unsigned long long)buffer->offset, f->layout->elem);
        uint64_t usable = buffer->offset > size ? 0 : size - buffer->offset;
        if (buffer->size_in_bytes && buffer->size_in_bytes < usable)
            usable = buffer->size_in_bytes;
        if (usable < bytes)
            return mpil_fail(DMLCL_INVALID_ARGUMENT,
                             "buffer too small: the ghost box %s needs %llu bytes from offset "
                             "%llu, the buffer holds %llu",
                             box_text(&f->ghost, a, sizeof a), (unsigned long long)bytes,
                             (unsigned long long)buffer->offset, (unsigned long long)usable);
        return DMLCL_SUCCESS;
    }
    cl_ulong max_alloc = 0;
    cl_int err = clGetDeviceInfo(dmlcl_context_device(f->ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                 sizeof max_alloc, &max_alloc, NULL);
    if (err != CL_SUCCESS)
        return mpil_cl_fail("clGetDeviceInfo (CL_DEVICE_MAX_MEM_ALLOC_SIZE)", err);
    if (bytes > max_alloc)
        return mpil_fail(DMLCL_OUT_OF_MEMORY,
                         "the ghosted buffer of %s needs %llu bytes, over the device's "
                         "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu): cut the field finer",
                         box_text(&f->ghost, a, sizeof a), (unsigned long long)bytes,
                         (unsigned long long)max_alloc);
    return DMLCL_SUCCESS;
}

/* The fill's commands: a pattern of 128 zero bytes, at most 2^30 bytes a command, the
 * last bytes (under 128) written. NVIDIA's OpenCL (H200, driver 580) fails a fill whose
 * end, counted in patterns, passes 2^31: a 1-byte pattern over 2 GiB + 2 MiB ended with
 * CL_INVALID_COMMAND_QUEUE after 85-108 s, and 4-byte patterns in commands of 1 GiB
 * passed at 8 GiB but failed at 16 GiB (CL_UNKNOWN_ERROR, -9999, at clFinish), leaving
 * the process unable to fill again; with 128-byte patterns the count stays under 2^31 up
 * to 256 GiB, past any buffer a device allows (tests/mpi/fill_probe shows each; doc/mpi.md,
 * "Large fields"). */
#define FILL_CHUNK ((uint64_t)1 << 30)
#define FILL_PATTERN 128

/* Allocates the ghosted buffer and touches it (a fill of zeros): drivers that allocate on
 * first use would otherwise report a device out of memory at the first step instead of
 * here. Ghosts nobody writes then read as 0, the same on every run. */
static dmlcl_status allocate(dmlcl_mpi_field *f)
{
    const uint64_t bytes = box_count(&f->ghost) * f->layout->elem;
    cl_int err = CL_SUCCESS;
    if (fail_next_alloc) {
        fail_next_alloc = 0;
        return mpil_fail(DMLCL_OUT_OF_MEMORY,
                         "clCreateBuffer: CL_MEM_OBJECT_ALLOCATION_FAILURE for %llu bytes "
                         "(dmlcl_mpi_test_fail_next_alloc)",
                         (unsigned long long)bytes);
    }
    f->buffer = clCreateBuffer(dmlcl_context_cl_context(f->ctx), CL_MEM_READ_WRITE, bytes, NULL,
                               &err);
    if (err != CL_SUCCESS)
        return mpil_cl_fail("clCreateBuffer (ghosted buffer)", err);
    f->owns_buffer = 1;
    static const unsigned char zeros[FILL_PATTERN];
    const uint64_t bulk = bytes / FILL_PATTERN * FILL_PATTERN;
    cl_command_queue q = dmlcl_context_queue(f->ctx);
    for (uint64_t at = 0; at < bulk && err == CL_SUCCESS; at += FILL_CHUNK)
        err = clEnqueueFillBuffer(q, f->buffer, zeros, FILL_PATTERN, at,
                                  bulk - at < FILL_CHUNK ? bulk - at : FILL_CHUNK, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return mpil_cl_fail("clEnqueueFillBuffer (ghosted buffer)", err);
    if (bytes > bulk && (err = clEnqueueWriteBuffer(q, f->buffer, CL_FALSE, bulk, bytes - bulk,
                                                    zeros, 0, NULL, NULL)) != CL_SUCCESS)
        return mpil_cl_fail("clEnqueueWriteBuffer (ghosted buffer's last bytes)", err);
    return mpil_finish(q, "dmlcl_mpi_field_create: clEnqueueFillBuffer (ghosted buffer)");
}

void dmlcl_mpi_field_release(dmlcl_mpi_field *f)
{
    if (!f)
        return;
    if (f->ctx)
        exchange_free(&f->ex, dmlcl_context_queue(f->ctx));
    if (f->buffer && f->owns_buffer)
        clReleaseMemObject(f->buffer);
    free(f);
}

dmlcl_status field_create(dmlcl_context *context, const dmlcl_mpi_layout *layout,
                          const box *needed_all, dmlcl_status found, int profile,
                          const dmlcl_buffer_binding *buffer, dmlcl_mpi_field **out)
{
    if (out)
        *out = NULL;
    dmlcl_mpi_field *f = calloc(1, sizeof *f);
    dmlcl_status st = found;
    if (st != DMLCL_SUCCESS) {
        /* the caller's failure, agreed below */
    } else if (!f || !needed_all) {
        st = mpil_fail(DMLCL_OUT_OF_MEMORY, "out of host memory");
    } else if (!context || !out) {
        st = mpil_fail(DMLCL_INVALID_ARGUMENT, "%s is NULL", context ? "out" : "context");
    } else {
        f->ctx = context;
        f->layout = layout;
        f->tag = layout->fields;
        f->ex.profile = profile;
        dmlcl_mpi_layout_box(layout, -1, &f->owned);
        f->needed = needed_all[layout->rank];
        box_hull(&f->owned, &f->needed, &f->ghost);
        uint64_t s = 1;
        for (uint32_t d = layout->dims; d-- > 0;)
            f->stride[d] = s, s *= f->ghost.sizes[d];
        st = validate(f, buffer);
    }
    /* Every rank runs the same collectives: the count of fields (the message tag) moves on
     * whatever happens. */
    ((dmlcl_mpi_layout *)layout)->fields++;
    if ((st = mpil_agree(layout->comm, "dmlcl_mpi_field_create", st)) != DMLCL_SUCCESS)
        goto fail;
    if (box_count(&f->ghost)) {
        if (buffer) {
            f->buffer = buffer->buffer;
            f->offset = buffer->offset;
        } else {
            st = allocate(f);
        }
    }
    if (st == DMLCL_SUCCESS)
        st = exchange_plan(f, needed_all);
    if ((st = mpil_agree(layout->comm, "dmlcl_mpi_field_create", st)) != DMLCL_SUCCESS)
        goto fail;
    *out = f;
    return DMLCL_SUCCESS;
fail:
    dmlcl_mpi_field_release(f);
    return st;
}

cl_mem dmlcl_mpi_field_buffer(const dmlcl_mpi_field *f, dmlcl_mpi_box *ghost,
                              dmlcl_mpi_box *owned, uint64_t *offset)
{
    if (ghost)
        *ghost = f->ghost;
    if (owned)
        *owned = f->owned;
    if (offset)
        *offset = f->offset;
    return f->buffer;
}

/* A blocking copy of the owned box. */
static dmlcl_status owned_copy(dmlcl_mpi_field *f, void *data, int read)
{
    const char *what = read ? "dmlcl_mpi_field_read: clEnqueueReadBufferRect"
                            : "dmlcl_mpi_field_write: clEnqueueWriteBufferRect";
    cl_int err = field_rect(f, dmlcl_context_queue(f->ctx), &f->owned, data, read, NULL, NULL);
    return err == CL_SUCCESS ? mpil_finish(dmlcl_context_queue(f->ctx), what)
                             : mpil_cl_fail(what, err);
}

dmlcl_status dmlcl_mpi_field_write(dmlcl_mpi_field *f, const void *owned_data)
{
    return owned_copy(f, (void *)owned_data, 0);
}

dmlcl_status dmlcl_mpi_field_read(dmlcl_mpi_field *f, void *owned_data)
{
    return owned_copy(f, owned_data, 1);
}

void dmlcl_mpi_field_halo_stats(const dmlcl_mpi_field *f, dmlcl_mpi_halo_stats *stats)
{
    *stats = f->stats;
}
