"""Plausible wrong answers to chapter 10's exercises: each must be caught by its check."""
from glasstorch.nn.modules.module import _addindent


# -- 10.named_modules -----------------------------------------------------------------------------

def named_modules_memo_per_parent(self, memo=None, prefix="", remove_duplicate=True):
    """Deduplicates the children of one parent (as named_children does) but starts a new memo in
    every call: a module shared by two parents is yielded twice."""
    yield prefix, self
    seen = set()
    for name, module in self._modules.items():
        if module is None or module in seen:
            continue
        seen.add(module)
        yield from module.named_modules(None, prefix + ("." if prefix else "") + name, remove_duplicate)


def named_modules_ignoring_remove_duplicate(self, memo=None, prefix="", remove_duplicate=True):
    """Always adds to the memo, so remove_duplicate=False changes nothing."""
    if memo is None:
        memo = set()
    if self not in memo:
        memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)


def named_modules_children_first(self, memo=None, prefix="", remove_duplicate=True):
    """Post-order: yields the children's walks before the module itself."""
    if memo is None:
        memo = set()
    if self not in memo:
        if remove_duplicate:
            memo.add(self)
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)
        yield prefix, self


def named_modules_always_a_dot(self, memo=None, prefix="", remove_duplicate=True):
    """Joins with a dot even at the top, where the prefix is empty: '.stem', '.stem.0', ..."""
    if memo is None:
        memo = set()
    if self not in memo:
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + "." + name, remove_duplicate)


def named_modules_not_skipping_none(self, memo=None, prefix="", remove_duplicate=True):
    """Recurses into a None placeholder."""
    if memo is None:
        memo = set()
    if self not in memo:
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)


# -- 10.named_members -----------------------------------------------------------------------------

def _members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True, *, memo_members=True,
             honour_recurse=True, skip_none=True, dot_at_root=False, memo_always=False, pass_duplicate=True):
    memo = set()
    if recurse or not honour_recurse:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate if pass_duplicate else True)
    else:
        modules = [(prefix, self)]
    for module_prefix, module in modules:
        for k, v in get_members_fn(module):
            if (skip_none and v is None) or (memo_members and v in memo):
                continue
            if remove_duplicate or memo_always:
                memo.add(v)
            yield (module_prefix + "." + k if module_prefix or dot_at_root else k), v


def named_members_without_memo(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
    """Never skips a member already yielded: a tied weight is listed (and stepped) twice."""
    yield from _members(self, get_members_fn, prefix, recurse, remove_duplicate, memo_members=False)


def named_members_always_recursing(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
    """Walks the whole tree even with recurse=False."""
    yield from _members(self, get_members_fn, prefix, recurse, remove_duplicate, honour_recurse=False)


def named_members_keeping_none(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
    """Yields the None of Linear(bias=False) as if it were a parameter."""
    yield from _members(self, get_members_fn, prefix, recurse, remove_duplicate, skip_none=False)


def named_members_memo_always(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
    """Fills the memo even with remove_duplicate=False."""
    yield from _members(self, get_members_fn, prefix, recurse, remove_duplicate, memo_always=True)


def named_members_not_passing_remove_duplicate(self, get_members_fn, prefix="", recurse=True,
                                               remove_duplicate=True):
    """Keeps every member, but walks the modules with named_modules' default (each module once)."""
    yield from _members(self, get_members_fn, prefix, recurse, remove_duplicate, pass_duplicate=False)


# -- 10.module_repr -------------------------------------------------------------------------------

def _repr(self, *, indent_children=True, name_of=None, extra_inline=False, split_extra=True,
          show_none=True, blank_lines_stay_empty=True):
    extra = self.extra_repr()
    extra_lines = (extra.split("\n") if split_extra else [extra]) if extra else []
    child_lines = []
    for key, module in self._modules.items():
        if module is None and not show_none:
            continue
        text = repr(module)
        if indent_children:
            text = _addindent(text, 2) if blank_lines_stay_empty else text.replace("\n", "\n  ")
        child_lines.append("(" + key + "): " + text)
    name = name_of(self) if name_of else self._get_name()
    if extra_inline and extra_lines:  # the settings always on the first line
        head, extra_lines = name + "(" + extra_lines[0], extra_lines[1:]
    else:
        head = name + "("
    lines = extra_lines + child_lines
    if not lines:
        return head + ")"
    if len(extra_lines) == 1 and not child_lines:
        return head + extra_lines[0] + ")"
    return head + "\n  " + "\n  ".join(lines) + "\n)"


def repr_without_addindent(self):
    """Does not indent the children's continuation lines: grandchildren sit at their parent's depth."""
    return _repr(self, indent_children=False)


def repr_with_class_name(self):
    """Uses type(self).__name__ instead of self._get_name()."""
    return _repr(self, name_of=lambda module: type(module).__name__)


def repr_extra_on_first_line(self):
    """Always writes the first extra_repr line next to the name, even when children follow."""
    return _repr(self, extra_inline=True)


def repr_unsplit_extra(self):
    """Adds extra_repr() as one item, without splitting it into lines."""
    return _repr(self, split_extra=False)


def repr_skipping_none(self):
    """Leaves out children registered as None."""
    return _repr(self, show_none=False)


def repr_indenting_blank_lines(self):
    """Indents blank lines too, leaving trailing spaces (the older _addindent)."""
    return _repr(self, blank_lines_stay_empty=False)


WRONG = {
    "10.named_modules": [named_modules_memo_per_parent, named_modules_ignoring_remove_duplicate,
                         named_modules_children_first, named_modules_always_a_dot, named_modules_not_skipping_none],
    "10.named_members": [named_members_without_memo, named_members_always_recursing, named_members_keeping_none,
                         named_members_memo_always, named_members_not_passing_remove_duplicate],
    "10.module_repr": [repr_without_addindent, repr_with_class_name, repr_extra_on_first_line, repr_unsplit_extra,
                       repr_skipping_none, repr_indenting_blank_lines],
}
