"""`claims github doctor` against the fake GitHub: an all-good repository, each requirement
broken in turn, and a token without admin rights."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.edges.github import gateway
from bot.faces.cli import main
from bot.faces.github.doctor import GITHUB_ACTIONS_APP_ID, probe_setup, read_setup
from tests.github.fakehub import Environment, FakeHub, Repo
from tests.support import connect_without_waits

CODEOWNERS = b"*  @acme/maintainers\n/attempts/market-*/\n/bot/  @acme/maintainers @carol\n"
ACTIONS = {"actor_type": "Integration", "actor_id": GITHUB_ACTIONS_APP_ID, "bypass_mode": "always"}
NAMES = [
    "required-check",
    "pull-request-review",
    "up-to-date",
    "merge-methods",
    "snapshot-tags",
    "bot-bypass",
    "zenodo-environment",
    "zenodo-secret",
    "workflow-permissions",
    "pages",
    "maintainers",
]


def set_up_well(hub: FakeHub) -> Repo:
    """The repository docs/running-on-github.md describes."""
    repo = hub.repo
    settings = repo.settings
    settings.allow_rebase_merge = False
    settings.rulesets = {
        1: {
            "name": "main",
            "target": "branch",
            "enforcement": "active",
            "bypass_actors": [ACTIONS],
            "conditions": {"ref_name": {"include": ["~DEFAULT_BRANCH"], "exclude": []}},
            "rules": [
                {"type": "deletion"},
                {"type": "non_fast_forward"},
                {
                    "type": "pull_request",
                    "parameters": {
                        "required_approving_review_count": 0,
                        "require_code_owner_review": True,
                        "allowed_merge_methods": ["merge", "squash"],
                    },
                },
                {
                    "type": "required_status_checks",
                    "parameters": {
                        "strict_required_status_checks_policy": True,
                        "required_status_checks": [
                            {"context": "registry: pull request", "integration_id": 15368}
                        ],
                    },
                },
            ],
        },
        2: {
            "name": "snapshots",
            "target": "tag",
            "enforcement": "active",
            "bypass_actors": [],
            "conditions": {"ref_name": {"include": ["refs/tags/snapshot-*"], "exclude": []}},
            "rules": [{"type": "update"}, {"type": "deletion"}],
        },
    }
    settings.environments = {
        "zenodo": Environment(branches=["main"], secrets=["ZENODO_TOKEN"]),
        "github-pages": Environment(branches=["main"]),
    }
    settings.pages = {"build_type": "workflow"}
    hub.state.teams["acme/maintainers"] = ["alice", "bob"]
    repo.roles.update(alice="admin", bob="maintain", carol="maintain", dave="write")
    repo.commit_files("main", {".github/CODEOWNERS": CODEOWNERS})
    return repo


@pytest.fixture
def doctor(
    monkeypatch: pytest.MonkeyPatch, fakehub: FakeHub, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, dict[str, str]]]:
    """Run `claims github doctor`; return its exit code and each requirement's line."""
    monkeypatch.setenv("GITHUB_API_URL", fakehub.base_url)
    monkeypatch.setenv("GITHUB_REPOSITORY", fakehub.repository)
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.delenv("GITHUB_SERVER_URL", raising=False)
    connect_without_waits(monkeypatch)

    def run(*argv: str) -> tuple[int, dict[str, str]]:
        code = main(["github", "doctor", *argv])
        out = capsys.readouterr().out
        lines = {}
        for line in out.splitlines()[1:-1]:
            status, rest = line.split("  ", 1)
            name, message = rest.strip().split(": ", 1)
            lines[name] = f"{status.strip()}: {message}"
        return code, lines

    return run


def test_a_repository_set_up_as_documented_passes(
    fakehub: FakeHub, doctor: Callable[..., tuple[int, dict[str, str]]]
) -> None:
    set_up_well(fakehub)
    code, lines = doctor()
    assert list(lines) == NAMES
    assert all(line.startswith("ok: ") for line in lines.values()), lines
    assert code == 0
    assert "3 maintainer(s) in .github/CODEOWNERS" in lines["maintainers"]
    # read only: the doctor never writes
    assert {r.method for r in fakehub.requests} == {"GET"}


def _no_required_check(repo: Repo) -> None:
    checks = repo.settings.rulesets[1]["rules"][3]["parameters"]["required_status_checks"]
    checks[0]["context"] = "check"  # the workflow a fork's PR controls


def _check_from_another_app(repo: Repo) -> None:
    checks = repo.settings.rulesets[1]["rules"][3]["parameters"]["required_status_checks"]
    checks[0]["integration_id"] = 999


def _no_code_owners(repo: Repo) -> None:
    repo.settings.rulesets[1]["rules"][2]["parameters"]["require_code_owner_review"] = False


def _not_strict(repo: Repo) -> None:
    rule = repo.settings.rulesets[1]["rules"][3]
    rule["parameters"]["strict_required_status_checks_policy"] = False


def _rebase_on(repo: Repo) -> None:
    repo.settings.allow_rebase_merge = True


def _no_merge_commits(repo: Repo) -> None:
    repo.settings.allow_merge_commit = False


def _linear_history(repo: Repo) -> None:
    repo.settings.rulesets[1]["rules"].append({"type": "required_linear_history"})


def _rebase_in_ruleset(repo: Repo) -> None:
    parameters = repo.settings.rulesets[1]["rules"][2]["parameters"]
    parameters["allowed_merge_methods"] = ["squash", "rebase"]


def _no_tag_ruleset(repo: Repo) -> None:
    del repo.settings.rulesets[2]


def _tag_ruleset_elsewhere(repo: Repo) -> None:
    repo.settings.rulesets[2]["conditions"]["ref_name"]["include"] = ["refs/tags/v*"]


def _tag_ruleset_without_update(repo: Repo) -> None:
    repo.settings.rulesets[2]["rules"] = [{"type": "deletion"}]


def _tag_ruleset_off(repo: Repo) -> None:
    repo.settings.rulesets[2]["enforcement"] = "evaluate"


def _no_bypass(repo: Repo) -> None:
    repo.settings.rulesets[1]["bypass_actors"] = []


def _bypass_by_pull_request_only(repo: Repo) -> None:
    repo.settings.rulesets[1]["bypass_actors"] = [{**ACTIONS, "bypass_mode": "pull_request"}]


def _tag_creation_without_bypass(repo: Repo) -> None:
    repo.settings.rulesets[2]["rules"].append({"type": "creation"})


def _classic_protection(repo: Repo) -> None:
    checks = {"strict": True, "contexts": ["registry: pull request"], "checks": []}
    repo.settings.protection = {"required_status_checks": checks}


def _no_zenodo(repo: Repo) -> None:
    del repo.settings.environments["zenodo"]


def _zenodo_any_branch(repo: Repo) -> None:
    repo.settings.environments["zenodo"].branches = None


def _zenodo_other_branch(repo: Repo) -> None:
    repo.settings.environments["zenodo"].branches = ["main", "release/*"]


def _zenodo_reviewers(repo: Repo) -> None:
    repo.settings.environments["zenodo"].reviewers = True


def _no_secret(repo: Repo) -> None:
    repo.settings.environments["zenodo"].secrets = ["ZENODO_URL"]


def _write_default(repo: Repo) -> None:
    repo.settings.workflow_permissions["default_workflow_permissions"] = "write"


def _may_approve(repo: Repo) -> None:
    repo.settings.workflow_permissions["can_approve_pull_request_reviews"] = True


def _actions_off(repo: Repo) -> None:
    repo.settings.actions["enabled"] = False


def _local_actions_only(repo: Repo) -> None:
    repo.settings.actions["allowed_actions"] = "local_only"


def _pages_off(repo: Repo) -> None:
    repo.settings.pages = None


def _pages_from_branch(repo: Repo) -> None:
    repo.settings.pages = {"build_type": "legacy"}


def _maintainer_with_write(repo: Repo) -> None:
    repo.roles["bob"] = "write"


def _outsider_owner(repo: Repo) -> None:
    del repo.roles["carol"]  # not a collaborator: 404, role "none"


def _no_codeowners(repo: Repo) -> None:
    repo.commit_files("main", {".github/CODEOWNERS": b"# nobody\n"})


BROKEN: list[tuple[Callable[[Repo], None], str, str]] = [
    (_no_required_check, "required-check", "require the status check `registry: pull request`"),
    (_check_from_another_app, "required-check", "require the status check"),
    (_no_code_owners, "pull-request-review", "turn on Require review from Code Owners"),
    (_not_strict, "up-to-date", "Require branches to be up to date"),
    (_rebase_on, "merge-methods", "turn off rebase merging"),
    (_no_merge_commits, "merge-methods", "allow merge commits"),
    (_linear_history, "merge-methods", "turn off Require linear history"),
    (_rebase_in_ruleset, "merge-methods", "allow `merge`"),
    (_no_tag_ruleset, "snapshot-tags", "add an active tag ruleset targeting refs/tags/snapshot-*"),
    (_tag_ruleset_elsewhere, "snapshot-tags", "add an active tag ruleset"),
    (_tag_ruleset_without_update, "snapshot-tags", "Restrict updates"),
    (_tag_ruleset_off, "snapshot-tags", "add an active tag ruleset"),
    (_no_bypass, "bot-bypass", "ruleset 1 (main: branch rule pull_request) has no bypass"),
    (_bypass_by_pull_request_only, "bot-bypass", "add it with mode Always"),
    (_tag_creation_without_bypass, "bot-bypass", "ruleset 2 (snapshots: tag rule creation)"),
    (_classic_protection, "bot-bypass", "classic branch protection on main refuses"),
    (_no_zenodo, "zenodo-environment", "create the environment `zenodo`"),
    (_zenodo_any_branch, "zenodo-environment", "set its deployment branches to Selected"),
    (_zenodo_other_branch, "zenodo-environment", "allow the branch main only"),
    (_zenodo_reviewers, "zenodo-environment", "remove its required reviewers"),
    (_no_secret, "zenodo-secret", "add the secret ZENODO_TOKEN"),
    (_write_default, "workflow-permissions", "Read repository contents"),
    (_may_approve, "workflow-permissions", "turn off Allow GitHub Actions to create and approve"),
    (_actions_off, "workflow-permissions", "turn Actions on"),
    (_local_actions_only, "workflow-permissions", "allow actions created by GitHub"),
    (_pages_off, "pages", "turn Pages on with GitHub Actions as its source"),
    (_pages_from_branch, "pages", "Pages builds from 'legacy'"),
    (_maintainer_with_write, "maintainers", "give bob (write) the maintain or admin role"),
    (_outsider_owner, "maintainers", "give carol (none) the maintain or admin role"),
    (_no_codeowners, "maintainers", "names no owner"),
]
# Where each requirement's advice points: the settings page and the docs section.
WHERE = {
    "required-check": ("/settings/rules", "#branch-protection-for-main"),
    "pull-request-review": ("/settings/rules", "#branch-protection-for-main"),
    "up-to-date": ("/settings/rules", "#branch-protection-for-main"),
    "snapshot-tags": ("/settings/rules", "#branch-protection-for-main"),
    "bot-bypass": ("/settings/", "#branch-protection-for-main"),
    "zenodo-environment": ("/settings/environments", "#setting-up-the-zenodo-environment"),
    "zenodo-secret": ("/settings/environments", "#setting-up-the-zenodo-environment"),
    "workflow-permissions": ("/settings/actions", "#actions-settings"),
    "pages": ("/settings/pages", "#pages"),
    "maintainers": ("/", "#codeowners"),
    "merge-methods": ("/settings", "#branch-protection-for-main"),
}


@pytest.mark.parametrize(
    ("breaking", "name", "advice"), BROKEN, ids=[b[0].__name__ for b in BROKEN]
)
def test_each_broken_requirement_is_named_with_its_fix(
    fakehub: FakeHub,
    doctor: Callable[..., tuple[int, dict[str, str]]],
    breaking: Callable[[Repo], None],
    name: str,
    advice: str,
) -> None:
    breaking(set_up_well(fakehub))
    code, lines = doctor()
    assert code == 1
    assert lines[name].startswith("CHANGE: ") and advice in lines[name], lines[name]
    page, section = WHERE[name]
    assert f"https://github.com/acme/registry{page}" in lines[name]
    assert f"docs/running-on-github.md{section}" in lines[name]
    others = {n: line for n, line in lines.items() if n != name and not line.startswith("ok: ")}
    assert others == {} or (name == "zenodo-environment" and set(others) == {"zenodo-secret"})


def test_a_token_without_admin_rights_cannot_check_the_admin_settings(
    fakehub: FakeHub, doctor: Callable[..., tuple[int, dict[str, str]]]
) -> None:
    set_up_well(fakehub).settings.admin = False
    code, lines = doctor()
    assert code == 1
    cannot = {n for n, line in lines.items() if line.startswith("CANNOT CHECK: ")}
    assert cannot == {"merge-methods", "bot-bypass", "zenodo-secret", "workflow-permissions"}
    assert "the token needs admin access" in lines["bot-bypass"]
    assert "the bypass list of ruleset 1 (not shown to this token)" in lines["bot-bypass"]
    assert "merge buttons" in lines["merge-methods"]
    assert "(403: Resource not accessible by integration)" in lines["zenodo-secret"]
    assert "Environments: read and Secrets: read" in lines["zenodo-secret"]
    # what anyone who may read the repository can see is still checked
    assert lines["required-check"].startswith("ok: ") and lines["pages"].startswith("ok: ")


def test_a_team_the_token_cannot_see(
    fakehub: FakeHub, doctor: Callable[..., tuple[int, dict[str, str]]]
) -> None:
    set_up_well(fakehub)
    fakehub.fail_next("GET", r"/orgs/acme/teams/maintainers/members", 403)
    code, lines = doctor()
    assert code == 1
    assert lines["maintainers"].startswith("CANNOT CHECK: ")
    assert "the members of @acme/maintainers (403)" in lines["maintainers"]
    assert "read:org" in lines["maintainers"]


def test_the_placeholder_team_is_named(
    fakehub: FakeHub, doctor: Callable[..., tuple[int, dict[str, str]]]
) -> None:
    set_up_well(fakehub)
    owners = b"*  @ai-safety-claims/maintainers\n"
    fakehub.repo.commit_files("main", {".github/CODEOWNERS": owners})
    code, lines = doctor()
    assert code == 1
    assert (
        "team @ai-safety-claims/maintainers in .github/CODEOWNERS does not exist"
        in (lines["maintainers"])
    )


def test_usage_and_api_errors_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    fakehub: FakeHub,
    doctor: Callable[..., tuple[int, dict[str, str]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_up_well(fakehub)
    assert main(["github", "doctor", "--repository", "acme/elsewhere"]) == 2
    assert "GET /repos/acme/elsewhere: GitHub answered 404" in capsys.readouterr().err
    assert main(["github", "doctor", "--repository", "not a repository"]) == 2
    assert "expected OWNER/NAME" in capsys.readouterr().err
    monkeypatch.delenv("GITHUB_TOKEN")
    assert main(["github", "doctor"]) == 2
    assert "no GITHUB_TOKEN" in capsys.readouterr().err


def test_the_checks_are_a_pure_function_of_what_was_read(fakehub: FakeHub) -> None:
    set_up_well(fakehub)
    reader = gateway.connect("t0ken", fakehub.repository, fakehub.base_url, throttle=False)
    facts = read_setup(reader, fakehub.repository)
    calls = len(fakehub.requests)
    assert [c.name for c in probe_setup(facts)] == NAMES
    assert all(c.ok for c in probe_setup(facts))
    assert len(fakehub.requests) == calls  # checking asks nothing more


def test_a_codeowners_file_the_token_cannot_read(
    fakehub: FakeHub, doctor: Callable[..., tuple[int, dict[str, str]]]
) -> None:
    set_up_well(fakehub)
    fakehub.fail_next("GET", r"/repos/acme/registry/contents/\.github/CODEOWNERS", 403)
    code, lines = doctor()
    assert code == 1
    assert lines["maintainers"].startswith(
        "CANNOT CHECK: CODEOWNERS (GET .github/CODEOWNERS at main: GitHub answered 403"
    )
