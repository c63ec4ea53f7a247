"""Storage, strides and views (issue 17, section 2): each view op gives PyTorch's sizes, strides
and storage offset, shares its base's storage (same ``data_ptr`` arithmetic, one
``untyped_storage()`` object), its version counter and ``_base``; ``view`` refuses a layout it
cannot describe with PyTorch's error while ``reshape`` copies. Compared with PyTorch 2.13; the
gradients of ``as_strided`` and ``diagonal`` are gradchecked in float64."""
from __future__ import annotations

import numpy as np
import pytest

import glasstorch as gt
from glasstorch.testing import gradcheck, gradgradcheck

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

# name -> a view made from a (2, 3, 4) tensor of 24 float32 elements
VIEWS = {
    "select": lambda x: x[1],
    "slice": lambda x: x[:, 1:],
    "step": lambda x: x[..., ::2],
    "t_of_select": lambda x: x[0].t(),
    "transpose": lambda x: x.transpose(0, 2),
    "permute": lambda x: x.permute(2, 0, 1),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "unfold": lambda x: x.unfold(2, 2, 1),
    "unfold_step": lambda x: x[1].unfold(1, 3, 2),
    "diagonal": lambda x: x.diagonal(),
    "diagonal_offset": lambda x: x.diagonal(1, 1, 2),
    "diagonal_negative": lambda x: x.diagonal(-1, 2, 1),
    "torch_diagonal": lambda x: x.diagonal(offset=-1, dim1=0, dim2=2),
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "unsqueeze_expand": lambda x: x[0, 0].unsqueeze(0).expand(3, 4),
    "view": lambda x: x.view(6, 4),
    "view_of_slice": lambda x: x[1].view(12),
    "reshape_view": lambda x: x.reshape(4, 6),
    "as_strided": lambda x: x.as_strided((3, 3), (4, 1), 2),
    "as_strided_of_view": lambda x: x[1].as_strided((2, 2), (1, 4)),
    "squeeze": lambda x: x[:1].squeeze(0),
    "split": lambda x: x.split(2, dim=2)[1],
    "chunk": lambda x: x.chunk(3, dim=1)[2],
    "unbind": lambda x: x.unbind(1)[1],
    "alias": lambda x: x[...],
}


def _layout(lib, name):
    base = lib.arange(24.0).reshape(2, 3, 4)
    view = VIEWS[name](base)
    return base, view


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_layout_as_pytorch(name):
    (gb, gv), (tb, tv) = _layout(gt, name), _layout(torch, name)
    assert gv.tolist() == tv.tolist()
    assert gv.stride() == tv.stride()
    assert gv.storage_offset() == tv.storage_offset()
    assert gv.is_contiguous() == tv.is_contiguous()
    assert gv._is_view() and tv._is_view()
    assert gv.data_ptr() - gb.data_ptr() == tv.data_ptr() - tb.data_ptr()
    assert gv.untyped_storage() is gb.untyped_storage()
    assert gv.untyped_storage().nbytes() == tv.untyped_storage().nbytes() == 96
    assert gv._base is gb._base  # (the arange: the view's base is the first tensor in the chain)
    assert gv._version == gb._version


def test_storage_bytes_as_pytorch():
    g, t = gt.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    gs, ts = g.untyped_storage(), t.untyped_storage()
    assert gs.data_ptr() == g.data_ptr() and ts.data_ptr() == t.data_ptr()
    assert (len(gs), gs.size(), gs.nbytes()) == (len(ts), ts.size(), ts.nbytes()) == (24, 24, 24)
    assert [gs[i] for i in range(24)] == [ts[i] for i in range(24)] == gs.tolist()
    assert type(gs[5]) is int
    gs[7] = 64  # the high byte of the float32 1.0 (0x3f800000, little-endian): 0x40800000 is 4.0
    ts[7] = 64
    assert g.tolist() == t.tolist() == [[0.0, 4.0, 2.0], [3.0, 4.0, 5.0]]
    assert repr(gt.arange(2, dtype=gt.uint8).untyped_storage()) == repr(
        torch.arange(2, dtype=torch.uint8).untyped_storage()).replace("torch", "glasstorch")


def test_a_copy_has_its_own_storage_and_is_not_a_view():
    for lib in (gt, torch):
        x = lib.arange(6.0).reshape(2, 3)
        for copy in (x.t().contiguous(), x.t().reshape(-1), x.clone(), x[[0, 1]], x.flip(0)):
            assert copy._base is None and not copy._is_view()
            assert copy.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        assert x.detach()._base is None and x.detach().data_ptr() == x.data_ptr()
        assert x.contiguous() is x


def test_view_of_non_contiguous_fails_and_reshape_copies():
    for lib in (gt, torch):
        x = lib.arange(6.0).reshape(2, 3)
        with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
            x.t().view(-1)
        flat = x.t().reshape(-1)
        assert flat.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0] and flat.is_contiguous()
        assert x.t().contiguous().view(-1).tolist() == flat.tolist()


def test_a_view_shares_the_version_counter():
    for lib in (gt, torch):
        x = lib.zeros(2, 3)
        row = x[1]
        row.add_(1)
        assert x._version == row._version == 1
        x.mul_(2)
        assert row._version == 2 and row.tolist() == [2.0, 2.0, 2.0]


def test_expand_has_stride_zero_and_refuses_writes():
    for lib in (gt, torch):
        e = lib.arange(3.0).expand(2, 3)
        assert e.stride() == (0, 1) and not e.is_contiguous()
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single memory location"):
            e.add_(1)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            e.mul_(lib.ones(2, 3))
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            e.copy_(lib.ones(2, 3))
        # one value everywhere is well defined: fill_, zero_ and x[i] = number may (as PyTorch)
        e.fill_(2)
        e[1] = 5.0
        assert e.tolist() == [[5.0, 5.0, 5.0]] * 2
        e.zero_()
        with pytest.warns(UserWarning, match="Use of masked_fill_ on expanded tensors is deprecated"):
            e.masked_fill_(lib.tensor([True, False, True]), 1.0)
        assert e.tolist() == [[1.0, 0.0, 1.0]] * 2
        e[0].add_(1)  # one row of it shares no cell with itself: allowed, and the base sees it
        assert e._base.tolist() == [2.0, 1.0, 2.0]


def test_as_strided_errors_as_pytorch():
    for lib in (gt, torch):
        x = lib.arange(6.0)
        with pytest.raises(RuntimeError, match=r"setStorage: sizes \[3, 3\], strides \[3, 1\], storage offset 0, and itemsize 4 "
                                               r"requiring a storage size of 36 are out of bounds for storage of size 24"):
            x.as_strided((3, 3), (3, 1))
        with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
            x.as_strided((3, 3), (1,))
        with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 0, 0"):
            x.reshape(2, 3).diagonal(0, 0, 0)


def test_writes_through_views_reach_the_base():
    for lib in (gt, torch):
        x = lib.zeros(3, 4)
        x.diagonal().fill_(1)
        x.t()[3].add_(2)
        x.unfold(1, 2, 2)[:, 1, 0].sub_(5)
        x.as_strided((2,), (5,), 1).mul_(10)
        x.narrow(0, 2, 1).add_(0.5)
        if lib is gt:
            got = x.tolist()
        else:
            assert got == x.tolist()


def test_hand_computed_strides():
    """The strides a chapter computes by hand: row-major means each dim steps over the product
    of the sizes after it."""
    x = gt.zeros(2, 3, 4, 5)
    assert x.stride() == (60, 20, 5, 1)
    assert x.permute(3, 1, 0, 2).stride() == (1, 20, 60, 5)
    assert x[:, 1, ::2].stride() == (60, 10, 1)
    assert x[:, 1, ::2].storage_offset() == 20


@pytest.mark.parametrize("name", ["as_strided_overlapping", "as_strided_of_view", "diagonal", "diagonal_offset", "unfold"])
def test_view_gradients_by_finite_differences(name):
    functions = {
        "as_strided_overlapping": lambda x: x.as_strided((3, 2), (1, 2), 1) * x.as_strided((3, 2), (1, 2), 1),
        "as_strided_of_view": lambda x: x[1:].as_strided((2, 2), (1, 3)).exp(),
        "diagonal": lambda x: x.diagonal() ** 2,
        "diagonal_offset": lambda x: x.diagonal(-1).sin(),
        "unfold": lambda x: x.unfold(1, 2, 1) ** 2,
    }
    x = gt.tensor(np.random.default_rng(0).standard_normal((3, 3)), requires_grad=True)
    assert gradcheck(functions[name], (x,))
    assert gradgradcheck(functions[name], (x,))


@pytest.mark.parametrize("name", ["as_strided", "diagonal"])
def test_view_grad_fn_and_gradient_as_pytorch(name):
    make = {"as_strided": lambda x: x.as_strided((2, 3), (1, 2), 1), "diagonal": lambda x: x.diagonal(1)}[name]
    values = np.random.default_rng(1).standard_normal((3, 4))
    results = []
    for lib in (gt, torch):
        x = lib.tensor(values, requires_grad=True)
        y = make(x)
        (y * y).sum().backward()
        saved = sorted(k for k in dir(y.grad_fn) if k.startswith("_saved_"))
        results.append((type(y.grad_fn).__name__, saved, [getattr(y.grad_fn, k) for k in saved], x.grad.tolist()))
    assert results[0][:3] == results[1][:3]
    np.testing.assert_allclose(results[0][3], results[1][3])


def test_stacking_functions_as_pytorch():
    a, b = np.arange(3.0), np.arange(3.0, 6.0)
    m = np.arange(6.0).reshape(2, 3)
    for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
        for inputs in ((a, b), (m, m + 1), (np.array(1.0), np.array(2.0))):
            if name == "hstack" or name == "column_stack" or inputs[0].ndim:
                want = getattr(torch, name)([torch.tensor(v) for v in inputs])
                got = getattr(gt, name)([gt.tensor(v) for v in inputs])
                assert got.shape == tuple(want.shape) and got.tolist() == want.tolist(), (name, inputs)
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for v in (np.array(1.0), a, m):
            assert getattr(gt, name)(gt.tensor(v)).shape == tuple(getattr(torch, name)(torch.tensor(v)).shape)
    x = gt.tensor(m, requires_grad=True)
    assert gradcheck(lambda x: gt.column_stack([x[0], x[1] * 2, x.t()[:, :1]]), (x,))
    assert gradcheck(lambda x: gt.dstack([x, x.exp()]), (x,))


def test_view_as_another_dtype_reads_the_same_bytes():
    for lib in (gt, torch):
        x = lib.arange(6.0).reshape(2, 3)
        bits = x.view(lib.int32)
        assert bits[0, 1].item() == 0x3F800000 and bits.stride() == (3, 1) and not bits._is_view()
        assert bits.data_ptr() == x.data_ptr() and not bits.requires_grad
        part = x[:, 1:].view(lib.int16)
        assert (tuple(part.shape), part.stride(), part.storage_offset()) == ((2, 4), (6, 1), 2)
        with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 to view Float as Double \(different element sizes\), but got 3"):
            x.view(lib.float64)
        with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1 to view Float as Half \(different element sizes\), but got 3"):
            x.t().view(lib.float16)
        bits.add_(1)  # one more in the lowest bit of each float
        assert x._version == 1 and x[0, 1].item() == pytest.approx(1.0 + 2 ** -23)


def test_a_tensor_without_elements_has_data_ptr_zero():
    for lib in (gt, torch):
        empty = lib.empty(0)
        assert empty.data_ptr() == 0 and empty.untyped_storage().data_ptr() == 0
        assert empty.untyped_storage().nbytes() == 0 and lib.arange(4.0)[4:].data_ptr() == 0


@pytest.mark.parametrize("shape", [(2, 0, 3), (0,), (0, 4), (3, 1, 2), (2, 3, 4), ()])
def test_contiguous_strides_as_pytorch(shape):
    """A new tensor's strides, with or without elements: numpy gives an empty array zero strides,
    PyTorch the contiguous ones (a size-0 dim counts as 1: c10/util/strides.h)."""
    from glasstorch.storage import contiguous_strides

    assert gt.empty(shape).stride() == torch.empty(shape).stride() == contiguous_strides(shape)
    assert gt.empty(shape).is_contiguous() and gt.empty(shape).storage_offset() == 0
