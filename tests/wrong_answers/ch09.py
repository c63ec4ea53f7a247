"""Plausible wrong answers to chapter 09's exercises: each must be caught by its check."""
import glasstorch as torch
from glasstorch import nn


# -- 09.setattr -----------------------------------------------------------------------------------
# One routing with switches, each switch a mistake learners make; every wrong answer turns one on.

def _setattr(self, name, value, *, clean_up=True, module_first=False, any_tensor_is_buffer=False,
             none_allowed=True, via_attributes=False, keep_persistence=True):
    def remove_from(*places):
        if clean_up:
            for place in places:
                if name in place:
                    place.discard(name) if isinstance(place, set) else place.pop(name)

    def get(attribute):
        return getattr(self, attribute) if via_attributes else self.__dict__.get(attribute)

    params, modules, buffers = get("_parameters"), get("_modules"), get("_buffers")
    if module_first and isinstance(value, nn.Module):
        remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
        modules[name] = value
    elif isinstance(value, nn.Parameter):
        if params is None:
            raise AttributeError("cannot assign parameters before Module.__init__() call")
        remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
        self.register_parameter(name, value)
    elif params is not None and name in params:
        if value is not None or not none_allowed:
            raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}'")
        self.register_parameter(name, value)
    elif isinstance(value, nn.Module):
        if modules is None:
            raise AttributeError("cannot assign module before Module.__init__() call")
        remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
        modules[name] = value
    elif modules is not None and name in modules:
        if value is not None or not none_allowed:
            raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}'")
        modules[name] = value
    elif (isinstance(value, nn.Buffer) or (buffers is not None and name in buffers)
          or (any_tensor_is_buffer and isinstance(value, torch.Tensor))):
        if value is not None and not isinstance(value, torch.Tensor) or value is None and not none_allowed:
            raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}'")
        if not keep_persistence:
            persistent = True
        elif isinstance(value, nn.Buffer):
            persistent = value.persistent
        else:
            persistent = name not in self._non_persistent_buffers_set
        self.register_buffer(name, value, persistent)
    else:
        object.__setattr__(self, name, value)


def setattr_without_clean_up(self, name, value):
    """Registers without removing the name from __dict__ and the other dictionaries."""
    _setattr(self, name, value, clean_up=False)


def setattr_module_question_first(self, name, value):
    """Asks "is it a Module?" before "is the name a parameter's?": a Linear replaces a parameter."""
    _setattr(self, name, value, module_first=True)


def setattr_every_tensor_is_a_buffer(self, name, value):
    """Files any plain tensor under _buffers, even under a new name."""
    _setattr(self, name, value, any_tensor_is_buffer=True)


def setattr_refusing_none(self, name, value):
    """Forgets that None is allowed under a registered name."""
    _setattr(self, name, value, none_allowed=False)


def setattr_reading_self_dicts(self, name, value):
    """Reads self._parameters instead of self.__dict__.get("_parameters"): fails before __init__."""
    _setattr(self, name, value, via_attributes=True)


def setattr_ignoring_persistence(self, name, value):
    """Registers every buffer as persistent, whatever nn.Buffer or the old buffer said."""
    _setattr(self, name, value, keep_persistence=False)


# -- 09.register_parameter ------------------------------------------------------------------------

def _register(self, name, param, *, check_attribute=True, allow_own_names=True, only_parameters=True,
              check_leaf=True, name_first=True):
    if "_parameters" not in self.__dict__:
        raise AttributeError("cannot assign parameter before Module.__init__() call")

    def check_value():
        if param is not None and only_parameters and not isinstance(param, nn.Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}'")
        if param is not None and not isinstance(param, torch.Tensor):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}'")

    if not name_first:
        check_value()
    if not isinstance(name, str):
        raise TypeError(f"parameter name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError('parameter name can\'t contain "."')
    if name == "":
        raise KeyError('parameter name can\'t be empty string ""')
    if check_attribute and hasattr(self, name) and (name not in self._parameters or not allow_own_names):
        raise KeyError(f"attribute '{name}' already exists")
    check_value()
    if param is not None and check_leaf and param.grad_fn:
        raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'.")
    self._parameters[name] = param


def register_parameter_without_attribute_check(self, name, param):
    """Never asks hasattr: a parameter named 'forward' hides nothing but is hidden by the method."""
    _register(self, name, param, check_attribute=False)


def register_parameter_refusing_its_own_names(self, name, param):
    """Asks hasattr(self, name) but forgets `name not in self._parameters`: no re-registration."""
    _register(self, name, param, allow_own_names=False)


def register_parameter_accepting_tensors(self, name, param):
    """Checks for a Tensor instead of a Parameter."""
    _register(self, name, param, only_parameters=False)


def register_parameter_without_leaf_check(self, name, param):
    """Accepts a Parameter that has a grad_fn."""
    _register(self, name, param, check_leaf=False)


def register_parameter_value_first(self, name, param):
    """Checks the value before the name."""
    _register(self, name, param, name_first=False)


# -- 09.getattr -----------------------------------------------------------------------------------

def getattr_through_self(self, name):
    """Reads self._parameters: on a module without its dictionaries, that calls __getattr__ again."""
    for place in (self._parameters, self._buffers, self._modules):
        if name in place:
            return place[name]
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def getattr_forgetting_buffers(self, name):
    """Looks in _parameters and _modules only."""
    for place in ("_parameters", "_modules"):
        if place in self.__dict__ and name in self.__dict__[place]:
            return self.__dict__[place][name]
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def getattr_returning_none(self, name):
    """Returns None for a missing name instead of raising AttributeError."""
    for place in ("_parameters", "_buffers", "_modules"):
        if place in self.__dict__ and name in self.__dict__[place]:
            return self.__dict__[place][name]
    return None


def getattr_raising_keyerror(self, name):
    """Merges the three dictionaries and indexes: a missing name is a KeyError."""
    merged = {}
    for place in ("_modules", "_buffers", "_parameters"):
        merged.update(self.__dict__.get(place, {}))
    return merged[name]


WRONG = {
    "09.setattr": [setattr_without_clean_up, setattr_module_question_first, setattr_every_tensor_is_a_buffer,
                   setattr_refusing_none, setattr_reading_self_dicts, setattr_ignoring_persistence],
    "09.register_parameter": [register_parameter_without_attribute_check, register_parameter_refusing_its_own_names,
                              register_parameter_accepting_tensors, register_parameter_without_leaf_check,
                              register_parameter_value_first],
    "09.getattr": [getattr_through_self, getattr_forgetting_buffers, getattr_returning_none,
                   getattr_raising_keyerror],
}
