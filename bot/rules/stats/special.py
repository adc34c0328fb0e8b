"""scipy's special functions the bounds use (`betaincinv`, `ndtri`), imported on the first bound.

`scipy.special` costs ~0.25 s to import: its `__init__` builds the array-API wrappers, whose
vendored `array_api_compat` reads every attribute of numpy and so imports numpy.f2py,
numpy.testing, numpy.random, numpy.ma... The two functions are ufuncs of the compiled
`scipy.special._ufuncs`, which `scipy.special` re-exports as the same objects
(`scipy.special.betaincinv is scipy.special._ufuncs.betaincinv`). Loading that extension
without running the package's `__init__` costs ~0.1 s (numpy and scipy's own start), so a
`verify` that computes one bound pays that, not ~0.25 s.

How: the package `scipy.special` is put in `sys.modules` unexecuted (its spec and `__path__`,
so its compiled submodules are found) while `_ufuncs` and the extensions it imports load, then
taken out again, so a later `import scipy.special` runs the real `__init__`, which reuses the
loaded extensions. `_ufuncs` is a private module: if this path fails or gives anything but
ufuncs (a scipy release that moves them), the public `from scipy.special import ...` is used
instead; tests/unit/rules/stats/test_special.py checks, in a fresh process, that the functions
are the very objects `scipy.special` exports.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Callable
from functools import cache
from types import ModuleType

__all__ = ["betaincinv", "ndtri"]

_PACKAGE = "scipy.special"
_LOCK = threading.Lock()


def _ufuncs_without_package_init() -> ModuleType | None:
    """`scipy.special._ufuncs` loaded without `scipy.special.__init__`; None if it cannot be."""
    if _PACKAGE in sys.modules:  # already imported in full: nothing to save
        return None
    spec = importlib.util.find_spec(_PACKAGE)  # imports `scipy` (numpy), not scipy.special
    if spec is None or spec.submodule_search_locations is None:
        return None
    package = importlib.util.module_from_spec(spec)
    sys.modules[_PACKAGE] = package
    try:
        module = importlib.import_module(f"{_PACKAGE}._ufuncs")
    finally:
        # Taken out whatever happened: `import scipy.special` must run the real __init__.
        if sys.modules.get(_PACKAGE) is package:
            del sys.modules[_PACKAGE]
    return module


@cache
def _ufuncs() -> ModuleType:
    with _LOCK:
        try:
            module = _ufuncs_without_package_init()
        except (ImportError, AttributeError):
            module = None
        if module is not None and all(
            type(getattr(module, name, None)).__name__ == "ufunc" for name in __all__
        ):
            return module
        import scipy.special  # type: ignore[import-untyped]

        full: ModuleType = scipy.special
        return full


def betaincinv(a: float, b: float, y: float) -> float:
    """scipy.special.betaincinv(a, b, y) (a numpy float64, for floats)."""
    function: Callable[[float, float, float], float] = _ufuncs().betaincinv
    return function(a, b, y)


def ndtri(y: float) -> float:
    """scipy.special.ndtri(y) (a numpy float64, for a float)."""
    function: Callable[[float], float] = _ufuncs().ndtri
    return function(y)
