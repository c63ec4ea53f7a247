"""``make bench``: glasstorch against PyTorch (when installed), the floor and hand-written numpy.

The workloads (``workloads.py``) are written once for a library passed in as ``lib``, so every
library runs the very same code. Each library runs in its own process (``worker.py``) on one thread
(one BLAS thread, ``torch.set_num_threads(1)``); the processes take turns, one round each, in an
order rotated every round, so a noisy machine's slow moments fall on all of them alike. Every
figure is the median over the rounds; the report names the CPU and the BLAS that ran them.

First, issue 13's workloads, which measure real graphs (one backward for thousands of ops, leaves
used by many ops, training steps), with its targets (glasstorch / PyTorch 2.13 in the same run):

* a 2,000-op graph with reused leaves, per op (forward + backward): at most 1.2x;
* a 20,000-op chain of ``y = y * 1.0001`` on a (16,) tensor, per op: at most 0.6x;
* one step of an MLP 784-256-128-10 (nn.Sequential, cross_entropy, SGD with momentum): at most 1.0x;
* one step of the seeds' MNIST Net with its dropouts (reported; dropout's random numbers cost
  differently in the two libraries) and without them: at most 1.2x.

Then the earlier ones, with their earlier targets: a tiny op followed by its own backward (where
PyTorch's fixed cost per ``backward()`` dominates, so it flatters glasstorch), a 100,000-op chain
(with and without Python's garbage collector), and the MLP in tensor ops with a manual update.
"floor" (``floor.py``) is the least a Python autograd over numpy can do; "numpy" (``numpy_nets.py``)
the training steps written by hand.

``--baseline-ref REF`` times another version of glasstorch in the same run, as a further library in
its own process: REF's ``package/`` (``git archive``) in a temporary directory. The report ends
with a before/after table.

    python benchmarks/run.py [--quick] [--rounds N] [--only KEY,...] [--baseline-ref GIT_REF] [--json PATH]
"""
from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import workloads as w  # noqa: E402

ONE_THREAD = {var: "1" for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")}
SCALE = {"s": 1, "ms": 1e3, "µs": 1e6}


class Worker:
    """One library's process (worker.py), asked one request at a time."""

    def __init__(self, label: str, kind: str, quick: bool, package: Path | None = None, source: str = "") -> None:
        self.label, self.kind, self.source = label, kind, source
        command = [sys.executable, str(HERE / "worker.py"), kind] + ["--quick"] * quick
        if package is not None:
            command += ["--package", str(package)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env={**os.environ, **ONE_THREAD})
        self.info: dict = {}

    def ready(self) -> dict:
        """The worker's first answer: what it runs (or why it cannot)."""
        reply = self._answer()
        self.info = reply.get("ready", reply)
        return self.info

    def ask(self, request: dict) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._answer()

    def _answer(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.label}'s process ended (exit code {self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except BrokenPipeError:  # it has ended already
            pass
        self.process.wait()


def package_at(ref: str, into: Path) -> tuple[Path, str]:
    """REF's package/ written into ``into`` by ``git archive`` (the working tree is not touched), and
    what the report calls it."""
    into.mkdir()
    commit = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h %s", ref], check=True,
                            capture_output=True, text=True).stdout.strip()
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, "package"],
                         check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        if hasattr(tarfile, "data_filter"):  # Python 3.12, and 3.8-3.11 since their 2023 security releases
            archive.extractall(into, filter="data")
        else:
            archive.extractall(into)
    return into / "package", f"git {ref}: {textwrap.shorten(commit, 80)}"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        result = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.strip()
    return platform.processor() or platform.machine()


def measure(workload: w.Workload, workers: list[Worker], rounds: int) -> tuple[dict, dict]:
    """Each worker's rounds of ``workload``, interleaved: the medians per op, by phase, in seconds;
    and why a worker could not build it (an older glasstorch may lack an op)."""
    runners, errors = [], {}
    for worker in workers:
        if worker.kind in workload.libraries:
            reply = worker.ask({"build": workload.key})
            if "error" in reply:
                errors[worker.label] = reply["error"]
            else:
                runners.append(worker)
    if not runners:
        return {}, errors
    times: dict = {worker.label: [] for worker in runners}
    for i in range(rounds):
        for worker in runners[i % len(runners):] + runners[:i % len(runners)]:
            reply = worker.ask({"run": workload.key})
            if "error" in reply:
                raise RuntimeError(f"{worker.label}, {workload.key}: {reply['traceback']}")
            times[worker.label].append(reply)
    medians = {}
    for label, replies in times.items():
        medians[label] = {phase: statistics.median(r[phase] for r in replies) / workload.per
                          for phase in workload.phases}
        if workload.phases != ("total",):  # the median of each round's sum, not the sum of medians
            medians[label]["total"] = statistics.median(sum(r.values()) for r in replies) / workload.per
    return medians, errors


def ratio(medians: dict, label: str, to: str) -> float | None:
    if label in medians and to in medians:
        return medians[label]["total"] / medians[to]["total"]
    return None


def verdict(value: float | None, target: float | None) -> str:
    if value is None or target is None:
        return ""
    return f"(target <= {target}x {'✔' if value <= target else '✘'})"


def print_workload(number: int, workload: w.Workload, medians: dict, errors: dict, rounds: int,
                   baseline: str | None) -> None:
    print()
    print(textwrap.fill(f"{number}. [{workload.key}] {workload.title} (median of {rounds} rounds)", width=110,
                        subsequent_indent="   "))
    scale = SCALE[workload.unit]
    phases = list(workload.phases) + (["total"] if workload.phases != ("total",) else [])
    print(f"  {'':<20}" + "".join(f"{phase:>11}" for phase in phases))
    for label, by_phase in medians.items():
        line = f"  {label:<20}" + "".join(f"{by_phase[phase] * scale:11.4g}" for phase in phases)
        notes = []
        vs_torch = ratio(medians, label, "torch")
        if label != "torch" and vs_torch is not None:
            notes.append(f"{vs_torch:.2f}x torch")
            if label == "glasstorch" and workload.target is not None:
                notes.append(verdict(vs_torch, workload.target))
        if label == "glasstorch":
            for other in ("numpy", baseline):
                value = ratio(medians, label, other) if other else None
                if value is not None:
                    notes.append(f"{value:.2f}x {other}")
        print(line + ("   " + "  ".join(notes) if notes else ""))
    for label, error in errors.items():
        print(f"  {label:<20} cannot run it: {error}")


def summary(table: list[w.Workload], results: dict, baseline: str | None) -> None:
    print("\nIssue 13's targets: glasstorch / PyTorch 2.13, this run (forward + backward)")
    for workload in table:
        if workload.target is not None and workload.key in results:
            value = ratio(results[workload.key], "glasstorch", "torch")
            shown = f"{value:.2f}x" if value is not None else "n/a"
            print(f"  {workload.key:<18} {shown:>6}  {verdict(value, workload.target)}")
    print("Earlier targets: glasstorch / PyTorch, glasstorch / hand-written numpy")
    for workload in table:
        vs_torch, vs_numpy = workload.earlier_target
        if workload.key in results and (vs_torch or vs_numpy):
            cells = []
            for other, target in (("torch", vs_torch), ("numpy", vs_numpy)):
                value = ratio(results[workload.key], "glasstorch", other)
                if target is not None and value is not None:
                    cells.append(f"{value:.2f}x {other} {verdict(value, target)}")
            if cells:
                print(f"  {workload.key:<18} " + "   ".join(cells))
    if baseline is None:
        return
    print(f"\nBefore/after, same run, interleaved ({baseline} = before, glasstorch = after; per op or per step):")
    print(f"| workload | {baseline} / torch | glasstorch / torch | after / before |")
    print("| --- | --- | --- | --- |")
    for workload in table:
        medians = results.get(workload.key, {})
        cells = [ratio(medians, baseline, "torch"), ratio(medians, "glasstorch", "torch"),
                 ratio(medians, "glasstorch", baseline)]
        print(f"| {workload.key} | " + " | ".join("" if c is None else f"{c:.2f}x" for c in cells) + " |")


def header(workers: list[Worker], quick: bool) -> None:
    print(f"make bench{' --quick (a smoke test: short chains, few rounds)' if quick else ''}: medians of "
          "interleaved rounds; each library in its own process, on one thread; the order rotated every round")
    print(f"CPU: {cpu_model()} ({os.cpu_count()} logical CPUs), {platform.system()} {platform.release()}, "
          f"Python {platform.python_version()}")
    for worker in workers:
        info = worker.info
        line = f"  {worker.label}: "
        if info["kind"] == "torch":
            print(line + f"torch {info['version']}, {info['threads']} thread, {info['torch blas']}")
            continue
        if info["kind"] == "glasstorch":
            line += f"{worker.source} (imported from {info['from']}); "
        print(line + f"numpy {info['numpy']}, BLAS {info['blas']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="every workload, but short chains and few rounds: an end-to-end smoke test")
    parser.add_argument("--rounds", type=int, help="rounds per unit (default 7; 1 with --quick); "
                        "each workload runs a multiple of it")
    parser.add_argument("--only", help="comma-separated workload keys (the [key] in the report)")
    parser.add_argument("--baseline-ref", metavar="GIT_REF",
                        help="also time glasstorch as of this git ref (its package/), in its own process")
    parser.add_argument("--ref", metavar="GIT_REF",
                        help="time glasstorch as of this git ref instead of the working tree's package/")
    parser.add_argument("--json", type=Path, help="also write the medians (seconds per op or per step) here")
    args = parser.parse_args()
    base_rounds = args.rounds or (1 if args.quick else 7)
    table = w.workloads(args.quick)
    if args.only:
        keys = args.only.split(",")
        unknown = set(keys) - {workload.key for workload in table}
        if unknown:
            parser.error(f"unknown workload {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(workload.key for workload in table)}")
        table = [workload for workload in table if workload.key in keys]

    with tempfile.TemporaryDirectory(prefix="glasstorch-bench-") as scratch:
        if args.ref:
            workers = [Worker("glasstorch", "glasstorch", args.quick, *package_at(args.ref, Path(scratch, "ref")))]
        else:
            workers = [Worker("glasstorch", "glasstorch", args.quick, source="the working tree")]
        baseline = None
        if args.baseline_ref:
            baseline = f"glasstorch@{args.baseline_ref}"
            workers.append(Worker(baseline, "glasstorch", args.quick,
                                  *package_at(args.baseline_ref, Path(scratch, "baseline"))))
        if importlib.util.find_spec("torch") is not None:
            workers.append(Worker("torch", "torch", args.quick))
        else:
            print("PyTorch is not installed: no ratios to PyTorch (pip install torch==2.13.0)")
        workers += [Worker("floor", "floor", args.quick), Worker("numpy", "numpy", args.quick)]
        try:
            for worker in list(workers):
                if "error" in worker.ready():
                    print(f"{worker.label}: {worker.info['error']}")
                    workers.remove(worker)
            header(workers, args.quick)
            results, failures, rounds_run = {}, {}, {}
            for number, workload in enumerate(table, 1):
                rounds = rounds_run[workload.key] = max(2, round(base_rounds * workload.rounds))
                results[workload.key], failures[workload.key] = measure(workload, workers, rounds)
                print_workload(number, workload, results[workload.key], failures[workload.key], rounds, baseline)
        finally:
            for worker in workers:
                worker.close()
    summary(table, results, baseline)
    if args.json:
        args.json.write_text(json.dumps({
            "cpu": cpu_model(), "libraries": {worker.label: {**worker.info, "source": worker.source}
                                              for worker in workers},
            "workloads": {workload.key: {"title": workload.title, "per": workload.per, "rounds": rounds_run[workload.key],
                                         "medians": results[workload.key], "errors": failures[workload.key]}
                          for workload in table},
        }, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
