"""A plain install (`pip install .`) carries the schemas and the demo's examples.

The registry's schemas/ and examples/ folders stay the one source; pyproject's package-dir ships
them as `bot.schemas` and `bot.examples`, and the bot reads them with importlib.resources. These
tests read pyproject and the installed package, and build no wheel (.ci/run installs the wheel
and runs the demo from it).
"""

from __future__ import annotations

import subprocess
import tomllib
from importlib.resources import files
from typing import Any

import pytest

from tests.support import PROJECT

SETUPTOOLS: dict[str, Any] = tomllib.loads((PROJECT / "pyproject.toml").read_text("utf-8"))["tool"][
    "setuptools"
]
SHIPPED = {"bot.schemas": "schemas", "bot.examples": "examples"}


def _shipped(package: str) -> set[str]:
    """Files under the package's source folder that its package-data patterns name."""
    folder = PROJECT / SETUPTOOLS["package-dir"][package]
    return {
        file.relative_to(folder).as_posix()
        for pattern in SETUPTOOLS["package-data"][package]
        for file in folder.glob(pattern)
        if file.is_file()
    }


def test_every_schema_is_read_through_the_package() -> None:
    sources = sorted((PROJECT / "schemas").glob("*.schema.json"))
    assert len(sources) > 10
    installed = files("bot.schemas")
    for source in sources:
        assert (installed / source.name).read_bytes() == source.read_bytes(), source.name
    assert {f.name for f in installed.iterdir() if f.name.endswith(".json")} == {
        source.name for source in sources
    }


@pytest.mark.parametrize("package", sorted(SHIPPED))
def test_package_dir_maps_the_registry_folder(package: str) -> None:
    assert package in SETUPTOOLS["packages"]
    assert SETUPTOOLS["package-dir"][package] == SHIPPED[package]
    # A regular package: editable installs cannot import a mapped namespace package.
    assert (PROJECT / SHIPPED[package] / "__init__.py").is_file()


def test_package_data_names_every_schema() -> None:
    assert _shipped("bot.schemas") == {
        file.name for file in (PROJECT / "schemas").iterdir() if file.is_file()
    } - {"__init__.py"}


def test_package_data_names_what_the_demo_reads_and_not_the_generator() -> None:
    examples = PROJECT / "examples"
    everything = {
        file.relative_to(examples).as_posix() for file in examples.rglob("*") if file.is_file()
    }
    generators = {"generate.py", "generate_weirdml_v3.py"}
    assert _shipped("bot.examples") == everything - {"__init__.py", *generators}
    assert (files("bot.examples") / "demo-plan.yaml").read_bytes() == (
        examples / "demo-plan.yaml"
    ).read_bytes()


def test_every_package_under_bot_is_listed() -> None:
    # The list is explicit (package-dir needs it), so a new subpackage must be added by hand.
    found = {
        ".".join(init.parent.relative_to(PROJECT).parts)
        for init in (PROJECT / "bot").rglob("__init__.py")
    }
    assert found == set(SETUPTOOLS["packages"]) - set(SHIPPED)


def test_package_data_names_only_existing_files() -> None:
    # A pattern that matches nothing (a removed templates folder, say) is a mistake.
    for package, patterns in SETUPTOOLS["package-data"].items():
        folder = PROJECT / SETUPTOOLS["package-dir"].get(package, package.replace(".", "/"))
        for pattern in patterns:
            assert any(folder.glob(pattern)), f"{package}: {pattern} matches no file"


def test_package_data_names_the_coverage_table() -> None:
    # bot/rules/stats/coverage.py reads it through the package: a plain install must carry it.
    assert SETUPTOOLS["package-data"]["bot.rules.stats"] == ["coverage_table.json"]
    assert (PROJECT / "bot" / "rules" / "stats" / "coverage_table.json").is_file()
    assert (files("bot.rules.stats") / "coverage_table.json").is_file()


def test_package_data_names_every_site_template() -> None:
    """`claims site` reads its templates and stylesheet through the package (Jinja2's
    PackageLoader), so a plain install must carry every one of them."""
    templates = PROJECT / "bot" / "faces" / "site" / "templates"
    everything = {f"templates/{file.name}" for file in templates.iterdir() if file.is_file()}
    assert {"templates/base.html.j2", "templates/style.css"} <= everything
    shipped = {
        f"templates/{file.name}"
        for pattern in SETUPTOOLS["package-data"]["bot.faces.site"]
        for file in (PROJECT / "bot" / "faces" / "site").glob(pattern)
        if file.is_file()
    }
    assert shipped == everything


def test_no_large_or_built_file_is_tracked() -> None:
    """The tree holds sources, docs and small fixtures: no wheel, archive or binary blob, and
    no file over 512 KiB (the largest today is the webhook examples, ~340 KiB)."""
    listed = (
        subprocess.run(["git", "ls-files", "-z"], cwd=PROJECT, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    tracked = [PROJECT / name for name in listed if name]
    assert [f.name for f in tracked if f.suffix in {".whl", ".egg", ".zip", ".so", ".pyc"}] == []
    sizes = {f.relative_to(PROJECT).as_posix(): f.stat().st_size for f in tracked if f.is_file()}
    assert {name: size for name, size in sizes.items() if size > 512 * 1024} == {}
