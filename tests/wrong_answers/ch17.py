"""Plausible wrong answers to chapter 17's exercises: each must be caught by its check."""
import glasstorch as torch


# -- 17.cross_entropy -----------------------------------------------------------------------------

def _cross_entropy(input, target, reduction, ignore_index, label_smoothing, *, shift=True, divide_by_kept=True,
                   others_only=False):
    n, classes = input.shape
    shifted = input - input.amax(dim=1, keepdim=True) if shift else input
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    kept = target != ignore_index
    safe = torch.where(kept, target, torch.zeros_like(target))
    picked = log_probs[torch.arange(n), safe]
    losses = -picked
    if label_smoothing > 0:
        if others_only:  # eps / (C - 1) on the other classes, the true one gets exactly 1 - eps
            others = log_probs.sum(dim=1) - picked
            losses = (1 - label_smoothing) * losses - (label_smoothing / (classes - 1)) * others
        else:
            losses = (1 - label_smoothing) * losses - (label_smoothing / classes) * log_probs.sum(dim=1)
    losses = losses.masked_fill(~kept, 0.0)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / (kept.sum() if divide_by_kept else n)


def cross_entropy_without_the_max_shift(input, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    return _cross_entropy(input, target, reduction, ignore_index, label_smoothing, shift=False)


def cross_entropy_mean_over_every_sample(input, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    return _cross_entropy(input, target, reduction, ignore_index, label_smoothing, divide_by_kept=False)


def cross_entropy_smoothing_over_the_other_classes(input, target, reduction="mean", ignore_index=-100,
                                                   label_smoothing=0.0):
    return _cross_entropy(input, target, reduction, ignore_index, label_smoothing, others_only=True)


def cross_entropy_ignoring_nothing(input, target, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    """Indexes with the raw targets: -100 is out of range."""
    n, classes = input.shape
    shifted = input - input.amax(dim=1, keepdim=True)
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    losses = -log_probs[torch.arange(n), target]
    if label_smoothing > 0:
        losses = (1 - label_smoothing) * losses - (label_smoothing / classes) * log_probs.sum(dim=1)
    return {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]


# -- 17.evaluate ----------------------------------------------------------------------------------

def _evaluate(model, loader, loss_fn, *, eval_mode=True, no_grad=True, restore=True, per_sample=True):
    was_training = model.training
    if eval_mode:
        model.eval()
    losses, sizes, correct = [], [], 0
    with torch.no_grad() if no_grad else torch.enable_grad():
        for x, y in loader:
            out = model(x)
            losses.append(loss_fn(out, y).item())
            sizes.append(len(y))
            correct += (out.argmax(1) == y).sum().item()
    if restore:
        model.train(was_training)
    else:
        model.train()
    n = sum(sizes)
    mean = sum(l * s for l, s in zip(losses, sizes)) / n if per_sample else sum(losses) / len(losses)
    return mean, correct / n


def evaluate_mean_of_batch_means(model, loader, loss_fn):
    return _evaluate(model, loader, loss_fn, per_sample=False)


def evaluate_without_no_grad(model, loader, loss_fn):
    return _evaluate(model, loader, loss_fn, no_grad=False)


def evaluate_always_back_to_train(model, loader, loss_fn):
    return _evaluate(model, loader, loss_fn, restore=False)


def evaluate_in_training_mode(model, loader, loss_fn):
    return _evaluate(model, loader, loss_fn, eval_mode=False)


# -- 17.train_one_epoch ---------------------------------------------------------------------------

def _train(model, loader, optimizer, loss_fn, *, train_mode=True, order="zero-forward-backward-step",
           per_sample=True):
    if train_mode:
        model.train()
    losses, sizes = [], []
    for x, y in loader:
        if order == "zero-forward-backward-step":
            optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        if order == "forward-backward-zero-step":
            optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
        sizes.append(len(y))
    if per_sample:
        return sum(l * s for l, s in zip(losses, sizes)) / sum(sizes)
    return sum(losses) / len(losses)


def train_without_zero_grad(model, loader, optimizer, loss_fn):
    return _train(model, loader, optimizer, loss_fn, order="no zero_grad")


def train_zero_grad_between_backward_and_step(model, loader, optimizer, loss_fn):
    return _train(model, loader, optimizer, loss_fn, order="forward-backward-zero-step")


def train_mean_of_batch_means(model, loader, optimizer, loss_fn):
    return _train(model, loader, optimizer, loss_fn, per_sample=False)


def train_without_model_train(model, loader, optimizer, loss_fn):
    return _train(model, loader, optimizer, loss_fn, train_mode=False)


WRONG = {
    "17.cross_entropy": [cross_entropy_without_the_max_shift, cross_entropy_mean_over_every_sample,
                         cross_entropy_smoothing_over_the_other_classes, cross_entropy_ignoring_nothing],
    "17.evaluate": [evaluate_mean_of_batch_means, evaluate_without_no_grad, evaluate_always_back_to_train,
                    evaluate_in_training_mode],
    "17.train_one_epoch": [train_without_zero_grad, train_zero_grad_between_backward_and_step,
                           train_mean_of_batch_means, train_without_model_train],
}
