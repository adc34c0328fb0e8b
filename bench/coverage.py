"""Simulate the real coverage of every bound the bot computes; prints the tables, writes them.

    python bench/coverage.py [--seed N] [--draws N] [--dry-run]

A nominal one-sided 95% bound is honest when it falls on the right side of the true value 95%
of the time. For each cell of a grid this draws `--draws` data sets (seeded numpy, one
independent stream per cell), computes the bound on each with the bot's own `bot.rules.stats`
functions, and counts how often it covers the truth:

1. DeLong's lower bound on the AUROC (`bot.rules.stats.delong`, with docs/spec.md §6's exact bound
   where DeLong's variance is 0), DeLong's normal bound alone (without that exact bound: what the
   issue's table measured), and the logit bound reported beside it
   (`bot.rules.stats.delong_logit`); over the true AUROC and m = n units per class, on binormal
   scores (positives N(d, 1), negatives N(0, 1), AUROC = Phi(d / sqrt 2)) and on a discrete
   5-point rating scale with ties (the binormal latent score cut at -0.5, 0.5, 1.5, 2.5; the
   true AUROC counts ties one half, and d is solved for it); and with unequal classes.
2. Clopper-Pearson's upper and lower bounds (`bot.rules.stats.clopper_pearson`) over the true rate p
   and n: the bound is computed once per possible count x = 0..n with the bot's function, then
   the exact coverage sum_x Binom(x; n, p) [bound covers p] and the simulated one are shown.

Only the data are simulated in bulk (numpy); every bound is the bot's own function, called
once per simulated data set. Writes, unless --dry-run:
  bot/rules/stats/coverage_table.json   the binormal DeLong and logit tables the reports interpolate
  docs/statistics.md              the tables, between the markers below (rerunning replaces)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq  # type: ignore[import-untyped]
from scipy.stats import binom, norm  # type: ignore[import-untyped]

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from bot.rules.stats import clopper_pearson, delong, delong_logit  # noqa: E402

CONFIDENCE = 0.95
SEED = 3
DRAWS = 2000
# The shipped table's grid (bot/rules/stats/coverage_table.json).
PER_CLASS = (5, 10, 20, 30, 50, 100, 200, 500)
AUROCS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99)
# The issue's table.
ISSUE_AUROCS = (0.8, 0.9, 0.95)
ISSUE_PER_CLASS = (10, 30, 100)
ISSUE_TABLE = {  # issue 15, in percent
    (0.8, 10): 87.1, (0.8, 30): 90.9, (0.8, 100): 93.5,
    (0.9, 10): 81.5, (0.9, 30): 87.4, (0.9, 100): 91.5,
    (0.95, 10): 73.5, (0.95, 30): 83.8, (0.95, 100): 89.1,
}  # fmt: skip
RATING_CUTS = (-0.5, 0.5, 1.5, 2.5)
RATING_AUROCS = (0.6, 0.7, 0.8, 0.9, 0.95)
RATING_PER_CLASS = (10, 30, 100)
# The grid simulates the smaller class as the positives; these check the other way round.
UNEQUAL = ((10, 30), (30, 10), (10, 100), (100, 10), (30, 100), (100, 30))
UNEQUAL_AUROCS = (0.8, 0.9, 0.95)
CP_RATES = (0.01, 0.05, 0.1, 0.2, 0.3, 0.5)
CP_SIZES = (10, 30, 100, 300, 1000)

TABLE_PATH = PROJECT / "bot" / "stats" / "coverage_table.json"
DOCS_PATH = PROJECT / "docs" / "statistics.md"
BEGIN = "<!-- bench/coverage.py writes from here: do not edit by hand -->"
END = "<!-- bench/coverage.py writes up to here -->"

# The bounds on the AUROC, by name: the bot's functions, on one DeLongResult.
METHODS: dict[str, Callable[[delong.DeLongResult], float]] = {
    "delong": lambda r: delong.lower_bound(r, CONFIDENCE),
    # DeLong's normal bound without docs/spec.md §6's exact bound at zero variance (there: the AUC).
    "delong-normal": lambda r: delong.lower_bound(r, CONFIDENCE) if r.variance > 0 else r.auc,
    delong_logit.METHOD: lambda r: delong_logit.lower_bound(r, CONFIDENCE),
}
KINDS = {"binormal": 1, "rating": 2}

Scores = npt.NDArray[np.float64]


def _rng(seed: int, *cell: float) -> np.random.Generator:
    """One independent stream per cell, the same whatever else the grid holds."""
    return np.random.default_rng([seed, *(round(value * 1000) for value in cell)])


def binormal_shift(auroc: float) -> float:
    """d with Phi(d / sqrt 2) = auroc: positives N(d, 1) against negatives N(0, 1)."""
    return float(math.sqrt(2.0) * norm.ppf(auroc))


def _rating_probabilities(shift: float) -> tuple[Scores, Scores]:
    edges = np.array([-np.inf, *RATING_CUTS, np.inf])
    negative = np.diff(norm.cdf(edges))
    positive = np.diff(norm.cdf(edges - shift))
    return positive, negative


def rating_auroc(shift: float) -> float:
    """The true AUROC of the rating scale, ties counting one half."""
    positive, negative = _rating_probabilities(shift)
    above = np.cumsum(negative) - negative  # P(negative rating < k)
    return float(np.sum(positive * (above + 0.5 * negative)))


def rating_shift(auroc: float) -> float:
    """The latent shift d whose 5-point rating scale has this true AUROC."""
    return float(brentq(lambda d: rating_auroc(d) - auroc, -10.0, 10.0, xtol=1e-12))


def draw_scores(
    kind: str, auroc: float, positives: int, negatives: int, draws: int, rng: np.random.Generator
) -> tuple[Scores, Scores]:
    """`draws` data sets at once: (draws x positives) and (draws x negatives) scores."""
    if kind == "binormal":
        shift = binormal_shift(auroc)
        return (
            rng.normal(shift, 1.0, (draws, positives)),
            rng.normal(0.0, 1.0, (draws, negatives)),
        )
    p_positive, p_negative = _rating_probabilities(rating_shift(auroc))
    ratings = np.arange(1.0, 6.0)
    return (
        rng.choice(ratings, size=(draws, positives), p=p_positive),
        rng.choice(ratings, size=(draws, negatives), p=p_negative),
    )


def auroc_coverage(
    kind: str,
    auroc: float,
    positives: int,
    negatives: int,
    draws: int,
    seed: int,
    methods: Sequence[str] = tuple(METHODS),
) -> dict[str, float]:
    """Per method, the fraction of simulated data sets whose lower bound is <= the true AUROC."""
    rng = _rng(seed, KINDS[kind], auroc, positives, negatives)
    x, y = draw_scores(kind, auroc, positives, negatives, draws, rng)
    covered = dict.fromkeys(methods, 0)
    for row in range(draws):
        result = delong.auroc(x[row], y[row])  # type: ignore[arg-type]
        for method in methods:
            covered[method] += METHODS[method](result) <= auroc
    return {method: count / draws for method, count in covered.items()}


def cp_coverage(side: str, rate: float, n: int, draws: int, seed: int) -> tuple[float, float]:
    """Clopper-Pearson's `side` bound at true rate `rate` and n: (exact, simulated) coverage."""
    counts = np.arange(n + 1)
    if side == "upper":
        covers = np.array(
            [clopper_pearson.upper_bound(int(x), n, CONFIDENCE) >= rate for x in counts]
        )
    else:
        covers = np.array(
            [clopper_pearson.lower_bound(int(x), n, CONFIDENCE) <= rate for x in counts]
        )
    exact = float(np.sum(binom.pmf(counts, n, rate)[covers]))
    drawn = _rng(seed, 3 if side == "upper" else 4, rate, n).binomial(n, rate, draws)
    return exact, float(np.mean(covers[drawn]))


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _grid_table(
    title: str, rows: Sequence[float], columns: Sequence[int], cell: Callable[[float, int], str]
) -> list[str]:
    lines = [
        title,
        "",
        "| true AUROC | "
        + " | ".join(f"m = n = {k}" if i == 0 else str(k) for i, k in enumerate(columns))
        + " |",
    ]
    lines.append("|---|" + "---|" * len(columns))
    for auroc in rows:
        lines.append(f"| {auroc:.2f} | " + " | ".join(cell(auroc, k) for k in columns) + " |")
    return [*lines, ""]


def _time_per_call() -> list[str]:
    """What one bot.rules.stats DeLong call (auroc + lower bound) costs, measured here."""
    lines = []
    rng = np.random.default_rng(0)
    for k in (10, 100, 1000):
        x, y = rng.normal(1.0, 1.0, k), rng.normal(0.0, 1.0, k)
        repeats = 300
        started = time.perf_counter()
        for _ in range(repeats):
            delong.lower_bound(delong.auroc(x, y), CONFIDENCE)  # type: ignore[arg-type]
        each = (time.perf_counter() - started) / repeats
        lines.append(f"{k} per class {1e6 * each:.0f} µs")
    return lines


def run(seed: int, draws: int) -> tuple[list[str], dict[str, object]]:
    """All simulations: the Markdown block, and the shipped table's data."""
    started = time.perf_counter()
    out: list[str] = []
    shipped = ("delong", delong_logit.METHOD)
    cells: dict[tuple[float, int, int], dict[str, float]] = {}
    for auroc in AUROCS:
        for i, small in enumerate(PER_CLASS):
            for large in PER_CLASS[i:]:
                found = auroc_coverage("binormal", auroc, small, large, draws, seed)
                cells[(auroc, small, large)] = cells[(auroc, large, small)] = found
    # coverage[method][auroc][positives][negatives], symmetric in the two classes.
    grid = {
        method: [
            [[round(cells[(a, m, n)][method], 4) for n in PER_CLASS] for m in PER_CLASS]
            for a in AUROCS
        ]
        for method in shipped
    }

    def issue_cell(auroc: float, k: int) -> str:
        found = cells.get((auroc, k, k)) or auroc_coverage("binormal", auroc, k, k, draws, seed)
        return (
            f"{_percent(found['delong-normal'])} (issue {ISSUE_TABLE[(auroc, k)]:.1f}%;"
            f" bot {_percent(found['delong'])})"
        )

    out += _grid_table(
        "**The issue's table**, DeLong's normal bound alone (binormal; the issue's figure and"
        " the bot's bound, with docs/spec.md §6's exact bound where the variance is 0, in"
        " brackets):",
        ISSUE_AUROCS,
        ISSUE_PER_CLASS,
        issue_cell,
    )
    worst = max(
        abs(100 * (cells.get((a, k, k)) or {}).get("delong-normal", math.nan) - ISSUE_TABLE[(a, k)])
        for a in ISSUE_AUROCS
        for k in ISSUE_PER_CLASS
    )
    out += [f"Largest difference from the issue's table: {worst:.1f} points.", ""]
    out += _grid_table(
        "**DeLong's lower bound as the bot computes it** (binormal, m = n; shipped as"
        " `bot/rules/stats/coverage_table.json`, `delong`,"
        " with every unequal pair of these sizes):",
        AUROCS,
        PER_CLASS,
        lambda a, k: _percent(cells[(a, k, k)]["delong"]),
    )
    out += _grid_table(
        f"**The logit bound** (`{delong_logit.METHOD}`, binormal; shipped too):",
        AUROCS,
        PER_CLASS,
        lambda a, k: _percent(cells[(a, k, k)][delong_logit.METHOD]),
    )
    ratings = {
        (a, k): auroc_coverage("rating", a, k, k, draws, seed)
        for a in RATING_AUROCS
        for k in RATING_PER_CLASS
    }
    out += _grid_table(
        f"**A 5-point rating scale with ties** (latent binormal cut at {RATING_CUTS}):"
        f" DeLong as the bot computes it / `{delong_logit.METHOD}`:",
        RATING_AUROCS,
        RATING_PER_CLASS,
        lambda a, k: (
            f"{_percent(ratings[(a, k)]['delong'])} /"
            f" {_percent(ratings[(a, k)][delong_logit.METHOD])}"
        ),
    )
    out += [
        "**Unequal classes** (binormal; m positive, n negative units): DeLong as the bot"
        f" computes it / `{delong_logit.METHOD}`. The shipped table holds every pair of its"
        " sizes, simulated with the smaller class positive; the pairs below, both ways round,"
        " show how little the orientation matters:",
        "",
        "| true AUROC | " + " | ".join(f"m = {m}, n = {n}" for m, n in UNEQUAL) + " |",
        "|---|" + "---|" * len(UNEQUAL),
    ]
    for auroc in UNEQUAL_AUROCS:
        found = [auroc_coverage("binormal", auroc, m, n, draws, seed) for m, n in UNEQUAL]
        out.append(
            f"| {auroc:.2f} | "
            + " | ".join(
                f"{_percent(f['delong'])} / {_percent(f[delong_logit.METHOD])}" for f in found
            )
            + " |"
        )
    out.append("")
    minimum = 1.0
    for side in ("upper", "lower"):
        out += [
            f"**Clopper-Pearson {side} bound**, exact coverage (simulated):",
            "",
            "| true rate p | " + " | ".join(f"n = {n}" for n in CP_SIZES) + " |",
            "|---|" + "---|" * len(CP_SIZES),
        ]
        for rate in CP_RATES:
            row = [cp_coverage(side, rate, n, draws, seed) for n in CP_SIZES]
            minimum = min(minimum, *(exact for exact, _ in row))
            out.append(
                f"| {rate:g} | "
                + " | ".join(f"{_percent(e)} ({_percent(s)})" for e, s in row)
                + " |"
            )
        out.append("")
    verdict = "at least" if minimum >= CONFIDENCE else "BELOW"
    out += [
        f"Clopper-Pearson's smallest exact coverage on this grid: {100 * minimum:.2f}%,"
        f" {verdict} the nominal 95%.",
        "",
        "One `bot.rules.stats` DeLong call (auroc and lower bound) takes: "
        f"{', '.join(_time_per_call())}"
        f" on the machine that wrote this. Seed {seed}, {draws} draws per cell, "
        f"{time.perf_counter() - started:.0f} s in all.",
    ]
    table: dict[str, object] = {
        "about": "Simulated coverage of the one-sided lower bounds on the AUROC, binormal"
        " scores: coverage[method][auroc][positives][negatives] over the per_class sizes"
        " (symmetric in the classes); written by bench/coverage.py (docs/statistics.md).",
        "generated_by": f"python bench/coverage.py --seed {seed} --draws {draws}",
        "confidence": CONFIDENCE,
        "seed": seed,
        "draws": draws,
        "per_class": list(PER_CLASS),
        "auroc": list(AUROCS),
        "coverage": grid,
    }
    return out, table


def write_docs(block: Sequence[str], path: Path = DOCS_PATH) -> None:
    """Replace what lies between the markers in docs/statistics.md with `block`."""
    text = path.read_text("utf-8")
    head, _, rest = text.partition(BEGIN)
    _, found, tail = rest.partition(END)
    if not found:
        raise SystemExit(f"{path}: the markers {BEGIN!r} and {END!r} are missing")
    path.write_text(f"{head}{BEGIN}\n\n" + "\n".join(block) + f"\n\n{END}{tail}", "utf-8")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--draws", type=int, default=DRAWS)
    parser.add_argument("--dry-run", action="store_true", help="print only, write nothing")
    args = parser.parse_args(argv)
    block, table = run(args.seed, args.draws)
    print("\n".join(block))
    if not args.dry_run:
        TABLE_PATH.write_text(json.dumps(table, indent=1) + "\n", "utf-8")
        write_docs(block)
        print(f"\nwrote {TABLE_PATH.relative_to(PROJECT)} and {DOCS_PATH.relative_to(PROJECT)}")


if __name__ == "__main__":
    main()
