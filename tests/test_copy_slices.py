"""In-place changes through views (issue 17, section 2): the base's history is rewritten as
PyTorch rewrites it (``CopySlices`` wrapping the op's Node; the view's grad_fn becomes
``AsStridedBackward0``), gradients equal PyTorch 2.13's and finite differences in float64, a view
of a leaf that requires grad is refused, and a saved tensor changed through a view is caught at
backward by its version counter."""
from __future__ import annotations

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.testing import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")


def _leaf(lib, shape, seed=0):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


# name -> program(lib, x): x is a float64 leaf of shape (3, 4); returns the output to backpropagate
def _index_add_row(lib, x):
    y = x * 1
    y[0] += x[2] * 3  # getitem, add_ on the view, then setitem: two CopySlices
    return y


def _mul_column(lib, x):
    y = x * 1
    y[:, 1].mul_(2)
    return y


def _makemore_loop(lib, x):
    """makemore part 4: dC[ix] += demb[k, j], with ix a 0-d index tensor (a select: a view)."""
    Xb = lib.tensor([[1, 2], [2, 0]])
    demb = (x[Xb] * 3).tanh()
    dC = lib.zeros(3, 4, dtype=x.dtype)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += demb[k, j]
    return dC


def _zero_tail(lib, x):
    y = x * 1
    y[1:].zero_()
    return y * x


def _view_add(lib, x):
    y = x * 2
    v = y.view(-1)
    v.add_(1)
    return y * y


def _mul_by_other_view(lib, x):
    y = x.sin()
    y[1:].mul_(x[:2].sin())
    return y


def _views_of_views(lib, x):
    y = x * 1
    y.t()[1:3].diagonal().mul_(5)
    y.unfold(1, 2, 2)[:, 1, 0].sub_(x[0, :3] ** 2)
    y.as_strided((2, 2), (4, 1), 5).div_(3)
    return y * y


def _sibling_used_later(lib, x):
    """Another view made before the change: its history is regenerated when it is used."""
    y = x * 1
    first, later = y[:2], y[1:]
    first.mul_(3)
    return later * lib.arange(4.0, dtype=x.dtype)


def _changed_view_used_later(lib, x):
    y = x * 1
    row = y[0]
    row.mul_(2)
    z = row * 3
    y[1].add_(1)
    return z


def _setitem_mixed_key(lib, x):
    y = x * 1
    y[0, [0, 2]] = x[1, :2] * 5
    y[1:, 1:3] = x[0, 2:]
    return y * y


def _inplace_on_base_after_view(lib, x):
    y = x * 1
    v = y[1]
    y.mul_(2)  # the view's memory changed through its base
    return v * v


def _into_a_tensor_without_grad(lib, x):
    out = lib.zeros(3, 4, dtype=x.dtype)
    out[1].copy_(x[0] * 2)
    out.diagonal().add_(x[2, :3])
    return out * out


PROGRAMS = {f.__name__.lstrip("_"): f for f in (
    _index_add_row, _mul_column, _makemore_loop, _zero_tail, _view_add, _mul_by_other_view, _views_of_views,
    _sibling_used_later, _changed_view_used_later, _setitem_mixed_key, _inplace_on_base_after_view,
    _into_a_tensor_without_grad)}


def _run(lib, name):
    x = _leaf(lib, (3, 4))
    out = PROGRAMS[name](lib, x)
    weights = lib.tensor(np.random.default_rng(5).standard_normal(tuple(out.shape)))
    (out * weights).sum().backward()
    return out, x.grad


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_as_pytorch(name):
    (got, got_grad), (want, want_grad) = _run(gt, name), _run(torch, name)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_by_finite_differences(name):
    assert gradcheck(lambda x: PROGRAMS[name](gt, x), (_leaf(gt, (3, 4)),))


def _names(lib, node, depth=4):
    """The graph below ``node`` as nested (name, [children]), for comparing structure."""
    if node is None or depth == 0:
        return None
    return type(node).__name__, [_names(lib, child, depth - 1) for child, _ in node.next_functions]


@pytest.mark.parametrize("program", [
    lambda lib, x: (lambda y: (y[0].mul_(2), y)[1])(x * 1),
    lambda lib, x: (lambda y: (y.view(-1).add_(1), y)[1])(x * 1),
    lambda lib, x: (lambda y: (y[1:].zero_(), y)[1])(x * 1),
    lambda lib, x: _index_add_row(lib, x),
    lambda lib, x: _makemore_loop(lib, x),
    lambda lib, x: _setitem_mixed_key(lib, x),
    lambda lib, x: (lambda y: (y.__setitem__(0, x[1]), y)[1])(lib.zeros(3, 4, dtype=x.dtype)),
    lambda lib, x: (lambda y: (y.__setitem__([0, 2], x[1]), y)[1])(lib.zeros(3, 4, dtype=x.dtype)),
], ids=["select_mul", "view_add", "slice_zero", "index_add_row", "makemore", "mixed_key", "setitem_into_zeros",
        "index_put_into_zeros"])
def test_graph_as_pytorch(program):
    got, want = program(gt, _leaf(gt, (3, 4))), program(torch, _leaf(torch, (3, 4)))
    assert _names(gt, got.grad_fn) == _names(torch, want.grad_fn)


def test_the_view_gets_as_strided_backward():
    for lib in (gt, torch):
        y = _leaf(lib, (3, 4)) * 1
        v = y[1, 1:]
        v.mul_(2)
        assert type(y.grad_fn).__name__ == "CopySlices"
        assert type(v.grad_fn).__name__ == "AsStridedBackward0"
        assert v.grad_fn.next_functions[0][0] is y.grad_fn
        assert (v.grad_fn._saved_size, v.grad_fn._saved_stride, v.grad_fn._saved_storage_offset) == ((3,), (1,), 5)
        assert v._version == y._version == 1


def test_retained_gradient_of_the_base_moves_to_copy_slices():
    results = []
    for lib in (gt, torch):
        x = _leaf(lib, (2, 3))
        y = x * 1
        y.retain_grad()
        y[0].mul_(2)
        (y * y).sum().backward()
        results.append((y.grad.tolist(), x.grad.tolist()))
    np.testing.assert_allclose(results[0], results[1])


def test_view_of_a_leaf_that_requires_grad_is_refused():
    for lib in (gt, torch):
        x = _leaf(lib, (2, 3))
        for change in (lambda: x[0].mul_(2), lambda: x.view(-1).add_(1), lambda: x.t().zero_(),
                       lambda: x.diagonal().copy_(lib.ones(2, dtype=x.dtype))):
            with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place operation."):
                change()
        with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an in-place operation."):
            x[0] = 1.0
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place operation."):
            x[[0, 1]] = 1.0
        with lib.no_grad():
            x[0] = 1.0  # (how parameters are initialised)
            x[:, 1].add_(1)
        assert x[0].tolist() == [1.0, 2.0, 1.0]


def test_saved_tensor_changed_through_a_view_is_caught():
    for lib in (gt, torch):
        x = _leaf(lib, (3,))
        y = x * 1
        z = y ** 2  # saves y
        y[0].mul_(2)
        with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[\w+\.DoubleTensor \[3\]\], which is output 0 of "
                                               r"(torch::autograd::)?CopySlices, is at version 1; expected version 0 instead"):
            z.sum().backward()
        e = x.exp()  # saves its result; a view of it is changed
        e.t()[1:].add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            e.sum().backward()
        s = x * 1
        view = s[1:]
        w = view.sin()  # saves the view; its base is changed
        s.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            w.sum().backward()


def test_second_backward_through_copy_slices_is_refused():
    for lib in (gt, torch):
        x = _leaf(lib, (3,))
        y = x * 1
        y[1:].mul_(x[:2])
        y.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.sum().backward()


def test_views_whose_history_cannot_be_rewritten_are_refused():
    """PyTorch's handle_view_on_rebase: one output of split/chunk/unbind (or a view of it), and a
    view made in no_grad mode of a tensor that requires grad, changed in place with grad mode on."""
    multi = "Output {} of {} is a view and is being modified inplace. This view is the output of a function that returns multiple views."
    for lib in (gt, torch):
        y = _leaf(lib, (4, 3)) * 1
        for change, position, name in ((lambda: y.split(2)[1].mul_(2), 1, "Split"),
                                       (lambda: y.chunk(2)[1][1].zero_(), 0, "Select"),
                                       (lambda: y.split([1, 3])[1].add_(1), 1, "SplitWithSizes"),
                                       (lambda: y.unbind(1)[2].add_(1), 2, "Unbind")):
            with pytest.raises(RuntimeError, match=multi.format(position, name)):
                change()
        with lib.no_grad():
            row = y[0]
            row.mul_(2)  # inside no_grad: allowed, not recorded
            piece = y.split(2)[0]
            piece.mul_(2)
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace with grad mode enabled"):
            row.mul_(2)
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace with grad mode enabled"):
            row.add_(lib.ones(3))
        plain = lib.ones(4, 3)
        plain.split(2)[0].mul_(2)  # nothing requires grad: nothing to refuse
        assert plain.sum().item() == 18


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_second_derivatives_by_finite_differences(name):
    """CopySlices and AsStridedBackward0 compute their backward with recorded ops: create_graph works."""
    from glasstorch.testing import gradgradcheck

    assert gradgradcheck(lambda x: PROGRAMS[name](gt, x), (_leaf(gt, (3, 4)),))
