"""`claims demo`: replay examples/demo-plan.yaml into a fresh git registry and verify it.

Part 1 verifies every attempt merged to main; part 2 checks out the pull request still under
review and verifies it against main, as the PR check would. Each example declares the reason
codes it demonstrates; the demo exits 0 only when every example produced exactly those.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from bot.config import Limits
from bot.demo.git_registry import Step, build_git_registry
from bot.errors import ClaimsError
from bot.history import open_history
from bot.load.yaml_ import load_yaml
from bot.registry import attempt_folders, open_registry
from bot.report.text import render_text
from bot.timestamps import parse_timestamp
from bot.verdict import AttemptVerdict
from bot.verify import VerifyOptions, changed_attempt_folders, check_changes, verify_attempt

__all__ = ["EXAMPLES", "load_plan", "run_demo"]

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT / "examples"


def _source(reference: str) -> bytes:
    where, _, path = reference.partition(":")
    base = {
        "project": PROJECT,
        "registry": EXAMPLES / "registry",
        "history": EXAMPLES / "history",
    }.get(where)
    if base is None:
        raise ClaimsError(f"demo plan: unknown source {reference!r}")
    return (base / path).read_bytes()


def load_plan(examples: Path = EXAMPLES) -> tuple[list[Step], dict[str, Any]]:
    """Read the demo plan: the steps with their file contents, and the expected codes."""
    document, findings = load_yaml(
        examples / "demo-plan.yaml", "examples/demo-plan.yaml", Limits(max_yaml_bytes=4_000_000)
    )
    if document is None or not isinstance(document.data, dict):
        raise ClaimsError(
            "cannot read examples/demo-plan.yaml: " + "; ".join(f.message for f in findings),
            "regenerate it with: python examples/generate.py",
        )

    def moment(text: str | None) -> Any:
        return None if text is None else parse_timestamp(text)

    steps = [
        Step(
            message=step["message"],
            at=moment(step["at"]),
            files={path: _source(ref) for path, ref in step["files"].items()},
            merged_at=moment(step.get("merged_at")),
            open_pr=step.get("open_pr"),
        )
        for step in document.data["steps"]
    ]
    return steps, document.data


def _codes(verdict: AttemptVerdict) -> list[str]:
    return sorted({finding.code.value for finding in verdict.findings})


def run_demo(keep: Path | None = None) -> int:
    """Build, verify and print the demo; return 0 when every example behaved as declared."""
    if not (EXAMPLES / "demo-plan.yaml").is_file():
        raise ClaimsError(
            f"the demo needs {EXAMPLES}/demo-plan.yaml",
            "run claims demo from a checkout of the registry repository",
        )
    steps, plan = load_plan()
    if keep is not None:
        return _run(keep, steps, plan)
    with tempfile.TemporaryDirectory(prefix="claims-demo-") as folder:
        return _run(Path(folder) / "registry", steps, plan)


def _run(root: Path, steps: list[Step], plan: dict[str, Any]) -> int:
    if root.exists() and any(root.iterdir()):
        raise ClaimsError(f"{root} is not empty", "name a new folder with --keep")
    repo = build_git_registry(root, steps)
    pr_branch = repo.active_branch.name
    print(
        f"Demo registry built at {root} ({len(steps)} steps, "
        f"{sum(1 for _ in repo.iter_commits('main'))} commits on main).\n"
    )

    repo.git.checkout("-q", "main")
    registry = open_registry(root, root)
    options = VerifyOptions(history=open_history(root, "main"))
    merged = [
        verify_attempt(registry, folder, options)
        for folder in attempt_folders(root, [root / "attempts"])
    ]
    print("== 1. claims verify attempts/   (main: every merged attempt)\n")
    print(render_text(merged))

    repo.git.checkout("-q", pr_branch)
    registry = open_registry(root, root)
    history = open_history(root, "main")
    assert not isinstance(history, str)
    changes = history.changes()
    folders = changed_attempt_folders(changes)
    change_findings = check_changes(changes, folders)
    review = []
    for folder in folders:
        verdict = verify_attempt(registry, root / folder, options)
        review.append(
            AttemptVerdict(
                **{**_fields(verdict), "findings": (*change_findings, *verdict.findings)}
            )
        )
    print(f"== 2. claims verify --base-ref main   (open pull request {pr_branch})\n")
    print(render_text(review))

    expected: dict[str, dict[str, list[str]]] = plan["expect"]
    why: dict[str, str] = plan.get("why", {})
    surprises = []
    print("== 3. what each example demonstrates\n")
    checked = [("main", v) for v in merged] + [("pr", v) for v in review]
    for stage, verdict in checked:
        want = sorted(expected[stage].get(verdict.attempt, []))
        got = _codes(verdict)
        mark = "ok " if got == want else "UNEXPECTED"
        print(
            f"  {mark} [{stage}] {verdict.attempt}: {', '.join(got) or 'valid'}"
            f"\n       {why.get(verdict.attempt, '')}"
        )
        if got != want:
            surprises.append(f"{verdict.attempt}: expected {want or 'valid'}, got {got}")
    print()
    if surprises:
        print("demo FAILED:\n  " + "\n  ".join(surprises))
        return 1
    print(f"demo OK: all {len(merged) + len(review)} examples gave the codes they demonstrate.")
    return 0


def _fields(verdict: AttemptVerdict) -> dict[str, Any]:
    return {name: getattr(verdict, name) for name in verdict.__dataclass_fields__}
