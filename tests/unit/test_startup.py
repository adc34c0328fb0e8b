"""Start-up cost: a command imports only what it uses (issue 25).

Each check runs in a fresh interpreter (an import already made by another test would hide
one) and asserts on the modules imported, never on time: `bench/startup.py` prints the times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Heavy third-party packages (each tens to hundreds of milliseconds to import) that building
# the parser, and so `claims --help`, must not import: the commands that use them import them.
HEAVY = (
    "scipy",
    "numpy",
    "git",
    "github",
    "requests",
    "jinja2",
    "jsonschema",
    "jsonschema_rs",
    "yaml",
    "matplotlib",
)
# Imported by `bot.app.api` (every registry command) only when a bound or an AUROC is computed.
STATISTICS = ("scipy", "numpy")

_PROBE = """
import contextlib, io, json, sys
code = sys.argv[1]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    exec(code)
print(json.dumps(sorted({name.partition(".")[0] for name in sys.modules})))
"""


def imported_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter has imported after running `code`."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=REPO,
    )
    loaded: list[str] = json.loads(done.stdout)
    return set(loaded)


def test_the_probe_sees_what_a_command_imports() -> None:
    # The probe itself: a module the code imports is listed, so an empty overlap below means
    # the heavy modules were not imported, not that the probe saw nothing.
    assert {"numpy", "bot"} <= imported_after("import numpy, bot.faces.cli")


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["verify", "--help"], ["github", "--help"], ["score", "--help"]],
    ids=" ".join,
)
def test_help_imports_no_heavy_module(argv: list[str]) -> None:
    code = f"""
from bot.faces.cli import main
try:
    main({argv!r})
except SystemExit as exit:
    assert exit.code == 0, exit.code
"""
    loaded = imported_after(code)
    assert "bot" in loaded
    assert set(HEAVY) & loaded == set()


def test_building_the_parser_imports_no_heavy_module() -> None:
    loaded = imported_after("from bot.faces.cli import _parser; _parser()")
    assert set(HEAVY) & loaded == set()


def test_the_app_layer_imports_statistics_only_to_compute() -> None:
    loaded = imported_after(
        "import bot.app.api, bot.rules.bars, bot.rules.stats.delong, bot.rules.stats.units"
    )
    assert set(STATISTICS) & loaded == set()
    computed = imported_after(
        "from bot.rules.stats import clopper_pearson; clopper_pearson.upper_bound(1, 10, 0.95)"
    )
    assert "scipy" in computed


def test_a_command_that_reruns_no_adapter_imports_no_rerun_machinery() -> None:
    # bot.app.rerun brings requests and the sandbox: `resolve --no-rerun-adapters` and `verify`
    # (no --rerun-cache) build no rerun, so they import neither.
    code = """
from bot.faces.cli import _parser, _rerun
for argv in (["resolve", "--no-rerun-adapters"], ["verify"]):
    assert _rerun(_parser().parse_args(argv)) is None
"""
    loaded = imported_after(code)
    assert {"requests", "urllib3"} & loaded == set()
    rerun = imported_after(code + "_rerun(_parser().parse_args(['resolve']))")
    assert "requests" in rerun


def test_the_app_layer_imports_no_jsonschema_and_no_sandbox_runner() -> None:
    # jsonschema words the findings of a refused document (bot.rules.evidence.schema), the
    # sandbox's runner runs adapters, the ports talk to GitHub and archives: none is imported
    # to open the app layer and build the parser (what `claims verify` does first).
    loaded = imported_after(
        "import sys, bot.app.api\n"
        "from bot.faces.cli import _parser\n"
        "_parser()\n"
        "for name in ('bot.edges.sandbox.runner', 'bot.edges.github.port',"
        " 'bot.edges.archive.port'):\n"
        "    assert name not in sys.modules, name\n"
    )
    assert {"jsonschema", "referencing"} & loaded == set()
    assert "jsonschema_rs" in loaded  # the probe sees the validator that is imported


def test_a_bound_does_not_run_scipy_special_s_init() -> None:
    # bot.rules.stats.special loads scipy.special's compiled ufuncs without the package's
    # __init__ (whose array-API layer imports numpy.f2py, numpy.testing...).
    loaded = imported_after(
        "import sys\n"
        "from bot.rules.stats import clopper_pearson\n"
        "clopper_pearson.upper_bound(1, 10, 0.95)\n"
        "assert 'scipy.special' not in sys.modules, 'scipy.special'\n"
        "assert 'numpy.f2py' not in sys.modules, 'numpy.f2py'\n"
    )
    assert "scipy" in loaded
