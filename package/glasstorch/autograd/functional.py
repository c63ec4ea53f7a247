"""Higher-level autograd: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``, ``vhp``.

Mirrors torch/autograd/functional.py. Each runs the user's function on fresh copies of the inputs
that require grad, then asks ``autograd.grad`` for the product it needs:

- ``vjp(f, x, v)`` = vᵀ J, one backward pass with ``v`` as the output gradient.
- ``jvp(f, x, v)`` = J v, by the *double-backward trick*: ``g(u) = uᵀ J`` is linear in a dummy
  output gradient ``u``, and the gradient of ``g(u) · v`` with respect to ``u`` is ``J v``.
- ``jacobian`` stacks one vjp per output element; ``hessian`` is the jacobian of the jacobian.
- ``vhp`` = vᵀ H (backward through the gradient), ``hvp`` = H v (the trick again).

Simplified: ``vectorize=True`` computes the same numbers with the same loop (PyTorch batches
the backward passes with vmap), and ``strategy="forward-mode"`` uses reverse mode (glasstorch has
no forward-mode AD; the numbers are the same).
"""
from __future__ import annotations

from typing import Any, Callable

from .. import _tensor as _tensor_module
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# --- the helpers of torch/autograd/functional.py -------------------------------------------------

def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple:
    """``(was it a tuple, the tensors as a tuple)``; anything but tensors is a TypeError."""
    is_inp_tuple = isinstance(inp, tuple)
    inp = inp if is_inp_tuple else (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, _tensor_module.Tensor):
            where = f"the value at index {i}" if is_inp_tuple else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"{where} has type {type(el)}.")
    return is_inp_tuple, inp


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    """Unwrap the one-element tuples the caller did not pass as tuples (one flag, or two for
    (outputs, inputs) nested results)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh leaves the function's graph can start from; with ``create_graph``, views (PyTorch: view_as) that stay
    connected to the caller's graph."""
    return tuple(inp.view(inp.shape) if create_graph and inp.requires_grad else inp.detach().requires_grad_(need_graph)
                 for inp in inputs)


def _grad_postprocess(inputs: tuple, create_graph: bool) -> tuple:
    if isinstance(inputs[0], _tensor_module.Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_INDEPENDENT = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent of the input. "
                "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
                "and that the hessian depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with respect "
                 "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                 "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                 "would be violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs must be computed "
                "in a differentiable manner from the input when running in strict mode."),
}


def _check_requires_grad(inputs: tuple, input_type: str, strict: bool) -> None:
    """In strict mode, refuse results that do not depend on the inputs."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_INDEPENDENT[input_type].format(i=i))


def _autograd_grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None, create_graph: bool = False,
                   retain_graph: bool | None = None) -> tuple:
    """``autograd.grad`` over the outputs that require grad; None for every input if none does."""
    from . import grad

    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    new_outputs, new_grad_outputs = zip(*pairs)
    return grad(new_outputs, inputs, new_grad_outputs, allow_unused=True, create_graph=create_graph,
                retain_graph=retain_graph)


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                   "using the double backward trick to compute forward mode gradients. This is not allowed in "
                   "strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                    "in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {i} in the "
                          "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                          "backward trick to replace forward mode AD."),
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """A gradient that autograd found to be "none" is a tensor of zeros (an error in strict mode)."""
    from .._creation import zeros_like

    res = []
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            grads_i = zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res.append(grads_i)
    return tuple(res)


def _prepare(func_name: str, inputs: Any, v: Any, create_graph: bool, v_like: str) -> tuple:
    """The shared opening of vjp/jvp/vhp/hvp: inputs as fresh leaves, ``v`` checked; ``v_like``
    says what ``v`` must match when it is omitted ("outputs" checks later, in vjp)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", func_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if v is not None:
        _, v = _as_tuple(v, "v", func_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        if v_like == "inputs":
            _validate_v(v, inputs, is_inputs_tuple)
    elif v_like == "inputs" and (len(inputs) != 1 or inputs[0].nelement() != 1):
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                           "Tensor with a single element.")
    return is_inputs_tuple, inputs, v


def _single_output(func_name: str, outputs: tuple, is_outputs_tuple: bool) -> None:
    if is_outputs_tuple or not isinstance(outputs[0], _tensor_module.Tensor):
        raise RuntimeError(f"The function given to {func_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {func_name} should contain a single element")


# --- the public functions ------------------------------------------------------------------------

def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ J)``: the vector-Jacobian product, one backward pass."""
    with enable_grad():
        is_inputs_tuple, inputs, v = _prepare("vjp", inputs, v, create_graph, "outputs")
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick."""
    from .._creation import zeros_like

    with enable_grad():
        is_inputs_tuple, inputs, v = _prepare("jvp", inputs, v, create_graph, "inputs")
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)  # the dummy u
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)  # uᵀ J, linear in u
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)  # d(uᵀ J v)/du = J v
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_outputs_tuple))


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: for output i and input j, a tensor of shape
    ``outputs[i].shape + inputs[j].shape``, one vjp per output element."""
    from .._creation import zeros_like
    from ..ops.shape import stack

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
    if vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                           "supported together. Please either set `strict=False` or `vectorize=False`.")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        jacobian_rows = []
        for i, out in enumerate(outputs):
            jac_i: tuple = tuple([] for _ in inputs)  # for each input, one row per element of out
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{el_idx}. This is not allowed in strict mode.")
                        vj_el = zeros_like(inp_el)
                    elif strict and create_graph and not vj_el.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                           "This is not allowed in strict mode when create_graph=True.")
                    jac_i_el.append(vj_el)
            jacobian_rows.append(tuple(
                stack(rows, dim=0).view(out.size() + inputs[el_idx].size()) if rows
                else zeros_like(inputs[el_idx]).view(out.size() + inputs[el_idx].size())  # a 0-element output
                for el_idx, rows in enumerate(jac_i)))
        result = _grad_postprocess(tuple(jacobian_rows), create_graph)
        if strategy == "forward-mode":  # PyTorch's forward-mode path builds lists, and returns them
            result = [list(row) for row in result]
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar function: the jacobian of its jacobian."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Any) -> Any:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        _single_output("hessian", t_out, is_out_tuple)
        return out.squeeze()

    def jac_func(*inp: Any) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_and_gradient(func_name: str, func: Callable, inputs: Any, v: Any, create_graph: bool,
                         strict: bool) -> tuple:
    """What vhp and hvp share: the function's single-element output and its gradient, kept
    differentiable (``create_graph=True``) so it can be differentiated once more."""
    is_inputs_tuple, inputs, v = _prepare(func_name, inputs, v, create_graph, "inputs")
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", func_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _single_output(func_name, outputs, is_outputs_tuple)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), vᵀ H)``: backward through the gradient, with ``v`` as its output gradient."""
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_and_gradient(
            "vhp", func, inputs, v, create_graph, strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``(func(inputs), H v)``: the double-backward trick applied to the gradient."""
    from .._creation import zeros_like

    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_and_gradient(
            "hvp", func, inputs, v, create_graph, strict)
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))
