"""Every chapter's exercises. Importing this package registers them (see ``checking.exercise``)."""
import importlib
import pkgutil

# chNN modules, in chapter order: each declares its exercises when imported
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("ch")):
    importlib.import_module(f"{__name__}.{_module}")
