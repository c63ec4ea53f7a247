"""Plausible wrong answers to chapter 16's exercises: each must be caught by its check."""
import math

import glasstorch as torch


# -- 16.sgd_step ----------------------------------------------------------------------------------

def _sgd(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov, maximize,
         clone=True, damp_first=False, decay_in_place=False, nesterov_uses_buf=False, store=True):
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        if weight_decay != 0:
            grad = grad.add_(param, alpha=weight_decay) if decay_in_place else grad.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone() if clone else grad
                if damp_first:
                    buf.mul_(1 - dampening)
                if store:
                    momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = buf if nesterov_uses_buf or not nesterov else grad.add(buf, alpha=momentum)
        param.add_(grad, alpha=-lr)


def sgd_buffer_is_the_gradient(params, grads, momentum_buffer_list, **options):
    """buf = grad without a clone: the buffer and .grad are one tensor."""
    _sgd(params, grads, momentum_buffer_list, **options, clone=False)


def sgd_dampening_at_the_first_step(params, grads, momentum_buffer_list, **options):
    _sgd(params, grads, momentum_buffer_list, **options, damp_first=True)


def sgd_weight_decay_in_place(params, grads, momentum_buffer_list, **options):
    """grad.add_(param, ...) changes p.grad itself."""
    _sgd(params, grads, momentum_buffer_list, **options, decay_in_place=True)


def sgd_nesterov_like_momentum(params, grads, momentum_buffer_list, **options):
    _sgd(params, grads, momentum_buffer_list, **options, nesterov_uses_buf=True)


def sgd_buffer_not_stored(params, grads, momentum_buffer_list, **options):
    """Makes the buffer but never puts it in the list: every step is a first step."""
    _sgd(params, grads, momentum_buffer_list, **options, store=False)


# -- 16.adam_step ---------------------------------------------------------------------------------

def _adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1, beta2, lr,
          weight_decay, eps, maximize, decoupled_weight_decay, correct=True, eps_inside=False, count_in_place=True,
          decouple=True, max_of_squares=False):
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        if count_in_place:
            state_steps[i] += 1
            step = state_steps[i].item()
        else:  # a new tensor: the state's counter stays at 0
            step = (state_steps[i] + 1).item()
        if weight_decay != 0:
            if decoupled_weight_decay and decouple:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avgs[i].mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sqs[i].mul_(beta2).add_(grad * grad, alpha=1 - beta2)
        bc1 = 1 - beta1 ** step if correct else 1.0
        bc2 = 1 - beta2 ** step if correct else 1.0
        second = exp_avg_sqs[i]
        if amsgrad:
            new = grad * grad if max_of_squares else exp_avg_sqs[i]
            max_exp_avg_sqs[i].copy_(torch.maximum(max_exp_avg_sqs[i], new))
            second = max_exp_avg_sqs[i]
        if eps_inside:
            denom = (second / bc2 + eps).sqrt()
        else:
            denom = second.sqrt() / math.sqrt(bc2) + eps
        param.add_(exp_avgs[i] / denom, alpha=-lr / bc1)


def adam_without_bias_correction(*args, **options):
    _adam(*args, **options, correct=False)


def adam_eps_under_the_root(*args, **options):
    _adam(*args, **options, eps_inside=True)


def adam_step_count_not_in_place(*args, **options):
    _adam(*args, **options, count_in_place=False)


def adam_decoupled_decay_as_l2(*args, **options):
    _adam(*args, **options, decouple=False)


def adam_amsgrad_max_of_squared_gradients(*args, **options):
    _adam(*args, **options, max_of_squares=True)


# -- 16.cosine_get_lr -----------------------------------------------------------------------------

def cosine_closed_form(self):
    """Right on a schedule left alone, but not chainable: ignores the current lr."""
    return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs]


def cosine_without_the_initial_step(self):
    t = self.last_epoch
    if (t - 1 - self.T_max) % (2 * self.T_max) == 0:
        return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
    ratio = (1 + math.cos(math.pi * t / self.T_max)) / (1 + math.cos(math.pi * (t - 1) / self.T_max))
    return [self.eta_min + (group["lr"] - self.eta_min) * ratio for group in self.optimizer.param_groups]


def cosine_without_the_bottom(self):
    """Divides by zero at the bottom of the cosine."""
    if self._is_initial:
        return [group["lr"] for group in self.optimizer.param_groups]
    t = self.last_epoch
    ratio = (1 + math.cos(math.pi * t / self.T_max)) / (1 + math.cos(math.pi * (t - 1) / self.T_max))
    return [self.eta_min + (group["lr"] - self.eta_min) * ratio for group in self.optimizer.param_groups]


def cosine_ratio_forgets_eta_min(self):
    """Scales the lr itself instead of its distance to eta_min."""
    if self._is_initial:
        return [group["lr"] for group in self.optimizer.param_groups]
    t = self.last_epoch
    if (t - 1 - self.T_max) % (2 * self.T_max) == 0:
        return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
    ratio = (1 + math.cos(math.pi * t / self.T_max)) / (1 + math.cos(math.pi * (t - 1) / self.T_max))
    return [group["lr"] * ratio for group in self.optimizer.param_groups]


WRONG = {
    "16.sgd_step": [sgd_buffer_is_the_gradient, sgd_dampening_at_the_first_step, sgd_weight_decay_in_place,
                    sgd_nesterov_like_momentum, sgd_buffer_not_stored],
    "16.adam_step": [adam_without_bias_correction, adam_eps_under_the_root, adam_step_count_not_in_place,
                     adam_decoupled_decay_as_l2, adam_amsgrad_max_of_squared_gradients],
    "16.cosine_get_lr": [cosine_closed_form, cosine_without_the_initial_step, cosine_without_the_bottom,
                         cosine_ratio_forgets_eta_min],
}
