"""The website's charts: small SVGs drawn by matplotlib (Agg backend), as strings.

Each chart is drawn from numbers the reports already hold (a bar's bound and threshold, a
market's dates); nothing here decides anything. matplotlib is imported on first use only, so
`claims verify` never pays for it. The SVGs are made reproducible (no date, a fixed hash salt,
text kept as text) and accessible: each carries a `<title>` and `<desc>` and `role="img"`, and
the pages that show one give the `<img>` the same text as `alt`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Any

__all__ = [
    "BarPoint",
    "CurvePoint",
    "TimelineEvent",
    "bars_svg",
    "curves_svg",
    "timeline_svg",
]

# Okabe-Ito colours: told apart with the common colour-vision deficiencies; every chart also
# says met / missed in its marker shape and its text, never by colour alone.
_MET, _MISSED, _THRESHOLD, _ESTIMATE = "#009E73", "#D55E00", "#000000", "#0072B2"


@dataclass(frozen=True)
class BarPoint:
    """One bar of an attempt, as the verify report gives it."""

    bar_id: str
    statistic: str  # rate_upper | rate_lower | auroc_lower
    bound: float | None
    threshold: float
    met: bool | None
    estimate: float | None = None  # the AUROC, or failures / units for an upper rate bound


@dataclass(frozen=True)
class TimelineEvent:
    label: str
    day: date


@dataclass(frozen=True)
class CurvePoint:
    """A point of a best-so-far curve: the best score reached by `step` tokens."""

    step: float
    best: float


def _pyplot_free_figure(width: float, height: float) -> Any:
    """A matplotlib Figure on the Agg canvas, without pyplot's global state."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=96)


def _svg(figure: Any, title: str, description: str) -> str:
    """The figure as SVG text: reproducible, with a title and description for readers that
    do not see it, and no DOCTYPE (which names an external DTD)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "claims-site", "svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)
    head = (
        f'<title id="chart-title">{escape(title)}</title>'
        f'<desc id="chart-desc">{escape(description)}</desc>'
    )
    return re.sub(
        r"<svg([^>]*)>",
        lambda m: f'<svg role="img" aria-labelledby="chart-title chart-desc"{m.group(1)}>{head}',
        text,
        count=1,
    )


def _describe_bar(point: BarPoint) -> str:
    verdict = {True: "met", False: "missed", None: "not evaluated"}[point.met]
    side = "at most" if point.statistic == "rate_upper" else "at least"
    bound = "no bound" if point.bound is None else f"bound {point.bound:.4f}"
    return f"{point.bar_id}: {bound}, threshold {side} {point.threshold:g}, {verdict}"


def bars_svg(points: Sequence[BarPoint], title: str) -> tuple[str, str]:
    """An SVG drawing each bar's 95% bound against its threshold on [0, 1], and the text
    that describes it (for `alt`). Returns (svg, description)."""
    description = "; ".join(_describe_bar(point) for point in points) or "no bars evaluated"
    rows = max(len(points), 1)
    figure = _pyplot_free_figure(6.4, 0.7 + 0.55 * rows)
    axes = figure.add_subplot()
    for row, point in enumerate(points):
        y = rows - 1 - row
        axes.plot([point.threshold] * 2, [y - 0.3, y + 0.3], color=_THRESHOLD, linewidth=2)
        if point.estimate is not None and point.bound is not None:
            axes.plot([point.estimate, point.bound], [y, y], color=_ESTIMATE, linewidth=1.5)
            axes.plot([point.estimate], [y], marker="|", color=_ESTIMATE, markersize=10)
        if point.bound is not None:
            met = point.met is True
            axes.plot(
                [point.bound],
                [y],
                marker="o" if met else "X",
                markersize=9,
                color=_MET if met else _MISSED,
                markerfacecolor=_MET if met else _MISSED,
            )
            axes.annotate(
                f"{point.bound:.3f} ({'met' if met else 'missed'})",
                (point.bound, y),
                xytext=(0, 9),
                textcoords="offset points",
                ha="center",
                fontsize=8,
            )
    axes.set_yticks(range(rows))
    axes.set_yticklabels([p.bar_id for p in reversed(points)] or [""])
    axes.set_xlim(0, 1)
    axes.set_ylim(-0.6, rows - 0.2)
    axes.set_xlabel("95% bound (circle: met, cross: missed); black line: threshold", fontsize=8)
    axes.tick_params(labelsize=8)
    figure.tight_layout()
    return _svg(figure, title, description), description


def timeline_svg(events: Sequence[TimelineEvent], title: str) -> tuple[str, str]:
    """An SVG timeline of a market's dates (resolve-by, window close, snapshot, annulment),
    one row per date so that close dates never overlap, and the text that describes it.
    Returns (svg, description)."""
    ordered = sorted(events, key=lambda event: event.day)
    description = "; ".join(f"{event.label} {event.day.isoformat()}" for event in ordered)
    rows = max(len(ordered), 1)
    figure = _pyplot_free_figure(6.4, 0.8 + 0.32 * rows)
    axes = figure.add_subplot()
    if ordered:
        first, last = ordered[0].day.toordinal(), ordered[-1].day.toordinal()
        span = max(last - first, 1)
        for index, event in enumerate(ordered):
            x, y = event.day.toordinal(), rows - 1 - index
            axes.plot([first, x], [y, y], color="#cccccc", linewidth=0.8)
            axes.plot([x], [y], marker="o", color=_ESTIMATE)
            axes.annotate(
                event.day.isoformat(),
                (x, y),
                xytext=(6, -3),
                textcoords="offset points",
                fontsize=7,
            )
        axes.set_xlim(first - span * 0.03, last + span * 0.25)
        axes.set_xticks([])
    axes.set_yticks(range(rows))
    axes.set_yticklabels([event.label for event in reversed(ordered)] or [""])
    axes.set_ylim(-0.6, rows - 0.4)
    axes.tick_params(labelsize=8, length=0)
    for side in ("top", "right", "bottom"):
        axes.spines[side].set_visible(False)
    figure.tight_layout()
    return _svg(figure, title, description), description


def curves_svg(
    curves: Sequence[tuple[str, Sequence[CurvePoint]]], title: str, ylabel: str
) -> tuple[str, str]:
    """An SVG of best-so-far curves (one line per entry: its label and points) and the text
    that describes it. Returns (svg, description)."""
    parts = []
    figure = _pyplot_free_figure(6.4, 3.2)
    axes = figure.add_subplot()
    for label, points in curves:
        if not points:
            continue
        axes.step([p.step for p in points], [p.best for p in points], where="post", label=label)
        best = max(p.best for p in points)
        reached = min(p.step for p in points if p.best == best)
        parts.append(f"{label}: best {best:g}, reached by {reached:g} tokens")
    axes.set_ylim(0, 1.02)  # WeirdML scores are in [0, 1]
    axes.set_xscale("log")
    axes.set_xlabel("tokens (log scale)", fontsize=8)
    axes.set_ylabel(ylabel, fontsize=8)
    axes.tick_params(labelsize=8)
    if 0 < len(parts) <= 8:  # more lines than that: the description names them, not a legend
        axes.legend(fontsize=7)
    figure.tight_layout()
    description = "; ".join(parts) or "no curve points"
    return _svg(figure, title, description), description
