"""Plausible wrong answers to chapter 08's exercises: each must be caught by its check."""
import numpy as np

import glasstorch
from glasstorch.autograd import Function


# -- 08.softplus ----------------------------------------------------------------------------------

class SoftplusNaive(Function):
    """The textbook formula: exp(beta x) overflows to inf for large x."""

    @staticmethod
    def forward(x, beta):
        return (1 + (x * beta).exp()).log() / beta

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.beta = inputs[1]

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x * ctx.beta).sigmoid(), None


class SoftplusForgetsBetaInBackward(Function):
    """The gradient of softplus with beta = 1, whatever beta is."""

    @staticmethod
    def forward(x, beta):
        z = x * beta
        return (z.clamp(min=0) + (-z.abs()).exp().log1p()) / beta

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.sigmoid(), None


class SoftplusIgnoresGradOutput(Function):
    """Returns the local derivative alone, as if the upstream gradient were always ones."""

    @staticmethod
    def forward(x, beta):
        z = x * beta
        return (z.clamp(min=0) + (-z.abs()).exp().log1p()) / beta

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.beta = inputs[1]

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return (x * ctx.beta).sigmoid(), None


class SoftplusOneGradient(Function):
    """Returns one gradient for two inputs (none for beta)."""

    @staticmethod
    def forward(x, beta):
        z = x * beta
        return (z.clamp(min=0) + (-z.abs()).exp().log1p()) / beta

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.beta = inputs[1]

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x * ctx.beta).sigmoid()


class SoftplusOldStyle(Function):
    """Correct numbers, but the old style the exercise asks to leave: forward(ctx, ...), no setup_context."""

    @staticmethod
    def forward(ctx, x, beta):
        ctx.save_for_backward(x)
        ctx.beta = beta
        z = x * beta
        return (z.clamp(min=0) + (-z.abs()).exp().log1p()) / beta

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x * ctx.beta).sigmoid(), None


# -- 08.hvp ---------------------------------------------------------------------------------------

def hvp_without_create_graph(f, x, v):
    """The first gradient is not a graph: the second grad has nothing to differentiate."""
    (grad,) = glasstorch.autograd.grad(f(x), x)
    (hv,) = glasstorch.autograd.grad((grad * v).sum(), x)
    return hv


def hvp_first_order(f, x, v):
    """The directional derivative grad . v times nothing: the gradient scaled by v, not H v."""
    (grad,) = glasstorch.autograd.grad(f(x), x)
    return grad * v


def hvp_through_backward(f, x, v):
    """Right numbers, but through backward(): x.grad is left filled (and would accumulate)."""
    (grad,) = glasstorch.autograd.grad(f(x), x, create_graph=True)
    (grad * v).sum().backward()
    return x.grad.clone()


def hvp_keeps_the_graph(f, x, v):
    """create_graph=True on the second pass too: the result drags a graph along."""
    (grad,) = glasstorch.autograd.grad(f(x), x, create_graph=True)
    (hv,) = glasstorch.autograd.grad((grad * v).sum(), x, create_graph=True)
    return hv


# -- 08.disk_stash --------------------------------------------------------------------------------

class StashKeepsTheTensor:
    """Writes to the disk, but pack returns the tensor too: nothing is freed."""

    def __init__(self):
        self.disk = {}

    def pack(self, tensor):
        array = tensor.detach().half().numpy() if tensor.is_floating_point() else tensor.detach().numpy()
        self.disk[len(self.disk)] = (tensor.dtype, array.dtype, array.shape, array.tobytes())
        return len(self.disk) - 1, tensor

    def unpack(self, packed):
        return packed[1]


class StashInFloat32:
    """Moves the tensors to disk but does not compress them."""

    def __init__(self):
        self.disk = {}

    def pack(self, tensor):
        array = tensor.detach().numpy()
        self.disk[len(self.disk)] = (array.dtype, array.shape, array.tobytes())
        return len(self.disk) - 1

    def unpack(self, key):
        stored, shape, data = self.disk[key]
        return glasstorch.from_numpy(np.frombuffer(data, dtype=stored).reshape(shape).copy())


class StashEverythingInFloat16:
    """Converts the int64 class indices to float16 too: cross_entropy's targets come back as floats."""

    def __init__(self):
        self.disk = {}

    def pack(self, tensor):
        array = tensor.detach().half().numpy()
        self.disk[len(self.disk)] = (tensor.dtype, array.shape, array.tobytes())
        return len(self.disk) - 1

    def unpack(self, key):
        dtype, shape, data = self.disk[key]
        return glasstorch.from_numpy(np.frombuffer(data, dtype=np.float16).reshape(shape).copy()).to(dtype)


class StashReturnsFloat16:
    """Forgets to convert back: backward computes with float16 tensors."""

    def __init__(self):
        self.disk = {}

    def pack(self, tensor):
        array = tensor.detach().half().numpy() if tensor.is_floating_point() else tensor.detach().numpy()
        self.disk[len(self.disk)] = (array.dtype, array.shape, array.tobytes())
        return len(self.disk) - 1

    def unpack(self, key):
        stored, shape, data = self.disk[key]
        return glasstorch.from_numpy(np.frombuffer(data, dtype=stored).reshape(shape).copy())


class StashForgetsTheShape:
    """Reads the numbers back as a flat vector."""

    def __init__(self):
        self.disk = {}

    def pack(self, tensor):
        array = tensor.detach().half().numpy() if tensor.is_floating_point() else tensor.detach().numpy()
        self.disk[len(self.disk)] = (tensor.dtype, array.dtype, array.tobytes())
        return len(self.disk) - 1

    def unpack(self, key):
        dtype, stored, data = self.disk[key]
        return glasstorch.from_numpy(np.frombuffer(data, dtype=stored).copy()).to(dtype)


WRONG = {
    "08.softplus": [SoftplusNaive, SoftplusForgetsBetaInBackward, SoftplusIgnoresGradOutput, SoftplusOneGradient,
                    SoftplusOldStyle],
    "08.hvp": [hvp_without_create_graph, hvp_first_order, hvp_through_backward, hvp_keeps_the_graph],
    "08.disk_stash": [StashKeepsTheTensor, StashInFloat32, StashEverythingInFloat16, StashReturnsFloat16,
                      StashForgetsTheShape],
}
