"""`claims init`, `claims hash-cases`, `claims pin-log`, `claims scores`: parsers and handlers.

Exit codes as the rest of the CLI: 0 done (or nothing to do), 1 the input has problems (each
printed with its file, line and reason code; nothing is written), 2 usage or environment (no
registry, a file that is not there, a file the command would not overwrite without --force).
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.faces.report.text import printable
from bot.vocab.errors import ClaimsError, Refusal
from bot.vocab.findings import Finding

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bot.faces.tools.fill import Setting
    from bot.rules.models import Market, SharedRules
    from bot.vocab.document import FieldPath

__all__ = [
    "TOOL_COMMANDS",
    "add_hash_cases_parser",
    "add_init_parser",
    "add_pin_log_parser",
    "add_scores_parser",
    "run_tool",
]

TOOL_COMMANDS = ("init", "hash-cases", "pin-log", "scores")
EXIT_DONE, EXIT_PROBLEMS = 0, 1
_FILE_NAME = re.compile(r"\A[A-Za-z0-9_][A-Za-z0-9._-]{0,127}\Z")  # bot/edges/load/folder.py's rule


def add_init_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    init = commands.add_parser(
        "init",
        help="create an attempt folder with stub freeze.yaml and attempt.yaml",
        description="Create attempts/market-NN/SUBMITTER/ATTEMPT/ with freeze.yaml and"
        " attempt.yaml stubs, commented with the market's bars, floors and adversarial budget."
        " Values to fill in start with FILL-IN; claims verify refuses them until replaced."
        " --set and --from-inspect fill them, in existing stubs too (only those lines change)."
        " A market that is resolved or whose filing window has closed is refused.",
    )
    init.add_argument("--market", type=int, required=True, metavar="N", help="the market number")
    init.add_argument("--submitter", required=True, metavar="S", help="your submitter slug")
    init.add_argument("--attempt", required=True, metavar="A", help="the attempt slug")
    init.add_argument(
        "--kind",
        choices=("run", "wrapped", "challenge"),
        default="run",
        help="default: run (the market's contract lists the kinds it accepts)",
    )
    init.add_argument(
        "--challenge-run",
        metavar="RUN",
        help="with --kind challenge: the challenge run's slug (challenge-runs/RUN/)",
    )
    init.add_argument("--registry", type=Path, metavar="ROOT", help="default: found above here")
    init.add_argument("--force", action="store_true", help="replace existing stub files")
    init.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        dest="settings",
        help="fill a FILL-IN value of the stubs (new or existing): FIELD is its dotted path"
        " (method.name, adversarial.red_teams.0.hours) or its last part when only one"
        " placeholder has that name; a documented optional field the stubs leave out"
        " (method.url, epochs, notes, publication.doi) is added by its dotted path; VALUE is"
        " a string, or a JSON number, true or false; repeat for more",
    )
    init.add_argument(
        "--from-inspect",
        type=Path,
        metavar="LOG",
        help="fill what an Inspect log knows (method, full code commit, scorer, freeze time,"
        " a title from its task and model); --set wins over it",
    )
    init.add_argument(
        "--as-of",
        type=_as_of,
        metavar="DATE",
        help="check the market's filing window as of this date, YYYY-MM-DD (default: today, UTC)",
    )
    _quiet(init)


def add_hash_cases_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    hashes = commands.add_parser(
        "hash-cases",
        help="compute (or fill in) each frozen case's RFC 8785 sha256",
        description="Print each case's sha256 (SHA-256 of the RFC 8785 form of its content), as"
        " claims verify computes it; with --write, fill in the ones that are missing or wrong"
        " (other lines are kept byte for byte).",
    )
    hashes.add_argument(
        "path",
        type=Path,
        metavar="PATH",
        help="the attempt folder (its freeze-cases.jsonl) or the freeze-cases.jsonl file",
    )
    hashes.add_argument("--write", action="store_true", help="write the hashes into the file")
    hashes.add_argument(
        "-v",
        "--verbose",
        "--diff",
        action="store_true",
        help="with --write, also print each case's hash and the diff of the file (without it,"
        " one summary line per file)",
    )
    hashes.add_argument(
        "--registry",
        type=Path,
        metavar="ROOT",
        help="as the other filer commands take it: PATH must then be inside ROOT (hash-cases"
        " reads no other registry file, so without it any file is hashed)",
    )
    _quiet(hashes)


def _quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only the last line (the outcome)"
    )


def add_pin_log_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    pin = commands.add_parser(
        "pin-log",
        help="pin a raw log: raw_log.sha256/bytes in attempt.yaml, the log in raw-log/",
        description="Hash a local raw log and write raw_log.sha256 and raw_log.bytes into"
        " attempt.yaml (editing only those lines, comments kept), and the log into raw-log/:"
        " whole up to the shared rules' limit, else its head and tail excerpts.",
    )
    pin.add_argument(
        "path", type=Path, metavar="PATH", help="the attempt folder or its attempt.yaml"
    )
    pin.add_argument(
        "--log",
        type=Path,
        metavar="FILE",
        help="the harness's raw log (default: the one file already in raw-log/)",
    )
    pin.add_argument("--url", metavar="URL", help="also set raw_log.url")
    pin.add_argument("--registry", type=Path, metavar="ROOT", help="default: found above PATH")
    pin.add_argument(
        "--force", action="store_true", help="remove other files in raw-log/ (an older log)"
    )
    _quiet(pin)


def add_scores_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    scores = commands.add_parser(
        "scores",
        help="print the score table the bot derives (scores.yaml), or write it",
        description="Derive the score table from freeze-cases.jsonl and trials.jsonl exactly as"
        " claims verify does, and print it in scores.yaml form; --write writes scores.yaml.",
    )
    scores.add_argument("path", type=Path, metavar="PATH", help="the attempt folder")
    scores.add_argument("--write", action="store_true", help="write scores.yaml")
    scores.add_argument("--registry", type=Path, metavar="ROOT", help="default: found above PATH")
    scores.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="with --write: print only the last line (without --write the table is the output)",
    )


def run_tool(args: argparse.Namespace) -> int:
    """Run one of TOOL_COMMANDS. `ClaimsError` propagates (the CLI prints it, exit 2)."""
    if args.command == "init":
        return _init(args)
    if args.command == "hash-cases":
        return _hash_cases(args)
    if args.command == "pin-log":
        return _pin_log(args)
    return _scores(args)


def _problems(findings: list[Finding], what: str) -> int:
    for finding in findings:
        print(
            printable(f"{finding.severity.value:<7} {finding.code.value:<22} {finding.location()}")
        )
        print(printable(f"        {finding.message}"))
    print(f"{what}: {len(findings)} problem(s); nothing written")
    return EXIT_PROBLEMS


def _print(lines: list[str]) -> None:
    for line in lines:
        print(printable(line))


def _as_of(text: str) -> date:
    try:
        return date.fromisoformat(text) if len(text) == 10 else _not_a_date(text)
    except ValueError:
        return _not_a_date(text)


def _not_a_date(text: str) -> date:
    raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD")


def _window(root: Path, market: Market, rules: SharedRules, as_of: date) -> None:
    """Refuse a market that is resolved or whose filing window has closed; warn, with the
    dates, when its resolve-by date has passed (docs/spec.md §5)."""
    from bot.app.resolutions import record_path
    from bot.vocab.dates import MarketDates

    dates = MarketDates.of(market.resolve_by, rules.window_days, rules.annul_after_days)
    said = (
        f"resolve-by {dates.resolve_by.isoformat()}, filing window closed on"
        f" {dates.window_closes.isoformat()}"
    )
    record = record_path(market.id)
    if (root / record).is_file():
        raise ClaimsError(
            f"market {market.id} is resolved ({record}; {said}): an attempt filed now never"
            " counts (filed-late)",
            "choose a market whose window is open (`claims demo --keep DIR --today` has one"
            " to practise on: market 7)",
        )
    state = dates.state(as_of)
    if state == "closed":
        raise ClaimsError(
            f"market {market.id}'s filing window closed on {dates.window_closes.isoformat()}"
            f" (resolve-by {dates.resolve_by.isoformat()} + {rules.window_days} days), before"
            f" {as_of.isoformat()}: an attempt filed now never counts (filed-late)",
            "choose a market whose window is open (`claims demo --keep DIR --today` has one"
            " to practise on: market 7)",
        )
    if state == "filing-window":
        print(
            f"warning: market {market.id}'s resolve-by date {dates.resolve_by.isoformat()} has"
            f" passed: evidence made public after it never counts (evidence-late); its filing"
            f" window closes {dates.window_closes.isoformat()}"
        )


def _settings(args: argparse.Namespace) -> tuple[list[Setting], list[str]]:
    """The values to fill: --from-inspect's first, then --set's (a later one wins)."""
    from bot.faces.tools.fill import Setting, parse_setting

    settings: list[Setting] = []
    notes: list[str] = []
    if args.from_inspect is not None:
        from bot.faces.tools.adapters.inspect_ import stub_values

        values, notes = stub_values(args.from_inspect)
        settings += [Setting(name, value, source) for name, value, source in values]
    settings += [parse_setting(text) for text in args.settings]
    last = {setting.name: setting for setting in settings}
    return list(last.values()), notes


def _filled(
    texts: dict[str, str], settings: list[Setting], strict: set[str], folder: str
) -> tuple[dict[str, str], list[str]]:
    """The stub texts with `settings` filled. A setting from --set (`strict`: its names) that
    names no placeholder is a problem; one from a log is left out quietly (the filer's
    value stands). `folder`: where the stubs are, inside the registry, for messages."""
    from bot.edges.load.yaml_ import parse_yaml
    from bot.faces.tools.fill import NO_FIELD, fill_text, resolve, unfilled

    stubs: dict[str, Any] = {}
    lines: dict[str, Mapping[FieldPath, int]] = {}
    for name, text in texts.items():
        document, _ = parse_yaml(text.encode("utf-8"), name)
        stubs[name] = None if document is None else document.data
        lines[name] = {} if document is None else document.lines
    # One value a field: a later setting (--set after the log's) replaces an earlier one.
    chosen: dict[str, dict[FieldPath, Setting]] = {name: {} for name in texts}
    problems = []
    for setting in settings:
        file, where = resolve(setting, stubs, lines, f"{folder}/")
        if file is None:
            if setting.name in strict:
                problems.append(f"--set {setting.name}: {where}")
            continue
        assert not isinstance(where, str)
        chosen[file][where] = setting
    if any(problem.split(": ", 1)[1].startswith(NO_FIELD) for problem in problems):
        problems.append(unfilled(stubs))  # once, however many flags named no field
    out = dict(texts)
    for name, pairs in chosen.items():
        if pairs:
            out[name], found = fill_text(texts[name], name, list(pairs.items()))
            problems += found
    return out, problems


def _init(args: argparse.Namespace) -> int:
    from bot.app.registry import RULES_PATH, find_root, load_registry
    from bot.edges.load.yaml_ import parse_yaml
    from bot.edges.tree import FolderTree
    from bot.edges.writes import Write, apply, write_atomic
    from bot.faces.tools.fill import dotted, placeholders
    from bot.faces.tools.init import Progress, attempt_stub, freeze_stub, next_step
    from bot.rules.judge.location import SLUG

    for option, slug in (("--submitter", args.submitter), ("--attempt", args.attempt)):
        if not SLUG.match(slug):
            raise ClaimsError(
                f"{option} {slug!r} is not a slug: 3-64 lower-case letters, digits and hyphens,"
                " no hyphen at either end"
            )
    if args.challenge_run is not None and args.kind != "challenge":
        raise ClaimsError("--challenge-run goes with --kind challenge")
    if args.challenge_run is not None and not SLUG.match(args.challenge_run):
        raise ClaimsError(f"--challenge-run {args.challenge_run!r} is not a slug")
    root = args.registry.resolve() if args.registry else find_root(Path.cwd())
    if root is None:
        raise ClaimsError(
            f"no registry found: {RULES_PATH} is missing at or above {Path.cwd()}",
            "run inside a registry checkout or pass --registry ROOT",
        )
    registry = load_registry(FolderTree(root))
    rules = registry.rules
    if rules.is_not_in_registry(args.market):
        raise ClaimsError(rules.not_in_registry_message)
    market, problems = registry.market(args.market)
    if market is None:
        details = "; ".join(f"{f.location()}: {f.message}" for f in problems)
        raise ClaimsError(
            f"market {args.market} has no valid contract in this registry"
            + (f": {details}" if details else f" (markets/market-{args.market:02d}.yaml)")
        )
    if args.kind not in market.kinds:
        raise ClaimsError(
            f"--kind {args.kind}: market {market.id} accepts {', '.join(market.kinds)}"
        )
    if (
        args.challenge_run is not None
        and not (root / "challenge-runs" / args.challenge_run / "run.yaml").is_file()
    ):
        raise ClaimsError(
            f"--challenge-run {args.challenge_run}: challenge-runs/{args.challenge_run}/run.yaml"
            " is not in this registry"
        )
    _window(root, market, rules, args.as_of or datetime.now(UTC).date())
    settings, notes = _settings(args)
    strict = {text.partition("=")[0].strip() for text in args.settings}
    inside = f"attempts/market-{market.id:02d}/{args.submitter}/{args.attempt}"
    folder = root / inside
    schemas = "../../../../schemas"
    stubs = {
        "freeze.yaml": freeze_stub(market, rules, args.kind, f"{schemas}/freeze.schema.json"),
        "attempt.yaml": attempt_stub(
            market,
            rules,
            args.submitter,
            args.kind,
            f"{schemas}/attempt.schema.json",
            args.challenge_run,
        ),
    }
    existing = {name: folder / name for name in stubs if (folder / name).is_file()}
    if settings and existing and not args.force:
        # Fill the stubs already there, in place: only their placeholders change.
        texts = {name: path.read_text(encoding="utf-8") for name, path in existing.items()}
        filled, unfilled = _filled(texts, settings, strict, inside)
        if unfilled:
            raise ClaimsError("; ".join(unfilled), "nothing was written")
        for name, path in existing.items():
            if filled[name] != texts[name]:
                write_atomic(path, filled[name].encode("utf-8"))
                print(printable(f"filled    {inside}/{name}"))
            else:
                print(printable(f"unchanged {inside}/{name}"))
    else:
        texts = {name: data.decode("utf-8") for name, data in stubs.items()}
        filled, unfilled = _filled(texts, settings, strict, inside)
        if unfilled:
            raise ClaimsError("; ".join(unfilled), "nothing was written")
        writes = [
            Write(folder / name, filled[name].encode("utf-8"), owned=False, what="stub")
            for name in stubs
        ]
        _print(apply(writes, args.force, Path.cwd(), root))
    for note in notes:
        print(printable(f"note: {note}"))
    left: dict[str, list[FieldPath]] = {}
    for name in stubs:
        path = folder / name
        document, _ = parse_yaml(path.read_bytes(), name) if path.is_file() else (None, [])
        left[name] = placeholders(document.data) if document is not None else []
    if any(left.values()):
        still = [
            f"{name}: {', '.join(dotted(p) for p in paths)}"
            for name, paths in left.items()
            if paths
        ]
        print(printable(f"still FILL-IN: {'; '.join(still)}"))
    if not (root / "schemas").is_dir():
        print(
            f"note: {root} has no schemas/ folder, so the files' $schema links"
            f" ({schemas}/...) do not resolve for editors until it has one"
        )
    base, on_base = _on_base(root, [f"{inside}/freeze.yaml", f"{inside}/attempt.yaml"])
    progress = Progress(
        folder=inside,
        freeze_left=bool(left["freeze.yaml"]),
        cases=(folder / "freeze-cases.jsonl").is_file(),
        base=base,
        freeze_on_base=f"{inside}/freeze.yaml" in on_base,
        run_on_base=f"{inside}/attempt.yaml" in on_base,
        trials=(folder / "trials.jsonl").is_file(),
        raw_log_left=any(p[:1] == ("raw_log",) for p in left["attempt.yaml"]),
        attempt_left=any(p[:1] != ("raw_log",) for p in left["attempt.yaml"]),
        scores=(folder / "scores.yaml").is_file(),
    )
    print(printable(next_step(progress)))
    return EXIT_DONE


# The base branch `claims verify` reads by default (bot/edges/history.py).
_BASES = ("main", "origin/main")


def _on_base(root: Path, paths: list[str]) -> tuple[str | None, set[str]]:
    """The base branch, and which of `paths` (inside the registry) are on it: what is merged.
    (None, nothing) without a git repository or a base branch: then nothing counts as merged."""
    import git
    from gitdb.exc import BadName  # type: ignore[import-untyped]

    from bot.edges.history import open_repo

    try:
        opened = open_repo(root)
    except ClaimsError:
        return None, set()
    if isinstance(opened, Refusal):
        return None, set()
    repo, prefix = opened
    try:
        for base in _BASES:
            try:
                tree = repo.commit(base).tree
            except (BadName, ValueError, git.GitCommandError):
                continue
            found = set()
            for path in paths:
                try:
                    tree / (f"{prefix}/{path}" if prefix else path)
                except KeyError:
                    continue
                found.add(path)
            return base, found
        return None, set()
    finally:
        repo.close()


def _hash_cases(args: argparse.Namespace) -> int:
    from bot.edges.writes import Write, apply
    from bot.faces.tools.hashes import hash_cases

    path: Path = args.path
    if path.is_dir():
        path = path / "freeze-cases.jsonl"
    if not path.is_file():
        raise ClaimsError(
            f"{path} is not a file",
            "name an attempt folder holding freeze-cases.jsonl, or the file",
        )
    if args.registry is not None:
        try:
            path.resolve().relative_to(args.registry.resolve())
        except ValueError:
            raise ClaimsError(f"{path} is not inside the registry at {args.registry}") from None
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ClaimsError(f"cannot read {path}: {error.strerror}") from None
    result = hash_cases(raw, str(path))
    # What happens to a missing or wrong sha256: written only with --write (and only when
    # every line could be read); otherwise the line says how to write it.
    written = args.write and result.data is not None
    # With --write the outcome is one line per file; each case and the diff only with -v.
    each = not args.write or args.verbose
    for case in result.cases if each else ():
        status = case.status
        if status != "ok" and case.computed is not None:
            status += ": written" if written else ": not written (run with --write)"
        shown = case.computed or case.stated or "-"
        print(printable(f"line {case.line:<5} {case.case_id}  {shown}  {status}"))
    if result.data is None:
        return _problems(result.problems, str(path))
    if args.write:
        changed = result.changed
        lines = ", ".join(str(case.line) for case in changed)
        what = f"sha256 of {len(changed)} case(s), line(s) {lines}" if changed else ""
        done = apply([Write(path, result.data, owned=True, what=what)], False, Path.cwd())
        if each:
            _print(done)
        if changed and not result.problems:
            # The outcome last (-q prints only it), never a line of the diff above.
            print(printable(f"{path}: wrote the sha256 of {len(changed)} case(s)"))
        elif not result.problems and not each:
            print(
                printable(f"{path}: all {len(result.cases)} sha256 already right, nothing written")
            )
    if result.problems:
        return _report(result.problems)
    if result.changed and not args.write:
        print(
            f"{len(result.changed)} case(s) need their sha256 filled in: nothing written;"
            f" `claims hash-cases {args.path} --write` writes them"
        )
        return EXIT_PROBLEMS
    return EXIT_DONE


def _report(findings: list[Finding]) -> int:
    for finding in findings:
        print(
            printable(f"{finding.severity.value:<7} {finding.code.value:<22} {finding.location()}")
        )
        print(printable(f"        {finding.message}"))
    print(f"{len(findings)} problem(s) claims verify will report in this file")
    return EXIT_PROBLEMS


def _pin_log(args: argparse.Namespace) -> int:
    from bot.edges.writes import Write, apply
    from bot.faces.tools.attempt import locate
    from bot.faces.tools.rawlog import edit_block, measure_log, raw_log_files

    place = locate(args.path, args.registry)
    attempt = place.folder / "attempt.yaml"
    if not attempt.is_file():
        raise ClaimsError(f"{attempt} does not exist", "run claims init first")
    rules = place.registry().rules
    raw_folder = place.folder / "raw-log"
    present = sorted(p for p in raw_folder.iterdir()) if raw_folder.is_dir() else []
    log: Path | None = args.log
    if log is None:
        whole = [p for p in present if p.name not in ("head", "tail")]
        if len(present) != 1 or len(whole) != 1:
            raise ClaimsError(
                "name the raw log with --log FILE",
                "without --log, raw-log/ must hold exactly one whole log",
            )
        log = whole[0]
    if not log.is_file():
        raise ClaimsError(f"--log {log} is not a file")
    name = log.name
    if not _FILE_NAME.match(name) or name in ("head", "tail"):
        raise ClaimsError(
            f"--log {log}: the name {name!r} is not allowed in an attempt folder",
            "rename it: ASCII letters, digits, '.', '_', '-', not starting with '.' or '-'",
        )
    try:
        with log.open("rb") as stream:
            facts = measure_log(stream, rules.excerpt_bytes)
        whole_bytes = log.read_bytes() if facts.size <= rules.max_local_log_bytes else None
    except OSError as error:
        raise ClaimsError(f"cannot read {log}: {error.strerror}") from None
    if facts.size == 0:
        raise ClaimsError(f"{log} is empty: raw_log.bytes must be at least 1")
    planned, problems = raw_log_files(
        facts,
        name,
        whole_bytes,
        rules.max_local_log_bytes,
        rules.excerpt_bytes,
        f"{place.inside}/raw-log",
    )
    if problems:  # the verifier's rule refuses what we would write: a bug, say so
        return _problems(problems, "raw-log/")
    values: dict[str, object] = {"sha256": facts.sha256, "bytes": facts.size}
    if args.url:
        values["url"] = args.url
    try:
        text = attempt.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        print(f"{place.inside}/attempt.yaml: not UTF-8 (byte {error.start}); nothing written")
        return EXIT_PROBLEMS
    edited, why = edit_block(text, "raw_log", values, f"{place.inside}/attempt.yaml")
    if edited is None:
        print(printable(f"cannot edit attempt.yaml: {why}"))
        print("set these by hand under raw_log:")
        for key, value in values.items():
            print(f"  {key}: {value}")
        return EXIT_PROBLEMS
    writes = [
        Write(raw_folder / file, data, owned=True, what=f"{len(data)} bytes")
        for file, data in planned.items()
    ]
    writes += [
        Write(
            path,
            None,
            owned=False,
            what=f"an older log: raw-log/ holds only the log being pinned, {name}",
        )
        for path in present
        if path.name not in planned
    ]
    fields = ", ".join(f"raw_log.{key}" for key in values)
    writes.append(
        Write(attempt, edited.encode("utf-8"), owned=True, what=f"{fields} only; comments kept")
    )
    _print(apply(writes, args.force, Path.cwd(), place.root))
    kept = (
        "whole"
        if len(planned) == 1
        else f"as head and tail excerpts of {rules.excerpt_bytes} bytes"
    )
    print(f"pinned {log}: {facts.size} bytes, sha256 {facts.sha256}, kept {kept}")
    return EXIT_DONE


def _scores(args: argparse.Namespace) -> int:
    from bot.edges.writes import Write, apply
    from bot.faces.tools.attempt import locate
    from bot.faces.tools.scores import derive_scores

    place = locate(args.path, args.registry)
    result = derive_scores(place)
    if result.data is None:
        return _problems(result.problems, "scores.yaml")
    if not args.write:
        sys.stdout.write(result.data.decode("utf-8"))
        return EXIT_DONE
    target = place.folder / "scores.yaml"
    summary = apply(
        [Write(target, result.data, owned=True, what="the derived score table")],
        False,
        Path.cwd(),
        place.root,
    )
    _print(summary)
    # The outcome last (-q prints only it), never a line of the diff above.
    print(printable(f"{place.inside}/scores.yaml: {_outcome(summary)}"))
    return EXIT_DONE


def _outcome(summary: list[str]) -> str:
    """What `apply` did to one file, from its summary's first word."""
    word = summary[0].split(" ", 1)[0] if summary else "unchanged"
    return {"created": "written", "changed": "rewritten"}.get(word, word)
