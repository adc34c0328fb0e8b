"""The CLI's shape (issue 23 items 5, 7 and 10): every subcommand's help shows an example and
its exit codes; the verbs share their conventions (a PATH to work on, `--json FILE` or `-`,
`-q`, `--registry`); `explain` on a `claims init` stub shows everything in one voice, and
`--brief` caps; wording that said more than was done.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.faces.cli import _parser, main
from bot.faces.help import EPILOGS, subcommands
from tests.support import RegistryFactory

README = Path(__file__).resolve().parents[2] / "README.md"


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", [path for path, _ in subcommands(_parser())])
def test_every_subcommand_help_has_an_example_and_exit_codes(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help(capsys, *command.split())
    examples = text.split("examples:\n", 1)[1].split("\nexit codes:", 1)[0]
    shown = [line.strip() for line in examples.splitlines() if line.strip()]
    assert shown and all(line.startswith(f"claims {command.split()[0]}") for line in shown)
    exits = text.split("exit codes:\n", 1)[1]
    assert re.search(r"\b0 ", exits) and re.search(r"\b2 ", exits), exits


def test_every_subcommand_has_an_entry_and_no_entry_is_left_over() -> None:
    assert {path for path, _ in subcommands(_parser())} == set(EPILOGS)


def test_every_example_parses() -> None:
    """An example a user copies is a command line the parser takes."""
    parser = _parser()
    for examples, _ in EPILOGS.values():
        for example in examples:
            parser.parse_args(example.split()[1:])


def test_the_readme_states_the_conventions() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("### CLI conventions", 1)[1].split("\n## ", 1)[0]
    for convention in ("--json FILE", "--json -", "-q", "--registry ROOT", "--write", "Exit codes"):
        assert convention in section, convention


# --- one shape for the verbs ---------------------------------------------------------------


def test_hash_cases_takes_the_attempt_folder_and_registry(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry()
    assert main(["hash-cases", str(built.attempt), "--registry", str(built.root)]) == 0
    folder = capsys.readouterr().out
    assert main(["hash-cases", str(built.attempt / "freeze-cases.jsonl")]) == 0  # the old form
    assert capsys.readouterr().out == folder
    assert "line 1 " in folder and folder.count("  ok\n") == 24


def test_q_prints_only_the_outcome_on_every_tool(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry()
    assert main(["hash-cases", str(built.attempt), "-q"]) == 0
    assert capsys.readouterr().out.count("\n") == 1
    assert main(["scores", str(built.attempt), "--write", "-q"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert "scores.yaml" in line
    code = main(["explain", str(built.attempt), "-q", "--as-of", "2027-04-15"])
    (total,) = capsys.readouterr().out.splitlines()
    assert code == 0 and total.split()[:2] == ["ok", "total"]


def test_explain_takes_several_paths_and_json_to_a_file_or_stdout(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from bot.faces.demo.specimen import AttemptSpec

    other = AttemptSpec(submitter="bob-lab", slug="monitor-v2")
    built = make_registry(also=[other])
    second = built.root / other.folder
    as_of = ["--as-of", "2027-04-15"]
    assert main(["explain", str(built.attempt), str(second), *as_of]) == 0
    assert "2 attempt(s)" in capsys.readouterr().out
    report = tmp_path / "explain.json"
    assert main(["explain", str(built.attempt), "--json", str(report), *as_of]) == 0
    text = capsys.readouterr().out
    assert "total" in text  # the text as usual, and the file
    written = json.loads(report.read_text())
    assert main(["explain", str(built.attempt), "--json", "-", *as_of]) == 0
    assert json.loads(capsys.readouterr().out) == written
    # The old forms: a bare --json, and --json before the folder, print JSON and a note.
    assert main(["explain", str(built.attempt), *as_of, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == written and "deprecated" in captured.err
    assert main(["explain", *as_of, "--json", str(built.attempt)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == written and "deprecated" in captured.err


def test_verify_json_dash_prints_the_report(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry()
    assert main(["verify", str(built.attempt), "--json", "-", "--as-of", "2027-04-15"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["attempts"][0]["status"] == "qualifying"
    assert not Path("-").exists()


# --- wording (item 7) ----------------------------------------------------------------------


def test_hash_cases_without_write_says_nothing_was_written(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry()
    cases = built.attempt / "freeze-cases.jsonl"
    lines = cases.read_text().splitlines()
    first = json.loads(lines[0])
    del first["sha256"]
    cases.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    before = cases.read_bytes()
    assert main(["hash-cases", str(built.attempt)]) == 1
    out = capsys.readouterr().out
    assert "filled in" not in out.splitlines()[0]
    assert out.splitlines()[0].endswith("missing: not written (run with --write)")
    assert "nothing written" in out.splitlines()[-1]
    assert cases.read_bytes() == before
    assert main(["hash-cases", str(built.attempt), "--write", "-v"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("missing: written")


def test_an_identity_notice_is_not_counted_as_a_pull_request_problem(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry(run="open")
    argv = ["verify", "--base-ref", "main", "--registry", str(built.root), "--as-of", "2027-04-15"]
    main(argv)
    out = capsys.readouterr().out
    assert "identity-unchecked" in out
    assert "pull-request problem" not in out
    assert "PULL REQUEST notices" in out
    main([*argv, "-q"])
    (total,) = capsys.readouterr().out.splitlines()
    assert "problem" not in total


def test_the_filing_guide_lists_nothing_built_as_still_to_come() -> None:
    docs = README.parent / "docs" / "filing-an-attempt.md"
    text = docs.read_text(encoding="utf-8")
    readme = README.read_text(encoding="utf-8")
    built = readme.split("Built:", 1)[1]
    for part in ("the GitHub flow", "Zenodo", "challenge runs"):
        assert part.lower() in built.lower()
    assert "to come" not in text.lower()
    assert "not to be relied on" not in text.lower()


# --- explain on a stub (item 5) ------------------------------------------------------------


def _stub(make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    built = make_registry()
    argv = ["init", "--market", "3", "--submitter", "new-lab", "--attempt", "first-try"]
    assert main([*argv, "--registry", str(built.root)]) == 0
    capsys.readouterr()
    return built.root / "attempts/market-03/new-lab/first-try", str(built.root)


def test_explain_on_a_stub_shows_everything_in_one_voice(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, root = _stub(make_registry, capsys)
    assert main(["explain", str(folder), "--registry", root]) == 1
    lines = capsys.readouterr().out.splitlines()
    head = lines[0]
    assert "(market 3, run)" in head and "kind ?" not in head
    placeholders = [line for line in lines if "FILL-IN" in line]
    assert len(placeholders) > 10
    assert not any("... and" in line for line in lines)
    for line in placeholders:
        assert "is a placeholder `claims init` wrote; what to write: " in line, line
        assert "is not of type" not in line and "is not one of" not in line
        assert "does not match" not in line
    hours = next(line for line in placeholders if "red_teams[0].hours:" in line)
    assert hours.endswith("(a number)")
    assert len({line.split(": ", 2)[1] for line in placeholders}) == len(placeholders)  # once


def test_explain_brief_caps_the_list(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, root = _stub(make_registry, capsys)
    main(["explain", str(folder), "--registry", root])
    full = capsys.readouterr().out.splitlines()
    main(["explain", str(folder), "--registry", root, "--brief"])
    brief = capsys.readouterr().out.splitlines()
    schema = sum(1 for line in full if line.startswith("fails   evidence    schema:"))
    assert schema > 5
    assert sum(1 for line in brief if line.startswith("fails   evidence    schema:")) == 5
    assert f"... and {schema - 5} more schema (without --brief: every one)" in "\n".join(brief)
    assert brief[-1] == full[-1]  # the total counts every line either way
