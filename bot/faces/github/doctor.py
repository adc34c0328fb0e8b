"""`claims github doctor`: is a repository set up as docs/running-on-github.md says?

Two halves, as everywhere in the bot: `read_setup` asks the API (through a `SetupReader`,
the gateway in production, the fake GitHub in tests) and returns the answers as a
`SetupFacts` value, each read kept with its status; `probe_setup` is pure and turns the facts
into one `SetupProbe` per requirement: `ok`, `change` (what to change and where: the settings
page and the API endpoint, and the section of docs/running-on-github.md that says why) or
`cannot-check` (the token may not read that setting: what it needs). A refusal on a settings
endpoint is a finding, never an error; only a repository the token cannot read at all is one
(`GitHubError`, exit 2).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from bot.edges.github.port import MAINTAINER_ROLES, ApiRead, FileAtRef, GitHubError, Role

__all__ = [
    "GITHUB_ACTIONS_APP_ID",
    "REQUIRED_CHECK",
    "SetupFacts",
    "SetupProbe",
    "SetupReader",
    "probe_setup",
    "read_setup",
    "render_probes",
]

# The check run `publish` creates under this fixed name (bot/faces/github/publish.py).
REQUIRED_CHECK = "registry: pull request"
# The GitHub Actions app: the integration behind GITHUB_TOKEN, as a ruleset's bypass actor
# (`actor_type: Integration`) and as the source of a required check (`integration_id`).
GITHUB_ACTIONS_APP_ID = 15368
ZENODO_ENVIRONMENT = "zenodo"
ZENODO_SECRET = "ZENODO_TOKEN"
# A tag the close job makes (bot/vocab/dates.py: `snapshot-<resolve-by date>`).
SAMPLE_TAG = "refs/tags/snapshot-2026-01-31"
# Where GitHub looks for CODEOWNERS, in its order (the first found counts).
CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")
# Rules a push of new commits on top of main never breaks: the rest refuse the bot's pushes
# unless it may bypass them.
_HARMLESS_RULES = frozenset({"deletion", "non_fast_forward"})
_MAX_RULESETS = 50  # read in detail; a registry has a handful
_MAX_LOGINS = 100  # maintainers asked for their role
_MAX_PAGES = 10

DOCS = "docs/running-on-github.md"
_BRANCH_DOC = f"{DOCS}#branch-protection-for-main"
_ZENODO_DOC = f"{DOCS}#setting-up-the-zenodo-environment"
_ACTIONS_DOC = f"{DOCS}#actions-settings"
_PAGES_DOC = f"{DOCS}#pages"
_CODEOWNERS_DOC = f"{DOCS}#codeowners"
_ADMIN = "admin access (a fine-grained token: Administration: read)"

Status = Literal["ok", "change", "cannot-check"]


class SetupReader(Protocol):
    """What the doctor asks of GitHub (`bot.edges.github.gateway.GitHubGateway` has it all)."""

    def read(self, path: str, params: Mapping[str, str] | None = None) -> ApiRead: ...

    def role(self, login: str) -> Role: ...

    def file(self, path: str, ref: str) -> FileAtRef | None: ...


@dataclass(frozen=True)
class SetupFacts:
    """Everything the doctor read, each answer with its status (see `read_setup`)."""

    repository: str  # owner/name
    web: str  # the web origin settings pages live on (https://github.com)
    repo: ApiRead  # GET /repos/{o}/{r}
    default_branch: str
    branch_rules: ApiRead  # GET /repos/{o}/{r}/rules/branches/{branch}: the active rules
    protection: ApiRead  # GET /repos/{o}/{r}/branches/{branch}/protection (classic)
    ruleset_list: ApiRead  # GET /repos/{o}/{r}/rulesets?includes_parents=true
    rulesets: Mapping[int, ApiRead]  # GET .../rulesets/{id}
    zenodo: ApiRead  # GET /repos/{o}/{r}/environments/zenodo
    zenodo_branches: ApiRead  # .../environments/zenodo/deployment-branch-policies
    zenodo_secrets: ApiRead  # .../environments/zenodo/secrets
    workflow_permissions: ApiRead  # .../actions/permissions/workflow
    actions_permissions: ApiRead  # .../actions/permissions
    pages: ApiRead  # GET /repos/{o}/{r}/pages
    codeowners: FileAtRef | str | None  # str: why it could not be read
    teams: Mapping[str, ApiRead]  # org/team -> its members
    roles: Mapping[str, Role | None]  # None: could not ask


@dataclass(frozen=True)
class SetupProbe:
    """One requirement: `ok` with what holds, or what to change and where, or why it could
    not be checked."""

    name: str
    status: Status
    message: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# Reading ------------------------------------------------------------------------------------


def read_setup(reader: SetupReader, repository: str, web: str = "https://github.com") -> SetupFacts:
    """Read what `probe_setup` needs. Raises `GitHubError` when the repository itself cannot
    be read (a wrong name, a token without access): then there is nothing to check."""
    api = f"/repos/{repository}"
    repo = reader.read(api)
    if not repo.ok or not isinstance(repo.data, dict):
        raise GitHubError(
            f"GET {api}: GitHub answered {repo.status}"
            + (f": {repo.message}" if repo.message else ""),
            "check --repository OWNER/NAME and that GITHUB_TOKEN can read it",
            status=repo.status,
        )
    branch = str(repo.data.get("default_branch") or "main")
    ruleset_list = _read_all(reader, f"{api}/rulesets", {"includes_parents": "true"})
    # Every listed ruleset is read in full: the list's items may leave out `target` (GitHub's
    # own example does), and only the full ruleset has its conditions and bypass list.
    ids = {int(item["id"]) for item in _items(ruleset_list) if isinstance(item.get("id"), int)}
    branch_rules = _read_all(reader, f"{api}/rules/branches/{branch}", {})
    ids |= {
        int(r["ruleset_id"]) for r in _items(branch_rules) if isinstance(r.get("ruleset_id"), int)
    }
    rulesets = {
        ruleset_id: reader.read(f"{api}/rulesets/{ruleset_id}", {"includes_parents": "true"})
        for ruleset_id in sorted(ids)[:_MAX_RULESETS]
    }
    zenodo = reader.read(f"{api}/environments/{ZENODO_ENVIRONMENT}")
    zenodo_branches = ApiRead(0)
    policy = zenodo.data.get("deployment_branch_policy") if isinstance(zenodo.data, dict) else None
    if zenodo.ok and isinstance(policy, dict) and policy.get("custom_branch_policies"):
        zenodo_branches = reader.read(
            f"{api}/environments/{ZENODO_ENVIRONMENT}/deployment-branch-policies",
            {"per_page": "100"},
        )
    codeowners: FileAtRef | str | None = None
    try:
        codeowners = next(
            (f for path in CODEOWNERS_PATHS if (f := reader.file(path, branch)) is not None),
            None,
        )
    except GitHubError as error:  # a private repository the token may not read
        codeowners = error.message
    found = codeowners if isinstance(codeowners, FileAtRef) else None
    teams: dict[str, ApiRead] = {}
    logins: list[str] = []
    for owner in parse_codeowners(found.content.decode("utf-8", "replace") if found else ""):
        if "/" in owner:
            org, team = owner.split("/", 1)
            teams[owner] = _read_all(reader, f"/orgs/{org}/teams/{team}/members", {})
            logins += [
                str(m["login"]) for m in _items(teams[owner]) if isinstance(m.get("login"), str)
            ]
        elif "@" not in owner:
            logins.append(owner)
    roles: dict[str, Role | None] = {}
    for login in dict.fromkeys(logins):
        if len(roles) >= _MAX_LOGINS:
            break
        try:
            roles[login] = reader.role(login)
        except GitHubError:
            roles[login] = None
    return SetupFacts(
        repository=repository,
        web=web.rstrip("/"),
        repo=repo,
        default_branch=branch,
        branch_rules=branch_rules,
        protection=reader.read(f"{api}/branches/{branch}/protection"),
        ruleset_list=ruleset_list,
        rulesets=rulesets,
        zenodo=zenodo,
        zenodo_branches=zenodo_branches,
        zenodo_secrets=reader.read(
            f"{api}/environments/{ZENODO_ENVIRONMENT}/secrets", {"per_page": "100"}
        ),
        workflow_permissions=reader.read(f"{api}/actions/permissions/workflow"),
        actions_permissions=reader.read(f"{api}/actions/permissions"),
        pages=reader.read(f"{api}/pages"),
        codeowners=codeowners,
        teams=teams,
        roles=roles,
    )


def _read_all(reader: SetupReader, path: str, params: Mapping[str, str]) -> ApiRead:
    """Every page of a list (at most `_MAX_PAGES` of 100)."""
    items: list[Any] = []
    for page in range(1, _MAX_PAGES + 1):
        answer = reader.read(path, {**params, "per_page": "100", "page": str(page)})
        if not answer.ok or not isinstance(answer.data, list):
            return answer  # a list read in part is not read: fail closed
        items += answer.data
        if len(answer.data) < 100:
            break
    return ApiRead(200, items)


def _items(answer: ApiRead, key: str | None = None) -> list[dict[str, Any]]:
    """The objects of a list answer (of `answer.data[key]` with a key); nothing else."""
    data = answer.data
    if key is not None and isinstance(data, dict):
        data = data.get(key)
    return _objects(data)


def _objects(value: object) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def parse_codeowners(text: str) -> list[str]:
    """The owners CODEOWNERS names, in order, without the `@` (`org/team`, `login`, or an
    email address)."""
    owners: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        for word in line.split()[1:]:
            owner = word[1:] if word.startswith("@") else word
            if owner and owner not in owners:
                owners.append(owner)
    return owners


# Checking -----------------------------------------------------------------------------------


def probe_setup(facts: SetupFacts) -> list[SetupProbe]:
    """One `SetupProbe` per requirement of docs/running-on-github.md, in the page's order.
    All `ok` means the repository is set up; reads the token may not make are `cannot-check`."""
    return [
        _required_check(facts),
        _pull_request_rule(facts),
        _up_to_date(facts),
        _merge_methods(facts),
        _snapshot_tags(facts),
        _bot_bypass(facts),
        _zenodo_environment(facts),
        _zenodo_secret(facts),
        _workflow_permissions(facts),
        _pages(facts),
        _maintainers(facts),
    ]


def _settings(facts: SetupFacts, page: str = "") -> str:
    return f"{facts.web}/{facts.repository}/settings" + (f"/{page}" if page else "")


def _cannot(name: str, what: str, answer: ApiRead, needs: str) -> SetupProbe:
    if answer.ok:  # answered, with the setting left out (GitHub hides it from this token)
        said = " (not shown to this token)"
    else:
        said = f" ({answer.status}" + (f": {answer.message}" if answer.message else "") + ")"
    return SetupProbe(name, "cannot-check", f"{what}{said}: the token needs {needs}")


def _branch_rules(facts: SetupFacts, kind: str) -> list[dict[str, Any]]:
    return [rule for rule in _items(facts.branch_rules) if rule.get("type") == kind]


def _classic(facts: SetupFacts) -> dict[str, Any]:
    return (
        facts.protection.data
        if facts.protection.ok and isinstance(facts.protection.data, dict)
        else {}
    )


def _classic_unknown(facts: SetupFacts) -> bool:
    """The classic protection could not be read (404 "Branch not protected" is an answer)."""
    answer = facts.protection
    return not answer.ok and not (
        answer.status == 404 and "not protected" in answer.message.lower()
    )


def _where_branch(facts: SetupFacts) -> str:
    return (
        f"in a branch ruleset on {facts.default_branch} ({_settings(facts, 'rules')}; API: POST or"
        f" PUT /repos/{facts.repository}/rulesets); see {_BRANCH_DOC}"
    )


def _rules_unknown(facts: SetupFacts, name: str, what: str) -> SetupProbe | None:
    """Cannot-check when a rule was not found where it may hide: the branch rules unread, or
    a classic protection the token may not read (GitHub shows it to admins only)."""
    if not facts.branch_rules.ok:
        return _cannot(name, what, facts.branch_rules, "read access to the repository")
    if _classic_unknown(facts):
        return _cannot(name, "the classic branch protection", facts.protection, _ADMIN)
    return None


def _required_check(facts: SetupFacts) -> SetupProbe:
    name = "required-check"
    for rule in _branch_rules(facts, "required_status_checks"):
        for item in _objects((rule.get("parameters") or {}).get("required_status_checks")):
            app = item.get("integration_id")
            if item.get("context") == REQUIRED_CHECK and app in (None, GITHUB_ACTIONS_APP_ID):
                return SetupProbe(
                    name,
                    "ok",
                    f"`{REQUIRED_CHECK}` is required on {facts.default_branch}"
                    f" (ruleset {rule.get('ruleset_id')})",
                )
    checks = _classic(facts).get("required_status_checks") or {}
    contexts = set(checks.get("contexts") or [])
    contexts |= {
        c.get("context")
        for c in checks.get("checks") or []
        if isinstance(c, dict) and c.get("app_id") in (None, -1, GITHUB_ACTIONS_APP_ID)
    }
    if REQUIRED_CHECK in contexts:
        return SetupProbe(
            name,
            "ok",
            f"`{REQUIRED_CHECK}` is required on {facts.default_branch} (branch protection)",
        )
    unknown = _rules_unknown(facts, name, f"the rules on {facts.default_branch}")
    if unknown is not None:
        return unknown
    return SetupProbe(
        name,
        "change",
        f"require the status check `{REQUIRED_CHECK}` (from GitHub Actions, app id"
        f" {GITHUB_ACTIONS_APP_ID}, or any source; never `check`) {_where_branch(facts)}",
    )


def _pull_request_rule(facts: SetupFacts) -> SetupProbe:
    name = "pull-request-review"
    rules = _branch_rules(facts, "pull_request")
    classic = _classic(facts).get("required_pull_request_reviews")
    if any((r.get("parameters") or {}).get("require_code_owner_review") for r in rules) or (
        isinstance(classic, dict) and classic.get("require_code_owner_reviews")
    ):
        return SetupProbe(
            name,
            "ok",
            f"pull requests with Code Owners' review are required on {facts.default_branch}",
        )
    unknown = _rules_unknown(facts, name, f"the rules on {facts.default_branch}")
    if unknown is not None:
        return unknown
    what = (
        "turn on Require review from Code Owners"
        if rules or classic
        else ("require a pull request before merging, with Require review from Code Owners")
    )
    return SetupProbe(name, "change", f"{what} {_where_branch(facts)}")


def _up_to_date(facts: SetupFacts) -> SetupProbe:
    name = "up-to-date"
    strict = any(
        (r.get("parameters") or {}).get("strict_required_status_checks_policy")
        for r in _branch_rules(facts, "required_status_checks")
    ) or bool((_classic(facts).get("required_status_checks") or {}).get("strict"))
    if strict:
        return SetupProbe(name, "ok", "branches must be up to date before merging")
    unknown = _rules_unknown(facts, name, f"the rules on {facts.default_branch}")
    if unknown is not None:
        return unknown
    return SetupProbe(
        name,
        "change",
        "turn on Require branches to be up to date before merging (two PRs claiming one new"
        f" submitter slug) {_where_branch(facts)}",
    )


def _merge_methods(facts: SetupFacts) -> SetupProbe:
    name = "merge-methods"
    repo = facts.repo.data if isinstance(facts.repo.data, dict) else {}
    changes: list[str] = []
    if any(_branch_rules(facts, "required_linear_history")) or (
        (_classic(facts).get("required_linear_history") or {}).get("enabled")
    ):
        changes.append(
            f"turn off Require linear history on {facts.default_branch} (it forbids merge commits)"
        )
    for rule in _branch_rules(facts, "pull_request"):
        allowed = (rule.get("parameters") or {}).get("allowed_merge_methods")
        if isinstance(allowed, list) and ("merge" not in allowed or "rebase" in allowed):
            changes.append(
                f"ruleset {rule.get('ruleset_id')} allows merge methods {allowed}: allow `merge`"
                " (and `squash` if you like), not `rebase`"
            )
    if "allow_merge_commit" not in repo or "allow_rebase_merge" not in repo:
        if changes:
            return SetupProbe(name, "change", "; ".join(changes) + f"; see {_BRANCH_DOC}")
        return _cannot(
            name,
            "the repository's merge buttons (allow_merge_commit, allow_rebase_merge)",
            facts.repo,
            "push access to the repository",
        )
    if repo.get("allow_merge_commit") is not True:
        changes.append("allow merge commits")
    if repo.get("allow_rebase_merge") is not False:
        changes.append("turn off rebase merging (freeze order is read from GitHub's merge commits)")
    if not changes:
        squash = ", squash allowed" if repo.get("allow_squash_merge") else ""
        return SetupProbe(name, "ok", f"merge commits allowed, rebase merging off{squash}")
    return SetupProbe(
        name,
        "change",
        "; ".join(changes) + f" ({_settings(facts)}, Pull Requests; API: PATCH /repos/"
        f"{facts.repository} allow_merge_commit=true allow_rebase_merge=false); see {_BRANCH_DOC}",
    )


def _ruleset(facts: SetupFacts, ruleset_id: int) -> dict[str, Any] | None:
    answer = facts.rulesets.get(ruleset_id)
    return (
        answer.data if answer is not None and answer.ok and isinstance(answer.data, dict) else None
    )


def _matches(ruleset: Mapping[str, Any], ref: str) -> bool:
    """Whether a ruleset's ref_name conditions take in `ref` (GitHub's fnmatch patterns)."""
    names = (ruleset.get("conditions") or {}).get("ref_name") or {}
    include, exclude = names.get("include") or [], names.get("exclude") or []

    def hit(patterns: Iterable[Any]) -> bool:
        return any(
            p == "~ALL" or (isinstance(p, str) and fnmatch.fnmatchcase(ref, p)) for p in patterns
        )

    return hit(include) and not hit(exclude)


def _tag_rulesets(facts: SetupFacts) -> tuple[list[dict[str, Any]], list[int]]:
    """The active tag rulesets that take in the snapshot tags, and the ids not readable."""
    found, unread = [], []
    for item in _items(facts.ruleset_list):
        if item.get("target") not in (None, "tag") or not isinstance(item.get("id"), int):
            continue
        ruleset = _ruleset(facts, item["id"])
        if ruleset is None:
            unread.append(item["id"])
        elif (
            ruleset.get("target") == "tag"
            and ruleset.get("enforcement") == "active"
            and _matches(ruleset, SAMPLE_TAG)
        ):
            found.append(ruleset)
    return found, unread


def _rule_types(ruleset: Mapping[str, Any]) -> set[str]:
    return {str(r.get("type")) for r in ruleset.get("rules") or [] if isinstance(r, dict)}


def _snapshot_tags(facts: SetupFacts) -> SetupProbe:
    name = "snapshot-tags"
    if not facts.ruleset_list.ok:
        return _cannot(name, "the rulesets", facts.ruleset_list, "read access to the repository")
    found, unread = _tag_rulesets(facts)
    for ruleset in found:
        if {"update", "deletion"} <= _rule_types(ruleset):
            return SetupProbe(
                name,
                "ok",
                f"tag ruleset {ruleset.get('id')} ({ruleset.get('name')}) restricts"
                " updates and deletions of snapshot-* tags",
            )
    if unread:
        answer = facts.rulesets.get(unread[0], ApiRead(0, message=f"over {_MAX_RULESETS} rulesets"))
        return _cannot(name, f"tag ruleset {unread[0]}", answer, "read access to the repository")
    return SetupProbe(
        name,
        "change",
        "add an active tag ruleset targeting refs/tags/snapshot-* with Restrict updates and"
        f" Restrict deletions ({_settings(facts, 'rules')}, New tag ruleset; API: POST"
        f' /repos/{facts.repository}/rulesets with target "tag"); see {_BRANCH_DOC}',
    )


def _bypasses(ruleset: Mapping[str, Any]) -> bool | None:
    """Whether GitHub Actions may always bypass `ruleset` (None: the token cannot see its
    bypass list, which GitHub shows to admins only)."""
    actors = ruleset.get("bypass_actors")
    if not isinstance(actors, list):
        return None
    return any(
        isinstance(a, dict)
        and a.get("actor_type") == "Integration"
        and a.get("actor_id") == GITHUB_ACTIONS_APP_ID
        and a.get("bypass_mode") == "always"
        for a in actors
    )


def _bot_bypass(facts: SetupFacts) -> SetupProbe:
    """The close job `git push`es record commits to main and creates snapshot tags, and
    /judge commits judgments.yaml through the contents API, both with GITHUB_TOKEN: every
    rule that refuses such a push must let GitHub Actions through."""
    name = "bot-bypass"
    blocking: dict[int, str] = {}
    for rule in _items(facts.branch_rules):
        if rule.get("type") not in _HARMLESS_RULES and isinstance(rule.get("ruleset_id"), int):
            blocking.setdefault(rule["ruleset_id"], f"branch rule {rule.get('type')}")
    tags, _ = _tag_rulesets(facts)
    for ruleset in tags:
        if "creation" in _rule_types(ruleset):
            blocking.setdefault(int(ruleset["id"]), "tag rule creation")
    changes: list[str] = []
    classic = _classic(facts)
    if classic.get("required_pull_request_reviews") or classic.get("required_status_checks"):
        changes.append(
            f"classic branch protection on {facts.default_branch} refuses the bot's pushes and"
            " cannot exempt GITHUB_TOKEN: move its rules to a ruleset and delete it"
            f" ({_settings(facts, 'branches')}; API: DELETE /repos/{facts.repository}/branches/"
            f"{facts.default_branch}/protection)"
        )
    unknown: list[int] = []
    for ruleset_id, why in sorted(blocking.items()):
        detail = _ruleset(facts, ruleset_id)
        can = None if detail is None else _bypasses(detail)
        if can is None:
            unknown.append(ruleset_id)
        elif not can:
            changes.append(
                f"ruleset {ruleset_id} ({detail.get('name') if detail else ''}: {why}) has no"
                f" bypass for the GitHub Actions app: add it with mode Always"
                f" ({_settings(facts, f'rules/{ruleset_id}')}, Bypass list; API: PUT"
                f" /repos/{facts.repository}/rulesets/{ruleset_id} bypass_actors"
                f' [{{"actor_type": "Integration", "actor_id": {GITHUB_ACTIONS_APP_ID},'
                ' "bypass_mode": "always"}])'
            )
    if changes:
        return SetupProbe(name, "change", "; ".join(changes) + f"; see {_BRANCH_DOC}")
    if unknown:
        answer = facts.rulesets.get(unknown[0], ApiRead(200))
        return _cannot(name, f"the bypass list of ruleset {unknown[0]}", answer, _ADMIN)
    if _classic_unknown(facts):
        return _cannot(name, "the classic branch protection", facts.protection, _ADMIN)
    if not facts.branch_rules.ok:
        return _cannot(
            name, "the branch rules", facts.branch_rules, "read access to the repository"
        )
    return SetupProbe(
        name, "ok", "GitHub Actions may push to main and create snapshot tags (close, /judge)"
    )


def _zenodo_environment(facts: SetupFacts) -> SetupProbe:
    name = "zenodo-environment"
    env = facts.zenodo
    where = (
        f"{_settings(facts, 'environments')}; API: PUT /repos/{facts.repository}/environments/"
        f"{ZENODO_ENVIRONMENT}"
    )
    if env.status == 404:
        return SetupProbe(
            name,
            "change",
            f"create the environment `{ZENODO_ENVIRONMENT}` with deployment"
            f" branch {facts.default_branch} only ({where}); see {_ZENODO_DOC}",
        )
    if not env.ok or not isinstance(env.data, dict):
        return _cannot(
            name, f"the environment {ZENODO_ENVIRONMENT}", env, "read access to the repository"
        )
    changes = []
    policy = env.data.get("deployment_branch_policy")
    policies = _items(facts.zenodo_branches, "branch_policies")
    names = {str(p.get("name")) for p in policies}
    types = {str(p.get("type") or "branch") for p in policies}
    if not isinstance(policy, dict) or not policy.get("custom_branch_policies"):
        changes.append(f"set its deployment branches to Selected, {facts.default_branch} only")
    elif not facts.zenodo_branches.ok:
        return _cannot(
            name,
            "its deployment branch policies",
            facts.zenodo_branches,
            "read access to the repository",
        )
    elif names != {facts.default_branch} or types != {"branch"}:
        changes.append(
            f"its deployment branches are {sorted(names)}: allow the branch"
            f" {facts.default_branch} only"
        )
    if any(
        r.get("type") == "required_reviewers"
        for r in env.data.get("protection_rules") or []
        if isinstance(r, dict)
    ):
        changes.append("remove its required reviewers (the close job runs unattended every day)")
    if changes:
        return SetupProbe(
            name,
            "change",
            f"environment `{ZENODO_ENVIRONMENT}`: "
            + "; ".join(changes)
            + f" ({where}); see {_ZENODO_DOC}",
        )
    return SetupProbe(
        name, "ok", f"environment `{ZENODO_ENVIRONMENT}` deploys from {facts.default_branch} only"
    )


def _zenodo_secret(facts: SetupFacts) -> SetupProbe:
    name = "zenodo-secret"
    answer = facts.zenodo_secrets
    where = (
        f"{_settings(facts, 'environments')}, {ZENODO_ENVIRONMENT}, Environment secrets; API: PUT"
        f" /repos/{facts.repository}/environments/{ZENODO_ENVIRONMENT}/secrets/{ZENODO_SECRET}"
    )
    if facts.zenodo.status == 404:
        return SetupProbe(
            name,
            "change",
            f"create the environment first, then its secret {ZENODO_SECRET} ({where});"
            f" see {_ZENODO_DOC}",
        )
    if not answer.ok:
        return _cannot(
            name,
            f"the secrets of {ZENODO_ENVIRONMENT}",
            answer,
            "admin access (a fine-grained token: Environments: read and Secrets: read)",
        )
    if ZENODO_SECRET in {str(s.get("name")) for s in _items(answer, "secrets")}:
        return SetupProbe(name, "ok", f"{ZENODO_SECRET} is set in `{ZENODO_ENVIRONMENT}`")
    return SetupProbe(
        name,
        "change",
        f"add the secret {ZENODO_SECRET} (a Zenodo token with deposit:write and"
        f" deposit:actions) to the environment `{ZENODO_ENVIRONMENT}` ({where}); see {_ZENODO_DOC}",
    )


def _workflow_permissions(facts: SetupFacts) -> SetupProbe:
    name = "workflow-permissions"
    where = f"{_settings(facts, 'actions')}"
    actions, workflow = facts.actions_permissions, facts.workflow_permissions
    if not actions.ok or not isinstance(actions.data, dict):
        return _cannot(name, "whether Actions is on", actions, _ADMIN)
    if not workflow.ok or not isinstance(workflow.data, dict):
        return _cannot(name, "the workflow permissions", workflow, _ADMIN)
    changes = []
    if actions.data.get("enabled") is not True:
        changes.append(
            f"turn Actions on ({where}; API: PUT /repos/{facts.repository}/actions/permissions"
            " enabled=true)"
        )
    elif actions.data.get("allowed_actions") == "local_only":
        changes.append(
            f"allow actions created by GitHub (the workflows use actions/*) ({where}; API: PUT"
            f" /repos/{facts.repository}/actions/permissions allowed_actions=all or selected)"
        )
    if workflow.data.get("default_workflow_permissions") != "read":
        changes.append(
            "set Workflow permissions to Read repository contents (each job asks for what it needs)"
        )
    if workflow.data.get("can_approve_pull_request_reviews") is not False:
        changes.append("turn off Allow GitHub Actions to create and approve pull requests")
    if changes and any("Workflow permissions" in c or "approve" in c for c in changes):
        changes.append(
            f"({where}, Workflow permissions; API: PUT /repos/{facts.repository}/actions/"
            "permissions/workflow default_workflow_permissions=read"
            " can_approve_pull_request_reviews=false)"
        )
    if changes:
        return SetupProbe(name, "change", "; ".join(changes) + f"; see {_ACTIONS_DOC}")
    return SetupProbe(
        name, "ok", "Actions on; workflow token read-only by default; no PR approvals"
    )


def _pages(facts: SetupFacts) -> SetupProbe:
    name = "pages"
    answer = facts.pages
    where = (
        f"{_settings(facts, 'pages')}, Build and deployment, Source: GitHub Actions; API:"
        f" POST (or PUT) /repos/{facts.repository}/pages build_type=workflow"
    )
    if answer.status == 404:
        return SetupProbe(
            name,
            "change",
            f"turn Pages on with GitHub Actions as its source ({where}); see {_PAGES_DOC}",
        )
    if not answer.ok or not isinstance(answer.data, dict):
        return _cannot(
            name, "the Pages site", answer, "read access (a fine-grained token: Pages: read)"
        )
    if answer.data.get("build_type") != "workflow":
        return SetupProbe(
            name,
            "change",
            f"Pages builds from {answer.data.get('build_type')!r}: set its source"
            f" to GitHub Actions ({where}); see {_PAGES_DOC}",
        )
    return SetupProbe(name, "ok", "Pages is built by GitHub Actions")


def _maintainers(facts: SetupFacts) -> SetupProbe:
    name = "maintainers"
    where = (
        f"{_settings(facts, 'access')}; API: PUT /repos/{facts.repository}/collaborators/LOGIN"
        " permission=maintain"
    )
    if isinstance(facts.codeowners, str):
        return SetupProbe(
            name,
            "cannot-check",
            f"CODEOWNERS ({facts.codeowners}): the token needs read access to the"
            " repository's contents",
        )
    if facts.codeowners is None:
        return SetupProbe(
            name,
            "change",
            f"add .github/CODEOWNERS naming the maintainers (API: PUT"
            f" /repos/{facts.repository}/contents/.github/CODEOWNERS); see {_CODEOWNERS_DOC}",
        )
    owners = parse_codeowners(facts.codeowners.content.decode("utf-8", "replace"))
    if not owners:
        return SetupProbe(
            name,
            "change",
            f"{facts.codeowners.path} names no owner: name the maintainers"
            f" ({facts.web}/{facts.repository}/edit/{facts.default_branch}/"
            f"{facts.codeowners.path}); see {_CODEOWNERS_DOC}",
        )
    changes, unknown = [], []
    for team, answer in facts.teams.items():
        if answer.status == 404:
            changes.append(
                f"team @{team} in {facts.codeowners.path} does not exist or is not visible:"
                " replace the placeholder with the registry's maintainer team or logins"
            )
        elif not answer.ok:
            unknown.append(
                f"the members of @{team} ({answer.status}); the token needs read:org (a"
                " fine-grained token: Organization Members: read)"
            )
        elif not _items(answer):
            changes.append(f"team @{team} has no members")
    weak = sorted(
        f"{login} ({role})"
        for login, role in facts.roles.items()
        if role is not None and role not in MAINTAINER_ROLES
    )
    if weak:
        changes.append(
            f"give {', '.join(weak)} the maintain or admin role (/judge and the path rules honour"
            f" only those) or drop them from {facts.codeowners.path} ({where})"
        )
    unasked = sorted(login for login, role in facts.roles.items() if role is None)
    if unasked:
        unknown.append(f"the roles of {', '.join(unasked)}")
    emails = [o for o in owners if "@" in o]
    if emails:
        unknown.append(f"the roles of {', '.join(emails)} (an email address: name the login)")
    if changes:
        return SetupProbe(name, "change", "; ".join(changes) + f"; see {_CODEOWNERS_DOC}")
    if unknown:
        return SetupProbe(name, "cannot-check", "; ".join(unknown))
    return SetupProbe(
        name,
        "ok",
        f"{len(facts.roles)} maintainer(s) in {facts.codeowners.path}, each admin or maintain",
    )


# Rendering ----------------------------------------------------------------------------------

_LABEL: dict[Status, str] = {"ok": "ok", "change": "CHANGE", "cannot-check": "CANNOT CHECK"}


def render_probes(facts: SetupFacts, probes: Sequence[SetupProbe]) -> str:
    """The doctor's report: a header, one line per requirement, a total."""
    lines = [f"claims github doctor: {facts.repository} (default branch {facts.default_branch})"]
    lines += [f"{_LABEL[c.status]:<12}  {c.name}: {' '.join(c.message.split())}" for c in probes]
    changes = sum(c.status == "change" for c in probes)
    unknown = sum(c.status == "cannot-check" for c in probes)
    if not changes and not unknown:
        lines.append(f"all {len(probes)} requirements hold")
    else:
        lines.append(
            f"{len(probes) - changes - unknown} of {len(probes)} requirements hold; {changes} to"
            f" change, {unknown} not checked; see {DOCS}#check-the-setup-claims-github-doctor"
        )
    return "\n".join(lines) + "\n"
