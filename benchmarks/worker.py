"""One library's process for ``make bench``: builds workloads and times rounds when ``run.py`` asks.

``run.py`` starts one of these per library and sends each, in turn, one JSON request a line on
stdin; the answer is one JSON line on the original stdout (anything the libraries print goes to
stderr). A process per library keeps each one's memory, allocator and imported modules (PyTorch's
threads, glasstorch's garbage) out of the others' timings; taking turns round by round keeps a
noisy machine's slow moments spread over all of them alike.

    {"build": KEY}  build workload KEY (dropping the previous one), run it once untimed (warm-up)
    {"run": KEY}    run it once; answer its times in seconds by phase: {"total": t} or
                    {"forward": t, "backward": t}

    python benchmarks/worker.py KIND [--package DIR] [--quick]
"""
from __future__ import annotations

import os

# one thread for every BLAS numpy (or PyTorch) might use; must be set before either is imported
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
KINDS = ("glasstorch", "torch", "floor", "numpy")


def load(kind: str, package: Path | None):
    """The library module (None for hand-written numpy, whose workloads need no library)."""
    if kind == "glasstorch":
        sys.path.insert(0, str(package or HERE.parent / "package"))
        return importlib.import_module("glasstorch")
    if kind == "torch":
        import torch

        torch.set_num_threads(1)
        return torch
    if kind == "floor":
        return importlib.import_module("floor")
    return None


def describe(kind: str, lib) -> dict:
    """The library's version and the BLAS it runs, as the report prints them."""
    import numpy as np

    info = {"kind": kind, "python": platform.python_version(), "numpy": np.__version__, "blas": numpy_blas()}
    if kind == "glasstorch":
        info["version"] = getattr(lib, "__version__", "?")
        info["from"] = str(Path(lib.__file__).resolve().parent.parent)
    if kind == "torch":
        info["version"] = lib.__version__
        info["threads"] = lib.get_num_threads()
        config = lib.__config__.show()
        found = [m.group(0).strip() for m in re.finditer(r"BLAS_INFO=\w+|Intel\(R\)[^\n(]*?Version [\d.]+|"
                                                          r"MKL-DNN v[\d.]+|CPU capability usage: \w+", config)]
        info["torch blas"] = ", ".join(found)
    return info


def numpy_blas() -> str:
    """numpy's BLAS as loaded (threadpoolctl), else as built (np.show_config)."""
    try:
        from threadpoolctl import threadpool_info

        blas = [f"{d.get('internal_api')} {d.get('version')} ({d.get('architecture')} kernels, "
                f"{d.get('num_threads')} thread{'s' if d.get('num_threads') != 1 else ''})"
                for d in threadpool_info() if d.get("user_api") == "blas"]
        if blas:
            return "; ".join(blas)
    except ImportError:
        pass
    import numpy as np

    try:
        built = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{built.get('name')} {built.get('version')} (as built; threadpoolctl not installed)"
    except Exception:  # older numpy: no dicts
        return "unknown (install threadpoolctl)"


def serve(kind: str, lib, quick: bool, answer) -> None:
    import workloads as w

    table = {workload.key: workload for workload in w.workloads(quick)}
    answer({"ready": describe(kind, lib)})
    bench, workload = None, None
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "build" in request:
                bench = workload = None
                gc.collect()
                workload = table[request["build"]]
                bench = workload.build(kind, lib)
                timed(bench, workload)  # warm-up: first-call costs are not what we measure
                gc.collect()
                answer({"built": workload.key})
            else:
                assert workload is not None and workload.key == request["run"], "build it first"
                answer(timed(bench, workload))
        except Exception as error:  # e.g. an older glasstorch (--baseline-ref) without an op
            bench = workload = None
            answer({"error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()})


def timed(bench, workload) -> dict:
    if workload.gc_off:
        gc.disable()
    try:
        start = time.perf_counter()
        phases = bench.run()
        total = time.perf_counter() - start
    finally:
        gc.enable()
    return phases if phases is not None else {"total": total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--package", type=Path, help="import glasstorch from this directory (default: package/)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    # the answers get the real stdout; whatever else is printed (warnings, a library's chatter) goes to stderr
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def answer(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    sys.path.insert(0, str(HERE))
    try:
        lib = load(args.kind, args.package)
    except Exception as error:
        answer({"error": f"cannot import {args.kind}: {type(error).__name__}: {error}"})
        return
    serve(args.kind, lib, args.quick, answer)


if __name__ == "__main__":
    main()
