"""Plausible wrong answers to chapter 15's exercises: each must be caught by its check."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import glasstorch as torch


# -- 15.conv2d_forward ----------------------------------------------------------------------------

def _conv(x, weight, bias, stride, padding, dilation, groups, *, flip=False, dilate=True, batch_first=True,
          dtype=None):
    """A correct im2col convolution, with switches for the mistakes below."""
    n, c, h, w = x.shape
    o, gc, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    if not dilate:
        dh = dw = 1
    if flip:
        weight = weight[:, :, ::-1, ::-1]
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    windows = sliding_window_view(padded, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(2, 3))
    windows = windows[:, :, ::sh, ::sw, ::dh, ::dw]
    ho, wo = windows.shape[2:4]
    cols = windows.reshape(n, groups, gc, ho, wo, kh, kw).transpose(1, 2, 5, 6, 0, 3, 4)
    cols = cols.reshape(groups, gc * kh * kw, -1)
    product = np.matmul(weight.reshape(groups, o // groups, -1), cols)
    if batch_first:
        out = product.reshape(o, n, ho, wo).transpose(1, 0, 2, 3)
    else:  # reshapes (O, N * L) straight to (N, O, H, W): scrambles samples and channels
        out = product.reshape(n, o, ho, wo)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return np.ascontiguousarray(out, dtype=dtype or x.dtype)


def conv_flipped_kernel(x, weight, bias, stride, padding, dilation, groups):
    """A textbook convolution: flips the kernel, which a convolution layer does not."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, flip=True)


def conv_without_dilation(x, weight, bias, stride, padding, dilation, groups):
    return _conv(x, weight, bias, stride, padding, dilation, groups, dilate=False)


def conv_reshaped_without_transpose(x, weight, bias, stride, padding, dilation, groups):
    return _conv(x, weight, bias, stride, padding, dilation, groups, batch_first=False)


def conv_float64_output(x, weight, bias, stride, padding, dilation, groups):
    return _conv(x, weight, bias, stride, padding, dilation, groups, dtype=np.float64)


# -- 15.max_pool2d --------------------------------------------------------------------------------

def _pool(x, kernel_size, stride, padding, ceil_mode, *, fill=-np.inf, plane_indices=True, padded_indices=False,
          ceil=True, correct_ceil=True):
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw) = kernel_size, stride, padding

    def out_size(size, k, s, p):
        if not (ceil_mode and ceil):
            return (size + 2 * p - k) // s + 1
        out = -(-(size + 2 * p - k) // s) + 1
        return out - 1 if correct_ceil and (out - 1) * s >= size + p else out

    ho, wo = out_size(h, kh, sh, ph), out_size(w, kw, sw, pw)
    rh, rw = max((ho - 1) * sh + kh - h - ph, 0), max((wo - 1) * sw + kw - w - pw, 0)
    padded = np.pad(x, ((0, 0), (0, 0), (ph, rh), (pw, rw)), constant_values=fill)
    windows = sliding_window_view(padded, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw][:, :, :ho, :wo]
    flat = windows.reshape(n, c, ho, wo, kh * kw)
    best = flat.argmax(-1)
    values = np.take_along_axis(flat, best[..., None], -1)[..., 0]
    if not plane_indices:
        return values, best.astype(np.int64)
    rows = np.arange(ho)[:, None] * sh + best // kw
    cols = np.arange(wo)[None, :] * sw + best % kw
    if padded_indices:  # positions in the padded plane
        return values, (rows * padded.shape[3] + cols).astype(np.int64)
    return values, ((rows - ph) * w + cols - pw).astype(np.int64)


def pool_zero_padding(x, kernel_size, stride, padding, ceil_mode):
    return _pool(x, kernel_size, stride, padding, ceil_mode, fill=0.0)


def pool_indices_in_the_window(x, kernel_size, stride, padding, ceil_mode):
    return _pool(x, kernel_size, stride, padding, ceil_mode, plane_indices=False)


def pool_indices_in_the_padded_plane(x, kernel_size, stride, padding, ceil_mode):
    return _pool(x, kernel_size, stride, padding, ceil_mode, padded_indices=True)


def pool_ignores_ceil_mode(x, kernel_size, stride, padding, ceil_mode):
    return _pool(x, kernel_size, stride, padding, ceil_mode, ceil=False)


def pool_ceil_mode_without_the_correction(x, kernel_size, stride, padding, ceil_mode):
    return _pool(x, kernel_size, stride, padding, ceil_mode, correct_ceil=False)


# -- 15.batch_norm --------------------------------------------------------------------------------

def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, *,
                running_unbiased=True, normalise_unbiased=False, swap_momentum=False, in_place=True,
                use_running_in_eval=True, check_size=True):
    dims = [0, *range(2, input.dim())]
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    n = input.numel() // input.shape[1]
    if check_size and training and n == 1:
        raise ValueError("Expected more than 1 value per channel when training")
    if training or running_mean is None or not use_running_in_eval:
        mean = input.mean(dims, keepdim=True)
        var = ((input - mean) ** 2).mean(dims, keepdim=True)
        if normalise_unbiased:
            var = var * (n / (n - 1))
        if training and running_mean is not None:
            batch_var = var * (n / (n - 1)) if running_unbiased and not normalise_unbiased else var
            new, old = (1 - momentum, momentum) if swap_momentum else (momentum, 1 - momentum)
            with torch.no_grad():
                if in_place:
                    running_mean.mul_(old).add_(mean.reshape(-1) * new)
                    running_var.mul_(old).add_(batch_var.reshape(-1) * new)
                else:  # rebinds the names: the module's buffers never change
                    running_mean = running_mean * old + mean.reshape(-1) * new
                    running_var = running_var * old + batch_var.reshape(-1) * new
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) / (var + eps).sqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def batch_norm_biased_running_var(input, running_mean, running_var, weight=None, bias=None, training=False,
                                  momentum=0.1, eps=1e-5):
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                       running_unbiased=False)


def batch_norm_unbiased_normalisation(input, running_mean, running_var, weight=None, bias=None, training=False,
                                      momentum=0.1, eps=1e-5):
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                       normalise_unbiased=True)


def batch_norm_momentum_weighs_the_old_value(input, running_mean, running_var, weight=None, bias=None,
                                             training=False, momentum=0.1, eps=1e-5):
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, swap_momentum=True)


def batch_norm_rebinds_the_buffers(input, running_mean, running_var, weight=None, bias=None, training=False,
                                   momentum=0.1, eps=1e-5):
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, in_place=False)


def batch_norm_batch_statistics_in_eval(input, running_mean, running_var, weight=None, bias=None, training=False,
                                        momentum=0.1, eps=1e-5):
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                       use_running_in_eval=False)


def batch_norm_update_recorded(input, running_mean, running_var, weight=None, bias=None, training=False,
                               momentum=0.1, eps=1e-5):
    """Right numbers, but the running update runs with grad mode on: the buffers join the graph."""
    dims = [0, *range(2, input.dim())]
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    n = input.numel() // input.shape[1]
    if training and n == 1:
        raise ValueError("Expected more than 1 value per channel when training")
    if training or running_mean is None:
        mean = input.mean(dims, keepdim=True)
        var = ((input - mean) ** 2).mean(dims, keepdim=True)
        if training and running_mean is not None:
            running_mean.copy_(running_mean * (1 - momentum) + mean.reshape(-1) * momentum)
            running_var.copy_(running_var * (1 - momentum) + var.reshape(-1) * (momentum * n / (n - 1)))
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) / (var + eps).sqrt()
    if weight is not None:
        out = out * weight.reshape(shape) + bias.reshape(shape)
    return out


WRONG = {
    "15.conv2d_forward": [conv_flipped_kernel, conv_without_dilation, conv_reshaped_without_transpose,
                          conv_float64_output],
    "15.max_pool2d": [pool_zero_padding, pool_indices_in_the_window, pool_indices_in_the_padded_plane,
                      pool_ignores_ceil_mode, pool_ceil_mode_without_the_correction],
    "15.batch_norm": [batch_norm_biased_running_var, batch_norm_unbiased_normalisation,
                      batch_norm_momentum_weighs_the_old_value, batch_norm_rebinds_the_buffers,
                      batch_norm_batch_statistics_in_eval, batch_norm_update_recorded],
}
