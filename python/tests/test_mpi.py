"""dmlcl.mpi (the MPI layer over mpi4py) at 1 to 4 ranks: mpi_ranks.py's cases under
``mpiexec -n N`` (every owned box bit for bit against one device's run, faces only,
faults agreed on every rank), and the Python MPI example (examples/mpi/mpi_resample.py)
at 3 ranks on a 2-D grid, and its REVERSE_SUBSEQUENCES case at 2.

make check runs it through python/mpi_tests.sh, which skips it (saying why) without
mpi4py, mpiexec or libdmlcl_mpi; pytest alone skips what it lacks, naming it.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

pytest.importorskip("mpi4py", reason="no module named mpi4py (Debian: apt-get install "
                    "python3-mpi4py; PyPI: pip install mpi4py)")

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, os.pardir, os.pardir, "examples", "mpi", "mpi_resample.py")
MPIEXEC = os.environ.get("MPIEXEC") or shutil.which("mpiexec")
# The ranks of every launch share one program cache folder: one rank compiles a program
# while the others wait on the folder's lock, then load it (as on a user's node).
CACHE = tempfile.TemporaryDirectory(prefix="dmlcl_mpi_py.")


def launch(n, *args):
    if not MPIEXEC:
        pytest.skip("no mpiexec (Debian: apt-get install openmpi-bin)")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               POCL_MAX_PTHREAD_COUNT=os.environ.get("POCL_MAX_PTHREAD_COUNT", "1"),
               DMLCL_CACHE_DIR=CACHE.name)
    # One host: shared memory only, copies instead of cross-process reads (as
    # tests/mpi/mpi_test.sh); MPICH ignores these.
    env.setdefault("OMPI_MCA_btl", "self,vader")
    env.setdefault("OMPI_MCA_pml", "ob1")
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    version = subprocess.run([MPIEXEC, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True).stdout
    flags = ["--oversubscribe"] if "Open MPI" in version or "OpenRTE" in version else []
    return subprocess.run([MPIEXEC] + flags + ["-n", str(n), sys.executable] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env, timeout=120)


def test_the_layer_loads():
    try:
        import dmlcl.mpi as dm
    except ImportError as e:
        pytest.skip(str(e))
    assert os.path.exists(dm.library_path)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_ranks(n):
    test_the_layer_loads()
    run = launch(n, os.path.join(HERE, "mpi_ranks.py"))
    assert run.returncode == 0 and "PASS: 9 cases, %d ranks" % n in run.stdout, run.stdout


@pytest.mark.parametrize("n, args, result", [
    (3, ["--grid", "1x3x1"], "PASS: (7, 5, 6) -> (14, 10, 12) over 3 ranks"),
    (2, ["--grid", "1x2x1", "--case", "reverse"],
     "PASS: reverse along X: (7, 5, 6) -> (7, 5, 6) over 2 ranks, 2 steps, 0 halo bytes")])
def test_the_python_mpi_example(n, args, result):
    test_the_layer_loads()
    run = launch(n, EXAMPLE, "--shape", "7,5,6", *args)
    assert run.returncode == 0 and result in run.stdout, run.stdout
