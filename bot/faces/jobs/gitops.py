"""What the scheduled job does to the registry's git repository, with GitPython: annotated
snapshot tags (never moved), a deterministic `git archive` of a tag with the resolution
records added, and commits of resolution records on the base branch, each pushed to `origin`
when the repository has one (errors raised, never a silent rejected push).

Push credentials: the checkout keeps none (`persist-credentials: false`). The job's token is
given to `Git` (from `CLAIMS_PUSH_TOKEN`) and reaches only the `git push` and `git ls-remote`
processes, as an `http.<server>/.extraheader` set through `GIT_CONFIG_COUNT`/`KEY_0`/`VALUE_0`
in their environment: never written to .git/config or any file, never in a command line
(which error messages and process listings show), never printed.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import io
import os
import tarfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import git

from bot.edges.history import read_tags
from bot.vocab.errors import ClaimsError

__all__ = ["BOT_EMAIL", "BOT_NAME", "PUSH_TRIES", "RECORD_SUBJECT", "REMOTE", "Git"]

# Who the job commits and tags as (GitHub's own Actions bot identity).
BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
REMOTE = "origin"
# The subject of every commit of a record (close_windows: "resolutions: market N resolved
# OUTCOME", "... reopened by a maintainer"): the only commits `Git.replay` moves.
RECORD_SUBJECT = "resolutions: market "
# How many pushes of the branch a run makes at most, replaying its records onto origin's branch
# between two (a merge may land while the job pushes).
PUSH_TRIES = 4


def _stderr(error: git.GitCommandError) -> str:
    return " ".join(str(error.stderr).split()).removeprefix("stderr: ").strip("'") or str(error)


class Git:
    """The registry's repository, as the job changes it; `branch` is the base branch."""

    def __init__(
        self,
        repo: git.Repo,
        branch: str,
        prefix: str = "",
        push_token: str | None = None,
        server_url: str = "https://github.com",
    ) -> None:
        self.repo = repo
        self.branch = branch
        self.prefix = prefix
        self._token = push_token or None
        self._server = server_url.rstrip("/")

    def auth_environment(self) -> dict[str, str]:
        """The environment of a process that talks to origin: the token as an HTTP header
        for the server's URLs (as actions/checkout sets it, but in no file); nothing without
        a token. Git reads GIT_CONFIG_* as configuration of that process only."""
        if self._token is None:
            return {"GIT_TERMINAL_PROMPT": "0"}
        basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
        return {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": f"http.{self._server}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
        }

    def _hide(self, text: str) -> str:
        """`text` with the token (and its header form) masked, should git ever echo it."""
        if self._token is None:
            return text
        basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
        return text.replace(basic, "***").replace(self._token, "***")

    def _environment(self, moment: datetime) -> dict[str, str]:
        stamp = f"{int(moment.timestamp())} +0000"
        return {
            "GIT_AUTHOR_NAME": BOT_NAME,
            "GIT_AUTHOR_EMAIL": BOT_EMAIL,
            "GIT_COMMITTER_NAME": BOT_NAME,
            "GIT_COMMITTER_EMAIL": BOT_EMAIL,
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,  # the tagger date of an annotated tag
        }

    @property
    def has_remote(self) -> bool:
        return any(remote.name == REMOTE for remote in self.repo.remotes)

    # -- tags ---------------------------------------------------------------------------------

    def check_tag_name(self, name: str) -> None:
        try:
            self.repo.git.check_ref_format(f"refs/tags/{name}")
        except git.GitCommandError:
            raise ClaimsError(f"{name!r} is not a valid tag name") from None

    def create_tag(self, name: str, commit: str, message: str, moment: datetime) -> None:
        """An annotated tag `name` on `commit`, its tagger date `moment`. An existing tag is
        never moved: if one exists (here, or made by a run that crashed) it must point at
        `commit` and be annotated, else this raises."""
        self.check_tag_name(name)
        existing = read_tags(self.repo).get(name)
        if existing is None:
            with self.repo.git.custom_environment(**self._environment(moment)):
                self.repo.create_tag(name, ref=commit, message=message)
            existing = read_tags(self.repo).get(name)
        if existing is None or existing.commit != commit or not existing.annotated:
            raise ClaimsError(
                f"{name} exists and is not an annotated tag of {commit[:12]}: the job never"
                " moves a tag",
                f"a maintainer must look: git show {name}",
            )

    def push_tag(self, name: str) -> None:
        """Push `name` to origin unless origin has it already (the same object); origin holding
        another object under that name is an error, never overwritten."""
        if not self.has_remote:
            return
        local = self.repo.git.rev_parse(f"refs/tags/{name}")
        remote = self.remote_ref(f"refs/tags/{name}")
        if remote == local:
            return
        if remote is not None:
            raise ClaimsError(
                f"{REMOTE} has {name} as {remote[:12]}, not {local[:12]}: the job never moves a"
                " tag",
                f"a maintainer must look: git ls-remote {REMOTE} refs/tags/{name}",
            )
        self._push(f"refs/tags/{name}:refs/tags/{name}")

    def remote_ref(self, ref: str) -> str | None:
        try:
            with self.repo.git.custom_environment(**self.auth_environment()):
                output = str(self.repo.git.ls_remote(REMOTE, ref))
        except git.GitCommandError as error:
            raise ClaimsError(f"cannot read {REMOTE}: {self._hide(_stderr(error))}") from None
        for line in output.splitlines():
            sha, _, name = line.partition("\t")
            if name == ref:
                return str(sha)
        return None

    def _push(self, refspec: str) -> None:
        try:
            with self.repo.git.custom_environment(**self.auth_environment()):
                self.repo.remote(REMOTE).push(refspec).raise_if_error()
        except git.GitCommandError as error:
            raise ClaimsError(
                f"git push {REMOTE} {refspec} failed: {self._hide(_stderr(error))}",
                "the job is safe to rerun: it pushes what is missing",
            ) from None

    # -- the archive --------------------------------------------------------------------------

    def archive(
        self,
        tag: str,
        extra: Mapping[str, bytes],
        target: Path,
        files: Mapping[str, Path] | None = None,
    ) -> Path:
        """`git archive` of `tag`'s tree (the registry's folder in it) as `TAG/...`, with the
        `extra` files (registry paths) added under the same prefix, then `files` (archive
        paths to files on disk, streamed: fetched raw logs run to a gigabyte), gzipped with
        no name and no time: the same tag and files give the same bytes. Returns `target`."""
        commit = self.repo.commit(f"refs/tags/{tag}")
        treeish = f"{commit.hexsha}:{self.prefix}" if self.prefix else commit.hexsha
        raw = self.repo.git.archive(
            "--format=tar", f"--prefix={tag}/", treeish, stdout_as_string=False
        )
        moment = int(commit.committed_date)

        def info(path: str, size: int) -> tarfile.TarInfo:
            member = tarfile.TarInfo(f"{tag}/{path}")
            member.size, member.mtime, member.mode = size, moment, 0o644
            member.uname = member.gname = "root"
            return member

        target.parent.mkdir(parents=True, exist_ok=True)
        added = {**extra, **dict.fromkeys(files or {}, b"")}
        with (
            target.open("wb") as stream,
            # The fastest level: zlib's best (9) tries up to 4,096 earlier matches a byte, and
            # a filer's log can be made of them (random ACGT: about 1 MB/s), so a few 1 GiB
            # pins would hold the close job past its timeout on every run; level 1 tries 4.
            gzip.GzipFile(
                filename="", mode="wb", fileobj=stream, mtime=0, compresslevel=1
            ) as zipped,
            tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as source,
            tarfile.open(fileobj=zipped, mode="w:", format=tarfile.PAX_FORMAT) as out,
        ):
            for member in source.getmembers():
                if member.name.removeprefix(f"{tag}/") in added:
                    continue  # replaced by the extra file
                data = source.extractfile(member) if member.isfile() else None
                out.addfile(member, data)
            for path, content in sorted(extra.items()):
                out.addfile(info(path, len(content)), io.BytesIO(content))
            for path, source_file in sorted((files or {}).items()):
                if path in extra:
                    continue
                with source_file.open("rb") as body:
                    size = os.fstat(body.fileno()).st_size
                    out.addfile(info(path, size), body)
        return target

    # -- commits ------------------------------------------------------------------------------

    def on_branch(self) -> None:
        """The working tree must have the base branch checked out (records are committed on
        it)."""
        try:
            head = self.repo.active_branch.name
        except TypeError:
            head = "a detached HEAD"
        if head != self.branch:
            raise ClaimsError(
                f"close-windows commits resolution records on {self.branch}, but the checkout"
                f" is on {head}",
                f"run it in a checkout of {self.branch} (git switch {self.branch})",
            )

    def committed(self, path: str, content: bytes) -> bool:
        """True when the branch's tip holds `path` (a registry path) with `content`."""
        full = f"{self.prefix}/{path}" if self.prefix else path
        try:
            blob = self.repo.commit(self.branch).tree / full
        except KeyError:
            return False
        data: bytes = blob.data_stream.read()
        return data == content

    def changes_of(self, path: str) -> list[tuple[str, str, str]]:
        """The first-parent commits of the branch that changed `path` (a registry path), newest
        first: (sha, committer email, subject); none when the branch has no commit."""
        full = f"{self.prefix}/{path}" if self.prefix else path
        try:
            output = str(
                self.repo.git.log(
                    "--first-parent", "--format=%H%x00%ce%x00%s", self.branch, "--", full
                )
            )
        except git.GitCommandError:
            return []
        found = []
        for line in output.splitlines():
            sha, _, rest = line.partition("\0")
            email, _, subject = rest.partition("\0")
            found.append((sha, email, subject))
        return found

    def content(self, commit: str, path: str) -> bytes | None:
        """`path` (a registry path) as `commit` holds it, or None."""
        full = f"{self.prefix}/{path}" if self.prefix else path
        try:
            blob = self.repo.commit(commit).tree / full
        except (KeyError, ValueError, git.BadName):
            return None
        data: bytes = blob.data_stream.read()
        return data

    def commit(self, paths: list[str], message: str, moment: datetime) -> str:
        """Commit exactly `paths` (registry paths, added, changed or removed) on the branch;
        return the commit."""
        full = [f"{self.prefix}/{p}" if self.prefix else p for p in paths]
        with self.repo.git.custom_environment(**self._environment(moment)):
            self.repo.git.add("-A", "--", *full)
            self.repo.git.commit("--only", "-m", message, "--", *full)
        return self.repo.head.commit.hexsha

    def push_branch(self, moment: datetime | None = None, tries: int = PUSH_TRIES) -> int:
        """Push the branch when origin lacks its tip; return how many times the job's own
        commits were replayed onto a branch that moved.

        The job checks out the branch when its run starts; a merge or a `/judge` commit pushed
        after that makes the push non-fast-forward, after the tag was pushed and the copy
        published. The records are already decided: they are replayed as they are onto
        origin's branch (`replay`) and pushed again, at most `tries` pushes in all. A push
        refused for another reason (a hook, a protection rule), or a replay that cannot be
        made, raises."""
        if not self.has_remote:
            return 0
        ref = f"refs/heads/{self.branch}"
        replays = 0
        for attempt in range(1, tries + 1):
            local = self.repo.commit(self.branch).hexsha
            if self.remote_ref(ref) == local:
                return replays
            try:
                self._push(f"{ref}:{ref}")
                return replays
            except ClaimsError as error:
                if attempt == tries:
                    raise ClaimsError(
                        f"{error.message} (after {replays} replay(s) onto {REMOTE}'s"
                        f" {self.branch}, which kept moving)",
                        error.hint,
                    ) from None
                upstream = self._fetch_branch()
                if upstream is None or self._is_ancestor(upstream, local):
                    raise  # refused although origin did not move on: not ours to retry
                self.replay(upstream, moment or datetime.now(UTC))
                replays += 1
        raise AssertionError("unreachable")  # pragma: no cover

    def _fetch_branch(self) -> str | None:
        """Fetch origin's branch to `refs/remotes/origin/BRANCH`; its commit, or None."""
        ref = f"refs/remotes/{REMOTE}/{self.branch}"
        try:
            with self.repo.git.custom_environment(**self.auth_environment()):
                self.repo.git.fetch(REMOTE, f"+refs/heads/{self.branch}:{ref}")
        except git.GitCommandError as error:
            raise ClaimsError(
                f"git fetch {REMOTE} {self.branch} failed: {self._hide(_stderr(error))}",
                "the job is safe to rerun: it pushes what is missing",
            ) from None
        try:
            return str(self.repo.commit(ref).hexsha)
        except (ValueError, git.BadName):
            return None

    def _is_ancestor(self, ancestor: str, commit: str) -> bool:
        try:
            self.repo.git.merge_base("--is-ancestor", ancestor, commit)
        except git.GitCommandError:
            return False
        return True

    def replay(self, upstream: str, moment: datetime) -> None:
        """Replay the branch's commits that `upstream` lacks onto it (git rebase, the job as
        committer at `moment`), so the branch's first-parent history keeps every commit of
        origin. Only the job's own record commits are ever replayed: any other commit, or a
        conflict (a commit on origin changed a record file), raises and leaves the branch as
        it was."""
        mine = str(
            self.repo.git.log("--format=%H%x00%ce%x00%s", f"{upstream}..{self.branch}")
        ).splitlines()
        foreign = []
        for line in mine:
            sha, email, subject = [*line.split("\0", 2), "", ""][:3]
            if email != BOT_EMAIL or not subject.startswith(RECORD_SUBJECT):
                foreign.append(sha[:12])
        if foreign:
            raise ClaimsError(
                f"{REMOTE}'s {self.branch} moved on, and the checkout holds commits that are not"
                f" the job's records ({', '.join(foreign)}): they are not replayed",
                f"run the job in a fresh checkout of {self.branch}",
            )
        try:
            with self.repo.git.custom_environment(**self._environment(moment)):
                self.repo.git.rebase("--no-autostash", upstream, self.branch)
        except git.GitCommandError as error:
            with contextlib.suppress(git.GitCommandError):
                self.repo.git.rebase("--abort")
            raise ClaimsError(
                f"the job's record commits cannot be replayed onto {REMOTE}'s {self.branch}"
                f" ({upstream[:12]}): {self._hide(_stderr(error))}",
                "a commit on origin changed a record file: a maintainer must look",
            ) from None
