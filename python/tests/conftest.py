"""make check's console (tests/progress.h): how far the Python tests are, at most every
10 s and at once for a failure, on the descriptor $DMLCL_TEST_PROGRESS_FD names."""
import os
import time

_fd = os.environ.get("DMLCL_TEST_PROGRESS_FD", "")
_state = {"start": time.monotonic(), "last": time.monotonic(), "passed": 0, "failed": 0}


def pytest_runtest_logreport(report):
    if not _fd.isdigit() or report.when != "call" and not report.failed:
        return  # a setup or teardown counts only when it fails
    if report.passed:
        _state["passed"] += 1
    elif report.failed:
        _state["failed"] += 1
    now = time.monotonic()
    if now - _state["last"] < 10 and not report.failed:
        return
    _state["last"] = now
    bad = ", %d FAILED" % _state["failed"] if _state["failed"] else ""
    line = "  ... python: %d tests passed%s (%.0f s)\n" % (
        _state["passed"], bad, now - _state["start"])
    try:
        os.write(int(_fd), line.encode())
    except OSError:
        pass
