"""A freeze filed alone (a freeze pull request, before its run exists), and the placeholder
commit a freeze stub carries.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from bot.rules.evidence.cases import check_cases
from bot.rules.evidence.models import Case, Freeze
from bot.rules.evidence.names import check_names
from bot.rules.evidence.placeholders import check_placeholders
from bot.rules.judge.inputs import AttemptFacts, AttemptFiles
from bot.rules.judge.location import SLUG
from bot.rules.verdict import AttemptVerdict, Counts
from bot.vocab.findings import Code, Finding, Severity


def judge_freeze_only(
    files: AttemptFiles, facts: AttemptFacts, findings: list[Finding]
) -> AttemptVerdict:
    """A freeze pull request, before its run exists: the freeze, its location and market."""
    parts = PurePosixPath(files.folder).parts
    number = files.folder_market if len(parts) == 4 else None
    if number is None or parts[0] != "attempts" or not all(map(SLUG.match, parts[2:])):
        findings.append(
            Finding(
                Code.ATTEMPT_LOCATION,
                f"the folder is {files.folder}/, expected"
                " attempts/market-NN/<submitter>/<attempt>/ with slugs of 3-64 lower-case"
                " letters, digits and hyphens",
                files.folder,
            )
        )
    findings += facts.market_problems
    cases: dict[str, Case] = {}
    if files.case_records is not None:
        cases, problems = check_cases(files.case_records, files.path("freeze-cases.jsonl"))
        findings += problems
    findings += check_names(files.published)
    findings += check_placeholders(files.published, files.problems)
    findings += check_placeholder_commit(files.freeze)
    findings.append(
        Finding(
            Code.FREEZE_ONLY,
            "only the freeze is filed: attempt.yaml, trials.jsonl and raw-log/ come in a later"
            " pull request, after this freeze is merged",
            files.folder,
            severity=Severity.WARNING,
        )
    )
    return AttemptVerdict(
        attempt=files.folder,
        market=number,
        kind=None,
        findings=tuple(findings),
        digest=files.digest,
        counts=Counts(files=len(files.entries), cases=len(cases)),
    )


def check_placeholder_commit(freeze: Freeze | None) -> list[Finding]:
    """1. A freeze stub's all-zero code_commit names no code: it must be replaced."""
    if freeze is None or set(freeze.code_commit) != {"0"}:
        return []
    message = (
        f"code_commit: {freeze.code_commit} is the placeholder `claims adapt` writes when the"
        " log names no full commit; replace it with the full commit of the code that ran"
        " the evaluation before the freeze is filed"
    )
    return [Finding(Code.SCHEMA, message, freeze.path, freeze.code_commit_line)]
