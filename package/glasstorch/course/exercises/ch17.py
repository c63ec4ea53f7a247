"""Chapter 17 exercises: the three functions a training script is made of.

* ``17.cross_entropy``: ``F.cross_entropy`` from a stable log_softmax and the NLL pick, with
  ``reduction``, ``ignore_index`` and ``label_smoothing``;
* ``17.evaluate``: the mean loss and the accuracy over a loader, in ``eval()`` mode and under
  ``no_grad()``, leaving the model in the mode it came in;
* ``17.train_one_epoch``: one epoch of zero_grad / forward / backward / step, returning the
  epoch's mean loss.

glasstorch has no ``evaluate`` or ``train_one_epoch`` of its own (nor has PyTorch): their
references below are the chapter's loops, written with the package's pieces, and the checks
compare what the learner's loop *does* to a model and an optimizer (losses, final weights, the
mode and grad mode at every forward) with what the reference loop does. The data are small:
synthetic blobs, and a slice of scikit-learn's digits for the chapter's own ``Net``.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

import glasstorch
import glasstorch.nn.functional as F
from glasstorch import nn
from glasstorch._tensor import Tensor
from glasstorch.utils.data import DataLoader, TensorDataset

from ..checking import Case, exercise, replaced
from ._harness import fit

# -- the data and the models ----------------------------------------------------------------------


def _blobs(rng: np.random.Generator, n: int, features: int = 4, classes: int = 3) -> tuple:
    """``n`` points around ``classes`` random centres: (float32 features, int64 labels)."""
    centres = rng.standard_normal((classes, features)) * 2
    labels = rng.integers(0, classes, n)
    x = centres[labels] + rng.standard_normal((n, features))
    return x.astype(np.float32), labels.astype(np.int64)


@functools.cache
def _digits() -> tuple:
    """scikit-learn's digits, prepared as the chapter prepares them (read-only: shared)."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]
    x = (x - x.mean()) / x.std()
    x.flags.writeable = False
    return x, digits.target.astype(np.int64)


def _digits_slice(rng: np.random.Generator, n: int) -> tuple:
    x, y = _digits()
    rows = np.sort(rng.choice(len(y), n, replace=False))
    return x[rows], y[rows]


class Net(nn.Module):
    """The chapter's network for 8 x 8 digits (seed 004 adapted): returns log-probabilities."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = p
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5, padding=2)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5, padding=2)
        self.conv2_drop = nn.Dropout2d(p)
        self.fc1 = nn.Linear(80, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x: Tensor) -> Tensor:
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 80)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, p=self.p, training=self.training)
        return F.log_softmax(self.fc2(x), dim=1)


_MODELS: dict[str, Callable[[], nn.Module]] = {  # each returns logits, except Net (log-probabilities)
    "mlp with dropout": lambda: nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 3)),
    "mlp with BatchNorm1d": lambda: nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3)),
    "the chapter's Net": Net,
}
_LOSSES: dict[str, Callable[..., Tensor]] = {"cross_entropy": F.cross_entropy, "nll_loss": F.nll_loss}


def _loader(x: np.ndarray, y: np.ndarray, batch_size: int, shuffle: bool = False) -> DataLoader:
    dataset = TensorDataset(glasstorch.tensor(x), glasstorch.tensor(y))
    generator = glasstorch.Generator().manual_seed(1) if shuffle else None
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, generator=generator)


def _watch(model: nn.Module) -> tuple[list, Any]:
    """Record, at every forward of ``model``, its mode and whether a graph is being recorded."""
    calls: list = []

    def hook(module: nn.Module, inputs: tuple, output: Tensor) -> None:
        calls.append({"model.training": module.training, "grad mode on": glasstorch.is_grad_enabled()})
    return calls, model.register_forward_hook(hook)


# -- 17.cross_entropy -----------------------------------------------------------------------------

_CROSS_ENTROPY = F.cross_entropy  # the package's own, kept before any replacement


def _cross_entropy_reference(input: Tensor, target: Tensor, reduction: str = "mean", ignore_index: int = -100,
                             label_smoothing: float = 0.0) -> Tensor:
    return _CROSS_ENTROPY(input, target, reduction=reduction, ignore_index=ignore_index,
                          label_smoothing=label_smoothing)


def _observe_cross_entropy(impl: Callable[..., Tensor], logits: np.ndarray, target: np.ndarray, reduction: str,
                           ignore_index: int, label_smoothing: float, upstream: np.ndarray) -> dict:
    x = glasstorch.from_numpy(logits).requires_grad_()
    loss = impl(x, glasstorch.from_numpy(target), reduction=reduction, ignore_index=ignore_index,
                label_smoothing=label_smoothing)
    # one weight per sample for 'none', one number otherwise (a loss of a wrong shape still gets a
    # gradient, so that the comparison can report its shape)
    weights = upstream if reduction == "none" else upstream[0]
    (loss * glasstorch.from_numpy(np.asarray(weights, dtype=logits.dtype))).sum().backward()
    return {"loss": loss, "input.grad": x.grad}


def _plugged_cross_entropy(impl: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """What ``nn.CrossEntropyLoss.forward`` calls: F.cross_entropy's signature, the learner's body."""
    def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
                      ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                      label_smoothing: float = 0.0) -> Tensor:
        assert weight is None and size_average is None and reduce is None, "not part of the exercise"
        return impl(input, target, reduction=reduction, ignore_index=ignore_index, label_smoothing=label_smoothing)
    return cross_entropy


def _train_with_cross_entropy(impl: Callable[..., Tensor], x: np.ndarray, y: np.ndarray) -> dict:
    with replaced(F, "cross_entropy", _plugged_cross_entropy(impl)):
        loss_fn = nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.1)
        model, _, losses = fit(_MODELS["mlp with dropout"], x, y, steps=8, loss_fn=loss_fn)
        return {"losses": losses, "weights after 8 steps": model.state_dict()}


def _ce_case(name: str, rng: np.random.Generator, n: int = 5, classes: int = 4, *, reduction: str = "mean",
             ignore_index: int = -100, label_smoothing: float = 0.0, ignored: int = 0, scale: float = 2.0,
             hint: str | None = None) -> Case:
    logits = (rng.standard_normal((n, classes)) * scale).astype(np.float32)
    target = rng.integers(0, classes, n).astype(np.int64)
    target[rng.choice(n, ignored, replace=False)] = ignore_index
    upstream = rng.standard_normal(n).astype(np.float32)
    return Case(name, (logits, target, reduction, ignore_index, label_smoothing, upstream), hint=hint)


def _ce_cases(rng: np.random.Generator) -> list[Case]:
    x, y = _blobs(rng, 24)
    return [
        _ce_case("a batch of 5, 4 classes, reduction='mean'", rng,
                 hint="the loss of one sample is -log_softmax(logits)[target]; 'mean' averages them. "
                      "log_softmax(z) = z - log(sum(exp(z))) along dim 1."),
        _ce_case("reduction='sum'", rng, reduction="sum"),
        _ce_case("reduction='none': one loss per sample", rng, reduction="none"),
        _ce_case("large logits (about ±1000): subtract each row's maximum first", rng, scale=1000.0,
                 hint="exp(1000) overflows to inf: compute log_softmax as (z - max) - log(sum(exp(z - max))) "
                      "with the row maximum (amax(dim=1, keepdim=True)); the result is the same, and finite."),
        _ce_case("ignore_index=-100: two ignored samples, 'mean' divides by the others", rng, n=6, ignored=2,
                 hint="an ignored sample contributes nothing, and 'mean' divides by the number of samples "
                      "*not* ignored. Careful: indexing with -100 would fail or pick a wrong class, "
                      "so pick a valid class for them (e.g. 0) and then mask their loss to 0."),
        _ce_case("ignore_index=1, reduction='none': an ignored sample's loss is 0", rng, n=6, ignored=2,
                 ignore_index=1, reduction="none"),
        _ce_case("label_smoothing=0.1", rng, label_smoothing=0.1,
                 hint="with smoothing eps the target is (1 - eps) on the class plus eps / C on *every* class "
                      "(the true one included): loss = (1 - eps) * nll + eps / C * sum over classes of "
                      "-log_softmax."),
        _ce_case("label_smoothing=0.2 with ignored samples, 'mean'", rng, n=6, ignored=2, label_smoothing=0.2,
                 hint="the smoothing term of an ignored sample is 0 too, and both terms of 'mean' are divided by "
                      "the number of samples kept."),
        Case("inside glasstorch: nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.1) trains an MLP",
             (x, y), observe=lambda impl, xx, yy: _train_with_cross_entropy(impl, xx, yy)),
    ]


exercise(
    id="17.cross_entropy",
    entry="cross_entropy",
    title="cross_entropy = a stable log_softmax, then nll (ignore_index, label_smoothing, reduction)",
    cases=_ce_cases,
    reference=_cross_entropy_reference,
    observe=_observe_cross_entropy,
    hint="log_probs = shifted - log(sum(exp(shifted))), shifted = logits - row max; nll = -log_probs at "
         "each target; mask the ignored samples; add the smoothing term; reduce ('mean' divides by the "
         "number of samples kept).",
)


# -- 17.evaluate ----------------------------------------------------------------------------------

def reference_evaluate(model: nn.Module, loader: DataLoader, loss_fn: Callable[..., Tensor]) -> tuple:
    """The mean loss per sample and the accuracy over ``loader``, in eval mode, without a graph."""
    was_training = model.training
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with glasstorch.no_grad():
        for x, y in loader:
            out = model(x)
            total_loss += loss_fn(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            count += len(y)
    model.train(was_training)
    return total_loss / count, correct / count


def _observe_evaluate(impl: Callable[..., tuple], model_name: str, loss_name: str, train_first: bool,
                      x: np.ndarray, y: np.ndarray, batch_size: int) -> dict:
    glasstorch.manual_seed(0)
    model = _MODELS[model_name]()
    if train_first:  # a few training batches, so that BatchNorm's running statistics are not trivial
        fit(lambda: model, x, y, steps=2, loss_fn=_LOSSES[loss_name])
    model.train(train_first)
    calls, handle = _watch(model)
    glasstorch.manual_seed(1)  # the same dropout masks for every implementation, if dropout is on
    loss, accuracy = impl(model, _loader(x, y, batch_size), _LOSSES[loss_name])
    handle.remove()
    grad_mode_after = glasstorch.is_grad_enabled()
    glasstorch.set_grad_enabled(True)  # whatever the implementation did, the next case starts clean
    return {"forward calls": calls, "mean loss": float(loss), "accuracy": float(accuracy),
            "model.training afterwards": model.training, "grad mode afterwards": grad_mode_after,
            "state_dict afterwards (buffers included)": model.state_dict()}


def _evaluate_cases(rng: np.random.Generator) -> list[Case]:
    blobs32, blobs30 = _blobs(rng, 32), _blobs(rng, 30)
    return [
        Case("an MLP with dropout, in training mode, 4 batches of 8",
             ("mlp with dropout", "cross_entropy", True, *blobs32, 8),
             hint="evaluate in eval() mode (dropout off) and under torch.no_grad() (no graph: nothing will "
                  "call backward), then put the model back in the mode it came in."),
        Case("the last batch is smaller (30 samples, batches of 8)",
             ("mlp with dropout", "cross_entropy", True, *blobs30, 8),
             hint="the mean loss is per *sample*: weigh each batch's mean loss by its size (or sum with "
                  "reduction='sum') and divide by the number of samples; the mean of the batch means "
                  "overweights the small last batch."),
        Case("the model comes in eval mode: it must stay in eval mode",
             ("mlp with dropout", "cross_entropy", False, *blobs32, 16),
             hint="remember model.training before switching to eval(), and restore exactly that "
                  "(model.train(was_training)): a model that was in eval mode must not come back training."),
        Case("BatchNorm1d: evaluating must not move the running statistics",
             ("mlp with BatchNorm1d", "cross_entropy", True, *blobs30, 8)),
        Case("the chapter's Net (log-probabilities, nll_loss) on 60 digits, batches of 25",
             ("the chapter's Net", "nll_loss", True, *_digits_slice(rng, 60), 25)),
    ]


exercise(
    id="17.evaluate",
    entry="evaluate",
    title="evaluate: mean loss and accuracy, in eval mode and without a graph",
    cases=_evaluate_cases,
    reference=reference_evaluate,
    observe=_observe_evaluate,
    hint="remember the mode, switch to eval(), loop over the loader under torch.no_grad() summing the "
         "per-sample losses and the correct predictions (argmax over dim 1), divide both by the number "
         "of samples, and restore the mode.",
)


# -- 17.train_one_epoch ---------------------------------------------------------------------------

def reference_train_one_epoch(model: nn.Module, loader: DataLoader, optimizer: Any,
                              loss_fn: Callable[..., Tensor]) -> float:
    """One epoch of training (the chapter's ``train_epoch``); the mean loss per sample."""
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(y)
        count += len(y)
    return total / count


def _observe_train(impl: Callable[..., float], model_name: str, loss_name: str, optimizer_name: str,
                   start_in_eval: bool, x: np.ndarray, y: np.ndarray, batch_size: int) -> dict:
    glasstorch.manual_seed(0)
    model = _MODELS[model_name]()
    if start_in_eval:
        model.eval()
    options = {"lr": 0.05, "momentum": 0.9} if optimizer_name == "SGD" else {"lr": 0.01}
    optimizer = getattr(glasstorch.optim, optimizer_name)(model.parameters(), **options)
    steps: list = []
    step = optimizer.step  # count the steps: one per batch
    optimizer.step = lambda *args, **kwargs: (steps.append(1), step(*args, **kwargs))[1]
    calls, handle = _watch(model)
    glasstorch.manual_seed(1)  # the same dropout masks for every implementation
    mean_loss = impl(model, _loader(x, y, batch_size, shuffle=True), optimizer, _LOSSES[loss_name])
    handle.remove()
    return {"forward calls": calls, "optimizer steps": len(steps), "mean loss": float(mean_loss),
            "model.training afterwards": model.training, "state_dict afterwards": model.state_dict(),
            "optimizer.state_dict()['state']": optimizer.state_dict()["state"]}


def _train_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("an MLP with dropout, SGD with momentum, 4 batches of 8",
             ("mlp with dropout", "cross_entropy", "SGD", False, *_blobs(rng, 32), 8),
             hint="per batch: optimizer.zero_grad(), loss = loss_fn(model(x), y), loss.backward(), "
                  "optimizer.step(), in that order (zero_grad anywhere before backward, never between "
                  "backward and step)."),
        Case("the last batch is smaller (30 samples, batches of 8)",
             ("mlp with dropout", "cross_entropy", "SGD", False, *_blobs(rng, 30), 8),
             hint="the epoch's mean loss is per *sample*: add loss.item() * len(y) for each batch and "
                  "divide by the number of samples."),
        Case("the model comes in eval mode: training must switch it to train()",
             ("mlp with dropout", "cross_entropy", "Adam", True, *_blobs(rng, 32), 16),
             hint="call model.train() at the start: after an evaluate() the model may be in eval mode, "
                  "and would then train without dropout (and with frozen BatchNorm statistics)."),
        Case("BatchNorm1d and Adam", ("mlp with BatchNorm1d", "cross_entropy", "Adam", False, *_blobs(rng, 30), 10)),
        Case("the chapter's Net (nll_loss) on 60 digits, batches of 25",
             ("the chapter's Net", "nll_loss", "SGD", False, *_digits_slice(rng, 60), 25)),
    ]


exercise(
    id="17.train_one_epoch",
    entry="train_one_epoch",
    title="train_one_epoch: zero_grad, forward, backward, step, and the epoch's mean loss",
    cases=_train_cases,
    reference=reference_train_one_epoch,
    observe=_observe_train,
    hint="model.train(); for each batch: zero_grad, forward, loss, backward, step; accumulate "
         "loss.item() * batch size; return the total divided by the number of samples.",
)
