"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step ``RNNCell``, ``LSTMCell``,
``GRUCell``. Mirrors torch/nn/modules/rnn.py; the arithmetic of one step follows the cells of
aten/src/ATen/native/RNN.cpp.

A layer runs a cell along the sequence: at each time step ``t`` the cell combines the input
``x_t`` with the previous hidden state ``h_{t-1}``. Everything is built from differentiable ops
(``F.linear``, ``sigmoid``, ``tanh``, ``chunk``, ``stack``), so backward through time is just
autograd walking the unrolled graph. The input projections ``W_ih x_t + b_ih`` of all time steps
are computed in one matrix product before the loop (as PyTorch's CPU kernel does); only the
recurrent product ``W_hh h_{t-1}`` must wait for the previous step.

Parameters are named as PyTorch names them, ``weight_ih_l{layer}{_reverse}``, so a state dict
moves between the two libraries. A ``PackedSequence`` (nn/utils/rnn.py) runs as PyTorch runs it:
step ``t`` updates only the ``batch_sizes[t]`` sequences still running, and the others keep their
state, so each sequence's final state is the one after its own last step.
"""
from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, Callable

from ..._creation import empty, zeros
from ..._tensor import Tensor
from ...dtypes import float32
from ...ops.shape import StackBackward0, cat, stack
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# --- one time step (RNN.cpp's cells); ``gi`` is the input's projection W_ih x + b_ih -----------

def _tanh_step(gi: Tensor, hx: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """h' = tanh(W_ih x + b_ih + W_hh h + b_hh)"""
    return (gi + F.linear(hx, w_hh, b_hh)).tanh()


def _relu_step(gi: Tensor, hx: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """h' = relu(W_ih x + b_ih + W_hh h + b_hh)"""
    return (gi + F.linear(hx, w_hh, b_hh)).relu()


def _lstm_step(gi: Tensor, hx: tuple, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None = None) -> tuple:
    """The gates i, f, g, o in that order: c' = f * c + i * g and h' = o * tanh(c')
    (with ``proj_size``, h' is then projected by W_hr)."""
    h, c = hx
    ingate, forgetgate, cellgate, outgate = (gi + F.linear(h, w_hh, b_hh)).chunk(4, 1)
    cy = forgetgate.sigmoid() * c + ingate.sigmoid() * cellgate.tanh()
    hy = outgate.sigmoid() * cy.tanh()
    if w_hr is not None:
        hy = F.linear(hy, w_hr)
    return hy, cy


def _gru_step(gi: Tensor, hx: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """r = σ(i_r + h_r), z = σ(i_z + h_z), n = tanh(i_n + r * h_n), h' = n + z * (h - n)."""
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = F.linear(hx, w_hh, b_hh).chunk(3, 1)
    resetgate = (i_r + h_r).sigmoid()
    inputgate = (i_z + h_z).sigmoid()
    newgate = (i_n + resetgate * h_n).tanh()
    return newgate + inputgate * (hx - newgate)


class MkldnnRnnLayerBackward0(StackBackward0):
    """The Node that gathers an LSTM layer's outputs, named as PyTorch names it for float32 on the
    CPU: there one fused oneDNN kernel computes the whole layer, recorded as one
    ``MkldnnRnnLayerBackward0``. glasstorch unrolls the layer into cell steps (so its graph has a Node
    per step and gate) and stacks their outputs; only that stack takes the fused kernel's name, so
    that ``print(out)`` shows PyTorch's ``grad_fn``. (float64 and GRU/RNN run unfused in PyTorch
    too, and show ``StackBackward0`` there as here.)"""


_STEPS: dict[str, Callable] = {"RNN_TANH": _tanh_step, "RNN_RELU": _relu_step, "LSTM": _lstm_step, "GRU": _gru_step}


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters of every layer and direction, their
    initialisation, the checks on the input and hidden state, and the loop over time."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list = []
        self._all_weights: list = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input_size)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = [name.format(layer, suffix) for name, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(empty(shape, **factory_kwargs)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in ±1/sqrt(hidden_size)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A no-op, as in PyTorch on the CPU (cuDNN packs the weights into one buffer)."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # --- the checks, as PyTorch makes them ------------------------------------------------------
    def check_input(self, input: Tensor, batch_sizes: Any = None) -> None:
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                             f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Any = None) -> tuple:
        mini_batch = _mini_batch(self, input, batch_sizes)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Any = None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def _batched(self, input: Tensor, hx: Any, name: str) -> tuple:
        """The input as (L, N, H_in) or (N, L, H_in); a 2-D input is one unbatched sequence."""
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             + (" tensor instead" if name == "RNN" else " instead"))
        is_batched = input.dim() == 3
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        return input, is_batched

    # --- the loop ---------------------------------------------------------------------------------
    def _run(self, input: Tensor, hx: Any, batch_sizes: list | None = None) -> tuple:
        """Every layer over the whole sequence, both directions if bidirectional. ``hx`` holds
        one initial state per layer and direction (for LSTM the pair (h, c)). ``input`` is
        time-major (T, B, H_in), or, with ``batch_sizes``, a packed batch's data (see
        ``nn/utils/rnn.py``): step ``t`` is the next ``batch_sizes[t]`` rows. Returns the last
        layer's output in the same layout and the final state of each layer and direction."""
        num_directions = 2 if self.bidirectional else 1
        layer_input = input.transpose(0, 1) if self.batch_first and batch_sizes is None else input
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                hidden = tuple(h[index] for h in hx) if self.mode == "LSTM" else hx[index]
                layer_output, hidden = self._run_direction(layer_input, hidden, index, batch_sizes, direction == 1)
                outputs.append(layer_output)
                finals.append(hidden)
            layer_input = outputs[0] if num_directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        if self.batch_first and batch_sizes is None:  # PyTorch's unfused kernels (GRU, RNN) transpose in place
            output = layer_input.transpose(0, 1) if self.mode == "LSTM" else layer_input.transpose_(0, 1)
        else:
            output = layer_input
        if self.mode == "LSTM":
            return output, (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        return output, stack(finals)

    def _run_direction(self, layer_input: Tensor, hidden: Any, index: int, batch_sizes: list | None,
                       reverse: bool) -> tuple:
        """One layer in one direction: the cell at every step, forward or backward in time."""
        weights = [getattr(self, name) for name in self._all_weights[index]]
        w_ih, w_hh = weights[0], weights[1]
        b_ih, b_hh = (weights[2], weights[3]) if self.bias else (None, None)
        extra = (weights[-1],) if self.proj_size > 0 else ()
        projected = F.linear(layer_input, w_ih, b_ih)  # W_ih x_t + b_ih for every t at once
        gates = projected.unbind(0) if batch_sizes is None else projected.split(batch_sizes)
        out = [None] * len(gates)
        for t in (range(len(gates) - 1, -1, -1) if reverse else range(len(gates))):
            out[t], hidden = _step_first_rows(_STEPS[self.mode], gates[t], hidden, (w_hh, b_hh, *extra))
        if batch_sizes is not None:
            return cat(out), hidden
        layer_output = stack(out)
        if self.mode == "LSTM" and layer_output.grad_fn is not None and layer_output.dtype is float32:
            layer_output.grad_fn.__class__ = MkldnnRnnLayerBackward0  # PyTorch's name, see the class
        return layer_output, hidden

    # --- packed batches ---------------------------------------------------------------------------
    def _forward_packed(self, input: PackedSequence, hx: Any) -> tuple:
        """A packed batch in, a packed batch out (same ``batch_sizes`` and order). The initial and
        final states are in the caller's batch order; inside, sequences run longest first."""
        data, batch_sizes_tensor, sorted_indices, unsorted_indices = input
        batch_sizes = [int(n) for n in batch_sizes_tensor.tolist()]
        if hx is None:
            hx = self._initial_state(batch_sizes[0], data.dtype)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(data, hx, batch_sizes_tensor)
        output, hidden = self._run(data, hx, batch_sizes)
        return (PackedSequence(output, batch_sizes_tensor, sorted_indices, unsorted_indices),
                self.permute_hidden(hidden, unsorted_indices))

    def _initial_state(self, batch: int, dtype: Any) -> Any:
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        h = zeros(self.num_layers * num_directions, batch, size, dtype=dtype)
        if self.mode == "LSTM":
            return h, zeros(self.num_layers * num_directions, batch, self.hidden_size, dtype=dtype)
        return h

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        """The states' batch dim reordered by ``permutation`` (None: as they are)."""
        if permutation is None:
            return hx
        if self.mode == "LSTM":
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)


def _step_first_rows(step: Callable, gates: Tensor, hidden: Any, weights: tuple) -> tuple:
    """One time step for the first ``len(gates)`` sequences of the batch: (their new h, the whole
    batch's state). In a packed batch the other rows are sequences that have ended (or, running
    backwards in time, not yet begun): they keep their state."""
    is_lstm = isinstance(hidden, tuple)
    rows, batch = gates.shape[0], (hidden[0] if is_lstm else hidden).shape[0]
    if rows == batch:
        hidden = step(gates, hidden, *weights)
        return (hidden[0] if is_lstm else hidden), hidden
    if is_lstm:
        new = step(gates, (hidden[0][:rows], hidden[1][:rows]), *weights)
        return new[0], tuple(cat([n, h[rows:]]) for n, h in zip(new, hidden))
    new = step(gates, hidden[:rows], *weights)
    return new, cat([new, hidden[rows:]])


def _mini_batch(module: RNNBase, input: Tensor, batch_sizes: Any) -> int:
    """The batch size: a packed batch's first step holds every sequence."""
    if batch_sizes is not None:
        return int(batch_sizes[0])
    return input.size(0) if module.batch_first else input.size(1)


def _check_arguments(input_size: Any, hidden_size: Any, num_layers: int, bias: Any, batch_first: Any,
                     dropout: Any, proj_size: int) -> None:
    """RNNBase.__init__'s checks, in PyTorch's order."""
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                      f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      stacklevel=3)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if kind is int and value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNN(RNNBase):
    """An Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) (``nonlinearity='relu'``: relu)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def forward(self, input: Tensor | PackedSequence, hx: Tensor | None = None) -> tuple:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        input, is_batched = self._batched(input, hx, "RNN")
        if hx is not None:
            if not is_batched and hx.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
            if is_batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            hx = hx if is_batched else hx.unsqueeze(1)
        else:
            hx = self._initial_state(_mini_batch(self, input, None), input.dtype)
        self.check_forward_args(input, hx)
        output, hidden = self._run(input, hx)
        if not is_batched:
            output, hidden = output.squeeze(0 if self.batch_first else 1), hidden.squeeze(1)
        return output, hidden


class GRU(RNNBase):
    """Gated recurrent unit: reset and update gates decide how much of h_{t-1} to keep."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    forward = RNN.forward  # the same checks and loop; the step differs (self.mode)

    def _batched(self, input: Tensor, hx: Any, name: str) -> tuple:
        return super()._batched(input, hx, "GRU")


class LSTM(RNNBase):
    """Long short-term memory: a cell state c_t beside h_t, guarded by input, forget and output gates."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Any = None) -> tuple:
        mini_batch = _mini_batch(self, input, batch_sizes)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: tuple, batch_sizes: Any = None) -> None:  # type: ignore[override]
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def forward(self, input: Tensor | PackedSequence, hx: tuple | None = None) -> tuple:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        input, is_batched = self._batched(input, hx, "LSTM")
        if hx is None:
            hx = self._initial_state(_mini_batch(self, input, None), input.dtype)
        else:
            dims = (hx[0].dim(), hx[1].dim())
            if is_batched and dims != (3, 3):
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({dims[0]}-D, {dims[1]}-D) tensors")
            if not is_batched:
                if dims != (2, 2):
                    raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({dims[0]}-D, {dims[1]}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx)
        output, (h, c) = self._run(input, hx)
        if not is_batched:
            output, h, c = output.squeeze(0 if self.batch_first else 1), h.squeeze(1), c.squeeze(1)
        return output, (h, c)


# --- the cells: one time step ----------------------------------------------------------------------

class RNNCellBase(Module):
    """What the cells share: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh`` and their init."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    reset_parameters = RNNBase.reset_parameters

    def _batched(self, input: Tensor, hx: Any, name: str, hx_name: str = "hidden") -> tuple:
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {hx_name} to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        return (input if is_batched else input.unsqueeze(0)), is_batched

    def _step(self, step: Callable, input: Tensor, hx: Any) -> Any:
        return step(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, is_batched = self._batched(input, hx, "RNNCell")
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = self._step(_tanh_step if self.nonlinearity == "tanh" else _relu_step, input, hx)
        return ret if is_batched else ret.squeeze(0)


class GRUCell(RNNCellBase):
    """One step of a GRU."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, is_batched = self._batched(input, hx, "GRUCell")
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        ret = self._step(_gru_step, input, hx)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM: returns (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple:
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for idx, value in enumerate(hx or ()):
            if value.dim() not in (1, 2):
                raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        input, is_batched = self._batched(input, None, "LSTMCell")
        if hx is None:
            hx = (zeros(input.size(0), self.hidden_size, dtype=input.dtype),) * 2
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = self._step(_lstm_step, input, hx)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))
