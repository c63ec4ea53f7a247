"""RMSprop, Adagrad, Adadelta, NAdam and the schedulers LinearLR, PolynomialLR, CyclicLR,
OneCycleLR, SequentialLR, ChainedScheduler, ReduceLROnPlateau against PyTorch 2.13: the same
parameters and learning rates step by step, state_dict round trips, reprs and errors."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import glasstorch as gt
from test_nn_vs_torch import outcomes, same_in_both

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)
W0 = rng.standard_normal((3, 4))
B0 = rng.standard_normal(4)

OPTIMIZERS = [
    ("RMSprop", {}), ("RMSprop", {"momentum": 0.9, "centered": True, "weight_decay": 0.1, "alpha": 0.9}),
    ("RMSprop", {"maximize": True, "lr": 0.001}),
    ("Adagrad", {}), ("Adagrad", {"lr_decay": 0.1, "initial_accumulator_value": 0.2, "weight_decay": 0.05}),
    ("Adadelta", {}), ("Adadelta", {"rho": 0.5, "weight_decay": 0.01, "maximize": True}),
    ("NAdam", {}), ("NAdam", {"weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"decoupled_weight_decay": True, "weight_decay": 0.1, "betas": (0.8, 0.99)}),
]


def train(lib, name, kwargs, dtype, steps=6):
    """A few steps on a small loss, with two param groups; the parameters after each step."""
    w = lib.nn.Parameter(lib.tensor(W0, dtype=dtype))
    b = lib.nn.Parameter(lib.tensor(B0, dtype=dtype))
    opt = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kwargs)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((w.sum(0) * b).tanh() ** 2).sum() + (w ** 4).mean()
        loss.backward()
        opt.step()
        history.append((w.detach().numpy().copy(), b.detach().numpy().copy()))
    return history, opt


@pytest.mark.parametrize("name, kwargs", OPTIMIZERS)
def test_optimizer_matches_torch_step_by_step(name, kwargs):
    for dtype, tol in (("float64", 1e-13), ("float32", 2e-6)):
        got, ours = train(gt, name, kwargs, getattr(gt, dtype))
        want, theirs = train(torch, name, kwargs, getattr(torch, dtype))
        for (gw, gb), (tw, tb) in zip(got, want):
            np.testing.assert_allclose(gw, tw, rtol=tol, atol=tol)
            np.testing.assert_allclose(gb, tb, rtol=tol, atol=tol)
    # the state: the same keys, dtypes and values
    ours_state, theirs_state = ours.state_dict(), theirs.state_dict()
    assert ours_state["param_groups"] == theirs_state["param_groups"]
    for index, state in theirs_state["state"].items():
        assert list(ours_state["state"][index]) == list(state)
        for key, value in state.items():
            mine = ours_state["state"][index][key]
            assert str(mine.dtype).split(".")[-1] == str(value.dtype).split(".")[-1]
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("name, kwargs", OPTIMIZERS[::3])
def test_optimizer_state_dict_round_trip(name, kwargs):
    """Three steps, save, load into a fresh optimizer, three more: as six steps in one go."""
    straight, _ = train(gt, name, kwargs, gt.float64, steps=6)
    w = gt.nn.Parameter(gt.tensor(W0))
    b = gt.nn.Parameter(gt.tensor(B0))
    opt = getattr(gt.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kwargs)
    for step in range(6):
        if step == 3:
            saved = copy.deepcopy(opt.state_dict())
            opt = getattr(gt.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kwargs)
            opt.load_state_dict(saved)
        opt.zero_grad()
        (((w.sum(0) * b).tanh() ** 2).sum() + (w ** 4).mean()).backward()
        opt.step()
    # (load_state_dict converts the state to the parameter's dtype, as PyTorch's: NAdam's float32
    # mu_product becomes float64, so the resumed run may differ in the last bits)
    np.testing.assert_allclose(w.detach().numpy(), straight[-1][0], rtol=1e-9)


def test_optimizer_reprs_and_errors():
    def program(lib):
        p = [lib.nn.Parameter(lib.ones(2))]
        O = lib.optim
        results = [repr(O.RMSprop(p)), repr(O.Adagrad(p)), repr(O.Adadelta(p)), repr(O.NAdam(p)),
                   sorted(O.Adagrad(p).state[p[0]])]
        for call in (lambda: O.RMSprop(p, lr=-1), lambda: O.RMSprop(p, alpha=-1), lambda: O.RMSprop(p, momentum=-1),
                     lambda: O.Adagrad(p, lr_decay=-1), lambda: O.Adagrad(p, initial_accumulator_value=-1),
                     lambda: O.Adadelta(p, rho=1.5), lambda: O.NAdam(p, betas=(1.0, 0.9)),
                     lambda: O.NAdam(p, momentum_decay=-1)):
            try:
                call()
            except ValueError as error:
                results.append(str(error))
        return results

    same_in_both(program)


# --- schedulers ------------------------------------------------------------------------------------
def lr_history(lib, make, optimizer="SGD", steps=25, metrics=None):
    """The lrs (and momentum/beta1) of two param groups after each scheduler step."""
    p1, p2 = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
    kwargs = {"momentum": 0.9} if optimizer == "SGD" else {}
    opt = getattr(lib.optim, optimizer)([{"params": [p1]}, {"params": [p2], "lr": 0.5}], lr=0.1, **kwargs)
    scheduler = make(lib, opt)
    history = [scheduler.get_last_lr()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(steps):
            opt.step()
            scheduler.step(metrics[step]) if metrics is not None else scheduler.step()
            momentum = [g.get("momentum", g.get("betas", (None,))[0]) for g in opt.param_groups]
            history.append([*scheduler.get_last_lr(), *momentum])
    return history, scheduler


S = gt.optim.lr_scheduler
SCHEDULERS = {
    "LinearLR": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=7),
    "LinearLR_down": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, 1.0, 0.1, total_iters=4),
    "PolynomialLR": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o, total_iters=10, power=2.0),
    "CyclicLR": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.01, [0.1, 1.0], step_size_up=4),
    "CyclicLR_tri2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.01, 0.2, 3, 5, mode="triangular2"),
    "CyclicLR_exp": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.01, 0.2, 3, mode="exp_range", gamma=0.9),
    "OneCycleLR": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=25),
    "OneCycleLR_3": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 1.0, epochs=5, steps_per_epoch=5,
                                                                     anneal_strategy="linear", three_phase=True),
    "SequentialLR": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=5),
            lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10)], milestones=[5]),
    "ConstantLR": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
    "MultiplicativeLR": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, lambda epoch: 0.95),
    "WarmRestarts": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2,
                                                                                      eta_min=0.001),
    "SequentialLR_constant": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.ConstantLR(o, factor=0.1, total_iters=2),
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)], milestones=[2]),
    "ChainedScheduler": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=5), lib.optim.lr_scheduler.ExponentialLR(o, 0.9)]),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_scheduler_matches_torch(name, optimizer):
    if name.startswith(("CyclicLR", "OneCycleLR")) or optimizer == "SGD":
        got, ours = lr_history(gt, SCHEDULERS[name], optimizer)
        want, theirs = lr_history(torch, SCHEDULERS[name], optimizer)
        np.testing.assert_allclose(np.array(got[1:], dtype=float), np.array(want[1:], dtype=float), rtol=1e-13)
        assert got[0] == want[0]
        state = ours.state_dict()
        assert sorted(state) == sorted(theirs.state_dict())


def test_reduce_lr_on_plateau():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.5, 0.6, 0.6, 0.6,
               0.6, 0.6, 0.6]
    for kwargs in ({"patience": 2}, {"mode": "max", "factor": 0.5, "patience": 1, "cooldown": 2},
                   {"threshold_mode": "abs", "threshold": 0.05, "patience": 0, "min_lr": [0.02, 0.3]}):
        make = lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, **kwargs)  # noqa: E731
        got, ours = lr_history(gt, make, steps=len(metrics), metrics=metrics)
        want, theirs = lr_history(torch, make, steps=len(metrics), metrics=metrics)
        assert got[0] == want[0]
        np.testing.assert_allclose(np.array(got[1:], dtype=float), np.array(want[1:], dtype=float), rtol=1e-13)
        assert ours.state_dict() == theirs.state_dict()


def test_scheduler_state_dict_round_trip():
    """Ten steps, save the optimizer and the scheduler, resume in fresh ones (made first, then
    loaded, as PyTorch's docs say), ten more: as twenty in one go."""
    def fresh():
        p1, p2 = gt.nn.Parameter(gt.ones(2)), gt.nn.Parameter(gt.ones(2))
        return gt.optim.SGD([{"params": [p1]}, {"params": [p2], "lr": 0.5}], lr=0.1, momentum=0.9)

    for name in ("OneCycleLR", "SequentialLR", "ChainedScheduler", "CyclicLR", "LinearLR", "PolynomialLR"):
        straight, _ = lr_history(gt, SCHEDULERS[name], steps=20)
        opt = fresh()
        scheduler = SCHEDULERS[name](gt, opt)
        lrs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for step in range(20):
                if step == 10:
                    saved = copy.deepcopy((opt.state_dict(), scheduler.state_dict()))
                    opt = fresh()
                    scheduler = SCHEDULERS[name](gt, opt)
                    opt.load_state_dict(saved[0])
                    scheduler.load_state_dict(saved[1])
                opt.step()
                scheduler.step()
                lrs.append(scheduler.get_last_lr())
        assert lrs[-1] == straight[-1][:2], name


def test_scheduler_errors():
    def program(lib):
        p = [lib.nn.Parameter(lib.ones(2))]
        opt = lib.optim.SGD(p, lr=0.1)
        L = lib.optim.lr_scheduler
        results = []
        calls = [lambda: L.LinearLR(opt, start_factor=0), lambda: L.LinearLR(opt, end_factor=2),
                 lambda: L.OneCycleLR(opt, 1.0), lambda: L.OneCycleLR(opt, 1.0, total_steps=0),
                 lambda: L.OneCycleLR(opt, 1.0, total_steps=10, pct_start=2.0),
                 lambda: L.OneCycleLR(opt, 1.0, total_steps=10, anneal_strategy="x"),
                 lambda: L.OneCycleLR(lib.optim.Adagrad(p), 1.0, total_steps=10),
                 lambda: L.CyclicLR(opt, 0.1, 1.0, mode="x"), lambda: L.CyclicLR(opt, [0.1, 0.2], 1.0),
                 lambda: L.ReduceLROnPlateau(opt, factor=1.0), lambda: L.ReduceLROnPlateau(opt, mode="x"),
                 lambda: L.SequentialLR(opt, [L.StepLR(opt, 2)], milestones=[3]),
                 lambda: L.ChainedScheduler([]),
                 lambda: L.SequentialLR(opt, [L.StepLR(opt, 2), L.ReduceLROnPlateau(opt)], milestones=[3])]
        results += outcomes(calls)
        scheduler = L.OneCycleLR(opt, 1.0, total_steps=2)
        opt.step()
        scheduler.step()
        scheduler.step()
        try:
            scheduler.step()
        except ValueError as error:
            results.append(str(error))
        return results

    same_in_both(program)
