"""bot.rules.stats.special loads scipy's ufuncs through a private module: they must be the very
functions `scipy.special` exports, with `scipy.special` still importable in full afterwards."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Run in a fresh process: in this one scipy.special may already be imported (then the private
# path is skipped and the public module is used).
_PROBE = """
import json, sys
from bot.rules.stats import special
bound = special.betaincinv(2.0, 7.0, 0.025)
z = special.ndtri(0.95)
light = "scipy.special" not in sys.modules
module = special._ufuncs()
import scipy.special
print(json.dumps({
    "light": light,
    "private": module is not scipy.special,
    "same_betaincinv": module.betaincinv is scipy.special.betaincinv,
    "same_ndtri": module.ndtri is scipy.special.ndtri,
    "bound": bound.hex(),
    "z": z.hex(),
    "full_bound": scipy.special.betaincinv(2.0, 7.0, 0.025).hex(),
    "full_z": scipy.special.ndtri(0.95).hex(),
    "stats": scipy.special.betainc(2.0, 7.0, bound).hex(),
}))
"""


def _probe() -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_private_path_gives_the_functions_scipy_special_exports() -> None:
    result = _probe()
    assert result["light"] is True  # the first bound did not run scipy.special's __init__
    assert result["private"] is True
    assert result["same_betaincinv"] is True
    assert result["same_ndtri"] is True
    assert result["bound"] == result["full_bound"]
    assert result["z"] == result["full_z"]


def test_scipy_special_imports_in_full_after_the_private_path() -> None:
    # betainc lives only in the full package's namespace once __init__ has run.
    result = _probe()
    assert float.fromhex(str(result["stats"])) == pytest.approx(0.025, rel=1e-12)


def test_the_functions_match_scipy_special_in_this_process() -> None:
    import scipy.special  # type: ignore[import-untyped]

    from bot.rules.stats import special

    for a, b, y in ((1.0, 10.0, 0.05), (3.0, 98.0, 0.975), (0.5, 0.5, 0.5)):
        assert special.betaincinv(a, b, y) == scipy.special.betaincinv(a, b, y)
    for y in (0.5, 0.9, 0.95, 0.99, 1e-10):
        assert special.ndtri(y) == scipy.special.ndtri(y)


def test_a_failing_private_path_falls_back_to_scipy_special(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import scipy.special

    from bot.rules.stats import special

    def broken() -> None:
        raise ImportError("moved")

    special._ufuncs.cache_clear()
    monkeypatch.setattr(special, "_ufuncs_without_package_init", broken)
    try:
        assert special._ufuncs() is scipy.special
        assert special.ndtri(0.5) == 0.0
    finally:
        special._ufuncs.cache_clear()
