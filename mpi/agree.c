/* Failures agreed over ranks: every rank returns the lowest failing rank's status and
 * message. Apart from error.c since it waits (wait.c), and the waits report through
 * error.c. */
#include "internal.h"

#include <string.h>

/* One allreduce when every rank is fine (MINLOC on "ok" finds the lowest failing rank),
 * a broadcast of that rank's status and message when one is not; each wait bounded (wait.c). */
dmlcl_status mpil_agree(MPI_Comm comm, const char *function, dmlcl_status status)
{
    struct {
        int ok, rank;
    } mine, first;
    MPI_Comm_rank(comm, &mine.rank);
    mine.ok = status == DMLCL_SUCCESS;
    MPI_Request req;
    int err = MPI_Iallreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, comm, &req);
    if (err == MPI_SUCCESS)
        err = mpil_collective_wait(comm, &req, function, status);
    if (err != MPI_SUCCESS)
        return mpil_mpi_fail("MPI_Allreduce (agreeing on errors)", err);
    if (first.ok)
        return DMLCL_SUCCESS;
    struct {
        int status;
        char text[960]; /* the message, less room for "function: rank R: " */
    } m;
    memset(&m, 0, sizeof m);
    if (mine.rank == first.rank) {
        m.status = (int)status;
        strncpy(m.text, dmlcl_mpi_last_error(), sizeof m.text - 1); /* m is zeroed: ends in 0 */
    }
    err = MPI_Ibcast(&m, (int)sizeof m, MPI_BYTE, first.rank, comm, &req);
    if (err == MPI_SUCCESS)
        err = mpil_collective_wait(comm, &req, function, status);
    if (err != MPI_SUCCESS)
        return mpil_mpi_fail("MPI_Bcast (agreeing on errors)", err);
    return mpil_fail((dmlcl_status)m.status, "%s: rank %d: %s", function, first.rank, m.text);
}
