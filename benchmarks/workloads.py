"""The workloads ``make bench`` times, each written once for a library passed in as ``lib``.

``lib`` is ``glasstorch``, ``torch`` or the floor (``floor.py``), so every library runs the very same
code; "numpy" is the hand-written version of a training step (``numpy_nets.py``). A workload builds
a ``Bench``: ``run()`` does the work once (one timed round) and ``state`` holds what the tests
inspect (the leaves, the model, the parameters) to check that the work was really done.

``workloads(quick)`` lists them in the report's order, each named exactly: sizes, ops, and one
backward per how many ops. ``--quick`` keeps every workload but shortens the long chains.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import numpy_nets


@dataclass
class Bench:
    """One workload built for one library."""

    run: Callable[[], dict | None]  # one round; may return its own timings by phase, in seconds
    state: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Workload:
    key: str
    title: str  # what the report prints: the exact work
    build: Callable[[str, Any], Bench]  # (library kind, library module) -> Bench
    libraries: tuple[str, ...]  # the kinds that run it: glasstorch, torch, floor, numpy
    per: int = 1  # the report divides each time by this (ops per round) ...
    unit: str = "ms"  # ... and prints it in this unit
    phases: tuple[str, ...] = ("total",)  # what run() times; "total" is their sum
    rounds: float = 1.0  # rounds, relative to --rounds
    target: float | None = None  # issue 13: at most this x PyTorch (glasstorch, total)
    earlier_target: tuple[float | None, float | None] = (None, None)  # before: x PyTorch, x numpy
    gc_off: bool = False  # Python's garbage collector off during each round


# --- the graphs of + and * ------------------------------------------------------------------
def reused_leaves_graph(lib, n_ops: int = 2000) -> Bench:
    """``y = a``, then ``n_ops`` times alternately ``y = y + b`` and ``y = y * c``; one backward.

    ``a, b, c`` are shape-(1,) float32 leaves that require grad, so ``b`` and ``c`` are inputs of
    1,000 ops each and their gradients are accumulated 1,000 times, as a weight shared by the steps
    of a recurrent net is. Forward and backward are timed apart; backward includes ``y.sum()`` and
    freeing the graph (when ``y`` is dropped), so that no cost of a round goes unmeasured.
    """
    assert n_ops % 2 == 0, "the ops alternate + and *: an even number"
    a = lib.tensor([1.5], requires_grad=True)
    b = lib.tensor([0.25], requires_grad=True)
    c = lib.tensor([0.999], requires_grad=True)

    def run() -> dict:
        a.grad = b.grad = c.grad = None
        start = time.perf_counter()
        y = a
        for _ in range(n_ops // 2):
            y = y + b
            y = y * c
        forward_end = time.perf_counter()
        y.sum().backward()
        del y
        end = time.perf_counter()
        return {"forward": forward_end - start, "backward": end - forward_end}

    return Bench(run, {"a": a, "b": b, "c": c})


def scale_chain(lib, n_ops: int = 20_000) -> Bench:
    """``y = x``, then ``n_ops`` times ``y = y * 1.0001`` on a (16,) float32 tensor; ``y.sum().backward()``."""
    x = lib.tensor([1.0] * 16, requires_grad=True)

    def run() -> dict:
        x.grad = None
        start = time.perf_counter()
        y = x
        for _ in range(n_ops):
            y = y * 1.0001
        forward_end = time.perf_counter()
        y.sum().backward()
        del y
        end = time.perf_counter()
        return {"forward": forward_end - start, "backward": end - forward_end}

    return Bench(run, {"x": x})


def tiny_op(lib, op: str, repeats: int) -> Bench:
    """``repeats`` times: one add (or mul) of two shape-(1,) tensors, then its own backward."""
    a = lib.tensor([1.5], requires_grad=True)
    b = lib.tensor([2.0], requires_grad=True)

    def run() -> None:
        for _ in range(repeats):
            a.grad = b.grad = None
            out = a + b if op == "add" else a * b
            out.backward()

    return Bench(run, {"a": a, "b": b})


def chain(lib, length: int) -> Bench:
    """A chain of ``length`` ops on a shape-(1,) tensor (alternately ``* 1.0000001`` and ``+ 0.5``), one backward."""
    x = lib.tensor([1.0], requires_grad=True)

    def run() -> None:
        x.grad = None
        y = x
        for _ in range(length // 2):
            y = y * 1.0000001
            y = y + 0.5
        y.backward()

    return Bench(run, {"x": x})


# --- training steps -------------------------------------------------------------------------
def mlp_data(seed: int = 0) -> dict:
    """A 784-256-128-10 MLP's initial weights (PyTorch's init bounds), a batch of 128 inputs and labels."""
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


def nn_mlp_step(lib, data: dict) -> Bench:
    """The MLP as a framework user writes it: nn.Sequential, cross_entropy, SGD with momentum."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    p = data["params"]
    _load(lib, model, {"0.weight": p["W0"].T, "0.bias": p["b0"], "2.weight": p["W1"].T, "2.bias": p["b1"],
                       "4.weight": p["W2"].T, "4.bias": p["b2"]})
    return _training_step(lib, model, data, lib.nn.functional.cross_entropy)


def mlp_step(lib, data: dict, lr: float = 0.01) -> Bench:
    """The same MLP in tensor ops: forward, log_softmax + NLL by indexing, backward, a manual SGD update."""
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

    return Bench(run, {"params": params})


def mlp_step_numpy(data: dict, lr: float = 0.01) -> Bench:
    """The same step with the backward written by hand and a plain SGD update."""
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

    return Bench(run, {"params": params})


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


def mnist_net(lib, dropout: bool = True):
    """The seeds' MNIST Net (seed 004) as written there; ``dropout=False`` leaves out its two dropouts."""
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
            x = self.conv2(x)
            if dropout:
                x = self.conv2_drop(x)
            x = F.relu(F.max_pool2d(x, 2))
            x = x.view(-1, 320)
            x = F.relu(self.fc1(x))
            if dropout:
                x = F.dropout(x, training=self.training)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    return Net()


def cnn_step(lib, data: dict, dropout: bool = True) -> Bench:
    """One training step of the seeds' MNIST Net: nll_loss, SGD with momentum."""
    model = mnist_net(lib, dropout)
    _load(lib, model, data["params"])
    return _training_step(lib, model, data, lib.nn.functional.nll_loss)


def _load(lib, model, arrays: dict) -> None:
    model.load_state_dict({k: lib.tensor(np.ascontiguousarray(v)) for k, v in arrays.items()})


def _training_step(lib, model, data: dict, loss_fn: Callable) -> Bench:
    """``zero_grad``, forward, loss, ``backward``, ``step``: one step of SGD(lr=0.01, momentum=0.9)."""
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, labels = lib.tensor(data["x"]), lib.tensor(data["labels"])

    def run() -> None:
        optimizer.zero_grad()
        loss_fn(model(x), labels).backward()
        optimizer.step()

    return Bench(run, {"model": model, "x": x, "labels": labels})


def _numpy_step(make: Callable, data: dict, **options: Any) -> Bench:
    params = {k: v.copy() for k, v in data["params"].items()}
    return Bench(make(params, data["x"], data["labels"], **options), {"params": params})


# --- the report's list ------------------------------------------------------------------------
def workloads(quick: bool = False) -> list[Workload]:
    """Every workload, in the report's order: issue 13's four first, then the earlier ones."""
    graph_ops = 2000
    scale_ops = 2000 if quick else 20_000
    chain_ops = 1000 if quick else 100_000
    repeats = 200 if quick else 2000
    mlp, cnn = mlp_data(), cnn_data()
    ops = ("glasstorch", "torch", "floor")
    steps = ("glasstorch", "torch", "numpy")

    def mnist(dropout: bool) -> Callable[[str, Any], Bench]:
        def build(kind: str, lib: Any) -> Bench:
            if kind == "numpy":
                return _numpy_step(numpy_nets.cnn_step, cnn, dropout=dropout)
            return cnn_step(lib, cnn, dropout)
        return build

    net = ("the seeds' MNIST Net (conv 1->10 5x5, max-pool 2, ReLU, conv 10->20 5x5, {}max-pool 2, ReLU, "
           "Linear 320->50, ReLU, {}Linear 50->10, log_softmax), nll_loss, SGD(lr=0.01, momentum=0.9), batch 64 "
           "of 1x28x28: one step (zero_grad, forward, backward, step), ms")
    return [
        Workload("graph", f"a {graph_ops:,}-op graph with reused leaves: y = a, then {graph_ops:,} times alternately "
                 "y = y + b and y = y * c (a, b, c: shape-(1,) float32, requires_grad), then one y.sum().backward(); "
                 "per op, µs (backward includes y.sum() and freeing the graph)",
                 lambda kind, lib: reused_leaves_graph(lib, graph_ops), ops, per=graph_ops, unit="µs",
                 phases=("forward", "backward"), rounds=5, target=1.2),
        Workload("scale-chain", f"a {scale_ops:,}-op chain: y = x, then {scale_ops:,} times y = y * 1.0001 "
                 "(x: shape-(16,) float32, requires_grad), then one y.sum().backward(); per op, µs",
                 lambda kind, lib: scale_chain(lib, scale_ops), ops, per=scale_ops, unit="µs",
                 phases=("forward", "backward"), rounds=2, target=0.6),
        Workload("mlp", "an MLP 784-256-128-10 (nn.Sequential of Linear and ReLU), cross_entropy, "
                 "SGD(lr=0.01, momentum=0.9), batch 128: one step (zero_grad, forward, backward, step), ms",
                 lambda kind, lib: (_numpy_step(numpy_nets.mlp_step, mlp) if kind == "numpy"
                                    else nn_mlp_step(lib, mlp)),
                 steps, rounds=10, target=1.0, earlier_target=(1.0, 1.15)),
        Workload("mnist", net.format("Dropout2d, ", "dropout, "), mnist(True), steps, rounds=5,
                 earlier_target=(1.6, 1.15)),
        Workload("mnist-no-dropout", "the same MNIST step without its two dropouts (Dropout2d after conv2, "
                 "dropout before fc2), ms", mnist(False), steps, rounds=5, target=1.2),
        *(Workload(f"tiny-{op}", f"a tiny op: {repeats:,} times one {op} of two shape-(1,) tensors, then its "
                   "own backward (one backward per op); per op, µs",
                   lambda kind, lib, op=op: tiny_op(lib, op, repeats), ops, per=repeats, unit="µs",
                   earlier_target=(0.5, None)) for op in ("add", "mul")),
        Workload("chain", f"a {chain_ops:,}-op chain on a shape-(1,) tensor (alternately y * 1.0000001 and "
                 "y + 0.5), then one y.backward(); s", lambda kind, lib: chain(lib, chain_ops), ops, unit="s",
                 rounds=0.5, earlier_target=(0.5, None)),
        Workload("chain-gc-off", "the same chain with Python's garbage collector off (gc.disable()); s",
                 lambda kind, lib: chain(lib, chain_ops), ops, unit="s", rounds=0.5, gc_off=True),
        Workload("manual-mlp", "the same MLP 784-256-128-10 in tensor ops (x @ W + b, relu, log_softmax, "
                 "NLL by indexing, mean) with a manual SGD update under no_grad, batch 128: one step, ms",
                 lambda kind, lib: mlp_step_numpy(mlp) if kind == "numpy" else mlp_step(lib, mlp),
                 steps, rounds=10, earlier_target=(1.0, 1.15)),
    ]
