"""Chapter 08 exercises: a custom ``Function`` in the new style (``forward`` without ``ctx``, then
``setup_context``), a Hessian-vector product by double backward, and a pack/unpack pair for
``saved_tensors_hooks`` that keeps saved tensors "on disk", in float16.

Every case draws its inputs from the grader's seed: the Function is run on fresh values (large
ones too, where a naive formula overflows) and gradchecked; the Hessian-vector product is
compared with ``autograd.functional.hvp`` on fresh functions and vectors; the stash trains through
fresh small networks, and what it keeps is measured.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np

import glasstorch
import glasstorch.nn.functional as F
from glasstorch import nn
from glasstorch._tensor import Tensor
from glasstorch.autograd.gradcheck import gradcheck

from ..checking import Case, exercise
from ._harness import random_seed, result_of, seeded

# -- 08.softplus ----------------------------------------------------------------------------------


class Softplus(glasstorch.autograd.Function):
    """softplus(x) = log(1 + exp(beta x)) / beta, written so that it never overflows, with
    ``forward`` and ``setup_context`` apart (the reference)."""

    @staticmethod
    def forward(x: Tensor, beta: float) -> Tensor:
        z = x * beta
        return (z.clamp(min=0) + (-z.abs()).exp().log1p()) / beta

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Tensor) -> None:
        x, beta = inputs
        ctx.save_for_backward(x)
        ctx.beta = beta

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple:
        (x,) = ctx.saved_tensors
        return grad_output * (x * ctx.beta).sigmoid(), None


def _observe_softplus(function: type, x: np.ndarray, beta: float, upstream: np.ndarray) -> dict:
    """Values, the gradient for an upstream gradient, the Node's name and what forward looks like."""
    forward_parameters = list(inspect.signature(function.forward).parameters)
    uses_setup_context = "setup_context" in vars(function) and forward_parameters[:1] != ["ctx"]
    t = glasstorch.tensor(x, requires_grad=True)
    y = result_of(lambda: function.apply(t, beta))
    if not isinstance(y, Tensor):
        return {"forward written without ctx, with setup_context": uses_setup_context, "Softplus.apply(x, beta)": y,
                "dtype of the result": None, "grad_fn is the Function's Node": None,
                "backward with a random upstream gradient": None, "x.grad": None}
    backward = result_of(lambda: y.backward(glasstorch.tensor(upstream)))
    return {
        "forward written without ctx, with setup_context": uses_setup_context,
        "Softplus.apply(x, beta)": y.detach(),
        "dtype of the result": y.dtype,
        "grad_fn is the Function's Node": y.grad_fn is not None and y.grad_fn.name() == function.__name__ + "Backward",
        "backward with a random upstream gradient": backward if backward is not None else "ok",
        "x.grad": t.grad,
    }


def _observe_softplus_gradcheck(function: type, x: np.ndarray, beta: float) -> dict:
    t = glasstorch.tensor(x, dtype=glasstorch.float64, requires_grad=True)
    return {"gradcheck (float64, finite differences)":
            result_of(lambda: gradcheck(lambda u: function.apply(u, beta), (t,), raise_exception=False))}


def _softplus_cases(rng: np.random.Generator) -> list[Case]:
    def values(n: int, scale: float) -> np.ndarray:
        return (rng.standard_normal(n) * scale).astype(np.float32)

    beta = float(rng.choice([0.5, 2.0, 3.0]))
    overflow = ("exp(beta * x) overflows for large x (inf), and log(1 + exp(...)) loses everything for "
                "very negative x: use max(z, 0) + log1p(exp(-|z|)) with z = beta * x.")
    return [
        Case("beta = 1, small values", (values(6, 1.0), 1.0, values(6, 1.0))),
        Case(f"beta = {beta}", (values(8, 2.0), beta, values(8, 1.0)),
             hint="beta appears twice: in the forward (divide by beta) and in the gradient, "
                  "sigmoid(beta * x); keep beta on ctx in setup_context."),
        Case("large values, both signs (a naive formula overflows)",
             (np.concatenate([values(3, 1.0), np.float32([60., -60., 95., -120.])]), 1.0, values(7, 1.0)),
             hint=overflow),
        Case("float64 gradcheck", (rng.standard_normal(5), beta), observe=_observe_softplus_gradcheck,
             hint="the gradient of log(1 + exp(beta x)) / beta is sigmoid(beta x), times grad_output."),
    ]


exercise(
    id="08.softplus",
    entry="Softplus",
    title="A custom Function with setup_context: a softplus that never overflows",
    cases=_softplus_cases,
    reference=Softplus,
    observe=_observe_softplus,
    hint="forward(x, beta) computes (max(z, 0) + log1p(exp(-|z|))) / beta with z = beta * x and takes "
         "no ctx; setup_context(ctx, inputs, output) saves x and keeps beta on ctx; backward(ctx, grad) "
         "returns grad * sigmoid(beta * x) and None for beta.",
)


# -- 08.hvp ---------------------------------------------------------------------------------------

def hvp(f: Callable[[Tensor], Tensor], x: Tensor, v: Tensor) -> Tensor:
    """The reference: H(x) v by two backward passes, leaving ``x.grad`` alone."""
    (grad,) = glasstorch.autograd.grad(f(x), x, create_graph=True)
    (hv,) = glasstorch.autograd.grad((grad * v).sum(), x)
    return hv


def _function(kind: str, rng: np.random.Generator) -> Callable[[Tensor], Tensor]:
    if kind == "cubic":
        a = rng.standard_normal(3)
        return lambda x: (x ** 3).sum() * float(a[0]) + x[0] * x[1] * float(a[1]) + (x * x).sum() * float(a[2])
    if kind == "quadratic form":
        m = rng.standard_normal((4, 4))
        matrix = glasstorch.tensor(m @ m.T)
        return lambda x: x @ (matrix @ x) / 2
    if kind == "exp and sin":
        return lambda x: (x.exp() * x.sin()).sum() + x.prod()
    w = glasstorch.tensor(rng.standard_normal((3, 4)))  # a tiny network's loss, as a function of its input
    return lambda x: ((w @ x).tanh() ** 2).sum()


def _observe_hvp(hvp_impl: Callable, kind: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    f = _function(kind, rng)
    x = glasstorch.tensor(rng.standard_normal(4 if kind != "cubic" else 3), requires_grad=True)
    v = glasstorch.tensor(rng.standard_normal(tuple(x.shape)))
    result = result_of(lambda: hvp_impl(f, x, v))
    if not isinstance(result, Tensor):
        return {"hvp(f, x, v)": result, "the same as autograd.functional.hvp": None, "result.requires_grad": None,
                "x.grad afterwards": x.grad}
    return {
        "hvp(f, x, v)": result.detach(),
        "the same as autograd.functional.hvp": bool(np.allclose(
            result.detach().numpy(), glasstorch.autograd.functional.hvp(f, x.detach(), v)[1].numpy(), rtol=1e-6)),
        "result.requires_grad": result.requires_grad,
        "x.grad afterwards": x.grad,
    }


def _hvp_cases(rng: np.random.Generator) -> list[Case]:
    kinds = ["cubic", "quadratic form", "exp and sin", "a tanh layer's output"]
    return [Case(f"f = {kind}", (kind, random_seed(rng)),
                 hint=("the first grad needs create_graph=True, so that the gradient is itself a graph "
                       "you can differentiate; the second does not, so the result carries no graph.")
                 if kind == "cubic" else None) for kind in kinds]


exercise(
    id="08.hvp",
    entry="hvp",
    title="A Hessian-vector product by double backward",
    cases=_hvp_cases,
    reference=hvp,
    observe=_observe_hvp,
    rtol=1e-6,
    atol=1e-9,
    hint="grad = autograd.grad(f(x), x, create_graph=True)[0], then autograd.grad((grad * v).sum(), x)[0]: "
         "the gradient of grad . v is H v. Use autograd.grad, not backward(), so that x.grad stays None.",
)


# -- 08.disk_stash --------------------------------------------------------------------------------

class DiskStash:
    """The reference: saved tensors written to ``self.disk`` (a dict standing for files on disk),
    floating-point ones in float16; what pack returns is only a key."""

    def __init__(self) -> None:
        self.disk: dict = {}

    def pack(self, tensor: Tensor) -> int:
        key = len(self.disk)
        array = (tensor.detach().half() if tensor.is_floating_point() else tensor.detach()).numpy()
        self.disk[key] = (tensor.dtype, array.dtype, array.shape, array.tobytes())
        return key

    def unpack(self, key: int) -> Tensor:
        dtype, stored, shape, data = self.disk[key]
        return glasstorch.from_numpy(np.frombuffer(data, dtype=stored).reshape(shape).copy()).to(dtype)


def _bytes_inside(value: Any) -> int:
    """The bytes of the arrays, tensors and byte strings inside ``value`` (containers searched)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, dict):
        return sum(_bytes_inside(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return sum(_bytes_inside(v) for v in value)
    return 0


def _holds_data(value: Any) -> bool:
    if isinstance(value, (Tensor, np.ndarray, bytes, bytearray, memoryview)):
        return True
    if isinstance(value, dict):
        return any(_holds_data(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(_holds_data(v) for v in value)
    return False


def _model(kind: str, width: int) -> nn.Module:
    if kind == "classifier":
        return nn.Sequential(nn.Linear(5, width), nn.Tanh(), nn.Linear(width, 3))
    return nn.Sequential(nn.Linear(5, width), nn.GELU(), nn.Linear(width, width), nn.Sigmoid(), nn.Linear(width, 1))


def _loss(kind: str, model: nn.Module, x: Tensor, y: Tensor) -> Tensor:
    if kind == "classifier":
        return F.cross_entropy(model(x), y)  # saves the int64 targets too
    return ((model(x) - y) ** 2).mean()


def _observe_stash(stash_class: type, kind: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    width, batch = int(rng.integers(6, 12)), int(rng.integers(4, 9))
    x = glasstorch.tensor(rng.standard_normal((batch, 5)), dtype=glasstorch.float32)
    y = (glasstorch.tensor(rng.integers(0, 3, batch)) if kind == "classifier"
         else glasstorch.tensor(rng.standard_normal((batch, 1)), dtype=glasstorch.float32))
    plain_model = seeded(seed, lambda: _model(kind, width))
    _loss(kind, plain_model, x, y).backward()
    plain = [p.grad for p in plain_model.parameters()]

    model = seeded(seed, lambda: _model(kind, width))
    stash = result_of(stash_class)
    if not hasattr(stash, "pack"):
        return {"DiskStash()": stash}
    saved, packed = [], []

    def pack(tensor: Tensor) -> Any:
        saved.append(tensor.numel() * (2 if tensor.is_floating_point() else tensor.element_size()))
        packed.append(stash.pack(tensor))
        return packed[-1]

    with glasstorch.autograd.graph.saved_tensors_hooks(pack, stash.unpack):
        loss = result_of(lambda: _loss(kind, model, x, y))
    backward = result_of(loss.backward) if isinstance(loss, Tensor) else loss
    disk = getattr(stash, "disk", None)
    grads = [p.grad for p in model.parameters()]
    close = backward is None and all(
        g is not None and g.dtype == p.dtype and np.allclose(g.numpy(), p.numpy(), rtol=2e-2, atol=2e-3)
        for g, p in zip(grads, plain))
    return {
        "tensors saved for backward": len(saved),
        "what pack returned holds no tensor, array or bytes": not any(_holds_data(p) for p in packed),
        "entries in stash.disk": len(disk) if isinstance(disk, dict) else disk,
        "bytes in stash.disk (2 per float, ints as they are)":
            _bytes_inside(disk) if isinstance(disk, dict) else None,
        "backward": backward if backward is not None else "ok",
        "gradient dtypes": [None if g is None else g.dtype for g in grads],
        "gradients within 2% of the float32 run": close,
    }


def _stash_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("a regression MLP (Linear, GELU, Sigmoid)", ("regression", random_seed(rng)),
             hint="pack must return only a key (an int): write the numbers to self.disk as float16 bytes "
                  "(tensor.detach().half().numpy().tobytes()) with the shape and the dtype beside them."),
        Case("a classifier with cross_entropy (saves int64 targets)", ("classifier", random_seed(rng)),
             hint="cross_entropy saves the int64 class indices: only floating-point tensors go to float16 "
                  "(tensor.is_floating_point()); keep the others in their own dtype."),
        Case("another regression MLP", ("regression", random_seed(rng)),
             hint="unpack must give back a tensor of the saved shape and the saved dtype (float32 here): "
                  "np.frombuffer(...).reshape(shape), then .to(dtype)."),
    ]


exercise(
    id="08.disk_stash",
    entry="DiskStash",
    title="A pack/unpack pair that keeps saved tensors on 'disk', in float16",
    cases=_stash_cases,
    reference=DiskStash,
    observe=_observe_stash,
    hint="pack(tensor): store (dtype, shape, bytes) in self.disk under a new key, floating-point tensors "
         "as float16, and return the key; unpack(key): rebuild the array with np.frombuffer, reshape it, "
         "make a tensor and convert it back to the saved dtype.",
)
