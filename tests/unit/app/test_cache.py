"""The verification cache (bot/app/cache.py): a warm run judges exactly as a cold one.

Each test builds a real git registry (the tests' factory), judges it without a cache, cold with
an empty cache and warm from it, and compares whole verdicts (every finding, bar, check and
count), so whatever the cache keeps must be exactly what the judge would compute. Then it
changes one thing a dishonest filer or a late maintainer could change, and checks that the
warm run follows it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app.api import open_workspace, resolve_registry
from bot.app.cache import VerificationCache
from bot.app.gather import find_market
from bot.app.options import Ports
from bot.app.report_json import dumps, report_to_json
from bot.edges.archive.local import LocalArchive
from bot.edges.dump import dump_yaml
from bot.faces.demo.specimen import AttemptSpec, market_document
from bot.faces.report.text import render_resolution
from bot.rules.judge.attempt import withholdable_of
from bot.rules.judge.inputs import AttemptFacts, AttemptFiles
from bot.rules.records import RecordsChecker, RecordsResult
from bot.vocab.findings import Code, Finding
from tests.support import RegistryFactory, rewrite, verdicts_json

AS_OF = date(2027, 4, 15)  # inside market 3's window: judgments count as recorded
CLOSED = date(2027, 9, 1)  # market 3's window has closed

OTHERS = (
    AttemptSpec(slug="monitor-v2", seed=2),
    AttemptSpec(slug="monitor-v3", seed=3, false_safe_rate=0.5),
)


def _resolved(root: Path, cache: VerificationCache | None, as_of: date) -> str:
    """`claims resolve`'s JSON report and its text, as one string."""
    with open_workspace(root) as workspace:
        report = resolve_registry(
            workspace.registry,
            workspace.history,
            LocalArchive(root / "archive"),
            as_of,
            ports=Ports(records_cache=cache),
        )
    return dumps(report_to_json(report)) + render_resolution(report)


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*/*.json"))


@pytest.fixture
def built(make_registry: RegistryFactory) -> Any:
    return make_registry(also=OTHERS)


def test_a_warm_run_gives_the_cold_run_s_verdicts_and_reports(built: Any, tmp_path: Path) -> None:
    plain = verdicts_json(built.root, None)
    cache = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, cache) == plain
    assert (cache.stats.hits, cache.stats.misses, cache.stats.stored) == (0, 3, 3)
    assert len(_entries(tmp_path / "cache")) == 3
    warm = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, warm) == plain
    assert (warm.stats.hits, warm.stats.misses, warm.stats.stored) == (3, 0, 0)
    # resolve: the JSON report and its text, byte for byte, open and closed
    for as_of in (AS_OF, CLOSED):
        cold = _resolved(built.root, None, as_of)
        assert _resolved(built.root, VerificationCache(tmp_path / "cache"), as_of) == cold
    verdicts = plain[0]
    assert [v["status"] for v in verdicts] == ["qualifying"] * 3
    assert {v["outcome"] for v in verdicts} == {"met", "missed"}


def test_a_changed_file_is_checked_again_and_only_its_attempt(built: Any, tmp_path: Path) -> None:
    verdicts_json(built.root, VerificationCache(tmp_path / "cache"))
    trials = built.attempt / "trials.jsonl"
    lines = trials.read_text().splitlines()
    record = json.loads(lines[0])
    record["system"] = "sim-model-z"  # an edit after the judgments: the digest changes
    trials.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    warm = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, warm) == verdicts_json(built.root, None)
    assert (warm.stats.hits, warm.stats.misses, warm.stats.stored) == (2, 1, 1)


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # truncated
        lambda raw: raw[:-2] + bytes([raw[-2] ^ 1]) + raw[-1:],  # one bit flipped
        lambda raw: b"",  # emptied
        lambda raw: raw.replace(b'"cases_read":true', b'"cases_read":false'),  # edited
    ],
    ids=["truncated", "bit-flipped", "empty", "edited"],
)
def test_a_damaged_entry_is_a_notice_and_is_recomputed(
    built: Any, tmp_path: Path, damage: Any
) -> None:
    cold = verdicts_json(built.root, VerificationCache(tmp_path / "cache"))
    entry = _entries(tmp_path / "cache")[0]
    entry.write_bytes(damage(entry.read_bytes()))
    warm = VerificationCache(tmp_path / "cache")
    verdicts, problems = verdicts_json(built.root, warm)
    assert verdicts == cold[0]
    assert problems == [Code.CACHE_ENTRY_INVALID.value]
    assert (warm.stats.invalid, warm.stats.hits, warm.stats.stored) == (1, 2, 1)
    again = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, again) == cold
    assert again.stats.hits == 3


def test_a_judgment_is_never_taken_from_the_cache(built: Any, tmp_path: Path) -> None:
    """judgments.yaml is not in the key, so the cache keeps nothing that depends on it."""
    verdicts_json(built.root, VerificationCache(tmp_path / "cache"))
    judgments = built.attempt / "judgments.yaml"
    judgments.write_text(judgments.read_text().replace("verdict: pass", "verdict: fail", 1))
    warm = VerificationCache(tmp_path / "cache")
    verdicts = verdicts_json(built.root, warm)
    assert verdicts == verdicts_json(built.root, None)
    assert warm.stats.hits == 3
    assert verdicts[0][0]["status"] == "not-qualifying"
    assert "judged-not-qualifying" in {r["code"] for r in verdicts[0][0]["reasons"]}


def test_a_changed_contract_or_date_is_judged_afresh(built: Any, tmp_path: Path) -> None:
    verdicts_json(built.root, VerificationCache(tmp_path / "cache"))
    # The date judged on is not in the key: the cached check serves every date.
    late = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, late, CLOSED) == verdicts_json(built.root, None, CLOSED)
    assert late.stats.hits == 3
    # A contract is: every attempt of market 3 is checked again under the new bars.
    contract = built.root / "markets" / "market-03.yaml"
    document = market_document(3, "default")
    document["bars"][0]["max"] = 0.01
    contract.write_bytes(dump_yaml(document))
    warm = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, warm) == verdicts_json(built.root, None)
    assert (warm.stats.hits, warm.stats.misses) == (0, 3)


def test_trials_before_a_freeze_are_judged_from_the_files(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """The cache keeps no trials: where a trial may start before the freeze landed, the
    attempt is judged from its files, with the same findings."""
    spec = AttemptSpec()
    built = make_registry(spec, freeze_merged_at=spec.first_trial_at + timedelta(hours=1))
    cold = verdicts_json(built.root, VerificationCache(tmp_path / "cache"))
    assert "trial-before-freeze" in {r["code"] for r in cold[0][0]["reasons"]}
    warm = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, warm) == cold == verdicts_json(built.root, None)
    assert warm.stats.hits == 1  # read back, then not enough: the files were read


def test_invalid_records_are_kept_with_their_findings(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    def edit(files: dict[str, bytes]) -> None:
        rewrite(files, "trials.jsonl", lambda items: items.append(dict(items[0])))
        files["trials.jsonl"] += b'{"case_id": "x", "started_at": "2027-01-21T09:00"}\nnot json\n'

    built = make_registry(change=edit)
    plain = verdicts_json(built.root, None)
    codes = {r["code"] for r in plain[0][0]["reasons"]}
    assert {"duplicate-trial", "jsonl-invalid"} <= codes
    assert verdicts_json(built.root, VerificationCache(tmp_path / "cache")) == plain
    warm = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, warm) == plain
    assert warm.stats.hits == 1


def test_a_cache_that_cannot_be_written_only_costs_time(built: Any, tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    cache = VerificationCache(blocked)
    assert verdicts_json(built.root, cache) == verdicts_json(built.root, None)
    assert (cache.stats.stored, cache.stats.unwritable) == (0, 3)


@pytest.fixture(scope="module")
def entry(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    """A registry with one attempt, and its cache entry: (registry root, entry, its bytes)."""
    from tests.support import RegistryFactory

    root = tmp_path_factory.mktemp("cache-property")
    built = RegistryFactory(root)()
    verdicts_json(built.root, VerificationCache(root / "cache"))
    (path,) = _entries(root / "cache")
    built.repo.close()
    return built.root, path, path.read_bytes()


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_any_damage_to_an_entry_is_found(
    entry: tuple[Path, Path, bytes], data: st.DataObject
) -> None:
    """Property: a changed byte, a cut or appended bytes anywhere in an entry is reported as
    a notice and never trusted (and never raises)."""

    root, path, raw = entry
    how = data.draw(st.sampled_from(["byte", "cut", "append"]))
    if how == "byte":
        at = data.draw(st.integers(0, len(raw) - 1))
        value = data.draw(st.integers(0, 255).filter(lambda b: b != raw[at]))
        damaged = raw[:at] + bytes([value]) + raw[at + 1 :]
    elif how == "cut":
        damaged = raw[: data.draw(st.integers(0, len(raw) - 1))]
    else:
        damaged = raw + data.draw(st.binary(min_size=1, max_size=20))
    check, notices = _lookup_damaged(root, path, raw, damaged)
    assert check is None
    assert [n.code for n in notices] == [Code.CACHE_ENTRY_INVALID]


def test_the_key_holds_what_the_check_depends_on(built: Any, tmp_path: Path) -> None:
    cache = VerificationCache(tmp_path / "cache")
    with open_workspace(built.root) as workspace:
        from bot.app.attempt_read import read_attempt

        registry = workspace.registry
        files = read_attempt(registry, registry.attempt_folders()[0])
        parts = cache.parts(registry, files)
    assert set(parts) == {
        "format",
        "code",
        "folder",
        "evidence_digest",
        "market",
        "contract",
        "shared_rules",
        "limits",
    }
    assert parts["evidence_digest"] == files.digest
    assert parts["market"] == 3
    moved = replace(files, folder="attempts/market-03/alice-lab/other")
    assert cache.key(registry, moved) != cache.key(registry, files)


def test_certificates_are_kept_with_their_problems_in_place(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """certificates.jsonl is read after scores.yaml and judgments.yaml: its problems (a line
    its schema refuses), names and summary come back from the cache where they stood."""

    def edit(files: dict[str, bytes]) -> None:
        def abstain(items: list[dict[str, Any]]) -> None:
            for item in items:
                item["abstain"] = True
            items.append({"system": "sim\u200b-model-x", "abstain": "yes"})

        rewrite(files, "certificates.jsonl", abstain)
        files["judgments.yaml"] = b"checks: [not, a, mapping]\n"

    built = make_registry(change=edit, judged=False)
    plain = verdicts_json(built.root, None)
    codes = [r["code"] for r in plain[0][0]["reasons"]]
    assert "schema" in codes
    assert verdicts_json(built.root, VerificationCache(tmp_path / "cache")) == plain
    warm = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, warm) == plain
    assert warm.stats.hits == 1
    (built.attempt / "certificates.jsonl").unlink()  # absent: a new digest, checked again
    again = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, again) == verdicts_json(built.root, None)
    assert again.stats.misses == 1


def test_abstaining_certificates_come_back_from_the_cache(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    def edit(files: dict[str, bytes]) -> None:
        def abstain(items: list[dict[str, Any]]) -> None:
            for item in items:
                item.update(abstain=True, scope_reason="out of scope")
            del items[0]

        rewrite(files, "certificates.jsonl", abstain)

    built = make_registry(change=edit)
    plain = verdicts_json(built.root, None)
    codes = {r["code"] for r in plain[0][0]["reasons"]}
    assert {"universal-abstention", "certificate-missing"} <= codes
    verdicts_json(built.root, VerificationCache(tmp_path / "cache"))
    warm = VerificationCache(tmp_path / "cache")
    assert verdicts_json(built.root, warm) == plain
    assert warm.stats.hits == 1


# The demo's kim-lab/small-sample (examples/generate.py): 10 attack and 10 control units,
# AUROC 0.90, where DeLong's bound covers below 90% (issue 15).
SMALL_SAMPLE = AttemptSpec(
    submitter="kim-lab",
    slug="small-sample",
    seed=27,
    control_every=2,
    cases_per_family=10,
    attack_scores=(0.35, 1.0),
    control_scores=(0.0, 0.65),
)


def test_a_warm_run_keeps_the_honest_bounds_of_each_bar(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """The bars come back from the cache with their units per class, coverage and the
    delong-logit bound, and the warning computed from them is the cold run's, byte for byte."""
    built = make_registry(SMALL_SAMPLE)
    plain = verdicts_json(built.root, None)
    (verdict,) = plain[0]
    (auroc,) = [bar for bar in verdict["bars"] if bar["statistic"] == "auroc_lower"]
    assert auroc["units_per_class"] == {"positive": 10, "negative": 10}
    assert auroc["coverage"] is not None and auroc["coverage"] < 0.9
    assert auroc["auroc_lower_alt"]["method"] == "delong-logit"
    warnings = [r["code"] for r in verdict["reasons"] if r["severity"] != "notice"]
    assert warnings == ["bound-coverage-low"]  # the notice: landings unconfirmed offline
    cold = VerificationCache(tmp_path / "cache")
    assert dumps({"v": verdicts_json(built.root, cold)}) == dumps({"v": plain})
    assert cold.stats.stored == 1
    (entry,) = _entries(tmp_path / "cache")
    assert b'"units_per_class"' in entry.read_bytes() and b'"auroc_lower_alt"' in entry.read_bytes()
    warm = VerificationCache(tmp_path / "cache")
    assert dumps({"v": verdicts_json(built.root, warm)}) == dumps({"v": plain})
    assert (warm.stats.hits, warm.stats.misses) == (1, 0)
    for as_of in (AS_OF, CLOSED):
        expected = _resolved(built.root, None, as_of)
        assert _resolved(built.root, VerificationCache(tmp_path / "cache"), as_of) == expected


def _late_last_trial(files: dict[str, bytes]) -> None:
    """The last trial starts at 12:00 on the day the run lands (10:00 by default)."""

    def late(items: list[dict[str, Any]]) -> None:
        items[-1]["started_at"] = "2027-02-19T12:00:00Z"

    rewrite(files, "trials.jsonl", late)


def test_trial_in_future_is_judged_against_each_registry_s_own_filing(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """The filing time comes from history, which the key leaves out: the same evidence filed
    after its last trial in one registry and before it in another shares one entry, and each
    registry gets the verdict it gets without a cache (a dishonest filer cannot launder a
    trial from the future through a check made where it was filed later)."""
    from datetime import UTC, datetime

    honest = make_registry(
        before_scores=_late_last_trial, run_merged_at=datetime(2027, 2, 20, 9, tzinfo=UTC)
    )
    early = make_registry(before_scores=_late_last_trial)
    honest_plain, early_plain = verdicts_json(honest.root, None), verdicts_json(early.root, None)
    assert "trial-in-future" not in {r["code"] for r in honest_plain[0][0]["reasons"]}
    assert "trial-in-future" in {r["code"] for r in early_plain[0][0]["reasons"]}
    assert honest_plain[0][0]["evidence_digest"] == early_plain[0][0]["evidence_digest"]
    for first, then, expected in (
        (honest, early, early_plain),
        (early, honest, honest_plain),
    ):
        folder = tmp_path / f"cache-{first.root.name}"
        verdicts_json(first.root, VerificationCache(folder))
        warm = VerificationCache(folder)
        assert verdicts_json(then.root, warm) == expected
        assert warm.stats.hits == 1  # the same key: read back, then judged with today's filing
        again = VerificationCache(folder)
        assert verdicts_json(first.root, again) == verdicts_json(first.root, None)


def test_trials_before_their_filing_are_judged_from_the_cache(built: Any, tmp_path: Path) -> None:
    """Every trial before the filing (the usual case): the summary kept answers, no reread."""
    from bot.app.attempt_read import read_attempt

    verdicts_json(built.root, VerificationCache(tmp_path / "cache"))
    warm = VerificationCache(tmp_path / "cache")
    with open_workspace(built.root) as workspace:
        registry = workspace.registry
        folder = registry.attempt_folders()[0]
        files = read_attempt(registry, folder, cached=lambda f: warm.lookup(registry, f)[0])
    check = files.records_result
    assert check is not None and check.checked_trials is None  # read back: no trials kept
    assert check.trials.last_started_at is not None
    assert check.trials_from(check.trials.last_started_at + timedelta(seconds=1)) == ()


@pytest.mark.parametrize("unfit", ["cases_read", "trials_read", "certificates_read"])
def test_a_check_made_for_other_files_stands_for_nothing(built: Any, unfit: str) -> None:
    """A check read back that does not fit the folder (it read a file the folder lacks, or did
    not read one the folder has) is not taken: the files are read as without a cache, and
    still checked as they are read, none kept."""
    from bot.app.attempt_read import read_attempt

    with open_workspace(built.root) as workspace:
        registry = workspace.registry
        folder = registry.attempt_folders()[0]

        def stream(files: AttemptFiles) -> RecordsChecker:
            market, _, _ = find_market(registry, files)
            withholdable = withholdable_of(market, AttemptFacts())
            return RecordsChecker(folder, market, registry.rules, withholdable, lean=True)

        plain = read_attempt(registry, folder, stream=stream)
        check = plain.records_result
        assert check is not None and check.certificates_read
        other = replace(check, **{unfit: not getattr(check, unfit)})
        files = read_attempt(registry, folder, cached=lambda _: other, stream=stream)
    assert files.records_read_now
    assert files.case_records is None and files.trial_records is None
    assert files.records_result == check
    assert (files.problems, files.jsonl_problems) == (plain.problems, plain.jsonl_problems)


def test_a_length_field_that_is_not_text_is_a_damaged_entry(
    entry: tuple[Path, Path, bytes],
) -> None:
    """The header's length field holding a byte that is not UTF-8 (hypothesis found this one
    raising UnicodeDecodeError while the message was written) is a notice, never a traceback."""

    root, path, raw = entry
    header, _, body = raw.partition(b"\n")
    fields = header.split(b" ")
    fields[3] = b"\xff" + fields[3][1:]
    check, notices = _lookup_damaged(root, path, raw, b" ".join(fields) + b"\n" + body)
    assert check is None
    assert [n.code for n in notices] == [Code.CACHE_ENTRY_INVALID]
    assert "\\xff" in notices[0].message


def _lookup_damaged(
    root: Path, path: Path, raw: bytes, damaged: bytes
) -> tuple[RecordsResult | None, list[Finding]]:
    """The cache's answer for the registry at `root` with its one entry (`path`, written as
    `raw`) replaced by `damaged`; the entry is put back afterwards."""
    from bot.app.attempt_read import read_attempt

    path.write_bytes(damaged)
    try:
        cache = VerificationCache(path.parents[1])
        with open_workspace(root) as workspace:
            registry = workspace.registry
            (folder,) = registry.attempt_folders()
            return cache.lookup(registry, read_attempt(registry, folder))
    finally:
        path.write_bytes(raw)


def _resealed(header: bytes, body: bytes) -> bytes:
    """`body` under `header` made to agree with it (length and SHA-256): the header finds
    damage, not an entry written on purpose."""
    import hashlib

    magic, version, _, _ = header.split(b" ")
    digest = hashlib.sha256(body).hexdigest().encode()
    return b" ".join((magic, version, digest, str(len(body)).encode())) + b"\n" + body


def _impossible_units(body: bytes) -> bytes:
    data = json.loads(body)
    data["check"]["units"]["count"] = 0  # with a largest unit of some trials
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    "forge",
    [
        lambda body: b"[" * 100_000 + b"]" * 100_000,
        _impossible_units,
    ],
    ids=["nested-deep", "impossible-units"],
)
def test_an_entry_resealed_by_hand_is_a_notice(entry: tuple[Path, Path, bytes], forge: Any) -> None:
    """An entry whose header agrees with a body the bot never writes (a cache restored from
    elsewhere): JSON nested past the parser's recursion, a unit summary no judge gives. A
    notice, never a traceback."""

    root, path, raw = entry
    header, _, body = raw.partition(b"\n")
    check, notices = _lookup_damaged(root, path, raw, _resealed(header, forge(body)))
    assert check is None
    assert [n.code for n in notices] == [Code.CACHE_ENTRY_INVALID]


def test_the_code_fingerprint_covers_every_layer() -> None:
    """A change to the rules, the readers or the faces makes another cache key, not only a
    change to bot/app/ (the fingerprint once hashed only the folder its own file is in)."""
    import bot
    from bot.app.cache import code_files

    package, files = code_files()
    assert package == Path(bot.__file__).resolve().parent
    named = {path.relative_to(package).as_posix() for path in files}
    for layer in ("vocab/jsonl.py", "rules/judge/attempt.py", "edges/tree.py", "app/cache.py"):
        assert layer in named
    assert "faces/cli.py" in named and "__init__.py" in named
