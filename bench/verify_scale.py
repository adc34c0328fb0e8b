"""Benchmark `claims verify` at scale against a decode-and-hash baseline; prints figures.

    python bench/verify_scale.py [--n 1000000] [--keep DIR] [--profile FILE]

Generates (seeded, reproducibly) one valid attempt with N frozen cases and N trials in a real
git registry: four families, 200 systems (seed variants of four base systems), each system
one unit (its trials share the system, an evaluator and per-system attack families; every
trial is its own trajectory, so a unit spans many trajectories), ten units with a false-safe
trial, certificates for every system, a raw log kept as head/tail excerpts, an honest
scores.yaml and judgments.yaml. The freeze is merged before the run, as a filer does.

Then, each in a child process whose CPU time (user + system) and peak RSS come from
`os.wait4` (resource usage of that child alone):
- baseline: read every line of the attempt's JSONL files, decode it with orjson and hash the
  files with SHA-256: the least any verification must do (the ratio is to this one);
- the same, keeping every decoded record in a list (what verify did before it streamed);
- the floor of a verify in Python with the bot's models (`FLOOR`): decode, the compiled
  schema check, and a slotted model kept per record, nothing else;
- the msgspec-only floor (`MSGSPEC_FLOOR`): each line decoded and validated into a typed
  msgspec Struct following the schemas, nothing kept;
- `claims verify --json` of the attempt (the `claims` next to this Python, or on PATH).
Prints N, the CPU times, the ratios, verify's wall time and the peak RSS figures, and
verify's outcome (the attempt must come out with valid evidence).

Targets (issue 25): verify <= 4x the baseline CPU time; peak RSS <= 600 MiB at 1,000,000,
<= 100 MiB at 100,000.
`--profile FILE` runs verify under cProfile instead (writes FILE; figures then include it).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# The bot is imported only to build (`_builder`): the figures are taken by a fresh process
# (--reuse) whose children then start small (ru_maxrss counts what a child inherits at fork).

SYSTEMS = 200
FAMILIES = ("sandbagging", "sabotage", "collusion", "exfiltration")
BASES = ("sim-model-a", "sim-model-b", "sim-model-c", "sim-model-d")
TECHNIQUES = ("prompt-injection", "role-play", "obfuscated-payload", "reward-bait")
FAILING_UNITS = 10  # systems 0..9 each have one false-safe attack trial
CONFIDENCE = 0.95  # shared-rules/common-v1.yaml
SCHEMAS = "../../../../schemas"
EXCERPT = 1_000_000  # the shared rules' excerpt_bytes
AS_OF = "2027-04-15"


def system_name(index: int) -> str:
    return f"{BASES[index % len(BASES)]}-seed-{index // len(BASES) + 1:02d}"


def _market() -> dict[str, Any]:
    """The demo market 3, its discrimination bar over one probe case per system (one score
    per unit: a bar over trials that share a unit is refused)."""
    from bot.faces.demo.specimen import market_document

    market = market_document(3, "default")
    for bar in market["bars"]:
        if bar["id"] == "discrimination":
            bar["over"] = {"case": {"probe": True}}
    return market


def _canonical(content: dict[str, str]) -> str:
    # RFC 8785 of a flat object of plain ASCII strings is sorted, compact JSON (checked below
    # against the bot's own case_hash on the first cases).
    return hashlib.sha256(
        json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def generate(n: int, seed: int = 13) -> dict[str, Any]:
    """The big files and what the small ones must state about them."""
    from bot.edges.dump import dump_jsonl
    from bot.rules.evidence.hashing import case_hash
    from bot.rules.stats import clopper_pearson, delong
    from bot.vocab.timestamps import format_timestamp

    rng = random.Random(seed)
    start = datetime(2027, 1, 20, 9, 0, tzinfo=UTC)
    cases, trials, log = [], [], []
    counts: dict[str, dict[str, dict[str, int]]] = {
        "all": {},
        "false-safe": {},
        "discrimination": {},
    }
    failed: set[int] = set()
    positives: list[float] = []
    negatives: list[float] = []
    for i in range(n):
        family = FAMILIES[(i // SYSTEMS) % len(FAMILIES)]
        system = i % SYSTEMS
        kind = "control" if i % 3 == 2 else "attack"
        truth = "unsafe" if kind == "attack" else "safe"
        content = {
            "prompt": f"{family} scenario {i}: {rng.choice(('audit', 'deploy', 'patch'))}"
            f" with seed {rng.randrange(10**6)}",
            "truth": truth,
        }
        digest = _canonical(content)
        if i < 50:
            assert digest == case_hash(content), "canonical form differs from RFC 8785"
        probe = i < SYSTEMS
        public: dict[str, Any] = {"title": f"{family} #{i}"}
        if probe:
            public["probe"] = True
        case_id = f"{family}-{i:07d}"
        cases.append(
            {
                "case_id": case_id,
                "sha256": digest,
                "family": family,
                "kind": kind,
                "public": public,
                "content": content,
            }
        )
        false_safe = kind == "attack" and system < FAILING_UNITS and system not in failed
        if false_safe:
            failed.add(system)
        label = "safe" if false_safe or kind == "control" else "unsafe"
        score = round(rng.uniform(0.6, 1.0) if label == "unsafe" else rng.uniform(0.0, 0.5), 4)
        verdict = "false_safe" if false_safe else ("caught" if kind == "attack" else "passed")
        started = format_timestamp(start + timedelta(seconds=i))
        name = system_name(system)
        attack_family = (
            f"{family}/{TECHNIQUES[i % len(TECHNIQUES)]}-s{system:03d}"
            if kind == "attack"
            else None
        )
        trials.append(
            {
                "case_id": case_id,
                "system": name,
                "started_at": started,
                "trajectory": f"traj-{i:07d}",
                "evaluator": f"reviewer-s{system:03d}",
                "attack_family": attack_family,
                "result": {
                    "verdict": verdict,
                    "certificate": label,
                    "truth": truth,
                    "score": score,
                },
            }
        )
        log.append(f"{started} case={case_id} system={name} verdict={verdict} score={score}\n")
        selected = ["all"] + (["false-safe"] if kind == "attack" else [])
        if probe:
            selected.append("discrimination")
            (positives if truth == "unsafe" else negatives).append(score)
        for key in selected:
            row = counts[key].setdefault(label, {})
            row[truth] = row.get(truth, 0) + 1
    attack_units = len({i % SYSTEMS for i in range(n) if i % 3 != 2})
    result = delong.auroc(positives, negatives)
    table = {
        "bars": {
            "false-safe": {
                "failures": len(failed),
                "units": attack_units,
                "bound": clopper_pearson.upper_bound(len(failed), attack_units, CONFIDENCE),
            },
            "discrimination": {
                "positives": len(positives),
                "negatives": len(negatives),
                "auroc": result.auc,
                "lower": delong.lower_bound(result, CONFIDENCE),
            },
        },
        "class_conditional": counts,
    }
    raw_log = "".join(log).encode()
    del log
    certificates = [
        {
            "system": system_name(s),
            "version": "2027-01",
            "measured": "rate of attack trajectories the monitor labels safe",
            "setup": "trace monitor reads the full agent transcript; no tool access",
            "abstain": False,
            "label": "monitored",
        }
        for s in range(SYSTEMS)
    ]
    return {
        "freeze-cases.jsonl": dump_jsonl(cases),
        "trials.jsonl": dump_jsonl(trials),
        "certificates.jsonl": dump_jsonl(certificates),
        "raw_log": raw_log,
        "scores": table,
    }


def build(root: Path, n: int) -> Path:
    """Write the registry under `root`; return the attempt folder."""
    import yaml

    from bot.edges.dump import dump_yaml
    from bot.faces.demo.specimen import AttemptSpec
    from tests.support import RegistryFactory

    big = generate(n)
    log: bytes = big.pop("raw_log")
    table = big.pop("scores")

    def replace(files: dict[str, bytes]) -> None:
        for name in [name for name in files if name.startswith("raw-log/")]:
            del files[name]
        files.update({k: v for k, v in big.items() if k.endswith(".jsonl")})
        if len(log) <= 2 * EXCERPT:  # the shared rules' max_local_log_bytes: kept whole
            files["raw-log/harness.log"] = log
        else:
            files["raw-log/head"], files["raw-log/tail"] = log[:EXCERPT], log[-EXCERPT:]
        attempt = yaml.safe_load(files["attempt.yaml"])
        attempt["raw_log"].update(sha256=hashlib.sha256(log).hexdigest(), bytes=len(log))
        files["attempt.yaml"] = dump_yaml(attempt, f"{SCHEMAS}/attempt.schema.json")
        files["scores.yaml"] = dump_yaml(table, f"{SCHEMAS}/scores.schema.json")

    spec = AttemptSpec(families=FAMILIES[:2], cases_per_family=3)
    markets = {"markets/market-03.yaml": dump_yaml(_market())}
    factory = RegistryFactory(root)
    built = factory(spec, before_scores=replace, scores=False, markets=markets)
    built.repo.close()
    return built.attempt


def _child(
    argv: list[str], out: Path | None = None, cwd: Path | None = None
) -> tuple[float, float, int, int]:
    """Run argv in the system's temporary folder (so `python -m bot` imports the installed
    bot, not this checkout's), or in `cwd`; return (CPU seconds, wall seconds, peak RSS
    bytes, status)."""
    started = time.perf_counter()
    with open(out or os.devnull, "wb") as sink:
        process = subprocess.Popen(
            argv, stdout=sink, stderr=subprocess.STDOUT, cwd=cwd or tempfile.gettempdir()
        )
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss * 1024, process.returncode


BASELINE = """
import hashlib, sys, orjson
keep = sys.argv[1] == "keep"
kept = []
for path in sys.argv[2:]:
    digest = hashlib.sha256()
    with open(path, 'rb') as stream:
        for line in stream:
            digest.update(line)
            record = orjson.loads(line)
            if keep:
                kept.append(record)
    print(path, digest.hexdigest())
"""


# The least a verify written in Python with these models can do: decode each line (orjson),
# check it against its schema (the compiled jsonschema-rs validator verify uses first), parse
# a trial's time and keep a slotted model per record (a lean `Case`, a `Trial` with its unit
# keys), with nothing else: no names, hashes, withheld fields, units, bars or report.
FLOOR = """
import sys, orjson
from bot.rules.evidence.models import Case, Trial
from bot.rules.evidence.schema import _fast_validators
from bot.vocab.timestamps import parse_timestamp
fast = _fast_validators()
keys = ("system", "trajectory", "evaluator", "attack_family")
cases, trials = {}, []
for path in sys.argv[1:]:
    is_case = path.endswith("freeze-cases.jsonl")
    if not is_case and not path.endswith("trials.jsonl"):
        continue
    valid = fast["freeze-case" if is_case else "trial"]
    with open(path, 'rb') as stream:
        for number, line in enumerate(stream, start=1):
            data = orjson.loads(line)
            assert valid(data)
            if is_case:
                cases[data["case_id"]] = Case(number, data["case_id"], data["sha256"],
                    data["family"], data["kind"], {}, None)
            else:
                trials.append(Trial.from_data(number, data, parse_timestamp(data["started_at"]),
                    {key: data[key] for key in keys}))
print(len(cases), len(trials))
"""


# The msgspec-only floor (issue 25): decode and validate each line in one compiled pass into a
# typed Struct that follows schemas/freeze-case.schema.json and schemas/trial.schema.json
# (required fields, no others, the id and sha256 patterns, the name and unit-key lengths, the
# timestamp as an aware datetime), keeping nothing. What a verify that decodes this way starts
# from; what it then checks and keeps comes on top.
MSGSPEC_FLOOR = """
import sys
from datetime import datetime
from typing import Annotated, Any
import msgspec
Id = Annotated[str, msgspec.Meta(pattern="^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$")]
Sha = Annotated[str, msgspec.Meta(min_length=64, max_length=64, pattern="^[0-9a-f]{64}$")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
Key = Annotated[str, msgspec.Meta(max_length=200)] | None
class FreezeCase(msgspec.Struct, forbid_unknown_fields=True):
    case_id: Id
    sha256: Sha
    family: Name
    kind: Name
    public: dict[str, Any]
    content: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
class Trial(msgspec.Struct, forbid_unknown_fields=True):
    case_id: Id
    system: Name
    started_at: Annotated[datetime, msgspec.Meta(tz=True)]
    trajectory: Key
    evaluator: Key
    attack_family: Key
    result: dict[str, Any]
count = 0
for path in sys.argv[1:]:
    if path.endswith("freeze-cases.jsonl"):
        decode = msgspec.json.Decoder(FreezeCase).decode
    elif path.endswith("trials.jsonl"):
        decode = msgspec.json.Decoder(Trial).decode
    else:
        continue
    with open(path, 'rb') as stream:
        for line in stream:
            decode(line)
            count += 1
print(count)
"""


def _load() -> str:
    """The 1-minute load average (the machine may be shared)."""
    return f"{os.getloadavg()[0]:.1f}"


def _machine() -> str:
    """Processor, cores, memory and Python, as docs/performance.md states them."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            model = next(
                (line.split(":", 1)[1].strip() for line in info if line.startswith("model name")),
                model,
            )
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{model}, {os.cpu_count()} CPUs, {memory:.0f} GiB, Linux {platform.release()},"
        f" Python {platform.python_version()}"
    )


def claims_command() -> list[str]:
    local = Path(sys.executable).with_name("claims")
    found = str(local) if local.exists() else shutil.which("claims")
    if found is None:
        raise SystemExit("claims is not installed next to this Python or on PATH")
    return [found]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="cases (and trials)")
    parser.add_argument("--keep", type=Path, help="build the registry here and keep it")
    parser.add_argument("--reuse", type=Path, help="time an attempt folder built by --keep")
    parser.add_argument("--profile", type=Path, help="run verify under cProfile into FILE")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="also write the figures into docs/performance.md (bench/docs_section.py)",
    )
    parser.add_argument(
        "--claims",
        help="the command that runs claims (split on spaces), e.g. to time another checkout:"
        " 'env PYTHONPATH=/tmp/main python -m bot'",
    )
    args = parser.parse_args()
    if args.write_docs:
        from docs_section import captured, write_section

        with captured() as printed:
            _run(args)
        scale = "1m" if args.n >= 1_000_000 else "100k" if args.n >= 100_000 else "small"
        write_section(f"verify_scale-{scale}", printed.getvalue(), _command(args))
    else:
        _run(args)


def _command(args: argparse.Namespace) -> str:
    return f"python bench/verify_scale.py --n {args.n}" + (" --reuse DIR" if args.reuse else "")


def _run(args: argparse.Namespace) -> None:
    scratch = tempfile.mkdtemp(prefix="verify-scale-")
    try:
        if not args.reuse:
            started = time.perf_counter()
            attempt = build(args.keep or Path(scratch), args.n)
            print(f"built {attempt} in {time.perf_counter() - started:.0f} s", flush=True)
            again = [sys.executable, __file__, "--reuse", str(attempt)]
            again += ["--profile", str(args.profile)] if args.profile else []
            again += ["--claims", args.claims] if args.claims else []
            # Captured and printed here, so that --write-docs keeps the figures it printed.
            timed = subprocess.run(again, check=True, stdout=subprocess.PIPE, text=True)
            print(timed.stdout, end="")
            return
        attempt = args.reuse
        with (attempt / "trials.jsonl").open("rb") as lines:
            n = sum(1 for _ in lines)
        registry = attempt.parents[3]
        jsonl = sorted(str(path) for path in attempt.glob("*.jsonl"))
        size = sum(os.path.getsize(path) for path in jsonl)
        loaded = _load()
        base_cpu, base_wall, base_rss, status = _child(
            [sys.executable, "-c", BASELINE, "drop", *jsonl]
        )
        assert status == 0, "baseline failed"
        keep_cpu, keep_wall, keep_rss, status = _child(
            [sys.executable, "-c", BASELINE, "keep", *jsonl]
        )
        assert status == 0, "baseline (keep) failed"
        floor_cpu, floor_wall, floor_rss, status = _child(
            [sys.executable, "-c", FLOOR, *jsonl], cwd=Path(__file__).resolve().parents[1]
        )
        assert status == 0, "floor failed"
        typed: tuple[float, float, int, int] | None = None
        if importlib.util.find_spec("msgspec") is not None:  # else: pip install msgspec
            typed = _child([sys.executable, "-c", MSGSPEC_FLOOR, *jsonl])
            assert typed[3] == 0, "msgspec floor failed"
        report = Path(scratch) / "report.json"
        command = args.claims.split() if args.claims else claims_command()
        verify = [*command, "verify", "--registry", str(registry), str(attempt)]
        verify += ["--as-of", AS_OF, "--json", str(report), "-q"]
        if args.profile:
            module = [sys.executable, "-m", "cProfile", "-o", str(args.profile), "-m", "bot"]
            verify = [*module, *verify[1:]]
        output = Path(scratch) / "verify.out"
        cpu, wall, rss, status = _child(verify, output)
        outcome = "no report"
        if report.exists():
            attempt_report = json.loads(report.read_text())["attempts"][0]
            reasons = attempt_report["reasons"]
            codes = sorted({r["code"] for r in reasons if r["severity"] != "notice"})
            outcome = f"evidence {attempt_report['evidence']}, {attempt_report['status']} {codes}"
        mib = 2**20
        # Issue 25: <= 600 MiB at 1,000,000; <= 100 MiB at 100,000.
        target_rss = "<= 600 MiB" if n > 100_000 else "<= 100 MiB"
        print(f"N = {n:,} cases + {n:,} trials ({size / mib:,.0f} MiB of JSONL)")
        # docs/performance.md states the machine and its load beside every figure.
        print(f"machine: {_machine()}; load average {loaded} before, {_load()} after")
        print(f"baseline (orjson decode + sha256): {base_cpu:8.2f} s CPU ({base_wall:.2f} s wall)")
        print(f"    peak RSS {base_rss / mib:,.0f} MiB")
        print(f"the same, keeping every record:    {keep_cpu:8.2f} s CPU ({keep_wall:.2f} s wall)")
        print(f"    peak RSS {keep_rss / mib:,.0f} MiB")
        print(
            f"decode + schema + models only:     {floor_cpu:8.2f} s CPU ({floor_wall:.2f} s wall)"
        )
        print(f"    peak RSS {floor_rss / mib:,.0f} MiB; {floor_cpu / base_cpu:.1f}x the baseline")
        if typed is None:
            print("msgspec typed decode only:         not measured (pip install msgspec)")
        else:
            typed_cpu, typed_wall, typed_rss, _ = typed
            print(
                f"msgspec typed decode only:         {typed_cpu:8.2f} s CPU"
                f" ({typed_wall:.2f} s wall)"
            )
            print(
                f"    peak RSS {typed_rss / mib:,.0f} MiB; {typed_cpu / base_cpu:.1f}x the baseline"
            )
        print(f"claims verify:                     {cpu:8.2f} s CPU ({wall:.2f} s wall)")
        print(f"    peak RSS {rss / mib:,.0f} MiB ({rss / 1e9:.2f} GB; target {target_rss})")
        print(f"ratio verify / baseline CPU:       {cpu / base_cpu:8.1f}x  (target <= 4x)")
        if typed is not None:
            floor = typed[0] / base_cpu
            print(
                f"ratio verify / msgspec floor CPU:  {cpu / typed[0]:8.1f}x"
                f"  (the floor at {floor:.1f}x leaves {4 - floor:.1f}x of the 4x for all else)"
            )
        print(f"verify: exit {status}, {outcome}")
        if status > 1 or not report.exists():
            print(output.read_text()[-3000:])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
