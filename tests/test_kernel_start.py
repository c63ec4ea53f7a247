"""A notebook's kernel that dies at start is started again (conftest.py), so that two kernels
started at the same moment by the two test workers cannot fail a notebook between them."""
from __future__ import annotations

from pathlib import Path

import pytest

nbval_kernel = pytest.importorskip("nbval.kernel", reason="nbval comes with the test extra")


def _dies_the_first_time(counter: Path) -> list[str]:
    # runs in the kernel as it starts, before it answers: the first kernel exits, the next one lives
    code = (f"import os, pathlib; p = pathlib.Path({str(counter)!r}); "
            "n = int(p.read_text()) if p.exists() else 0; p.write_text(str(n + 1)); n or os._exit(1)")
    return [f"--IPKernelApp.exec_lines={code}"]


def test_a_kernel_that_dies_at_start_is_started_again(tmp_path: Path) -> None:
    counter = tmp_path / "starts"
    km, kc = nbval_kernel.start_new_kernel(kernel_name=nbval_kernel.CURRENT_ENV_KERNEL_NAME,
                                           extra_arguments=_dies_the_first_time(counter))
    try:
        assert km.is_alive() and counter.read_text() == "2"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
