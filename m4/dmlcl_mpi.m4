# DMLCL_CHECK_MPI: the optional MPI parts (examples/mpi, tests/mpi).
#
# --with-mpi=check (default): build them when an MPI C compiler is found; --with-mpi=yes:
# stop if none is; --with-mpi=no: never. AX_MPI (autoconf-archive, vendored in m4/) finds
# the MPI C compiler ($MPICC) and checks that it links MPI_Init and has mpi.h.
#
# Automake cannot build one target with another compiler (no per-target CC), so the MPI
# sources are compiled with the normal $CC (and libtool) plus the flags the wrapper would
# add: MPI_CFLAGS and MPI_LIBS, from, in this order,
#   - the user (./configure MPI_CFLAGS=... MPI_LIBS=...),
#   - Open MPI's wrapper: mpicc --showme:compile / --showme:link,
#   - MPICH's (also Intel MPI, MVAPICH): mpicc -compile-info / -link-info, which print the
#     whole command line: the compiler's name and -c are dropped,
#   - pkg-config: ompi-c, mpich or mpi.
# The result must link an MPI program with $CC, else MPI counts as not found.
#
# MPIEXEC: the launcher the tests use (mpiexec or mpirun, looked for beside $MPICC first).
#
# Sets: have_mpi (yes/no), MPICC, MPI_CFLAGS, MPI_LIBS, MPIEXEC (substituted), and the
# automake conditional HAVE_MPI.
AC_DEFUN([DMLCL_CHECK_MPI], [
AC_REQUIRE([AC_PROG_CC])
AC_REQUIRE([PKG_PROG_PKG_CONFIG])
AC_ARG_WITH([mpi],
  [AS_HELP_STRING([--with-mpi@<:@=check|yes|no@:>@],
    [build the MPI example (examples/mpi) and run it in make check with 1-4 ranks; needs
     an MPI C compiler (mpicc, or MPICC=...) @<:@default=check@:>@])],
  [], [with_mpi=check])
AC_ARG_VAR([MPI_CFLAGS], [C compiler flags for MPI (default: asked of $MPICC)])
AC_ARG_VAR([MPI_LIBS], [linker flags for MPI (default: asked of $MPICC)])
AC_ARG_VAR([MPIEXEC], [MPI launcher for make check (default: mpiexec or mpirun)])

have_mpi=no
AS_IF([test "x$with_mpi" != xno], [
  AC_LANG_PUSH([C])
  AX_MPI([have_mpi=yes], [have_mpi=no])
  AC_LANG_POP([C])
])

AS_IF([test "x$have_mpi" = xyes && test -z "$MPI_CFLAGS$MPI_LIBS"], [
  AC_MSG_CHECKING([for the compile and link flags of $MPICC])
  AS_IF([dmlcl_mpi_c=`$MPICC --showme:compile 2>/dev/null` &&
         dmlcl_mpi_l=`$MPICC --showme:link 2>/dev/null`],
    [MPI_CFLAGS=$dmlcl_mpi_c; MPI_LIBS=$dmlcl_mpi_l; dmlcl_mpi_how="--showme"],
    [dmlcl_mpi_c=`$MPICC -compile-info 2>/dev/null` &&
     dmlcl_mpi_l=`$MPICC -link-info 2>/dev/null`],
    [MPI_CFLAGS=`AS_ECHO(["$dmlcl_mpi_c"]) | sed 's/^ *[[^ ]]* *//; s/ -c / /g; s/ -c$//'`
     MPI_LIBS=`AS_ECHO(["$dmlcl_mpi_l"]) | sed 's/^ *[[^ ]]* *//'`
     dmlcl_mpi_how="-compile-info"],
    [test -n "$PKG_CONFIG" && dmlcl_mpi_pc=`for m in ompi-c mpich mpi; do
        $PKG_CONFIG --exists $m && { echo $m; break; }; done` && test -n "$dmlcl_mpi_pc"],
    [MPI_CFLAGS=`$PKG_CONFIG --cflags $dmlcl_mpi_pc`
     MPI_LIBS=`$PKG_CONFIG --libs $dmlcl_mpi_pc`
     dmlcl_mpi_how="pkg-config $dmlcl_mpi_pc"],
    [dmlcl_mpi_how=none])
  AC_MSG_RESULT([$dmlcl_mpi_how])
])

AS_IF([test "x$have_mpi" = xyes], [
  AC_MSG_CHECKING([whether $CC links MPI programs with MPI_CFLAGS and MPI_LIBS])
  dmlcl_save_CFLAGS=$CFLAGS; dmlcl_save_LIBS=$LIBS
  CFLAGS="$CFLAGS $MPI_CFLAGS"; LIBS="$MPI_LIBS $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
      [[int n; MPI_Init(0, 0); MPI_Comm_size(MPI_COMM_WORLD, &n); MPI_Finalize();]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no]); have_mpi=no])
  CFLAGS=$dmlcl_save_CFLAGS; LIBS=$dmlcl_save_LIBS
])

AS_IF([test "x$have_mpi" = xyes], [
  dmlcl_mpi_path=`command -v "$MPICC" 2>/dev/null`
  dmlcl_mpi_bindir=`AS_DIRNAME(["$dmlcl_mpi_path"])`
  AC_PATH_PROGS([MPIEXEC], [mpiexec mpirun], [], [$dmlcl_mpi_bindir$PATH_SEPARATOR$PATH])
  AS_IF([test -z "$MPIEXEC"], [have_mpi=no])
])

AS_IF([test "x$have_mpi" = xno && test "x$with_mpi" = xyes],
  [AC_MSG_ERROR([--with-mpi: no usable MPI C compiler and launcher (on Debian/Ubuntu: apt-get install openmpi-bin libopenmpi-dev; or set MPICC, MPI_CFLAGS, MPI_LIBS, MPIEXEC)])])
AS_IF([test "x$have_mpi" = xno && test "x$with_mpi" = xcheck],
  [AC_MSG_NOTICE([MPI not found: the MPI example and its tests are not built (apt-get install openmpi-bin libopenmpi-dev to enable them)])])
AC_SUBST([MPI_CFLAGS])
AC_SUBST([MPI_LIBS])
AC_SUBST([MPIEXEC])
AM_CONDITIONAL([HAVE_MPI], [test "x$have_mpi" = xyes])
])
