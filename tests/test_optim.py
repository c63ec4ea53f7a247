"""glasstorch.optim against real PyTorch: optimizers, their state dicts, and lr schedulers.

Every program is written once as a function of the library (``def program(lib)``) and run with
both ``glasstorch`` and ``torch``. Parameters start from the same float32 numpy arrays; each
step's gradients come from each library's own autograd on the same fixed loss (a least-squares
term plus a quartic one, so the gradients change along the way), so the whole training loop is
real. Parameters must agree to float32 tolerance after every one of 20 steps; state dicts must
agree in structure (keys and their order, indices, group options) and values; learning rates
from the schedulers must agree exactly (both compute them in Python floats, term for term);
errors must agree in type and message (``torch.`` read as ``glasstorch.``).

A few tests need only glasstorch (resuming from a checkpoint gives the uninterrupted trajectory
bit for bit); they run without PyTorch too.
"""
from __future__ import annotations

import copy
import importlib
import io
import re
import warnings

import numpy as np
import pytest

import glasstorch
from glasstorch.testing import real_torch

torch = real_torch()

# a test marked so compares with real PyTorch; skipped, with the reason, where it is missing
compares_with_torch = pytest.mark.skipif(
    torch is None,
    reason="PyTorch is not installed: comparisons with real PyTorch are skipped (pip install torch==2.13.0)",
)


def with_torch(test):
    return pytest.mark.torch(compares_with_torch(test))


STEPS = 20
RTOL, ATOL = 1e-5, 1e-6

# --- the problem: the same start and the same loss in both libraries ------------------------------
_rng = np.random.default_rng(1234)
X = _rng.standard_normal((8, 4)).astype(np.float32)
Y = _rng.standard_normal((8, 3)).astype(np.float32)
INITIAL = {
    "weight": (0.5 * _rng.standard_normal((3, 4))).astype(np.float32),
    "bias": (0.1 * _rng.standard_normal(3)).astype(np.float32),
    "v": np.array([0.9, -1.3, 0.4, 1.7, -0.6], dtype=np.float32),
    "frozen": np.array([1.0, 2.0], dtype=np.float32),  # in the optimizer, never gets a gradient
}


def make_params(lib, values: dict | None = None) -> list:
    values = INITIAL if values is None else values
    return [lib.nn.Parameter(lib.tensor(values[name].copy())) for name in INITIAL]


def loss_of(lib, params):
    """Least squares in (weight, bias) plus a quartic bowl in v; ``frozen`` is not used."""
    weight, bias, v, _frozen = params
    residual = lib.tensor(X) @ weight.t() + bias - lib.tensor(Y)
    return (residual * residual).mean() + 0.25 * (v**4).sum() + 0.1 * (v * v).sum()


def values_of(params) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in params]


def run_steps(lib, opt, params, steps: int, scheduler=None) -> list[list[np.ndarray]]:
    """The usual loop: zero_grad, forward, backward, step; the parameters after each step."""
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss_of(lib, params).backward()
        opt.step()
        if scheduler is not None:
            scheduler.step()
        history.append(values_of(params))
    return history


def assert_same_history(got, want, what: str = "") -> None:
    assert len(got) == len(want)
    for step, (got_values, want_values) in enumerate(zip(got, want), start=1):
        for name, g, w in zip(INITIAL, got_values, want_values):
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=f"{what}: {name} after step {step}")


def torch_name(text: str) -> str:
    return re.sub(r"(?<!glass)torch\.", "glasstorch.", text)


def plain(obj):
    """Nested state (dicts, lists, tensors of either library) as comparable plain values:
    a tensor becomes ("tensor", dtype name, shape, numpy values)."""
    if isinstance(obj, glasstorch.Tensor) or (torch is not None and isinstance(obj, torch.Tensor)):
        return ("tensor", torch_name(str(obj.dtype)), tuple(obj.shape), obj.detach().numpy().copy())
    if isinstance(obj, dict):
        return {key: plain(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(plain(value) for value in obj)
    return obj


def assert_same_plain(got, want, where: str = "state_dict") -> None:
    """Exact equality of structure, keys (in order), types and numbers; tensors to float32
    tolerance, with equal dtype and shape."""
    if isinstance(want, tuple) and want and want[0] == "tensor":
        assert isinstance(got, tuple) and got[0] == "tensor", f"{where}: expected a tensor, got {got!r}"
        assert got[1:3] == want[1:3], f"{where}: dtype/shape {got[1:3]} != {want[1:3]}"
        np.testing.assert_allclose(got[3], want[3], rtol=RTOL, atol=ATOL, err_msg=where)
    elif isinstance(want, dict):
        assert type(got) is type(want), f"{where}: {type(got).__name__} != {type(want).__name__}"
        assert list(got) == list(want), f"{where}: keys {list(got)} != {list(want)}"
        for key in want:
            assert_same_plain(got[key], want[key], f"{where}[{key!r}]")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_plain(g, w, f"{where}[{i}]")
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"


def to_library(obj, lib):
    """A state dict of one library with its tensors rebuilt in ``lib`` (same dtypes)."""
    if isinstance(obj, glasstorch.Tensor) or (torch is not None and isinstance(obj, torch.Tensor)):
        array = obj.detach().numpy().copy()
        return lib.tensor(array)
    if isinstance(obj, dict):
        return {key: to_library(value, lib) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_library(value, lib) for value in obj)
    return obj


# --- the optimizer configurations ---------------------------------------------------------------
def groups(params, *options):
    """Parameter groups over the four parameters: (weight), (bias, v, frozen) with options."""
    weight, bias, v, frozen = params
    return [{"params": [weight], **options[0]}, {"params": [bias, v, frozen], **options[1]}]


CONFIGS = {
    "SGD default lr": lambda lib, ps: lib.optim.SGD(ps),
    "SGD plain": lambda lib, ps: lib.optim.SGD(ps, lr=0.05),
    "SGD momentum": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9),
    "SGD dampening": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9, dampening=0.3),
    "SGD nesterov": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True),
    "SGD weight_decay": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, weight_decay=0.1),
    "SGD weight_decay momentum": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.5, weight_decay=0.2),
    "SGD maximize": lambda lib, ps: lib.optim.SGD(ps, lr=0.005, maximize=True),
    "SGD maximize nesterov": lambda lib, ps: lib.optim.SGD(ps, lr=0.002, momentum=0.5, nesterov=True, maximize=True),
    "SGD groups": lambda lib, ps: lib.optim.SGD(groups(ps, {"lr": 0.1}, {"momentum": 0.8}), lr=0.02),
    "SGD groups mixed": lambda lib, ps: lib.optim.SGD(
        groups(ps, {"lr": 0.08, "nesterov": True, "momentum": 0.9}, {"weight_decay": 0.1}), lr=0.03),
    "Adam default": lambda lib, ps: lib.optim.Adam(ps),
    "Adam lr": lambda lib, ps: lib.optim.Adam(ps, lr=0.05),
    "Adam betas eps": lambda lib, ps: lib.optim.Adam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6),
    "Adam amsgrad": lambda lib, ps: lib.optim.Adam(ps, lr=0.05, amsgrad=True),
    "Adam weight_decay": lambda lib, ps: lib.optim.Adam(ps, lr=0.05, weight_decay=0.1),
    "Adam amsgrad weight_decay maximize": lambda lib, ps: lib.optim.Adam(
        ps, lr=0.02, amsgrad=True, weight_decay=0.1, maximize=True),
    "Adam decoupled": lambda lib, ps: lib.optim.Adam(ps, lr=0.05, weight_decay=0.3, decoupled_weight_decay=True),
    "Adam groups": lambda lib, ps: lib.optim.Adam(groups(ps, {"lr": 0.1}, {"amsgrad": True, "weight_decay": 0.05})),
    "AdamW default": lambda lib, ps: lib.optim.AdamW(ps),
    "AdamW lr": lambda lib, ps: lib.optim.AdamW(ps, lr=0.05),
    "AdamW amsgrad weight_decay": lambda lib, ps: lib.optim.AdamW(ps, lr=0.05, weight_decay=0.3, amsgrad=True),
    "AdamW groups": lambda lib, ps: lib.optim.AdamW(groups(ps, {"lr": 0.1, "weight_decay": 0.5}, {"lr": 0.01})),
}


def train(lib, config: str, steps: int = STEPS):
    params = make_params(lib)
    opt = CONFIGS[config](lib, params)
    return run_steps(lib, opt, params, steps), opt, params


# --- trajectories ------------------------------------------------------------------------------
@with_torch
@pytest.mark.parametrize("config", list(CONFIGS))
def test_trajectory_matches_pytorch(config):
    got, _, got_params = train(glasstorch, config)
    want, _, _ = train(torch, config)
    assert_same_history(got, want, config)
    # the parameter without a gradient was skipped, and every trained parameter moved
    np.testing.assert_array_equal(got_params[3].detach().numpy(), INITIAL["frozen"])
    assert all(np.isfinite(values).all() for values in got[-1]), "diverged: comparing infinities proves nothing"
    for name, before, after in zip(INITIAL, INITIAL.values(), got[-1]):
        if name != "frozen":
            assert not np.allclose(before, after), f"{name} did not move: the test would not see a wrong update"


@with_torch
@pytest.mark.parametrize("config", list(CONFIGS))
def test_state_dict_matches_pytorch(config):
    _, got_opt, _ = train(glasstorch, config, steps=5)
    _, want_opt, _ = train(torch, config, steps=5)
    assert_same_plain(plain(got_opt.state_dict()), plain(want_opt.state_dict()))


@with_torch
@pytest.mark.parametrize("config", ["SGD plain", "SGD momentum", "Adam amsgrad", "AdamW groups"])
def test_state_dict_before_the_first_step(config):
    got = CONFIGS[config](glasstorch, make_params(glasstorch)).state_dict()
    want = CONFIGS[config](torch, make_params(torch)).state_dict()
    assert_same_plain(plain(got), plain(want))
    assert got["state"] == {}


@with_torch
def test_state_contents_after_steps():
    """SGD without momentum keeps no state at all; with momentum, a buffer for each parameter
    that had a gradient; Adam's step is a 0-d float32 tensor."""
    for config, keys in [("SGD plain", []), ("SGD momentum", [["momentum_buffer"]] * 3),
                         ("Adam amsgrad", [["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]] * 3)]:
        for lib in (glasstorch, torch):
            _, opt, params = train(lib, config, steps=2)
            assert [list(opt.state[p]) for p in params if p in opt.state] == keys, (config, lib.__name__)
            assert params[3] not in opt.state, "the frozen parameter got state"
    _, opt, params = train(glasstorch, "Adam default", steps=3)
    step = opt.state[params[0]]["step"]
    assert isinstance(step, glasstorch.Tensor) and step.dtype is glasstorch.float32 and step.shape == ()
    assert step.item() == 3.0


@with_torch
def test_step_with_closure():
    def program(lib):
        params = make_params(lib)
        opt = lib.optim.SGD(params, lr=0.05, momentum=0.9)
        losses = []

        def closure():
            opt.zero_grad()
            loss = loss_of(lib, params)
            loss.backward()
            return loss

        for _ in range(STEPS):
            losses.append(opt.step(closure).item())
        return losses, values_of(params)

    got_losses, got_values = program(glasstorch)
    want_losses, want_values = program(torch)
    np.testing.assert_allclose(got_losses, want_losses, rtol=RTOL)
    assert_same_history([got_values], [want_values])
    assert got_losses[-1] < got_losses[0]


@with_torch
def test_step_runs_without_recording_and_closure_with_recording():
    """step() changes leaves in place: it runs under no_grad, even inside enable_grad; the
    closure runs with grad mode on, even inside no_grad."""
    for lib in (glasstorch, torch):
        params = make_params(lib)
        opt = lib.optim.Adam(params, lr=0.1)
        seen = []

        def closure():
            seen.append(lib.is_grad_enabled())
            opt.zero_grad()
            loss = loss_of(lib, params)
            loss.backward()
            return loss

        with lib.no_grad():
            opt.step(closure)
        assert seen == [True]
        assert all(p.is_leaf and p.grad_fn is None for p in params)
        assert lib.is_grad_enabled()


@with_torch
def test_optimizer_of_module_parameters():
    """The usual call: a Module's parameters() and named_parameters() (names are kept)."""

    def program(lib):
        class Model(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.tensor(INITIAL["weight"].copy()))
                self.bias = lib.nn.Parameter(lib.tensor(INITIAL["bias"].copy()))

            def forward(self, x):
                return x @ self.weight.t() + self.bias

        model = Model()
        opt = lib.optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
        for _ in range(5):
            opt.zero_grad()
            residual = model(lib.tensor(X)) - lib.tensor(Y)
            (residual * residual).mean().backward()
            opt.step()
        return opt.state_dict(), values_of(model.parameters())

    got_state, got_values = program(glasstorch)
    want_state, want_values = program(torch)
    assert_same_plain(plain(got_state), plain(want_state))
    assert got_state["param_groups"][0]["param_names"] == ["weight", "bias"]
    for g, w in zip(got_values, want_values):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)


@with_torch
@pytest.mark.parametrize("config", ["SGD weight_decay momentum", "SGD maximize nesterov",
                                    "Adam amsgrad weight_decay maximize", "AdamW amsgrad weight_decay"])
def test_step_leaves_the_gradients_alone(config):
    """Weight decay and maximize make a new gradient tensor: ``p.grad`` stays what backward left."""
    for lib in (glasstorch, torch):
        params = make_params(lib)
        opt = CONFIGS[config](lib, params)
        for _ in range(3):
            opt.zero_grad()
            loss_of(lib, params).backward()
            before = [p.grad.numpy().copy() for p in params[:3]]
            opt.step()
            for g, p in zip(before, params[:3]):
                np.testing.assert_array_equal(p.grad.numpy(), g, err_msg=f"{config} in {lib.__name__}")


# --- zero_grad -----------------------------------------------------------------------------------
@with_torch
def test_zero_grad():
    for lib in (glasstorch, torch):
        params = make_params(lib)
        opt = lib.optim.SGD(params, lr=0.1)
        loss_of(lib, params).backward()
        grad = params[0].grad
        opt.zero_grad(set_to_none=False)
        assert params[0].grad is grad, "set_to_none=False zeroes the same tensor in place"
        assert not params[0].grad.detach().numpy().any()
        assert params[3].grad is None, "a missing gradient stays missing"
        opt.zero_grad()
        assert all(p.grad is None for p in params)


@with_torch
def test_zero_gradient_is_a_step_but_no_gradient_is_not():
    """With momentum, a zero gradient still moves the parameter; a None gradient skips it."""
    results = {}
    for lib in (glasstorch, torch):
        params = make_params(lib)
        opt = lib.optim.SGD(params, lr=0.1, momentum=0.9)
        loss_of(lib, params).backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        before = values_of(params)
        opt.step()
        moved = [not np.array_equal(b, a) for b, a in zip(before, values_of(params))]
        opt.zero_grad()
        before = values_of(params)
        opt.step()
        results[lib.__name__] = (moved, [np.array_equal(b, a) for b, a in zip(before, values_of(params))])
    assert results["glasstorch"] == results["torch"]
    assert results["glasstorch"] == ([True, True, True, False], [True, True, True, True])


# --- checkpoints: state_dict / load_state_dict ---------------------------------------------------
RESUME_CONFIGS = ["SGD momentum", "SGD groups mixed", "Adam amsgrad", "Adam groups", "AdamW amsgrad weight_decay"]


def resumed(lib, config: str, checkpoint):
    """Fresh parameters and a fresh optimizer (with a wrong lr, which loading must replace),
    loaded from ``checkpoint = (parameter values, optimizer state_dict)``, trained on."""
    values, state_dict = checkpoint
    params = make_params(lib, dict(zip(INITIAL, values)))
    opt = CONFIGS[config](lib, params)
    for group in opt.param_groups:
        group["lr"] = 123.0
    opt.load_state_dict(state_dict)
    return run_steps(lib, opt, params, STEPS // 2), opt


def save_and_load(state_dict):
    """Through glasstorch.save / glasstorch.load, as a real checkpoint goes."""
    buffer = io.BytesIO()
    glasstorch.save(state_dict, buffer)
    buffer.seek(0)
    return glasstorch.load(buffer)


@pytest.mark.parametrize("config", RESUME_CONFIGS)
def test_resume_from_state_dict_gives_the_uninterrupted_trajectory(config):
    uninterrupted, _, _ = train(glasstorch, config)
    first_half, opt, params = train(glasstorch, config, steps=STEPS // 2)
    checkpoint = (values_of(params), save_and_load(opt.state_dict()))
    second_half, _ = resumed(glasstorch, config, checkpoint)
    for step, (got, want) in enumerate(zip(first_half + second_half, uninterrupted), start=1):
        for name, g, w in zip(INITIAL, got, want):
            np.testing.assert_array_equal(g, w, err_msg=f"{name} after step {step}")


@with_torch
@pytest.mark.parametrize("config", RESUME_CONFIGS)
def test_resume_from_a_pytorch_state_dict(config):
    """PyTorch's own checkpoint (tensors rebuilt in glasstorch) loads into glasstorch and
    training continues exactly as PyTorch continues it."""
    want, _, _ = train(torch, config)
    _, torch_opt, torch_params = train(torch, config, steps=STEPS // 2)
    checkpoint = (values_of(torch_params), to_library(copy.deepcopy(torch_opt.state_dict()), glasstorch))
    got, got_opt = resumed(glasstorch, config, checkpoint)
    assert_same_history(got, want[STEPS // 2:], config)
    assert [g["lr"] for g in got_opt.param_groups] == [g["lr"] for g in torch_opt.param_groups]


@with_torch
def test_load_state_dict_casts_floating_state_but_not_step():
    """Saved float64 state loads as the parameters' float32, except the step count; a tensor
    of the right dtype is used as it is, not copied (PyTorch's .to() returns it)."""

    def program(lib):
        params = make_params(lib)
        opt = lib.optim.Adam(params, lr=0.1)
        loss_of(lib, params).backward()
        opt.step()
        state_dict = copy.deepcopy(opt.state_dict())
        kept = state_dict["state"][1]["exp_avg"]
        state_dict["state"][0] = {k: v.double() for k, v in state_dict["state"][0].items()}
        fresh = lib.optim.Adam(make_params(lib), lr=0.1)
        fresh.load_state_dict(state_dict)
        loaded = fresh.state_dict()["state"]
        dtypes = {i: {k: torch_name(str(v.dtype)) for k, v in s.items()} for i, s in loaded.items()}
        return dtypes, loaded[1]["exp_avg"] is kept, list(state_dict["state"][0].values())[1].dtype

    got = program(glasstorch)
    want = program(torch)
    assert got[:2] == want[:2]
    assert got[0][0] == {"step": "glasstorch.float64", "exp_avg": "glasstorch.float32",
                         "exp_avg_sq": "glasstorch.float32"}
    assert str(got[2]) == "glasstorch.float64", "load_state_dict changed the caller's dict"


@with_torch
def test_state_dict_shares_the_optimizer_state():
    for lib in (glasstorch, torch):
        _, opt, params = train(lib, "SGD momentum", steps=1)
        assert opt.state_dict()["state"][0]["momentum_buffer"] is opt.state[params[0]]["momentum_buffer"]


@with_torch
def test_load_state_dict_restores_group_options_and_keeps_param_names():
    def program(lib):
        weight, bias, v, frozen = make_params(lib)
        source = lib.optim.SGD([{"params": [weight], "lr": 0.5}, {"params": [bias, v], "momentum": 0.3}], lr=0.1)
        target = lib.optim.SGD([{"params": [("w", weight)]}, {"params": [("b", bias), ("v", v)]}], lr=0.9)
        target.load_state_dict(source.state_dict())
        return [{k: (val if k != "params" else len(val)) for k, val in g.items()} for g in target.param_groups]

    got, want = program(glasstorch), program(torch)
    assert got == want
    assert got[0]["lr"] == 0.5 and got[1]["param_names"] == ["b", "v"]


@with_torch
def test_state_dict_numbering_across_groups_and_repeated_params():
    """Indices count through the groups in order; state not keyed by a tensor passes through."""

    def program(lib):
        a, b, c, d = make_params(lib)
        opt = lib.optim.SGD([{"params": [c, a]}, {"params": [d]}, {"params": [b]}], lr=0.1, momentum=0.9)
        for p in (a, b, c, d):
            p.grad = lib.ones_like(p)
        opt.step()
        opt.state["note"] = {"epoch": 3}
        state_dict = opt.state_dict()
        return {k: sorted(v) for k, v in state_dict["state"].items()}, [g["params"] for g in state_dict["param_groups"]]

    got, want = program(glasstorch), program(torch)
    assert got == want
    assert got[1] == [[0, 1], [2], [3]]


@with_torch
def test_upgrade_of_a_float_step_when_loading():
    """Old checkpoints saved Adam's step as a number: loading turns it into a tensor."""

    def program(lib):
        params = make_params(lib)
        opt = lib.optim.Adam(params)
        loss_of(lib, params).backward()
        opt.step()
        state_dict = copy.deepcopy(opt.state_dict())
        for s in state_dict["state"].values():
            s["step"] = 1
        fresh = lib.optim.Adam(make_params(lib))
        fresh.load_state_dict(state_dict)
        return plain(fresh.state_dict())

    assert_same_plain(program(glasstorch), program(torch))


# --- repr -------------------------------------------------------------------------------------
@with_torch
@pytest.mark.parametrize("config", ["SGD momentum", "SGD groups mixed", "Adam betas eps", "AdamW groups"])
def test_repr(config):
    for_glasstorch = CONFIGS[config](glasstorch, make_params(glasstorch))
    for_torch = CONFIGS[config](torch, make_params(torch))
    assert repr(for_glasstorch) == repr(for_torch)
    glasstorch.optim.lr_scheduler.StepLR(for_glasstorch, 3)
    torch.optim.lr_scheduler.StepLR(for_torch, 3)
    assert repr(for_glasstorch) == repr(for_torch)
    assert "initial_lr" in repr(for_glasstorch)


# --- errors ------------------------------------------------------------------------------------
def _param(lib):
    return lib.nn.Parameter(lib.tensor(np.ones(2, dtype=np.float32)))


class _Required:
    """An optimizer whose groups must give lr themselves (PyTorch's ``required``)."""

    @staticmethod
    def build(lib):
        required = importlib.import_module(f"{lib.__name__}.optim.optimizer").required  # torch.optim dels the name

        class Plain(lib.optim.Optimizer):
            def __init__(self, params):
                super().__init__(params, {"lr": required, "momentum": 0})

        return Plain


def _load(lib, source_groups, target_groups):
    a, b, c = _param(lib), _param(lib), _param(lib)
    pick = {"a": a, "b": b, "c": c}
    source = lib.optim.SGD([{"params": [pick[n] for n in g]} for g in source_groups], lr=0.1)
    target = lib.optim.SGD([{"params": [pick[n] for n in g]} for g in target_groups], lr=0.1)
    target.load_state_dict(source.state_dict())


ERRORS = {
    "a tensor, not an iterable": lambda lib: lib.optim.SGD(_param(lib), lr=0.1),
    "a set inside a group": lambda lib: lib.optim.SGD([{"params": {_param(lib)}}], lr=0.1),
    "not a tensor": lambda lib: lib.optim.SGD([_param(lib), 3], lr=0.1),
    "a numpy array": lambda lib: lib.optim.Adam([np.ones(2)]),
    "a non-leaf": lambda lib: lib.optim.SGD([_param(lib) * 2], lr=0.1),
    "one parameter in two groups": lambda lib: (lambda p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(
        _param(lib)),
    "added again": lambda lib: (lambda p: lib.optim.SGD([p], lr=0.1).add_param_group({"params": p}))(_param(lib)),
    "empty list": lambda lib: lib.optim.SGD([], lr=0.1),
    "empty generator": lambda lib: lib.optim.Adam(p for p in []),
    "group not a dict": lambda lib: lib.optim.SGD([_param(lib)], lr=0.1).add_param_group([_param(lib)]),
    "some names missing": lambda lib: lib.optim.SGD([("w", _param(lib)), _param(lib)], lr=0.1),
    "groups with and without names": lambda lib: lib.optim.SGD(
        [{"params": [("w", _param(lib))]}, {"params": [_param(lib)]}], lr=0.1),
    "required option missing": lambda lib: _Required.build(lib)([_param(lib)]),
    "SGD negative lr": lambda lib: lib.optim.SGD([_param(lib)], lr=-1),
    "SGD negative momentum": lambda lib: lib.optim.SGD([_param(lib)], lr=0.1, momentum=-0.5),
    "SGD negative weight_decay": lambda lib: lib.optim.SGD([_param(lib)], lr=0.1, weight_decay=-0.5),
    "SGD nesterov without momentum": lambda lib: lib.optim.SGD([_param(lib)], lr=0.1, nesterov=True),
    "SGD nesterov with dampening": lambda lib: lib.optim.SGD(
        [_param(lib)], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
    "Adam negative lr": lambda lib: lib.optim.Adam([_param(lib)], lr=-0.5),
    "Adam negative eps": lambda lib: lib.optim.Adam([_param(lib)], eps=-1e-8),
    "Adam beta1": lambda lib: lib.optim.Adam([_param(lib)], betas=(1.0, 0.999)),
    "Adam beta2": lambda lib: lib.optim.Adam([_param(lib)], betas=(0.9, -0.1)),
    "Adam integer betas": lambda lib: lib.optim.Adam([_param(lib)], betas=(0, 0.9)),
    "Adam negative weight_decay": lambda lib: lib.optim.Adam([_param(lib)], weight_decay=-1),
    "AdamW negative lr": lambda lib: lib.optim.AdamW([_param(lib)], lr=-0.01),
    "AdamW beta1": lambda lib: lib.optim.AdamW([_param(lib)], betas=(-0.1, 0.9)),
    "load: different number of groups": lambda lib: _load(lib, [["a", "b"]], [["a"], ["b"]]),
    "load: group of another size": lambda lib: _load(lib, [["a"], ["b", "c"]], [["a", "b"], ["c"]]),
    "Optimizer.step is abstract": lambda lib: lib.optim.Optimizer([_param(lib)], {}).step(),
    "scheduler of a non-optimizer": lambda lib: lib.optim.lr_scheduler.StepLR([_param(lib)], 3),
    "scheduler resumed without initial_lr": lambda lib: lib.optim.lr_scheduler.ExponentialLR(
        lib.optim.SGD([_param(lib)], lr=0.1), 0.9, last_epoch=4),
    "LambdaLR: one lambda per group": lambda lib: lib.optim.lr_scheduler.LambdaLR(
        lib.optim.SGD([{"params": [_param(lib)]}, {"params": [_param(lib)]}], lr=0.1), [lambda e: 1.0]),
}


@with_torch
@pytest.mark.parametrize("case", list(ERRORS))
def test_error_matches_pytorch(case):
    program = ERRORS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            program(torch)
        with pytest.raises(Exception) as got:
            program(glasstorch)
    assert type(got.value) is type(want.value), f"{type(got.value).__name__}: {got.value}"
    assert str(got.value) == torch_name(str(want.value))


ACCEPTED = {
    "a set of parameters (PyTorch accepts it at the top level)": lambda lib: lib.optim.SGD({_param(lib)}, lr=0.1),
    "a generator": lambda lib: lib.optim.SGD((p for p in [_param(lib)]), lr=0.1),
    "a single tensor as a group's params": lambda lib: lib.optim.SGD([{"params": _param(lib)}], lr=0.1),
    "a non-leaf that retains its grad": lambda lib: lib.optim.SGD(
        [(lambda t: (t.retain_grad(), t)[1])(_param(lib) * 2)], lr=0.1),
    "foreach=True (same arithmetic)": lambda lib: lib.optim.Adam([_param(lib)], foreach=True),
}


@with_torch
@pytest.mark.parametrize("case", list(ACCEPTED))
def test_accepted_like_pytorch(case):
    got, want = ACCEPTED[case](glasstorch), ACCEPTED[case](torch)
    assert_same_plain(plain(got.state_dict()), plain(want.state_dict()))


@with_torch
def test_duplicate_parameters_warn_like_pytorch():
    messages = {}
    for lib in (glasstorch, torch):
        p = _param(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.optim.SGD([p, p], lr=0.1)
        messages[lib.__name__] = [str(w.message) for w in caught]
    assert messages["glasstorch"] == messages["torch"] and len(messages["torch"]) == 1


@pytest.mark.parametrize("flag", ["fused", "capturable", "differentiable"])
def test_unsupported_implementations_say_so(flag):
    with pytest.raises(RuntimeError, match=f"{flag}=True is not supported"):
        glasstorch.optim.Adam([_param(glasstorch)], **{flag: True})


# --- learning-rate schedulers --------------------------------------------------------------------
class Factor:
    """A callable object: LambdaLR saves its __dict__ in the state dict."""

    def __init__(self, base: float) -> None:
        self.base = base

    def __call__(self, epoch: int) -> float:
        return self.base**epoch


SCHEDULERS = {
    "StepLR": lambda L, opt: L.StepLR(opt, step_size=7, gamma=0.5),
    "StepLR default gamma": lambda L, opt: L.StepLR(opt, step_size=3),
    "MultiStepLR": lambda L, opt: L.MultiStepLR(opt, milestones=[3, 8, 8, 20], gamma=0.3),
    "ExponentialLR": lambda L, opt: L.ExponentialLR(opt, gamma=0.9),
    "CosineAnnealingLR": lambda L, opt: L.CosineAnnealingLR(opt, T_max=10, eta_min=0.001),
    "CosineAnnealingLR T_max 7": lambda L, opt: L.CosineAnnealingLR(opt, T_max=7),
    "LambdaLR": lambda L, opt: L.LambdaLR(opt, lambda epoch: 0.95**epoch),
    "LambdaLR per group": lambda L, opt: L.LambdaLR(opt, [lambda epoch: 1 / (epoch + 1), Factor(0.8)]),
}
EPOCHS = 30


def scheduled_optimizer(lib):
    a, b = _param(lib), _param(lib)
    return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.03}], lr=0.1, momentum=0.9), (a, b)


def lr_sequence(lib, name: str, epochs: int = EPOCHS, opt_and_params=None, scheduler=None):
    """(get_last_lr(), the groups' lrs, last_epoch) after construction and after each epoch."""
    opt, params = opt_and_params or scheduled_optimizer(lib)
    scheduler = scheduler or SCHEDULERS[name](lib.optim.lr_scheduler, opt)
    sequence = [(list(scheduler.get_last_lr()), [g["lr"] for g in opt.param_groups], scheduler.last_epoch)]
    for _ in range(epochs):
        for p in params:
            p.grad = lib.ones_like(p)
        opt.step()
        scheduler.step()
        sequence.append((list(scheduler.get_last_lr()), [g["lr"] for g in opt.param_groups], scheduler.last_epoch))
    return sequence, opt, scheduler


@with_torch
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_lrs_match_pytorch(name):
    got, got_opt, got_scheduler = lr_sequence(glasstorch, name)
    want, want_opt, _ = lr_sequence(torch, name)
    assert got == want  # exactly: the same float arithmetic in the same order
    assert len({tuple(lrs) for lrs, _, _ in got}) > 2, "the lr never changed: the test would not see a wrong schedule"
    assert [g["initial_lr"] for g in got_opt.param_groups] == [g["initial_lr"] for g in want_opt.param_groups]
    assert got_scheduler.base_lrs == [0.1, 0.03]


@with_torch
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_state_dict_matches_pytorch(name):
    _, _, got = lr_sequence(glasstorch, name, epochs=5)
    _, _, want = lr_sequence(torch, name, epochs=5)
    assert_same_plain(plain(got.state_dict()), plain(want.state_dict()))
    assert "optimizer" not in got.state_dict()


@with_torch
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_state_dict_round_trip(name):
    """Stop after 12 epochs; a new optimizer and scheduler, loaded from the two state dicts,
    continue exactly as the uninterrupted run (in both libraries, and alike)."""
    results = {}
    for lib in (glasstorch, torch):
        uninterrupted, _, _ = lr_sequence(lib, name)
        first, opt, scheduler = lr_sequence(lib, name, epochs=12)
        opt_state, scheduler_state = copy.deepcopy(opt.state_dict()), copy.deepcopy(scheduler.state_dict())
        if name == "LambdaLR per group":
            scheduler.lr_lambdas[1].base = 0.5  # a callable object's attributes are state too
            scheduler_state = copy.deepcopy(scheduler.state_dict())

        new_opt, params = scheduled_optimizer(lib)
        new_scheduler = SCHEDULERS[name](lib.optim.lr_scheduler, new_opt)  # before loading the optimizer
        new_opt.load_state_dict(opt_state)
        new_scheduler.load_state_dict(scheduler_state)
        rest, _, _ = lr_sequence(lib, name, epochs=EPOCHS - 12, opt_and_params=(new_opt, params),
                                 scheduler=new_scheduler)
        if name != "LambdaLR per group":
            assert first + rest[1:] == uninterrupted, lib.__name__
        results[lib.__name__] = first + rest[1:]
    assert results["glasstorch"] == results["torch"]


@with_torch
@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR"])
def test_scheduler_step_with_epoch_uses_the_closed_form(name):
    def program(lib):
        opt, _ = scheduled_optimizer(lib)
        scheduler = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
        opt.step()
        lrs, messages = [], []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in (3, 10, 4, 9, 9, 21):
                scheduler.step(epoch)
                lrs.append(scheduler.get_last_lr())
        messages = [str(w.message) for w in caught]
        return lrs, messages

    got, want = program(glasstorch), program(torch)
    assert got == want
    assert len(got[1]) == 6 and "deprecated" in got[1][0]


@with_torch
@pytest.mark.parametrize("name", ["StepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR"])
def test_scheduler_resumed_with_last_epoch(name):
    """A scheduler created with last_epoch >= 0 (after the groups got initial_lr) continues."""

    def program(lib):
        opt, params = scheduled_optimizer(lib)
        for group in opt.param_groups:
            group["initial_lr"] = group["lr"] * 2
        make = {
            "StepLR": lambda: lib.optim.lr_scheduler.StepLR(opt, 4, 0.5, last_epoch=6),
            "ExponentialLR": lambda: lib.optim.lr_scheduler.ExponentialLR(opt, 0.9, last_epoch=6),
            "CosineAnnealingLR": lambda: lib.optim.lr_scheduler.CosineAnnealingLR(opt, 10, last_epoch=6),
            "LambdaLR": lambda: lib.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (1 + e), last_epoch=6),
        }
        scheduler = make[name]()
        return lr_sequence(lib, name, epochs=10, opt_and_params=(opt, params), scheduler=scheduler)[0]

    assert program(glasstorch) == program(torch)


CHAINS = {
    "ExponentialLR + CosineAnnealingLR": lambda L, opt: [L.ExponentialLR(opt, gamma=0.9),
                                                         L.CosineAnnealingLR(opt, T_max=5, eta_min=0.01)],
    "StepLR + MultiStepLR": lambda L, opt: [L.StepLR(opt, step_size=4, gamma=0.5),
                                            L.MultiStepLR(opt, milestones=[6, 6, 13], gamma=0.7)],
    "CosineAnnealingLR + LambdaLR later": None,  # built in the test: the second one arrives at epoch 8
}


@with_torch
@pytest.mark.parametrize("name", list(CHAINS))
def test_schedulers_compose_like_pytorch(name):
    """Recursive schedulers compose with each other and with lr changes made by hand; a
    scheduler created later starts from the groups' initial_lr, not from their current lr."""

    def program(lib):
        L = lib.optim.lr_scheduler
        opt, params = scheduled_optimizer(lib)
        schedulers = CHAINS[name](L, opt) if CHAINS[name] else [L.CosineAnnealingLR(opt, T_max=6, eta_min=0.002)]
        sequence = []
        for epoch in range(EPOCHS):
            for p in params:
                p.grad = lib.ones_like(p)
            opt.step()
            for scheduler in schedulers:
                scheduler.step()
            if epoch in (9, 17):
                for group in opt.param_groups:
                    group["lr"] *= 0.5  # by hand, between epochs
            if epoch == 8 and CHAINS[name] is None:
                schedulers.append(L.LambdaLR(opt, lambda e: 1 / (1 + e)))
            sequence.append(([g["lr"] for g in opt.param_groups], [s.get_last_lr() for s in schedulers],
                             [s.base_lrs for s in schedulers]))
        return sequence

    got, want = program(glasstorch), program(torch)
    assert got == want


@with_torch
def test_scheduler_warnings_match_pytorch():
    """Stepping the scheduler before the optimizer, and calling get_lr() outside step()."""

    def program(lib):
        opt, _ = scheduled_optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.step()  # before any optimizer.step()
            scheduler.get_lr()
        return [str(w.message) for w in caught], hasattr(opt.step, "_wrapped_by_lr_sched")

    got, want = program(glasstorch), program(torch)
    assert got == want
    assert len(got[0]) == 2 and "before `optimizer.step()`" in got[0][0] and got[1]


@with_torch
def test_adam_with_a_scheduler_matches_pytorch():
    """Schedulers and optimizers together: Adam under cosine annealing, 30 epochs."""

    def program(lib):
        params = make_params(lib)
        opt = lib.optim.Adam(params, lr=0.1, amsgrad=True)
        scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.01)
        return run_steps(lib, opt, params, EPOCHS, scheduler)

    assert_same_history(program(glasstorch), program(torch), "Adam + CosineAnnealingLR")


def test_base_scheduler_get_lr_is_abstract():
    opt, _ = scheduled_optimizer(glasstorch)
    with pytest.raises(NotImplementedError):
        glasstorch.optim.lr_scheduler.LRScheduler(opt)


def test_public_surface():
    assert glasstorch.optim.SGD.__module__ == "glasstorch.optim.sgd"
    assert issubclass(glasstorch.optim.AdamW, glasstorch.optim.Adam)
    assert issubclass(glasstorch.optim.Adam, glasstorch.optim.Optimizer)
    from glasstorch.optim import lr_scheduler

    for name in ("LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR"):
        assert callable(getattr(lr_scheduler, name))
