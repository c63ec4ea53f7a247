"""Chapter 09 exercises: ``Module.__setattr__``, ``Module.register_parameter`` and
``Module.__getattr__``, the bookkeeping that files every ``self.x = value`` into ``_parameters``,
``_buffers``, ``_modules`` or ``__dict__``, and finds it again.

The learner writes each as a plain function of ``self``. Every case runs with that function
installed on ``nn.Module`` (``replaced(nn.Module, "__setattr__", learner_fn)``), so that it is
called exactly as Python calls the real method: by every assignment in every layer's
``__init__``. The last case of each exercise builds a small classifier with it and trains it.

The model and the training loop defined here are shared with chapter 10's exercises.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np

import glasstorch
import glasstorch.nn.functional as F
from glasstorch import nn

from ..checking import Case, exercise, replaced
from ._harness import attempt, fit, result_of

# -- shared with chapter 10: a small classifier with every kind of registered thing ---------------


class Block(nn.Module):
    """Linear, BatchNorm1d (parameters and buffers), ReLU: chapter 10's block."""

    def __init__(self, features: int) -> None:
        super().__init__()
        self.fc = nn.Linear(features, features)
        self.bn = nn.BatchNorm1d(features)
        self.act = nn.ReLU()

    def forward(self, x: Any) -> Any:
        return self.act(self.bn(self.fc(x)))


class Classifier(nn.Module):
    """Chapter 10's classifier: containers, blocks, dropout, a head, and a parameter of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Flatten(), nn.Linear(16, 8))
        self.blocks = nn.ModuleList([Block(8), Block(8)])
        self.drop = nn.Dropout(0.5)
        self.head = nn.Linear(8, 3)
        self.temperature = nn.Parameter(glasstorch.ones(1))

    def forward(self, x: Any) -> Any:
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.head(self.drop(x)) / self.temperature


def classification_data(rng: np.random.Generator, n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Inputs for the Classifier (n images of 4 x 4) and class labels."""
    return rng.standard_normal((n, 4, 4)).astype(np.float32), rng.integers(0, 3, n).astype(np.int64)


def trained_classifier_facts(x: np.ndarray, labels: np.ndarray) -> dict:
    """Build the Classifier, train it (4 steps of SGD on the cross-entropy), and report what its
    walks and its state_dict see."""
    model, _, losses = fit(Classifier, x, labels, steps=4, loss_fn=F.cross_entropy,
                           make_optimizer=lambda m: glasstorch.optim.SGD(m.parameters(), lr=0.1))
    model.eval()
    return {"named_parameters": [name for name, _ in model.named_parameters()],
            "named_buffers": [name for name, _ in model.named_buffers()],
            "state_dict keys": list(model.state_dict()),
            "losses": losses, "temperature after training": model.temperature,
            "training flags after eval()": [m.training for m in model.modules()]}


# -- helpers --------------------------------------------------------------------------------------

def where(module: nn.Module, name: str) -> str:
    """Which of the module's dictionaries holds ``name`` (the chapter's helper)."""
    for place in ("_parameters", "_buffers", "_modules", "__dict__"):
        if name in getattr(module, place):
            return place
    return "nowhere"


def _places(module: nn.Module, *names: str) -> dict:
    return {name: where(module, name) for name in names}


class _Demo(nn.Module):
    """The chapter's Demo: a module with one registered buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("running_mean", glasstorch.zeros(2))


class _NotInitialised(nn.Module):
    """A subclass whose ``__init__`` forgot ``super().__init__()``."""

    def __init__(self) -> None:
        pass


# -- 09.setattr -----------------------------------------------------------------------------------

def _installed(setattr_fn: Callable, scenario: Callable[[], Any]) -> Any:
    with replaced(nn.Module, "__setattr__", setattr_fn):
        return scenario()


def _routing() -> dict:
    d = _Demo()
    d.weight = nn.Parameter(glasstorch.ones(2))   # step 1
    d.fc = nn.Linear(2, 2)                        # step 3
    d.running_mean = glasstorch.ones(2)           # step 5: a registered buffer's name
    d.stats = nn.Buffer(glasstorch.zeros(2))      # step 5: an nn.Buffer
    d.note = "hello"                              # step 6
    d.cache = glasstorch.ones(2)                  # step 6: a plain tensor under a new name
    return {"where each name went": _places(d, "weight", "fc", "running_mean", "stats", "note", "cache"),
            "d.running_mean (the new tensor)": d.running_mean, "d.note": d.note}


def _wrong_kinds() -> dict:
    d = _Demo()
    d.weight = nn.Parameter(glasstorch.ones(2))
    d.fc = nn.Linear(2, 2)
    outcomes = {
        "d.weight = torch.ones(2)": attempt(lambda: setattr(d, "weight", glasstorch.ones(2))),
        "d.weight = nn.Linear(1, 1)": attempt(lambda: setattr(d, "weight", nn.Linear(1, 1))),
        "d.fc = 3": attempt(lambda: setattr(d, "fc", 3)),
        "d.running_mean = [0.0, 0.0]": attempt(lambda: setattr(d, "running_mean", [0.0, 0.0])),
    }
    outcomes["afterwards"] = _places(d, "weight", "fc", "running_mean")
    return outcomes


def _none_values() -> dict:
    d = _Demo()
    d.weight = nn.Parameter(glasstorch.ones(2))
    d.fc = nn.Linear(2, 2)
    d.weight = None
    d.fc = None
    d.running_mean = None
    return {"where each name is": _places(d, "weight", "fc", "running_mean"),
            "values": [d.weight, d.fc, d.running_mean]}


def _before_init() -> dict:
    def assign(value: Any) -> Callable[[], None]:
        return lambda: setattr(_NotInitialised(), "x", value)

    return {"a Parameter": attempt(assign(nn.Parameter(glasstorch.zeros(1)))),
            "a Module": attempt(assign(nn.Linear(1, 1))),
            "a plain tensor": attempt(assign(glasstorch.zeros(1))),
            "an int": attempt(assign(3))}


def _parameter_takes_over() -> dict:
    d = _Demo()
    d.fc = nn.Linear(2, 2)
    d.note = "hello"
    d.mask = nn.Buffer(glasstorch.ones(2), persistent=False)
    for name in ("fc", "note", "mask"):
        setattr(d, name, nn.Parameter(glasstorch.zeros(1)))
    return {"where each name is": _places(d, "fc", "note", "mask"),
            "what d.<name> gives": {name: type(getattr(d, name)).__name__ for name in ("fc", "note", "mask")},
            "in _modules": list(d._modules), "non-persistent buffers": sorted(d._non_persistent_buffers_set)}


def _module_takes_over() -> dict:
    d = _Demo()
    d.note = "hello"
    d.act = "relu"
    d.note = nn.ReLU()
    d.running_mean = None
    d.running_mean = nn.Tanh()
    return {"where each name is": _places(d, "note", "running_mean", "act"),
            "what d.<name> gives": {name: type(getattr(d, name)).__name__
                                    for name in ("note", "running_mean", "act")},
            "in _buffers": list(d._buffers)}


def _persistence() -> dict:
    m = nn.Module()
    m.mask = nn.Buffer(glasstorch.ones(2), persistent=False)
    m.mask = glasstorch.zeros(2)                       # a plain tensor under a buffer's name
    m.kept = nn.Buffer(glasstorch.ones(2))
    m.kept = nn.Buffer(glasstorch.ones(2), persistent=False)
    m.stats = nn.Buffer(glasstorch.ones(2), persistent=False)
    m.stats = nn.Buffer(glasstorch.ones(2))
    return {"_buffers": list(m._buffers), "non-persistent buffers": sorted(m._non_persistent_buffers_set),
            "state_dict keys": list(m.state_dict()), "m.mask": m.mask}


def _setattr_cases(rng: np.random.Generator) -> list[Case]:
    def case(name: str, scenario: Callable[[], Any], hint: str | None = None, inputs: tuple = ()) -> Case:
        return Case(name, inputs, observe=lambda impl, *args: _installed(impl, lambda: scenario(*args)), hint=hint)

    return [
        case("the chapter's routing: Parameter, Module, buffer name, nn.Buffer, str, plain tensor", _routing,
             "a plain tensor under a *new* name is an ordinary attribute (step 6); only an nn.Buffer, or "
             "a name already in _buffers, goes to register_buffer (step 5)."),
        case("a value of the wrong kind under a registered name", _wrong_kinds,
             "steps 2 and 4 come before steps 3 and 5: once a name is a parameter, only a Parameter or "
             "None may be assigned to it (a Module too is a TypeError); once it is a child module, only "
             "a Module or None; a buffer's name takes a Tensor or None."),
        case("None under a parameter's, a module's and a buffer's name", _none_values,
             "None is allowed under a registered name: the name stays registered, with None as its "
             "value (that is how Linear(bias=False) says it has no bias)."),
        case("before Module.__init__() has run", _before_init,
             "before __init__ there are no dictionaries: read them with self.__dict__.get(\"_parameters\") "
             "(None when missing), never self._parameters, which would raise on a plain assignment too. "
             "Only a Parameter or a Module needs them (AttributeError)."),
        case("a Parameter takes over a module's, a plain attribute's and a buffer's name", _parameter_takes_over,
             "before registering, remove the name from every other place: __dict__, _buffers, _modules and "
             "the non-persistent set. A stale entry in __dict__ is found before __getattr__ is asked, and "
             "hides the parameter; a stale entry elsewhere makes register_parameter refuse the name "
             "('attribute ... already exists')."),
        case("a Module takes over a plain attribute's and a buffer's name", _module_takes_over,
             "a Module, too, removes its name from __dict__, _parameters, _buffers and the non-persistent set."),
        case("buffers keep or change their persistence", _persistence,
             "an nn.Buffer brings its own `persistent` flag; a plain tensor assigned to a buffer's name "
             "keeps the old buffer's (persistent unless the name is in _non_persistent_buffers_set). Pass "
             "it to register_buffer(name, value, persistent)."),
        case("inside glasstorch: build the chapter 10 classifier with your __setattr__ and train it",
             trained_classifier_facts, inputs=classification_data(rng),
             hint="every assignment in every layer's __init__ went through your function: compare the "
                  "names it registered with the expected ones."),
    ]


exercise(
    id="09.setattr",
    entry="module_setattr",
    title="Module.__setattr__: where self.name = value goes",
    cases=_setattr_cases,
    reference=nn.Module.__setattr__,
    hint="ask the chapter's questions in order: a Parameter? a parameter's name? a Module? a module's "
         "name? an nn.Buffer or a buffer's name? Otherwise object.__setattr__(self, name, value).",
)


# -- 09.register_parameter ------------------------------------------------------------------------

def _fresh() -> nn.Module:
    m = nn.Module()
    m.flag = True
    m.register_buffer("running_mean", glasstorch.zeros(1))
    m.fc = nn.Linear(1, 1)
    return m


def _hacked_non_leaf() -> nn.Parameter:
    computed = glasstorch.ones(2, requires_grad=True) * 2
    computed.__class__ = nn.Parameter  # the chapter's hack: a "Parameter" with a grad_fn
    return computed


def _register(register_parameter: Callable, what: str) -> dict:
    """One call of ``register_parameter`` on a fresh module; the outcome and the dictionary after."""
    m = _NotInitialised() if what == "before Module.__init__()" else _fresh()
    name, make = _ATTEMPTS[what]
    param = make()
    outcome = attempt(lambda: register_parameter(m, name, param))
    parameters = m.__dict__.get("_parameters")
    return {"outcome": outcome,
            "_parameters afterwards": None if parameters is None else list(parameters),
            "stored object is the one passed": parameters is not None and name in parameters
            and parameters[name] is param}


def _zeros_parameter() -> nn.Parameter:
    return nn.Parameter(glasstorch.zeros(1))


_ATTEMPTS: dict[str, tuple[Any, Callable[[], Any]]] = {
    "a Parameter under a new name": ("w", _zeros_parameter),
    "None, a placeholder": ("w", lambda: None),
    "a name that is not a str": (1, _zeros_parameter),
    "a dot in the name": ("a.b", _zeros_parameter),
    "an empty name": ("", _zeros_parameter),
    "the name of a plain attribute": ("flag", _zeros_parameter),
    "the name of a method": ("forward", _zeros_parameter),
    "the name of a buffer": ("running_mean", _zeros_parameter),
    "the name of a submodule": ("fc", _zeros_parameter),
    "a plain tensor": ("w", lambda: glasstorch.zeros(1)),
    "a Module": ("w", lambda: nn.Linear(1, 1)),
    "a bad name and a bad value": ("a.b", lambda: glasstorch.zeros(1)),
    "a Parameter with a grad_fn": ("w", _hacked_non_leaf),
    "before Module.__init__()": ("w", _zeros_parameter),
}


def _register_again(register_parameter: Callable) -> dict:
    """Register a placeholder, then fill it; register a name twice: both allowed."""
    m = _fresh()
    first, second = nn.Parameter(glasstorch.zeros(1)), nn.Parameter(glasstorch.ones(1))
    steps = {"register_parameter('w', None)": attempt(lambda: register_parameter(m, "w", None)),
             "then register_parameter('w', Parameter)": attempt(lambda: register_parameter(m, "w", first)),
             "then register_parameter('w', another Parameter)": attempt(lambda: register_parameter(m, "w", second))}
    steps["m.w is the last one"] = m._parameters.get("w") is second
    return steps


def _register_in_package(register_parameter: Callable, x: np.ndarray, labels: np.ndarray,
                         samples: np.ndarray) -> dict:
    """Module.register_parameter is the learner's: Linear(bias=False), the classifier, and the
    chapter's fixed GaussianModel, which registers its mean by hand."""
    class Gaussian(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_parameter("mean", nn.Parameter(glasstorch.zeros(1)))
            self.register_buffer("std", glasstorch.tensor([1.0]))

        def forward(self, value: Any) -> Any:
            return -glasstorch.distributions.Normal(self.mean, self.std).log_prob(value)

    with replaced(nn.Module, "register_parameter", register_parameter):
        no_bias = nn.Linear(2, 2, bias=False)
        facts = {"Linear(bias=False)._parameters": list(no_bias._parameters), "its bias": no_bias.bias}
        facts["classifier"] = trained_classifier_facts(x, labels)
        model = Gaussian()
        optimizer = glasstorch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(20):
            loss = model(glasstorch.from_numpy(samples)).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        facts["Gaussian: mean after 20 steps"] = model.mean
    return facts


def _register_cases(rng: np.random.Generator) -> list[Case]:
    hints = {
        "a name that is not a str": "check the name first: a str (TypeError), no dot (KeyError), not "
                                    "empty (KeyError), not already an attribute (KeyError).",
        "the name of a plain attribute": "a name that already exists (hasattr(self, name)) and is not "
                                         "a parameter's would be shadowed: KeyError. hasattr sees plain "
                                         "attributes, methods, buffers and submodules alike.",
        "the name of a method": "a method is an attribute too (found on the class): hasattr(self, "
                                "'forward') is True, so the name is taken. KeyError.",
        "the name of a buffer": "hasattr(self, name) also finds buffers and submodules (through "
                                "__getattr__): their names are taken too.",
        "a Module": "only an nn.Parameter (or None) can be registered as a parameter; a Module needs "
                    "add_module. TypeError.",
        "a bad name and a bad value": "PyTorch checks the name before the value: a bad name is a "
                                      "KeyError even when the value is wrong too.",
        "a Parameter with a grad_fn": "a parameter must be a leaf: a Parameter with a grad_fn is a "
                                      "ValueError ('Cannot assign non-leaf Tensor to parameter ...').",
        "before Module.__init__()": "before __init__, '_parameters' is not in self.__dict__: "
                                    "AttributeError ('cannot assign parameter before Module.__init__() call').",
    }
    cases = [Case(what, (what,), observe=_register, hint=hints.get(what)) for what in _ATTEMPTS]
    cases.insert(2, Case("a placeholder filled later, and a name registered twice", (), observe=_register_again,
                         hint="a name already in _parameters may be registered again: the hasattr check "
                              "is for names that exist *and are not parameters*."))
    samples = (rng.standard_normal(16) + 2.0).astype(np.float32)
    cases.append(Case("inside glasstorch: layers, the classifier and the GaussianModel with your register_parameter",
                      (*classification_data(rng), samples), observe=_register_in_package))
    return cases


exercise(
    id="09.register_parameter",
    entry="register_parameter",
    title="Module.register_parameter, with all its checks",
    cases=_register_cases,
    reference=nn.Module.register_parameter,
    hint="the checks in PyTorch's order: initialised (AttributeError), name a str (TypeError), no dot "
         "and not empty (KeyError), not an existing attribute unless already a parameter (KeyError); "
         "then None is stored as is, a non-Parameter is a TypeError, a non-leaf a ValueError; else "
         "store it in self._parameters[name].",
)


# -- 09.getattr -----------------------------------------------------------------------------------

def _registered_things(getattr_fn: Callable) -> dict:
    lin, bn, seq = nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    no_bias = nn.Linear(2, 2, bias=False)
    with replaced(nn.Module, "__getattr__", getattr_fn):  # built with the package's, read with yours
        return {"lin.weight is lin._parameters['weight']":
                    result_of(lambda: lin.weight is lin._parameters["weight"]),
                "bn.running_mean is bn._buffers['running_mean']":
                    result_of(lambda: bn.running_mean is bn._buffers["running_mean"]),
                "getattr(seq, '1') is seq._modules['1']": result_of(lambda: getattr(seq, "1") is seq._modules["1"]),
                "lin.in_features (a plain attribute)": result_of(lambda: lin.in_features),
                "Linear(2, 2, bias=False).bias": result_of(lambda: no_bias.bias)}


def _missing_name(getattr_fn: Callable) -> dict:
    lin = nn.Linear(2, 3)
    with replaced(nn.Module, "__getattr__", getattr_fn):
        return {"lin.wieght": result_of(lambda: lin.wieght),
                "hasattr(lin, 'wieght')": result_of(lambda: hasattr(lin, "wieght")),
                "getattr(lin, 'wieght', 'default')": result_of(lambda: getattr(lin, "wieght", "default"))}


def _not_initialised(getattr_fn: Callable) -> dict:
    m = _NotInitialised()
    with replaced(nn.Module, "__getattr__", getattr_fn):
        return {"m.weight": result_of(lambda: m.weight),
                "hasattr(m, 'weight')": result_of(lambda: hasattr(m, "weight"))}


def _getattr_in_package(getattr_fn: Callable, x: np.ndarray, labels: np.ndarray) -> dict:
    with replaced(nn.Module, "__getattr__", getattr_fn):
        return _classifier_lookups(x, labels)


def _classifier_lookups(x: np.ndarray, labels: np.ndarray) -> dict:
    facts = trained_classifier_facts(x, labels)
    glasstorch.manual_seed(0)
    model = Classifier().eval()
    twin = copy.deepcopy(model)  # asks the module for __deepcopy__: the answer must be AttributeError
    inputs = glasstorch.from_numpy(x)
    facts["deepcopy gives the same outputs"] = bool((twin(inputs) == model(inputs)).all().item())
    facts["get_parameter('blocks.1.fc.bias')"] = model.get_parameter("blocks.1.fc.bias")
    facts["get_submodule('blocks.0.conv')"] = attempt(lambda: model.get_submodule("blocks.0.conv"))
    return facts


def _getattr_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case("a parameter, a buffer, a submodule and a None placeholder", observe=_registered_things,
             hint="look in the three dictionaries, in the order _parameters, _buffers, _modules, and return "
             "what is stored there (None included)."),
        Case("a name that is nowhere", observe=_missing_name,
             hint="a missing name must raise AttributeError, never return None or raise KeyError: hasattr() "
             "and getattr(obj, name, default) catch only AttributeError."),
        Case("a module whose __init__ forgot super().__init__()", observe=_not_initialised,
             hint="if the dictionaries do not exist, self._parameters calls __getattr__ again, which asks "
             "for self._parameters again ... until RecursionError. Read them from self.__dict__, and "
             "skip a dictionary that is not there."),
        Case("inside glasstorch: build and train the classifier, deepcopy it, get_parameter and get_submodule",
             classification_data(rng), observe=_getattr_in_package,
             hint="the package relies on AttributeError: register_parameter, get_submodule and "
                  "copy.deepcopy ask hasattr() or getattr(obj, name, default) about names that may not exist."),
    ]


exercise(
    id="09.getattr",
    entry="module_getattr",
    title="Module.__getattr__: finding parameters, buffers and submodules",
    cases=_getattr_cases,
    reference=nn.Module.__getattr__,
    hint="for each of '_parameters', '_buffers', '_modules' that is in self.__dict__: if name is in "
         "that dictionary, return its value. Otherwise raise AttributeError(f\"'{type(self).__name__}' "
         "object has no attribute '{name}'\").",
)
