"""The pieces under every exercise check: observations as plain data, their JSON form (the
grader's only channel out of a submission's kernel), the comparison's words, and the verdicts."""
from __future__ import annotations

import json

import numpy as np
import pytest

import glasstorch as torch
from glasstorch.course.checking import (FAILED, MISSING, NOT_WRITTEN, PASSED, Case, Exercise, judge, replaced,
                                        run_check)
from glasstorch.course.comparison import first_difference
from glasstorch.course.observation import Opaque, Raised, dumps, loads, to_plain

TOL = {"rtol": 1e-5, "atol": 1e-6}


def test_to_plain_turns_tensors_dtypes_and_tuples_into_plain_data() -> None:
    plain = to_plain({"t": torch.tensor([1.0, 2.0], requires_grad=True), "d": torch.float64, "s": (1, "a", None)})
    assert isinstance(plain["t"], np.ndarray) and plain["t"].dtype == np.float32
    assert plain["d"] == "glasstorch.float64" and plain["s"] == [1, "a", None]
    assert to_plain(Exception("x")) == Opaque("Exception('x')")


@pytest.mark.parametrize("value", [
    np.arange(6, dtype=np.float32).reshape(2, 3), np.array([True, False]), np.array(3, dtype=np.int64),
    {"b": [1, 2.5, "x", None, True], "a": {"nested": np.zeros((0, 2))}},
    Raised("RuntimeError", "boom"), Opaque("<thing>"), float("nan"), float("-inf"),
    np.array([1.5], dtype=np.dtype(">f8")),
])
def test_json_round_trip_keeps_values_dtypes_and_key_order(value) -> None:
    back = loads(dumps(value))
    assert first_difference(to_plain(value), back, **TOL) is None
    if isinstance(value, dict):
        assert list(back) == list(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype.newbyteorder("=") and back.shape == value.shape


def test_a_tampered_record_cannot_name_a_constructor() -> None:
    with pytest.raises(ValueError, match="unknown observation record"):
        loads(json.dumps({"__reduce__": ["os.system", ["echo hacked"]]}))
    with pytest.raises((TypeError, ValueError)):
        loads(json.dumps({"__ndarray__": "object", "shape": [1], "data": ""}))


@pytest.mark.parametrize("expected, got, phrase", [
    (np.zeros((3, 1), np.float32), np.zeros((3, 4), np.float32), "expected shape (3, 1), got shape (3, 4)"),
    (np.zeros(2, np.float32), np.zeros(2, np.float64), "expected dtype float32, got dtype float64"),
    (np.array([1.0, 2.0]), np.array([1.0, 2.5]), "first at index (1,)"),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, "keys in the wrong order"),
    ({"a": 1}, {"a": 1, "c": 3}, "unexpected keys ['c']"),
    ({"w": [1, 2]}, {"w": [1, 3]}, "at w[1]: expected 2, got 3"),
    ([1, 2], [1], "expected 2 items, got 1"),
    (Raised("TypeError", "bad"), 3, "expected it to raise TypeError"),
    (Raised("TypeError", "bad"), Raised("ValueError", "x"), "but it raised ValueError: x"),
    (np.zeros(2), Raised("RuntimeError", "oops"), "but it raised RuntimeError: oops"),
    (None, 0, "expected None, got 0"),
    (True, 1, "expected True, got 1"),
    (0.5, "0.5", "expected the number 0.5"),
])
def test_the_first_difference_is_described_in_words(expected, got, phrase: str) -> None:
    found = first_difference(expected, got, **TOL)
    assert found is not None and phrase in found, found


@pytest.mark.parametrize("expected, got", [
    (np.array([1.0, np.nan], np.float32), np.array([1.0 + 1e-7, np.nan], np.float32)),
    (0.1 + 0.2, 0.3), (3, 3.0), (np.array(2.0), 2.0), ("s", "s"), (None, None),
    (Raised("RuntimeError", "a message"), Raised("RuntimeError", "another message")),
])
def test_equal_enough_is_no_difference(expected, got) -> None:
    assert first_difference(expected, got, **TOL) is None


def _square_exercise() -> Exercise:
    return Exercise(id="99.square", entry="square", title="square", hint="multiply x by itself",
                    cases=lambda rng: [Case("ints", (np.arange(3),)), Case("negative", (np.array([-2.0]),), hint="(-2)² = 4")],
                    reference=lambda x: x * x)


def _stub(x):
    raise NotImplementedError("write this")


@pytest.mark.parametrize("impl, status", [
    (lambda x: x ** 2, PASSED),
    (lambda x: x * abs(x), FAILED),
    (_stub, NOT_WRITTEN),
])
def test_judge_gives_the_status(impl, status: str) -> None:
    ex = _square_exercise()
    cases = ex.make_cases(0)
    result = judge(ex, cases, [ex.observe_case(impl, case) for case in cases])
    assert result.status == status and result.points == (1 if status == PASSED else 0)


def test_cases_without_an_observation_fail_and_say_so() -> None:
    """The grader may get fewer observations than cases (a run cut short): those cases fail."""
    ex = _square_exercise()
    cases = ex.make_cases(0)
    result = judge(ex, cases, [ex.observe_case(lambda x: x * x, cases[0])])
    assert result.status == FAILED and result.cases_passed == 1
    assert "not tried" in result.summary() and "Case 'negative' fails" in str(result)
    assert judge(ex, cases, []).status == MISSING


def test_the_feedback_names_the_case_the_values_and_the_case_hint() -> None:
    ex = _square_exercise()
    cases = ex.make_cases(0)
    text = str(judge(ex, cases, [ex.observe_case(lambda x: x * abs(x), case) for case in cases]))
    assert "1 of 2 cases pass" in text and "Case 'negative' fails" in text
    assert "expected 4.0, got -4.0" in text and "Hint: (-2)² = 4" in text


def test_an_implementation_never_sees_the_cases_own_arrays() -> None:
    ex = _square_exercise()
    case = ex.make_cases(0)[0]

    def vandal(x):
        x[...] = 100
        return x * x

    ex.observe_case(vandal, case)
    assert case.inputs[0].tolist() == [0, 1, 2]


def test_run_check_on_something_not_callable_and_on_an_unknown_id() -> None:
    assert run_check("05.mul_backward", 42).status == MISSING
    with pytest.raises(KeyError, match="there is no exercise '05.nope'; the exercises are: .*05.mul_backward"):
        run_check("05.nope", print)


class _Owner:
    value = "class"


class _Child(_Owner):
    pass


def test_replaced_restores_an_own_attribute_and_uncovers_an_inherited_one() -> None:
    with replaced(_Owner, "value", "patched"):
        assert _Child.value == "patched"
    assert _Owner.value == "class"
    with replaced(_Child, "value", "child"):
        assert _Child.value == "child" and _Owner.value == "class"
    assert "value" not in vars(_Child) and _Child.value == "class"
    with pytest.raises(ZeroDivisionError), replaced(_Owner, "value", "x"):
        1 / 0
    assert _Owner.value == "class"
