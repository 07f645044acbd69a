/* libFuzzer target: the MPI layer's input checks (layouts, distributed operators, fields)
 * on descriptors and layouts built from fuzz bytes, on one rank (MPI_Init once, a
 * singleton: no launcher). What it parses is its arguments: sizes, grids, descriptors,
 * flags; it must answer a status and a message, never crash or hang, and an operator it
 * accepts must run. Build: ./configure CC=clang --enable-fuzzing (with MPI found) && make
 * tests/fuzz/fuzz_mpi. Seeds: tests/fuzz/corpus/mpi (tests/fuzz/seeds.py writes them). */
#include "fuzz_desc.h"
#include <dmlcl_mpi.h>
#include <stdlib.h>

static dmlcl_context *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_pocl_environment();
    if (MPI_Init(argc, argv) != MPI_SUCCESS || dmlcl_context_create_default(&ctx))
        abort();
    return 0;
}

/* A layout of the operator's tensor t: its type, rank and sizes, sometimes others; a
 * grid of 1s (one rank), sometimes anything. */
static dmlcl_status take_layout(reader *r, const dmlcl_tensor_desc *t, dmlcl_mpi_layout **out)
{
    uint32_t sizes[9], grid[9];
    const uint8_t mode = take8(r);
    take_near(r, t->sizes ? t->sizes : NULL, sizes);
    for (int i = 0; i < 9; i++)
        grid[i] = mode < 200 ? 1 : take_size(r);
    const uint32_t dims = mode < 200 ? t->dimension_count : mode % 10;
    const dmlcl_tensor_data_type type =
        mode < 200 ? t->data_type : (dmlcl_tensor_data_type)(mode % 13);
    return dmlcl_mpi_layout_create(MPI_COMM_WORLD, type, dims, sizes, mode == 255 ? NULL : grid,
                                   out);
}

static void must_explain(dmlcl_status st)
{
    if (st != DMLCL_SUCCESS && dmlcl_mpi_last_error()[0] == 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fdesc f;
    reader r = fuzz_begin(data, size, &f);
    const uint32_t flags = take8(&r) % 4, run_flags = take8(&r) % 4;
    dmlcl_mpi_layout *lin = NULL, *lout = NULL;
    dmlcl_mpi_operator *op = NULL;
    dmlcl_mpi_field *fin = NULL, *fout = NULL;
    dmlcl_status st = take_layout(&r, fdesc_input(&f), &lin);
    must_explain(st);
    if (st == DMLCL_SUCCESS)
        must_explain(st = take_layout(&r, fdesc_output(&f), &lout));
    /* Tables too long to build here (fuzz_desc.h), or a run over more than 2^20 elements. */
    if (st == DMLCL_SUCCESS &&
        (!fdesc_cheap(&f, 1ull << 31) || fuzz_span(fdesc_input(&f)) > (1u << 20) ||
         fuzz_span(fdesc_output(&f)) > (1u << 20)))
        st = DMLCL_UNSUPPORTED;
    if (st == DMLCL_SUCCESS)
        must_explain(st = dmlcl_mpi_operator_create(ctx, &f.od, lin, lout, flags, &op));
    if (st == DMLCL_SUCCESS) {
        dmlcl_mpi_box b;
        dmlcl_mpi_operator_input_box(op, -1, &b);
        must_explain(st = dmlcl_mpi_field_create(ctx, lin, op, NULL, &fin));
    }
    if (st == DMLCL_SUCCESS)
        must_explain(st = dmlcl_mpi_field_create(ctx, lout, NULL, NULL, &fout));
    if (st == DMLCL_SUCCESS) {
        must_explain(dmlcl_mpi_operator_run(op, fin, fout, run_flags));
        clFinish(dmlcl_context_queue(ctx));
    }
    dmlcl_mpi_field_release(fout);
    dmlcl_mpi_field_release(fin);
    dmlcl_mpi_operator_release(op);
    dmlcl_mpi_layout_release(lout);
    dmlcl_mpi_layout_release(lin);
    return 0;
}
