/* The layer's own copy of an operator descriptor (the RESAMPLE family or
 * REVERSE_SUBSEQUENCES), and tile descriptors made from it. */
#include "internal.h"

#include <string.h>

/* Points the copy's descriptor at its own tensors and arrays. */
static void point(desc_copy *c)
{
    c->in.sizes = c->in_sizes, c->out.sizes = c->out_sizes;
    c->op.type = c->type;
    c->op.desc = &c->u;
    switch (c->type) {
    case DMLCL_OPERATOR_RESAMPLE:
        c->u.r0.input_tensor = &c->in, c->u.r0.output_tensor = &c->out;
        c->u.r0.scales = c->scales;
        break;
    case DMLCL_OPERATOR_RESAMPLE1:
        c->u.r1.input_tensor = &c->in, c->u.r1.output_tensor = &c->out;
        c->u.r1.scales = c->scales, c->u.r1.input_pixel_offsets = c->in_offsets;
        c->u.r1.output_pixel_offsets = c->out_offsets;
        break;
    case DMLCL_OPERATOR_RESAMPLE2:
        c->u.r2.input_tensor = &c->in, c->u.r2.output_tensor = &c->out;
        c->u.r2.scales = c->scales, c->u.r2.input_pixel_offsets = c->in_offsets;
        c->u.r2.output_pixel_offsets = c->out_offsets;
        break;
    case DMLCL_OPERATOR_RESAMPLE_GRAD1:
        c->u.g1.input_gradient_tensor = &c->in, c->u.g1.output_gradient_tensor = &c->out;
        c->u.g1.scales = c->scales, c->u.g1.input_pixel_offsets = c->in_offsets;
        c->u.g1.output_pixel_offsets = c->out_offsets;
        break;
    case DMLCL_OPERATOR_RESAMPLE3:
        c->u.r3.input_tensor = &c->in, c->u.r3.output_tensor = &c->out;
        c->u.r3.scales = c->scales, c->u.r3.input_pixel_offsets = c->in_offsets;
        c->u.r3.output_pixel_offsets = c->out_offsets;
        break;
    case DMLCL_OPERATOR_REVERSE_SUBSEQUENCES:
        c->len.sizes = c->len_sizes;
        c->u.rs.input_tensor = &c->in, c->u.rs.output_tensor = &c->out;
        c->u.rs.sequence_lengths_tensor = &c->len;
        break;
    default:
        break;
    }
}

const dmlcl_tensor_desc *desc_input(const dmlcl_operator_desc *d)
{
    switch (d->type) {
    case DMLCL_OPERATOR_RESAMPLE: return ((const dmlcl_resample_desc *)d->desc)->input_tensor;
    case DMLCL_OPERATOR_REVERSE_SUBSEQUENCES:
        return ((const dmlcl_reverse_subsequences_desc *)d->desc)->input_tensor;
    case DMLCL_OPERATOR_RESAMPLE1: return ((const dmlcl_resample1_desc *)d->desc)->input_tensor;
    case DMLCL_OPERATOR_RESAMPLE2: return ((const dmlcl_resample2_desc *)d->desc)->input_tensor;
    case DMLCL_OPERATOR_RESAMPLE_GRAD1:
        return ((const dmlcl_resample_grad1_desc *)d->desc)->input_gradient_tensor;
    case DMLCL_OPERATOR_RESAMPLE3: return ((const dmlcl_resample3_desc *)d->desc)->input_tensor;
    default: return NULL;
    }
}

const dmlcl_tensor_desc *desc_output(const dmlcl_operator_desc *d)
{
    switch (d->type) {
    case DMLCL_OPERATOR_RESAMPLE: return ((const dmlcl_resample_desc *)d->desc)->output_tensor;
    case DMLCL_OPERATOR_REVERSE_SUBSEQUENCES:
        return ((const dmlcl_reverse_subsequences_desc *)d->desc)->output_tensor;
    case DMLCL_OPERATOR_RESAMPLE1: return ((const dmlcl_resample1_desc *)d->desc)->output_tensor;
    case DMLCL_OPERATOR_RESAMPLE2: return ((const dmlcl_resample2_desc *)d->desc)->output_tensor;
    case DMLCL_OPERATOR_RESAMPLE_GRAD1:
        return ((const dmlcl_resample_grad1_desc *)d->desc)->output_gradient_tensor;
    case DMLCL_OPERATOR_RESAMPLE3: return ((const dmlcl_resample3_desc *)d->desc)->output_tensor;
    default: return NULL;
    }
}

/* The arrays a type's descriptor holds (RESAMPLE: scales only). */
static void copy_arrays(desc_copy *c, uint32_t n, const float *scales, const float *in_off,
                        const float *out_off)
{
    memcpy(c->scales, scales, sizeof *scales * n);
    if (in_off)
        memcpy(c->in_offsets, in_off, sizeof *in_off * n);
    if (out_off)
        memcpy(c->out_offsets, out_off, sizeof *out_off * n);
}

dmlcl_status desc_copy_init(desc_copy *c, const dmlcl_operator_desc *d)
{
    memset(c, 0, sizeof *c);
    c->type = d->type;
    switch (d->type) {
    case DMLCL_OPERATOR_RESAMPLE:
        c->u.r0 = *(const dmlcl_resample_desc *)d->desc;
        copy_arrays(c, c->u.r0.scale_count, c->u.r0.scales, NULL, NULL);
        break;
    case DMLCL_OPERATOR_RESAMPLE1:
        c->u.r1 = *(const dmlcl_resample1_desc *)d->desc;
        copy_arrays(c, c->u.r1.dimension_count, c->u.r1.scales, c->u.r1.input_pixel_offsets,
                    c->u.r1.output_pixel_offsets);
        break;
    case DMLCL_OPERATOR_RESAMPLE2:
        c->u.r2 = *(const dmlcl_resample2_desc *)d->desc;
        copy_arrays(c, c->u.r2.dimension_count, c->u.r2.scales, c->u.r2.input_pixel_offsets,
                    c->u.r2.output_pixel_offsets);
        break;
    case DMLCL_OPERATOR_RESAMPLE_GRAD1:
        c->u.g1 = *(const dmlcl_resample_grad1_desc *)d->desc;
        copy_arrays(c, c->u.g1.dimension_count, c->u.g1.scales, c->u.g1.input_pixel_offsets,
                    c->u.g1.output_pixel_offsets);
        break;
    case DMLCL_OPERATOR_RESAMPLE3:
        c->u.r3 = *(const dmlcl_resample3_desc *)d->desc;
        copy_arrays(c, c->u.r3.dimension_count, c->u.r3.scales, c->u.r3.input_pixel_offsets,
                    c->u.r3.output_pixel_offsets);
        break;
    case DMLCL_OPERATOR_REVERSE_SUBSEQUENCES: {
        c->u.rs = *(const dmlcl_reverse_subsequences_desc *)d->desc;
        const dmlcl_tensor_desc *len = c->u.rs.sequence_lengths_tensor;
        c->len = *len;
        c->len.strides = NULL, c->len.total_tensor_size_in_bytes = 0;
        memcpy(c->len_sizes, len->sizes, sizeof *len->sizes * len->dimension_count);
        break;
    }
    default:
        return mpil_fail(DMLCL_UNSUPPORTED,
                         "operator type %d: the MPI layer runs the RESAMPLE family and "
                         "REVERSE_SUBSEQUENCES",
                         (int)d->type);
    }
    const dmlcl_tensor_desc *in = desc_input(d), *out = desc_output(d);
    c->in = *in, c->out = *out;
    c->in.strides = c->out.strides = NULL; /* the whole tensors are logical */
    c->in.total_tensor_size_in_bytes = c->out.total_tensor_size_in_bytes = 0;
    memcpy(c->in_sizes, in->sizes, sizeof *in->sizes * in->dimension_count);
    memcpy(c->out_sizes, out->sizes, sizeof *out->sizes * out->dimension_count);
    point(c);
    return DMLCL_SUCCESS;
}

void desc_copy_tile(const desc_copy *whole, desc_copy *tile, const uint32_t *in_sizes,
                    const uint32_t *in_strides, const uint32_t *out_sizes,
                    const uint32_t *out_strides, const uint32_t *len_strides)
{
    *tile = *whole;
    memcpy(tile->in_sizes, in_sizes, sizeof *in_sizes * whole->in.dimension_count);
    memcpy(tile->out_sizes, out_sizes, sizeof *out_sizes * whole->out.dimension_count);
    memcpy(tile->in_strides, in_strides, sizeof *in_strides * whole->in.dimension_count);
    memcpy(tile->out_strides, out_strides, sizeof *out_strides * whole->out.dimension_count);
    point(tile);
    tile->in.strides = tile->in_strides, tile->out.strides = tile->out_strides;
    if (whole->type == DMLCL_OPERATOR_REVERSE_SUBSEQUENCES) {
        /* The lengths: the input tile's box with the axis 1 long. */
        memcpy(tile->len_sizes, in_sizes, sizeof *in_sizes * whole->in.dimension_count);
        tile->len_sizes[whole->u.rs.axis] = 1;
        memcpy(tile->len_strides, len_strides, sizeof *len_strides * whole->in.dimension_count);
        tile->len.strides = tile->len_strides;
    }
}
