/* A field's creation from its reader: the reading operator gives every rank's input box
 * (the boxes the field's ghosts must hold), and field.c makes the field from those boxes
 * alone, so fields know nothing of operators. */
#include "internal.h"

#include <stdlib.h>

dmlcl_status dmlcl_mpi_field_create(dmlcl_context *context, const dmlcl_mpi_layout *layout,
                                    const dmlcl_mpi_operator *reader,
                                    const dmlcl_buffer_binding *buffer, dmlcl_mpi_field **out)
{
    if (!layout) /* nobody to agree with */
        return mpil_fail(DMLCL_INVALID_ARGUMENT, "dmlcl_mpi_field_create: layout is NULL");
    box *needed_all = calloc((size_t)layout->size, sizeof *needed_all);
    dmlcl_status found = DMLCL_SUCCESS;
    if (reader && !operator_reads(reader, layout))
        found = mpil_fail(DMLCL_INVALID_ARGUMENT,
                          "reader's input layout is not this field's layout");
    for (int r = 0; needed_all && r < layout->size; r++)
        if (reader && found == DMLCL_SUCCESS)
            dmlcl_mpi_operator_input_box(reader, r, &needed_all[r]);
        else
            box_empty(layout->dims, &needed_all[r]);
    const int profile = reader && operator_profiles(reader);
    dmlcl_status st = field_create(context, layout, needed_all, found, profile, buffer, out);
    free(needed_all);
    return st;
}
