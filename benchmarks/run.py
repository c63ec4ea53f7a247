"""``make bench``: glasstorch against PyTorch (when installed) and hand-written numpy.

Every workload is written once, for a library passed in as ``lib`` (``glasstorch`` or ``torch``),
so both run the very same code. Implementations are interleaved round by round in one process
(a noisy machine slows all of them alike), on one thread (one BLAS thread, ``torch.set_num_threads(1)``),
and the report gives medians and ratios. Targets from the issue:

* per-op overhead (a shape-(1,) add or mul, forward + backward): at most 0.5x PyTorch's time;
* a 100,000-op chain, forward + backward: completes, in at most 0.5x PyTorch's time;
* one training step of a 784-256-128-10 MLP at batch 128 (tensor ops, manual SGD update):
  at most 1.0x PyTorch's and 1.15x hand-written numpy's time;
* the same MLP written with nn.Sequential, cross_entropy and SGD with momentum: the same targets;
* one training step of the seeds' MNIST Net (batch 64, 1x28x28, SGD with momentum): at most 1.6x
  PyTorch's and 1.15x hand-written numpy's time (numpy_nets.py holds the hand-written versions).

Beside them, on the tiny ops and the chain, "floor": the least a Python autograd over numpy can do
(floor.py), to tell glasstorch's own cost from the interpreter's. The chain runs twice, the second
time with Python's garbage collector off, to show its share.

    python benchmarks/run.py [--quick]
"""
from __future__ import annotations

import os

# one thread for every BLAS numpy might use; must be set before numpy is imported
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "package"))
import glasstorch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import floor  # noqa: E402  (the leanest possible Python autograd)
import numpy_nets  # noqa: E402  (the hand-written numpy versions)

try:
    import torch

    torch.set_num_threads(1)
except ImportError:
    torch = None


# --- the workloads, written once for either library ----------------------------------------
def tiny_op(lib, op: str, repeats: int) -> Callable[[], None]:
    """``repeats`` times: one add (or mul) of two shape-(1,) tensors, then its backward."""
    a = lib.tensor([1.5], requires_grad=True)
    b = lib.tensor([2.0], requires_grad=True)

    def run() -> None:
        for _ in range(repeats):
            out = a + b if op == "add" else a * b
            out.backward()
            a.grad = b.grad = None

    return run


def chain(lib, length: int) -> Callable[[], None]:
    """A chain of ``length`` ops (alternating mul and add), forward then backward."""
    x = lib.tensor([1.0], requires_grad=True)

    def run() -> None:
        y = x
        for i in range(length // 2):
            y = y * 1.0000001
            y = y + 0.5
        y.backward()
        x.grad = None

    return run


def mlp_data(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    sizes = [784, 256, 128, 10]
    params = {}
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        bound = 1 / np.sqrt(n_in)
        params[f"W{i}"] = rng.uniform(-bound, bound, (n_in, n_out)).astype(np.float32)
        params[f"b{i}"] = rng.uniform(-bound, bound, (n_out,)).astype(np.float32)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 128)
    return {"params": params, "x": x, "labels": labels}


def mlp_step(lib, data: dict, lr: float = 0.01) -> Callable[[], None]:
    """One SGD step: forward, cross-entropy, backward, a manual update under no_grad."""
    params = [lib.tensor(data["params"][k], requires_grad=True) for k in ("W0", "b0", "W1", "b1", "W2", "b2")]
    x = lib.tensor(data["x"])
    labels = lib.tensor(data["labels"])
    rows = lib.arange(len(data["labels"]))

    def run() -> None:
        w0, b0, w1, b1, w2, b2 = params
        h = (x @ w0 + b0).relu()
        h = (h @ w1 + b1).relu()
        logits = h @ w2 + b2
        loss = -logits.log_softmax(1)[rows, labels].mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None

    return run


def mlp_step_numpy(data: dict, lr: float = 0.01) -> Callable[[], None]:
    """The same step with the backward written by hand: the floor for any numpy framework."""
    params = {k: v.copy() for k, v in data["params"].items()}
    x, labels = data["x"], data["labels"]
    rows = np.arange(len(labels))

    def run() -> None:
        w0, b0, w1, b1, w2, b2 = (params[k] for k in ("W0", "b0", "W1", "b1", "W2", "b2"))
        z0 = x @ w0 + b0
        h0 = np.maximum(z0, 0)
        z1 = h0 @ w1 + b1
        h1 = np.maximum(z1, 0)
        logits = h1 @ w2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        probs = exp / exp.sum(axis=1, keepdims=True)
        # backward of the mean negative log-likelihood
        g = probs
        g[rows, labels] -= 1
        g /= len(labels)
        grads = {"W2": h1.T @ g, "b2": g.sum(0)}
        g = (g @ w2.T) * (z1 > 0)
        grads.update(W1=h0.T @ g, b1=g.sum(0))
        g = (g @ w1.T) * (z0 > 0)
        grads.update(W0=x.T @ g, b0=g.sum(0))
        for k, grad in grads.items():
            params[k] -= lr * grad

    return run


def nn_mlp_step(lib, data: dict) -> Callable[[], None]:
    """The MLP as a framework user writes it: nn.Sequential, cross_entropy, SGD with momentum."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    _load(lib, model, {"0.weight": data["params"]["W0"].T, "0.bias": data["params"]["b0"],
                       "2.weight": data["params"]["W1"].T, "2.bias": data["params"]["b1"],
                       "4.weight": data["params"]["W2"].T, "4.bias": data["params"]["b2"]})
    return _training_step(lib, model, lib.tensor(data["x"]), lib.tensor(data["labels"]), lib.nn.functional.cross_entropy)


def cnn_data(seed: int = 0) -> dict:
    """The seeds' MNIST Net: its initial weights (PyTorch's init bounds), a batch of 64 1x28x28 images."""
    rng = np.random.default_rng(seed)
    shapes = {"conv1.weight": (10, 1, 5, 5), "conv1.bias": (10,), "conv2.weight": (20, 10, 5, 5), "conv2.bias": (20,),
              "fc1.weight": (50, 320), "fc1.bias": (50,), "fc2.weight": (10, 50), "fc2.bias": (10,)}
    fan_in = {"conv1": 25, "conv2": 250, "fc1": 320, "fc2": 50}
    params = {k: (rng.uniform(-1, 1, s) / np.sqrt(fan_in[k.split(".")[0]])).astype(np.float32)
              for k, s in shapes.items()}
    return {"params": params, "x": rng.standard_normal((64, 1, 28, 28)).astype(np.float32),
            "labels": rng.integers(0, 10, 64)}


def cnn_step(lib, data: dict) -> Callable[[], None]:
    """One training step of the seeds' MNIST Net (seed 004), exactly as written there."""
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
            self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
            self.conv2_drop = nn.Dropout2d()
            self.fc1 = nn.Linear(320, 50)
            self.fc2 = nn.Linear(50, 10)

        def forward(self, x):
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, training=self.training)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    model = Net()
    _load(lib, model, data["params"])
    return _training_step(lib, model, lib.tensor(data["x"]), lib.tensor(data["labels"]), F.nll_loss)


def _load(lib, model, arrays: dict) -> None:
    model.load_state_dict({k: lib.tensor(np.ascontiguousarray(v)) for k, v in arrays.items()})


def _training_step(lib, model, x, labels, loss_fn) -> Callable[[], None]:
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def run() -> None:
        optimizer.zero_grad()
        loss_fn(model(x), labels).backward()
        optimizer.step()

    return run


# --- timing ---------------------------------------------------------------------------------
def interleaved(candidates: dict, rounds: int) -> dict:
    """Run each candidate once per round, in turn; return each one's list of times (seconds)."""
    times = {name: [] for name in candidates}
    for fn in candidates.values():
        fn()  # warm up: first-call costs (imports, allocations) are not what we measure
    gc.collect()
    for _ in range(rounds):
        for name, fn in candidates.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def report(title: str, times: dict, per: int = 1, unit: str = "ms", baseline: str | None = None) -> dict:
    scale = {"s": 1, "ms": 1e3, "µs": 1e6}[unit]
    medians = {name: statistics.median(t) / per for name, t in times.items()}
    print(f"\n{title}")
    for name, median in medians.items():
        ratio = ""
        if baseline and baseline in medians and name != baseline:
            ratio = f"   {median / medians[baseline]:.2f}x {baseline}"
        print(f"  {name:<12} {median * scale:10.2f} {unit}{ratio}")
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and a shorter chain (a smoke test)")
    args = parser.parse_args()
    rounds = 3 if args.quick else 7
    libs = {"glasstorch": glasstorch}
    if torch is not None:
        libs["torch"] = torch
    else:
        print("PyTorch is not installed: comparing with hand-written numpy only (pip install torch==2.13.0)")
    print(f"numpy {np.__version__}, one thread; {rounds} interleaved rounds; medians")
    results = {}

    with_floor = {**libs, "floor": floor}
    repeats = 2000
    for op in ("add", "mul"):
        times = interleaved({name: tiny_op(lib, op, repeats) for name, lib in with_floor.items()}, rounds)
        results[f"tiny {op}"] = report(f"tiny op: shape-(1,) {op}, forward + backward (per op)", times,
                                       per=repeats, unit="µs", baseline="torch")

    length = 10_000 if args.quick else 100_000

    def chain_times() -> dict:
        return interleaved({name: chain(lib, length) for name, lib in with_floor.items()}, max(2, rounds // 2))

    results["chain"] = report(f"chain of {length:,} ops, forward + backward", chain_times(), unit="s", baseline="torch")
    gc.disable()
    try:
        times = chain_times()
    finally:
        gc.enable()
    results["chain, gc off"] = report("the same chain, garbage collector off", times, unit="s", baseline="torch")

    data = mlp_data()
    candidates = {name: mlp_step(lib, data) for name, lib in libs.items()}
    candidates["numpy"] = mlp_step_numpy(data)
    times = interleaved(candidates, rounds * 5)
    results["mlp"] = report("MLP 784-256-128-10, batch 128: one training step", times, unit="ms", baseline="torch")
    mlp = results["mlp"]
    print(f"  glasstorch / numpy: {mlp['glasstorch'] / mlp['numpy']:.2f}x")

    candidates = {name: nn_mlp_step(lib, data) for name, lib in libs.items()}
    candidates["numpy"] = numpy_nets.mlp_step(data["params"], data["x"], data["labels"])
    times = interleaved(candidates, rounds * 5)
    results["nn mlp"] = report("nn.Sequential MLP 784-256-128-10, batch 128, SGD with momentum: one step", times,
                               unit="ms", baseline="torch")

    cnn = cnn_data()
    candidates = {name: cnn_step(lib, cnn) for name, lib in libs.items()}
    candidates["numpy"] = numpy_nets.cnn_step(cnn["params"], cnn["x"], cnn["labels"])
    times = interleaved(candidates, rounds * 3)
    results["cnn"] = report("the seeds' MNIST Net, batch 64x1x28x28, SGD with momentum: one step", times,
                            unit="ms", baseline="torch")

    print("\nTargets: glasstorch / torch and glasstorch / hand-written numpy")
    targets = {"tiny add": (0.5, None), "tiny mul": (0.5, None), "chain": (0.5, None), "mlp": (1.0, 1.15),
               "nn mlp": (1.0, 1.15), "cnn": (1.6, 1.15)}
    for key, (vs_torch, vs_numpy) in targets.items():
        line = f"  {key:<9}"
        if torch is not None:
            line += f" {results[key]['glasstorch'] / results[key]['torch']:.2f}x torch (target <= {vs_torch})"
        if vs_numpy is not None:
            line += f"   {results[key]['glasstorch'] / results[key]['numpy']:.2f}x numpy (target <= {vs_numpy})"
        if torch is not None and "floor" in results[key]:
            line += f"   floor: {results[key]['floor'] / results[key]['torch']:.2f}x torch"
        print(line)
    if torch is not None:
        off = results["chain, gc off"]
        print(f"  chain with the garbage collector off: glasstorch {off['glasstorch'] / off['torch']:.2f}x torch, "
              f"floor {off['floor'] / off['torch']:.2f}x torch")


if __name__ == "__main__":
    main()
