"""What the bot posts on a pull request for a verify report, and posting it over a
`GitHubPort`.

`build_publication` is pure: from a `VerifyReport` (read back with `from_json`, so checked) it
renders one check run per attempt (named `registry: #<PR> <attempt folder>`: a unique name,
since a `GITHUB_TOKEN` check run may land in any check suite of the commit, and the PR's own,
since check runs belong to a commit that other PRs may share), one per challenge run the report
holds (`registry: #<PR> <run folder>`, its findings as annotations, failing when it has an
error), one for the pull request itself (what it changes that it may not, any invalid attempt
or challenge run, and registry problems), the sticky comment, the labels and the job
summary. `publish` posts them: each check run as one POST with the first 50
annotations, a PATCH per further 50 (GitHub takes at most 50 a request; title and summary go
with every call) and a last PATCH with the conclusion; then the comment; then the labels.

One verdict per commit: the pull request's run has the fixed name branch protection requires
(`PULL_REQUEST_RUN`), and a commit holds one conclusion per name. Anyone can open a PR on
someone else's commit; its verdict overwrote the first PR's required check (red for an honest
PR, or green for a PR whose own verdict is red). So while another open pull request (from any
fork, into the same base branch) has the same head commit (`_on_head`): a PR filing under a
slug its author does not own is closed instead of posting under that name (the others are
verified again); else, when the account GitHub links the commit's author to opened exactly one
of them, every other one is closed (by its own run and by that one's); else every PR's check
fails on the commit, naming the others (`shared_head_run`), until only one is left (a new push
authored by the filer's account, or a maintainer closes the others).

The sticky comment opens with a header only `build_publication` writes: `MARKER` as the first
line exactly, the verdict key (a digest of the evidence, statuses and outcomes) as the second,
then one line per evidence digest shown. A comment is a verdict comment only when the bot
(`VERDICT_AUTHOR`, not any other app's bot user) posted it and its header parses
(`read_verdict_header`): a marker anywhere else in a comment (a `/judge` reply quoting a filer's
folder name, a person's paste) is not a verdict, and digests are read from the header lines
only. The latest verdict comment is edited in place while its key is the
same; when the verdict changes a new comment is made, so the history of verdicts stays on the
pull request. All report text goes through
`report.markdown` (escaped: no markup, HTML or @mentions from filer-controlled text).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from bot.app.api import VerifyReport
from bot.app.report_cap import cap_findings, count_findings
from bot.edges.github.port import Annotation, CheckRunRef, CommentRef, GitHubPort, PullRequestInfo
from bot.faces.report.markdown import render_challenge_run, render_markdown
from bot.faces.report.text import printable
from bot.rules.verdict import AttemptVerdict
from bot.vocab.errors import ClaimsError
from bot.vocab.findings import Code, Finding, Severity

if TYPE_CHECKING:
    from bot.rules.challenge.judge import RunVerdict

__all__ = [
    "BATCH",
    "MARKER",
    "MAX_BODY",
    "MAX_STEP_SUMMARY",
    "PULL_REQUEST_RUN",
    "VERDICT_AUTHOR",
    "CheckRunPlan",
    "Posted",
    "Publication",
    "VerdictHeader",
    "append_step_summary",
    "build_publication",
    "check_url",
    "publish",
    "read_verdict_header",
    "render_publication",
    "shared_head_run",
    "shown_digests",
    "verdict_key_of",
]

MARKER = "<!-- claims-bot:verdict -->"
# Who posts the verdict comments: verify.yml's publish job posts with `github.token`, as GitHub
# Actions' bot user. Another app's bot user (any GitHub App on the repository) is no verdict.
VERDICT_AUTHOR = "github-actions[bot]"
# The verdict comment's second line, exactly.
_KEY = re.compile(r"<!-- claims-bot:verdict-key ([0-9a-f]{16}) -->")
# Then one line per attempt: the evidence digest the verdict was for (/judge binds a judgment
# only to evidence a verdict comment showed before the /judge comment).
_EVIDENCE = re.compile(r"<!-- claims-bot:evidence ([0-9a-f]{64}) -->")
# GitHub refuses a comment over 65,536 characters; a check run's summary over 65,535.
MAX_BODY = 60_000
# GitHub drops a step's job summary over 1 MiB ("supports content up to a size of 1024k").
MAX_STEP_SUMMARY = 1_000_000
BATCH = 50  # annotations per check-run request (docs.github.com/rest/checks/runs)
PULL_REQUEST_RUN = "registry: pull request"
LABEL_FAMILIES = ("evidence:", "verdict:")
_MAX_MESSAGE = 4_000  # an annotation's message (GitHub allows 64 KB)
_MAX_NAME = 200
_URL = re.compile(r"https://[A-Za-z0-9.-]+(:\d+)?(/[A-Za-z0-9._~%/+:=?&#@!$,;*-]*)?")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")

Conclusion = Literal["success", "failure", "neutral"]
T = TypeVar("T")


@dataclass(frozen=True)
class CheckRunPlan:
    name: str
    title: str
    summary: str
    conclusion: Conclusion
    annotations: tuple[Annotation, ...]


@dataclass(frozen=True)
class Publication:
    check_runs: tuple[CheckRunPlan, ...]
    comment: str
    verdict_key: str
    labels: frozenset[str]
    step_summary: str
    # The PR files under a submitter slug its author does not own (`not-submitter`): on a head
    # commit another open PR has, it is closed instead of failing that PR's required check.
    unowned: bool = False


@dataclass(frozen=True, slots=True)
class VerdictHeader:
    """What a verdict comment's header says: its verdict key and the evidence digests shown."""

    key: str
    digests: frozenset[str]


def read_verdict_header(body: str) -> VerdictHeader | None:
    """The header `build_publication` writes, read by structure: the first line is `MARKER`
    exactly, the second the verdict key exactly, then the evidence lines, each exactly, up to
    the first other line. None when the body does not open so (it is no verdict comment)."""
    lines = body.replace("\r\n", "\n").split("\n")  # GitHub may store CRLF
    if len(lines) < 2 or lines[0] != MARKER:
        return None
    key = _KEY.fullmatch(lines[1])
    if key is None:
        return None
    digests = set()
    for line in lines[2:]:
        found = _EVIDENCE.fullmatch(line)
        if found is None:
            break
        digests.add(found.group(1))
    return VerdictHeader(key.group(1), frozenset(digests))


@dataclass(frozen=True)
class Posted:
    check_runs: tuple[CheckRunRef, ...]
    comment: CommentRef | None  # None: an existing comment was edited
    edited_comment: int | None
    labels_added: tuple[str, ...]
    labels_removed: tuple[str, ...]
    moved_to: str | None = None  # the PR's head moved here: no comment or labels were posted
    shared: frozenset[int] = frozenset()  # other open PRs with this head commit
    closed: bool = False  # the PR was closed: it was not the filer's, on a shared head
    others_closed: frozenset[int] = frozenset()  # closed by this run: the commit's author's PR


def check_url(text: str) -> str:
    """`text` if it is a plain https URL that is safe inside a Markdown link; raises
    `ClaimsError` otherwise."""
    if not _URL.fullmatch(text):
        raise ClaimsError(f"{text!r} is not an https URL")
    return text


def _plain(text: str, limit: int) -> str:
    """Plain text (check-run names, annotation messages): printable, no control characters."""
    text = _CONTROL.sub(" ", printable(text))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verdict_key_of(report: VerifyReport) -> str:
    """A digest of each attempt's evidence digest, evidence, status and outcome: the comment
    is edited while it stays the same, and a new one is posted when it changes (so a comment's
    evidence markers never change after it is posted)."""
    verdicts = [[v.attempt, v.digest, v.evidence, v.status, v.outcome] for v in report.attempts]
    text = json.dumps([report.evidence, verdicts], ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _annotations(findings: Sequence[Finding], level: str | None = None) -> list[Annotation]:
    """An annotation per finding that names a file (line 1 when it names no line), of the
    findings as the JSON report lists them: capped per code and file (`bot.app.report_cap`)."""
    out = []
    for finding in cap_findings(findings):
        if finding.file is None:
            continue  # shown in the summary only
        line = finding.line or 1
        chosen = level or ("failure" if finding.severity is Severity.ERROR else "warning")
        out.append(
            Annotation(
                path=_plain(finding.file, 1_000),
                start_line=line,
                end_line=line,
                level="failure" if chosen == "failure" else "warning",
                message=_plain(finding.message, _MAX_MESSAGE),
                title=finding.code.value,
            )
        )
    return out


def _attempt_run(verdict: AttemptVerdict, footer: str, pr: int | None) -> CheckRunPlan:
    errors = [f for f in [*verdict.findings, *verdict.pr_problems] if f.severity is Severity.ERROR]
    conclusion: Conclusion
    if verdict.evidence == "invalid":
        conclusion, title = "failure", f"evidence invalid: {count_findings(errors)} problem(s)"
    elif verdict.status == "qualifying":
        conclusion, title = "success", f"qualifying, bars {verdict.outcome}"
    elif verdict.status == "not-qualifying":
        reasons = len(verdict.qualification)
        conclusion, title = "neutral", f"evidence valid, not qualifying: {reasons} reason(s)"
    else:
        conclusion, title = "neutral", "evidence valid, pending judgment"
    alone = VerifyReport((verdict,), pr_problems=verdict.pr_problems)
    annotations = [
        *_annotations(verdict.findings),
        *_annotations(verdict.pr_problems),
        *_annotations(verdict.qualification, "warning"),
    ]
    return CheckRunPlan(
        _plain(f"registry: {f'#{pr} ' if pr else ''}{verdict.attempt}", _MAX_NAME),
        title,
        render_markdown(alone) + footer,
        conclusion,
        tuple(annotations),
    )


def _challenge_run(run: RunVerdict, footer: str, pr: int | None) -> CheckRunPlan:
    """A challenge run's own check, named after the pull request and the run's folder as an
    attempt's is: failure when any finding is an error, else success (its warnings and
    notices shown); each finding that names a file is an annotation."""
    errors = [f for f in run.findings if f.severity is Severity.ERROR]
    conclusion: Conclusion
    if errors:
        conclusion = "failure"
        title = f"challenge run invalid: {count_findings(errors)} problem(s)"
    else:
        conclusion = "success"
        title = f"challenge run valid: {run.cases} case(s), {len(run.scored)} attempt(s) scored"
    pointer = "\n… cut here: the summary is capped; the JSON report has everything.\n"
    summary = _capped(render_challenge_run(run), MAX_BODY - len(footer), pointer) + footer
    return CheckRunPlan(
        _plain(f"registry: {f'#{pr} ' if pr else ''}{run.folder}", _MAX_NAME),
        title,
        summary,
        conclusion,
        tuple(_annotations(run.findings)),
    )


def _pull_request_run(report: VerifyReport, footer: str) -> CheckRunPlan:
    """The pull request's own check, under one fixed name so branch protection can require
    it: failure while the PR changes what it may not or any attempt's or challenge run's
    evidence is invalid; neutral for the registry's problems (a maintainer's to fix); else
    success."""
    pr_errors = [f for f in report.pr_problems if f.severity is Severity.ERROR]
    registry_errors = [f for f in report.registry_problems if f.severity is Severity.ERROR]
    invalid = [v for v in report.attempts if v.evidence == "invalid"]
    invalid_runs = [run for run in report.challenge_runs if run.evidence == "invalid"]
    conclusion: Conclusion
    if pr_errors:
        conclusion, title = "failure", f"changes {count_findings(pr_errors)} thing(s) it may not"
    elif invalid or invalid_runs:
        where = [
            *([f"{len(invalid)} attempt(s)"] if invalid else []),
            *([f"{len(invalid_runs)} challenge run(s)"] if invalid_runs else []),
        ]
        conclusion, title = "failure", f"evidence invalid in {' and '.join(where)}"
    elif registry_errors:
        conclusion, title = "neutral", "the registry has problems a maintainer must fix"
    else:
        conclusion, title = "success", "changes only what a pull request may"
    # render_markdown's sections after its attempts table: the PR's and the registry's problems
    sections = render_markdown(
        VerifyReport((), report.registry_problems, report.pr_problems)
    ).split("\n#### ", 1)
    summary = f"### {title}\n" + (f"\n#### {sections[1]}" if len(sections) == 2 else "")
    annotations = [
        *_annotations(report.pr_problems),
        *_annotations(report.registry_problems, "warning"),
    ]
    return CheckRunPlan(PULL_REQUEST_RUN, title, summary + footer, conclusion, tuple(annotations))


def _links(head_sha: str, details_url: str | None, attestation_url: str | None) -> str:
    links = [f"head `{head_sha[:12]}`"]
    if details_url:
        links.append(f"[full report]({check_url(details_url)})")
    if attestation_url:
        links.append(f"[attestation of the report]({check_url(attestation_url)})")
    return " · ".join(links)


def _capped(markdown: str, room: int, pointer: str) -> str:
    if len(markdown) <= room:
        return markdown
    cut = markdown[: room - len(pointer)]
    return cut[: cut.rfind("\n") + 1] + pointer


def build_publication(
    report: VerifyReport,
    head_sha: str,
    details_url: str | None = None,
    attestation_url: str | None = None,
    pr: int | None = None,
) -> Publication:
    """Everything to post for `report` on pull request `pr` (named in the attempts' check
    runs; None only for tests of the text) whose head is `head_sha`.

    Raises `ClaimsError` for a details or attestation URL that is not a plain https URL.
    """
    links = _links(head_sha, details_url, attestation_url)
    footer = f"\n---\n{links}\n"
    runs = (
        *(_attempt_run(v, footer, pr) for v in report.attempts),
        *(_challenge_run(run, footer, pr) for run in report.challenge_runs),
        _pull_request_run(report, footer),
    )
    key = verdict_key_of(report)
    shown = sorted({v.digest for v in report.attempts if v.digest and _HEX64.fullmatch(v.digest)})
    evidence = "".join(f"<!-- claims-bot:evidence {digest} -->\n" for digest in shown)
    head = (
        f"{MARKER}\n<!-- claims-bot:verdict-key {key} -->\n{evidence}**Registry bot** · {links}\n\n"
    )
    where = "the check runs of this commit" + (
        f" ([full report]({details_url}))" if details_url else ""
    )
    pointer = f"\n… cut here: the comment is capped; everything is in {where}.\n"
    comment = head + _capped(render_markdown(report), MAX_BODY - len(head), pointer)
    labels = {f"evidence:{report.evidence}"} | {
        f"verdict:{v.status}" for v in report.attempts if v.status
    }
    summary = render_markdown(report) + footer
    unowned = any(
        f.code is Code.NOT_SUBMITTER and f.severity is Severity.ERROR for f in report.pr_problems
    )
    return Publication(runs, comment, key, frozenset(labels), summary, unowned)


def _post_check_run(port: GitHubPort, plan: CheckRunPlan, head_sha: str) -> CheckRunRef:
    batches = [plan.annotations[i : i + BATCH] for i in range(0, len(plan.annotations), BATCH)]
    first, rest = (batches[0], batches[1:]) if batches else ((), [])
    run = port.create_check_run(plan.name, head_sha, plan.title, plan.summary, first)
    for batch in rest:
        port.update_check_run(run.id, plan.title, plan.summary, batch)
    port.update_check_run(run.id, plan.title, plan.summary, conclusion=plan.conclusion)
    return run


def shown_digests(comments: Sequence[CommentRef], before: int) -> frozenset[str]:
    """The evidence digests the bot's latest verdict comment older than comment `before`
    showed in its header (none without one). Comment ids grow with time, and a verdict comment
    is edited only while its verdict key, which covers the digests, stays the same."""
    latest = _sticky([c for c in comments if c.id < before])
    return latest[1].digests if latest else frozenset()


def _sticky(comments: Sequence[CommentRef]) -> tuple[CommentRef, VerdictHeader] | None:
    """The latest verdict comment: posted by the bot, `VERDICT_AUTHOR` (a person's copy, or
    another app's comment, never counts) and opening with the verdict header (a bot's reply
    that merely holds the marker never counts)."""
    ours = [
        (c, header)
        for c in comments
        if c.author_type == "Bot"
        and c.author == VERDICT_AUTHOR
        and (header := read_verdict_header(c.body)) is not None
    ]
    return max(ours, key=lambda found: found[0].id) if ours else None


def shared_head_run(own: CheckRunPlan, others: Collection[int], why: str = "") -> CheckRunPlan:
    """The pull request's required check while `others` (open pull requests) have the same
    head commit and none can be told to be the filer's (`why`): failure, naming them, with
    this pull request's own verdict below."""
    listed = ", ".join(f"#{n}" for n in sorted(others))
    title = f"head commit shared with {listed}: no pull request on it passes"
    text = (
        f"### {title}\n\n{_shared_notice(others, why)}\n\n"
        f"This pull request's own verdict: **{own.conclusion}**, {own.title}.\n\n"
    )
    pointer = "\n… cut here: the summary is capped.\n"
    summary = text + _capped(own.summary, MAX_BODY - len(text), pointer)
    return CheckRunPlan(own.name, title, summary, "failure", own.annotations)


def _shared_notice(others: Collection[int], why: str = "") -> str:
    listed = ", ".join(f"#{n}" for n in sorted(others))
    because = f" ({why})" if why else ""
    return (
        f"**Another open pull request ({listed}) has this pull request's head commit.** Check"
        f" runs belong to a commit, and `{PULL_REQUEST_RUN}` (the required check) has one"
        " name, so while the bot cannot tell whose commit it is" + because + ", the check"
        " fails for every pull request on it. The pull request opened by the account GitHub"
        " links the commit's author to is the filer's, and the others are closed. To end it,"
        " commit with an email address of your GitHub account and push: set `git config"
        " user.email` to one of your account's verified addresses (or its"
        " `ID+login@users.noreply.github.com` address), then `git commit --amend --no-edit"
        " --reset-author` and push. Or a maintainer closes the pull request that is not the"
        " filer's and runs the `verify` workflow again for this one."
    )


def _author_notice(owner: int, login: str) -> str:
    """Why a pull request on a shared head is closed: the commit's author opened `owner`."""
    return (
        f"**Closed: this pull request's head commit is also the head of #{owner}, opened by"
        f" `{login}`, the account GitHub links the commit's author to; this pull request's"
        " author is not that account.** Check runs belong to a commit and"
        f" `{PULL_REQUEST_RUN}` (the required check) has one name, so its verdict would have"
        " replaced theirs. File on a commit of your own."
    )


def _closed_notice(closed: Collection[int], login: str) -> str:
    listed = ", ".join(f"#{n}" for n in sorted(closed))
    return (
        f"**Closed {listed}: each had this pull request's head commit, whose author GitHub links"
        f" to `{login}`, the account that opened this pull request.**"
    )


def _intruder_notice(others: Collection[int]) -> str:
    listed = ", ".join(f"#{n}" for n in sorted(others))
    return (
        f"**Closed: this pull request's head commit is also the head of {listed}, and it files"
        " under a submitter its author does not own (`not-submitter` below).** Check runs"
        f" belong to a commit and `{PULL_REQUEST_RUN}` (the required check) has one name, so"
        " its verdict would have replaced theirs. File under your own submitter slug, on a"
        " commit of your own."
    )


def _open_on_head(
    port: GitHubPort, number: int, head_sha: str
) -> tuple[PullRequestInfo | None, tuple[PullRequestInfo, ...]]:
    """Pull request `number` if it is open, and the other open pull requests whose head is
    `head_sha`, into the same base branch as `number` (into any branch when it is not open:
    fail closed). A PR into another branch gets no verdict and cannot be merged into this one
    through it; retargeted, it starts `check` again (`edited`), and its own run then answers
    for it."""
    open_pulls = port.open_pull_requests()
    own = next((pr for pr in open_pulls if pr.number == number), None)
    others = tuple(
        pr
        for pr in open_pulls
        if pr.head_sha == head_sha
        and pr.number != number
        and (own is None or pr.base_branch == own.base_branch)
    )
    return own, others


@dataclass(frozen=True)
class _OnHead:
    """What the other open pull requests on the head commit mean for this one."""

    shared: frozenset[int] = frozenset()  # the others left on the head
    yields: str = ""  # this PR is not the filer's: the notice it is closed with
    closing: frozenset[int] = frozenset()  # others to close: this PR is the commit author's
    why: str = ""  # why none of them can be told to be the filer's (`shared_head_run`)
    login: str = ""  # the account GitHub links the commit's author to


def _on_head(
    publication: Publication,
    number: int,
    head_sha: str,
    own: PullRequestInfo | None,
    others: Sequence[PullRequestInfo],
    commit_author: Callable[[], str | None],
    own_author: Callable[[], str],
) -> _OnHead:
    """The head commit is the filer's work, and no one can change its author without
    changing its sha. With other open PRs on it: a PR filing under a slug its author does not
    own yields; else, when the account GitHub links the commit's author to opened exactly
    one of them, that one is the filer's and every other yields (its own run closes it, and
    the filer's run closes it too, so one that never runs does not keep the filer red); else
    all of them fail, naming each other."""
    if not others:
        return _OnHead()
    numbers = frozenset(pr.number for pr in others)
    if publication.unowned:
        return _OnHead(numbers, yields=_intruder_notice(numbers))
    login = commit_author()
    if login is None:
        return _OnHead(numbers, why="GitHub links the commit's author to no account")
    authors = {number: own_author(), **{pr.number: pr.author for pr in others}}
    owners = sorted(n for n, author in authors.items() if author.casefold() == login.casefold())
    if len(owners) != 1:
        many = "several of them" if owners else "none of them"
        return _OnHead(numbers, why=f"the commit's author, `{login}`, opened {many}", login=login)
    if owners[0] != number:
        return _OnHead(numbers, yields=_author_notice(owners[0], login), login=login)
    if own is None or own.head_sha != head_sha:  # this PR left the head: it closes no other
        why = "the pull request of the commit's author is no longer open on it"
        return _OnHead(numbers, why=why, login=login)
    return _OnHead(closing=numbers, login=login)


def _close_intruders(
    port: GitHubPort, numbers: Collection[int], head_sha: str, owner: int, login: str
) -> frozenset[int]:
    """Close each of `numbers` still open on `head_sha`, saying why: the commit's author
    (`login`) opened `owner`. Returns those closed."""
    closed = set()
    for other in sorted(numbers):
        pr = port.pull_request(other)
        if pr.state != "open" or pr.head_sha != head_sha:
            continue  # it left the head meanwhile: no longer sharing it
        port.create_comment(other, _author_notice(owner, login))
        port.close_pull_request(other)
        closed.add(other)
    return frozenset(closed)


def _once(read: Callable[[], T]) -> Callable[[], T]:
    """`read`, called at most once."""
    memo: list[T] = []

    def get() -> T:
        if not memo:
            memo.append(read())
        return memo[0]

    return get


def _with_notice(comment: str, notice: str) -> str:
    """The sticky comment with `notice` after its header and byline (the header stays first)."""
    cut = comment.find("\n\n") + 2
    return comment[:cut] + notice + "\n\n" + comment[cut:] if cut > 1 else comment


def publish(
    port: GitHubPort,
    publication: Publication,
    number: int,
    head_sha: str,
    reverify: Callable[[int], None] | None = None,
) -> Posted:
    """Post `publication` on pull request `number`: check runs, the comment, the labels.

    The check runs belong to `head_sha` and are always posted on it; the pull request's run
    last. While another open pull request has the same head commit (read before it is posted,
    and again after: one opened meanwhile is weighed again, see `_on_head`):
    - a pull request filing under a submitter its author does not own (`publication.unowned`),
      or opened by another account than the one GitHub links the commit's author to while
      that account opened one of the others, gets no required check on the commit: it is
      closed with its comment saying why, and `reverify` is called for each of the others
      (their last verdict may be the failure below, posted while it was open);
    - the pull request opened by the commit's author closes the others, saying why, and
      posts its own verdict;
    - else (no linked author, or its account opened none or several of them) every one gets
      `shared_head_run`: the required check fails for all of them.
    The comment and labels belong to the pull request: they are posted only while its head is
    still `head_sha`, so a slower run for an older head never overwrites the verdict of a
    newer one (and a pull request whose head moved is not closed).

    Raises `GitHubError` when GitHub refuses or stays unreachable (see `gateway`)."""
    own_plans = [plan for plan in publication.check_runs if plan.name == PULL_REQUEST_RUN]
    runs = [
        _post_check_run(port, plan, head_sha)
        for plan in publication.check_runs
        if plan.name != PULL_REQUEST_RUN
    ]
    commit_author = _once(lambda: port.commit_author(head_sha))
    own, others = _open_on_head(port, number, head_sha)
    known = own.author if own else None
    own_author = _once(lambda: known if known is not None else port.pull_request(number).author)
    head = _on_head(publication, number, head_sha, own, others, commit_author, own_author)
    closed = _close_intruders(port, head.closing, head_sha, number, head.login)
    for plan in [] if head.yields else own_plans:
        first = shared_head_run(plan, head.shared, head.why) if head.shared else plan
        runs.append(_post_check_run(port, first, head_sha))
        own, later = _open_on_head(port, number, head_sha)
        if {pr.number for pr in later} - head.shared:  # opened (or reopened) meanwhile
            head = _on_head(publication, number, head_sha, own, later, commit_author, own_author)
            closed |= _close_intruders(port, head.closing, head_sha, number, head.login)
            # failing while shared (and closed below when it yields: the others re-post)
            again = shared_head_run(plan, head.shared, head.why) if head.shared else plan
            if again != first:
                runs.append(_post_check_run(port, again, head_sha))
    shared = head.shared
    moved_to = port.pull_request(number).head_sha
    if moved_to != head_sha:
        return Posted(
            tuple(runs), None, None, (), (), moved_to=moved_to, shared=shared, others_closed=closed
        )
    comment = publication.comment
    if head.yields:
        comment = _with_notice(comment, head.yields)
    elif shared:
        comment = _with_notice(comment, _shared_notice(shared, head.why))
    elif closed:
        comment = _with_notice(comment, _closed_notice(closed, head.login))
    latest = _sticky(port.comments(number))
    created, edited = None, None
    if latest is not None and latest[1].key == publication.verdict_key:
        port.edit_comment(latest[0].id, comment)
        edited = latest[0].id
    else:
        created = port.create_comment(number, comment)
    current = set(port.labels(number))
    added = tuple(sorted(publication.labels - current))
    port.add_labels(number, added)
    stale = sorted(name for name in current - publication.labels if name.startswith(LABEL_FAMILIES))
    for name in stale:
        port.remove_label(number, name)
    if head.yields:
        port.close_pull_request(number)
        for other in sorted(shared):
            if reverify is not None:
                reverify(other)
    return Posted(
        tuple(runs),
        created,
        edited,
        added,
        tuple(stale),
        shared=shared,
        closed=bool(head.yields),
        others_closed=closed,
    )


def render_publication(publication: Publication, repository: str, number: int) -> str:
    """What `publish` would post, for a run without a token."""
    lines = [f"would post on {repository or '(no repository)'} #{number}:"]
    for run in publication.check_runs:
        lines.append(
            f"  check run {run.name!r}: {run.conclusion}, {run.title!r},"
            f" {len(run.annotations)} annotation(s)"
        )
    families = ", ".join(f"{f}*" for f in LABEL_FAMILIES)
    lines.append(f"  labels: {', '.join(sorted(publication.labels))} (other {families} removed)")
    lines.append(
        f"  comment (verdict key {publication.verdict_key}, {len(publication.comment)} characters):"
    )
    return "\n".join(lines) + "\n" + publication.comment


def append_step_summary(path: Path, publication: Publication) -> None:
    """Append the job summary to $GITHUB_STEP_SUMMARY's file."""
    data = printable(publication.step_summary).encode("utf-8")[:MAX_STEP_SUMMARY]
    try:
        with path.open("ab") as out:  # a cut inside a character drops that character
            out.write(data.decode("utf-8", "ignore").encode("utf-8"))
    except OSError as error:
        raise ClaimsError(f"cannot write the job summary {path}: {error.strerror}") from None
