"""The `/judge` responder (docs/spec.md §8, §10): maintainers record human checks from a PR comment.

`respond` takes one `issue_comment` event and answers it through a `GitHubPort`:

1. Ignore what is not for it: a comment by a bot (the bot's own replies, so it never answers
   itself), an edit or deletion, a comment on a plain issue, a comment with no command.
2. `/help` lists the commands; an unknown `/word` gets a pointer to `/help` (anyone).
3. `/judge` is honoured only from users whose role is admin or maintain (asked of the API,
   once, before anything else is read); anyone else gets a polite reply naming who may judge.
4. For a maintainer: the PR's one attempt folder and its current evidence digest are read from
   the PR's head commit in the local git repository (`AttemptReader`; the judge workflow
   checks out the default branch and fetches the PR head's objects, nothing of the PR is
   checked out or run). That digest must be one the bot's latest verdict comment before the
   /judge comment showed (comment ids grow with time): the maintainer judged what that
   verdict showed, not evidence pushed after it. Every check id must be one the attempt needs
   (shared rules, its market and kind). A comment with any bad line records nothing.
5. judgments.yaml is merged (other checks kept, judged ones replaced: verdict, by, at, note,
   evidence_digest), validated by schemas/judgments.schema.json, written with
   `bot.edges.dump.dump_yaml` as one commit through the contents API on the default branch, always:
   verify reads judgments from the base branch only (a PR's own judgments.yaml never counts,
   and is `maintainer-file`), so a commit on a same-repository PR's branch would neither count
   nor leave the PR green (docs/spec-notes.md). A 409/422 (the branch moved: another /judge
   or a merge landed first) is retried after reading the file again, up to `PUT_TRIES` tries
   in all: /judge runs are not queued (judge.yml gives each comment its own concurrency
   group, so no comment can cancel another's run), the contents API's blob sha orders them.
6. Reply with what was recorded, then re-post the verdict (`Reposter`: the CLI starts the
   verify workflow for the PR, which reruns adapters in its sandbox job and posts), then start
   the site's build (`PAGES_WORKFLOW`, a `workflow_dispatch` on the default branch): the commit
   was made with the job's GITHUB_TOKEN, and GitHub starts no `push` workflow for a push made
   with it (a dispatch is the exception), so without this the public site kept showing the
   pre-judgment statuses until some other push to the default branch.

Replies carry untrusted text only inside code spans (`commands.code_span`); the only @mention
is the commenter's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.edges.dump import dump_yaml
from bot.edges.github.port import MAINTAINER_ROLES, GitHubError, GitHubPort, PullRequestInfo
from bot.edges.load.yaml_ import parse_yaml
from bot.faces.github.commands import (
    COMMANDS,
    JudgeCommand,
    ParsedComment,
    code_span,
    parse_comment,
)
from bot.faces.github.events import IssueCommentEvent
from bot.faces.github.publish import shown_digests
from bot.rules.evidence.schema import validate
from bot.vocab.config import Limits
from bot.vocab.errors import ClaimsError
from bot.vocab.timestamps import format_timestamp

__all__ = [
    "PAGES_WORKFLOW",
    "PUT_TRIES",
    "AttemptAtHead",
    "AttemptReader",
    "Outcome",
    "Reposter",
    "git_attempt_reader",
    "merge_judgments",
    "render_help",
    "respond",
    "sanitise_reply",
]

SCHEMA_URL = "../../../../schemas/judgments.schema.json"  # as the demo's files name it
_BRANCH_MOVED = frozenset({409, 422})  # contents API: the file's sha is stale
# Tries of the judgments.yaml commit when the branch moved under it (concurrent /judge runs on
# one attempt, merges): each try reads the file again and merges into what is there.
PUT_TRIES = 5
# The site's workflow (.github/workflows/pages.yml), started after a /judge commit (step 6).
PAGES_WORKFLOW = "pages.yml"
# Unknown command words a reply names (a comment of 65,536 characters holds thousands, and
# GitHub refuses a reply over 65,536 characters).
_MAX_UNKNOWN_SHOWN = 10


@dataclass(frozen=True)
class AttemptAtHead:
    """What the responder needs of the PR's head commit: the attempt folders the PR changes,
    the one folder's evidence digest, and the checks it needs."""

    folders: tuple[str, ...]
    digest: str = ""
    required: tuple[str, ...] = ()  # the check ids this attempt needs
    problem: str = ""  # why the folder cannot be judged ("" when it can)


# Reads the PR's head (from git objects) for the responder; raises ClaimsError when it cannot.
AttemptReader = Callable[[PullRequestInfo], AttemptAtHead]
# Re-posts the PR's verdict (verify at its head, then publish); bot/faces/github/publish.py's.
Reposter = Callable[[PullRequestInfo], None]


@dataclass(frozen=True)
class Outcome:
    """What `respond` did: the reply posted, the file written, or why it did nothing."""

    ignored: str = ""  # why the comment got no answer ("" when it was answered)
    reply: str = ""
    path: str = ""  # judgments.yaml written
    content: bytes = b""
    branch: str = ""
    commit: str = ""
    reposted: bool = False
    site_rebuilt: bool = False  # PAGES_WORKFLOW was started on the branch committed to


def render_help() -> str:
    """The /help reply, built from `commands.COMMANDS`."""
    lines = ["Commands this bot answers (one per line of a comment):", ""]
    for spec in COMMANDS:
        lines.append(f"- `{spec.usage}`: {spec.description}. Who: {spec.who}.")
        lines.append(f"  Example: `{spec.example}`")
    lines += [
        "",
        "Commands inside code blocks or quotes are not run.",
    ]
    return "\n".join(lines)


_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_TAG = re.compile(r"[<>]")


def sanitise_reply(body: str, commenter: str) -> str:
    """`body` with every @mention but the commenter's neutralised and no HTML, outside code
    spans (inside them GitHub renders neither). Defence in depth: the replies put untrusted
    text only in code spans."""
    parts = body.split("`")
    for index in range(0, len(parts), 2):  # even parts are outside code spans
        text = parts[index].replace(f"@{commenter}", "\0")
        text = _MENTION.sub("@\N{WORD JOINER}", text)
        text = _TAG.sub(lambda m: "&lt;" if m.group(0) == "<" else "&gt;", text)
        parts[index] = text.replace("\0", f"@{commenter}")
    return "`".join(parts)


def merge_judgments(
    existing: bytes | None,
    path: str,
    commands: Sequence[JudgeCommand],
    by: str,
    at: datetime,
    digest: str,
) -> bytes:
    """judgments.yaml with `commands` recorded: other checks kept as they are, judged ones
    replaced. Raises `ClaimsError` when the existing file is not a valid judgments.yaml (a
    maintainer must fix it; overwriting would lose their records) or the result is invalid."""
    checks: dict[str, Any] = {}
    if existing is not None:
        document, problems = parse_yaml(existing, path, Limits())
        if document is not None:
            problems = validate("judgments", document.data, path, document.lines)
        if problems or document is None or not isinstance(document.data, dict):
            details = "; ".join(f"{f.location()}: {f.message}" for f in problems[:3])
            raise ClaimsError(
                f"{path} on the target branch is not valid: {details}",
                "a maintainer must fix it before /judge can add to it",
            )
        checks = dict(document.data["checks"])
    for command in commands:
        entry: dict[str, Any] = {
            "verdict": command.verdict,
            "by": by,
            "at": format_timestamp(at),
            "evidence_digest": digest,
        }
        if command.note:
            entry["note"] = command.note
        checks[command.check] = entry
    data = {"checks": checks}
    problems = validate("judgments", data, path)
    if problems:  # pragma: no cover - the parser and the digest make valid entries
        raise ClaimsError(f"the judgments to write are invalid: {problems[0].message}")
    return dump_yaml(data, SCHEMA_URL)


def respond(
    port: GitHubPort,
    event: IssueCommentEvent,
    read_attempt: AttemptReader,
    repost: Reposter,
    now: datetime,
    require_shown: bool = True,
) -> Outcome:
    """Answer one issue_comment event (module docstring, steps 1-6). Raises `GitHubError`
    when GitHub fails, `ClaimsError` when the PR's head cannot be read.

    `require_shown`: record only evidence whose digest the bot's latest verdict comment before
    the /judge comment showed (False only for a dry run without a token, which cannot read
    comments)."""
    # 1. Not for the responder.
    if event.user_type == "Bot":
        return Outcome(ignored=f"a comment by the bot {event.user_login}")
    if event.action != "created":
        return Outcome(ignored=f"a comment {event.action}, not created")
    if not event.is_pull_request:
        return Outcome(ignored=f"#{event.issue_number} is an issue, not a pull request")
    parsed = parse_comment(event.body)
    if not parsed.has_commands:
        return Outcome(ignored="no command in the comment")
    # 2.-3.
    sections: list[str] = []
    outcome = Outcome()
    if parsed.wants_judging:
        role = port.role(event.user_login)
        if role not in MAINTAINER_ROLES:
            sections.append(
                f"Thanks for looking, @{event.user_login}. Only users with the admin or"
                f" maintain role on {event.repository} may record human checks with"
                " `/judge`, so nothing was recorded. A maintainer will judge this attempt."
            )
        else:
            outcome = _judge(port, event, parsed, read_attempt, now, require_shown)
            sections.append(outcome.reply)
    if parsed.unknown:
        shown = parsed.unknown[:_MAX_UNKNOWN_SHOWN]
        words = ", ".join(code_span(f"/{word}", 40) for word in shown)
        more = len(parsed.unknown) - len(shown)
        words += f" and {more} more" if more else ""
        sections.append(f"Unknown command {words}: see `/help` for the commands.")
    if parsed.help:
        sections.append(render_help())
    body = sanitise_reply("\n\n".join(sections), event.user_login)
    port.create_comment(event.issue_number, body)
    reposted = False
    if outcome.commit:
        # 6. The verdict again, now that the judgments changed; then the site, whose statuses
        # read judgments.yaml (a GITHUB_TOKEN commit starts no push workflow of its own).
        repost(port.pull_request(event.issue_number))
        reposted = True
        port.dispatch_workflow(PAGES_WORKFLOW, outcome.branch, {})
    return Outcome(
        reply=body,
        path=outcome.path,
        content=outcome.content,
        branch=outcome.branch,
        commit=outcome.commit,
        reposted=reposted,
        site_rebuilt=reposted,
    )


def _refusal(event: IssueCommentEvent, reason: str) -> Outcome:
    return Outcome(reply=f"@{event.user_login}: nothing was recorded: {reason}")


def _judge(
    port: GitHubPort,
    event: IssueCommentEvent,
    parsed: ParsedComment,
    read_attempt: AttemptReader,
    now: datetime,
    require_shown: bool,
) -> Outcome:
    """4.-5. for a maintainer's /judge lines; the reply says what was recorded or why not."""
    if parsed.problems:
        listed = "\n".join(f"- {problem}" for problem in parsed.problems)
        return _refusal(event, f"some /judge lines do not parse:\n{listed}")
    pr = port.pull_request(event.issue_number)
    if pr.state != "open":
        return _refusal(
            event,
            "the pull request is closed; record judgments of a merged attempt by editing its"
            " judgments.yaml on the default branch",
        )
    if pr.base_branch != event.default_branch:
        return _refusal(
            event,
            f"the pull request targets {code_span(pr.base_branch, 100)}, not the default"
            f" branch {code_span(event.default_branch, 100)}",
        )
    # 4. The attempt at the PR's head, from git objects.
    attempt = read_attempt(pr)
    if len(attempt.folders) != 1:
        found = ", ".join(code_span(f, 120) for f in attempt.folders) or "none"
        return _refusal(
            event,
            f"/judge needs a pull request that files exactly one attempt folder (found {found})",
        )
    folder = attempt.folders[0]
    if attempt.problem:
        return _refusal(event, f"{code_span(folder, 120)}: {attempt.problem}")
    # The evidence judged must be what the bot's verdict showed before the comment: a filer
    # pushing other evidence right after a /judge comment must not get the judgment.
    if require_shown and attempt.digest not in shown_digests(
        port.comments(pr.number), event.comment_id
    ):
        return _refusal(
            event,
            f"the evidence at the pull request's head (digest `{attempt.digest}`) is not what"
            " the bot's latest verdict before your comment showed: it was pushed after that"
            " verdict, or its verdict is not posted yet. Judge again once the verdict for"
            " the current head is posted.",
        )
    unknown = [c.check for c in parsed.judgments if c.check not in attempt.required]
    if unknown:
        needed = ", ".join(f"`{check}`" for check in attempt.required)
        return _refusal(
            event,
            f"{', '.join(code_span(c, 64) for c in unknown)} is not a check this attempt"
            f" needs; its checks: {needed}",
        )
    # 5. Write, retrying (reading again) while the branch moved under us.
    path = f"{folder}/judgments.yaml"
    branch = event.default_branch
    checks = ", ".join(c.check for c in parsed.judgments)
    message = f"/judge by {event.user_login} on #{pr.number}: {folder} ({checks})"
    for attempt_number in range(1, PUT_TRIES + 1):
        existing = port.file(path, branch)
        content = merge_judgments(
            existing.content if existing else None,
            path,
            parsed.judgments,
            event.user_login,
            now,
            attempt.digest,
        )
        try:
            commit = port.put_file(
                path, content, message, branch, existing.sha if existing else None
            )
            break
        except GitHubError as error:
            if error.status not in _BRANCH_MOVED or attempt_number == PUT_TRIES:
                raise
    rows = "\n".join(
        f"| `{c.check}` | {c.verdict} | {code_span(c.note, 300) if c.note else ''} |"
        for c in parsed.judgments
    )
    reply = (
        f"@{event.user_login} recorded {len(parsed.judgments)} judgment(s) for"
        f" {code_span(folder, 120)} in commit `{commit[:12]}` on {code_span(branch, 100)},"
        f" bound to evidence digest `{attempt.digest}`:\n\n"
        f"| check | verdict | note |\n|---|---|---|\n{rows}\n\n"
        "A change to the evidence after this makes these judgments stale. The verdict is"
        " being re-posted."
    )
    return Outcome(reply=reply, path=path, content=content, branch=branch, commit=commit)


def git_attempt_reader(root: Path, base_ref: str) -> AttemptReader:
    """An `AttemptReader` over the local repository at `root`: the PR's head commit must be
    there (the judge workflow fetches `refs/pull/N/head`); its attempt folders are those it
    changes against `base_ref` (the default branch), read from git objects as data, the way
    `claims verify --base-ref ... --head ...` reads them, so the digest is the one verify
    prints."""

    def read(pr: PullRequestInfo) -> AttemptAtHead:
        from bot.app.api import open_workspace
        from bot.app.attempt_read import read_attempt
        from bot.rules.qualification import required_checks
        from bot.rules.review import changed_attempt_folders

        try:
            workspace = open_workspace(root, base_ref, pr.head_sha)
        except ClaimsError as error:
            raise ClaimsError(
                error.message,
                f"fetch the pull request's head first: git fetch origin refs/pull/{pr.number}/head",
            ) from None
        with workspace:
            registry = workspace.registry
            folders = tuple(changed_attempt_folders(workspace.changes or ()))
            if len(folders) != 1:
                return AttemptAtHead(folders)
            folder = folders[0]
            entry = registry.tree.entry(folder)
            if entry is None or entry.kind != "folder":
                return AttemptAtHead(folders, problem="not a folder at the pull request's head")
            files = read_attempt(registry, folder)
            if not files.scan_complete:
                return AttemptAtHead(folders, problem="the folder could not be read in full")
            rules = registry.rules
            every = (
                *rules.checks_all,
                *rules.checks_wrapped,
                *rules.checks_serious,
                *rules.checks_own,
            )
            required: tuple[str, ...] = tuple(dict.fromkeys(every))
            # The market the folder's path names (attempt.yaml is the filer's to write).
            number = files.folder_market
            market = registry.market(number)[0] if number is not None else None
            if market is not None and files.attempt is not None:
                required = required_checks(rules, market, files.attempt.kind)
            return AttemptAtHead(folders, files.digest, required)

    return read
