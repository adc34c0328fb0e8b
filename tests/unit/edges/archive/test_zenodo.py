"""The Zenodo archive client against a fake of the legacy deposit API (tests/archive/):
a full cycle, a rerun after a crash at each step, faults, checksums, and checking a copy."""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot.edges.archive.port import (
    Archive,
    ArchivedRecord,
    ArchiveMetadata,
    DepositionState,
    md5_of,
    tree_url,
)
from bot.edges.archive.zenodo import DEFAULT_URL, ZenodoArchive, ZenodoError, search_query
from bot.rules.resolution import MarketDates, Snapshot
from tests.archive.fakezenodo import TOKEN, FakeZenodo

REPOSITORY = "https://github.com/acme/registry"
TAG = "snapshot-2027-06-30"
NOW = datetime(2027, 7, 2, 9, 30, tzinfo=UTC)
TREE = {"README.md": b"# registry\n", "markets/market-3.yaml": b"id: 3\n"}


class Crash(Exception):
    """A kill between two steps."""


def metadata(
    tag: str = TAG, creators: tuple[str, ...] = ("AI Safety Claims registry",)
) -> ArchiveMetadata:
    return ArchiveMetadata(
        repository_url=REPOSITORY,
        tag=tag,
        publication_date=date(2027, 7, 2),
        description="The registry as frozen when market 3's filing window closed.",
        creators=creators,
        keywords=("market-3",),
    )


def client(fake: FakeZenodo, sleeps: list[float] | None = None, **options: object) -> ZenodoArchive:
    recorded = sleeps if sleeps is not None else []
    settings: dict[str, object] = {"timeout": (2.0, 2.0), **options}
    return ZenodoArchive(
        fake.base_url,
        TOKEN,
        sleep=recorded.append,
        clock=lambda: NOW,
        **settings,  # type: ignore[arg-type]
    )


@pytest.fixture
def tarball(tmp_path: Path) -> Path:
    """`git archive` of a tag of a real repository."""
    repo = tmp_path / "repo"
    for name, data in TREE.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "registry")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "tag", "-a", TAG, "-m", TAG)
    out = tmp_path / "snapshot.tar.gz"
    git("archive", "--format=tar.gz", f"--output={out}", TAG)
    return out


def unpack(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {
            m.name: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }


def only_published(fake: FakeZenodo) -> int:
    """The id of the one deposition, which is published; fails on a second one."""
    assert len(fake.depositions) == 1, sorted(fake.depositions)
    (deposition,) = fake.depositions.values()
    assert deposition.submitted
    return deposition.id


# -- the cycle -------------------------------------------------------------------------------


def test_a_full_cycle_publishes_one_copy_that_unpacks_to_the_tagged_tree(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    record = client(fake_zenodo).archive(TAG, tarball, metadata())
    ident = only_published(fake_zenodo)
    deposition = fake_zenodo.depositions[ident]
    assert record == ArchivedRecord(
        tag=TAG,
        reference=f"10.5072/zenodo.{ident}",
        record_id=str(ident),
        file_name=f"acme-registry-{TAG}.tar.gz",
        checksum=md5_of(tarball),
        created=NOW,
        url=f"https://doi.org/10.5072/zenodo.{ident}",
    )
    assert unpack(deposition.files[record.file_name]) == TREE
    assert deposition.files[record.file_name] == tarball.read_bytes()
    meta = deposition.metadata
    assert meta["upload_type"] == "software"
    assert meta["title"] == f"acme/registry: {TAG}"
    assert meta["version"] == TAG
    assert meta["keywords"] == [TAG, "market-3"]
    assert meta["related_identifiers"] == [
        {
            "identifier": f"{REPOSITORY}/tree/{TAG}",
            "relation": "isSupplementTo",
            "resource_type": "software",
            "scheme": "url",
        }
    ]
    assert meta["publication_date"] == "2027-07-02"
    assert meta["license"] == "cc-by-4.0"
    assert meta["creators"] == [{"name": "AI Safety Claims registry"}]


def test_the_registry_is_archived_as_an_organisation(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    # The legacy API makes every creator a person; the client writes the creators again on
    # the InvenioRDM draft, where an organisation is `organizational`.
    registry = "AI Safety Claims registry"
    people = metadata(creators=(registry, "Lovelace, Ada"))
    client(fake_zenodo).archive(TAG, tarball, replace(people, organisations=(registry,)))
    deposition = fake_zenodo.depositions[only_published(fake_zenodo)]
    assert deposition.rdm_creators == [
        {"person_or_org": {"type": "organizational", "name": registry}},
        {"person_or_org": {"type": "personal", "family_name": "Lovelace", "given_name": "Ada"}},
    ]
    assert deposition.metadata["creators"] == [{"name": registry}, {"name": "Lovelace, Ada"}]
    # written after the legacy metadata (which would make them people again), before publish
    calls = [(m, p.rsplit("/", 1)[-1]) for m, p, _ in fake_zenodo.log]
    assert calls.index(("PUT", "draft")) > max(
        i for i, (m, p) in enumerate(calls) if m == "PUT" and p.isdigit()
    )
    assert calls.index(("PUT", "draft")) < calls.index(("POST", "publish"))


def test_without_organisations_the_draft_is_left_alone(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    client(fake_zenodo).archive(TAG, tarball, metadata())
    assert fake_zenodo.depositions[only_published(fake_zenodo)].rdm_creators is None
    assert not any(p.endswith("/draft") for _, p, _ in fake_zenodo.log)


def test_the_record_is_what_resolution_reads(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    record = client(fake_zenodo).archive(TAG, tarball, metadata())
    stored = record.as_record()
    assert ArchivedRecord.from_record(stored) == record
    dates = MarketDates.of(date(2027, 6, 30), 60, 30)
    snapshot = Snapshot.of(TAG, None, stored, dates, date(2027, 7, 3))
    assert snapshot.archive_counts
    assert snapshot.archive_ref == record.reference
    assert snapshot.archived_at == NOW


def test_a_rerun_after_publishing_returns_the_same_record(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    first = client(fake_zenodo).archive(TAG, tarball, metadata())
    fake_zenodo.now = datetime(2027, 7, 5, tzinfo=UTC)
    again = client(fake_zenodo).archive(TAG, tarball, metadata())
    only_published(fake_zenodo)
    # Found, not made: dated by Zenodo's last change (no earlier than publication).
    assert again == replace(first, created=datetime(2027, 7, 1, 12, tzinfo=UTC))
    assert fake_zenodo.calls("POST", "/deposit/depositions") == 1


@pytest.mark.parametrize("step", ["created", "uploaded", "described", "published"])
def test_a_rerun_after_a_crash_at_each_step_finishes_the_one_deposition(
    fake_zenodo: FakeZenodo, tarball: Path, step: str
) -> None:
    def crash(reached: str, state: DepositionState) -> None:
        if reached == step:
            raise Crash(reached)

    with pytest.raises(Crash):
        client(fake_zenodo, after_step=crash).archive(TAG, tarball, metadata())
    record = client(fake_zenodo).archive(TAG, tarball, metadata())
    ident = only_published(fake_zenodo)
    assert record.reference == f"10.5072/zenodo.{ident}"
    assert record.checksum == md5_of(tarball)
    assert unpack(fake_zenodo.depositions[ident].files[record.file_name]) == TREE
    assert fake_zenodo.calls("POST", "/deposit/depositions") == 1


def test_a_draft_left_with_a_damaged_file_is_uploaded_again(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    fake_zenodo.fail("upload", "wrong-checksum")
    with pytest.raises(ZenodoError) as caught:
        client(fake_zenodo).archive(TAG, tarball, metadata())
    assert caught.value.step == "upload"
    assert "Zenodo holds md5:" in caught.value.message and md5_of(tarball) in caught.value.message
    assert fake_zenodo.published() == []  # no copy, so nothing the caller could record
    record = client(fake_zenodo).archive(TAG, tarball, metadata())
    ident = only_published(fake_zenodo)
    assert fake_zenodo.depositions[ident].files[record.file_name] == tarball.read_bytes()


# -- faults ----------------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["list", "upload", "update"])
def test_a_500_is_retried_with_backoff(fake_zenodo: FakeZenodo, tarball: Path, route: str) -> None:
    sleeps: list[float] = []
    fake_zenodo.fail(route, "500")
    fake_zenodo.fail(route, "500")
    client(fake_zenodo, sleeps).archive(TAG, tarball, metadata())
    only_published(fake_zenodo)
    assert sleeps == [2.0, 4.0]


def test_a_create_whose_answer_was_lost_is_found_not_made_twice(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    sleeps: list[float] = []
    fake_zenodo.fail("create", "apply-then-500")
    client(fake_zenodo, sleeps).archive(TAG, tarball, metadata())
    only_published(fake_zenodo)
    assert fake_zenodo.calls("POST", "/deposit/depositions") == 1
    assert sleeps == [2.0]


def test_a_create_that_failed_is_made_again_after_looking(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    fake_zenodo.fail("create", "500")
    client(fake_zenodo).archive(TAG, tarball, metadata())
    only_published(fake_zenodo)
    assert fake_zenodo.calls("POST", "/deposit/depositions") == 2
    # it looked (its own depositions) before creating again
    gets = [p for m, p, _ in fake_zenodo.log if m == "GET"]
    assert gets[:2] == ["/api/deposit/depositions"] * 2


def test_a_publish_answered_500_after_publishing_is_read_back(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    fake_zenodo.fail("publish", "apply-then-500")
    record = client(fake_zenodo).archive(TAG, tarball, metadata())
    ident = only_published(fake_zenodo)
    assert record.reference == f"10.5072/zenodo.{ident}"
    assert fake_zenodo.calls("POST", "/actions/publish") == 1


def test_a_publish_that_failed_is_sent_again(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    fake_zenodo.fail("publish", "500")
    client(fake_zenodo).archive(TAG, tarball, metadata())
    only_published(fake_zenodo)
    assert fake_zenodo.calls("POST", "/actions/publish") == 2


def test_429_waits_for_retry_after(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    sleeps: list[float] = []
    fake_zenodo.fail("upload", "429", retry_after=7)
    fake_zenodo.fail("create", "429", retry_after=3)
    client(fake_zenodo, sleeps).archive(TAG, tarball, metadata())
    only_published(fake_zenodo)
    assert sleeps == [3.0, 7.0]  # a 429 on create is retried too: Zenodo did nothing


def test_a_long_retry_after_is_capped(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    sleeps: list[float] = []
    fake_zenodo.fail("list", "429", retry_after=86400)
    client(fake_zenodo, sleeps, max_wait=60.0).archive(TAG, tarball, metadata())
    assert sleeps == [60.0]


@pytest.mark.parametrize("route", ["upload", "create", "publish"])
def test_a_timeout_is_retried(fake_zenodo: FakeZenodo, tarball: Path, route: str) -> None:
    sleeps: list[float] = []
    fake_zenodo.fail(route, "hang")
    client(fake_zenodo, sleeps, timeout=(2.0, 0.3)).archive(TAG, tarball, metadata())
    only_published(fake_zenodo)
    assert sleeps == [2.0]


def test_zenodo_down_is_an_error_naming_the_step(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    sleeps: list[float] = []
    for _ in range(3):
        fake_zenodo.fail("update", "500")
    with pytest.raises(ZenodoError) as caught:
        client(fake_zenodo, sleeps, attempts=3).archive(TAG, tarball, metadata())
    error = caught.value
    assert error.step == "metadata" and error.status == 500
    assert error.message.startswith("zenodo metadata: PUT /api/deposit/depositions/1001: HTTP 500")
    assert "safe to rerun" in error.hint
    assert TOKEN not in error.diagnostics()
    assert sleeps == [2.0, 4.0]
    assert fake_zenodo.published() == []


def test_zenodo_errors_are_shown_field_by_field(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    with pytest.raises(ZenodoError) as caught:
        client(fake_zenodo).archive(TAG, tarball, metadata(creators=()))
    assert caught.value.step == "publish" and caught.value.status == 400
    assert caught.value.message == (
        "zenodo publish: POST /api/deposit/depositions/1001/actions/publish: HTTP 400:"
        " Validation error. (metadata.creators: Field is required.)"
    )


def test_a_refused_token_says_which_scopes(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    archive = ZenodoArchive(fake_zenodo.base_url, "wrong", sleep=lambda _: None)
    # The user's own depositions need the token.
    with pytest.raises(ZenodoError) as caught:
        archive.archive(TAG, tarball, metadata())
    assert caught.value.status == 401 and caught.value.step == "find"
    assert "deposit:write and deposit:actions" in caught.value.hint


def test_the_token_goes_to_the_api_origin_only(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    state = DepositionState("1001", False, bucket="http://127.0.0.2:9/api/files/b")
    with pytest.raises(ZenodoError, match="refusing to send the token"):
        client(fake_zenodo)._upload(state, tarball, "x.tar.gz", md5_of(tarball))


# -- finding ---------------------------------------------------------------------------------


def test_the_search_quotes_the_tree_url() -> None:
    assert search_query(TAG, REPOSITORY) == (
        'metadata.related_identifiers.identifier:"https://github.com/acme/registry/tree/'
        'snapshot-2027-06-30"'
    )
    assert search_query('odd"tag', REPOSITORY + "/").endswith('/tree/odd\\"tag"')


def test_find_takes_only_the_exact_tree_url(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    archive = client(fake_zenodo)
    archive.archive(TAG, tarball, metadata())
    # The fake matches phrases loosely (…/tree/snapshot-2027-06-3 is in …06-30), like a search
    # engine may: the client keeps only exact identifiers.
    assert archive.find("snapshot-2027-06-3", REPOSITORY) is None
    assert archive.find(TAG, "https://github.com/acme/other") is None
    found = archive.find(TAG, REPOSITORY)
    assert found is not None and found.published and found.doi == "10.5072/zenodo.1001"
    assert fake_zenodo.queries[-1] == search_query(TAG, REPOSITORY)


def test_find_never_takes_another_users_record(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    """Anyone may publish a record naming our tree URL (the public search finds it): it is
    no copy of ours, and archive() makes our own."""
    url = tree_url(REPOSITORY, TAG)
    related = [{"identifier": url, "relation": "isSupplementTo"}]
    foreign = fake_zenodo.publish_foreign({"related_identifiers": related}, {"x.tar.gz": b"x"})
    archive = client(fake_zenodo)
    assert archive.find(TAG, REPOSITORY) is None
    record = archive.archive(TAG, tarball, metadata())
    assert record.record_id != str(foreign.id)
    assert fake_zenodo.depositions[int(record.record_id)].owner == 1


def test_a_tag_with_a_quote_is_found(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    tag = 'snapshot-"2027"'
    archive = client(fake_zenodo)
    archive.archive(tag, tarball, metadata(tag))
    found = archive.find(tag, REPOSITORY)
    assert found is not None and found.published
    assert fake_zenodo.depositions[1001].metadata["related_identifiers"][0]["identifier"] == (
        tree_url(REPOSITORY, tag)
    )


def test_find_sees_a_draft_the_search_index_does_not(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    def crash(reached: str, state: DepositionState) -> None:
        raise Crash(reached)

    with pytest.raises(Crash):
        client(fake_zenodo, after_step=crash).archive(TAG, tarball, metadata())
    found = client(fake_zenodo).find(TAG, REPOSITORY)
    assert found is not None and not found.published and found.id == "1001"


# -- checking a copy -------------------------------------------------------------------------


def test_check_sees_a_copy_deleted_or_changed(fake_zenodo: FakeZenodo, tarball: Path) -> None:
    archive = client(fake_zenodo)
    record = archive.archive(TAG, tarball, metadata())
    assert archive.copy_state(record).ok
    fake_zenodo.replace_file(1001, record.file_name, b"other bytes")
    changed = archive.copy_state(record)
    assert changed.status == "changed" and record.checksum in changed.detail
    fake_zenodo.delete_record(1001)
    missing = archive.copy_state(record)
    assert missing.status == "missing" and missing.detail == "record 1001 answers 410"
    unknown = archive.copy_state(ArchivedRecord(TAG, "10.5072/zenodo.9", "9", "f", "md5:0", NOW))
    assert unknown.status == "missing"


def test_check_in_an_outage_raises_rather_than_says_missing(
    fake_zenodo: FakeZenodo, tarball: Path
) -> None:
    archive = client(fake_zenodo, attempts=2)
    record = archive.archive(TAG, tarball, metadata())
    fake_zenodo.fail("record", "500")
    fake_zenodo.fail("record", "500")
    with pytest.raises(ZenodoError) as caught:
        archive.copy_state(record)
    assert caught.value.step == "check"


# -- configuration ---------------------------------------------------------------------------


def test_from_environment() -> None:
    assert ZenodoArchive.from_environment({}) is None
    assert ZenodoArchive.from_environment({"ZENODO_TOKEN": "  "}) is None
    default = ZenodoArchive.from_environment({"ZENODO_TOKEN": "t"})
    assert default is not None and default.base_url == DEFAULT_URL
    sandbox = ZenodoArchive.from_environment(
        {"ZENODO_TOKEN": "secret", "ZENODO_URL": "https://sandbox.zenodo.org/api/"}
    )
    assert sandbox is not None and sandbox.base_url == "https://sandbox.zenodo.org/api"
    assert "secret" not in repr(sandbox)


def test_zenodo_is_an_archive(fake_zenodo: FakeZenodo) -> None:
    archive: Archive = client(fake_zenodo)
    assert archive.find(TAG, REPOSITORY) is None
