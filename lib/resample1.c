/* RESAMPLE1, RESAMPLE (v0) and RESAMPLE2 (RESAMPLE1 with a nearest rounding direction):
 * validation, planning, coordinate tables and dispatch. */
#include "plan.h"
#include "resample.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct r1_impl {
    dmlcl__resample1_plan plan;
    cl_kernel kernel;
    cl_mem table; /* the coordinate tables; NULL when nothing is resampled */
} r1_impl;

/* Host mirror of the kernel's resample1_args. */
typedef struct {
    cl_ulong units, chunks, chunks_mul, chunks_shr;
    cl_ulong np, nr, pass_inner;
    cl_ulong inner_k, inner_size, inner_in, inner_out, inner_tab, inner_nin, gtab;
    cl_ulong vec_ok, vec_in;
    cl_ulong rows;
    cl_ulong seg;
    cl_ulong skip_p, skip_r;
    cl_ulong size2, in2, out2, tab2;
    cl_ulong psize[8], pin[8], pout[8], pmul[8], pshr[8];
    cl_ulong rsize[8], rin[8], rout[8], rtab[8], rmul[8], rshr[8];
} r1_args;

/* Test hook (not in any public header): forces 64-bit index arithmetic, so the tests run
 * the IDX64 kernels on tensors small enough to allocate (RESAMPLE1 family and the tap
 * kernels). */
static int force_idx64;
void dmlcl_test_resample_force_idx64(int on);
void dmlcl_test_resample_force_idx64(int on)
{
    __atomic_store_n(&force_idx64, on, __ATOMIC_SEQ_CST);
}

int dmlcl__resample_idx64_forced(void)
{
    return __atomic_load_n(&force_idx64, __ATOMIC_SEQ_CST);
}

/* ---- validation: every rule, before any OpenCL call ---------------------------------- */

int dmlcl__resample_type_ok(dmlcl_tensor_data_type t)
{
    return t == DMLCL_TENSOR_DATA_TYPE_FLOAT32 || t == DMLCL_TENSOR_DATA_TYPE_FLOAT16 ||
           t == DMLCL_TENSOR_DATA_TYPE_FLOAT64 || t == DMLCL_TENSOR_DATA_TYPE_INT8 ||
           t == DMLCL_TENSOR_DATA_TYPE_UINT8;
}

/* name: "resample1" or "resample"; count_field: "dimension_count" or "scale_count". */
static dmlcl_status check_tensors(dmlcl_operator *op, const char *name, const char *count_field,
                                  const dmlcl_resample1_desc *d)
{
    dmlcl__tensor *in = &op->in[0], *out = &op->out[0];
    dmlcl_status st;
    if ((st = dmlcl__tensor_check(name, "input_tensor", d->input_tensor, in)) ||
        (st = dmlcl__tensor_check(name, "output_tensor", d->output_tensor, out)))
        return st;
    if (out->rank != in->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: output_tensor dimension_count must equal input_tensor's (%u), "
                           "got %u", name, in->rank, out->rank);
    if (d->dimension_count != in->rank)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: %s must equal the tensors' dimension_count (%u), got %u", name,
                           count_field, in->rank, d->dimension_count);
    if (out->type != in->type)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: output_tensor data_type must equal input_tensor's (%s), got %s",
                           name, dmlcl__type_name(in->type), dmlcl__type_name(out->type));
    if (!dmlcl__resample_type_ok(in->type))
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: input_tensor data_type must be FLOAT32, FLOAT16, FLOAT64, INT8 "
                           "or UINT8, got %s", name, dmlcl__type_name(in->type));
    return DMLCL_SUCCESS;
}

static dmlcl_status check_array(const char *name, const char *field, const float *v, uint32_t n,
                                int is_scale)
{
    if (!v)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s is NULL (it needs %u values)", name,
                           field, n);
    for (uint32_t i = 0; i < n; i++) {
        if (is_scale && !(isfinite(v[i]) && v[i] > 0))
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s[%u] must be finite and > 0, got %g",
                               name, field, i, (double)v[i]);
        if (!is_scale && !isfinite(v[i]))
            return dmlcl__fail(DMLCL_INVALID_ARGUMENT, "%s: %s[%u] must be finite, got %g", name,
                               field, i, (double)v[i]);
    }
    return DMLCL_SUCCESS;
}

static dmlcl_status validate(dmlcl_operator *op, const char *name, const char *count_field,
                             const dmlcl_resample1_desc *d)
{
    dmlcl_status st = check_tensors(op, name, count_field, d);
    if (st)
        return st;
    if (d->interpolation_mode != DMLCL_INTERPOLATION_MODE_NEAREST_NEIGHBOR &&
        d->interpolation_mode != DMLCL_INTERPOLATION_MODE_LINEAR)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: interpolation_mode must be 0 (NEAREST_NEIGHBOR) or 1 (LINEAR), "
                           "got %d", name, (int)d->interpolation_mode);
    uint32_t n = d->dimension_count;
    if ((st = check_array(name, "scales", d->scales, n, 1)) ||
        (st = check_array(name, "input_pixel_offsets", d->input_pixel_offsets, n, 0)) ||
        (st = check_array(name, "output_pixel_offsets", d->output_pixel_offsets, n, 0)) ||
        (st = dmlcl__tensor_check_no_alias(name, "output_tensor", &op->out[0])) ||
        (st = dmlcl__resample_place_tiles(op, name, "input_tensor", "output_tensor")))
        return st;
    /* No context: the halo query, which needs no device. */
    if (op->in[0].type == DMLCL_TENSOR_DATA_TYPE_FLOAT64 && op->ctx && !op->ctx->info.has_fp64)
        return dmlcl__fail(DMLCL_UNSUPPORTED,
                           "%s: data_type FLOAT64 needs cl_khr_fp64, which the device \"%s\" "
                           "does not support", name, op->ctx->info.name);
    return DMLCL_SUCCESS;
}

dmlcl_status dmlcl__resample1_validate(dmlcl_operator *op, const char *name,
                                       const dmlcl_resample1_desc *d)
{
    return validate(op, name, "dimension_count", d);
}

dmlcl_status dmlcl__resample_check_array(const char *name, const char *field, const float *v,
                                         uint32_t n, int is_scale)
{
    return check_array(name, field, v, n, is_scale);
}

/* ---- dispatch --------------------------------------------------------------------------- */

static cl_ulong shr_of(const dmlcl__fastdiv *f)
{
    return f->sh1 | (cl_ulong)f->sh2 << 8;
}

static void fill_args(const dmlcl__resample1_plan *p, r1_args *a)
{
    memset(a, 0, sizeof *a);
    a->units = p->units;
    a->chunks = p->chunks;
    a->chunks_mul = p->chunks_div.mul;
    a->chunks_shr = shr_of(&p->chunks_div);
    a->np = p->np;
    a->nr = p->nr;
    a->pass_inner = (cl_ulong)p->pass_inner;
    a->inner_k = p->inner_k;
    a->inner_size = p->inner_size;
    a->inner_in = p->inner_in;
    a->inner_out = p->inner_out;
    a->inner_tab = p->inner_tab;
    a->inner_nin = p->inner_nin;
    a->gtab = p->gtab;
    a->rows = p->inner_size ? p->count / p->inner_size : 0;
    a->seg = p->seg;
    /* The outer loops skip the inner dimension (and seg2's second one). */
    a->skip_p = p->inner_res ? DMLCL_MAXDIM : p->inner_k;
    a->skip_r = p->seg2 ? p->inner2_k : p->inner_res ? p->inner_k : DMLCL_MAXDIM;
    a->size2 = p->size2;
    a->in2 = p->in2;
    a->out2 = p->out2;
    a->tab2 = p->tab2;
    for (int d = 0; d < 8; d++) {
        a->psize[d] = d < (int)p->np ? p->psize[d] : 1;
        a->pin[d] = p->pin[d];
        a->pout[d] = p->pout[d];
        a->pmul[d] = p->pdiv[d].mul;
        a->pshr[d] = shr_of(&p->pdiv[d]);
        a->rsize[d] = d < (int)p->nr ? p->rsize[d] : 1;
        a->rin[d] = p->rin[d];
        a->rout[d] = p->rout[d];
        a->rtab[d] = p->rtab[d];
        a->rmul[d] = p->rdiv[d].mul;
        a->rshr[d] = shr_of(&p->rdiv[d]);
    }
    if (p->cpu_rows) { /* the row blocks: rows of the flat row, rows per item, its span */
        a->rows = p->count / (p->inner_res ? p->inner_size : p->inner_size * p->size2);
        a->seg = p->cpu_rows;
        a->inner_nin = p->cpu_span;
    }
    if (p->pair) { /* the pair slot counts groups of rows */
        a->rows = a->rows / p->rsize[p->pair_k] * p->pair_groups;
        a->rsize[p->pair_k] = p->pair_groups;
    }
}

static dmlcl_status r1_enqueue(dmlcl_operator *op, const cl_mem *in, const uint64_t *in_off,
                               const cl_mem *out, const uint64_t *out_off, cl_uint nwait,
                               const cl_event *wait, cl_event *event)
{
    r1_impl *im = op->impl;
    const dmlcl__resample1_plan *p = &im->plan;
    r1_args a;
    fill_args(p, &a);
    a.vec_ok = (cl_ulong)dmlcl__mem_aligned(out[0]);
    a.vec_in = (cl_ulong)dmlcl__mem_aligned(in[0]);
    /* The pass-through maps' fixed input offset rides on the binding offset. */
    cl_ulong offs[2] = {in_off[0] + p->in_base, out_off[0]};
    dmlcl_status st;
    if ((st = dmlcl__set_arg(im->kernel, 0, sizeof(cl_mem), &in[0])) ||
        (st = dmlcl__set_arg(im->kernel, 1, sizeof(cl_ulong), &offs[0])) ||
        (st = dmlcl__set_arg(im->kernel, 2, sizeof(cl_mem), &out[0])) ||
        (st = dmlcl__set_arg(im->kernel, 3, sizeof(cl_ulong), &offs[1])) ||
        (st = dmlcl__set_arg(im->kernel, 4, sizeof(cl_mem), &im->table)) ||
        (st = dmlcl__set_arg(im->kernel, 5, sizeof a, &a)))
        return st;
    if (p->rows_2d)
        return dmlcl__enqueue_2d(op, im->kernel, p->global2, p->local2, nwait, wait, event);
    return dmlcl__enqueue_1d(op, im->kernel, p->global, p->local, nwait, wait, event);
}

static void r1_destroy(dmlcl_operator *op)
{
    r1_impl *im = op->impl;
    if (im && im->kernel)
        clReleaseKernel(im->kernel);
    if (im && im->table)
        clReleaseMemObject(im->table);
    dmlcl__free(im);
    op->impl = NULL;
}

static const dmlcl__op_vtable r1_vtable = {"resample1", r1_enqueue, r1_destroy};
static const dmlcl__op_vtable r0_vtable = {"resample", r1_enqueue, r1_destroy};
static const dmlcl__op_vtable r2_vtable = {"resample2", r1_enqueue, r1_destroy};
static const dmlcl__op_vtable r3_vtable = {"resample3", r1_enqueue, r1_destroy};

/* ---- creation ----------------------------------------------------------------------------- */

/* Builds the tables on the host and uploads them into one read-only buffer. */
static dmlcl_status upload_tables(dmlcl_operator *op, const char *name)
{
    r1_impl *im = op->impl;
    dmlcl__resample1_plan *p = &im->plan; /* fill counts the pairs */
    if (p->table_bytes == 0)
        return DMLCL_SUCCESS;
    if (p->table_bytes > op->ctx->info.max_mem_alloc || p->table_bytes > SIZE_MAX)
        return dmlcl__fail(DMLCL_UNSUPPORTED,
                           "%s: the coordinate tables need %llu bytes, more than the device's "
                           "CL_DEVICE_MAX_MEM_ALLOC_SIZE (%llu)", name,
                           (unsigned long long)p->table_bytes,
                           (unsigned long long)op->ctx->info.max_mem_alloc);
    uint32_t *host = dmlcl__malloc((size_t)p->table_bytes);
    if (!host)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory for the coordinate "
                           "tables (%llu bytes)", name, (unsigned long long)p->table_bytes);
    dmlcl__resample1_fill(p, host);
    cl_int err = CL_SUCCESS;
    im->table = clCreateBuffer(op->ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               (size_t)p->table_bytes, host, &err);
    dmlcl__free(host);
    if (err) {
        im->table = NULL;
        return dmlcl__cl_fail("clCreateBuffer", err);
    }
    return DMLCL_SUCCESS;
}

static const char *kernel_name(const dmlcl__resample1_plan *p)
{
    if (p->rows_2d)
        return p->linear ? "resample1_linear_rows" : "resample1_gather_rows";
    if (p->cpu_rows)
        return p->linear ? "resample1_linear_cpu_rows" : "resample1_gather_cpu_rows";
    if (p->seg2)
        return p->linear ? "resample1_linear_seg2" : "resample1_gather_seg2";
    if (p->seg)
        return p->linear ? "resample1_linear_seg" : "resample1_gather_seg";
    return p->linear ? "resample1_linear" : "resample1_gather";
}

/* Plans and builds a checked operator. */
static dmlcl_status create(dmlcl_operator *op, const dmlcl__op_vtable *vt,
                           dmlcl__nearest_rule rule, const dmlcl_resample1_desc *d)
{
    dmlcl_status st;
    op->n_in = 1;
    op->n_out = 1;
    r1_impl *im = dmlcl__calloc(1, sizeof *im);
    if (!im)
        return dmlcl__fail(DMLCL_OUT_OF_MEMORY, "%s: out of host memory", vt->name);
    op->impl = im;
    op->vt = vt;
    const dmlcl__device_info *di = &op->ctx->info;
    dmlcl__limits lim = {di->max_work_group_size, di->compute_units, di->is_cpu};
    int linear = d->interpolation_mode == DMLCL_INTERPOLATION_MODE_LINEAR;
    dmlcl__resample1_plan *p = &im->plan;
    dmlcl__resample1_plan_make_rule(&op->in[0], &op->out[0], linear, rule, d->scales,
                                    d->input_pixel_offsets, d->output_pixel_offsets, &lim,
                                    __atomic_load_n(&force_idx64, __ATOMIC_SEQ_CST), p);
    /* $DMLCL_RESAMPLE_PLAN overrides the launch shape, for tuning runs. */
    const char *force = getenv("DMLCL_RESAMPLE_PLAN");
    dmlcl__r1_tune tune;
    if (dmlcl__r1_tune_parse(force, &tune))
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: DMLCL_RESAMPLE_PLAN must be key=value pairs (" DMLCL__R1_TUNE_KEYS
                           ") separated by commas, got \"%s\"",
                           vt->name, force);
    if (force && *force)
        dmlcl__resample1_plan_launch(p, &op->in[0], &op->out[0], &lim, &tune,
                                     __atomic_load_n(&force_idx64, __ATOMIC_SEQ_CST));
    if (p->rows_2d)
        snprintf(op->plan_text, sizeof op->plan_text,
                 "variant=%s-rows resampled=%u pass=%u inner=r%u size=%llu vec=%u rows=%llu "
                 "table=%lluB global=%zux%zu local=%zux%zu options='%s'",
                 p->variant, p->nr, p->np, p->inner_k, (unsigned long long)p->inner_size,
                 DMLCL_R1_ROWS_VEC(p->linear), (unsigned long long)(p->count / p->inner_size),
                 (unsigned long long)p->table_bytes, p->global2[0], p->global2[1],
                 p->local2[0], p->local2[1], p->options);
    else
        snprintf(op->plan_text, sizeof op->plan_text,
                 "variant=%s%s resampled=%u pass=%u inner=%s%u size=%llu vec=%u units=%llu "
                 "table=%lluB global=%zu local=%zu options='%s'",
                 p->variant, p->cpu_rows ? "-cpu-rows" : p->seg2 ? "-seg2" : p->seg ? "-seg" : "",
                 p->nr, p->np,
                 p->inner_res ? "r" : "p",
                 p->inner_k, (unsigned long long)p->inner_size,
                 p->cpu_rows ? DMLCL_R1_CPU_BLOCK : p->seg ? (unsigned)p->seg : p->vec,
                 (unsigned long long)p->units,
                 (unsigned long long)p->table_bytes, p->global, p->local, p->options);
    if ((st = dmlcl__kernel_get(op->ctx, p->cpu_rows ? "resample1_cpu_rows" : "resample1", p->options,
                                kernel_name(p), &im->kernel)))
        return st;
    return upload_tables(op, vt->name);
}

/* ---- one check per operator: its rules, and what it reads --------------------------------- */

dmlcl_status dmlcl__resample1_check(dmlcl_operator *op, const dmlcl_resample1_desc *d,
                                    dmlcl__resample_map *m)
{
    *m = dmlcl__resample1_map(d, DMLCL__NEAREST_HALF_UP, 0);
    return validate(op, "resample1", "dimension_count", d);
}

/* RESAMPLE2 and (without antialiasing) RESAMPLE3: RESAMPLE1 with ceil or floor. The
 * direction is checked first so that its message does not depend on the tensors. */
dmlcl_status dmlcl__resample_rounding_check(const char *name, dmlcl_axis_direction dir)
{
    if (dir != DMLCL_AXIS_DIRECTION_INCREASING && dir != DMLCL_AXIS_DIRECTION_DECREASING)
        return dmlcl__fail(DMLCL_INVALID_ARGUMENT,
                           "%s: rounding_direction must be 0 (INCREASING) or 1 (DECREASING), "
                           "got %d", name, (int)dir);
    return DMLCL_SUCCESS;
}

dmlcl__nearest_rule dmlcl__resample_rule_of(dmlcl_axis_direction dir)
{
    return dir == DMLCL_AXIS_DIRECTION_INCREASING ? DMLCL__NEAREST_CEIL : DMLCL__NEAREST_FLOOR;
}

static dmlcl_resample1_desc r1_of2(const dmlcl_resample2_desc *d)
{
    return (dmlcl_resample1_desc){d->input_tensor, d->output_tensor, d->interpolation_mode,
                                  d->dimension_count, d->scales, d->input_pixel_offsets,
                                  d->output_pixel_offsets};
}

dmlcl_status dmlcl__resample2_check(dmlcl_operator *op, const dmlcl_resample2_desc *d,
                                    dmlcl__resample_map *m)
{
    dmlcl_status st = dmlcl__resample_rounding_check("resample2", d->rounding_direction);
    if (st)
        return st;
    const dmlcl_resample1_desc r1 = r1_of2(d);
    *m = dmlcl__resample1_map(&r1, dmlcl__resample_rule_of(d->rounding_direction), 0);
    return validate(op, "resample2", "dimension_count", &r1);
}

/* v0: pixel-centre offsets on every dimension (input 0.5, output -0.5). */
static const float v0_in_off[DMLCL_MAXDIM] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
static const float v0_out_off[DMLCL_MAXDIM] = {-0.5f, -0.5f, -0.5f, -0.5f,
                                               -0.5f, -0.5f, -0.5f, -0.5f};

static dmlcl_resample1_desc r1_of0(const dmlcl_resample_desc *d)
{
    return (dmlcl_resample1_desc){d->input_tensor, d->output_tensor, d->interpolation_mode,
                                  d->scale_count, d->scales, v0_in_off, v0_out_off};
}

dmlcl_status dmlcl__resample_check(dmlcl_operator *op, const dmlcl_resample_desc *d,
                                   dmlcl__resample_map *m)
{
    const dmlcl_resample1_desc r1 = r1_of0(d);
    *m = dmlcl__resample1_map(&r1, DMLCL__NEAREST_HALF_UP, 0);
    return validate(op, "resample", "scale_count", &r1);
}

/* ---- creation of each operator: check, tiles, plan ----------------------------------------- */

static dmlcl_status create_checked(dmlcl_operator *op, const dmlcl__op_vtable *vt, dmlcl_status st,
                                   const dmlcl__resample_map *m, const dmlcl_resample1_desc *d)
{
    if (st || (st = dmlcl__resample_check_tiles(op, vt->name, m)))
        return st;
    return create(op, vt, m->rule, d);
}

dmlcl_status dmlcl__resample1_create(dmlcl_operator *op, const dmlcl_resample1_desc *d)
{
    dmlcl__resample_map m;
    dmlcl_status st = dmlcl__resample1_check(op, d, &m);
    return create_checked(op, &r1_vtable, st, &m, d);
}

dmlcl_status dmlcl__resample2_create(dmlcl_operator *op, const dmlcl_resample2_desc *d)
{
    dmlcl__resample_map m;
    dmlcl_status st = dmlcl__resample2_check(op, d, &m);
    const dmlcl_resample1_desc r1 = r1_of2(d);
    return create_checked(op, &r2_vtable, st, &m, &r1);
}

dmlcl_status dmlcl__resample_create(dmlcl_operator *op, const dmlcl_resample_desc *d)
{
    dmlcl__resample_map m;
    dmlcl_status st = dmlcl__resample_check(op, d, &m);
    const dmlcl_resample1_desc r1 = r1_of0(d);
    return create_checked(op, &r0_vtable, st, &m, &r1);
}

/* RESAMPLE3 where antialiasing changes nothing (see resample3.c), checked already. */
dmlcl_status dmlcl__resample3_create_plain(dmlcl_operator *op, const dmlcl_resample1_desc *r1,
                                           const dmlcl__resample_map *m)
{
    return create_checked(op, &r3_vtable, DMLCL_SUCCESS, m, r1);
}
