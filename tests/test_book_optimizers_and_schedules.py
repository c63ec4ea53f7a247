"""Chapter 16 (optimizers and schedules), run in glasstorch and in PyTorch 2.13: what the chapter
shows must be what PyTorch does. The chapter keeps one short comparison; this is the full one
(skipped, with the reason, where PyTorch is not installed)."""
import warnings

import numpy as np
import pytest

import glasstorch

torch = pytest.importorskip("torch", reason="compares with PyTorch 2.13 (pip install torch==2.13.0)")
LIBS = {"glasstorch": glasstorch, "torch": torch}


def valley(p):
    return 0.5 * p[0] ** 2 + 10 * p[1] ** 2


def trajectory(lib, make_optimizer, steps=60):
    p = lib.tensor([-4.0, 1.0], requires_grad=True)
    optimizer = make_optimizer(lib, [p])
    path = [p.tolist()]
    for _ in range(steps):
        optimizer.zero_grad()
        valley(p).backward()
        optimizer.step()
        path.append(p.tolist())
    return np.array(path)


OPTIMIZERS = {
    "SGD": lambda lib, ps: lib.optim.SGD(ps, lr=0.09),
    "SGD with momentum": lambda lib, ps: lib.optim.SGD(ps, lr=0.02, momentum=0.8),
    "SGD with nesterov and weight decay": lambda lib, ps: lib.optim.SGD(ps, lr=0.02, momentum=0.8, nesterov=True,
                                                                        weight_decay=0.01),
    "Adam": lambda lib, ps: lib.optim.Adam(ps, lr=0.3),
    "AdamW": lambda lib, ps: lib.optim.AdamW(ps, lr=0.3, weight_decay=0.1),
}

SCHEDULERS = {
    "StepLR": lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5),
    "MultiStepLR": lambda lib, opt: lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[5, 15, 25], gamma=0.3),
    "ExponentialLR": lambda lib, opt: lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9),
    "CosineAnnealingLR": lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30, eta_min=0.001),
    "LambdaLR": lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda e: min(1.0, (e + 1) / 5)),
}


def lr_sequence(lib, make_scheduler, epochs=30):
    p = lib.zeros(1, requires_grad=True)
    optimizer = lib.optim.SGD([p], lr=0.1)
    scheduler = make_scheduler(lib, optimizer)
    lrs = []
    for _ in range(epochs):
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return lrs


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_an_optimizer_follows_the_same_path(name):
    ours, theirs = (trajectory(lib, OPTIMIZERS[name]) for lib in LIBS.values())
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", SCHEDULERS)
def test_a_scheduler_gives_the_same_learning_rates(name):
    ours, theirs = (lr_sequence(lib, SCHEDULERS[name]) for lib in LIBS.values())
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def optimizer_state(lib):
    p = lib.tensor([1.0, -2.0], requires_grad=True)
    found = []
    for optimizer in (lib.optim.SGD([p], lr=0.1, momentum=0.9), lib.optim.Adam([p], lr=0.1)):
        for _ in range(3):
            optimizer.zero_grad()
            (p ** 2).sum().backward()
            optimizer.step()
        sd = optimizer.state_dict()
        found.append((sd["param_groups"], {k: np.asarray(v.tolist()) for k, v in sd["state"][0].items()}))
    return found


def test_optimizer_state_dicts_hold_the_same_groups_and_state():
    for (groups, state), (groups_t, state_t) in zip(*(optimizer_state(lib) for lib in LIBS.values())):
        assert groups == groups_t
        assert state.keys() == state_t.keys()
        for key in state:
            np.testing.assert_allclose(state[key], state_t[key], rtol=1e-6)


def order_warning(lib):
    p = lib.zeros(1, requires_grad=True)
    optimizer = lib.optim.SGD([p], lr=0.1)
    scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scheduler.step()
    return [str(w.message) for w in caught]


def test_stepping_the_scheduler_first_warns_in_the_same_words():
    ours, theirs = (order_warning(lib) for lib in LIBS.values())
    assert ours == theirs and len(ours) == 1


def zero_grad_steps(lib, zero_grad):
    w = lib.tensor([1.0, -2.0], requires_grad=True)
    optimizer = lib.optim.SGD([w], lr=0.1)
    for _ in range(3):
        if zero_grad:
            optimizer.zero_grad()
        (w ** 2).sum().backward()
        optimizer.step()
    return w.detach().tolist(), w.grad is None


@pytest.mark.parametrize("zero_grad", [True, False])
def test_forgetting_zero_grad_goes_as_wrong_in_both(zero_grad):
    ours, theirs = (zero_grad_steps(lib, zero_grad) for lib in LIBS.values())
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)


def train(lib, epochs=12):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(64, 2)).astype(np.float32)
    y = (np.sin(2 * x[:, :1]) + x[:, 1:] ** 2).astype(np.float32)
    init = [rng.normal(0, 0.5, size=shape).astype(np.float32) for shape in [(8, 2), (8,), (1, 8), (1,)]]
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.tensor(x), lib.tensor(y)),
                                       batch_size=16, shuffle=False)
    model = lib.nn.Sequential(lib.nn.Linear(2, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1))
    with lib.no_grad():
        for p, values in zip(model.parameters(), init):
            p.copy_(lib.tensor(values))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=4, gamma=0.5)
    losses = []
    for _ in range(epochs):
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = lib.nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        scheduler.step()
        losses.append(total / 64)
    return losses


def test_the_chapters_training_run_gives_the_same_losses():
    ours, theirs = (train(lib) for lib in LIBS.values())
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert ours[-1] < ours[0] / 3
