"""Code written for complex tensors runs on real ones (ops/real_tensors.py), and the small
queries of a tensor's kind and size (``nbytes``, ``is_signed``, ``get_device`` ...), against
PyTorch 2.13."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: comparisons with real PyTorch are skipped "
                                            "(pip install torch==2.13.0)")

from pytorch_oracle import assert_same, grad_fn_name, run, run_both, torch_name  # noqa: E402

import glasstorch  # noqa: E402

pytestmark = pytest.mark.torch


def _matrix(lib):
    return lib.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True) * 1


def test_conjugates_of_a_real_tensor_are_the_tensor_itself():
    def program(lib):
        x = _matrix(lib)
        return [x.conj() is x, x.resolve_conj() is x, x.resolve_neg() is x, x.real is x, lib.real(x) is x,
                lib.conj(x) is x, lib.resolve_conj(x) is x, x.is_complex(), lib.is_complex(x), x.is_conj(),
                x.is_neg(), lib.isreal(x)]

    got, want = run_both(program)
    assert got[:-1] == want[:-1] and got[:6] == [True] * 6
    assert_same(got[-1], want[-1])


@pytest.mark.parametrize("expression", ["x.H", "x.mH", "x.adjoint()", "lib.adjoint(x)",
                                        "lib.ones(2, 2, 3, requires_grad=True).mH * 1"])
def test_conjugate_transposes_are_transposes(expression):
    def program(lib):
        x = _matrix(lib)
        out = eval(expression, {"x": x, "lib": lib})  # noqa: S307 - our own expressions
        return out, grad_fn_name(out)

    got, want = run_both(program)
    assert_same(got, want)


@pytest.mark.parametrize("expression", ["x.imag", "lib.imag(x)", "lib.ones(3).H", "lib.ones(2, 2, 2).H",
                                        "lib.ones(3).mH", "lib.ones(3).adjoint()"])
def test_errors(expression):
    outcomes = []
    for lib in (glasstorch, torch):
        kind, error = run(lambda lib: eval(expression, {"x": _matrix(lib), "lib": lib}), lib)  # noqa: S307
        assert kind == "error", f"{lib.__name__} accepted {expression}"
        outcomes.append((type(error).__name__, torch_name(str(error))))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["mH", "adjoint"])
def test_a_0_dim_tensor_is_its_own_adjoint_with_a_deprecation_warning(name):
    def program(lib):
        x = lib.tensor(2.5)
        with pytest.warns(UserWarning) as caught:
            out = getattr(x, name)
            out = out() if callable(out) else out
        return out is x, str(caught[0].message).split(" (Triggered internally")[0]  # PyTorch adds where in C++

    got, want = run_both(program)
    assert got == want and got[0]


def test_size_and_kind_queries():
    def program(lib):
        x = _matrix(lib)
        return [x.nbytes, x[0].nbytes, lib.ones(3, dtype=lib.float64).nbytes, x.ndimension(), x.get_device(),
                x.is_cpu, x.is_signed(), lib.ones(2, dtype=lib.uint8).is_signed(), lib.ones(2, dtype=lib.bool).is_signed(),
                lib.ones(2, dtype=lib.int8).is_signed(), x.is_same_size(lib.ones(2, 3)), x.is_same_size(lib.ones(3, 2))]

    got, want = run_both(program)
    assert got == want
