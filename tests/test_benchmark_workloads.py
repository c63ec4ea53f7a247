"""``make bench``'s workloads (benchmarks/workloads.py) do the work their names say.

A benchmark that skipped work would flatter whoever skipped it, so each workload, as listed for the
report (``workloads()``), is run here once or twice and its results checked: the graphs' gradients
against their closed forms (and PyTorch's), the training steps' parameters against PyTorch's and
the hand-written numpy's after two steps (momentum included). No timing is asserted.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import workloads as w  # noqa: E402

OP_LIBRARIES = ["glasstorch", "floor", pytest.param("torch", marks=pytest.mark.torch)]
STEP_LIBRARIES = ["glasstorch", "numpy", pytest.param("torch", marks=pytest.mark.torch)]


def workload(key: str, quick: bool = False) -> w.Workload:
    (found,) = [item for item in w.workloads(quick) if item.key == key]
    return found


def build(key: str, kind: str, quick: bool = False) -> w.Bench:
    if kind == "torch":
        lib = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")
    else:
        lib = None if kind == "numpy" else importlib.import_module(kind)
    item = workload(key, quick)
    assert kind in item.libraries
    return item.build(kind, lib)


def array(value) -> np.ndarray:
    """A glasstorch or PyTorch tensor, a floor Tensor or an array, as a float64 array."""
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    if hasattr(value, "detach"):
        return value.detach().numpy().astype(np.float64)
    return value.data.astype(np.float64)  # the floor's Tensor


def test_the_report_lists_issue_13s_workloads_first() -> None:
    keys = [item.key for item in w.workloads()]
    assert keys[:5] == ["graph", "scale-chain", "mlp", "mnist", "mnist-no-dropout"]
    assert {"tiny-add", "tiny-mul", "chain", "chain-gc-off", "manual-mlp"} <= set(keys[5:])
    assert [item.key for item in w.workloads(quick=True)] == keys


# --- the graphs -----------------------------------------------------------------------------
def reused_leaves_reference(a: float, b: float, c: float, n_ops: int) -> tuple[float, float, float]:
    """d y / d(a, b, c) for y = (((a + b) c + b) c ...), by forward-mode in float64."""
    y, da, db, dc = a, 1.0, 0.0, 0.0
    for _ in range(n_ops // 2):
        y, db = y + b, db + 1.0
        y, da, db, dc = y * c, da * c, db * c, dc * c + y
    return da, db, dc


@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.parametrize("kind", OP_LIBRARIES)
def test_the_2000_op_graph_gives_each_reused_leaf_its_gradient(kind: str, quick: bool) -> None:
    item = workload("graph", quick)
    assert item.per == 2000 and item.phases == ("forward", "backward")
    bench = build("graph", kind, quick)
    for _ in range(2):  # a second round must not accumulate onto the first
        phases = bench.run()
    assert set(phases) == {"forward", "backward"} and all(t > 0 for t in phases.values())
    a, b, c = (array(bench.state[name]).item() for name in "abc")
    expected = reused_leaves_reference(a, b, c, 2000)
    got = [array(bench.state[name].grad).item() for name in "abc"]
    np.testing.assert_allclose(got, expected, rtol=1e-3)


@pytest.mark.torch
def test_the_2000_op_graph_gives_pytorchs_gradients() -> None:
    ours, torchs = build("graph", "glasstorch"), build("graph", "torch")
    ours.run()
    torchs.run()
    for name in "abc":
        np.testing.assert_allclose(array(ours.state[name].grad), array(torchs.state[name].grad), rtol=1e-5)


@pytest.mark.parametrize("kind", OP_LIBRARIES)
def test_the_scale_chain_multiplies_20000_times(kind: str) -> None:
    item = workload("scale-chain")
    assert item.per == 20_000
    bench = build("scale-chain", kind)
    bench.run()
    grad = array(bench.state["x"].grad)
    assert grad.shape == (16,)
    np.testing.assert_allclose(grad, np.full(16, np.float64(np.float32(1.0001)) ** 20_000), rtol=2e-3)


@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("kind", OP_LIBRARIES)
def test_a_tiny_op_gets_its_own_gradients(kind: str, op: str) -> None:
    bench = build(f"tiny-{op}", kind, quick=True)
    bench.run()
    a, b = array(bench.state["a"]), array(bench.state["b"])
    expected = (np.ones(1), np.ones(1)) if op == "add" else (b, a)
    np.testing.assert_allclose(array(bench.state["a"].grad), expected[0])
    np.testing.assert_allclose(array(bench.state["b"].grad), expected[1])


@pytest.mark.parametrize("key", ["chain", "chain-gc-off"])
@pytest.mark.parametrize("kind", OP_LIBRARIES)
def test_the_long_chain_has_the_gradient_of_its_formula(kind: str, key: str) -> None:
    bench = build(key, kind, quick=True)  # 1,000 ops
    bench.run()
    np.testing.assert_allclose(array(bench.state["x"].grad), [np.float64(np.float32(1.0000001)) ** 500], rtol=1e-5)
    assert workload(key).gc_off == (key == "chain-gc-off")


# --- the training steps -----------------------------------------------------------------------
def parameters(bench: w.Bench, kind: str) -> dict:
    """The parameters after the steps, named as in the frameworks' state_dict, (out, in) for weights."""
    if kind == "numpy":
        params = bench.state["params"]
        if "W0" in params:  # the MLP: x @ W, so W is (in, out)
            return {f"{2 * i}.{part}": (params[f"{letter}{i}"].T if letter == "W" else params[f"{letter}{i}"])
                    for i in range(3) for letter, part in (("W", "weight"), ("b", "bias"))}
        return dict(params)
    if "model" in bench.state:
        return {name: array(value) for name, value in bench.state["model"].state_dict().items()}
    names = [f"{2 * i}.{part}" for i in range(3) for part in ("weight", "bias")]
    return {name: array(p).T if name.endswith("weight") else array(p) for name, p in zip(names, bench.state["params"])}


def two_steps(key: str, kind: str) -> dict:
    bench = build(key, kind)
    bench.run()
    bench.run()
    return parameters(bench, kind)


def initial(key: str) -> dict:
    data = w.cnn_data() if key.startswith("mnist") else w.mlp_data()
    if key.startswith("mnist"):
        return data["params"]
    p = data["params"]
    return {f"{2 * i}.{part}": (p[f"W{i}"].T if part == "weight" else p[f"b{i}"])
            for i in range(3) for part in ("weight", "bias")}


@pytest.mark.parametrize("key", ["mlp", "mnist-no-dropout", "manual-mlp"])
@pytest.mark.parametrize("kind", [lib for lib in STEP_LIBRARIES if lib != "glasstorch"])
def test_a_training_step_updates_the_parameters_as_glasstorchs_does(kind: str, key: str) -> None:
    ours, theirs, before = two_steps(key, "glasstorch"), two_steps(key, kind), initial(key)
    assert ours.keys() == theirs.keys() == before.keys()
    for name in ours:
        assert not np.allclose(ours[name], before[name]), f"{name} did not move"
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-4, atol=1e-6, err_msg=name)


def test_the_manual_mlp_uses_plain_sgd_and_the_nn_mlp_momentum() -> None:
    """Two steps from the same start: momentum makes the second step of "mlp" the larger."""
    plain, momentum, before = two_steps("manual-mlp", "glasstorch"), two_steps("mlp", "glasstorch"), initial("mlp")
    moved = {name: (np.abs(plain[name] - before[name]).sum(), np.abs(momentum[name] - before[name]).sum())
             for name in before}
    assert all(with_momentum > 1.3 * without for without, with_momentum in moved.values())


@pytest.mark.parametrize("kind", ["glasstorch", pytest.param("torch", marks=pytest.mark.torch)])
def test_the_mnist_net_with_dropout_drops_half_the_channels(kind: str) -> None:
    bench = build("mnist", kind)
    model, x = bench.state["model"], bench.state["x"]
    dropped = []
    model.conv2_drop.register_forward_hook(lambda module, args, out: dropped.append(array(out)))
    first = array(model(x))
    assert not np.allclose(first, array(model(x))), "two training-mode forwards should differ"
    channels = np.abs(dropped[0]).sum(axis=(2, 3)) == 0  # 64 x 20 channels
    assert 0.4 < channels.mean() < 0.6
    bench.run()  # and a step runs


@pytest.mark.parametrize("kind", ["glasstorch", pytest.param("torch", marks=pytest.mark.torch)])
def test_the_mnist_net_with_dropout_is_the_same_net_in_eval_mode(kind: str) -> None:
    with_dropout = build("mnist", kind)
    with_dropout.state["model"].eval()  # Dropout2d and F.dropout(training=False) pass their input on
    with_dropout.run()
    with_dropout.run()
    ours, plain = parameters(with_dropout, kind), two_steps("mnist-no-dropout", kind)
    for name in ours:
        np.testing.assert_allclose(ours[name], plain[name], rtol=1e-5, atol=1e-7, err_msg=name)


def test_the_hand_written_mnist_step_with_dropout_differs() -> None:
    with_dropout, without = two_steps("mnist", "numpy"), two_steps("mnist-no-dropout", "numpy")
    assert not np.allclose(with_dropout["fc1.weight"], without["fc1.weight"])
