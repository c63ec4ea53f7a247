"""``einsum``: products and sums written in Einstein's index notation (``'bij,bjk->bik'``).

Mirrors ``torch.einsum`` (``aten/src/ATen/native/Linear.cpp``). Each operand's dims get letters; a
letter in the output stays, a letter missing from it is summed over. The gradient of one operand
is itself an einsum: the other operands and the output's gradient, contracted back to that
operand's letters. Two details make that exact:

* a letter repeated in one operand (``'ii->i'``, a diagonal) is split into two letters joined by
  an identity matrix, which puts the gradient back on the diagonal only;
* a letter found only in that operand (summed away before anything else saw it) gets a vector of
  ones, which copies the gradient along it.

Simplified: PyTorch computes einsum as permutes, reshapes and ``bmm`` and records those Nodes;
glasstorch records one ``EinsumBackward0``.
"""
from __future__ import annotations

import string
from typing import Any

import numpy as np

from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, SavedTensor
from ._util import compute_requires_grad, set_history


def _parse(equation: str, operands: tuple) -> tuple:
    """``(input subscripts, output subscript)`` with every ``...`` spelled out as letters."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    subscripts = inputs.split(",")
    if len(subscripts) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(subscripts) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    spare = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in equation]
    widths = [t._data.ndim - (len(s) - 3) if "..." in s else 0 for s, t in zip(subscripts, operands)]
    ellipsis = "".join(spare[:max(widths, default=0)])
    spelled = [s.replace("...", ellipsis[len(ellipsis) - w:]) if "..." in s else s for s, w in zip(subscripts, widths)]
    for s, t in zip(spelled, operands):
        if len(s) != t._data.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(s)}) does not match the "
                               f"number of dimensions ({t._data.ndim}) for operand {spelled.index(s)}"
                               + ("" if "..." in equation else " and no ellipsis was given"))
    if arrow:
        output = output.replace("...", ellipsis)
    else:  # implicit output: the ... dims, then the letters seen once, in alphabetical order
        letters = "".join(spelled)
        output = ellipsis + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ellipsis))
    return spelled, output


def _sizes(subscripts: list, operands: tuple) -> dict:
    """Each letter's size; a size of 1 broadcasts, any other disagreement is an error."""
    sizes: dict = {}
    for i, (s, t) in enumerate(zip(subscripts, operands)):
        for letter, n in zip(s, t._data.shape):
            seen = sizes.get(letter, 1)
            if n != 1 and seen != 1 and n != seen:
                raise RuntimeError(f"einsum(): subscript {letter} has size {n} for operand {i} which does not broadcast "
                                   f"with previously seen size {seen}")
            sizes[letter] = max(seen, n) if letter in sizes else n
    return sizes


class EinsumBackward0(Node):
    """d out / d operand k: the einsum of the other operands and ``grad``, back to operand k's
    letters (a repeated letter through an identity matrix, a letter of its own through ones).

    PyTorch has no such Node: its einsum is made of permutes, views and ``bmm``, which it records.
    So nothing here has a PyTorch name: the operands are saved under ``_operands``."""

    def backward(self, grad: Tensor) -> tuple:
        operands = tuple(saved.unpack(self) for saved in self._operands)
        return tuple(self._gradient(k, grad, operands) if self.needs_input_grad(k) else None
                     for k in range(len(operands)))

    def release_variables(self) -> None:
        super().release_variables()
        for saved in self._operands:
            saved.release()

    def _gradient(self, k: int, grad: Tensor, operands: tuple) -> Tensor:
        target = self.subscripts[k]
        spare = iter(c for c in string.ascii_letters if c not in "".join(self.subscripts) + self.output)
        terms = [(s, t) for i, (s, t) in enumerate(zip(self.subscripts, operands)) if i != k]
        terms.append((self.output, grad))
        distinct, seen = [], set()
        for letter in target:
            if letter in seen:  # a repeated letter: a new one, tied to the first by the identity
                new = next(spare)
                terms.append((letter + new, _wrap(np.eye(self.sizes[letter], dtype=grad._data.dtype))))
                letter = new
            seen.add(letter)
            distinct.append(letter)
        available = "".join(s for s, _ in terms)
        for letter in set(distinct) - set(available):  # summed only in this operand: copy along it
            terms.append((letter, _wrap(np.ones(self.sizes[letter], dtype=grad._data.dtype))))
        equation = ",".join(s for s, _ in terms) + "->" + "".join(distinct)
        result = einsum(equation, *[t for _, t in terms])
        shape = self.shapes[k]
        return result if result._data.shape == shape else result.sum_to_size(shape)


def _from_sublists(args: tuple) -> tuple:
    """``(a, [0, 1], b, [1, 2], [0, 2])`` as ``('ab,bc->ac', (a, b))``: integer k is the k-th letter."""
    def letters(sublist: Any) -> str:
        return "".join("..." if k is Ellipsis else string.ascii_letters[k] for k in sublist)

    pairs = len(args) // 2
    operands, subscripts = args[0:2 * pairs:2], args[1:2 * pairs:2]
    output = "->" + letters(args[-1]) if len(args) % 2 else ""
    return ",".join(letters(s) for s in subscripts) + output, operands


def einsum(equation: Any, *operands: Any) -> Tensor:
    """Sum of products over the letters missing from the output: ``einsum('ij,jk->ik', a, b)`` is
    ``a @ b``, ``einsum('ii', a)`` the trace, ``einsum('bi,bj->bij', u, v)`` batched outer products."""
    if not isinstance(equation, str):  # the sublist form: einsum(a, [0, 1], b, [1, 2], [0, 2])
        equation, operands = _from_sublists((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    subscripts, output = _parse(equation, operands)
    sizes = _sizes(subscripts, operands)
    for letter in output:
        if letter not in sizes:
            raise RuntimeError(f"einsum(): output subscript {letter} does not appear in the equation for any input operand")
    # size-1 dims broadcast (numpy's einsum would refuse them): spread them out first
    arrays = [np.broadcast_to(t._data, tuple(sizes[c] for c in s)) for s, t in zip(subscripts, operands)]
    values = np.einsum(",".join(subscripts) + "->" + output, *arrays, optimize=len(arrays) > 2)
    result = _wrap(np.asarray(values, dtype=np.result_type(*arrays)))
    if compute_requires_grad(*operands):
        node = EinsumBackward0(*operands)
        node.subscripts, node.output, node.sizes = subscripts, output, sizes
        node.shapes = [t._data.shape for t in operands]
        node._operands = tuple(SavedTensor(t) for t in operands)
        set_history(result, node)
    return result
