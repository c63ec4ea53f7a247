"""``torch.backends.cudnn`` (torch/backends/cudnn/__init__.py): the flags tutorials set for
reproducibility are accepted and have no effect (there is no cuDNN here)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
