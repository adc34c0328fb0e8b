"""`claims init`: an attempt folder's stub freeze.yaml and attempt.yaml, commented with what
the market asks for.

The comments are read from the market's contract and the shared rules as the bot has them
(`Market`, `SharedRules`): each bar's statistic, threshold, the fields it reads and their
allowed values, the floors, the unit keys, the outputs required, and the adversarial budget
with its numbers. Every value the filer must supply is a placeholder starting with `FILL-IN`
(`bot.rules.evidence.placeholders.PLACEHOLDER`), which `claims verify` refuses as `schema`,
naming the field, until it is replaced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.evidence.placeholders import PLACEHOLDER
from bot.rules.models import Bar, Market, SharedRules

__all__ = ["Progress", "attempt_stub", "freeze_stub", "next_step"]


def _fill(what: str) -> str:
    return f"{PLACEHOLDER}: {what}"


def _value(value: Any) -> str:
    """A YAML 1.2 (and 1.1) scalar: JSON's spelling of it."""
    return json.dumps(value, ensure_ascii=False)


def _lines(data: Mapping[str, Any], indent: str = "") -> list[str]:
    """Block YAML for plain data: mappings and lists of mappings, scalars JSON-quoted."""
    out: list[str] = []
    for key, value in data.items():
        if isinstance(value, dict) and value:
            out.append(f"{indent}{key}:")
            out += _lines(value, indent + "  ")
        elif isinstance(value, list) and value:
            out.append(f"{indent}{key}:")
            for item in value:
                if not isinstance(item, dict) or not item:
                    out.append(f"{indent}  - {_value(item)}")
                    continue
                inner = _lines(item, indent + "    ")
                out.append(f"{indent}  - {inner[0].lstrip()}")
                out += inner[1:]
        else:
            out.append(f"{indent}{key}: {_value(value)}")
    return out


def _filter(over: Mapping[str, Any]) -> str:
    parts = [f"{field} = {value}" for field, value in over.items()]
    return ", ".join(parts)


def _bar(bar: Bar, confidence: float) -> list[str]:
    sense = "<=" if bar.statistic == "rate_upper" else ">="
    over = [
        *([f"cases with {_filter(bar.over_case)}"] if bar.over_case else []),
        *([f"results with {_filter(bar.over_result)}"] if bar.over_result else []),
    ]
    lines = [
        f"#   {bar.id} ({bar.title}): {bar.statistic} {sense} {bar.threshold:g}"
        f" at {confidence:g} confidence, over {' and '.join(over) or 'every trial'}"
        f" (denominator: {bar.denominator})"
    ]
    if bar.statistic == "auroc_lower":
        lines.append(
            f"#     reads result.{bar.score} (a number) and result.{bar.label_field}:"
            f" positive {bar.label_positive!r}"
        )
    else:
        verb = "fails" if bar.statistic == "rate_upper" else "passes"
        values = ", ".join(map(str, bar.predicate_values))
        lines.append(
            f"#     reads result.{bar.predicate_field}: a trial {verb} when it is one of [{values}]"
        )
    if bar.allowed:
        lines.append(f"#     allowed values: {', '.join(map(str, bar.allowed))}")
    return lines


def _budget(market: Market, rules: SharedRules) -> list[str]:
    adversarial = rules.adversarial
    red, bounty, generator = adversarial.red_teams, adversarial.bounty, adversarial.generator
    serious = [
        f"#   red teams: at least {red.min_groups} independent groups from at least"
        f" {red.min_organizations} organizations, each at least {red.min_hours_each} hours;",
        f"#   or a bounty: at least USD {bounty.min_usd:,}, open at least"
        f" {bounty.min_days_open} days, rules frozen at listing, at least"
        f" {bounty.min_qualifying_submissions} qualifying submission(s);",
        f"#   or a generator: finds at least {generator.min_planted_found:.0%} of planted"
        f" vulnerabilities, at least {generator.min_independent_hours} independent hours,"
        " frozen before the first trial.",
    ]
    access = (
        f"#   Red teams count only if independent, with access at least {market.assumed_access}"
        " and adversarial.access_frozen_at strictly before their started_at."
    )
    if market.adversarial_budget == "default":
        default = adversarial.default
        return [
            f"# Adversarial budget: default: at least {default.min_groups} independent"
            f" red-team group(s), at least {default.min_hours_total} hours in total;",
            access,
            "#   (or any serious route instead:)",
            *serious,
        ]
    if market.adversarial_budget == "serious":
        return [
            "# Adversarial budget: serious, any one route:",
            *serious,
            access,
            "#   Human check: adversarial-route-serious.",
        ]
    return [
        "# Adversarial budget: the market's own attack protocol: adversarial.protocol must state"
        " every term of its attack_protocol unchanged, and say how it was followed.",
        "#   Human check: own-protocol-followed.",
    ]


def _header(market: Market, rules: SharedRules, schema: str, what: str) -> list[str]:
    floors = (
        f"# Floors: at least {market.min_units} independent units, {market.min_systems}"
        f" distinct systems, {market.min_families} case families"
    )
    if market.required_families:
        floors += f"; required families: {', '.join(market.required_families)}"
    lines = [
        f"# yaml-language-server: $schema={schema}",
        f"# {what} for market {market.id}: {market.title}",
        "# Written by `claims init`. Every value starting with FILL-IN is a placeholder that",
        "# `claims verify` refuses (schema) until you replace it; it says where the value comes",
        "# from. `claims init ... --set FIELD=VALUE` (or --from-inspect LOG) fills one and notes",
        "# its source after it (# from: ...); `claims pin-log` writes raw_log.",
        "#",
        f"# The market's bars (trials.jsonl results; cases from freeze-cases.jsonl), resolve-by"
        f" {market.resolve_by}:",
    ]
    for bar in market.bars:
        lines += _bar(bar, rules.confidence)
    lines += [
        floors,
        *_unit_lines(market),
        f"# Required outputs: {', '.join(market.required_outputs) or 'none'}",
    ]
    if market.withholdable:
        lines.append(
            f"# Withholdable (never in a published file): {', '.join(market.withholdable)}"
        )
    lines.append(
        f"# Kinds accepted: {', '.join(market.kinds)}; assumed access: {market.assumed_access}"
    )
    return [*lines, *_budget(market, rules), "#"]


# What each unit key means, for the stub's comments (docs/filing-an-attempt.md#unit-keys).
UNIT_KEY_MEANINGS = {
    "system": "the system instance the trial ran on (a seed or reparametrization variant"
    " is its own system)",
    "trajectory": "the rollout the trial scored (one id per independent trajectory)",
    "evaluator": "a separate judge whose errors trials share (a person, a grader model);"
    " null when the method under test or a deterministic scorer labels the trial",
    "attack_family": "the attack the trial tried, shared by attacks that are not"
    " independent; null for controls",
}


def _unit_lines(market: Market) -> list[str]:
    """The unit structure: every trial carries each key, and trials sharing a value join."""
    lines = [
        f"# Units: trials that share a value of any unit key ({', '.join(market.unit_keys)})",
        "#   are one unit, transitively; the floors and bars count units, not trials. Every",
        "#   trial carries every key; null means not applicable and never joins.",
    ]
    lines += [
        f"#   {key}: {UNIT_KEY_MEANINGS.get(key, 'a key this market adds')}"
        for key in market.unit_keys
    ]
    lines.append(
        f"#   So {market.min_units} units need {market.min_units} trials sharing no value;"
        " `claims explain` shows which values joined the trials."
    )
    return lines


def freeze_stub(market: Market, rules: SharedRules, kind: str, schema: str) -> bytes:
    """freeze.yaml: placeholders for the method, its code commit, scorer and freeze time."""
    data: dict[str, Any] = {
        "method": {
            "name": _fill("your method's name, as its paper or repository names it"),
            "version": _fill("its version, e.g. its release tag"),
        },
        "code_commit": _fill(
            "the full 40- or 64-hex commit of the method's code (git rev-parse HEAD there)"
        ),
        "scorer": _fill("the scorer that turns outputs into results, as your harness names it"),
        "frozen_at": _fill("when you froze, RFC 3339 (date -u +%Y-%m-%dT%H:%M:%SZ)"),
    }
    notes = [
        "# Commit only freeze.yaml and freeze-cases.jsonl in the freeze pull request, and have",
        "# it merged on GitHub (a merge commit) before any trial starts; `claims hash-cases",
        "# freeze-cases.jsonl --write` fills in each case's sha256.",
    ]
    if kind == "wrapped":
        data["paper_freeze"] = {
            "date": _fill(
                "the paper's own freeze date (its preregistration), YYYY-MM-DD or RFC 3339"
            ),
            "url": _fill("https://... the paper's preregistration or freeze"),
            "sha256": _fill("the sha256 of the file at that url (sha256sum FILE)"),
        }
        notes = [
            "# A wrapped attempt is checked against the paper's own dated freeze (paper_freeze);",
            "# it also needs adapter/adapter.yaml (see docs/adapters.md).",
        ]
    header = _header(market, rules, schema, "freeze.yaml")
    return ("\n".join([*header, *notes, *_lines(data)]) + "\n").encode("utf-8")


def _team(access: str) -> dict[str, Any]:
    return {
        "name": _fill("the red-team group's name, as its report gives it"),
        "organization": _fill("its organization, as its report gives it"),
        "independent": _fill("true or false: independent of the method's authors"),
        "hours": _fill("expert-hours its report documents, a number"),
        "access": _fill(f"black-box, grey-box or white-box (at least {access})"),
        "started_at": _fill("when it started (its report), RFC 3339, after access_frozen_at"),
    }


def attempt_stub(
    market: Market,
    rules: SharedRules,
    submitter: str,
    kind: str,
    schema: str,
    challenge_run: str | None = None,
) -> bytes:
    """attempt.yaml: market, submitter and kind filled in, placeholders for the rest."""
    adversarial: dict[str, Any] = {
        "access_frozen_at": _fill(
            "when the attack's access was frozen (the red team's terms), RFC 3339"
        ),
    }
    if market.adversarial_budget == "own":
        protocol = dict(market.attack_protocol or {})
        protocol["how_followed"] = _fill("how the protocol was followed, with report links")
        adversarial["protocol"] = protocol
    else:
        count = rules.adversarial.red_teams.min_groups
        teams = 1 if market.adversarial_budget == "default" else count
        adversarial["red_teams"] = [_team(market.assumed_access) for _ in range(teams)]
    data: dict[str, Any] = {
        "market": market.id,
        "submitter": submitter,
        "kind": kind,
        **(
            {
                "challenge_run": challenge_run
                or _fill("the challenge run's slug, challenge-runs/<run>/")
            }
            if kind == "challenge"
            else {}
        ),
        "title": _fill("the attempt's title, 1-200 characters"),
        "publication": {
            "url": _fill("https://... where the evaluation is published (paper or report)"),
            "evidence_public_at": _fill(
                "when the evidence became public (the publication's date), RFC 3339"
            ),
        },
        "raw_log": {
            "sha256": _fill("claims pin-log writes this"),
            "url": _fill("https://... a public URL of the whole raw log (claims pin-log --url)"),
            "bytes": _fill("claims pin-log writes this"),
        },
        "assumed_access": _fill(f"the access the attack had, at least {market.assumed_access}"),
        "adversarial": adversarial,
    }
    notes = [
        "# Commit attempt.yaml with the run (trials.jsonl, raw-log/, certificates.jsonl,",
        "# scores.yaml), after the freeze is merged. `claims pin-log . --log FILE` pins the raw",
        "# log; `claims scores . --write` writes scores.yaml.",
    ]
    if kind == "challenge":
        notes.append(
            "# A challenge attempt's freeze-cases.jsonl is the run's, and its trials' results are"
            " the operator's scores (docs/challenge-runs.md)."
        )
    if market.adversarial_budget == "serious":
        notes.append(
            "# Instead of red_teams you may report a bounty or a generator"
            " (docs/filing-an-attempt.md)."
        )
    header = _header(market, rules, schema, "attempt.yaml")
    return ("\n".join([*header, *notes, *_lines(data)]) + "\n").encode("utf-8")


@dataclass(frozen=True)
class Progress:
    """How far an attempt folder has come, for `claims init`'s "next:" line."""

    folder: str  # the attempt folder, inside the registry
    freeze_left: bool  # freeze.yaml still holds a FILL-IN
    cases: bool  # freeze-cases.jsonl is there
    base: str | None  # the base branch read, None without git history
    freeze_on_base: bool  # freeze.yaml is on the base branch: the freeze is merged
    run_on_base: bool  # attempt.yaml is on the base branch: the run is merged
    trials: bool  # trials.jsonl is there
    raw_log_left: bool  # raw_log still holds a FILL-IN (`claims pin-log` writes it)
    attempt_left: bool  # another FILL-IN is left in attempt.yaml
    scores: bool  # scores.yaml is there


def next_step(progress: Progress) -> str:
    """What to do next, from where the folder stands: the freeze, the run, or the checks."""
    folder, base = progress.folder, progress.base or "main"
    if progress.run_on_base:
        return (
            f"next: the run is on {base}; `claims explain {folder}` says what stands between"
            " the attempt and qualifying (the human checks)"
        )
    if not progress.freeze_on_base:
        steps = []
        if not progress.cases:
            steps.append(f"write freeze-cases.jsonl, then `claims hash-cases {folder} --write`")
        if progress.freeze_left:
            steps.append("replace every FILL-IN in freeze.yaml")
        steps.append(
            "file freeze.yaml and freeze-cases.jsonl (only) in the freeze pull request, and"
            f" have it merged to {base} before any trial starts"
        )
        return f"next: {'; '.join(steps)}"
    steps = []
    if not progress.trials:
        steps.append("run the trials into trials.jsonl")
    if progress.raw_log_left:
        steps.append(f"`claims pin-log {folder} --log FILE --url URL`")
    if progress.attempt_left:
        steps.append("replace every FILL-IN left in attempt.yaml")
    if not progress.scores:
        steps.append(f"`claims scores {folder} --write`")
    steps.append(
        f"`claims verify {folder} --base-ref {base}`, then file attempt.yaml with the run's"
        " files in the run pull request"
    )
    return f"next: the freeze is on {base}: {'; '.join(steps)}"
