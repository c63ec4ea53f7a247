"""``nn.utils``: helpers around parameters and their gradients. Mirrors torch/nn/utils/."""
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from . import rnn  # nn.utils.rnn: pad_sequence, pack_padded_sequence, PackedSequence ...

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters"]
