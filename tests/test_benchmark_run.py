"""``make bench`` end to end, in its quick form: every workload is reported, for every library.

``benchmarks/run.py --quick`` starts a process per library and runs every workload (shorter chains,
two rounds or so): a few seconds. No timing is asserted, only that the report is whole: each
workload named, each library's figures in it, the CPU and BLAS named, the targets printed.
"""
from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import workloads as w  # noqa: E402

HAVE_TORCH = importlib.util.find_spec("torch") is not None


def bench(tmp_path: Path, *options: str) -> tuple[str, dict]:
    out = tmp_path / "bench.json"
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--json", str(out),
                             *options], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout, json.loads(out.read_text())


def test_the_quick_run_reports_every_workload_for_every_library(tmp_path: Path) -> None:
    report, figures = bench(tmp_path)
    table = w.workloads(quick=True)
    assert list(figures["workloads"]) == [item.key for item in table]
    positions = [report.index(f"[{item.key}] {item.title}".splitlines()[0][:40]) for item in table]
    assert positions == sorted(positions), "the report keeps the workloads' order"
    for item in table:
        medians = figures["workloads"][item.key]["medians"]
        expected = {kind for kind in item.libraries if kind != "torch" or HAVE_TORCH}
        assert set(medians) == expected, item.key
        assert figures["workloads"][item.key]["errors"] == {}
        phases = set(item.phases) | {"total"}
        for label, by_phase in medians.items():
            assert set(by_phase) == phases and all(t > 0 for t in by_phase.values()), (item.key, label)
    assert figures["cpu"] and f"CPU: {figures['cpu']}" in report
    assert all(f"{kind}: " in report for kind in ("glasstorch", "floor", "numpy"))
    assert "BLAS " in report and all(figures["libraries"][kind]["blas"] for kind in ("glasstorch", "numpy"))
    assert "Issue 13's targets" in report
    if HAVE_TORCH:
        assert "BLAS_INFO=" in report and figures["libraries"]["torch"]["threads"] == 1
        for key in ("graph", "scale-chain", "mlp", "mnist-no-dropout"):
            line = next(line for line in report.splitlines() if line.strip().startswith(key))
            assert "target <= " in line and ("✔" in line or "✘" in line)


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_a_baseline_ref_is_timed_beside_the_working_tree(tmp_path: Path) -> None:
    report, figures = bench(tmp_path, "--only", "graph,tiny-add", "--baseline-ref", "HEAD")
    assert list(figures["workloads"]) == ["graph", "tiny-add"]
    source = figures["libraries"]["glasstorch@HEAD"]
    assert source["source"].startswith("git HEAD: ") and "glasstorch-bench-" in source["from"]
    assert Path(figures["libraries"]["glasstorch"]["from"]) == ROOT / "package"
    assert set(figures["workloads"]["graph"]["medians"]) >= {"glasstorch", "glasstorch@HEAD", "floor"}
    assert "| workload | glasstorch@HEAD / torch | glasstorch / torch | after / before |" in report
    assert "| graph | " in report and "| tiny-add | " in report


def test_an_unknown_workload_is_refused(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", "nope"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "unknown workload nope" in result.stderr
