"""`claims demo`: replay examples/demo-plan.yaml into a fresh git registry, then run the
commands a user would: verify every merged attempt, verify the pull request still under
review against main (as the PR check would), and resolve the markets as of dates that step
through their filing windows. Each example declares the reason codes it demonstrates and each
market its final outcome; the demo exits 0 only when every one behaved as declared.
"""

from __future__ import annotations

import json
import tempfile
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from bot.archive.local import LocalArchive
from bot.config import Limits
from bot.demo.git_registry import Step, build_git_registry
from bot.errors import ClaimsError
from bot.load.yaml_ import parse_yaml
from bot.timestamps import parse_timestamp

__all__ = ["load_plan", "run_demo"]

# The examples ship inside the package as `bot.examples`: pyproject's package-dir maps it to
# the project's examples/ folder, so the demo runs from a plain install as from a checkout.
_EXAMPLES_PACKAGE = "bot.examples"
_PLAN = "demo-plan.yaml"


def _examples() -> Traversable:
    try:
        return files(_EXAMPLES_PACKAGE)
    except ModuleNotFoundError:
        raise ClaimsError(
            f"the demo's examples ({_EXAMPLES_PACKAGE}) are not installed",
            "reinstall the bot (pip install . or, in a checkout, pip install -e .)",
        ) from None


def _source(examples: Traversable, reference: str) -> bytes:
    where, _, path = reference.partition(":")
    if where not in ("registry", "history"):
        raise ClaimsError(f"demo plan: unknown source {reference!r}")
    # A Traversable joins a path with "/" in it as its segments (importlib.resources.abc).
    return (examples / where / path).read_bytes()


def load_plan(examples: Traversable) -> tuple[list[Step], dict[str, Any]]:
    """Read the demo plan: the steps with their file contents, and the expected codes.

    Raises `ClaimsError` if the plan cannot be read or names an unknown source.
    """
    try:
        raw = (examples / _PLAN).read_bytes()
    except OSError as error:
        raise ClaimsError(
            f"the demo needs examples/{_PLAN}: {error}",
            "reinstall the bot, or regenerate it with: python examples/generate.py",
        ) from None
    document, findings = parse_yaml(raw, f"examples/{_PLAN}", Limits(max_yaml_bytes=4_000_000))
    if document is None or not isinstance(document.data, dict):
        raise ClaimsError(
            f"cannot read examples/{_PLAN}: " + "; ".join(f.message for f in findings),
            "regenerate it with: python examples/generate.py",
        )

    def moment(text: str | None) -> Any:
        return None if text is None else parse_timestamp(text)

    steps = [
        Step(
            message=step["message"],
            at=moment(step["at"]),
            files={path: _source(examples, ref) for path, ref in step["files"].items()},
            merged_at=moment(step.get("merged_at")),
            open_pr=step.get("open_pr"),
            tag=step.get("tag"),
        )
        for step in document.data["steps"]
    ]
    return steps, document.data


def run_demo(keep: Path | None = None) -> int:
    """Build, verify, resolve and print the demo; return 0 when every example behaved.

    Raises `ClaimsError` if the examples are missing or `keep` is not empty.
    """
    examples = _examples()
    steps, plan = load_plan(examples)
    if keep is not None:
        return _run(keep, examples, steps, plan)
    with tempfile.TemporaryDirectory(prefix="claims-demo-") as folder:
        return _run(Path(folder) / "registry", examples, steps, plan)


def _claims(title: str, *args: str | Path, report: Path | None = None) -> dict[str, Any]:
    """Run one `claims` command as a user would, print it, return its JSON report."""
    argv = [str(arg) for arg in args]
    shown = " ".join(argv).replace(_shown_root, "<registry>")
    print(f"== {title}\n$ claims {shown}\n")
    from bot.cli import main

    main([*argv, *(["--json", str(report)] if report else [])])
    print()
    return json.loads(report.read_text(encoding="utf-8")) if report else {}


_shown_root = "<registry>"


def _run(root: Path, examples: Traversable, steps: list[Step], plan: dict[str, Any]) -> int:
    global _shown_root
    if root.exists() and any(root.iterdir()):
        raise ClaimsError(f"{root} is not empty", "name a new folder with --keep")
    _shown_root = str(root)
    repo = build_git_registry(root, steps)
    pr_branch = repo.active_branch.name
    # The registry's own working folder (.claims/, never committed): the archive records
    # `claims resolve` reads by default, and the JSON reports the demo checks.
    work = root / ".claims"
    archive = work / "archive"
    work.mkdir()
    with (root / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(".claims/\n")
    for tag in plan["archived"]:  # what the scheduled job's archive step would have stored
        LocalArchive(archive).write(tag, {"id": f"local-{tag}", "tag": tag})
    print(
        f"Demo registry built at {root}: {len(steps)} steps,"
        f" {sum(1 for _ in repo.iter_commits('main'))} commits on main, tags"
        f" {', '.join(tag.name for tag in repo.tags)}; archive records in {archive}.\n"
    )

    repo.git.checkout("-q", "main")
    as_of = plan["verify_as_of"]
    merged = _claims(
        f"1. every attempt merged to main, as of {as_of}",
        "verify",
        "--registry",
        root,
        root / "attempts",
        "--as-of",
        as_of,
        report=work / "verify-main.json",
    )
    repo.git.checkout("-q", pr_branch)
    review = _claims(
        f"2. the open pull request {pr_branch}, against main",
        "verify",
        "--registry",
        root,
        "--base-ref",
        "main",
        "--as-of",
        as_of,
        report=work / "verify-pr.json",
    )
    repo.git.checkout("-q", "main")
    rerun = _rerun_stage(root, work, examples, plan, as_of)
    # Resolution reruns the adapters too where it can, so an edited wrap never counts.
    rerun_flags = (
        []
        if rerun.get("skipped")
        else ["--rerun-adapters", "--released-cache", str(work / "released")]
    )
    resolved: dict[str, Any] = {}
    for number, when in enumerate(plan["resolve_on"], start=3):
        last = when == plan["resolve_on"][-1]
        quiet = [] if last else ["--quiet"]
        resolved = _claims(
            f"{number}. markets as of {when}",
            "resolve",
            "--registry",
            root,
            "--as-of",
            when,
            *rerun_flags,
            *quiet,
            report=work / f"resolve-{when}.json",
        )
    return _check(plan, merged, review, rerun, resolved)


def _rerun_stage(
    root: Path, work: Path, examples: Traversable, plan: dict[str, Any], as_of: str
) -> dict[str, Any]:
    """Rerun the wrapped attempts' adapters, from a cache seeded with the released data.

    The papers' URLs are examples, so the released files are put in the content-addressed
    cache first, as an earlier run would have left them. Skipped, and said so, where this
    machine cannot isolate the network.
    """
    from bot.sandbox import isolation

    folders = sorted(plan.get("rerun", {}))
    reason = isolation()
    if not folders or reason is not None:
        print(f"== rerun of wrapped attempts' adapters: SKIPPED ({reason or 'none'})\n")
        return {"attempts": [], "skipped": True}
    cache = work / "released"
    (cache / "sha256").mkdir(parents=True)
    for source in sorted((examples / "released").iterdir(), key=lambda file: file.name):
        (cache / "sha256" / source.name).write_bytes(source.read_bytes())
    return _claims(
        "wrapped attempts: rerun each adapter in the sandbox",
        "verify",
        "--registry",
        root,
        *(root / folder for folder in folders),
        "--rerun-adapters",
        "--released-cache",
        cache,
        "--as-of",
        as_of,
        report=work / "verify-rerun.json",
    )


def _check(
    plan: dict[str, Any],
    merged: dict[str, Any],
    review: dict[str, Any],
    rerun: dict[str, Any],
    resolved: dict[str, Any],
) -> int:
    """Compare what the commands reported with what each example declares."""
    expected: dict[str, dict[str, list[str]]] = plan["expect"]
    why: dict[str, str] = plan.get("why", {})
    surprises = []
    print("== what each example demonstrates\n")
    expected = {**expected, "rerun": plan.get("rerun", {})}
    for stage, report in (("main", merged), ("pr", review), ("rerun", rerun)):
        for attempt in report["attempts"]:
            name = attempt["attempt"]
            want = sorted(expected[stage].get(name, []))
            got = sorted({reason["code"] for reason in attempt["reasons"]})
            mark = "ok " if got == want else "UNEXPECTED"
            print(f"  {mark} [{stage}] {name}: {', '.join(got) or attempt['status']}")
            print(f"       {why.get(name, '')}")
            if got != want:
                surprises.append(f"{name}: expected {want or 'no reasons'}, got {got}")
    for market in resolved["markets"]:
        want = plan["outcomes"].get(str(market["market"]))
        mark = "ok " if market["outcome"] == want else "UNEXPECTED"
        print(f"  {mark} market {market['market']} resolves {market['outcome']}: {market['why']}")
        if market["outcome"] != want:
            surprises.append(f"market {market['market']}: expected {want}, got {market['outcome']}")
    print()
    if surprises:
        print("demo FAILED:\n  " + "\n  ".join(surprises))
        return 1
    count = len(merged["attempts"]) + len(review["attempts"])
    if rerun.get("skipped"):
        print("(the adapter rerun was skipped: install bubblewrap to see it)")
    print(
        f"demo OK: all {count} examples gave the codes they demonstrate, and markets"
        f" {', '.join(f'{m} {o}' for m, o in sorted(plan['outcomes'].items()))}."
    )
    return 0
