"""The website's files from a `SitePlan`: HTML pages (Jinja2 templates in
`bot/faces/site/templates/`, autoescaped), SVG charts, JSON endpoints and the stylesheet.

Returns every file as bytes keyed by its path inside the site; `bot/faces/site/publish.py` writes
them. Every internal link is relative (`../../index.html`), so the site works from any base
path (a GitHub Pages project site) and from a folder opened in a browser, with no network:
no script, no web font, no asset from another host.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from bot.faces.site.charts import (
    BarPoint,
    CurvePoint,
    TimelineEvent,
    bars_svg,
    curves_svg,
    timeline_svg,
)
from bot.faces.site.model import REASON_CODES_PAGE, SitePlan

__all__ = ["render_site"]

# What an attempt object of the verify report holds today, and what the site adds to it; any
# other field (a later report's section) is shown as data under "More from the report".
_KNOWN_ATTEMPT_FIELDS = frozenset(
    {
        "attempt",
        "market",
        "kind",
        "evidence",
        "status",
        "outcome",
        "reasons",
        "pr_problem_codes",
        "bars",
        "class_conditional",
        "checks",
        "evidence_digest",
        "counts",
        "units",
        "page",
        "market_title",
        "market_page",
        "files",
        "filed",
        "site_error",
    }
)


def _num(value: object) -> str:
    if value is None:
        return "\N{EN DASH}"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _truth_labels(table: Mapping[str, Mapping[str, int]]) -> list[str]:
    return sorted({truth for row in table.values() for truth in row})


def _rules_links(text: str, source_file: str) -> Markup:
    """The seed's "Stable link ..." sentence as a link to this page, and the source file's
    name as a link to the copy beside it."""
    html = str(escape(text))
    html = html.replace(
        "Stable link for this version of the shared rules",
        '<a href="index.html">Stable link for this version of the shared rules</a>',
        1,
    )
    html = re.sub(
        r"shared-rules/([A-Za-z0-9._-]+\.yaml)",
        lambda m: (
            f'<a href="{source_file}">{m.group(0)}</a>' if m.group(1) == source_file else m.group(0)
        ),
        html,
        count=1,
    )
    return Markup(html)


# C0 and C1 controls (but tab and line breaks), DEL, and lone surrogates (bytes of a name that
# are not UTF-8): no page may hold them as they are (HTML forbids the controls; UTF-8 has no
# surrogates), so a report's text shows them as escapes.
_UNSHOWABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _shown(value: object) -> object:
    """Every value a template writes: a string's unshowable characters as `\\xNN` or
    `\\uXXXX` (the rest, such as `<`, is escaped by autoescape as usual)."""
    if isinstance(value, str) and _UNSHOWABLE.search(value):
        shown = _UNSHOWABLE.sub(lambda m: m.group().encode("unicode_escape").decode(), value)
        return Markup(shown) if isinstance(value, Markup) else shown
    return value


def _environment() -> Environment:
    environment = Environment(
        finalize=_shown,
        loader=PackageLoader("bot.faces.site", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["num"] = _num
    environment.filters["truth_labels"] = _truth_labels
    environment.filters["rules_links"] = _rules_links
    environment.filters["web_url"] = _web_url
    return environment


def _web_url(value: object) -> bool:
    """True for an http(s) address, the only kind the site links to from a filer's text."""
    return isinstance(value, str) and re.match(r"\Ahttps?://[^\s<>\"']+\Z", value) is not None


def _json(data: Mapping[str, Any]) -> bytes:
    # A lone surrogate (a report's "\\udc80") is written as that same JSON escape.
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace")


def _encoded(html: str) -> bytes:
    """A page as UTF-8; a lone surrogate (no UTF-8 form) as a character reference."""
    return html.encode("utf-8", "xmlcharrefreplace")


def _root(path: str) -> str:
    """The relative path from a page's folder (`a/b/`) back to the site's root."""
    return "../" * path.count("/")


def _timeline(market: Mapping[str, Any]) -> tuple[str, str]:
    dates = market["dates"]
    events = [
        TimelineEvent("resolve-by (R)", date.fromisoformat(dates["resolve_by"])),
        TimelineEvent("window closes", date.fromisoformat(dates["window_closes"])),
        TimelineEvent("annulled after", date.fromisoformat(dates["annul_on"])),
    ]
    snapshot = market.get("snapshot") or {}
    if snapshot.get("tagged_at"):
        events.append(
            TimelineEvent("snapshot tagged", date.fromisoformat(snapshot["tagged_at"][:10]))
        )
    archive = snapshot.get("archive") or {}
    if archive.get("created"):
        events.append(TimelineEvent("archive copy", date.fromisoformat(archive["created"][:10])))
    if market.get("decided_by") == "resolution-record" and market.get("as_of"):
        events.append(TimelineEvent("resolved", date.fromisoformat(market["as_of"])))
    return timeline_svg(events, f"Timeline of market {market['market']}")


def _bars(attempt: Mapping[str, Any]) -> tuple[str, str]:
    points = [
        BarPoint(
            bar_id=str(bar["id"]),
            statistic=str(bar["statistic"]),
            bound=bar.get("bound"),
            threshold=float(bar["threshold"]),
            met=bar.get("met"),
            estimate=bar.get("estimate"),
        )
        for bar in attempt["bars"]
    ]
    return bars_svg(points, f"Bars of {attempt['attempt']}")


def _curves(
    curves: Sequence[tuple[str, Sequence[tuple[float, float]]]], title: str
) -> tuple[str, str]:
    return curves_svg(
        [(label, [CurvePoint(step, best) for step, best in points]) for label, points in curves],
        title,
        "best effective score so far",
    )


def render_site(
    plan: SitePlan, assets: Mapping[str, bytes] | None = None, errors: list[str] | None = None
) -> dict[str, bytes]:
    """Every file of the site, by path: the pages, charts and endpoints of `plan`, and
    `assets` (the shared rules' source file, copies of evidence files) as given.

    A market, attempt or challenge run page that cannot be drawn (whatever a report's entry
    holds) becomes a page with an error panel, and its path and reason are added to `errors`:
    one entry never stops the site."""
    errors = [] if errors is None else errors
    environment = _environment()
    rules = plan.rules
    # Reason codes with a section on the shipped page: each shown code links to its anchor.
    anchors = {section["id"] for section in plan.reason_codes if section.get("code")}
    common = {
        "reason_anchors": anchors,
        "reason_page": REASON_CODES_PAGE,
        "site_name": rules["site_name"],
        "rules_path": rules["path"],
        "generated_on": plan.index["generated_on"],
        "sources": plan.index.get("sources", []),
    }
    files: dict[str, bytes] = dict(assets or {})

    def page(path: str, template: str, title: str, **context: Any) -> None:
        html = environment.get_template(template).render(
            title=title, root=_root(path), **common, **context
        )
        files[path] = _encoded(html)

    def guarded(folder: str, title: str, draw: Callable[[], None]) -> None:
        """Draw one entry's page (and its charts and JSON); if it cannot be drawn, an error
        panel in its place. A bulkhead: the report's entry, not the site, is what failed."""
        try:
            draw()
        except Exception as error:  # one entry's page, never the whole site
            reason = f"{type(error).__name__}: {error}"
            errors.append(f"{folder}: {reason}")
            page(f"{folder}index.html", "page-error.html.j2", title, error=reason)

    page(
        "index.html",
        "index.html.j2",
        "Markets",
        markets=plan.index["markets"],
        other_attempts=plan.index["other_attempts"],
        problems=plan.index["registry_problems"],
        challenges=plan.challenges,
    )
    files["markets.json"] = _json(plan.index)
    if plan.reason_codes:
        page(
            f"{REASON_CODES_PAGE}index.html",
            "reason-codes.html.j2",
            "Reason codes",
            sections=plan.reason_codes,
        )
    page("rules/index.html", "rules-index.html.j2", "Shared rules", rules=rules)
    page(
        f"{rules['path']}index.html",
        "rules.html.j2",
        rules["title"],
        rules=rules,
        source_file=rules["source_file"],
    )

    def drawn(path: str, chart: tuple[str, str]) -> str:
        """Keep a chart's SVG at `path`; return the text that describes it."""
        files[path] = chart[0].encode()
        return chart[1]

    for market in plan.markets:

        def draw_market(market: Mapping[str, Any] = market) -> None:
            alt = drawn(f"{market['page']}timeline.svg", _timeline(market))
            page(
                f"{market['page']}index.html",
                "market.html.j2",
                f"Market {market['market']}",
                market=market,
                timeline_alt=alt,
            )
            files[market["json"]] = _json(market)

        guarded(market["page"], f"Market {market['market']}", draw_market)
    for attempt in plan.attempts:

        def draw_attempt(attempt: Mapping[str, Any] = attempt) -> None:
            folder = attempt["page"]
            curves = plan.curves.get(attempt["attempt"])
            title = f"Attempt {attempt['attempt']}"
            page(
                f"{folder}index.html",
                "attempt.html.j2",
                title,
                a=attempt,
                bars_alt=drawn(f"{folder}bars.svg", _bars(attempt)) if attempt["bars"] else "",
                curves_alt=drawn(f"{folder}curves.svg", _curves(curves, title)) if curves else "",
                challenge_curves=bool(curves),
                extra_fields=[
                    (key, json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False))
                    for key, value in sorted(attempt.items())
                    if key not in _KNOWN_ATTEMPT_FIELDS
                ],
            )

        guarded(attempt["page"], f"Attempt {attempt['attempt']}", draw_attempt)
    market_pages = {market["market"]: market["page"] for market in plan.markets}
    for challenge in plan.challenges:

        def draw_challenge(challenge: Mapping[str, Any] = challenge) -> None:
            run = challenge["run"]
            title = f"Challenge run {run}"
            curves = plan.curves.get(run)
            page(
                f"{challenge['page']}index.html",
                "challenge.html.j2",
                title,
                c=challenge,
                market_page=market_pages.get(challenge["market"]),
                curves_alt=drawn(f"{challenge['page']}curves.svg", _curves(curves, title))
                if curves
                else "",
            )

        guarded(challenge["page"], f"Challenge run {challenge['run']}", draw_challenge)
    files["style.css"] = environment.loader.get_source(environment, "style.css")[0].encode()  # type: ignore[union-attr]
    return files
